"""The own-data guide's recipe (docs/guide/own-data.md) on docs/examples/people.csv: negative
values, dotted column names, and two text columns with hierarchy files (city, occupation)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab import cli
from anonlab.datasets import load_dataset
from anonlab.methods import METHODS, make_method

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

EXAMPLES = Path(__file__).resolve().parents[1] / "docs" / "examples"
DATA = [
    "dataset=csv",
    f"dataset.path={EXAMPLES / 'people.csv'}",
    "dataset.numeric=[age,hours.week,balance.eur]",
    "dataset.categorical=[city,occupation]",
    f"dataset.hierarchies={{city: {EXAMPLES / 'city_hierarchy.csv'}, "
    f"occupation: {EXAMPLES / 'occupation_hierarchy.csv'}}}",
    "dataset.domains={balance.eur: [-20000, 20000], age: [0, 120], hours.week: [0, 100]}",
]
# every registered method, a contributor's too, read off its declaration: those of numbers
# only refuse the text columns up front; the synthetic-data baselines (records that are no
# record's release) refuse this recipe's record-by-record metrics (re), and
# tests/methods/test_synthetic.py runs them; those that need categories (PRAM) refuse the
# continuous balance.eur (tests/methods/test_pram.py); every other method runs on the text
# columns
NUMERICAL_ONLY = [name for name, cls in METHODS.items() if cls.numeric_only]
SYNTHETIC = [
    name
    for name, cls in METHODS.items()
    if not cls.numeric_only and "record-aligned" not in cls.tags()
]
CATEGORIES_ONLY = [name for name, cls in METHODS.items() if cls.needs_categories]
CATEGORICAL = [
    name for name in METHODS if name not in (*NUMERICAL_ONLY, *SYNTHETIC, *CATEGORIES_ONLY)
]


def run(
    tmp_path: Path, *overrides: str, axes: tuple[str, ...] = ("k", "epsilon")
) -> tuple[int, str]:
    values = {"k": "[5]", "epsilon": "[1.0]", "t": "[0.2]"}  # an axis of its own: its default
    status = cli.run(
        [
            "+experiment=census_ir",
            *DATA,
            *(f"grid.{axis}={values[axis]}" for axis in axes if axis in values),
            "reps=1",
            "n_jobs=1",
            f"results_dir={tmp_path}",
            *overrides,
        ]
    )
    return status, str(tmp_path)


def test_the_papers_methods_are_sorted_as_their_papers_define_them():
    """MDAV, the t-closeness and the iDP methods average or rank numbers only; the DP-IR
    methods and the original handle taxonomies (DP-IR §3.4)."""
    papers = {"laplace", "ir", "ir_laplace", "imdav", "imdav_laplace", "original"}
    assert papers <= set(CATEGORICAL)
    assert {"mdav", "tclose_merge", "tclose_tfirst", "dp", "dp_um", "idp_ls"} <= set(NUMERICAL_ONLY)


def test_recipe_runs_every_method_that_handles_text_columns(tmp_path, capsys):
    status, _ = run(
        tmp_path,
        f"methods=[{','.join(CATEGORICAL)}]",
        "grid.m=[5]",
        "figures=[]",  # the table is what is checked: no figure to draw
        "run_name=all",
    )
    assert status == 0, capsys.readouterr().err
    table = pd.read_parquet(tmp_path / "all" / "results.parquet")
    assert set(table["method"]) == set(CATEGORICAL) and set(table["m"]) == {5}
    assert table["value"].notna().all()


@pytest.mark.parametrize("method", NUMERICAL_ONLY)
def test_methods_for_numbers_refuse_the_text_columns_before_work(method, tmp_path, capsys):
    status, _ = run(
        tmp_path,
        f"methods=[{method}]",
        "grid.m=[5]",
        "metrics=[sse]",
        "figures=[]",
        axes=METHODS[method].axes,  # exactly the axes it takes
    )
    err = capsys.readouterr().err
    assert status == 2 and err.startswith("error: ") and list(tmp_path.iterdir()) == []
    assert "categorical" in err or "confidential" in err


def test_methods_for_numbers_run_on_the_numeric_columns(tmp_path, capsys):
    roles = (
        "dataset.roles={age: quasi_identifier, hours.week: quasi_identifier, "
        "balance.eur: confidential}"
    )
    status, _ = run(
        tmp_path,
        f"methods=[{','.join(NUMERICAL_ONLY)}]",
        "grid.m=[3]",
        "+grid.t=[0.25]",
        roles,
        "metrics=[sse]",
        "figures=[]",
        "run_name=numeric",
    )
    assert status == 0, capsys.readouterr().err
    table = pd.read_parquet(tmp_path / "numeric" / "results.parquet")
    assert set(table["method"]) == set(NUMERICAL_ONLY)


def test_release_keeps_every_column_of_the_users_frame():
    config = {
        "name": "people",
        "loader": "csv",
        "path": str(EXAMPLES / "people.csv"),
        "numeric": ["age", "hours.week", "balance.eur"],
        "categorical": ["city", "occupation"],
        "hierarchies": {"city": str(EXAMPLES / "city_hierarchy.csv")},
        "domains": {"balance.eur": [-20000, 20000], "age": [0, 120], "hours.week": [0, 100]},
    }
    dataset = load_dataset(config).protect_first(4)  # age, hours, balance, city
    raw = pd.read_csv(EXAMPLES / "people.csv", dtype=str)
    release = (
        make_method("ir_laplace", {"k": 5, "epsilon": 1.0})
        .protect(dataset, np.random.default_rng(0))
        .frame
    )
    assert list(release.columns) == list(raw.columns)
    for unprotected in ("person", "occupation"):
        assert (release[unprotected].astype(str) == raw[unprotected]).all()
    assert (release["balance.eur"] >= -20000).all() and (release["balance.eur"] <= 20000).all()
    concepts = set(dataset.attribute("city").taxonomy.parent)
    assert set(release["city"]) <= concepts


def test_users_data_runs_in_place_of_a_multi_data_set_experiments(tmp_path, capsys):
    """tclose_sse composes HCD, MCD and Patient Discharge: dataset=csv runs the user's data
    set instead, says so, and never runs the paper's data."""
    roles = (
        "dataset.roles={age: quasi_identifier, hours.week: quasi_identifier, "
        "balance.eur: confidential}"
    )
    status = cli.run(
        [
            "+experiment=tclose_sse",
            *DATA,
            roles,
            "grid.t=[0.25]",
            "n_jobs=1",
            f"results_dir={tmp_path}",
            "run_name=tcm",
        ]
    )
    captured = capsys.readouterr()
    assert status == 0, captured.err
    assert "in place of this experiment's data sets" in captured.err
    table = pd.read_parquet(tmp_path / "tcm" / "results.parquet")
    assert set(table["dataset"]) == {"csv"}
    figures = sorted((tmp_path / "tcm" / "figures").glob("*.png"))
    assert figures and all(str(f) in captured.out for f in figures)  # paths are printed
