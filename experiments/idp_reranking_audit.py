"""How much privacy DP-UM, iDP-LS and iDP-CBLS lose when one record change re-ranks the data.

Usage: ``python -m anonlab.experiments.idp_reranking_audit [--dataset census_idp]
[--k 3 10 50 100]``

iDP §3 adds Laplace noise of scale b_j/ε_a to each cluster centroid c_j, with b_j the
centroid's sensitivity when one record OF THAT CLUSTER changes and the clustering is held
fixed (parallel composition). Individual ranking recomputes the clusters at the neighbour
data set, so one change can shift a record across every later cluster boundary and move
many centroids at once. The privacy loss of one attribute is then

    L = max over neighbours x' of Σ_j |c_j(x') − c_j(x)| / b_j      (in units of ε_a),

with clusters matched by rank position (n and k fix their number and sizes). The
mechanism is ε_a-DP (DP-UM) or ε_a-iDP (iDP-LS, iDP-CBLS) on that attribute iff L ≤ 1.
Every centroid is monotone in the changed value, so replacing each record by the domain's
low or high end is an exhaustive search. Prints L per attribute, k and α.

``--exact [--positions 41] [--epsilon 1]``: the exact losses of iDP-LS's and iDP-CBLS's
centroid lists as implemented (each data set's own scale) and under Proposition 1's
reading (the scale of D for both), on the small designs of :data:`EXACT_DESIGNS`
(:mod:`anonlab.audit.exact`), with the command that reproduces each row.
"""

from __future__ import annotations

import argparse

import numpy as np
import pandas as pd

from anonlab.audit import Settings
from anonlab.audit.core import audited_dataset
from anonlab.audit.exact import POSITIONS, exact_losses
from anonlab.config import compose_config
from anonlab.datasets import load_dataset
from anonlab.methods import make_method
from anonlab.methods.idp import ClusterNoise
from anonlab.microaggregation import individual_ranking

METHODS = ("dp_um", "idp_ls", "idp_cbls")
#: the methods of ``--exact`` and its designs: (n, k, how the records are drawn) of
#: :func:`anonlab.audit.data.audit_dataset`, one attribute on [0, 100], seed 0
EXACT_METHODS = ("idp_ls", "idp_cbls")
EXACT_DESIGNS = (
    (12, 3, "outlier"),
    (12, 3, "uniform"),
    (12, 6, "outlier"),
    (12, 6, "uniform"),
    (30, 3, "outlier"),
    (30, 3, "uniform"),
    (30, 10, "outlier"),
    (30, 10, "uniform"),
    (30, 15, "outlier"),
    (30, 15, "uniform"),
)


def reranking_privacy_loss(
    method: ClusterNoise, column: np.ndarray, low: float, high: float
) -> float:
    """L of ``method`` on one attribute ``column`` with domain [low, high] (module doc)."""
    column = np.asarray(column, dtype=float)
    n = len(column)
    bounds = np.array([low]), np.array([high])
    centroids, sensitivity = method.centroids_and_sensitivity(
        individual_ranking(column, method.k, remainder=method.remainder), *bounds
    )
    worst = 0.0
    for z in (low, high):  # neighbours: record i set to z, one column each
        neighbours = np.repeat(column[:, None], n, axis=1)
        neighbours[np.arange(n), np.arange(n)] = z
        moved, _ = method.centroids_and_sensitivity(
            individual_ranking(neighbours, method.k, remainder=method.remainder), *bounds
        )
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(moved != centroids, np.abs(moved - centroids) / sensitivity, 0.0)
        worst = max(worst, float(ratio.sum(axis=0).max()))
    return worst


def audit(dataset_name: str, ks: list[int], alphas: list[float]) -> pd.DataFrame:
    """L of every method, attribute, k and α on a configured data set."""
    base = load_dataset(compose_config(f"dataset={dataset_name}")["dataset"])
    rows = []
    for alpha in alphas:
        dataset = base.with_alpha(alpha)
        for k in ks:
            for name in METHODS:
                method = make_method(name, {"k": k, "epsilon": 1.0})
                for j, attr in enumerate(dataset.protected_attributes):
                    loss = reranking_privacy_loss(
                        method, dataset.protected_values[:, j], *attr.domain
                    )
                    rows.append(
                        {"alpha": alpha, "k": k, "method": name, "attribute": attr.name, "L": loss}
                    )
    return pd.DataFrame(rows)


def exact_table(
    designs: tuple[tuple[int, int, str], ...] = EXACT_DESIGNS,
    epsilon: float = 1.0,
    positions: int = POSITIONS,
) -> pd.DataFrame:
    """The exact losses of each method of :data:`EXACT_METHODS` on each design, over the
    neighbours that move one record to one of ``positions`` values evenly over the domain
    (:func:`~anonlab.audit.exact.exact_losses`): ``own_scale`` as implemented,
    ``fixed_scale`` under Proposition 1's reading, each with its worst neighbour."""
    rows = []
    for n, k, data in designs:
        settings = Settings(n=n, k=k, data=data)
        dataset = audited_dataset(settings)[0]
        for name in EXACT_METHODS:
            found = exact_losses(
                make_method(name, {"k": k, "epsilon": epsilon}), dataset, positions
            )
            command = f"python -m anonlab.audit exact method={name} epsilon={epsilon:g} n={n} k={k}"
            rows.append(
                {
                    "method": name,
                    "n": n,
                    "k": k,
                    "data": data,
                    "epsilon": epsilon,
                    "own_scale": found.own_scale,
                    "worst_own": found.worst["own_scale"],
                    "fixed_scale": found.fixed_scale,
                    "worst_fixed": found.worst["fixed_scale"],
                    # the audit's command searches POSITIONS places
                    "command": f"{command} data={data}" if positions == POSITIONS else "",
                }
            )
    return pd.DataFrame(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", default="census_idp")
    parser.add_argument("--k", type=int, nargs="*", default=[3, 10, 50, 100])
    parser.add_argument("--alpha", type=float, nargs="*", default=[1.5, 3.0])
    parser.add_argument("--exact", action="store_true", help="exact losses on small designs")
    parser.add_argument("--positions", type=int, default=POSITIONS)
    parser.add_argument("--epsilon", type=float, default=1.0)
    args = parser.parse_args()
    pd.set_option("display.width", 250)
    if args.exact:
        table = exact_table(epsilon=args.epsilon, positions=args.positions)
        print(
            f"exact loss of the centroid list at ε = {args.epsilon:g}, one attribute on "
            f"[0, 100], seed 0, each record moved to one of {args.positions} places: "
            "own_scale as implemented, fixed_scale under iDP Proposition 1's reading"
        )
        print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
        for name, rows in table.groupby("method", sort=False):
            worst = rows.loc[rows["own_scale"].idxmax()]
            print(
                f"worst as implemented, {name}: {worst['own_scale']:.4f} on n={worst['n']} "
                f"k={worst['k']} {worst['data']} ({worst['worst_own']})"
            )
        return
    table = audit(args.dataset, args.k, args.alpha)
    summary = table.groupby(["alpha", "k", "method"])["L"].agg(["median", "max"]).unstack()
    print(
        f"privacy loss L per attribute (units of ε/m), {args.dataset}: median and max over "
        "attributes; L ≤ 1 is what the mechanism promises"
    )
    print(summary.to_string(float_format=lambda v: f"{v:.2f}"))


if __name__ == "__main__":
    main()
