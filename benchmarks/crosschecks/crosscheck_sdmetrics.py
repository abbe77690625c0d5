"""Cross-check anonlab's column-shape and pair-trend scores against SDMetrics.

Usage: ``python benchmarks/crosschecks/crosscheck_sdmetrics.py [--adult-records 3000]``

anonlab's side releases ``laplace`` (ε = 1), ``mdav`` (k = 5) and ``mst`` (ε = 1) of
Census (the arena's nine numerical attributes), and ``laplace`` and ``mst`` of the first
``--adult-records`` records of Adult (age, hours per week, occupation, native country: two
categorical attributes), writes the original and each release (parquet, categorical
values as labels) with anonlab's ``column_shapes`` and ``pair_trends``, then runs this
script again as ``--external FOLDER`` under SDMetrics' own environment
(:mod:`crosscheck_env`), which reads the files with pandas and SDMetrics only and writes
KSComplement or TVComplement per column and CorrelationSimilarity (Pearson) or
ContingencySimilarity (10 bins) per pair, as SDMetrics' Quality Report chooses them. The
table compares their means with anonlab's, and the largest difference of one column or
pair. Expected differences: rounding (≤ 1e-15), and for a categorical column with released
values the original lacks, TVComplement's regularisation (it counts each such value 1e-6
times in the original, so differences of order 1e-9).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

REQUIREMENTS = ["sdmetrics==0.32.0", "pandas", "pyarrow"]
RELEASES = (  # (data set, method, parameters)
    ("census_arena", "laplace", {"epsilon": 1.0}),
    ("census_arena", "mdav", {"k": 5}),
    ("census_arena", "mst", {"epsilon": 1.0}),
    ("adult", "laplace", {"epsilon": 1.0}),
    ("adult", "mst", {"epsilon": 1.0}),
)


def external(folder: Path) -> None:
    """SDMetrics' side: per column and per pair scores of each release."""
    from itertools import combinations

    import pandas as pd
    from sdmetrics.column_pairs import ContingencySimilarity, CorrelationSimilarity
    from sdmetrics.single_column import KSComplement, TVComplement

    manifest = json.loads((folder / "manifest.json").read_text())
    out = {}
    for name, entry in manifest.items():
        real = pd.read_parquet(folder / entry["original"])
        synthetic = pd.read_parquet(folder / entry["release"])
        numerical = set(entry["numerical"])
        columns = {
            c: (KSComplement if c in numerical else TVComplement).compute(real[c], synthetic[c])
            for c in real.columns
        }
        pairs = {}
        for a, b in combinations(real.columns, 2):
            if a in numerical and b in numerical:
                score = CorrelationSimilarity.compute(
                    real[[a, b]], synthetic[[a, b]], coefficient="Pearson"
                )
            else:
                score = ContingencySimilarity.compute(
                    real[[a, b]],
                    synthetic[[a, b]],
                    continuous_column_names=[c for c in (a, b) if c in numerical],
                    num_discrete_bins=10,
                )
            pairs[f"{a}|{b}"] = score
        out[name] = {"columns": columns, "pairs": pairs}
    (folder / "sdmetrics.json").write_text(json.dumps(out, default=float))


def anonlab_side(adult_records: int) -> None:
    """Release, write, run SDMetrics, print the differences."""
    from itertools import combinations

    import numpy as np

    from anonlab.methods import make_method
    from anonlab.metrics import get_metric
    from benchmarks.crosschecks.crosscheck_env import environment, first_records, run_external

    python = environment("sdmetrics", REQUIREMENTS)
    views = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        manifest, ours = {}, {}
        for dataset, method_name, params in RELEASES:
            if dataset not in views:
                view = views[dataset] = first_records(dataset, adult_records)
                view.frame[list(view.protected)].to_parquet(folder / f"{dataset}.parquet")
            view = views[dataset]
            options = {"sampler": "discrete"} if method_name == "laplace" else None
            method = make_method(method_name, params, options)
            release = method.release(view, np.random.default_rng(0))
            name = f"{view.name} n={view.n} {method_name}"
            file = f"release{len(manifest)}.parquet"
            release.frame[list(view.protected)].to_parquet(folder / file)
            numerical = [a.name for a in view.protected_attributes if not a.categorical]
            manifest[name] = {
                "original": f"{dataset}.parquet",
                "release": file,
                "numerical": numerical,
            }
            attributes = view.protected_attributes
            original = view.protected_values
            shapes = get_metric("column_shapes").values(original, release.values, attributes)
            columns = dict(zip(view.protected, shapes, strict=True))
            pairs = {}
            for a, b in combinations(range(len(attributes)), 2):
                pair = get_metric("pair_trends").values(
                    original[:, [a, b]], release.values[:, [a, b]], [attributes[a], attributes[b]]
                )
                pairs[f"{view.protected[a]}|{view.protected[b]}"] = pair[0]
            trends = get_metric("pair_trends").evaluate(original, release.values, attributes)
            ours[name] = (columns, pairs, float(np.mean(shapes)), trends)
        (folder / "manifest.json").write_text(json.dumps(manifest))
        run_external(python, Path(__file__).resolve(), "--external", str(folder))
        theirs = json.loads((folder / "sdmetrics.json").read_text())
    print("SDMetrics 0.32.0 against anonlab (means over columns and over pairs)")
    print(
        f"{'release':<28} {'score':<13} {'anonlab':>9} {'SDMetrics':>10} {'difference':>11} "
        f"{'largest one':>12}"
    )
    for name, (columns, pairs, shapes, trends) in ours.items():
        for label, mine_each, mean, key in (
            ("column_shapes", columns, shapes, "columns"),
            ("pair_trends", pairs, trends, "pairs"),
        ):
            other_each = theirs[name][key]
            other = float(np.mean(list(other_each.values())))
            largest = max(abs(mine_each[c] - other_each[c]) for c in mine_each)
            print(
                f"{name:<28} {label:<13} {mean:9.6f} {other:10.6f} {mean - other:11.2g} "
                f"{largest:12.2g}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--external", type=Path, help="SDMetrics' side: the releases' folder")
    parser.add_argument("--adult-records", type=int, default=3000)
    args = parser.parse_args()
    if args.external is not None:
        external(args.external)
    else:
        anonlab_side(args.adult_records)


if __name__ == "__main__":
    main()
