"""Rank the arena's DP methods on Census at ε = 1 by JSD and by the Kolmogorov–Smirnov
column-shape score, and say how far the two rankings agree (Spearman's ρ).

Usage: ``python benchmarks/audits/rank_jsd_ks.py [--epsilon 1.0] [--reps 5] [--seed 0]``

The arena's Census view (iDP's nine numerical attributes), the arena's k per method and
its discrete sampler, run by the runner (``+experiment=arena`` with the methods, metrics
and ε overridden). Per method: the mean over repetitions of the JSD (bits, 100 bins over
the domain [0, 1.5·max], DP-IR §4.2) and of the KS statistic (1 − ``column_shapes``),
averaged over attributes, with each method's rank by each (1: closest to the original);
then ρ between the two rankings and the attribute where they part most.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

from scipy.stats import spearmanr

from anonlab.config import compose_config
from anonlab.runner.experiment import build_experiment, run_grid

METHODS = (
    "laplace",
    "ir_laplace",
    "ir_laplace/shuffled_columns",
    "dp_um",
    "idp_ls",
    "idp_cbls",
    "imdav_laplace_composed",
    "mst",
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--epsilon", type=float, default=1.0)
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        config = compose_config(
            "+experiment=arena",
            "~datasets.adult",
            f"methods=[{','.join(METHODS)}]",
            "metrics=[]",
            "metrics_by_attribute=[jsd,column_shapes]",
            f"grid.epsilon=[{args.epsilon}]",
            f"reps={args.reps}",
            f"seed={args.seed}",
            f"results_dir={folder}",
            "n_jobs=1",
        )
        table = run_grid(build_experiment(config), progress=False)
    per = table.groupby(["metric", "method", "attribute"], sort=False)["value"].mean().unstack(0)
    per["ks"] = 1.0 - per.pop("column_shapes")
    mean = per.groupby(level="method", sort=False).mean()
    rank = mean.rank(method="min").astype(int)
    rho = spearmanr(mean["jsd"], mean["ks"]).statistic
    print(
        f"Census (arena view, {table['cell_id'].nunique()} cells), epsilon = {args.epsilon}, "
        f"{args.reps} repetitions, seed {args.seed}"
    )
    print(f"{'method':<28} {'JSD (bits)':>11} {'rank':>5} {'KS':>8} {'rank':>5}")
    for method, row in mean.iterrows():
        print(
            f"{method:<28} {row['jsd']:11.4f} {rank.loc[method, 'jsd']:5d} "
            f"{row['ks']:8.4f} {rank.loc[method, 'ks']:5d}"
        )
    print(f"Spearman rho (JSD rank, KS rank) = {rho:.2f}")
    by_attribute = per.groupby(level="attribute").apply(
        lambda frame: spearmanr(frame["jsd"], frame["ks"]).statistic
    )
    print("Spearman rho per attribute:", ", ".join(f"{a} {r:.2f}" for a, r in by_attribute.items()))
    least = by_attribute.idxmin()
    print(f"where they part most, {least} (methods by JSD, then by KS):")
    one = per.xs(least, level="attribute")
    for metric in ("jsd", "ks"):
        order = one[metric].sort_values()
        print(f"  {metric}: " + ", ".join(f"{m} {v:.3f}" for m, v in order.items()))


if __name__ == "__main__":
    main()
