"""Time t-closeness-first microaggregation (TCM Algorithm 3) at Patient Discharge scale.

Usage: ``python benchmarks/timings/bench_tcloseness_alg3.py [--n 23435] [--m 7] [--k 2]
[--t 0.02 0.05 ...]``

Budget: under 0.5 s per t on one core for 23,435 records × 7 quasi-identifiers and k = 2
(the size of TCM §8.2's Patient Discharge set, Fig. 5: t from 0.02 to 0.25), once the
compiled loop is loaded (a first call on a few records, not timed, compiles it or loads it
from numba's cache; ``bench_tcloseness.py`` times it against the NumPy loop on the real
Patient Discharge data). The data are
synthetic, with a fixed seed: integer-coded quasi-identifiers (age, sex, zip code area,
admission day, length of stay, source, diagnosis group) and a skewed confidential "charges"
attribute with about 300 distinct values. For every t the script prints the time, the
cluster size k' of TCM Expressions (3)–(4), the number of clusters, their min/mean size, and
the largest EMD against TCM Proposition 2's bound (n − k')/(2(n − 1)k') and against t.
It prints two EMDs. "EMD" is the ordered EMD over the ~300 distinct values (TCM §2.2).
"rank EMD" is the same with ties broken by record index, so every record is its own bin;
that is the setting of Proposition 2, which assumes distinct values. Heavy ties can push
the first far above the bound even when k' divides n.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

os.environ.setdefault("OMP_NUM_THREADS", "1")  # one core, as the budget says
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from anonlab.tcloseness import OrderedEMD, proposition_2_bound  # noqa: E402
from anonlab.tcloseness.tfirst import tclose_tfirst, tfirst_cluster_size  # noqa: E402

BUDGET_S = 0.5
TS = (0.02, 0.05, 0.09, 0.13, 0.17, 0.21, 0.25)


def synthetic(n: int, m: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """``(n, m)`` integer-coded quasi-identifiers and ``(n,)`` skewed charges (~300 values)."""
    rng = np.random.default_rng(seed)
    columns = [
        rng.integers(0, 100, n),  # age
        rng.integers(0, 2, n),  # sex
        rng.zipf(1.6, n).clip(max=400),  # zip code area, skewed
        rng.integers(0, 365, n),  # admission day
        rng.geometric(0.25, n).clip(max=60),  # length of stay
        rng.integers(0, 6, n),  # admission source
        rng.integers(0, 25, n),  # diagnosis group
    ]
    while len(columns) < m:
        columns.append(rng.integers(0, 50, n))
    qi = np.column_stack(columns[:m]).astype(float)
    charges = np.round(rng.lognormal(10.0, 0.95, n) / 1_000.0) * 1_000.0
    charges = np.minimum(charges, 400_000.0)  # ~300 distinct values
    return qi, charges


def cluster_emds(emd: OrderedEMD, labels: np.ndarray, chunk: int = 256) -> np.ndarray:
    """EMD of every cluster, ``chunk`` clusters at a time, so that the (clusters × bins)
    count matrix stays small when every record is its own bin."""
    order = np.argsort(labels, kind="stable")
    starts = np.searchsorted(labels[order], np.arange(labels.max() + 2))
    out = []
    for first in range(0, labels.max() + 1, chunk):
        last = min(first + chunk, labels.max() + 1)
        records = order[starts[first] : starts[last]]
        flat = (labels[records] - first) * emd.m + emd.bins[records]
        counts = np.bincount(flat, minlength=(last - first) * emd.m)
        out.append(emd.of_counts(counts.reshape(last - first, emd.m)))
    return np.concatenate(out)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=23_435)
    parser.add_argument("--m", type=int, default=7)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument("--t", type=float, nargs="+", default=list(TS))
    args = parser.parse_args()
    qi, charges = synthetic(args.n, args.m)
    tclose_tfirst(qi[:20], charges[:20], 2, 0.5)  # compile, or load the cache
    emd = OrderedEMD(charges)
    ranks = np.empty(args.n)
    ranks[np.argsort(charges, kind="stable")] = np.arange(args.n)
    rank_emd = OrderedEMD(ranks)
    print(
        f"n={args.n} m={args.m} k={args.k}: {emd.m} distinct confidential values, "
        f"budget {BUDGET_S} s per t"
    )
    for t in args.t:
        clock = time.perf_counter()
        labels = tclose_tfirst(qi, charges, args.k, t)
        wall = time.perf_counter() - clock
        size = tfirst_cluster_size(args.n, args.k, t)
        sizes = np.bincount(labels)
        emds = cluster_emds(emd, labels)
        rank_emds = cluster_emds(rank_emd, labels)
        bound = proposition_2_bound(args.n, size)
        print(
            f"t={t:.2f}: {wall:6.2f} s (ratio {wall / BUDGET_S:.2f}), k'={size}, "
            f"{len(sizes)} clusters, size min {sizes.min()} mean {sizes.mean():.3f}; "
            f"Prop. 2 bound {bound:.4f}; max EMD {emds.max():.4f} "
            f"({int((emds > bound + 1e-12).sum())} over bound, {int((emds > t).sum())} over t);"
            f" max rank EMD {rank_emds.max():.4f} "
            f"({int((rank_emds > bound + 1e-12).sum())} over bound, "
            f"{int((rank_emds > t).sum())} over t)"
        )


if __name__ == "__main__":
    main()
