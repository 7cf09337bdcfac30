"""Debian's Chromium under Selenium, for the browser tests (the replay page, the play page).

:func:`chromium` yields a headless driver, or skips the test loudly when Chromium, ChromeDriver or
Selenium is missing — or fails it when ``CARCASSONNE_REQUIRE_BROWSER=1`` (CI sets it where it
installed Chromium), so a missing browser never passes silently.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
#: Flags that keep Chromium from reaching for the network on a closed machine (it would hang).
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--window-size=1400,900")


def missing() -> str | None:
    """Why the browser tests cannot run here, or None."""
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (pip install -e '.[dev]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            return f"{path} not found (apt-get install -y chromium chromium-driver)"
    return None


def chromium(what: str, profile: Path) -> Iterator[Any]:
    """A headless Chromium driver with a fresh ``profile`` directory; ``what`` names the page the
    skip message says went untested."""
    why = missing()
    if why is not None:
        message = f"{what} WAS NOT TESTED IN A BROWSER: {why}"
        if os.environ.get("CARCASSONNE_REQUIRE_BROWSER") == "1":
            pytest.fail(message)
        pytest.skip(message)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    yield driver
    driver.quit()


def until(check: Callable[[], Any], what: str, seconds: float = 20) -> Any:
    """``check()``'s first true answer, polled every 50 ms; fails naming ``what`` when it never comes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        answer = check()
        if answer:
            return answer
        time.sleep(0.05)
    raise AssertionError(f"the page never showed {what}")
