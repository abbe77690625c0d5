"""Metrics of distributions, defined without record correspondence (synthetic data):
correlation difference, 2-way marginal TVD, and the F-measure of a release that carries
its own class."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from reference import SyntheticStandIn

from anonlab.datasets import build_dataset
from anonlab.methods.base import Release
from anonlab.metrics import get_metric
from anonlab.metrics.correlation import correlation_difference, pearson
from anonlab.metrics.marginals import marginal_tvd
from tests.properties import examples

DISTRIBUTION = ("correlation_difference", "marginal_tvd", "jsd", "f_measure")


def view_of(values: np.ndarray, low: float = -10.0, high: float = 10.0, **kwargs):
    frame = pd.DataFrame(values, columns=[f"a{j}" for j in range(values.shape[1])])
    return build_dataset(
        "t", frame, list(frame.columns), domains={c: [low, high] for c in frame.columns}, **kwargs
    )


def brute_correlation_difference(a: np.ndarray, b: np.ndarray) -> float:
    pairs = list(combinations(range(a.shape[1]), 2))
    return float(
        np.mean(
            [
                abs(np.corrcoef(a[:, i], a[:, j])[0, 1] - np.corrcoef(b[:, i], b[:, j])[0, 1])
                for i, j in pairs
            ]
        )
    )


def brute_tvd(a: np.ndarray, b: np.ndarray, low: float, high: float, bins: int) -> float:
    """numpy's 2-D histograms over the domain, pair by pair."""
    out = []
    for i, j in combinations(range(a.shape[1]), 2):
        edges = [np.linspace(low, high, bins + 1)] * 2
        p, _, _ = np.histogram2d(a[:, i], a[:, j], bins=edges)
        q, _, _ = np.histogram2d(b[:, i], b[:, j], bins=edges)
        out.append(0.5 * np.abs(p / p.sum() - q / q.sum()).sum())
    return float(np.mean(out))


matrices = st.tuples(st.integers(3, 25), st.integers(2, 4)).flatmap(
    lambda shape: st.tuples(
        arrays(np.float64, shape, elements=st.integers(-10, 10).map(float)),
        arrays(np.float64, shape, elements=st.integers(-10, 10).map(float)),
    )
)


@settings(max_examples=examples(40))
@given(matrices)
def test_properties_identity_symmetry_bounds_and_row_order(pair):
    """0 for the same data, symmetric, bounded, and blind to the order of records (a
    synthetic release's row i is nobody's record i)."""
    a, b = pair
    view = view_of(a)
    attributes = view.protected_attributes
    shuffled = b[np.random.default_rng(0).permutation(len(b))]
    for metric, bound in ((correlation_difference, 2.0), (marginal_tvd, 1.0)):
        ab = np.mean(metric(a, b, attributes))
        assert np.mean(metric(a, a, attributes)) == pytest.approx(0.0, abs=1e-12)
        assert np.mean(metric(b, a, attributes)) == pytest.approx(ab, abs=1e-12)
        assert np.mean(metric(a, shuffled, attributes)) == pytest.approx(ab, abs=1e-12)
        assert -1e-12 <= ab <= bound + 1e-12


@settings(max_examples=examples(40))
@given(matrices)
def test_correlation_difference_matches_corrcoef_pair_by_pair(pair):
    a, b = pair
    if (a.std(axis=0) == 0).any() or (b.std(axis=0) == 0).any():
        return  # corrcoef gives NaN for constant columns; see the next test
    view = view_of(a)
    got = get_metric("correlation_difference")(
        view.frame, pd.DataFrame(b, columns=view.frame.columns), view
    )
    assert got == pytest.approx(brute_correlation_difference(a, b), abs=1e-12)


def test_constant_column_has_correlation_zero():
    """Individual ranking with k = n releases constant columns: r = 0 with the others."""
    a = np.array([[1.0, 2.0, 5.0], [2.0, 4.0, 1.0], [3.0, 7.0, 0.0], [4.0, 8.0, 3.0]])
    b = a.copy()
    b[:, 0] = 2.5
    corr = pearson(b)
    assert corr[0, 1] == corr[0, 2] == 0.0 and corr[0, 0] == 1.0
    r = np.corrcoef(a.T)
    # pairs (0, 1), (0, 2) lose their correlation, (1, 2) is unchanged
    expected = (abs(r[0, 1]) + abs(r[0, 2])) / 3
    assert np.mean(correlation_difference(a, b, [])) == pytest.approx(expected)
    assert (correlation_difference(a[:, :1], b[:, :1], []) == 0).all()  # no pair


@settings(max_examples=examples(40))
@given(matrices, st.sampled_from([10, 32]))
def test_marginal_tvd_matches_numpy_histogram2d(pair, bins):
    a, b = pair
    view = view_of(a)
    metric = get_metric("marginal_tvd", {"bins": bins})
    got = metric.evaluate(a, b, view.protected_attributes)
    assert got == pytest.approx(brute_tvd(a, b, -10.0, 10.0, bins), abs=1e-12)


def test_marginal_tvd_disjoint_is_one_and_per_attribute_is_mean_of_pairs():
    a = np.zeros((4, 3))
    b = np.full((4, 3), 9.0)
    view = view_of(a)
    assert get_metric("marginal_tvd").evaluate(a, b, view.protected_attributes) == 1.0
    c = a.copy()
    c[:, 2] = 9.0  # only the pairs with attribute 2 differ
    values = get_metric("marginal_tvd").values(a, c, view.protected_attributes)
    np.testing.assert_allclose(values, [0.5, 0.5, 1.0])  # pair TVDs 0, 1, 1


def test_marginal_tvd_categorical_by_code():
    frame = pd.DataFrame({"x": [0.0, 1.0, 2.0, 3.0], "c": ["a", "b", "a", "b"]})
    view = build_dataset("t", frame, ["x", "c"], categorical={"c": None}, domains={"x": [0, 4]})
    original = view.protected_values
    swapped = original.copy()
    swapped[:, 1] = original[::-1, 1]  # the same marginal of c, the pairs with x change
    metric = get_metric("marginal_tvd", {"bins": 10})
    assert metric.of_release(view, Release(view, original)) == 0.0
    # x in bins 0, 2, 5, 7: (x, c) pairs (0,a) (1,b) (2,a) (3,b) become (0,b) (1,a) ...
    assert metric.of_release(view, Release(view, swapped)) == 1.0


def test_reference_is_computed_once_per_view():
    rng = np.random.default_rng(1)
    a = rng.uniform(-5, 5, size=(50, 3))
    view = view_of(a)
    for name in ("marginal_tvd", "correlation_difference"):
        metric = get_metric(name)
        first = metric.of_release(view, Release(view, a + 1))
        stored = dict(view.__dict__["_computed"])
        assert metric.of_release(view, Release(view, a + 1)) == first
        assert view.__dict__["_computed"].keys() == stored.keys()
        assert first == pytest.approx(metric.evaluate(a, a + 1, view.protected_attributes))


def labelled(n: int = 90):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"a": rng.uniform(0, 10, n), "b": rng.uniform(0, 10, n)})
    frame["y"] = frame["a"] + rng.normal(scale=0.5, size=n)
    return build_dataset(
        "s", frame, ["a", "b"], target={"column": "y", "threshold": 5, "labels": ["lo", "hi"]}
    )


def test_distribution_metrics_accept_synthetic_releases():
    view = labelled()
    method = SyntheticStandIn()
    release = method.protect(view, np.random.default_rng(0))
    for name in DISTRIBUTION:
        get_metric(name).check(view, method)  # no record correspondence needed
    assert get_metric("correlation_difference").of_release(view, release) == pytest.approx(0)
    assert get_metric("marginal_tvd").of_release(view, release) == 0.0


def test_f_measure_trains_on_the_class_a_synthetic_release_carries():
    """Train on the release with its own class, test on the original (TSTR): shuffled
    records with their classes score as the original; with the classes flipped the
    forest learns the opposite rule."""
    view = labelled()
    metric = get_metric("f_measure")
    release = SyntheticStandIn().protect(view, np.random.default_rng(0))
    shuffled = metric.of_release(view, release, np.random.default_rng(9))
    assert min(shuffled.values()) > 0.75
    flipped = np.where(release.target == "lo", "hi", "lo")
    wrong = metric.of_release(
        view, Release(view, release.values, target=flipped), np.random.default_rng(9)
    )
    assert max(wrong.values()) < 0.25
