"""Rewrite the golden playthrough files: ``python -m tests.golden.regenerate [NAME ...]``.

Run from the repository root. Without names every case of ``playthrough.CASES`` is written. Do it
only when a rule change is intended, then review ``git diff tests/golden`` line by line: every
changed line is a decision whose legal actions, choice or scores changed.
"""

from __future__ import annotations

import argparse

from .playthrough import CASES, REGENERATE, golden_path, playthrough_lines


def main(argv: list[str] | None = None) -> None:
    names = [case.name for case in CASES]
    parser = argparse.ArgumentParser(prog=REGENERATE, description="Rewrite the golden playthrough files.")
    parser.add_argument("names", nargs="*", metavar="NAME", help=f"cases to rewrite (default: all: {', '.join(names)})")
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(names))
    if unknown:
        parser.error(f"unknown case {', '.join(unknown)}; the cases are {', '.join(names)}")
    for case in CASES:
        if args.names and case.name not in args.names:
            continue
        path = golden_path(case)
        lines = list(playthrough_lines(case))
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
        print(f"wrote {path} ({len(lines)} lines)")


if __name__ == "__main__":
    main()
