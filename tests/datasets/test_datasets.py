"""Loaders and dataset validation (DP-IR §4.1, DP-UNI §5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset, load_dataset
from anonlab.validation import ParameterError


def test_census_shape_and_domains(compose_config):
    data = load_dataset(compose_config("dataset=census")["dataset"])
    assert data.frame.shape == (1080, 13)
    assert data.attributes[0].name == "AFNLWGT"
    for attr in data.attributes:
        assert attr.domain == (0.0, 1.5 * data.frame[attr.name].max())
        assert not attr.discrete and attr.integer


def test_adult_numeric_has_30162_complete_records(compose_config):
    data = load_dataset(compose_config("dataset=adult_numeric")["dataset"])
    assert data.n == 30_162
    assert [a.name for a in data.attributes] == ["age", "hours-per-week"]
    assert data.attribute("age").domain == (0.0, 1.5 * 90)
    assert all(a.discrete and a.integer for a in data.attributes)


def test_alpha_is_overridable(compose_config):
    data = load_dataset(compose_config("dataset=census", "dataset.alpha=3.0")["dataset"])
    assert data.attribute("AGI").domain[1] == 3.0 * data.frame["AGI"].max()


def test_protect_first_m():
    data = build_dataset(
        "t", pd.DataFrame({"a": [1, 2], "b": [3, 4], "c": [5, 6]}), ["a", "b", "c"]
    )
    assert data.protect_first(2).protected == ("a", "b")
    with pytest.raises(ParameterError, match="m must be in 1..3, got 4"):
        data.protect_first(4)


def test_csv_loads_user_columns(compose_config, user_csv):
    cfg = compose_config("dataset=csv", f"dataset.path={user_csv}", "dataset.numeric=[income,age]")
    data = load_dataset(cfg["dataset"])
    assert data.n == 60 and data.protected == ("income", "age")
    # nothing is inferred from the values: whole numbers are declared, or nothing rounds
    assert not data.attribute("age").integer and not data.attribute("income").integer
    declared = compose_config(
        "dataset=csv",
        f"dataset.path={user_csv}",
        "dataset.numeric=[income,age]",
        "dataset.integer=[age]",
    )
    data = load_dataset(declared["dataset"])
    assert data.attribute("age").integer and not data.attribute("age").integer_from_data
    inferred = load_dataset({**cfg["dataset"], "integer": "data"})
    assert inferred.attribute("age").integer_from_data
    assert not inferred.attribute("income").integer


@pytest.mark.parametrize(
    ("integer", "message"),
    [
        (["income"], r"dataset.integer: column 'income' is declared to hold whole numbers but"),
        (["city"], r"dataset.integer: column 'city' is not a numerical attribute"),
        (5, r"dataset.integer must be a list of column names, true, false or 'data'"),
    ],
)
def test_an_integer_declaration_that_the_data_contradict(
    compose_config, user_csv, integer, message
):
    cfg = compose_config("dataset=csv", f"dataset.path={user_csv}", "dataset.numeric=[income,age]")
    with pytest.raises(ParameterError, match=message):
        load_dataset({**cfg["dataset"], "categorical": ["city"], "integer": integer})


@pytest.mark.parametrize(
    ("frame", "kwargs", "message"),
    [
        (pd.DataFrame({"x": ["1", "two"]}), {}, "column 'x' is declared numeric but holds 'two'"),
        (pd.DataFrame({"x": [1.0, np.nan]}), {}, "'x' has 1 missing value"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"domains": {"x": [0, 1.5]}}, "does not contain"),
        (pd.DataFrame({"x": [1.0, -2.0]}), {"alpha": 0.5}, r"domain \[-1, 0.5\].*does not contain"),
        (pd.DataFrame({"x": [1.0, 2.0]}), {"alpha": 0.5}, "does not contain the data"),
        (pd.DataFrame({"x": [1.0]}), {"roles": {"x": "secret"}}, "dataset.roles.x must be one of"),
        (pd.DataFrame({"y": [1.0]}), {}, "column 'x' is not in the data"),
    ],
)
def test_bad_data_is_refused_with_its_name(frame, kwargs, message):
    with pytest.raises(ParameterError, match=message):
        build_dataset("t", frame, ["x"], **kwargs)


def test_unknown_loader_is_named():
    with pytest.raises(ParameterError, match="unknown dataset.loader 'nope'"):
        load_dataset({"loader": "nope"})


def test_missing_csv_is_named(tmp_path):
    with pytest.raises(ParameterError, match="no such file"):
        load_dataset({"loader": "csv", "path": str(tmp_path / "x.csv"), "numeric": ["a"]})


def test_vendored_tables_are_read_once_and_handed_out_as_copies(tmp_path):
    from anonlab.datasets.sources import base
    from anonlab.datasets.sources.census import CENSUS
    from anonlab.datasets.sources.csv import CSV

    calls = []
    counted = base.Source("counted", lambda: calls.append(1) or CENSUS.reader(), CENSUS.files)
    first = counted.read({})
    first.iloc[0, 0] = -1.0  # the caller's copy
    again = counted.read({})
    assert len(calls) == 1 and again.iloc[0, 0] != -1.0
    assert again.equals(CENSUS.reader())
    path = tmp_path / "mine.csv"  # a user's file is read on every call
    path.write_text("a\n1\n", encoding="utf-8")
    assert CSV.read({"path": str(path)})["a"].tolist() == ["1"]
    path.write_text("a\n2\n", encoding="utf-8")
    assert CSV.read({"path": str(path)})["a"].tolist() == ["2"]
