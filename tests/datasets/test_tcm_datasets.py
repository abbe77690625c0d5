"""TCM §8.1–8.2 data sets: Census MCD/HCD, the Patient Discharge stand-in, correlations."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import yaml

from anonlab.datasets import LOADERS, load_dataset
from anonlab.datasets.correlation import METHODS, qi_confidential_correlation
from anonlab.datasets.loaders import read_census
from anonlab.datasets.nhds import (
    COLUMNS,
    NOT_STATED,
    QUASI_IDENTIFIERS,
    complete_discharges,
    read_patient_discharge,
)
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

CONF = Path(__file__).resolve().parents[2] / "conf" / "dataset"
CENSUS_QIS = ["TAXINC", "POTHVAL"]


def dataset_config(name: str) -> dict:
    return yaml.safe_load((CONF / f"{name}.yaml").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def discharge() -> pd.DataFrame:
    """The Patient Discharge stand-in, parsed once for the module."""
    return read_patient_discharge()


@pytest.fixture(scope="module")
def census() -> pd.DataFrame:
    return read_census()


@pytest.mark.parametrize(
    ("name", "confidential"), [("census_mcd", "FEDTAX"), ("census_hcd", "FICA")]
)
def test_census_mcd_hcd_load_with_roles(name, confidential):
    data = load_dataset(dataset_config(name))
    assert data.n == 1080
    assert [a.name for a in data.attributes] == [*CENSUS_QIS, confidential]
    assert [a.role for a in data.attributes] == ["quasi_identifier"] * 2 + ["confidential"]
    assert not any(a.discrete for a in data.attributes)
    assert data.attribute(confidential).domain == (0.0, 1.5 * data.frame[confidential].max())


def test_census_configs_compose_with_hydra(compose_config):
    data = load_dataset(compose_config("dataset=census_hcd")["dataset"])
    assert data.attribute("FICA").role == "confidential" and data.n == 1080


def test_patient_discharge_stand_in_shape(discharge):
    assert "patient_discharge" in LOADERS
    assert discharge.shape == (23_435, 8)
    assert list(discharge.columns) == list(COLUMNS)
    assert all(pd.api.types.is_integer_dtype(t) for t in discharge.dtypes)
    assert not discharge.isna().to_numpy().any()


def test_patient_discharge_only_stated_codes(discharge):
    for field, code in NOT_STATED.items():
        if field in discharge:
            assert not (discharge[field] == code).any(), field
    assert discharge["age"].between(0, 90).all()
    assert set(discharge["sex"]) <= {1, 2}
    assert set(discharge["race"]) <= {1, 2, 3, 4, 5, 6, 8}
    assert set(discharge["marital_status"]) <= {1, 2, 3, 4, 5}
    assert set(discharge["discharge_month"]) <= set(range(1, 13))
    assert set(discharge["admission_type"]) <= {1, 2, 3, 4}
    assert set(discharge["primary_payer"]) <= set(range(1, 11))
    assert (discharge["days_of_care"] >= 1).all()


def test_patient_discharge_is_reproducible_and_in_file_order(discharge):
    pd.testing.assert_frame_equal(read_patient_discharge(), discharge)
    complete = complete_discharges()
    assert len(complete) == 48_532
    other = read_patient_discharge(n=100, seed=1)
    rows = np.sort(np.random.default_rng(1).choice(len(complete), size=100, replace=False))
    pd.testing.assert_frame_equal(other, complete.iloc[rows].reset_index(drop=True))
    assert not other.equals(discharge.head(100))


def test_patient_discharge_loads_through_config(compose_config):
    data = load_dataset(compose_config("dataset=patient_discharge", "dataset.n=500")["dataset"])
    assert data.n == 500
    assert [a.role for a in data.attributes] == ["quasi_identifier"] * 7 + ["confidential"]
    assert data.attributes[-1].name == "days_of_care"


def test_oshpd_path_is_read_unchanged(tmp_path, compose_config):
    frame = pd.DataFrame(
        {"age": [30, 41, 77], "zip": [90048, 90210, 90036], "charge": [1200.5, 88000.0, 4300.0]}
    )
    path = tmp_path / "oshpd.csv"
    frame.to_csv(path, index=False)
    pd.testing.assert_frame_equal(read_patient_discharge(str(path)), frame)
    cfg = compose_config(
        "dataset=patient_discharge",
        f"dataset.path={path}",
        "dataset.attributes=[age,zip,charge]",
        "dataset.integer=[age,zip]",
        "~dataset.roles",
        "+dataset.roles={age:quasi_identifier,zip:quasi_identifier,charge:confidential}",
    )
    data = load_dataset(cfg["dataset"])
    assert data.n == 3 and data.attribute("charge").role == "confidential"


def test_missing_oshpd_path_is_a_clear_error(tmp_path):
    missing = tmp_path / "absent.csv"
    with pytest.raises(ParameterError, match="no such file.*OSHPD"):
        read_patient_discharge(str(missing))
    config = {**dataset_config("patient_discharge"), "path": str(missing)}
    with pytest.raises(ParameterError, match="dataset.path=.*absent.csv"):
        load_dataset(config)


def test_sample_larger_than_complete_records_is_refused():
    with pytest.raises(ParameterError, match="dataset.n must be in 1..48532"):
        read_patient_discharge(n=60_000)


def test_sum_correlation_gives_the_papers_census_figures(census):
    """TCM §8.1: 0.92 and 0.52, but 0.92 is FEDTAX's (the paper's MCD), 0.52 FICA's."""
    fedtax = qi_confidential_correlation(census, CENSUS_QIS, "FEDTAX")
    fica = qi_confidential_correlation(census, CENSUS_QIS, "FICA")
    assert fedtax == pytest.approx(0.92, abs=0.005)
    assert fica == pytest.approx(0.52, abs=0.01)  # 0.5276: 0.52 truncated, 0.53 rounded
    assert np.floor(100 * fica) / 100 == 0.52


@pytest.mark.parametrize("method", sorted(METHODS))
def test_fedtax_is_more_correlated_than_fica_under_every_method(census, method):
    """The data contradict TCM's labelling: FEDTAX (MCD) beats FICA (HCD) everywhere."""
    fedtax = qi_confidential_correlation(census, CENSUS_QIS, "FEDTAX", method)
    fica = qi_confidential_correlation(census, CENSUS_QIS, "FICA", method)
    assert fedtax > fica


def test_stand_in_correlation_is_weak_like_the_paper(discharge):
    r = qi_confidential_correlation(discharge, list(QUASI_IDENTIFIERS), "days_of_care")
    assert r == pytest.approx(0.1156, abs=1e-3)  # TCM §8.2 reports 0.129 for OSHPD
    assert abs(r - 0.129) < 0.02


def test_multiple_correlation_is_regression_r(census):
    r = qi_confidential_correlation(census, CENSUS_QIS, "FICA", "multiple")
    x = census[CENSUS_QIS].to_numpy(float)
    y = census["FICA"].to_numpy(float)
    design = np.column_stack([np.ones(len(y)), x])
    residual = y - design @ np.linalg.lstsq(design, y, rcond=None)[0]
    assert r**2 == pytest.approx(1 - residual.var() / y.var())


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"method": "nope"}, "unknown method 'nope'"),
        ({"confidential": "absent"}, r"columns \['absent'\] are not in the data"),
        ({"qis": []}, "qis is empty"),
    ],
)
def test_correlation_rejects_bad_arguments(census, kwargs, message):
    args = {"qis": CENSUS_QIS, "confidential": "FICA", **kwargs}
    with pytest.raises(ParameterError, match=message):
        qi_confidential_correlation(census, **args)
