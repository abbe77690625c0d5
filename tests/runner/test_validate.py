"""The first stage of a run (:mod:`anonlab.runner.validate`): one validator for the command
line and the Python study, each refusing the same input with the same error in its own
words, before any data, worker or kernel; a run uses exactly the grid it is given."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

import anonlab
from anonlab import cli
from anonlab.config import CONF_DIR, compose_config, open_override
from anonlab.datasets.axes import VIEW_AXES
from anonlab.methods import method_class
from anonlab.plotting import FigureSpec
from anonlab.runner.fit import fit_figures
from anonlab.runner.validate import Components, live_components, validate
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[2]
FRAME = pd.DataFrame(
    {
        "x": np.random.default_rng(1).uniform(0, 10, 30).round(2),
        "y": np.random.default_rng(2).uniform(0, 5, 30).round(2),
    }
)

# (id, the command line's overrides, anonlab.study's arguments, the command line's error,
# the Python study's): the same input, refused with the same error in each one's words
CASES = [
    (
        "no_grid",
        ["methods=[mdav]"],
        {"methods": ["mdav"]},
        "method 'mdav' needs grid axis grid.k",
        "method 'mdav' needs grid axis grid['k']",
    ),
    (
        "axis_a_method_needs",
        ["methods=[laplace,ir]", "grid.k=[2,5]"],
        {"methods": ["laplace", "ir"], "grid": {"k": [2, 5]}},
        "method 'laplace' needs grid axis grid.epsilon",
        "method 'laplace' needs grid axis grid['epsilon']",
    ),
    (
        "misspelt_axis",
        ["methods=[ir]", "grid.k=[2,3]", "+grid.kk=[3,4]"],
        {"methods": ["ir"], "grid": {"k": [2, 3], "kk": [3, 4]}},
        "grid.kk is not an axis of methods ['ir'] or of the data; did you mean grid.k?",
        "grid['kk'] is not an axis of methods ['ir'] or of the data; did you mean grid['k']?",
    ),
    (
        "misspelt_epsilon",
        ["methods=[laplace]", "grid.epsilon=[1.0]", "grid.epsilom=[0.1]"],
        {"methods": ["laplace"], "grid": {"epsilon": [1.0], "epsilom": [0.1]}},
        "grid.epsilom is not an axis of methods ['laplace'] or of the data; did you mean "
        "grid.epsilon?",
        "grid['epsilom'] is not an axis of methods ['laplace'] or of the data; did you mean "
        "grid['epsilon']?",
    ),
    (
        "unknown_axis",
        ["methods=[ir]", "grid.k=[2,3]", "grid.foo=[1,2]"],
        {"methods": ["ir"], "grid": {"k": [2, 3], "foo": [1, 2]}},
        "grid.foo is not an axis of methods ['ir'] or of the data; the axes are k, m, alpha",
        "grid['foo'] is not an axis of methods ['ir'] or of the data; the axes are k, m, alpha",
    ),
    (
        "axis_of_another_method",
        ["methods=[ir]", "grid.k=[2,3]", "grid.t=[0.3]"],
        {"methods": ["ir"], "grid": {"k": [2, 3], "t": [0.3]}},
        "grid.t is not an axis of methods ['ir'] or of the data",
        "grid['t'] is not an axis of methods ['ir'] or of the data",
    ),
    (
        "k_zero",
        ["methods=[ir]", "grid.k=[0,2]"],
        {"methods": ["ir"], "grid": {"k": [0, 2]}},
        "grid.k must be >= 1, got 0",
        "grid['k'] must be >= 1, got 0",
    ),
    (
        "k_fraction",
        ["methods=[ir]", "grid.k=[2.5,3]"],
        {"methods": ["ir"], "grid": {"k": [2.5, 3]}},
        "grid.k must be an integer, got 2.5",
        "grid['k'] must be an integer, got 2.5",
    ),
    (
        "k_beyond_the_data",
        ["methods=[ir]", "grid.k=[2,50]"],
        {"methods": ["ir"], "grid": {"k": [2, 50]}},
        "grid.k: [50] exceed the data's 30 records; k must be in 1..30",
        "grid['k']: [50] exceed the data's 30 records; k must be in 1..30",
    ),
    (
        "epsilon_zero",
        ["methods=[laplace]", "grid.epsilon=[0,1]"],
        {"methods": ["laplace"], "grid": {"epsilon": [0, 1]}},
        "grid.epsilon must be > 0 and finite, got 0",
        "grid['epsilon'] must be > 0 and finite, got 0",
    ),
    (
        "alpha_nan",
        ["methods=[ir]", "grid.k=[2,3]", "dataset.alpha=nan"],
        {"methods": ["ir"], "grid": {"k": [2, 3]}, "alpha": float("nan")},
        "dataset.alpha must be a finite number > 0, got nan",
        "alpha must be a finite number > 0, got nan",
    ),
    (
        "empty_axis",
        ["methods=[ir]", "grid.k=[]"],
        {"methods": ["ir"], "grid": {"k": []}},
        "grid.k is empty",
        "grid['k'] is empty",
    ),
    (
        "figure_x_not_an_axis",
        ["methods=[ir]", "grid.k=[2,3]", "figure_x=kk", "figures=auto"],
        {"methods": ["ir"], "grid": {"k": [2, 3]}, "x": "kk", "figures": True},
        "figure_x='kk' is not a grid axis ['k']",
        "x='kk' is not a grid axis ['k']",
    ),
    (
        "nothing_to_draw_against",
        ["methods=[ir]", "grid.k=[2]", "figures=auto"],
        {"methods": ["ir"], "grid": {"k": [2]}, "figures": True},
        "(e.g. grid.epsilon=[0.1,1,10]) or set figures=[]",
        "(e.g. grid['epsilon']=[0.1,1,10]) or set figures=False",
    ),
    (
        "unknown_method",
        ["methods=[nope]"],
        {"methods": ["nope"]},
        "unknown method 'nope'",
        "unknown method 'nope'",
    ),
    (
        "seed_negative",
        ["methods=[ir]", "grid.k=[2]", "seed=-1"],
        {"methods": ["ir"], "grid": {"k": [2]}, "seed": -1},
        "seed must be in 0..",
        "seed must be in 0..",
    ),
]


@pytest.fixture(scope="module")
def data_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("data") / "data.csv"
    FRAME.to_csv(path, index=False)
    return path


@pytest.mark.parametrize(
    ("shell", "python", "said", "in_python"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_both_interfaces_refuse_alike_in_their_own_words(
    shell, python, said, in_python, data_csv, tmp_path, capsys
):
    out = tmp_path / "out"
    base = ["+experiment=study", f"dataset.path={data_csv}", "dataset.numeric=[x,y]"]
    common = ["dataset.domains=data", "metrics=[re]", "reps=1", "n_jobs=1", "figures=[]"]
    assert cli.run([*base, *common, f"results_dir={out}", *shell]) == cli.USAGE_ERROR
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("error: ") and said in line
    kwargs = {"metrics": ["re"], "domains": "data", "reps": 1, "n_jobs": 1, **python}
    if kwargs.get("figures"):
        kwargs["folder"] = tmp_path / "study"
    with pytest.raises((ParameterError, TypeError)) as error:
        anonlab.study(FRAME, **kwargs)
    assert in_python in str(error.value)
    assert not out.exists() and not (tmp_path / "study").exists()  # nothing written


def test_a_single_value_is_a_one_value_list_in_both(data_csv, tmp_path, capsys):
    ours = anonlab.study(FRAME, ["ir"], {"k": 5}, ["re"], reps=1, n_jobs=1)
    argv = [
        "+experiment=study",
        f"dataset.path={data_csv}",
        "dataset.numeric=[x,y]",
        "methods=[ir]",
        "metrics=[re]",
        "grid.k=5",
        "reps=1",
        "n_jobs=1",
        "figures=[]",
        f"results_dir={tmp_path}",
    ]
    assert cli.run(argv) == 0, capsys.readouterr().err
    (stored,) = tmp_path.glob("*/results.parquet")
    theirs = pd.read_parquet(stored)
    assert list(ours["k"]) == list(theirs["k"]) == [5]
    assert list(ours["value"]) == list(theirs["value"])


def test_a_study_inherits_no_grid_and_takes_every_axis_without_a_plus():
    assert compose_config("+experiment=study")["grid"] == {}
    grid = compose_config("+experiment=study", "grid.t=[0.3]", "grid.k=5")["grid"]
    assert grid == {"t": [0.3], "k": 5}
    census = compose_config("+experiment=census_ir", "+grid.k=[3]", "grid.alpha=[1.5]")["grid"]
    assert census["k"] == [3] and census["alpha"] == [1.5]
    assert open_override("~grid.k") == "~grid.k" and open_override("seed=1") == "seed=1"


def test_an_experiments_own_axis_no_chosen_method_takes_is_left_out_with_a_note():
    declared = validate(compose_config("+experiment=census_ir", "methods=[ir]"))
    assert "epsilon" not in declared.grid and set(declared.grid) == {"k", "m"}
    assert declared.notes == ("grid.epsilon left out: no method of this run (['ir']) takes it",)
    with pytest.raises(ParameterError, match="grid.epsilon is not an axis of methods"):
        validate(compose_config("+experiment=census_ir", "methods=[ir]", "grid.epsilon=[1.0]"))
    # its figures draw one series where they drew one per ε; without their x, none
    figure = FigureSpec("f", "re", x="k", facet="m", series="epsilon")
    (kept,), notes = fit_figures([figure], ["re"], ["re"], declared.grid)
    assert (kept.x, kept.facet, kept.series, notes) == ("k", "m", None, [])
    assert fit_figures([figure], ["re"], ["re"], {"m": [1]}) == (
        (),
        ["figure 'f' left out: x=k is not swept in this run"],
    )


def test_every_paper_experiment_declares_only_axes_its_methods_take():
    for path in sorted((CONF_DIR / "experiment").glob("*.yaml")):
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        if not config.get("methods"):
            continue
        taken = {a for m in config["methods"] for a in method_class(m).axes} | set(VIEW_AXES)
        grids = [config.get("grid") or {}]
        grids += [p.get("grid") or {} for p in (config.get("profiles") or {}).values()]
        for grid in grids:
            assert set(grid) <= taken, (path.name, set(grid) - taken)


def test_a_users_k_beyond_the_data_names_k_not_a_method_without_k(tmp_path, capsys):
    two = tmp_path / "two.csv"
    pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]}).to_csv(two, index=False)
    argv = [
        "+experiment=census_ir",
        "dataset=csv",
        f"dataset.path={two}",
        "dataset.numeric=[x,y]",
        "dataset.domains=data",
        "grid.k=[3]",
        "n_jobs=1",
        f"results_dir={tmp_path / 'out'}",
    ]
    assert cli.run(argv) == cli.USAGE_ERROR
    (line,) = capsys.readouterr().err.splitlines()
    assert line == "error: grid.k: [3] exceed the data's 2 records; k must be in 1..2"


def test_the_cached_facts_are_the_classes():
    live = live_components()
    cached = Components.from_json(live.to_json())
    assert cached.to_json() == live.to_json()
    assert {n: set(m.declared) for n, m in cached.methods.items()} == {
        n: set(m.declared) for n, m in live.methods.items()
    }
    assert list(cached.view_axes) == list(live.view_axes) == list(VIEW_AXES)


def test_a_refused_run_reads_no_data_and_imports_no_kernel():
    """``grid.k=[0]`` is refused by the first stage, before NumPy, pandas, numba, joblib
    or matplotlib are imported (the cached facts written first, if missing: twice, should
    the code change in between)."""
    facts = "from anonlab.runner.validate import components; components()"
    probe = (
        "import sys\n"
        "from anonlab import cli\n"
        "status = cli.run(['+experiment=census_ir', 'grid.k=[0]'])\n"
        "heavy = ('numpy', 'pandas', 'numba', 'joblib', 'matplotlib')\n"
        "print([m for m in heavy if m in sys.modules], status)\n"
    )
    for _ in range(2):
        subprocess.run([sys.executable, "-c", facts], cwd=ROOT, check=True)
        done = subprocess.run(
            [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
        )
        if done.stdout.strip() == "[] 2":
            break
    assert done.stderr.strip() == "error: grid.k must be >= 1, got 0"
    assert done.stdout.strip() == "[] 2"


def test_evaluate_and_protect_speak_python():
    frame = FRAME.copy()
    with pytest.raises(ParameterError) as error:
        anonlab.evaluate(frame, frame, ["f_measure"], record_aligned=True)
    assert "pass target={'column': NAME" in str(error.value)
    assert "dataset." not in str(error.value)
    with pytest.raises(ParameterError, match=r"frame's columns must be named by text"):
        anonlab.protect(pd.DataFrame(np.arange(12.0).reshape(4, 3)), "ir", k=2)
    with pytest.raises(ParameterError, match=r"^alpha must be a finite number > 0, got nan"):
        anonlab.protect(frame, "ir", k=2, alpha=float("nan"))


def test_which_keys_the_user_set_is_decided_once_and_recorded(tmp_path):
    """The fit stage's policy (:class:`Given`) is decided by validation alone, from the keys
    the user set: the later stages read it, never the overrides, and ``run.json`` records it
    beside them."""
    from anonlab.runner import build_experiment
    from anonlab.runner.validate import Given

    given = Given.of(["+grid.k=[2,5]", "dataset.path=x.csv", "methods=[mdav]"], False, False)
    assert given.own_data and given.named("methods") and not given.named("metrics")
    assert given.axes({"k": [2, 5], "epsilon": [1.0]}) == {"k"}
    assert Given.of(["grid={k: [2]}"], False, False).axes({"k": [2], "t": [0.1]}) == {"k", "t"}
    assert Given.of([], True, False).axes({"k": [2]}) == {"k"}  # a Python call: every axis
    assert Given.of([], False, True).named("metrics")  # a study: every method and metric
    config = compose_config("+experiment=census_ir", "profile=quick", f"results_dir={tmp_path}")
    declared = validate(config)
    assert declared.given == Given(frozenset({"experiment", "profile", "results_dir"}))
    assert build_experiment(declared).given == {
        "keys": ["experiment", "profile", "results_dir"],
        "every_axis": False,
        "study": False,
    }
