"""Column shapes and column pair trends against their definitions in SDMetrics
(KSComplement, TVComplement, CorrelationSimilarity, ContingencySimilarity), computed
here with scipy and pandas."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import ks_2samp, pearsonr
from scipy.stats.contingency import association

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


def test_pair_trends_by_default_as_before(view):
    # pair_trends of released_of(people) before option pairs existed: unchanged to the bit
    original, attributes = view.protected_values, view.protected_attributes
    for options in ({}, {"pairs": "all"}):
        metric = get_metric("pair_trends", options)
        assert metric.evaluate(original, released_of(view), attributes) == 0.8839411648553904


def test_strong_pair_trends_count_only_the_strongly_correlated_pair():
    # r(x, y) = 38/42 = 19/21, r(x, z) = 4/42, r(y, z) = 20/42 < 0.5: only (x, y) counts;
    # the release moves r(x, y) to 32/42 = 16/21, so its score is 1 − (3/21)/2 = 13/14
    frame = pd.DataFrame(
        {
            "x": [1, 2, 3, 4, 5, 6, 7, 8],
            "y": [2, 1, 4, 3, 6, 5, 8, 7],
            "z": [5, 1, 8, 2, 7, 3, 6, 4],
        }
    )
    view = build_dataset("hand", frame, ["x", "y", "z"])
    x = np.arange(1.0, 9.0)
    released = np.column_stack([x, [1, 2, 3, 4, 8, 7, 6, 5], x])
    attributes = view.protected_attributes
    strong = get_metric("pair_trends", {"pairs": "strong"})
    np.testing.assert_allclose(
        strong.values(view.protected_values, released, attributes), [13 / 14] * 3, rtol=1e-15
    )
    every = get_metric("pair_trends").evaluate(view.protected_values, released, attributes)
    assert every < 0.8  # r(x, z) went from 4/42 to 1: counted by pairs: all only


def test_strong_pair_trends_are_nan_when_no_pair_shows_a_trend(view):
    # the people data: |r| < 0.06 between the numerical attributes, Cramér's V < 0.3 with city
    metric = get_metric("pair_trends", {"pairs": "strong"})
    values = metric.values(view.protected_values, released_of(view), view.protected_attributes)
    assert np.isnan(values).all()
    one = view.protected_attributes[:1]
    assert np.isnan(metric.values(view.protected_values[:, :1], released_of(view)[:, :1], one))


def test_strong_pair_trends_are_sdmetrics_quality_report_score():
    # SDMetrics' report: pairs with real |r| > 0.5, or real Cramér's V > 0.3 of the 2-way
    # table (a numerical column in 10 bins), each scored as alone, then averaged
    rng = np.random.default_rng(5)
    a = rng.normal(0, 1, 200)
    frame = pd.DataFrame(
        {
            "a": a,
            "b": a + rng.normal(0, 0.8, 200),  # r ≈ 0.78 with a
            "d": rng.normal(0, 1, 200),  # no trend with any other column
            "c": np.where(a + rng.normal(0, 0.5, 200) > 0, "hi", "lo"),  # follows a
        }
    )
    view = build_dataset("mixed", frame, list(frame.columns), categorical=["c"])
    original = view.protected_values
    released = original[rng.choice(200, 180)].copy()
    released[:, :3] += rng.normal(0, 0.7, (180, 3))
    released[:40, 3] = released[0, 3]
    scores = []
    for i, j in [(0, 1), (0, 2), (1, 2), (0, 3), (1, 3), (2, 3)]:
        if j < 3:
            r = pearsonr(original[:, i], original[:, j]).statistic
            if abs(r) > 0.5:
                r_ = pearsonr(released[:, i], released[:, j]).statistic
                scores.append(1 - abs(r - r_) / 2)
            continue
        edges = np.histogram_bin_edges(original[:, i], bins=10)
        edges[0], edges[-1] = -np.inf, np.inf
        table = pd.crosstab(np.digitize(original[:, i], edges), original[:, j]).to_numpy()
        if association(table, method="cramer") > 0.3:
            scores.append(contingency_similarity(original, released, i, j, True))
    assert len(scores) == 3  # (a, b), (a, c), (b, c); d shows no trend
    strong = get_metric("pair_trends", {"pairs": "strong"})
    ours = strong.values(original, released, view.protected_attributes)
    np.testing.assert_allclose(ours, [np.mean(scores)] * 4, rtol=1e-13)
