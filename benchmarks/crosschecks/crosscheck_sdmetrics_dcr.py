"""Cross-check anonlab's distance to closest record against SDMetrics' (``calculate_dcr``
and ``DCRBaselineProtection``).

Usage: ``python benchmarks/crosschecks/crosscheck_sdmetrics_dcr.py [--adult-records 2000]``

anonlab's side releases ``laplace`` (ε = 1, discrete sampler), ``mdav`` (k = 5) and
``mst`` (ε = 1) of Census (the arena's nine numerical attributes) and ``laplace`` and
``mst`` of the first ``--adult-records`` records of Adult (age, hours per week,
occupation, native country: two categorical attributes), writes the original and each
release (parquet; attributes declared whole-numbered as integers where every value is
whole, categories as labels) with
anonlab's per-record DCRs, ``dcr`` and ``dcr_baseline_protection``, then runs this
script again as ``--external FOLDER`` under SDMetrics' own environment
(:mod:`crosscheck_env`), which reads the files with pandas and SDMetrics only and writes
``calculate_dcr`` of each release to the original, and ``DCRBaselineProtection``'s
breakdown. Per-record DCRs and their median must agree to rounding; the baseline
protection draws its random records on each side (anonlab from its metric generator,
SDMetrics from its own), so the two scores agree within their sampling noise only.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

REQUIREMENTS = ["sdmetrics==0.32.0", "pandas", "pyarrow"]  # crosscheck_sdmetrics' environment
RELEASES = (  # (data set, method, parameters)
    ("census_arena", "laplace", {"epsilon": 1.0}),
    ("census_arena", "mdav", {"k": 5}),
    ("census_arena", "mst", {"epsilon": 1.0}),
    ("adult", "laplace", {"epsilon": 1.0}),
    ("adult", "mst", {"epsilon": 1.0}),
)


def external(folder: Path) -> None:
    """SDMetrics' side: each release's DCRs and baseline protection."""
    import pandas as pd
    from sdmetrics.single_table import DCRBaselineProtection
    from sdmetrics.single_table.privacy.dcr_utils import calculate_dcr

    manifest = json.loads((folder / "manifest.json").read_text())
    out = {}
    for name, entry in manifest.items():
        real = pd.read_parquet(folder / entry["original"])
        synthetic = pd.read_parquet(folder / entry["release"])
        numerical = set(entry["numerical"])
        metadata = {
            "columns": {
                c: {"sdtype": "numerical" if c in numerical else "categorical"}
                for c in real.columns
            }
        }
        distances = calculate_dcr(dataset=synthetic, reference_dataset=real, metadata=metadata)
        breakdown = DCRBaselineProtection.compute_breakdown(real, synthetic, metadata, None)
        out[name] = {"dcr": distances.tolist(), "breakdown": breakdown}
    (folder / "sdmetrics.json").write_text(json.dumps(out, default=float))


def anonlab_side(adult_records: int) -> int:
    """Release, write, run SDMetrics, print the differences; the number of mismatches."""
    import numpy as np

    from anonlab.methods import make_method
    from anonlab.metrics import get_metric
    from anonlab.metrics.dcr import closest_distances
    from benchmarks.crosschecks.crosscheck_env import environment, first_records, run_external

    python = environment("sdmetrics", REQUIREMENTS)
    views, manifest, ours = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)

        def write(frame, view, file: str) -> None:
            frame = frame[list(view.protected)].copy()
            for attribute in view.protected_attributes:
                column = frame[attribute.name]
                whole = not attribute.categorical and (column == column.round()).all()
                if attribute.integer and whole:  # SDMetrics draws integers for these
                    frame[attribute.name] = column.astype("int64")
            frame.to_parquet(folder / file)

        for dataset, method_name, params in RELEASES:
            if dataset not in views:
                view = views[dataset] = first_records(dataset, adult_records)
                write(view.frame, view, f"{dataset}.parquet")
            view = views[dataset]
            options = {"sampler": "discrete"} if method_name == "laplace" else None
            release = make_method(method_name, params, options).release(
                view, np.random.default_rng(0)
            )
            name = f"{view.name} n={view.n} {method_name}"
            file = f"release{len(manifest)}.parquet"
            write(release.frame, view, file)
            numerical = [a.name for a in view.protected_attributes if not a.categorical]
            manifest[name] = {
                "original": f"{dataset}.parquet",
                "release": file,
                "numerical": numerical,
            }
            distances = closest_distances(
                release.values, view.protected_values, view.protected_attributes
            )
            protection = get_metric("dcr_baseline_protection").of_release(
                view, release, np.random.default_rng(0)
            )
            ours[name] = (distances, get_metric("dcr").of_release(view, release), protection)
        (folder / "manifest.json").write_text(json.dumps(manifest))
        run_external(python, Path(__file__).resolve(), "--external", str(folder))
        theirs = json.loads((folder / "sdmetrics.json").read_text())
    print("SDMetrics 0.32.0 against anonlab: distance to closest record")
    print(f"{'release':<28} {'measure':<24} {'anonlab':>9} {'SDMetrics':>10} {'difference':>11}")
    mismatches = 0
    for name, (distances, median, protection) in ours.items():
        other = theirs[name]
        largest = float(np.max(np.abs(distances - np.array(other["dcr"]))))
        breakdown = other["breakdown"]
        synthetic = breakdown["median_DCR_to_real_data"]["synthetic_data"]
        random = breakdown["median_DCR_to_real_data"]["random_data_baseline"]
        mismatches += largest > 1e-12 or abs(median - synthetic) > 1e-12
        for label, mine, theirs_value in (
            ("DCR per record (largest)", largest, 0.0),
            ("median DCR", median, synthetic),
            ("baseline protection", protection, breakdown["score"]),
        ):
            print(
                f"{name:<28} {label:<24} {mine:9.6f} {theirs_value:10.6f} "
                f"{mine - theirs_value:11.2g}"
            )
        print(f"{'':<28} SDMetrics' random records' median DCR: {random:.6f}")
    print(f"{mismatches} releases whose DCRs differ by more than 1e-12")
    return mismatches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--external", type=Path, help="SDMetrics' side: the releases' folder")
    parser.add_argument("--adult-records", type=int, default=2000)
    args = parser.parse_args()
    if args.external is not None:
        external(args.external)
    else:
        sys.exit(1 if anonlab_side(args.adult_records) else 0)


if __name__ == "__main__":
    main()
