"""Time MDAV and insensitive microaggregation at Patient Discharge scale.

Usage: ``python benchmarks/bench_mdav.py [--n 23435] [--m 7] [--k 2]``

Budget: MDAV on 23,435 records × 7 attributes with k = 2 in under 20 s on one core
(the size of TCM's Patient Discharge set). Data: skewed synthetic attributes (gamma) with
ties from rounding, so the timing does not depend on the Patient Discharge loader. Also
prints the speed-up over a reference that recomputes distances record by record for small n.
"""

from __future__ import annotations

import argparse
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the budget says
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402
from timing import timed  # noqa: E402

from anonlab.microaggregation import insensitive_labels, mdav  # noqa: E402

BUDGET_S = 20.0


def synthetic(n: int, m: int) -> np.ndarray:
    return np.random.default_rng(0).gamma(2.0, 10.0, size=(n, m)).round(1)


def loop_mdav(values: np.ndarray, k: int) -> np.ndarray:
    """MDAV with a Python loop over records for every distance (reference for the ratio)."""
    points = (values - values.mean(0)) / values.std(0)
    remaining = list(range(len(points)))
    labels = np.full(len(points), -1)

    def farthest(p):
        return max(remaining, key=lambda i: float(((points[i] - p) ** 2).sum()))

    def group(seed, label):
        near = sorted(remaining, key=lambda i: float(((points[i] - points[seed]) ** 2).sum()))
        for i in near[:k]:
            labels[i] = label
            remaining.remove(i)

    label = 0
    while len(remaining) >= 3 * k:
        r = farthest(points[remaining].mean(0))
        group(r, label)
        group(farthest(points[r]), label + 1)
        label += 2
    for i in remaining:
        labels[i] = label
    return labels


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=23_435)
    parser.add_argument("--m", type=int, default=7)
    parser.add_argument("--k", type=int, default=2)
    args = parser.parse_args()
    values = synthetic(args.n, args.m)
    clock = time.perf_counter()
    labels = mdav(values, args.k)
    wall = time.perf_counter() - clock
    print(f"mdav n={args.n} m={args.m} k={args.k}: {wall:.2f} s, {labels.max() + 1} clusters,"
          f" budget {BUDGET_S:.0f} s, ratio {wall / BUDGET_S:.2f}")
    clock = time.perf_counter()
    insensitive_labels(values, np.zeros(args.m), 1.5 * values.max(0), args.k)
    print(f"imdav n={args.n} m={args.m} k={args.k}: {time.perf_counter() - clock:.3f} s")
    small = synthetic(1_500, args.m)
    fast = min(timed(lambda: mdav(small, args.k)) for _ in range(3))
    slow = timed(lambda: loop_mdav(small, args.k))
    print(f"mdav n=1500: vectorised {fast * 1e3:.0f} ms, record loop {slow * 1e3:.0f} ms, "
          f"speed-up x{slow / fast:.0f}")


if __name__ == "__main__":
    main()
