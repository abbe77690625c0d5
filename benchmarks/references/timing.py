"""Timing helper shared by the benchmark scripts (run them from the repository root as
``python benchmarks/<folder>/<script>.py``)."""

from __future__ import annotations

import time
from collections.abc import Callable


def timed(fn: Callable[[], object]) -> float:
    """Wall-clock seconds of one call of ``fn``."""
    clock = time.perf_counter()
    fn()
    return time.perf_counter() - clock
