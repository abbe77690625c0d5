"""Cross-check the equivalence classes behind anonlab's sdcMicro and ARX risks against
pycanon's.

Usage: ``python benchmarks/crosschecks/crosscheck_pycanon_risk.py [--adult-records 2000]``

sdcMicro's individual risk without weights (1/f_k), its global risk and ARX's prosecutor,
journalist and marketer risks (:mod:`anonlab.metrics.disclosure`) are functions of the
released equivalence classes: the records sharing their key values. anonlab's side
releases the original file, ``mdav`` (k = 5) and ``laplace`` (ε = 1, discrete sampler) of
Census (the arena's quasi-identifiers) and of the first ``--adult-records`` records of
Adult (age), writes each release's quasi-identifiers (parquet) with its measures, then
runs this script again as ``--external FOLDER`` under pycanon's own environment
(:mod:`crosscheck_env`), which reads the files with pandas and pycanon only and writes
pycanon's k-anonymity and its equivalence classes (``get_equiv_class``). The table
compares, per release, k with 1 / the highest prosecutor risk, the number of classes with
n × the success rate, and every record's class size with anonlab's f_k; and it recomputes
the risks from pycanon's classes. They must agree exactly.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

REQUIREMENTS = ["pycanon==1.3.6", "pandas", "pyarrow"]  # crosscheck_pycanon's environment
RELEASES = (  # (data set, method, parameters)
    ("census_arena", "original", {}),
    ("census_arena", "mdav", {"k": 5}),
    ("census_arena", "laplace", {"epsilon": 1.0}),
    ("adult_arena", "original", {}),
    ("adult_arena", "mdav", {"k": 5}),
    ("adult_arena", "laplace", {"epsilon": 1.0}),
)
THRESHOLD = 0.2  # ARX's default risk threshold


def external(folder: Path) -> None:
    """pycanon's side: k and each record's class size, per release."""
    import numpy as np
    import pandas as pd
    from pycanon import anonymity
    from pycanon.anonymity.utils import aux_anonymity

    manifest = json.loads((folder / "manifest.json").read_text())
    out = {}
    for name, entry in manifest.items():
        data = pd.read_parquet(folder / entry["file"])
        qi = entry["qi"]
        classes = aux_anonymity.get_equiv_class(data, qi)
        size = np.zeros(len(data), dtype=int)
        for members in classes:
            size[np.asarray(members, dtype=int)] = len(members)
        out[name] = {
            "k": int(anonymity.k_anonymity(data, qi)),
            "classes": len(classes),
            "sizes": size.tolist(),
        }
    (folder / "pycanon.json").write_text(json.dumps(out))


def risks_of(sizes, threshold: float = THRESHOLD) -> dict[str, float]:
    """sdcMicro's and ARX's measures from each record's class size."""
    import numpy as np

    sizes = np.asarray(sizes, dtype=float)
    n = len(sizes)
    return {
        "individual_risk": float((1 / sizes).max()),
        "global_risk": float((1 / sizes).sum() / n),
        "global_risk_ER": float((1 / sizes).sum()),
        "records_at_risk": float(np.mean(1 / sizes > threshold)),
        "success_rate": float((1 / sizes).sum() / n),  # classes / n
    }


def anonlab_side(adult_records: int) -> int:
    """Release, write, run pycanon, print the differences; the number of mismatches."""
    import numpy as np

    from anonlab.methods import make_method
    from anonlab.metrics import get_metric
    from anonlab.metrics.disclosure import released_classes
    from anonlab.release import Release
    from benchmarks.crosschecks.crosscheck_env import environment, first_records, run_external

    python = environment("pycanon", REQUIREMENTS)
    views, manifest, ours = {}, {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for dataset, method_name, params in RELEASES:
            if dataset not in views:
                views[dataset] = first_records(dataset, adult_records)
            view = views[dataset]
            if method_name == "original":
                release = Release(view, view.protected_values)
            else:
                options = {"sampler": "discrete"} if method_name == "laplace" else None
                method = make_method(method_name, params, options)
                release = method.release(view, np.random.default_rng(0))
            qi = [a.name for a in view.protected_attributes if a.role == "quasi_identifier"]
            name = f"{view.name} n={view.n} {method_name}"
            file = f"release{len(manifest)}.parquet"
            release.frame[qi].to_parquet(folder / file)
            manifest[name] = {"file": file, "qi": qi}
            inverse, sizes = released_classes(view, release, "roles")
            measured = {
                "individual_risk": get_metric("individual_risk"),
                "global_risk": get_metric("global_risk"),
                "global_risk_ER": get_metric("global_risk", {"scale": "expected"}),
                "records_at_risk": get_metric(
                    "prosecutor_risk", {"measure": "records_at_risk", "threshold": THRESHOLD}
                ),
                "success_rate": get_metric("prosecutor_risk", {"measure": "success_rate"}),
            }
            ours[name] = (
                sizes[inverse].tolist(),
                len(sizes),
                {key: m.of_release(view, release) for key, m in measured.items()},
            )
        (folder / "manifest.json").write_text(json.dumps(manifest))
        run_external(python, Path(__file__).resolve(), "--external", str(folder))
        theirs = json.loads((folder / "pycanon.json").read_text())
    print("pycanon 1.3.6's equivalence classes against anonlab's sdcMicro and ARX measures")
    print(f"{'release':<30} {'measure':<16} {'anonlab':>12} {'pycanon':>12} {'difference':>11}")
    mismatches = 0
    for name, (sizes, classes, values) in ours.items():
        other = theirs[name]
        derived = risks_of(other["sizes"])
        rows = [
            ("1/highest risk", 1 / values["individual_risk"], other["k"]),
            ("classes", classes, other["classes"]),
            ("records' f_k", sum(a != b for a, b in zip(sizes, other["sizes"], strict=True)), 0),
            *((key, values[key], derived[key]) for key in values),
        ]
        for label, mine, theirs_value in rows:
            difference = mine - theirs_value
            mismatches += abs(difference) > 1e-12 * max(1.0, abs(theirs_value))
            print(f"{name:<30} {label:<16} {mine:12.6g} {theirs_value:12.6g} {difference:11.2g}")
    print(f"{mismatches} mismatches (records' f_k: the number of records whose class size differs)")
    return mismatches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--external", type=Path, help="pycanon's side: the releases' folder")
    parser.add_argument("--adult-records", type=int, default=2000)
    args = parser.parse_args()
    if args.external is not None:
        external(args.external)
    else:
        sys.exit(1 if anonlab_side(args.adult_records) else 0)


if __name__ == "__main__":
    main()
