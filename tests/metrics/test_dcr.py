"""Distance to closest record as SDMetrics defines it (anonlab.metrics.dcr): worked
examples (SDMetrics' own, issue #742), a brute-force loop over every pair with the cap
at 1, constant and categorical columns, and the baseline of random records."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from reference import SyntheticStandIn

from anonlab.datasets import Attribute, build_dataset
from anonlab.metrics import get_metric
from anonlab.metrics.dcr import closest_distances, dcr_baseline_protection, random_records
from anonlab.release import Release

NUMBER = Attribute("a")
CATEGORY = Attribute("c", kind="categorical")


def brute_dcr(released: np.ndarray, original: np.ndarray, attributes) -> np.ndarray:
    """SDMetrics' calculate_dcr, one pair at a time."""
    width = original.max(axis=0) - original.min(axis=0)
    out = []
    for x in released:
        best = np.inf
        for y in original:
            terms = []
            for j, attribute in enumerate(attributes):
                if attribute.categorical or width[j] == 0:
                    terms.append(float(x[j] != y[j]))
                else:
                    terms.append(min(abs(x[j] - y[j]) / width[j], 1.0))
            best = min(best, sum(terms) / len(terms))
        out.append(best)
    return np.array(out)


def test_sdmetrics_worked_example():
    """SDMetrics issue #742: real A = [0, 10, 3, 4, 1] (range 10), synthetic [5]: the
    closest real value is 4, so DCR = 1/10."""
    real = np.array([[0.0], [10.0], [3.0], [4.0], [1.0]])
    assert closest_distances(np.array([[5.0]]), real, [NUMBER]).tolist() == [pytest.approx(0.1)]


def test_the_cap_constant_columns_and_categories_by_hand():
    """Real records (0, 'x'=0, 7) and (10, 'y'=1, 7); the third column is constant."""
    attributes = [NUMBER, CATEGORY, Attribute("k")]
    real = np.array([[0.0, 0.0, 7.0], [10.0, 1.0, 7.0]])
    released = np.array(
        [
            [30.0, 0.0, 7.0],  # (min(30/10, 1) + 0 + 0)/3 vs (1 + 1 + 0)/3
            [4.0, 1.0, 8.0],  # (0.4 + 1 + 1)/3 vs (0.6 + 0 + 1)/3
            [10.0, 1.0, 7.0],  # a copy
        ]
    )
    got = closest_distances(released, real, attributes)
    np.testing.assert_allclose(got, [1 / 3, 1.6 / 3, 0.0])


@pytest.mark.parametrize("seed", range(8))
def test_dcr_matches_a_brute_force_loop(seed):
    """The k-d tree's uncapped nearest distance, and the exact search where it exceeds
    1, against every pair: wide noise puts many records beyond the original's range."""
    rng = np.random.default_rng(seed)
    m = int(rng.integers(1, 5))
    attributes = [CATEGORY if rng.random() < 0.3 else NUMBER for _ in range(m)]
    original = np.column_stack(
        [
            rng.integers(0, 4, 40) if a.categorical else rng.normal(0, 1, 40).round(1)
            for a in attributes
        ]
    )
    if m > 1 and not attributes[-1].categorical:
        original[:, -1] = 2.0  # a constant column
    released = np.column_stack(
        [rng.integers(0, 5, 30) if a.categorical else rng.normal(0, 3, 30) for a in attributes]
    )
    released[:6] = original[:6]
    got = closest_distances(released, original, attributes)
    np.testing.assert_allclose(got, brute_dcr(released, original, attributes), atol=1e-14)


def view_of(values: np.ndarray):
    frame = pd.DataFrame(values, columns=["a", "b"])
    return build_dataset("toy", frame, ["a", "b"], domains=dict.fromkeys(frame, [-100, 100]))


def test_metrics_on_a_copy_and_on_unrelated_records():
    rng = np.random.default_rng(2)
    values = rng.normal(0, 1, (80, 2))
    view = view_of(values)
    copy = Release(view, view.protected_values)
    assert get_metric("dcr").of_release(view, copy) == 0.0
    protection = get_metric("dcr_baseline_protection")
    assert protection.of_release(view, copy, np.random.default_rng(0)) == 0.0
    far = Release(view, view.protected_values + 50.0)  # every record a full range away
    assert get_metric("dcr").of_release(view, far) == 1.0
    assert protection.of_release(view, far, np.random.default_rng(0)) == 1.0  # capped
    noisy = Release(view, view.protected_values + rng.normal(0, 0.05, (80, 2)))
    score = protection.of_release(view, noisy, np.random.default_rng(0))
    assert 0.0 < score < 0.5  # much closer to the original than random records


def test_synthetic_releases_are_measured():
    """No record correspondence needed: a shuffled release of the original records has
    the original's DCR, 0."""
    view = view_of(np.random.default_rng(3).normal(size=(30, 2)))
    method = SyntheticStandIn()
    metric = get_metric("dcr")
    metric.check(view, method)
    release = method.release(view, np.random.default_rng(0))
    assert metric.of_release(view, release) == 0.0


def test_random_records_follow_the_original_ranges_and_values():
    rng = np.random.default_rng(4)
    original = np.column_stack([rng.integers(3, 9, 50), rng.uniform(-2, 5, 50), [0, 2] * 25])
    attributes = [Attribute("i", integer=True), NUMBER, CATEGORY]
    drawn = random_records(original, attributes, 2000, np.random.default_rng(0))
    assert set(drawn[:, 0]) == set(range(int(original[:, 0].min()), int(original[:, 0].max()) + 1))
    assert original[:, 1].min() <= drawn[:, 1].min() and drawn[:, 1].max() <= original[:, 1].max()
    assert len(set(np.round(drawn[:, 1], 9))) > 1000  # real numbers, not the original's
    assert set(drawn[:, 2]) == {0.0, 2.0}


def test_the_baseline_draws_from_a_stream_of_its_own_and_may_be_undefined():
    """The metric generator is left as it was (other metrics draw the same numbers); a
    constant original makes the random records copies: median 0, score NaN (SDMetrics)."""
    constant = np.column_stack([np.full(20, 3.0), np.full(20, 1.0)])
    view = view_of(constant)
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    score = dcr_baseline_protection(view, Release(view, constant + 1.0), rng)
    assert np.isnan(score)
    assert rng.bit_generator.state == before
