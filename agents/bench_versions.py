"""The summary of ``scripts/maintainer/bench_speed_versions.sh``: per figure, each version's median over the
rounds and the ratio of the compiled core to the old code, as the median and range of the
per-round ratios (each round runs the versions back to back, so a round's ratio sees one state of
a noisy machine). Reads the script's output: ``python -m agents.bench_versions LOG``."""

from __future__ import annotations

import re
import statistics
import sys
from collections import defaultdict
from collections.abc import Sequence

__all__ = ["parse", "summary"]

_ROUND = re.compile(r"^== round (\d+): (.+)$")
_FIGURE = re.compile(r"^(.+?)\s{2,}(base|all expansions)\s+([0-9.]+)$")


def parse(lines: Sequence[str]) -> dict[str, dict[tuple[str, str], list[float]]]:
    """Version label → (figure, workload) → its value in each round, in round order."""
    out: dict[str, dict[tuple[str, str], list[float]]] = defaultdict(lambda: defaultdict(list))
    version = None
    for line in lines:
        head = _ROUND.match(line.strip())
        if head:
            version = head.group(2)
            continue
        row = _FIGURE.match(line.strip())
        if row and version is not None:
            out[version][(row.group(1).strip(), row.group(2))].append(float(row.group(3)))
    return out


def summary(runs: dict[str, dict[tuple[str, str], list[float]]]) -> list[str]:
    """The table's lines: figure, workload, each version's median, and compiled ÷ the first
    version (median of the per-round ratios, and their range)."""
    versions = list(runs)
    first, last = versions[0], versions[-1]
    lines = [" | ".join(["figure", "workload", *versions, f"x ({last} / {first}): median (range)"])]
    for key, values in runs[first].items():
        medians = [f"{statistics.median(runs[v][key]):,.0f}" for v in versions]
        ratios = [b / a for a, b in zip(values, runs[last][key], strict=True)]
        ratio = f"{statistics.median(ratios):.1f} ({min(ratios):.1f}-{max(ratios):.1f})"
        lines.append(" | ".join([key[0], key[1], *medians, ratio]))
    return lines


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m agents.bench_versions LOG"
                 " (the output of scripts/maintainer/bench_speed_versions.sh)")
    with open(sys.argv[1]) as log:
        print("\n".join(summary(parse(log.read().splitlines()))))
