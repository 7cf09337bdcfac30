"""``python -m tests.faults.census``: run the fault suite and print its census (tried / clear error /
handled / silent / traceback / hang / data loss) as docs/reliability.md's table."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tests.faults.conftest import OUTCOMES


def main() -> int:
    root = Path(__file__).resolve().parents[2]
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "census.json"
        env = {**os.environ, "CARCASSONNE_CENSUS": str(target)}
        status = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/faults",
                                 *sys.argv[1:]], cwd=root, env=env).returncode
        counts = json.loads(target.read_text())
    print("| " + " | ".join(OUTCOMES) + " |")
    print("|" + "---|" * len(OUTCOMES))
    print("| " + " | ".join(str(counts[k]) for k in OUTCOMES) + " |")
    return status


if __name__ == "__main__":
    sys.exit(main())
