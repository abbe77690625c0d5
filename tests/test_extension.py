"""The extension test, following the extension guide (docs/guide/contributing.md) only: a
method with a grid axis of its own, a metric and a figure with a claim are each one new
file in a scratch copy of the package, and the run, the listing, the docs' tables, the
claim's verdict and the conformance kit all pick them up with no other file touched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from scratch import scratch_package, tree_digest

pytestmark = pytest.mark.integration  # runs the engine in a process on a copy of the package

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "extension"
#: folders of the scratch package that receive a new file (copied; all else is linked)
ADDED = {
    "methods": "rounded_laplace.py",
    "metrics": "mean_shift.py",
    "conf/experiment": "extension_study.yaml",
}


SCRIPT = """
import json, sys
from pathlib import Path
import pandas as pd
from anonlab.catalog import custom_experiments, resolved_claims
from anonlab.cli import main
from anonlab.conformance import check_method, check_metric, run_checks
from anonlab.listing import doc_table, list_methods, list_metrics
from anonlab.report.view import judge_claims

results = Path(sys.argv[1])
status = main(["run", "+experiment=extension_study", f"results_dir={results}", "n_jobs=1"])
(folder,) = [p.parent for p in results.glob("*/run.json")]
run = json.loads((folder / "run.json").read_text())
table = pd.read_parquet(folder / "results.parquet")
verdicts = [(r.id, r.status) for r in judge_claims(resolved_claims(run["config"]), table)]
print(json.dumps({
    "status": status,
    "methods": sorted(table["method"].unique()),
    "digits": sorted(table["digits"].dropna().unique().tolist()),
    "metrics": sorted(table["metric"].unique()),
    "figures": sorted(p.name for p in (folder / "figures").glob("*.png")),
    "verdicts": verdicts,
    "listed": ["rounded_laplace" in list_methods().index, "mean_shift" in list_metrics().index],
    "tables": ["rounded_laplace" in doc_table("methods-table"),
               "mean_shift" in doc_table("metrics-table")],
    "axes": list_methods().loc["rounded_laplace", "axes"],
    "guarantee": list_methods().loc["rounded_laplace", "guarantee"],
    "conforms": [run_checks(check_method("rounded_laplace"), "method 'rounded_laplace'"),
                 run_checks(check_metric("mean_shift"), "metric 'mean_shift'")],
    "custom": "extension_study" in custom_experiments(),
}))
"""


@pytest.mark.slow  # a scratch package run end to end
def test_a_method_a_metric_and_a_figure_are_one_file_each(tmp_path):
    package = tmp_path / "anonlab"
    live = tree_digest(ROOT / "anonlab", ADDED)
    # the package finds its configs beside config.py's resolved path: a copy, not a link
    scratch_package(ROOT / "anonlab", package, ADDED, copied={"config.py"})
    for folder, name in ADDED.items():
        shutil.copy(FIXTURES / name, package / folder / name)
        assert (package / folder / name).resolve().is_relative_to(tmp_path)
    environment = {**os.environ, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path / "results")],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["status"] == 0
    assert out["methods"] == ["laplace", "rounded_laplace"]
    assert out["digits"] == [0, 3] and out["metrics"] == ["mean_shift"]
    assert out["figures"] == ["mean_shift.png"]
    assert out["verdicts"] == [["extension_mean_shift_falls_with_epsilon", "reproduced"]]
    assert out["listed"] == [True, True] and out["tables"] == [True, True]
    assert out["axes"] == "epsilon, digits"
    assert out["guarantee"].startswith("claims ε-DP")
    # the conformance kit passes both, built from what they declare alone
    assert all(out["conforms"]) and "bad_axis_values_refused" in out["conforms"][0]
    assert out["custom"]
    assert tree_digest(ROOT / "anonlab", ADDED) == live  # the live package untouched
