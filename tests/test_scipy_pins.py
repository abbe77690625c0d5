"""anonlab's own kernels pinned to the libraries' definitions: Jensen–Shannon divergence
(scipy.spatial.distance.jensenshannon), the ordered EMD (scipy.stats.wasserstein_distance
on bin positions), total variation distance (half the L1 distance, scipy's cityblock),
Clopper–Pearson bounds (scipy.stats.binomtest(...).proportion_ci(method='exact')) and
Welch's t (scipy.stats.ttest_ind(equal_var=False)). Tolerances are relative, 1e-12 or
tighter; the Kolmogorov–Smirnov statistic is pinned in tests/metrics/test_shapes.py."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from scipy.spatial.distance import cityblock, jensenshannon

from anonlab.audit.bounds import clopper_pearson
from anonlab.datasets import build_dataset
from anonlab.metrics import get_metric
from anonlab.metrics.jsd import js_divergence
from anonlab.metrics.shapes import tv_distance
from anonlab.report.claims.stats import ALPHA, Quantity, critical
from anonlab.tcloseness import OrderedEMD

RNG = np.random.default_rng(27)


def test_jsd_is_scipys_jensenshannon_squared_in_bits():
    # anonlab's JSD is the divergence in bits (DP-IR §4.2), scipy's the distance, its root
    p, q = RNG.integers(0, 9, (2, 6, 40)).astype(float)
    p[:, :5] = 0.0  # bins empty on one side
    ours = js_divergence(p, q)
    theirs = np.array([jensenshannon(a, b, base=2) ** 2 for a, b in zip(p, q, strict=True)])
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_binned_jsd_metric_is_scipys_on_numpys_histograms():
    """The compiled pass (100 bins over the domain) against np.histogram + scipy."""
    original = RNG.uniform(0, 50, (500, 2))
    released = np.clip(original + RNG.normal(0, 8, original.shape), 0, 60)
    view = build_dataset(
        "t",
        pd.DataFrame(original, columns=["a", "b"]),
        ["a", "b"],
        domains={"a": [0, 60], "b": [0, 60]},
    )
    ours = get_metric("jsd").values(original, released, view.protected_attributes)
    theirs = [
        jensenshannon(
            np.histogram(original[:, j], 100, (0, 60))[0],
            np.histogram(released[:, j], 100, (0, 60))[0],
            base=2,
        )
        ** 2
        for j in range(2)
    ]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


@pytest.mark.parametrize("ground", ["distinct", "rank"])
def test_ordered_emd_is_wasserstein_on_bin_positions(ground):
    """TCM §2.2: bins at distance |i − j|/(m − 1) make the EMD the 1-Wasserstein distance
    between the cluster's and the data set's bins placed at i/(m − 1)."""
    confidential = RNG.integers(0, 25, 300).astype(float)  # ties
    emd = OrderedEMD(confidential, ground)
    labels = RNG.integers(0, 12, 300)
    position = emd.bins / (emd.m - 1)
    ours = emd.of_partition(labels)
    theirs = [stats.wasserstein_distance(position[labels == c], position) for c in range(12)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_tvd_is_half_scipys_cityblock():
    a = RNG.integers(0, 7, 400).astype(float)
    b = RNG.integers(2, 9, 350).astype(float)
    values = np.union1d(a, b)
    p = (a[:, None] == values).mean(axis=0)
    q = (b[:, None] == values).mean(axis=0)
    assert tv_distance(a, b) == pytest.approx(cityblock(p, q) / 2, rel=1e-14)


def test_clopper_pearson_is_scipys_exact_interval():
    hits = np.array([1, 3, 17, 49, 250, 4999])
    trials = np.array([50, 50, 50, 50, 5000, 5000])
    lower, upper = clopper_pearson(hits, trials, 0.025)
    for i, (x, n) in enumerate(zip(hits, trials, strict=True)):
        exact = stats.binomtest(int(x), int(n)).proportion_ci(0.95, method="exact")
        assert lower[i] == pytest.approx(exact.low, rel=1e-12)
        assert upper[i] == pytest.approx(exact.high, rel=1e-12)


def test_welch_difference_is_scipys_ttest():
    a, b = RNG.normal(1.0, 1.0, 7), RNG.normal(0.0, 3.0, 12)

    def quantity(x: np.ndarray) -> Quantity:
        return Quantity.of(x.mean(), x.std(ddof=1) / np.sqrt(len(x)), len(x) - 1, len(x))

    difference = quantity(a).difference(quantity(b))
    welch = stats.ttest_ind(a, b, equal_var=False)
    assert difference.est[0] / difference.se[0] == pytest.approx(welch.statistic, rel=1e-12)
    assert difference.df[0] == pytest.approx(welch.df, rel=1e-12)
    # the interval's critical value: Student's t quantile at 1 − α/2 (α/(2·tests))
    for tests in (1, 4):
        q = 1 - ALPHA / (2 * tests)
        assert critical(difference.df, tests)[0] == pytest.approx(
            stats.t.ppf(q, welch.df), rel=1e-12
        )
