"""Time the Laplace samplers: numpy's floating-point draws against the discretised Laplace
mechanism (anonlab/mechanisms/discrete.py).

Usage: ``python benchmarks/timings/bench_sampler.py [--sizes 1000 100000 1000000] [--repeats 7]``

Each timing is one call of ``LaplaceMechanism.randomise`` on ``size`` values laid out as
``(size / 4, 4)``, four attributes with their own sensitivity (one scale per attribute,
broadcast over the last axis, as the methods call it), at ε = 1. Prints, per size, the
median of ``--repeats`` calls of each sampler (after one warm-up call) and the ratio
discrete / numpy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from anonlab.mechanisms import SAMPLERS, LaplaceMechanism  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402

SENSITIVITY = np.array([1.0, 10.0, 100.0, 2.5])


def median_time(mechanism: LaplaceMechanism, values: np.ndarray, repeats: int) -> float:
    """Median wall time of ``repeats`` calls of ``mechanism.randomise(values, rng)``."""
    rng = np.random.default_rng(0)
    mechanism.randomise(values, rng)  # warm-up
    return statistics.median(
        timed(lambda: mechanism.randomise(values, rng)) for _ in range(repeats)
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1_000, 100_000, 1_000_000])
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    print(f"{'values':>9}  {'numpy':>10}  {'discrete':>10}  ratio")
    for size in args.sizes:
        values = np.random.default_rng(1).uniform(0.0, 100.0, size=(size // 4, 4))
        seconds = {
            sampler: median_time(LaplaceMechanism(SENSITIVITY, 1.0, sampler), values, args.repeats)
            for sampler in SAMPLERS
        }
        print(
            f"{values.size:>9}  {seconds['numpy'] * 1e3:>8.2f}ms  "
            f"{seconds['discrete'] * 1e3:>8.2f}ms  x{seconds['discrete'] / seconds['numpy']:.1f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
