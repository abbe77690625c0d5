"""Time TCM Algorithms 1 and 2 at Patient Discharge scale (TCM §8.2, Fig. 5).

Usage: ``python benchmarks/timings/bench_tcloseness_alg12.py [--t 0.02 0.1 0.25] [--n 23435] [--k 2]
[--methods merge kfirst]``

TCM Fig. 5 times the three algorithms with k = 2 for t from 0.02 to 0.25 on the Patient
Discharge set (23,435 records, 7 quasi-identifiers, one confidential attribute, the amount
charged, correlated 0.129 with the quasi-identifiers). The data here are synthetic and
shaped like it, so the timing does not depend on the loader: 7 integer-coded
quasi-identifiers (age, sex, zip code, admission day, length of stay, race, admission
source) and skewed charges rounded to about 300 distinct values, weakly correlated with
the length of stay; fixed seed. One core (the BLAS and OpenMP thread counts are set to 1).

For every t prints the wall time of ``tclose_merge`` (Algorithm 1: MDAV, then merging) and
of ``tclose_kfirst`` (Algorithm 2 used as the microaggregation of Algorithm 1, split into
its two steps), with the number of clusters, their minimum and mean size and the greatest
cluster EMD. Budget: under a minute per t and method.
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

from anonlab.microaggregation import standardise  # noqa: E402
from anonlab.tcloseness import OrderedEMD  # noqa: E402
from anonlab.tcloseness.kfirst import k_anonymity_first  # noqa: E402
from anonlab.tcloseness.merge import merge_until_t_close, tclose_merge  # noqa: E402

BUDGET_S = 60.0
T_GRID = (0.02, 0.05, 0.1, 0.15, 0.2, 0.25)


def synthetic(n: int, seed: int = 2010) -> tuple[np.ndarray, np.ndarray]:
    """Quasi-identifiers ``(n, 7)`` and charges ``(n,)`` shaped like the Patient Discharge
    set (TCM §8.2)."""
    rng = np.random.default_rng(seed)
    age = np.clip(rng.gamma(4.0, 12.0, n), 0, 99).round()
    sex = rng.integers(0, 2, n)
    zip_code = np.minimum(rng.geometric(0.02, n), 400)
    day = rng.integers(1, 366, n)
    stay = np.minimum(rng.geometric(0.2, n), 60)
    race = rng.choice(7, n, p=[0.55, 0.15, 0.12, 0.1, 0.04, 0.02, 0.02])
    source = rng.choice(10, n, p=[0.4, 0.2, 0.1, 0.08, 0.07, 0.05, 0.04, 0.03, 0.02, 0.01])
    qi = np.column_stack([age, sex, zip_code, day, stay, race, source]).astype(float)
    latent = 0.13 * (stay - stay.mean()) / stay.std() + rng.normal(size=n)
    charges = np.round(np.exp(10.5 + 0.9 * latent) / 1800.0)  # skewed, ~300 values
    return qi, charges


def describe(labels: np.ndarray, emd: OrderedEMD) -> str:
    sizes = np.bincount(labels)
    return (
        f"{len(sizes):6d} clusters  size min {sizes.min():5d} mean {sizes.mean():8.1f}"
        f"  max EMD {emd.of_partition(labels).max():.4f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t", type=float, nargs="+", default=list(T_GRID))
    parser.add_argument("--n", type=int, default=23_435)
    parser.add_argument("--k", type=int, default=2)
    parser.add_argument(
        "--methods", nargs="+", choices=["merge", "kfirst"], default=["merge", "kfirst"]
    )
    args = parser.parse_args()
    qi, confidential = synthetic(args.n)
    emd = OrderedEMD(confidential)
    print(
        f"n={args.n} quasi-identifiers={qi.shape[1]} distinct confidential values={emd.m} "
        f"k={args.k}; budget {BUDGET_S:.0f} s per t and method"
    )
    for t in args.t:
        if "merge" in args.methods:
            clock = time.perf_counter()
            labels = tclose_merge(qi, confidential, args.k, t)
            wall = time.perf_counter() - clock
            print(
                f"t={t:<5} tclose_merge   {wall:6.1f} s"
                f"                          {describe(labels, emd)}"
            )
        if "kfirst" in args.methods:
            clock = time.perf_counter()
            first = k_anonymity_first(qi, confidential, args.k, t)
            split = time.perf_counter() - clock
            labels = merge_until_t_close(standardise(qi), first, emd, t)
            wall = time.perf_counter() - clock
            print(
                f"t={t:<5} tclose_kfirst  {wall:6.1f} s (Algorithm 2 {split:5.1f} s, "
                f"merging {wall - split:4.1f} s)  {describe(labels, emd)}"
            )
            print(f"{'':8s}k_anonymity_first alone:{'':23s}{describe(first, emd)}")


if __name__ == "__main__":
    main()
