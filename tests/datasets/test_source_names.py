"""How figures name a data set: a user's file by its stem, never by its loader (``csv``);
the papers' data sets by their own names."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from anonlab.datasets.sources import shown_name
from anonlab.provenance import file_stem

CONFIGS = Path(__file__).resolve().parents[2] / "anonlab" / "conf" / "dataset"
PAPERS = sorted(p for p in CONFIGS.glob("*.yaml") if p.stem != "csv")


def test_a_users_file_is_named_by_its_stem():
    config = {"name": "csv", "loader": "csv", "path": "/tmp/x/patients.csv"}
    assert shown_name(config) == "patients"
    assert shown_name({**config, "path": "~/data/ward-3.v2.csv"}) == "ward-3.v2"
    assert file_stem("/x/y.csv.gz") == "y"  # a compression suffix, then the extension


def test_a_data_set_named_by_the_user_keeps_its_name():
    config = {"name": "people", "loader": "csv", "path": "/tmp/x/patients.csv"}
    assert shown_name(config) == "people"


def test_csv_without_a_file_keeps_its_name():
    assert shown_name({"name": "csv", "loader": "csv", "path": None}) == "csv"


@pytest.mark.parametrize("path", PAPERS, ids=lambda p: p.stem)
def test_the_papers_data_sets_keep_their_names(path):
    config = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert shown_name(config) == config["name"]
    # a file given to a paper's data set (Patient Discharge's OSHPD file) keeps its name
    assert shown_name({**config, "path": "/data/oshpd_2010.csv"}) == config["name"]
