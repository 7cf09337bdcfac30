"""Check, or write afresh, the manifest of the shipped models (``agents/pretrained/manifest.json``,
:mod:`agents.manifest_writer`): run it with ``--write`` after adding, replacing or removing a file there.

    python scripts/maintainer/pretrained_manifest.py [--write]

Without ``--write`` it prints one line per difference between the manifest and the folder and exits
with status 1 when there is any.
"""

from __future__ import annotations

import argparse
import sys

from agents.manifest import MANIFEST_NAME, PRETRAINED_DIR
from agents.manifest_writer import differences, write_manifest


def main() -> int:
    """Check the manifest (exit status 1 naming each difference), or write it afresh with ``--write``."""
    parser = argparse.ArgumentParser(description=f"Check (or write) {PRETRAINED_DIR / MANIFEST_NAME}.")
    parser.add_argument("--write", action="store_true", help="write the manifest afresh from the folder's files")
    args = parser.parse_args()
    try:
        if args.write:
            print(f"wrote {write_manifest()}")
            return 0
        found = differences()
    except (OSError, ValueError) as e:
        print(f"{parser.prog}: error: {e}", file=sys.stderr)
        return 2
    for line in found:
        print(line)
    print(f"{PRETRAINED_DIR / MANIFEST_NAME}: " + ("out of date: run this with --write" if found else "up to date"))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
