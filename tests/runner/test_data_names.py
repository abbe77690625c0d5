"""The names a run's figures show for its data sets (:func:`anonlab.runner.fit.data_names`,
:func:`anonlab.runner.render.shown_data`): a user's file by its stem, while the results
keep the data set's name."""

from __future__ import annotations

from types import SimpleNamespace

import pandas as pd

from anonlab.runner.fit import data_label, data_names
from anonlab.runner.render import shown_data


def _csv(path: str, name: str = "csv") -> dict[str, str]:
    return {"name": name, "loader": "csv", "path": path}


def test_a_users_file_is_shown_by_its_stem():
    datasets = [SimpleNamespace(name="csv")]
    configs = [_csv("/tmp/x/patients.csv")]
    assert data_names(datasets, configs) == {"csv": "patients"}
    assert data_label(datasets, configs) == "patients"


def test_the_papers_data_keep_their_names():
    datasets = [SimpleNamespace(name="census_mcd"), SimpleNamespace(name="census_hcd")]
    configs = [{"name": d.name, "loader": "census"} for d in datasets]
    assert data_names(datasets, configs) == {}
    assert data_label(datasets, configs) == "census_mcd, census_hcd"


def test_two_data_sets_that_would_show_alike_keep_their_names():
    datasets = [SimpleNamespace(name="csv"), SimpleNamespace(name="patients")]
    configs = [_csv("/a/patients.csv"), _csv("/b/other.csv", "patients")]
    assert data_names(datasets, configs) == {}  # two panels "patients" would merge


def test_the_figures_table_is_renamed_and_the_stored_one_is_not():
    table = pd.DataFrame({"dataset": ["csv", "csv", "census"], "value": [1.0, 2.0, 3.0]})
    stored = table.copy()
    shown = shown_data(table, {"csv": "patients"})
    assert list(shown["dataset"]) == ["patients", "patients", "census"]
    pd.testing.assert_frame_equal(table, stored)  # results.parquet's rows untouched
    assert shown_data(table, {}) is table  # the papers' runs draw their own table
