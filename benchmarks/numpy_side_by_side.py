"""What the Python benchmarks against NumPy share: the best time of a call, and glassbox's figures
measured in a child process per thread count (GLASSBOX_NUM_THREADS is read once, at start-up).

A script using it answers `--child` by printing its glassbox figures as one JSON line, and calls
`glassbox_figures(__file__, threads)` for each count from its parent process."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time


def best_time(fn, min_time: float = 0.5, min_reps: int = 5) -> float:
    """The fastest of at least min_reps calls made over at least min_time seconds, after a warm-up
    call (page faults, caches)."""
    fn()
    best = float("inf")
    reps = 0
    deadline = time.perf_counter() + min_time
    while reps < min_reps or time.perf_counter() < deadline:
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
        reps += 1
    return best


def glassbox_figures(script: str, threads: int) -> dict:
    """The JSON line `script --child` prints, run with GLASSBOX_NUM_THREADS=threads."""
    env = dict(os.environ, GLASSBOX_NUM_THREADS=str(threads))
    out = subprocess.run([sys.executable, script, "--child"], env=env, check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])
