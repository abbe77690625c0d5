"""Metrics against hand-computed values (DP-IR §4.2, DP-UNI §5)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.datasets import build_dataset
from anonlab.methods.base import Release
from anonlab.metrics import METRICS, AttributeMetric, get_metric
from anonlab.metrics.jsd import equal_bin_counts, js_divergence, value_counts_pair
from anonlab.validation import ParameterError
from tests.properties import examples


def dataset(values: dict[str, list[float]], discrete=False, domains=None):
    return build_dataset(
        "t", pd.DataFrame(values), list(values), discrete=discrete, domains=domains
    )


def test_relative_error_uses_sanity_bound():
    """RE = |a − a'| / max(Dom/100, |a|); Dom = 100 here, so the bound is 1."""
    data = dataset({"x": [0.5, 10.0]}, domains={"x": [0, 100]})
    released = pd.DataFrame({"x": [1.5, 12.0]})
    # (|0.5−1.5|/max(1, 0.5) + |10−12|/10) / 2 = (1 + 0.2) / 2
    assert get_metric("re")(data.frame, released, data) == pytest.approx(0.6)


def test_jsd_identical_is_zero_and_disjoint_is_one():
    p = np.array([[3.0, 0.0, 1.0]])
    assert js_divergence(p, p) == pytest.approx([0.0])
    assert js_divergence(np.array([1.0, 0.0]), np.array([0.0, 1.0])) == pytest.approx(1.0)


def test_jsd_matches_scipy():
    from scipy.spatial.distance import jensenshannon

    rng = np.random.default_rng(0)
    p, q = rng.random(10), rng.random(10)
    assert js_divergence(p, q) == pytest.approx(jensenshannon(p, q, base=2) ** 2)


def test_equal_bins_match_numpy_histogram():
    """100 equal bins over the domain, upper bound in the last bin, like numpy."""
    rng = np.random.default_rng(1)
    values = np.concatenate([rng.uniform(0, 30, 200), [0.0, 30.0]])[:, None]
    counts = equal_bin_counts(values, np.array([0.0]), np.array([30.0]))
    expected, _ = np.histogram(values[:, 0], bins=100, range=(0, 30))
    np.testing.assert_array_equal(counts[0], expected)


def test_jsd_discrete_uses_one_bin_per_value():
    """Moving every value to a neighbouring integer gives disjoint per-value histograms."""
    data = dataset({"x": [1, 1, 2, 2]}, discrete=True)
    moved = pd.DataFrame({"x": [3.0, 3.0, 4.0, 4.0]})
    assert get_metric("jsd")(data.frame, moved, data) == pytest.approx(1.0)
    continuous = dataset({"x": [1, 1, 2, 2]}, domains={"x": [0, 1000]})
    # with 100 bins of width 10 every value stays in bin 0
    assert get_metric("jsd")(continuous.frame, moved, continuous) == pytest.approx(0.0)


def test_sse_is_normalised_by_m():
    data = dataset({"a": [1.0, 2.0], "b": [1.0, 1.0]})
    released = pd.DataFrame({"a": [2.0, 2.0], "b": [4.0, 1.0]})
    assert get_metric("sse")(data.frame, released, data) == pytest.approx((1 + 9) / 2)


def test_variance_change_by_attribute():
    data = dataset({"a": [1.0, 3.0], "b": [0.0, 2.0]})
    released = pd.DataFrame({"a": [0.0, 4.0], "b": [1.0, 1.0]})
    by = get_metric("variance_change").by_attribute(data.frame, released, data)
    assert by == {"a": pytest.approx(3.0), "b": pytest.approx(1.0)}
    assert get_metric("variance_change")(data.frame, released, data) == pytest.approx(2.0)


def test_metrics_cover_only_protected_attributes():
    data = dataset({"a": [1.0, 3.0], "b": [0.0, 2.0]}).protect_first(1)
    released = pd.DataFrame({"a": [1.0, 3.0], "b": [50.0, -50.0]})
    for metric in METRICS.values():
        if isinstance(metric, AttributeMetric):  # a loss is 0 on the same data, a score 1
            same = metric(data.frame, data.frame, data)
            assert same in (0.0, 1.0)
            assert metric(data.frame, released, data) == pytest.approx(same)


def test_unknown_metric_is_named():
    with pytest.raises(ParameterError, match="unknown metric 'rmse'"):
        get_metric("rmse")


def test_jsd_data_range_bins_over_min_max():
    """Original {10, 15}, released {12, 13}: over the domain [0, 1000] (bins of width 10)
    all four values share bin 1; over the data range [10, 15] they are in bins 0, 99, 40
    and 60, so only the data-range reading (option bins=data_range) sees the change."""
    data = dataset({"x": [10.0, 15.0]}, domains={"x": [0, 1000]})
    moved = pd.DataFrame({"x": [12.0, 13.0]})
    assert get_metric("jsd")(data.frame, moved, data) == pytest.approx(0.0)
    assert get_metric("jsd", {"bins": "domain"})(data.frame, moved, data) == pytest.approx(0.0)
    assert get_metric("jsd", {"bins": "data_range"})(data.frame, moved, data) == pytest.approx(1.0)
    assert "jsd_data_range" not in METRICS  # one metric, two readings


# each element drawn as st.one_of(integers, specials) draws it (a branch, then its value:
# the same examples), without the filtered sampled_from that one_of builds at every draw,
# which took about a third of this test's time
values = arrays(
    float,
    st.integers(1, 40),
    elements=st.sampled_from(
        [st.integers(-50, 50).map(float), st.sampled_from([0.5, -2.25, 1e7, -0.0, 3e6])]
    ).flatmap(lambda branch: branch),
)


@settings(max_examples=examples(200))
@given(values, values)
def test_value_counts_pair_is_the_sorted_union(a, b):
    union, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    expected = (
        np.bincount(inverse[: len(a)], minlength=len(union)),
        np.bincount(inverse[len(a) :], minlength=len(union)),
    )
    for got, want in zip(value_counts_pair(a, b), expected, strict=True):
        np.testing.assert_array_equal(got, want)


def test_metrics_shared_per_view_equal_the_direct_computation():
    frame = pd.DataFrame({"a": [1.0, 2.0, 2.0, 7.0, 9.0], "b": [3.0, 1.0, 4.0, 1.0, 5.0]})
    data = build_dataset(
        "t", frame, ["a", "b"], domains={"a": [0, 10], "b": [0, 10]}, discrete=["b"]
    )
    released = frame.to_numpy() + np.array([[0.5, 1.0]])
    for name in ("re", "jsd"):
        metric = get_metric(name)
        direct = metric.evaluate(data.protected_values, released, data.protected_attributes)
        for _ in range(2):  # the second call reads the view's stored reference
            assert metric.of_release(data, Release(data, released)) == direct
