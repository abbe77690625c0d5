"""Provenance and readings: which runs are the paper's, where a custom run or a reading
writes, what run.json records, and that a custom run never touches the paper's folder."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab.provenance import (
    CUSTOM,
    PAPER,
    custom_label,
    is_paper_override,
    override_key,
    provenance,
    run_folder,
)
from anonlab.readings import apply_reading
from anonlab.runner import build_experiment
from anonlab.validation import ParameterError
from tests.conftest import run_command

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[1]


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return run_command(*args)


# --- the rule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "override",
    [
        "+experiment=census_ir",
        "experiment=census_ir",
        "profile=quick",
        "n_jobs=2",
        "seed=7",
        "reps=1",
        "runner=dask",
        "runner.address=tcp://x:8786",
        "results_dir=/tmp/x",
        "plot_only=true",
        "reading=data_range_bins",
        "hydra.launcher.partition=cpu",
        "hydra/launcher=submitit_slurm",
    ],
)
def test_paper_overrides(override):
    assert is_paper_override(override)
    assert provenance(["+experiment=census_ir", override]) == PAPER


@pytest.mark.parametrize(
    "override",
    [
        "dataset=csv",
        "dataset.path=x.csv",
        "+dataset.domains={a:[0,1]}",
        "~dataset.discrete",
        "grid.k=[2,10]",
        "methods=[ir]",
        "metrics=[re]",
        "options.jsd.bins=data_range",
        "experiment.name=mine",
        "run_name=mine",
        "/dataset@datasets.mcd=census_hcd",
        "runners=x",
        "seeds=1",
    ],
)
def test_custom_overrides(override):
    assert not is_paper_override(override)
    assert provenance(["+experiment=census_ir", "n_jobs=1", override]) == CUSTOM


def test_no_overrides_is_the_paper():
    assert provenance([]) == PAPER
    assert override_key("++grid.k=[2]") == "grid.k"


def test_custom_folder_names_the_data_and_hashes_the_overrides():
    base = ["+experiment=census_ir", "n_jobs=2"]
    csv = ["dataset=csv", "dataset.path='/data/my data.csv'", "dataset.numeric=[a,b]"]
    label = custom_label([*base, *csv])
    assert label.startswith("my_data-") and len(label.split("-")[-1]) == 8  # the file, not csv
    assert custom_label([*reversed(csv), "seed=3"]) == label  # order and paper keys ignored
    assert custom_label([*csv, "grid.m=[1]"]) != label
    assert custom_label(["grid.k=[2]"]).isalnum() and len(custom_label(["grid.k=[2]"])) == 8
    assert custom_label(["dataset=adult"]).startswith("adult-")
    assert custom_label(["dataset.path=/x/y.csv.gz"]).startswith("y-")
    assert custom_label(["dataset.path=/x/fair-2.csv", "dataset.name=ward_3"]).startswith("ward_3-")
    mcd = ["/dataset@datasets.mcd=csv", "datasets.mcd.path=/x/b.csv", "/dataset@datasets.a=adult"]
    assert custom_label(mcd).startswith("adult-b-")  # each data set once, the file's by its stem
    assert run_folder("census_ir", overrides=base) == "census_ir"
    assert run_folder("census_ir", reading="r", overrides=base) == "census_ir@r"
    assert run_folder("census_ir", overrides=[*base, *csv]) == f"census_ir~{label}"
    assert run_folder("census_ir", reading="r", overrides=csv) == f"census_ir@r~{label}"
    assert run_folder("census_ir", overrides=csv, run_name="census_ir") == "census_ir"
    with pytest.raises(ParameterError, match="run_name must be a folder name"):
        run_folder("census_ir", run_name="a/b")


# --- readings ------------------------------------------------------------------------------


def test_a_reading_applies_its_overrides_and_writes_beside_the_primary(conf_copy, compose_config):
    conf = conf_copy("fixture_readings", "adult_ir")
    base = ("+experiment=fixture_readings", "results_dir=/tmp/out")
    primary = build_experiment(compose_config(*base, conf_dir=conf))
    assert primary.reading is None and primary.provenance == PAPER
    assert primary.reps == 2 and primary.out_dir == Path("/tmp/out/fixture_readings")
    named = build_experiment(compose_config(*base, "reading=text", conf_dir=conf))
    assert named.reading is None and named.out_dir == primary.out_dir  # text is the primary
    small = build_experiment(compose_config(*base, "reading=small_grid", conf_dir=conf))
    assert small.reading == "small_grid" and small.provenance == PAPER
    assert small.reps == 1 and small.config["grid"]["k"] == [2, 3]
    assert {c.param_dict.get("k") for c in small.cells} == {None, 2, 3}
    assert small.out_dir == Path("/tmp/out/fixture_readings@small_grid")
    assert small.label == "fixture_readings@small_grid"
    quick = build_experiment(
        compose_config(
            *base, "reading=small_grid", "profile=quick", "grid.epsilon=[2.0]", conf_dir=conf
        )
    )
    assert quick.out_dir.parent == Path("/tmp/out/quick")
    assert quick.out_dir.name.startswith("fixture_readings@small_grid~")
    assert quick.provenance == CUSTOM and quick.config["grid"]["epsilon"] == [2.0]

    with pytest.raises(
        ParameterError,
        match=r"reading='other' is not declared by experiment "
        r"'fixture_readings'; choose one of \['text', "
        r"'small_grid'\]",
    ):
        build_experiment(compose_config(*base, "reading=other", conf_dir=conf))
    with pytest.raises(
        ParameterError,
        match=r"reading='text': experiment 'adult_ir' "
        r"declares no readings",
    ):
        build_experiment(compose_config("+experiment=adult_ir", "reading=text", conf_dir=conf))


def test_a_reading_key_must_exist_except_under_options():
    config = {
        "experiment": {"name": "x"},
        "grid": {"k": [2]},
        "reps": 2,
        "reading": "r",
        "readings": [
            {"name": "p", "primary": True, "text": "t"},
            {"name": "r", "text": "t", "set": {"grid.kk": [3]}},
        ],
    }
    with pytest.raises(ParameterError, match=r"reading 'r' sets 'grid.kk', which is not a key"):
        apply_reading(config)
    config["readings"][1]["set"] = {"options.jsd.bins": "data_range", "grid": {"k": [3]}, "reps": 1}
    applied = apply_reading(config)
    assert applied["options"] == {"jsd": {"bins": "data_range"}}
    assert applied["grid"] == {"k": [3]} and applied["reps"] == 1
    assert apply_reading(applied) == applied  # idempotent
    assert config["grid"] == {"k": [2]}  # the input is left as it was
    assert apply_reading({**config, "reading": None})["reading"] is None


# --- end to end through run.py --------------------------------------------------------------


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    return {
        str(p.relative_to(folder)): (p.read_bytes(), p.stat().st_mtime_ns)
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


@pytest.mark.slow  # runs through run.py processes
def test_a_custom_run_leaves_the_paper_folder_untouched(tmp_path):
    results = tmp_path / "results"
    paper = run_cli(
        "+experiment=census_ir", "profile=quick", "reps=1", "n_jobs=1", f"results_dir={results}"
    )
    assert paper.returncode == 0, paper.stderr
    folder = results / "quick" / "census_ir"
    assert f"{folder / 'results.parquet'}" in paper.stdout
    assert "census_ir [census]" in paper.stderr  # the progress bar names the run
    run = json.loads((folder / "run.json").read_text())
    assert run["provenance"] == PAPER and run["reading"] is None
    machine = run["machine"]  # what the run's times depend on
    assert machine["cpu_count"] >= 1 and machine["cpu_model"]
    assert len(machine["load_average"]["start"]) == len(machine["load_average"]["end"]) == 3
    assert run["overrides"] == [
        "+experiment=census_ir",
        "profile=quick",
        "reps=1",
        "n_jobs=1",
        f"results_dir={results}",
    ]
    before = snapshot(folder)

    rng = np.random.default_rng(3)
    data = tmp_path / "mine.csv"
    pd.DataFrame(
        {"income": rng.gamma(2.0, 2e4, 120).round(2), "age": rng.integers(18, 90, 120)}
    ).to_csv(data, index=False)
    custom_args = [
        "dataset=csv",
        f"dataset.path={data}",
        "dataset.numeric=[income,age]",
        "grid.m=[1,2]",
    ]
    custom = run_cli(
        "+experiment=census_ir",
        *custom_args,
        "profile=quick",
        "reps=1",
        "n_jobs=1",
        f"results_dir={results}",
    )
    assert custom.returncode == 0, custom.stderr
    assert snapshot(folder) == before  # byte for byte, not even rewritten
    [other] = [p for p in (results / "quick").iterdir() if p.name != "census_ir"]
    assert other.name == f"census_ir~{custom_label(custom_args)}"
    assert other.name.startswith("census_ir~mine-")
    assert f"{other / 'results.parquet'}" in custom.stdout
    assert f"{other.name} [mine]" in custom.stderr
    info = json.loads((other / "run.json").read_text())
    assert info["provenance"] == CUSTOM and info["experiment"] == "census_ir"
    assert info["overrides"][1:5] == custom_args
    assert set(pd.read_parquet(other / "results.parquet")["dataset"]) == {"csv"}
    # the report judges the paper's run and lists the other as a custom configuration
    from anonlab.report.site import build_report

    markdown = build_report(results / "quick").with_name("index.md").read_text("utf-8")
    assert f"| {other.name} | census_ir | " in markdown.split("## Custom configurations")[1]
    assert "## DP-IR Figure 1" in markdown and "folder census_ir ·" in markdown


def test_the_machine_facts_and_the_reports_meta_line(tmp_path, monkeypatch):
    from anonlab.report.view import Run
    from anonlab.runner.workers import cpu_model, machine

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Some CPU @ 2.0GHz\n")
    assert cpu_model(info) == "Some CPU @ 2.0GHz"
    monkeypatch.setattr("platform.processor", lambda: "x86_64")
    assert cpu_model(tmp_path / "absent") == "x86_64"
    facts = machine([1.5, 1.0, 0.5])
    assert facts["load_average"]["start"] == [1.5, 1.0, 0.5] and facts["cpu_count"] >= 1
    meta = Run(tmp_path, {"machine": {**facts, "cpus_usable": 2}}).meta()
    assert "2 cores" in meta and f"load 1.50→{facts['load_average']['end'][0]:.2f}" in meta
    assert not any("cores" in m for m in Run(tmp_path, {}).meta())  # an older run.json


def test_all_runs_every_reading_of_the_catalog_then_the_report(tmp_path, conf_copy):
    conf = conf_copy("fixture_readings")
    out = run_cli(
        f"--config-path={conf}",
        "+experiment=all",
        "n_jobs=1",
        f"results_dir={tmp_path / 'results'}",
    )
    assert out.returncode == 0, out.stderr
    runs = {
        p.parent.name: json.loads(p.read_text()) for p in (tmp_path / "results").glob("*/run.json")
    }
    assert set(runs) == {"fixture_readings", "fixture_readings@small_grid"}
    assert runs["fixture_readings"]["reading"] is None
    assert runs["fixture_readings@small_grid"]["reading"] == "small_grid"
    assert runs["fixture_readings@small_grid"]["config"]["reps"] == 1
    assert {run["provenance"] for run in runs.values()} == {PAPER}
    assert (tmp_path / "results" / "report" / "index.html").is_file()

    # every reading is validated before any work: a bad one stops the run, nothing written
    fixture = (conf / "experiment" / "fixture_readings.yaml").read_text(encoding="utf-8")
    (conf / "experiment" / "fixture_readings.yaml").write_text(
        fixture.replace("grid.k: [2, 3]", "grid.kk: [2, 3]"), encoding="utf-8"
    )
    out = run_cli(f"--config-path={conf}", "+experiment=all", f"results_dir={tmp_path / 'b'}")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "error: reading 'small_grid' sets 'grid.kk', which is not a key of the config"
    ]
    assert not (tmp_path / "b").exists()
    out = run_cli(
        f"--config-path={conf}",
        "+experiment=all",
        "reading=small_grid",
        f"results_dir={tmp_path / 'b'}",
    )
    assert out.returncode == 2 and "+experiment=all runs every experiment" in out.stderr


def test_git_commit_only_for_the_checkout_holding_the_code(tmp_path):
    """An installed package inside another repository's folder records no commit."""
    import subprocess

    from anonlab.runner.store import git_commit

    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    subprocess.run(
        [
            "git",
            "-C",
            str(tmp_path),
            "-c",
            "user.name=x",
            "-c",
            "user.email=x@x",
            "commit",
            "-q",
            "--allow-empty",
            "-m",
            "x",
        ],
        check=True,
    )
    (tmp_path / "venv" / "site-packages").mkdir(parents=True)
    assert git_commit(tmp_path)["commit"] is not None
    assert git_commit(tmp_path / "venv" / "site-packages") == {
        "commit": None,
        "dirty": None,
        "diff_sha256": None,
    }
