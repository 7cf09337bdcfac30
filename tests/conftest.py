"""Test-session settings: one compute thread per process.

CI runs pytest with two xdist workers on two cores; torch's default of one thread per core would
make each worker fight the other for both cores (several times slower than one thread each, see
training/threads.py). Set before any test imports torch or numpy's BLAS.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")
