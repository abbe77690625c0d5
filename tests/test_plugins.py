"""A grid axis of the data view and a data set are one object each, in one file each: an
axis ``n`` (the first n records, tests/fixtures/plugins/records.py) and a source ``tiny``
(tests/fixtures/plugins/tiny.py). Registered, they are validated, expanded into cells,
selected as views, labelled in figures and checked by the conformance kit with no other
file touched; dropped into a copy of the package, they are discovered."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import ModuleType

import pytest
from scratch import scratch_package, tree_digest

from anonlab import conformance
from anonlab.axes import Axis
from anonlab.datasets import LOADERS, SOURCES, load_dataset, register_source
from anonlab.datasets.axes import VIEW_AXES, register_axis
from anonlab.listing import list_axes, list_sources
from anonlab.plotting import axis_name, value_label
from anonlab.runner import build_experiment
from anonlab.runner.validate import validate
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, and in a process on a copy of the package

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "plugins"
#: the run: IR + Laplace on the tiny data set, over m and the new axis n
BASE = (
    "+experiment=census_ir",
    "dataset.loader=tiny",
    "dataset.name=tiny",
    "dataset.attributes=[x,y,z]",
    "methods=[ir_laplace]",
    "metrics=[re]",
    "grid.k=[2]",
    "grid.epsilon=[1.0]",
    "grid.m=[1,3]",
    "reps=1",
    "n_jobs=1",
    "figures=[]",
    "claims=[]",
)


def _module(name: str) -> ModuleType:
    """The fixture module ``name`` (a file as a contributor writes it)."""
    spec = importlib.util.spec_from_file_location(f"plugin_{name}", FIXTURES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def plugins():
    """The axis ``n`` and the source ``tiny`` registered, as a user's module registers
    them; the registries restored afterwards."""
    axes, sources = dict(VIEW_AXES), dict(SOURCES)
    VIEW_AXES.pop("n", None)  # a contributor's own axis or source of the same name
    SOURCES.pop("tiny", None)  # steps aside for these tests, and is back after them
    n, tiny = register_axis(_module("records").N), register_source(_module("tiny").TINY)
    yield n, tiny
    VIEW_AXES.clear()
    VIEW_AXES.update(axes)
    SOURCES.clear()
    SOURCES.update(sources)


def test_the_new_axis_and_data_set_are_validated(plugins, compose_config, tmp_path):
    base = (*BASE, f"results_dir={tmp_path}")
    declared = validate(compose_config(*base, "grid.n=[10,20.0]"))
    assert declared.grid["n"] == [10, 20] and "tiny" in LOADERS
    # a bad value is one error naming the axis, the value and the cause
    with pytest.raises(ParameterError, match=r"^grid\.n must be >= 1, got 0$"):
        validate(compose_config(*base, "grid.n=[10,0]"))
    with pytest.raises(TypeError, match=r"^grid\.n must be an integer, got 2\.5$"):
        validate(compose_config(*base, "grid.n=[2.5]"))
    with pytest.raises(ParameterError, match=r"grid\.nn is not an axis.*did you mean grid\.n\?"):
        validate(compose_config(*base, "grid.nn=[10]"))


def test_cells_take_the_views_the_new_axis_selects(plugins, compose_config, tmp_path):
    experiment = build_experiment(
        compose_config(*BASE, "grid.n=[10,20]", f"results_dir={tmp_path}")
    )
    (data,) = experiment.datasets
    assert data.name == "tiny" and data.n == 40
    # the data view's axes first, in their registry's order, then the method's
    assert [cell.params for cell in experiment.cells][:2] == [
        (("m", 1), ("n", 10), ("k", 2), ("epsilon", 1.0)),
        (("m", 1), ("n", 20), ("k", 2), ("epsilon", 1.0)),
    ]
    views = {(c.param_dict["m"], c.param_dict["n"]): c.view(data) for c in experiment.cells}
    assert {key: (v.n, len(v.protected)) for key, v in views.items()} == {
        (1, 10): (10, 1),
        (1, 20): (20, 1),
        (3, 10): (10, 3),
        (3, 20): (20, 3),
    }
    assert views[3, 10].attribute("x").domain == data.attribute("x").domain  # public bounds
    assert len({cell.view_key for cell in experiment.cells}) == 4
    assert len({cell.id for cell in experiment.cells}) == 4
    # a process that does not know the axis (a worker, for an axis registered by a call)
    # refuses the cell rather than protect the whole data set
    del VIEW_AXES["n"]
    with pytest.raises(ParameterError, match=r"^n=10 is no axis of method 'ir_laplace'"):
        experiment.cells[0].view(data)
    register_axis(plugins[0])
    # the data's limit: at most its records, said for the axis the user named
    with pytest.raises(ParameterError, match=r"grid\.n: \[50\] exceed the data's 40 records"):
        build_experiment(compose_config(*BASE, "grid.n=[50]", f"results_dir={tmp_path}"))


def test_a_grid_that_leaves_out_an_axis_with_a_default_runs_at_it(
    plugins, compose_config, tmp_path
):
    n, _ = plugins
    VIEW_AXES["n"] = replace(n, default=15)
    experiment = build_experiment(compose_config(*BASE, f"results_dir={tmp_path}"))
    assert {cell.params[:2] for cell in experiment.cells} == {
        (("m", 1), ("n", 15)),
        (("m", 3), ("n", 15)),
    }
    assert {cell.view(experiment.datasets[0]).n for cell in experiment.cells} == {15}


def test_figures_and_listings_name_them_as_declared(plugins):
    assert axis_name("n") == "n (records)"
    assert value_label("n", 10) == "n = 10"
    assert list_axes().loc["n", "of"] == "data view"
    assert "at most the data's records" in list_axes().loc["n", "values"]
    assert list_sources().loc["tiny", "description"].startswith("40 records")


def test_the_conformance_kit_checks_them(plugins):
    assert "n" in conformance.axis_names() and "tiny" in conformance.dataset_names()
    ran = conformance.run_checks(conformance.check_axis("n"), "axis 'n'")
    assert {"bad_values_refused", "limit_refused_above", "views_a_data_set"} <= set(ran)
    ran = conformance.run_checks(conformance.check_dataset("tiny"), "data set 'tiny'")
    assert ran == ["describes_itself", "options_are_reader_keywords", "reads_a_table"]
    frame = load_dataset({"name": "tiny", "loader": "tiny", "attributes": ["x", "y"]}).frame
    assert list(frame.columns) == ["x", "y", "z"]


def test_a_name_is_registered_once(plugins):
    n, tiny = plugins
    assert register_axis(n) is n and register_source(tiny) is tiny  # the same: no change
    with pytest.raises(TypeError, match="data-view axis 'n' is already registered"):
        register_axis(_module("records").N)
    with pytest.raises(TypeError, match="'k' is an axis of the methods"):
        register_axis(Axis("k", int, view=lambda data, k: data))


SCRIPT = """
import json, sys
from pathlib import Path
import pandas as pd
from anonlab.cli import main

results, axis = Path(sys.argv[1]), sys.argv[2]
status = main(["run", *sys.argv[3:], f"results_dir={results}"])
(folder,) = [p.parent for p in results.glob("*/run.json")]
table = pd.read_parquet(folder / "results.parquet")
from anonlab.conformance import check_axis, check_dataset, run_checks
print(json.dumps({
    "status": status,
    "n": sorted(table[axis].unique().tolist()),
    "dtype": str(table[axis].dtype),
    "conforms": [run_checks(check_axis(axis), f"axis {axis!r}"),
                 run_checks(check_dataset("tiny"), "data set 'tiny'")],
}))
"""


@pytest.mark.slow  # a scratch package run end to end
def test_one_new_file_each_is_discovered(tmp_path):
    """In a copy of the package, the two files added to anonlab/datasets/axes/ and
    anonlab/datasets/sources/ run from the command line, validated by the cached facts
    of the code (nothing imported first), and pass the conformance kit."""
    package = tmp_path / "anonlab"
    added = {"datasets/axes": "records.py", "datasets/sources": "tiny.py"}
    live = tree_digest(ROOT / "anonlab", added)
    # the code the cached facts are of is the copy's (PACKAGE_DIR beside provenance.py)
    scratch_package(ROOT / "anonlab", package, added, copied={"provenance.py"})
    # a contributor's own axis 'n' (the guide's example) is in the copy too: the fixture's
    # then takes another name, as a second file with the same name would be refused
    axis = "n" if "n" not in VIEW_AXES else "n_fixture"
    for folder, name in added.items():
        text = (FIXTURES / name).read_text(encoding="utf-8")
        if name == "records.py":
            text = text.replace('Axis(\n    "n",', f'Axis(\n    "{axis}",')
        (package / folder / name).write_text(text, encoding="utf-8")
        assert (package / folder / name).resolve().is_relative_to(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            SCRIPT,
            str(tmp_path / "results"),
            axis,
            *BASE,
            f"grid.{axis}=[10,20]",
        ],
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["status"] == 0 and out["n"] == [10, 20] and out["dtype"] == "Int64"
    assert "views_a_data_set" in out["conforms"][0] and "reads_a_table" in out["conforms"][1]
    assert tree_digest(ROOT / "anonlab", added) == live  # the live package untouched
