"""The ``anonlab`` console command: ``run`` (as ``python run.py``), ``report``, ``list``."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from anonlab.catalog import experiments
from anonlab.cli import main
from anonlab.methods import METHODS
from anonlab.metrics import METRICS

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def test_list_names_every_method_with_its_axes_every_metric_and_experiment(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    rows = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    for name, cls in METHODS.items():
        assert ", ".join(cls.axes) in rows[name] and ":class:" not in rows[name]
    assert set(METRICS) | {e.name for e in experiments()} | {"census", "csv"} <= set(rows)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], "choose a command"),
        (["nope"], "choose a command"),
        (["list", "extra"], "takes no arguments"),
        (["run", "+experiment=nope"], "experiment/nope"),
        (["report", "/nonexistent/results"], "no results folder"),
    ],
)
def test_bad_commands_are_one_error_line(argv, expected, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and expected in err[-1]
    assert not any("Config search path" in line for line in err)


@pytest.mark.slow  # the installed command in a process
def test_the_installed_command_runs(tmp_path):
    command = shutil.which("anonlab")
    if command is None:
        pytest.skip("the anonlab console command is not installed (pip install -e .)")
    done = subprocess.run(
        [
            command,
            "run",
            "+experiment=census_ir",
            "grid.k=[5]",
            "grid.epsilon=[1.0]",
            "grid.m=[1]",
            "reps=1",
            "n_jobs=1",
            "figures=[]",
            f"results_dir={tmp_path}",
            "run_name=tiny",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert str(tmp_path / "tiny" / "results.parquet") in done.stdout
