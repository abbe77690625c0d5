"""Time the DP synthetic-data baselines ``mst`` and ``aim`` against ``ir_laplace`` (k = 3)
on Census (1,080 × 13) at ε = 1, and measure what their releases keep.

Usage: ``python benchmarks/timings/bench_synth.py [--epsilon 1.0] [--repeats 3] [--seed 0]
[--methods mst aim ir_laplace]``

Budget: ``mst`` a few seconds, ``aim`` ≤ 30 s on 2 cores. The first call of each method
in the process is timed apart: it includes jax's compilations of mbi's estimator (mbi
compiles per model structure, so later runs whose structure is new compile again; that
is part of their median). Then ``--repeats`` runs with seeds ``seed+1 …`` give the
median wall time, and the first seed is run again to check that the release is the
same, byte for byte. Utility: JSD (DP-IR §4.2), the mean |Δr| of the pairwise
correlations (``correlation_difference``) and the 2-way marginal TVD (``marginal_tvd``)
of the first release.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np

from anonlab.config import compose_config
from anonlab.datasets import load_dataset
from anonlab.methods import make_method
from anonlab.metrics import METRICS, get_metric

PARAMS = {"k": 3}


def correlation_difference(view, release) -> float:
    """mean |r − r'| over attribute pairs (the registered metric when it exists)."""
    if "correlation_difference" in METRICS:
        return get_metric("correlation_difference").of_release(view, release)
    before, after = (np.corrcoef(v.T) for v in (view.protected_values, release.values))
    pairs = ~np.eye(len(before), dtype=bool)
    return float(np.nanmean(np.abs(before - after)[pairs]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--methods", nargs="+", default=["mst", "aim", "ir_laplace"])
    args = parser.parse_args()
    view = load_dataset(compose_config("dataset=census")["dataset"])
    print(
        f"Census {view.n} x {len(view.protected)}, epsilon = {args.epsilon}, "
        f"seed {args.seed}, median of {args.repeats} later runs"
    )
    print(
        f"{'method':<11} {'first s':>8} {'median s':>9} {'JSD':>7} {'corr diff':>10} "
        f"{'2-way TVD':>10}  rerun identical"
    )
    for name in args.methods:
        method = make_method(name, {**PARAMS, "epsilon": args.epsilon})
        method.check_dataset(view)
        clock = time.perf_counter()
        first = method.protect(view, np.random.default_rng(args.seed))
        first_seconds = time.perf_counter() - clock
        times = []
        for seed in range(args.seed + 1, args.seed + 1 + args.repeats):
            clock = time.perf_counter()
            method.protect(view, np.random.default_rng(seed))
            times.append(time.perf_counter() - clock)
        again = method.protect(view, np.random.default_rng(args.seed))
        same = first.values.tobytes() == again.values.tobytes()
        jsd = get_metric("jsd").of_release(view, first)
        tvd = (
            get_metric("marginal_tvd").of_release(view, first)
            if "marginal_tvd" in METRICS
            else float("nan")
        )
        print(
            f"{name:<11} {first_seconds:8.2f} {statistics.median(times):9.2f} {jsd:7.4f} "
            f"{correlation_difference(view, first):10.4f} {tvd:10.4f}  {same}"
        )


if __name__ == "__main__":
    main()
