"""Time MDAV: the compiled kernel against the plain NumPy loop it matches
(benchmarks/references/reference.py), at Patient Discharge scale and at 10⁵ records.

Usage: ``python benchmarks/timings/bench_mdav.py [--n 23435] [--m 7] [--k 2] [--large 100000]
[--repeats 3]``

Budgets (issue "performance at the limit"): 23,435 × 7, k = 2, ≤ 1.0 s; 10⁵ × 7, k = 5,
≤ 8 s. Data: skewed synthetic attributes (gamma) rounded to one decimal, so distances tie.
Prints medians of ``--repeats`` runs, the first call's compilation (or cache load) and the
ratio against the NumPy loop, and checks that both give the same partition.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from anonlab.microaggregation import insensitive_labels, mdav  # noqa: E402
from benchmarks.references.reference import mdav_numpy  # noqa: E402
from benchmarks.references.timing import timed  # noqa: E402

BUDGETS_S = {(23_435, 2): 1.0, (100_000, 5): 8.0}


def synthetic(n: int, m: int) -> np.ndarray:
    return np.random.default_rng(0).gamma(2.0, 10.0, size=(n, m)).round(1)


def median_time(fn, repeats: int) -> float:
    return statistics.median(timed(fn) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=23_435)
    parser.add_argument("--m", type=int, default=7)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--large", type=int, default=100_000)
    parser.add_argument("--large-k", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    clock = time.perf_counter()
    mdav(synthetic(10, args.m), 2)
    print(f"first call (compilation, or loading the cache): {time.perf_counter() - clock:.2f} s")
    for n, k in ((args.n, args.k), (args.large, args.large_k)):
        values = synthetic(n, args.m)
        compiled = median_time(lambda values=values, k=k: mdav(values, k), args.repeats)
        budget = BUDGETS_S.get((n, k))
        line = f"mdav n={n} m={args.m} k={k}: compiled {compiled:.2f} s (median of {args.repeats})"
        if budget:
            line += f", budget {budget:.1f} s, ratio to budget {compiled / budget:.2f}"
        print(line, flush=True)
        if n <= 30_000:
            plain = timed(lambda values=values, k=k: mdav_numpy(values, k))
            same = np.array_equal(mdav(values, k), mdav_numpy(values, k))
            print(
                f"  NumPy loop {plain:.2f} s: compiled x{plain / compiled:.1f} faster, "
                f"same partition: {same}"
            )
    values = synthetic(args.n, args.m)
    clock = time.perf_counter()
    insensitive_labels(values, np.zeros(args.m), 1.5 * values.max(0), args.k)
    print(f"imdav n={args.n} m={args.m} k={args.k}: {time.perf_counter() - clock:.3f} s")


if __name__ == "__main__":
    main()
