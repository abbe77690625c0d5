"""l-diversity of the t-closeness releases (TCM Algorithms 1-3) on Census and Adult.

Usage: ``python benchmarks/audits/l_diversity.py [--k 5] [--t 0.1 0.25] [--seed 0]``

Each release's guarantee states k, t, distinct l and entropy l per cluster and per
released equivalence class (records with identical released quasi-identifiers), under
the method's EMD ground (:attr:`anonlab.guarantee.Guarantee.levels`). The table lists
them and marks the releases that are t-close (t reached ≤ the target) while a group
holds a single confidential value (distinct l = 1): t-closeness bounds how far a group's
distribution is from the whole table's, not how many values it holds.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np

from anonlab.config import compose_config
from anonlab.datasets import load_dataset
from anonlab.methods import make_method

DATASETS = ("census_mcd", "adult_arena")
METHODS = ("tclose_merge", "tclose_kfirst", "tclose_tfirst")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--t", type=float, nargs="+", default=[0.1, 0.25])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(
        "| data set | method | t target | unit | k | t reached | distinct l | entropy l "
        "| t-close with l = 1 | seconds |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name in DATASETS:
        view = load_dataset(compose_config(f"dataset={name}")["dataset"])
        for method in METHODS:
            for t in args.t:
                clock = time.perf_counter()
                release = make_method(method, {"k": args.k, "t": t}).release(
                    view, np.random.default_rng(args.seed)
                )
                seconds = time.perf_counter() - clock
                for level in release.guarantee.levels:
                    flag = "**yes**" if level.t <= t and level.l == 1 else ""
                    print(
                        f"| {name} (n={view.n}) | {method} | {t:g} | {level.unit} "
                        f"({level.ground}) | {level.k} | {level.t:.4f} | {level.l} | "
                        f"{level.entropy_l:.2f} | {flag} | {seconds:.1f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
