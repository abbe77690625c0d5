"""Column shapes and column pair trends against their definitions in SDMetrics
(KSComplement, TVComplement, CorrelationSimilarity, ContingencySimilarity), computed
here with scipy and pandas."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp, pearsonr

from anonlab.datasets import build_dataset
from anonlab.metrics import get_metric

PEOPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "people.csv"
COLUMNS = ["age", "hours.week", "balance.eur", "city"]


@pytest.fixture(scope="module")
def view():
    return build_dataset("people", pd.read_csv(PEOPLE), COLUMNS, categorical=["city"])


def released_of(view) -> np.ndarray:
    """A release of other size, shifted values and a city moved: no record matches."""
    rng = np.random.default_rng(3)
    rows = rng.choice(view.n, size=view.n - 37, replace=True)
    values = view.protected_values[rows].copy()
    values[:, :3] += rng.normal(0, 3, (len(rows), 3)).round()
    values[:50, 3] = values[0, 3]
    return values


def test_column_shapes_are_ks_and_tv_complements(view):
    original, released = view.protected_values, released_of(view)
    ours = get_metric("column_shapes").values(original, released, view.protected_attributes)
    for j in range(3):  # ks_2samp's exact mode: the ratio rounded once, as ours
        assert ours[j] == 1 - ks_2samp(original[:, j], released[:, j]).statistic
    before = pd.Series(original[:, 3]).value_counts(normalize=True)
    after = pd.Series(released[:, 3]).value_counts(normalize=True)
    tvd = 0.5 * before.sub(after, fill_value=0).abs().sum()
    assert ours[3] == pytest.approx(1 - tvd, rel=1e-14)


def contingency_similarity(original, released, a: int, b: int, numerical: bool) -> float:
    """SDMetrics' ContingencySimilarity, a numerical column discretised first (its
    ``discretize_column``: 10 bins over the original, outer edges at ±∞)."""
    real, synthetic = pd.DataFrame(original[:, [a, b]]), pd.DataFrame(released[:, [a, b]])
    if numerical:
        edges = np.histogram_bin_edges(real[0], bins=10)
        edges[0], edges[-1] = -np.inf, np.inf
        real[0], synthetic[0] = np.digitize(real[0], edges), np.digitize(synthetic[0], edges)
    p = real.groupby([0, 1]).size() / len(real)
    q = synthetic.groupby([0, 1]).size() / len(synthetic)
    return 1 - 0.5 * p.sub(q, fill_value=0).abs().sum()


def test_pair_trends_are_correlation_and_contingency_similarities(view):
    original, released = view.protected_values, released_of(view)
    pairs = {}
    for a in range(4):
        for b in range(a + 1, 4):
            if b == 3:
                pairs[a, b] = contingency_similarity(original, released, a, b, True)
            else:  # 1 − |r − r'| / 2
                r = pearsonr(original[:, a], original[:, b]).statistic
                r_ = pearsonr(released[:, a], released[:, b]).statistic
                pairs[a, b] = 1 - abs(r - r_) / 2
    ours = get_metric("pair_trends").values(original, released, view.protected_attributes)
    per_attribute = [np.mean([v for p, v in pairs.items() if j in p]) for j in range(4)]
    np.testing.assert_allclose(ours, per_attribute, rtol=1e-13)


def test_numerical_pair_trends_are_the_correlation_difference_halved(view):
    numerical = view.protected_attributes[:3]
    original, released = view.protected_values[:, :3], released_of(view)[:, :3]
    trends = get_metric("pair_trends").evaluate(original, released, numerical)
    difference = get_metric("correlation_difference").evaluate(original, released, numerical)
    assert trends == pytest.approx(1 - difference / 2, rel=1e-15)


def test_scores_ignore_record_order_and_are_one_on_the_original(view):
    original, attributes = view.protected_values, view.protected_attributes
    released = released_of(view)
    shuffled = np.random.default_rng(0).permutation(released)
    for name in ("column_shapes", "pair_trends"):
        metric = get_metric(name)
        assert metric.evaluate(original, original, attributes) == 1.0
        assert metric.evaluate(original, shuffled, attributes) == pytest.approx(
            metric.evaluate(original, released, attributes), rel=1e-14
        )
    assert get_metric("pair_trends").values(original[:, :1], released[:, :1], attributes[:1]) == 1
