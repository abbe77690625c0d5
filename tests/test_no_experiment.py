"""A command line that names nothing to run (no ``+experiment=``, no data set, methods,
metrics or grid of one's own) prints what to run and exits with status 2, before any work
and writing nothing; Hydra's flags that only show something still go to Hydra."""

from __future__ import annotations

import pytest

import anonlab.listing
from anonlab import cli

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


@pytest.fixture(scope="module")
def experiments():
    """The paper experiments, read once (the catalog's YAML takes a few tenths of a second)."""
    return anonlab.listing.list_experiments()


@pytest.mark.parametrize(
    "argv",
    [
        ["run"],
        ["run", "n_jobs=1", "seed=3", "reps=1", "profile=quick", "plot_only=true"],
        ["run", "runner=local", "experiment.name=mine", "stage=confirmatory"],
        ["run", "-m", "seed=1,2"],  # a multirun of nothing: not handed to Hydra
    ],
)
def test_nothing_to_run_prints_what_to_run(argv, experiments, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(anonlab.listing, "list_experiments", lambda conf_dir: experiments)
    monkeypatch.chdir(tmp_path)
    assert cli.console([*argv, f"results_dir={tmp_path / 'results'}"]) == cli.USAGE_ERROR
    out, err = capsys.readouterr()
    assert out == "" and list(tmp_path.iterdir()) == []
    lines = err.splitlines()
    assert lines[0].startswith("usage: anonlab run +experiment=NAME")
    assert lines[-1] == "error: no experiment given; choose one above (+experiment=NAME)"
    for name in [*experiments.index, "all"]:
        assert f"  +experiment={name} " in err
    assert "anonlab run +experiment=study dataset=csv dataset.path=FILE" in err
    assert "anonlab list" in err


@pytest.mark.parametrize(
    "override",
    [
        "+experiment=census_ir",
        "+experiment=all",
        "dataset=csv",
        "dataset.path=mine.csv",
        "~dataset.domains",
        "/dataset@datasets.mcd=census_hcd",
        "datasets.mcd.path=x.csv",
        "methods=[ir]",
        "metrics=[re]",
        "metrics_by_attribute=[re]",
        "grid.k=[2]",
        "+grid.t=[0.2]",
        "grid_by_method={ir: {k: [2]}}",
    ],
)
def test_an_experiment_or_a_run_of_ones_own_is_something_to_run(override):
    assert cli.experiment_given(["n_jobs=1", override])


@pytest.mark.parametrize(
    "override",
    ["n_jobs=2", "seed=1", "reps=1", "results_dir=x", "experiment.name=x", "hydra.run.dir=x"],
)
def test_where_and_how_a_run_goes_names_nothing_to_run(override):
    assert not cli.experiment_given([override])


@pytest.mark.parametrize(
    ("argv", "overrides"),
    [
        (["--cfg", "job"], None),
        (["--help"], None),
        (["--hydra-help"], None),
        (["--info"], None),
        (["-cn", "other", "-m"], None),
        (["-m", "-cp", "conf", "--config-dir=x", "seed=1,2"], ["seed=1,2"]),
        (["-m", "+experiment=census_ir,adult_ir"], ["+experiment=census_ir,adult_ir"]),
    ],
)
def test_hydra_flags_that_show_something_are_left_to_hydra(argv, overrides):
    assert cli.hydra_run_overrides(argv) == overrides


def test_a_bad_config_path_is_still_one_error_line(tmp_path, capsys):
    assert cli.main(["run", f"--config-path={tmp_path}"]) == cli.USAGE_ERROR
    assert capsys.readouterr().err.splitlines() == [
        f"error: --config-path={str(tmp_path)!r} holds no config.yaml"
    ]


def test_an_experiment_of_ones_own_runs_from_its_own_folder(tmp_path, capsys):
    """``--config-dir DIR`` adds a folder of one's own: ``DIR/experiment/NAME.yaml`` composes
    as ``+experiment=NAME`` beside the package's configs; a folder that is not one is one
    error line."""
    from anonlab.config import compose_config

    (tmp_path / "experiment").mkdir()
    (tmp_path / "experiment" / "mine.yaml").write_text(
        "# @package _global_\nexperiment: {name: mine, paper: null}\n"
        "methods: [ir]\nmetrics: [re]\ngrid: {k: [2]}\n"
    )
    conf_dir, overrides = cli.split_config_path(["--config-dir", str(tmp_path), "+experiment=mine"])
    assert overrides == ["+experiment=mine", f"hydra.searchpath=[{tmp_path.as_uri()}]"]
    config = compose_config(*overrides, conf_dir=conf_dir)
    assert config["experiment"]["name"] == "mine" and config["methods"] == ["ir"]
    assert not cli.hydra_mode([f"--config-dir={tmp_path}", "+experiment=mine"])
    assert cli.main(["run", f"--config-dir={tmp_path / 'none'}", "+experiment=mine"]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"error: --config-dir={str(tmp_path / 'none')!r} is not a folder"
    ]
