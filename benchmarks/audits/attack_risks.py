"""The attack-based risks (singling out, linkability, attribute inference; Giomi et al.
2023) of the DP, iDP and k-anonymous methods and of DP synthetic data, with their control
baselines and 95 % intervals, beside record linkage where a release keeps record order.

Usage: ``python benchmarks/audits/attack_risks.py [--epsilon 1.0] [--seed 0] [--n-attacks 500]
[--datasets census_arena adult_arena] [--methods laplace ir_laplace ...]``

Each data set is split once (``--seed``) into training and control halves, as the arena
does (metric option ``control`` = 0.5); every method is run on the training half only,
with the arena's k (``ir_laplace`` 25, ``idp_cbls`` 50; ``mdav`` 5) and the discrete
Laplace sampler, and ``ir_laplace`` in each release form its proof covers for these m
(``shuffled_rows`` needs m = 1). Each attack runs on ``--n-attacks`` training and as many
control records (at most the control half); risk = (r_main − r_control)/(1 − r_control)
from Wilson rates, interval propagated, clipped to [0, 1]. A cell reads
``risk [low, high] main% / control%``. Record linkage (DBRL, the quasi-identifiers
standardised) is that of the same release against its training records; "—" for releases
that keep no record's place. MST and AIM need the ``synth`` extra.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np

from anonlab.config import compose_config
from anonlab.datasets import Dataset, load_dataset
from anonlab.methods import make_method, method_class
from anonlab.metrics import get_metric
from anonlab.metrics.attacks import (
    AttackResult,
    inference_attacks,
    linkability_attack,
    mean_result,
    singling_out_attack,
)
from anonlab.metrics.base import control_split
from anonlab.release import Release

#: (method, grid parameters): the arena's k; mdav at TCM's k = 5
METHODS: dict[str, dict[str, float]] = {
    "laplace": {},
    "ir_laplace": {"k": 25},
    "mdav": {"k": 5},
    "idp_cbls": {"k": 50},
    "mst": {},
    "aim": {},
}


def variants(name: str, m: int) -> list[str]:
    """``name`` in each release form its proof covers for ``m`` attributes (``ir_laplace``:
    records and shuffled columns; shuffled rows only for m = 1), else itself."""
    if name != "ir_laplace":
        return [name]
    cls = method_class(name)
    one = m == 1 or not cls.rows_need_one_attribute
    forms = [f for f in cls.forms if f != "shuffled_rows" or one]
    return [name if f == "records" else f"{name}/{f}" for f in forms]


def release_of(variant: str, training: Dataset, epsilon: float, seed: int, index: int) -> Release:
    """``variant`` (``method`` or ``method/form``) run on the training records."""
    name, _, form = variant.partition("/")
    cls = method_class(name)
    options: dict[str, str] = {"form": form} if form else {}
    if cls.draws_laplace:
        options["sampler"] = "discrete"
    method = make_method(name, {**METHODS[name], "epsilon": epsilon}, options)
    return method.release(training, np.random.default_rng([seed, index]))


def cell(result: AttackResult) -> str:
    return (
        f"{result.risk:.3f} [{result.low:.3f}, {result.high:.3f}] "
        f"{result.main_rate.value:.0%} / {result.control_rate.value:.0%}"
    )


def table(
    view: Dataset, methods: Sequence[str], epsilon: float, seed: int, n_attacks: int
) -> list[str]:
    """The markdown rows of one data set."""
    rng = np.random.default_rng(seed)
    train_rows, control_rows = control_split(view.n, 0.5, rng)
    training, control = view.rows(train_rows), view.rows(control_rows)
    linkage = get_metric("record_linkage")
    rows = []
    chosen = [v for name in methods for v in variants(name, len(view.protected))]
    for index, variant in enumerate(chosen):
        clock = time.perf_counter()
        release = release_of(variant, training, epsilon, seed, index)
        seconds = time.perf_counter() - clock
        attack = np.random.default_rng([seed, index, 1])
        parts = (training.protected_values, control.protected_values, release.values)
        held_out = Release(training, release.values, control=control)
        attributes = view.protected_attributes
        found = [
            singling_out_attack(*parts, attributes, attack, "multivariate", n_attacks),
            singling_out_attack(*parts, attributes, attack, "univariate", n_attacks),
            linkability_attack(*parts, attributes, attack, n_attacks),
            mean_result(inference_attacks(view, held_out, attack, n_attacks)),
        ]
        dbrl = f"{linkage.of_release(training, release):.3f}" if release.record_aligned else "—"
        rows.append(
            f"| {variant} | " + " | ".join(cell(r) for r in found) + f" | {dbrl} | {seconds:.1f} |"
        )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-attacks", type=int, default=500)
    parser.add_argument("--datasets", nargs="+", default=["census_arena", "adult_arena"])
    parser.add_argument("--methods", nargs="+", default=list(METHODS), choices=list(METHODS))
    args = parser.parse_args()
    for name in args.datasets:
        view = load_dataset(compose_config(f"dataset={name}")["dataset"])
        held = int(round(0.5 * view.n))
        print(
            f"\n{name}: n = {view.n} ({view.n - held} training, {held} control), "
            f"m = {len(view.protected)}, ε = {args.epsilon}, seed {args.seed}, "
            f"n_attacks {args.n_attacks}\n"
        )
        print(
            "| method | singling out (multivariate) | singling out (univariate) | linkability "
            "| attribute inference | record linkage | s |"
        )
        print("|---|---|---|---|---|---|---|")
        for row in table(view, args.methods, args.epsilon, args.seed, args.n_attacks):
            print(row, flush=True)


if __name__ == "__main__":
    main()
