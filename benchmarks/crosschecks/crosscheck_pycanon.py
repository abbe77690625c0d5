"""Cross-check the k, l and t anonlab states for t-close releases against pycanon.

Usage: ``python benchmarks/crosschecks/crosscheck_pycanon.py [--adult-records 2000]``

anonlab's side releases TCM Algorithms 2 (``tclose_kfirst``) and 3 (``tclose_tfirst``) at
k = 5, t = 0.1 on Census MCD (1,080 records) and on the first ``--adult-records`` records
of Adult (age the quasi-identifier, hours per week the confidential attribute), and
Algorithm 3 under the rank ground on Adult; it writes each release's quasi-identifiers and
confidential attribute (parquet) with the levels its guarantee states per released
equivalence class, then runs this script again as ``--external FOLDER`` under pycanon's
own environment (:mod:`crosscheck_env`), which reads the files with pandas and pycanon only
and writes pycanon's k-anonymity, l-diversity, entropy l-diversity and t-closeness as
JSON. The table compares them: pycanon measures equivalence classes (records with equal
quasi-identifiers) and the EMD over distinct values, anonlab's ``class``/``distinct``
levels; its entropy l is exp(least entropy) rounded down, anonlab's is not rounded.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

REQUIREMENTS = ["pycanon==1.3.6", "pandas", "pyarrow"]
RELEASES = (  # (data set, method, ground)
    ("census_mcd", "tclose_kfirst", "distinct"),
    ("census_mcd", "tclose_tfirst", "distinct"),
    ("adult_arena", "tclose_kfirst", "distinct"),
    ("adult_arena", "tclose_tfirst", "distinct"),
    ("adult_arena", "tclose_tfirst", "rank"),
)
MEASURES = ("k", "l", "entropy_l", "t")


def external(folder: Path) -> None:
    """pycanon's side: read each release and write pycanon's measures."""
    import pandas as pd
    from pycanon import anonymity

    manifest = json.loads((folder / "manifest.json").read_text())
    out = {}
    for name, entry in manifest.items():
        data = pd.read_parquet(folder / entry["file"])
        qi, sa = entry["qi"], entry["sa"]
        out[name] = {
            "k": anonymity.k_anonymity(data, qi),
            "l": anonymity.l_diversity(data, qi, sa),
            "entropy_l": anonymity.entropy_l_diversity(data, qi, sa),
            "t": anonymity.t_closeness(data, qi, sa),
        }
    (folder / "pycanon.json").write_text(json.dumps(out, default=float))


def anonlab_side(adult_records: int) -> None:
    """Release, write, run pycanon, print the differences."""
    import numpy as np

    from anonlab.methods import make_method
    from benchmarks.crosschecks.crosscheck_env import environment, first_records, run_external

    python = environment("pycanon", REQUIREMENTS)
    views = {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        manifest, ours = {}, {}
        for dataset, method_name, ground in RELEASES:
            if dataset not in views:
                views[dataset] = first_records(dataset, adult_records)
            view = views[dataset]
            method = make_method(method_name, {"k": 5, "t": 0.1}, {"ground": ground})
            release = method.release(view, np.random.default_rng(0))
            qi = [a.name for a in view.attributes if a.role == "quasi_identifier"]
            sa = [a.name for a in view.attributes if a.role == "confidential"]
            name = f"{view.name} n={view.n} {method_name} ({ground})"
            file = f"release{len(manifest)}.parquet"
            release.frame[qi + sa].to_parquet(folder / file)
            manifest[name] = {"file": file, "qi": qi, "sa": sa}
            levels = {(x.unit, x.ground): x for x in release.guarantee.levels}
            ours[name] = (levels["class", "distinct"], release.guarantee)
        (folder / "manifest.json").write_text(json.dumps(manifest))
        run_external(python, Path(__file__).resolve(), "--external", str(folder))
        theirs = json.loads((folder / "pycanon.json").read_text())
    print("pycanon 1.3.6 against anonlab's levels per released equivalence class, distinct ground")
    print(f"{'release':<44} {'measure':<10} {'anonlab':>12} {'pycanon':>12} {'difference':>11}")
    worst = 0.0
    for name, (levels, stated) in ours.items():
        for measure in MEASURES:
            mine, other = getattr(levels, measure), theirs[name][measure]
            shown = np.floor(mine + 1e-9) if measure == "entropy_l" else mine
            worst = max(worst, abs(shown - other) / max(abs(other), 1e-300))
            print(f"{name:<44} {measure:<10} {mine:12.6g} {other:12.6g} {shown - other:11.2g}")
        print(
            f"{'':<44} stated: {stated.ground} ground, ties {stated.ties}, unit "
            f"{stated.t_unit}: k = {stated.k}, t = {stated.t:.4g}, l = {stated.l}"
        )
    print(f"largest relative difference: {worst:.2g}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--external", type=Path, help="pycanon's side: the releases' folder")
    parser.add_argument("--adult-records", type=int, default=2000)
    args = parser.parse_args()
    if args.external is not None:
        external(args.external)
    else:
        anonlab_side(args.adult_records)


if __name__ == "__main__":
    main()
