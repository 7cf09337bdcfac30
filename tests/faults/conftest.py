"""The fault suite's census: every test marked ``fault(outcome, count=1)`` counts ``count`` tries; a
pass counts them under the declared outcome (``clear error`` or ``handled``), a failure under what
went wrong instead: ``hang`` (a time-out), ``data loss`` (an assertion that says so), ``silent`` (any
other assertion: the fault went unnoticed) or ``traceback`` (an unexpected exception).
``python -m tests.faults.census`` runs the suite and prints the table (docs/reliability.md)."""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

OUTCOMES = ("tried", "clear error", "handled", "silent", "traceback", "hang", "data loss")
_COUNTS: Counter[str] = Counter()


def _failure(report: pytest.TestReport) -> str:
    text = str(report.longrepr)
    crash = getattr(report.longrepr, "reprcrash", None)
    message = crash.message if crash is not None else text
    if "Timeout" in message or "timed out" in message:
        return "hang"
    if "data loss" in message:
        return "data loss"
    if message.startswith(("AssertionError", "assert ", "Failed: DID NOT RAISE")):
        return "silent"
    return "traceback"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[Any]) -> Generator[None, Any, None]:
    outcome = yield
    report: pytest.TestReport = outcome.get_result()
    marker = item.get_closest_marker("fault")
    if marker is None or report.skipped or not (report.when == "call" or (report.failed and report.when == "setup")):
        return
    count = int(marker.kwargs.get("count", 1))
    _COUNTS["tried"] += count
    _COUNTS[marker.args[0] if report.passed else _failure(report)] += count


def pytest_sessionfinish(session: pytest.Session) -> None:
    target = os.environ.get("CARCASSONNE_CENSUS")
    if target:
        Path(target).write_text(json.dumps({k: _COUNTS.get(k, 0) for k in OUTCOMES}))
