"""Time the full paper grids of the experiments and the individual-ranking hot path.

Usage: ``python benchmarks/timings/bench_grids.py [--n-jobs 2] [--only census_ir adult_uni_sse]``

Prints wall time per experiment against its budget (DP-IR Fig. 1 under 120 s, DP-UNI
Fig. 1 under 180 s; iDP Figs. 3–4 full grids under 300 s and Figs. 5–6 default grids under
1,200 s, all on 2 cores; DP-IR Fig. 3 and Table 1 against our own targets), the speed-up of
the vectorised individual ranking over a per-cluster Python loop, of reusing a data
set's sorted columns across k and repetitions, and of the compiled JSD over the NumPy code
it replaced (``benchmarks/references/reference_metrics.py``; medians, after a first
call that loads them). Nothing is written to ``results/``.
"""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np

from anonlab.config import compose_config
from anonlab.datasets import Attribute
from anonlab.metrics.jsd import jsd_against, jsd_reference
from anonlab.microaggregation import individual_ranking, sort_columns
from anonlab.runner import build_experiment
from anonlab.runner.execute import plan_jobs
from anonlab.runner.experiment import run_grid
from benchmarks.references.timing import timed

# Budgets: census_ir and adult_uni_sse as the foundation requires; the others are ours.
BUDGETS_S = {
    "census_ir": 120.0,
    "adult_uni_sse": 180.0,
    "census_ir_vs_mdav": 120.0,
    "census_variance": 60.0,
    "adult_ir": 600.0,
    "adult_ir_vs_mdav": 600.0,
    "census_idp_sse": 300.0,
    "wine_idp_sse": 300.0,
    "census_idp_rf": 1200.0,
    "wine_idp_rf": 1200.0,
}
DEFAULT = (
    "census_ir",
    "adult_uni_sse",
    "census_ir_vs_mdav",
    "census_variance",
    "census_idp_sse",
    "wine_idp_sse",
)  # the long ones run with --only


def load(name: str, n_jobs: int) -> dict:
    return compose_config(f"+experiment={name}", f"n_jobs={n_jobs}")


def time_grid(name: str, n_jobs: int) -> None:
    clock = time.perf_counter()
    experiment = build_experiment(load(name, n_jobs))
    jobs = len(plan_jobs(experiment.cells, experiment.reps, experiment.metrics))
    table = run_grid(experiment, progress=False)
    wall = time.perf_counter() - clock
    budget = BUDGETS_S[name]
    print(
        f"{name:14s} {len(experiment.cells):5d} cells {jobs:6d} runs {len(table):6d} rows "
        f"{wall:7.1f} s  budget {budget:.0f} s  ratio {wall / budget:.2f}"
    )


def loop_ranking(values: np.ndarray, k: int) -> np.ndarray:
    """Reference individual ranking with a Python loop over clusters and attributes."""
    n, m = values.shape
    out = np.empty_like(values)
    for j in range(m):
        order = np.argsort(values[:, j], kind="stable")
        groups = n // k
        for g in range(groups):
            idx = order[g * k : (g + 1) * k if g < groups - 1 else n]
            out[idx, j] = values[idx, j].mean()
    return out


def time_ranking(n: int = 30_162, m: int = 13, k: int = 2, repeat: int = 5) -> None:
    values = np.random.default_rng(0).gamma(2.0, 1e4, size=(n, m)).round()
    fast = min(timed(lambda: individual_ranking(values, k).release()) for _ in range(repeat))
    slow = min(timed(lambda: loop_ranking(values, k)) for _ in range(2))
    np.testing.assert_allclose(individual_ranking(values, k).release(), loop_ranking(values, k))
    print(
        f"individual ranking n={n} m={m} k={k}: vectorised {fast * 1e3:.1f} ms, "
        f"loop {slow * 1e3:.0f} ms, speed-up x{slow / fast:.0f}"
    )


def time_presorted(n: int = 4_898, m: int = 11, k: int = 10, repeat: int = 50) -> None:
    """Individual ranking of a Wine-sized matrix: sorting inside every call against one
    sort per data set view (``Dataset.sorted_protected``), as the runner does."""
    values = np.random.default_rng(0).gamma(2.0, 1.0, size=(n, m))
    presorted = sort_columns(values)
    again = min(timed(lambda: individual_ranking(values, k)) for _ in range(repeat))
    reuse = min(timed(lambda: individual_ranking(values, k, presorted)) for _ in range(repeat))
    np.testing.assert_array_equal(
        individual_ranking(values, k).labels, individual_ranking(values, k, presorted).labels
    )
    print(
        f"individual ranking n={n} m={m} k={k}: sort each call {again * 1e3:.2f} ms, "
        f"sorted once {reuse * 1e3:.2f} ms, speed-up x{again / reuse:.1f}"
    )


def time_metrics(m: int = 13, repeat: int = 200) -> None:
    """JSD of one release (Census-sized, then 10⁵ records): the compiled loop against the
    NumPy code, both on the original's cached side (as the runner does)."""
    from benchmarks.references.reference_metrics import jsd_continuous_numpy

    attributes = [Attribute(f"a{j}", domain=(0.0, 1.5e5)) for j in range(m)]
    for n in (1_080, 100_000):
        rng = np.random.default_rng(0)
        original = rng.gamma(2.0, 1e4, size=(n, m)).round()
        released = np.clip(original + rng.laplace(0.0, 5e3, size=(n, m)), 0.0, 1.5e5)
        jsd_ref = jsd_reference(original, attributes)
        pairs = {
            "jsd": (
                partial(jsd_against, jsd_ref, released),
                partial(jsd_continuous_numpy, jsd_ref, released),
            )
        }
        reps = repeat if n < 10_000 else 10
        for name, (compiled, plain) in pairs.items():
            np.testing.assert_array_equal(compiled(), plain())
            fast = float(np.median([timed(compiled) for _ in range(reps)]))
            slow = float(np.median([timed(plain) for _ in range(reps)]))
            print(
                f"{name} n={n} m={m}: compiled {fast * 1e6:.0f} us, NumPy {slow * 1e6:.0f} us, "
                f"speed-up x{slow / fast:.1f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--only", nargs="*", default=list(DEFAULT), choices=list(BUDGETS_S))
    args = parser.parse_args()
    time_ranking()
    time_presorted()
    time_metrics()
    for name in args.only:
        time_grid(name, args.n_jobs)


if __name__ == "__main__":
    main()
