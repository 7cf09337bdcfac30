"""The summary of ``scripts/maintainer/bench_speed_versions.sh`` (``agents/bench_versions.py``), on a log made
up for it: medians per version, and the ratio as the median and range of the per-round ratios."""

from __future__ import annotations

from agents.bench_versions import parse, summary

LOG = """\
== round 1: 637148c
engine: Python source, search agents: Python source
greedy decisions/s, value=end_now          base                 100.0
engine random games/s                      base                 600.0
== round 1: this checkout, compiled core
engine: compiled (mypyc), search agents: compiled
greedy decisions/s, value=end_now          base                 400.0
engine random games/s                      base                1200.0
== round 2: 637148c
greedy decisions/s, value=end_now          base                 200.0
engine random games/s                      base                 500.0
== round 2: this checkout, compiled core
greedy decisions/s, value=end_now          base                 600.0
engine random games/s                      base                1500.0
== round 3: 637148c
greedy decisions/s, value=end_now          base                 300.0
engine random games/s                      base                 700.0
== round 3: this checkout, compiled core
greedy decisions/s, value=end_now          base                1500.0
engine random games/s                      base                1400.0
"""


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
