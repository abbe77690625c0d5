"""sdcMicro's individual and global risk and ARX's prosecutor, journalist and marketer
risks (anonlab.metrics.disclosure) against worked examples: sdcMicro's own test of
``indivRisk`` (tests/testthat/test_indivRisk.R), Franconi & Polettini's formulas by hand,
and ARX's models on tables small enough to count."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset
from anonlab.metrics import get_metric
from anonlab.metrics.disclosure import (
    arx_risks,
    individual_risks,
    journalist_risk_of,
    marketer_risk_of,
    measure_risk,
    prosecutor_risk_of,
)
from anonlab.release import Release
from anonlab.validation import ParameterError

#: sdcMicro's test_indivRisk.R: three key variables and sampling weights of 8 records
SDCMICRO = pd.DataFrame(
    {
        "A": [2, 3, 2, 2, 3, 3, 1, 2],
        "B": [3, 3, 3, 3, 3, 3, 4, 3],
        "C": [1, 3, 1, 2, 1, 1, 1, 1],
        "weight": [18.0, 45.5, 39.0, 17.0, 92.0, 8.0, 123.5, 51.0],
    }
)
#: indivRisk(freqCalc(..., w = 4), method = "approx", survey = TRUE)$rk, as printed there
SDCMICRO_WEIGHTED = [
    0.01369863,
    0.08579129,
    0.01369863,
    0.17707583,
    0.01877883,
    0.01877883,
    0.03931625,
    0.01369863,
]


def test_sdcmicro_worked_example_with_weights():
    measured = measure_risk(SDCMICRO, ["A", "B", "C"], weights="weight")
    np.testing.assert_allclose(measured.risk, SDCMICRO_WEIGHTED, atol=5e-9)
    np.testing.assert_array_equal(measured.fk, [3, 1, 3, 1, 2, 2, 1, 3])
    np.testing.assert_array_equal(measured.Fk, [108, 45.5, 108, 17, 100, 100, 123.5, 108])
    assert measured.global_risk_ER == pytest.approx(sum(SDCMICRO_WEIGHTED), abs=1e-7)
    assert measured.global_risk == pytest.approx(sum(SDCMICRO_WEIGHTED) / 8, abs=1e-8)
    assert measured.global_risk_pct == pytest.approx(100 * measured.global_risk)


def test_sdcmicro_worked_example_without_weights_is_one_over_the_class_size():
    """sdcMicro without ``w`` (and the same example's survey = FALSE): r = 1/f_k."""
    measured = measure_risk(SDCMICRO, ["A", "B", "C"])
    expected = [1 / 3, 1, 1 / 3, 1, 1 / 2, 1 / 2, 1, 1 / 3]
    np.testing.assert_allclose(measured.risk, expected)
    assert measured.global_risk_ER == pytest.approx(5.0)  # the 5 classes
    ones = measure_risk(SDCMICRO, ["A", "B", "C"], weights=np.ones(8))
    np.testing.assert_array_equal(ones.risk, measured.risk)  # f_k = F_k: 1/f_k


def test_each_branch_of_the_negative_binomial_approximation_by_hand():
    """Franconi & Polettini 2004 as sdcMicro's indivRisk (approx): f = 1, 2, > 2."""
    p = 1 / 4
    unique = p / (1 - p) * math.log(1 / p)  # f = 1, F = 4
    p2 = 2 / 5
    pair = p2 / (1 - p2) - (p2 / (1 - p2)) ** 2 * math.log(1 / p2)  # f = 2, F = 5
    p3 = 3 / 12
    triple = p3 / (3 - (1 - p3))  # f = 3, F = 12
    got = individual_risks(np.array([1, 2, 3, 4]), np.array([4, 5, 12, 4]))
    np.testing.assert_allclose(got, [unique, pair, triple, 1 / 4])
    assert unique == pytest.approx(0.4620981203732969)
    # more population units per record never raise a class's risk
    assert (np.diff(individual_risks(np.full(5, 2.0), np.array([2, 3, 6, 20, 200]))) < 0).all()


def test_arx_prosecutor_risk_by_hand():
    sizes = np.array([1, 2, 3, 4])  # 10 records in 4 classes
    risk = prosecutor_risk_of(sizes, threshold=0.3)
    assert risk.highest_risk == 1.0 and risk.lowest_risk == 0.25
    assert risk.success_rate == pytest.approx(4 / 10)  # classes / records
    assert risk.records_at_risk == pytest.approx(6 / 10)  # 1, 1/2, 1/3 > 0.3
    assert prosecutor_risk_of(sizes, threshold=0.2).records_at_risk == 1.0  # 1/4 > 0.2
    assert prosecutor_risk_of(sizes, threshold=0.5).records_at_risk == pytest.approx(0.1)


def test_arx_journalist_and_marketer_with_a_population_table():
    """Sample classes a (1 record) and b (2); population a (4) and b (2)."""
    sample = pd.DataFrame({"key": ["a", "b", "b"]})
    population = pd.DataFrame({"key": ["a"] * 4 + ["b"] * 2 + ["c"] * 7})
    risks = arx_risks(sample, ["key"], threshold=0.3, population=population)
    journalist = risks.journalist
    assert journalist.highest_risk == 0.5 and journalist.lowest_risk == 0.25
    assert journalist.records_at_risk == pytest.approx(2 / 3)  # class b: 1/2 > 0.3
    # max(classes / Σ F, Σ f/F / n) = max(2/6, (1/4 + 2/2)/3)
    assert journalist.success_rate == pytest.approx(1.25 / 3)
    assert risks.marketer == pytest.approx(1.25 / 3)
    # the prosecutor knows the person is in the sample
    assert risks.prosecutor.highest_risk == 1.0
    assert risks.prosecutor.success_rate == pytest.approx(2 / 3)


def test_without_a_population_table_the_journalist_is_the_prosecutor():
    rng = np.random.default_rng(0)
    data = pd.DataFrame(rng.integers(0, 3, (60, 3)), columns=list("xyz"))
    risks = arx_risks(data, list("xyz"))
    assert risks.journalist == risks.prosecutor
    assert risks.marketer == pytest.approx(risks.prosecutor.success_rate)
    sizes = data.groupby(list("xyz")).size().to_numpy()
    assert journalist_risk_of(sizes, sizes) == prosecutor_risk_of(sizes)
    assert marketer_risk_of(sizes) == pytest.approx(len(sizes) / 60)


def census_like(n: int = 60) -> tuple:
    rng = np.random.default_rng(3)
    frame = pd.DataFrame(
        {
            "age": rng.integers(20, 70, n),
            "zip": rng.integers(0, 6, n),
            "income": rng.normal(50, 10, n).round(1),
        }
    )
    view = build_dataset(
        "toy",
        frame,
        ["age", "zip", "income"],
        domains={"age": [0, 100], "zip": [0, 10], "income": [0, 200]},
        roles={"age": "quasi_identifier", "zip": "quasi_identifier", "income": "confidential"},
    )
    return frame, view


def test_the_metrics_agree_with_the_functions_and_with_each_other():
    """In a run no data set has weights or a population table: sdcMicro's individual risk
    is 1/f_k, so its highest is the prosecutor's highest risk and its global risk (a
    share) the prosecutor's, journalist's and marketer's success rate."""
    frame, view = census_like()
    release = Release(view, view.protected_values)  # the original file: keys age, zip
    expected = measure_risk(frame, ["age", "zip"])
    value = {
        name: get_metric(name).of_release(view, release)
        for name in ("individual_risk", "global_risk", "marketer_risk")
    }
    assert value["individual_risk"] == expected.risk.max() == 1.0
    assert value["global_risk"] == pytest.approx(expected.global_risk)
    expected_er = get_metric("global_risk", {"scale": "expected"}).of_release(view, release)
    assert expected_er == pytest.approx(expected.global_risk_ER)
    arx = arx_risks(frame, ["age", "zip"], threshold=0.2)
    for measure in ("highest_risk", "records_at_risk", "success_rate"):
        for model in ("prosecutor_risk", "journalist_risk"):
            metric = get_metric(model, {"measure": measure})
            assert metric.of_release(view, release) == pytest.approx(
                getattr(arx.prosecutor, measure)
            )
    assert value["marketer_risk"] == pytest.approx(value["global_risk"])
    # every protected attribute as a key: the confidential income makes most records unique
    protected = get_metric("global_risk", {"known": "protected"}).of_release(view, release)
    assert protected > value["global_risk"]


def microaggregated(values: np.ndarray, k: int) -> np.ndarray:
    """Records sorted by their first attribute in groups of k (the last k..2k−1), each
    released as its group's centroid, as a fixed-size microaggregation releases them."""
    order = np.argsort(values[:, 0], kind="stable")
    groups = np.minimum(np.arange(len(values)) // k, len(values) // k - 1)
    released = np.empty_like(values, dtype=float)
    for g in np.unique(groups):
        rows = order[groups == g]
        released[rows] = values[rows].mean(axis=0)
    return released


@pytest.mark.parametrize("k", [2, 3, 5])
def test_a_microaggregated_release_bounds_the_risks_by_one_over_k(k):
    """Each group of at least k records is released as its centroid: every released key
    combination is shared by at least k records, so no record's risk exceeds 1/k."""
    _, view = census_like(61)
    release = Release(view, microaggregated(view.protected_values, k))
    highest = get_metric("prosecutor_risk").of_release(view, release)
    assert highest <= 1 / k
    assert get_metric("individual_risk").of_release(view, release) == highest
    at_risk = get_metric("prosecutor_risk", {"measure": "records_at_risk", "threshold": 0.5})
    assert at_risk.of_release(view, release) == 0.0  # 1/k ≤ 1/2
    original = Release(view, view.protected_values)
    assert get_metric("global_risk").of_release(view, release) < get_metric(
        "global_risk"
    ).of_release(view, original)


def test_bad_inputs_are_one_error_naming_the_parameter():
    with pytest.raises(ParameterError, match=r"keys: 'zip' is not a column"):
        measure_risk(SDCMICRO, ["A", "zip"])
    with pytest.raises(ParameterError, match=r"keys: 'D' is not a column"):
        arx_risks(SDCMICRO, ["D"])
    with pytest.raises(ParameterError, match="keys: give a non-empty list"):
        measure_risk(SDCMICRO, [])
    bad = SDCMICRO.assign(weight=[18.0, 45.5, 0.0, 17.0, 92.0, 8.0, 123.5, 51.0])
    with pytest.raises(ParameterError, match="weights: record 2 has weight 0.0"):
        measure_risk(bad, ["A", "B", "C"], weights="weight")
    with pytest.raises(ParameterError, match="weights: record 0 has weight -1.0"):
        measure_risk(SDCMICRO, ["A"], weights=[-1.0] * 8)
    with pytest.raises(ParameterError, match="weights: 'w' is not a column"):
        measure_risk(SDCMICRO, ["A"], weights="w")
    with pytest.raises(ParameterError, match="weights: 3 values for 8 records"):
        measure_risk(SDCMICRO, ["A"], weights=[1, 2, 3])
    with pytest.raises(ParameterError, match=r"threshold: .* \(0, 1\], got 0"):
        arx_risks(SDCMICRO, ["A"], threshold=0)
    with pytest.raises(ParameterError, match=r"population: 'B' is not a column"):
        arx_risks(SDCMICRO, ["A", "B"], population=SDCMICRO[["A"]])
    with pytest.raises(ParameterError, match=r"population: the sample's class \{'A': 1\} has 1"):
        arx_risks(SDCMICRO, ["A"], population=SDCMICRO[SDCMICRO["A"] > 1])
