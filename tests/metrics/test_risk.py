"""Disclosure risk metrics (record linkage, rank linkage, interval disclosure) against
brute-force loops, their tie rule, their refusal of releases without record
correspondence, and the published fall of linkage risk with k on Census."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from reference import SyntheticStandIn
from scipy.stats import rankdata

from anonlab.datasets import build_dataset
from anonlab.methods import make_method
from anonlab.methods.base import Release
from anonlab.metrics import METRICS, get_metric
from anonlab.metrics.risk import interval_disclosure, linkage_probabilities
from anonlab.validation import ParameterError
from tests.properties import examples

RISKS = ("record_linkage", "rank_linkage", "interval_disclosure")


def brute_linkage(original: np.ndarray, released: np.ndarray) -> np.ndarray:
    """Record by record: 1/t if the own released record is among the t nearest."""
    out = np.zeros(len(original))
    for i in range(len(original)):
        d = np.zeros(len(released))
        for j in range(original.shape[1]):  # column by column, as the metric sums
            d = d + (original[i, j] - released[:, j]) ** 2
        nearest = np.flatnonzero(d == d.min())
        if i in nearest:
            out[i] = 1.0 / len(nearest)
    return out


def brute_rank_interval(original: np.ndarray, released: np.ndarray, p: float) -> float:
    """Share of (record, attribute) values inside the rank interval, one at a time."""
    n, m = original.shape
    inside = 0
    for j in range(m):
        ordered = sorted(released[:, j])
        for i in range(n):
            positions = [r for r in range(n) if ordered[r] == released[i, j]]
            centre = (positions[0] + positions[-1]) / 2
            window = [ordered[r] for r in range(n) if abs(r - centre) < p * n / 200]
            low = min([*window, released[i, j]])
            high = max([*window, released[i, j]])
            inside += low <= original[i, j] <= high
    return inside / (n * m)


def frame_of(values: np.ndarray) -> pd.DataFrame:
    return pd.DataFrame(values, columns=[f"a{j}" for j in range(values.shape[1])])


def view_of(values: np.ndarray, **kwargs):
    frame = frame_of(values)
    return build_dataset(
        "t",
        frame,
        list(frame.columns),
        domains={c: [frame[c].min() - 1, frame[c].max() + 1] for c in frame.columns},
        **kwargs,
    )


def release_of(view, values: np.ndarray) -> Release:
    return Release(view, np.asarray(values, dtype=float))


small_ints = st.integers(3, 12).flatmap(
    lambda n: st.tuples(
        arrays(np.float64, (n, 2), elements=st.integers(0, 2).map(float)),
        arrays(np.float64, (n, 2), elements=st.integers(0, 2).map(float)),
    )
)


@settings(max_examples=examples(40))
@given(small_ints, st.sampled_from([8, 64, 2**20]))
def test_linkage_matches_brute_force_with_ties(pair, chunk_bytes):
    """Values in {0, 1, 2}: many exact ties; tiny chunks take one record at a time; the
    k-d tree and the chunked product agree."""
    original, released = pair
    expected = brute_linkage(original, released)
    for search in ("product", "tree"):
        got = linkage_probabilities(original, released, chunk_bytes, search)
        np.testing.assert_array_equal(got, expected)
    assert ((got >= 0) & (got <= 1)).all()


def test_linkage_matches_brute_force_on_real_valued_clusters():
    """Non-integer values (the matrix product rounds) with clusters of identical released
    records, as microaggregation gives, and duplicated originals."""
    rng = np.random.default_rng(4)
    original = rng.normal(size=(150, 3)) * [1.0, 1e3, 1e-2]
    original[100:110] = original[90:100]
    labels = rng.integers(0, 40, size=150)
    released = np.array([original[labels == c].mean(axis=0) for c in range(40)])[labels]
    expected = brute_linkage(original, released)
    for chunk_bytes, search in ((8, "product"), (4096, "product"), (2**20, "tree")):
        got = linkage_probabilities(original, released, chunk_bytes, search)
        np.testing.assert_array_equal(got, expected)
    sizes = np.bincount(labels)[labels]
    assert (got <= 1.0 / sizes + 1e-15).all()  # k-anonymous clusters: at most 1/k


@settings(max_examples=examples(40))
@given(
    arrays(
        np.float64,
        st.tuples(st.integers(2, 15), st.integers(1, 3)),
        elements=st.integers(-5, 5).map(float),
    )
)
def test_identity_release_links_each_record_with_probability_one_over_its_copies(values):
    view = view_of(values)
    release = release_of(view, values)
    _, inverse, counts = np.unique(values, axis=0, return_inverse=True, return_counts=True)
    expected = np.mean(1.0 / counts[inverse.reshape(-1)])
    assert get_metric("record_linkage").of_release(view, release) == pytest.approx(expected)
    assert get_metric("rank_linkage").of_release(view, release) == pytest.approx(expected)
    assert get_metric("interval_disclosure").of_release(view, release) == 1.0
    assert get_metric("interval_disclosure", {"interval": "sd"}).of_release(view, release) == 1.0


def test_record_linkage_standardises_by_the_original_sd():
    rng = np.random.default_rng(2)
    original = rng.normal(size=(40, 2)) * [1.0, 1000.0]
    released = original + rng.normal(size=(40, 2)) * [0.3, 300.0]
    view = view_of(original)
    sd = original.std(axis=0, ddof=1)
    expected = brute_linkage(original / sd, released / sd).mean()
    got = get_metric("record_linkage").of_release(view, release_of(view, released))
    assert got == pytest.approx(expected)
    assert expected != pytest.approx(brute_linkage(original, released).mean())


def test_rank_linkage_is_linkage_on_average_ranks():
    rng = np.random.default_rng(3)
    original = rng.integers(0, 6, size=(60, 3)).astype(float)
    released = original + rng.integers(-1, 2, size=(60, 3))
    view = view_of(original)
    expected = brute_linkage(rankdata(original, axis=0), rankdata(released, axis=0)).mean()
    got = get_metric("rank_linkage").of_release(view, release_of(view, released))
    assert got == pytest.approx(expected)


def test_linkage_uses_the_quasi_identifiers_when_declared():
    """TCM's intruder knows the quasi-identifiers, not the confidential attribute."""
    rng = np.random.default_rng(5)
    original = rng.normal(size=(30, 3))
    released = original.copy()
    released[:, 0] = 0.0  # the only quasi-identifier is fully masked
    view = view_of(original, roles={"a0": "quasi_identifier", "a2": "confidential"})
    release = release_of(view, released)
    assert get_metric("record_linkage").of_release(view, release) == pytest.approx(1 / 30)
    protected = get_metric("record_linkage", {"known": "protected"})
    assert protected.of_release(view, release) == 1.0


@settings(max_examples=examples(30))
@given(small_ints, st.sampled_from([1, 5, 10, 40]))
def test_rank_interval_disclosure_matches_brute_force(pair, p):
    original, released = pair
    got = interval_disclosure(original, released, [], percent=p).mean()
    assert got == pytest.approx(brute_rank_interval(original, released, p))
    assert 0.0 <= got <= 1.0


def test_interval_disclosure_averages_p_from_1_to_10_percent():
    rng = np.random.default_rng(6)
    original = rng.normal(size=(60, 2))
    released = original + rng.normal(scale=0.05, size=(60, 2))
    average = interval_disclosure(original, released, []).mean()
    each = [interval_disclosure(original, released, [], percent=p).mean() for p in (1, 2, 5, 10)]
    assert each == sorted(each)  # wider intervals disclose more
    expected = np.mean([brute_rank_interval(original, released, p) for p in range(1, 11)])
    assert average == pytest.approx(expected)
    sd = original.std(axis=0, ddof=1)
    inside = np.abs(original - released) <= 0.05 * sd  # p = 10: width 10 % of the sd
    sd_version = interval_disclosure(original, released, [], percent=10, interval="sd")
    np.testing.assert_allclose(sd_version, inside.mean(axis=0))


def test_risk_metrics_refuse_releases_without_record_correspondence():
    view = view_of(np.arange(12.0).reshape(6, 2))
    for name in RISKS:
        metric = get_metric(name)
        metric.check(view, make_method("mdav", {"k": 2}))  # record-aligned: accepted
        with pytest.raises(ParameterError, match="synthetic records"):
            metric.check(view, SyntheticStandIn())
        assert "record_correspondence" in metric.requires


def test_risk_metrics_refuse_categorical_attributes():
    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "c": ["a", "b", "a"]})
    view = build_dataset("t", frame, ["x", "c"], categorical={"c": None})
    for name in RISKS:
        with pytest.raises(ParameterError, match="categorical"):
            METRICS[name].check(view, make_method("ir", {"k": 2}))


def test_linkage_risk_falls_as_k_grows_on_census(compose_config):
    """Published behaviour (Domingo-Ferrer & Torra 2001; TCM §8): larger clusters, lower
    linkage risk; k-anonymous microaggregation links at most 1/k of the records. Census as
    TCM's MCD (quasi-identifiers TAXINC, POTHVAL; confidential FEDTAX): IR and MDAV
    protect all three attributes, t-closeness (Algorithm 2, t = 0.25, where t binds) the
    quasi-identifiers; the intruder links on the quasi-identifiers."""
    from anonlab.datasets import load_dataset

    census = load_dataset(compose_config("dataset=census_mcd")["dataset"])
    metric = get_metric("record_linkage")
    rng = np.random.default_rng(0)
    for name in ("ir", "mdav", "tclose_kfirst"):
        risks = [
            metric.of_release(census, make_method(name, {"k": k, "t": 0.25}).protect(census, rng))
            for k in (2, 5, 10)
        ]
        assert risks[0] > risks[1] > risks[2] > 0, (name, risks)
        if name != "ir":  # every released record is shared by its cluster's >= k records
            assert all(r <= 1 / k for r, k in zip(risks, (2, 5, 10), strict=True))
    identity = make_method("original", {}).protect(census, rng)
    assert metric.of_release(census, identity) == 1.0
