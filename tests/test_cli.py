"""End to end through ``run.py``: outputs, provenance, errors before work, user CSV."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from anonlab.provenance import custom_label
from anonlab.runner import build_experiment, run_experiment
from anonlab.validation import ParameterError
from tests.conftest import run_command

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[1]
TINY = ["grid.k=[2,10]", "grid.epsilon=[1.0]", "reps=2"]


def run_cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return run_command(*args, cwd=cwd)


def test_census_ir_writes_table_provenance_and_figures(tmp_path):
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    out = run_cli(
        "+experiment=census_ir", *TINY, "n_jobs=2", f"results_dir={tmp_path}", cwd=workdir
    )
    assert out.returncode == 0, out.stderr
    assert list(workdir.iterdir()) == []  # no Hydra log or output folder besides results
    folder = tmp_path / f"census_ir~{custom_label(TINY)}"  # a custom grid: its own folder
    assert [p.name for p in tmp_path.iterdir() if p != workdir] == [folder.name]
    table = pd.read_parquet(folder / "results.parquet")
    assert set(table["metric"]) == {"re", "jsd"}
    assert set(table["experiment"]) == {"census_ir"} and set(table["dataset"]) == {"census"}
    run = json.loads((folder / "run.json").read_text())
    assert run["config"]["grid"]["k"] == [2, 10] and run["config"]["reps"] == 2
    assert run["provenance"] == "custom" and run["reading"] is None
    assert run["overrides"] == [
        "+experiment=census_ir",
        *TINY,
        "n_jobs=2",
        f"results_dir={tmp_path}",
    ]
    assert run["versions"]["numpy"] and "commit" in run["git"] and run["wall_time_s"] > 0
    for name in ("figure1_re", "figure1_jsd"):
        for fmt in ("png", "pdf"):
            assert (folder / "figures" / f"{name}.{fmt}").stat().st_size > 1000
    # figures are drawn from the stored table alone: redraw without re-running
    (folder / "figures" / "figure1_re.png").unlink()
    again = run_cli("+experiment=census_ir", *TINY, f"results_dir={tmp_path}", "plot_only=true")
    assert again.returncode == 0, again.stderr
    assert (folder / "figures" / "figure1_re.png").is_file()
    assert pd.read_parquet(folder / "results.parquet").equals(table)


def test_user_csv_runs_end_to_end(tmp_path, user_csv):
    out = run_cli(
        "+experiment=census_ir",
        "dataset=csv",
        f"dataset.path={user_csv}",
        "dataset.numeric=[income,age]",
        "grid.m=[1,2]",
        *TINY,
        "n_jobs=1",
        f"results_dir={tmp_path}",
    )
    assert out.returncode == 0, out.stderr
    [folder] = tmp_path.glob("census_ir~mine-*")  # not the paper's census_ir/
    assert str(folder / "results.parquet") in out.stdout
    table = pd.read_parquet(folder / "results.parquet")
    assert set(table["dataset"]) == {"csv"} and set(table["m"]) == {1, 2}
    assert (folder / "figures" / "figure1_jsd.pdf").is_file()


def test_results_file_is_byte_identical_for_any_n_jobs(tmp_path, compose_config):
    files = []
    for n_jobs in (1, 2):
        cfg = compose_config(
            "+experiment=adult_uni_sse",
            "grid.k=[2,50]",
            "reps=2",
            f"n_jobs={n_jobs}",
            "figures=[]",  # the table alone is compared: no figure to draw
            f"results_dir={tmp_path / str(n_jobs)}",
        )
        experiment = build_experiment(cfg)
        run_experiment(experiment, cfg, progress=False)
        files.append(experiment.results_path.read_bytes())
    assert files[0] == files[1]


@pytest.mark.slow  # every experiment of a multirun, end to end
def test_multirun_runs_each_experiment(tmp_path):
    workdir = tmp_path / "workdir"
    workdir.mkdir()
    out = run_cli(
        "-m",
        "+experiment=census_ir,adult_uni_sse",
        "grid.k=[2,5]",
        "reps=1",
        "n_jobs=1",
        "figures=[]",
        f"results_dir={tmp_path / 'results'}",
        cwd=workdir,
    )
    assert out.returncode == 0, out.stderr
    for name in ("census_ir", "adult_uni_sse"):
        folder = f"{name}~{custom_label(['grid.k=[2,5]', 'reps=1', 'n_jobs=1', 'figures=[]'])}"
        table = pd.read_parquet(tmp_path / "results" / folder / "results.parquet")
        assert set(table["k"].dropna()) == {2, 5}


def test_all_validates_every_experiment_before_any_work(tmp_path):
    out = run_cli("+experiment=all", "profile=fast", f"results_dir={tmp_path}")
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "error: profile='fast' is not declared by this experiment; choose 'paper' or one of "
        "['quick']"
    ]
    assert list(tmp_path.iterdir()) == []


def test_n_jobs_above_the_cores_is_capped_and_said(tmp_path):
    import os

    from anonlab.config import compose_config

    cores = os.cpu_count() or 1
    experiment = build_experiment(
        compose_config("+experiment=census_ir", "n_jobs=1000", f"results_dir={tmp_path}")
    )
    assert experiment.n_jobs == cores
    assert experiment.notes == (f"n_jobs=1000 capped to {cores}, the number of cores",)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("where", ["file", "under_file"])
def test_a_results_dir_that_cannot_be_a_folder_is_refused_before_any_write(tmp_path, where):
    blocker = tmp_path / "blocker"
    blocker.write_text("x", encoding="utf-8")
    target = blocker if where == "file" else blocker / "results"
    out = run_cli("+experiment=census_ir", f"results_dir={target}")
    assert out.returncode == 2
    what = "is a file" if where == "file" else f"lies under the file '{blocker}'"
    assert out.stderr.strip().splitlines() == [
        f"error: results_dir='{target}' {what}; name a folder"
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["blocker"]


def test_experiments_picks_a_list_out_of_all_and_refuses_an_unknown_name(monkeypatch):
    import anonlab.cli as cli
    import anonlab.runner
    from anonlab.cli import chosen_experiments, experiments_of
    from anonlab.config import CONF_DIR, compose_config

    composed = []  # the overrides each experiment is composed from, nothing built
    monkeypatch.setattr(cli, "compose_config", lambda *o, conf_dir: composed.append(o))
    monkeypatch.setattr(anonlab.runner, "build_experiment", lambda config: config)
    monkeypatch.setattr(cli, "checked_claims", lambda experiment, conf_dir: experiment)
    monkeypatch.setattr(cli, "staged", lambda config: config)
    monkeypatch.setattr(cli, "validate", lambda config: config)
    overrides = ["+experiment=all", "experiments=[census_ir,arena]", "profile=quick"]
    experiments_of(compose_config(*overrides), overrides, CONF_DIR)
    assert composed == [
        ("+experiment=census_ir", "profile=quick"),
        ("+experiment=census_ir", "profile=quick", "reading=data_range_bins"),
        ("+experiment=arena", "profile=quick"),
    ]  # each a paper run: the list is not among its overrides
    config = {"all_experiments": True, "experiments": ["census_ir", "census_irr"]}
    with pytest.raises(ParameterError, match="no experiment 'census_irr'; did you mean"):
        chosen_experiments(config, CONF_DIR)
    with pytest.raises(ParameterError, match=r"picks experiments of \+experiment=all"):
        chosen_experiments({"experiments": ["census_ir"]}, CONF_DIR)
