"""The summary of ``scripts/maintainer/bench_speed_versions.sh`` (``agents/bench_versions.py``), on a log made
up for it: medians per version, and the ratio as the median and range of the per-round ratios."""

from __future__ import annotations

from agents.bench_versions import parse, summary

#: The made-up figures: per round, each version's (greedy decisions/s, engine random games/s).
ROUNDS = [
    {"637148c": (100.0, 600.0), "this checkout, compiled core": (400.0, 1200.0)},
    {"637148c": (200.0, 500.0), "this checkout, compiled core": (600.0, 1500.0)},
    {"637148c": (300.0, 700.0), "this checkout, compiled core": (1500.0, 1400.0)},
]
#: The line agents/bench.py starts its output with, per version.
ENGINE = {"637148c": "engine: Python source, search agents: Python source",
          "this checkout, compiled core": "engine: compiled (mypyc), search agents: compiled"}


def _log() -> str:
    """The script's output on :data:`ROUNDS`: a round's versions one after the other, each a header, the
    bench's engine line and its figures in the bench's columns."""
    lines: list[str] = []
    for number, versions in enumerate(ROUNDS, 1):
        for version, (greedy, engine) in versions.items():
            lines += [f"== round {number}: {version}", ENGINE[version],
                      f"{'greedy decisions/s, value=end_now':43}base{greedy:22.1f}",
                      f"{'engine random games/s':43}base{engine:22.1f}"]
    return "\n".join(lines) + "\n"


LOG = _log()


def test_the_log_is_read_per_version_figure_and_round() -> None:
    runs = parse(LOG.splitlines())
    assert list(runs) == ["637148c", "this checkout, compiled core"]
    assert runs["637148c"][("greedy decisions/s, value=end_now", "base")] == [100.0, 200.0, 300.0]
    assert runs["this checkout, compiled core"][("engine random games/s", "base")] == [1200.0, 1500.0, 1400.0]


def test_the_ratio_is_the_median_and_range_of_the_rounds_ratios() -> None:
    header, greedy, engine = summary(parse(LOG.splitlines()))
    assert header.startswith("figure | workload | 637148c | this checkout, compiled core")
    # greedy: medians 200 and 600; per-round ratios 4, 3, 5 -> median 4.0, range 3.0-5.0
    assert greedy == "greedy decisions/s, value=end_now | base | 200 | 600 | 4.0 (3.0-5.0)"
    # engine: medians 600 and 1,400; ratios 2, 3, 2 -> median 2.0, range 2.0-3.0
    assert engine == "engine random games/s | base | 600 | 1,400 | 2.0 (2.0-3.0)"
