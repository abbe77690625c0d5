"""Centroid sensitivities of DP-UM, iDP-LS and iDP-CBLS (iDP §3.1–§3.2.2), by brute force.

iDP §3.1 bounds the change of a cluster mean by (max A − min A)/|C| (DP-UM), Proposition 2
by max{max A − min C, max C − min A}/|C| (iDP-LS), and Proposition 3 bounds the change of
the mean of the pre-processed cluster (one smallest value replaced by the second smallest,
one largest by the second largest, §3.2.2) by Expression (1)/|C| (iDP-CBLS). Each bound is
checked against every single-record change of small random clusters, including clusters
with many ties and values at the domain bounds, and Propositions 2 and 3 are checked to be
attained (the formulas are tight). The pre-processed centroids are compared with a
straightforward reference implementation written here.

The paper's parallel-composition argument holds the clustering fixed. Individual ranking
re-sorts the neighbour data set, so one change can move records between clusters; the
"re-ranking audit" below measures the resulting privacy loss in units of ε. It stays ≤ 1
for DP-UM but not for the local sensitivities of iDP-LS and iDP-CBLS (documented by
concrete examples, not asserted to hold).
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.datasets import Dataset, build_dataset
from anonlab.mechanisms.sensitivity import (
    centroid_global_sensitivity,
    centroid_local_sensitivity,
    cluster_based_local_sensitivity,
)
from anonlab.methods import make_method
from anonlab.methods.idp import Dp, DpUm, IdpCbls, IdpLs
from anonlab.microaggregation import individual_ranking, preprocessed_centroids
from anonlab.validation import ParameterError
from tests.properties import examples

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SETTINGS = settings(max_examples=examples(100))
FEW_SETTINGS = settings(max_examples=examples(50))

LOWS = st.sampled_from([-50.0, 0.0, 3.25])
WIDTHS = st.sampled_from([1.0, 10.0, 250.5])

NAMES = ("dp_um", "idp_ls", "idp_cbls")
METHODS = {"dp_um": DpUm, "idp_ls": IdpLs, "idp_cbls": IdpCbls}
MIN_SIZE = {"dp_um": 1, "idp_ls": 1, "idp_cbls": 3}  # iDP Prop. 3 needs ≥ 3 values
REL = 1e-9  # relative slack on a bound


def tolerance(low: float, high: float) -> float:
    """Absolute slack for float rounding of means of values in [low, high]."""
    return 1e-9 * (1.0 + abs(low) + abs(high))


# --- reference implementations, independent of the library ---------------------------


def mean(values) -> float:
    return math.fsum(values) / len(values)


def reference_preprocessed(values) -> list[float]:
    """iDP §3.2.2: sort, the smallest value takes the second smallest, the largest takes
    the second largest (ties counted: the second smallest of {3, 3, 4} is 3)."""
    ordered = sorted(float(v) for v in values)
    ordered[0] = ordered[1]
    ordered[-1] = ordered[-2]
    return ordered


def reference_centroid(name: str, values) -> float:
    """The released centroid of one cluster: the plain mean (DP-UM, iDP-LS) or the mean of
    the pre-processed cluster (iDP-CBLS)."""
    return mean(reference_preprocessed(values)) if name == "idp_cbls" else mean(values)


def library_centroids_and_sensitivity(name: str, ranking, low, high):
    """``(p, m)`` centroids and per-cluster sensitivities from the library's functions;
    ``low``/``high`` broadcast over the ranking's columns."""
    low = np.atleast_1d(np.asarray(low, dtype=float))
    high = np.atleast_1d(np.asarray(high, dtype=float))
    if name == "dp_um":
        return ranking.centroids, centroid_global_sensitivity(high - low, ranking.sizes)
    if name == "idp_ls":
        return ranking.centroids, centroid_local_sensitivity(
            ranking.smallest(0), ranking.largest(0), low, high, ranking.sizes
        )
    smallest = tuple(ranking.smallest(r) for r in range(3))
    largest = tuple(ranking.largest(r) for r in range(3))
    return preprocessed_centroids(ranking), cluster_based_local_sensitivity(
        smallest, largest, ranking.sizes
    )


def candidate_values(values, low: float, high: float, extra=()) -> np.ndarray:
    """Replacement values z for one record: the domain bounds, every value of the column,
    the midpoints between consecutive sorted values and a few random values.

    This set is exhaustive: the plain and the pre-processed cluster sums are sums of order
    statistics with nonnegative weights (pre-processed: 0, 2, 1, …, 1, 2, 0 on the sorted
    cluster), and every order statistic is nondecreasing in the changed value z. So the
    change of a centroid has the sign of z − x_i and grows with |z − x_i|, and its extremes
    are at z = low and z = high. The other candidates would catch a non-monotone
    implementation.
    """
    ordered = np.sort(np.asarray(values, dtype=float))
    midpoints = (ordered[1:] + ordered[:-1]) / 2
    return np.unique(
        np.concatenate([[low, high], ordered, midpoints, np.asarray(extra, dtype=float)])
    )


# --- strategies ------------------------------------------------------------------------


def either(*branches: st.SearchStrategy) -> st.SearchStrategy:
    """A value of one of ``branches``, drawn as ``st.one_of`` draws it (a branch, then its
    value: the same examples), without the filtered ``sampled_from`` that ``one_of`` builds
    at every draw, which made up about a tenth of this module's time."""
    return st.sampled_from(branches).flatmap(lambda branch: branch)


@st.composite
def columns(draw, min_size: int, max_size: int):
    """``(values, low, high, extra)``: a column of min_size..max_size values in the domain
    [low, high], either drawn from a small set (many ties, bounds possibly among them) or
    floats with the bounds mixed in, and three random values of the domain."""
    low = draw(LOWS)
    high = low + draw(WIDTHS)
    in_domain = st.floats(low, high, allow_nan=False)
    if draw(st.booleans()):
        whole = st.integers(math.ceil(low), math.floor(high)).map(float)
        pool = draw(
            st.lists(
                either(st.sampled_from([low, high]), whole), min_size=1, max_size=3, unique=True
            )
        )
        elements = st.sampled_from(pool)
    else:
        elements = either(in_domain, st.sampled_from([low, high]))
    size = draw(st.integers(min_size, max_size))
    values = np.array(draw(st.lists(elements, min_size=size, max_size=size)), dtype=float)
    extra = draw(st.lists(in_domain, min_size=3, max_size=3))
    return values, low, high, extra


@st.composite
def column_and_k(draw, name: str, min_n: int = 6, max_n: int = 30):
    """A column of n in min_n..max_n values and k in 1..n//2 (3..n//2 for iDP-CBLS)."""
    values, low, high, extra = draw(columns(min_n, max_n))
    k = draw(st.integers(MIN_SIZE[name], len(values) // 2))
    return values, low, high, extra, k


# --- 1. one cluster: every single-record change -----------------------------------------


def single_cluster_changes(name: str, values, low: float, high: float, extra) -> float:
    """Largest |centroid change| over every record replaced by every candidate value."""
    before = reference_centroid(name, values)
    worst = 0.0
    for i in range(len(values)):
        for z in candidate_values(values, low, high, extra):
            changed = values.copy()
            changed[i] = z
            worst = max(worst, abs(reference_centroid(name, changed) - before))
    return worst


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_one_cluster_bound_holds_for_every_change(name, data):
    """iDP §3.1, Prop. 2 and Prop. 3: no single-record change within the domain moves the
    cluster's centroid by more than the sensitivity computed on the original cluster.
    Props. 2 and 3 are attained (tight); the DP-UM bound is attained when the cluster
    holds a domain bound (moving it to the other bound)."""
    values, low, high, extra = data.draw(columns(MIN_SIZE[name], 8))
    ranking = individual_ranking(values, k=len(values))
    assert ranking.n_clusters == 1
    centroid, bound = library_centroids_and_sensitivity(name, ranking, low, high)
    assert centroid.shape == bound.shape == (1, 1)
    bound = float(bound[0, 0])
    tol = tolerance(low, high)
    assert float(centroid[0, 0]) == pytest.approx(reference_centroid(name, values), abs=tol)
    worst = single_cluster_changes(name, values, low, high, extra)
    assert worst <= bound * (1 + REL) + tol
    if name == "dp_um":
        assert bound == pytest.approx((high - low) / len(values), rel=1e-12)
        if low in values or high in values:
            assert worst >= bound * (1 - REL) - tol
    else:
        assert worst >= bound * (1 - REL) - tol


def test_dp_um_bound_is_attained_by_moving_the_lower_bound_to_the_upper():
    """iDP §3.1: in a cluster {min A, …}, moving min A to max A changes the mean by
    exactly (max A − min A)/|C|."""
    low, high = 0.0, 12.0
    values = np.array([low, 5.0, 7.0])
    ranking = individual_ranking(values, k=3)
    bound = centroid_global_sensitivity([high - low], ranking.sizes)
    assert bound.shape == (1, 1) and bound[0, 0] == 4.0
    assert mean([high, 5.0, 7.0]) - mean(values) == pytest.approx(bound[0, 0], rel=1e-15)


def test_prop3_example_changes_attain_expressions_2_and_3():
    """iDP Prop. 3 proof: in {1, 2, 4, 8, 9} (pre-processed {2, 2, 4, 8, 8}, sum 24), the
    smallest value moving above the largest (to 10) gives {2, 4, 8, 9, 10} →
    {4, 4, 8, 9, 9}, sum 34 (Expr. (2): 7 + 2 + 1 = 10); the largest moving below the
    smallest (to 0) gives
    {0, 1, 2, 4, 8} → {1, 1, 2, 4, 4}, sum 12 (Expr. (3): 7 + 4 + 1 = 12)."""
    values = np.array([8.0, 1.0, 9.0, 4.0, 2.0])
    ranking = individual_ranking(values, k=5)
    smallest = tuple(ranking.smallest(r) for r in range(3))
    largest = tuple(ranking.largest(r) for r in range(3))
    bound = cluster_based_local_sensitivity(smallest, largest, ranking.sizes)
    assert bound[0, 0] == pytest.approx(12 / 5, rel=1e-15)
    assert preprocessed_centroids(ranking)[0, 0] == pytest.approx(24 / 5, rel=1e-15)
    assert reference_centroid("idp_cbls", [10.0, 8.0, 9.0, 4.0, 2.0]) == pytest.approx(34 / 5)
    assert reference_centroid("idp_cbls", [8.0, 1.0, 0.0, 4.0, 2.0]) == pytest.approx(12 / 5)
    assert single_cluster_changes("idp_cbls", values, 0.0, 10.0, ()) == pytest.approx(12 / 5)


# --- 2. the pre-processing of iDP §3.2.2 ---------------------------------------------------


@SETTINGS
@given(data=st.data())
def test_preprocessed_centroids_match_the_reference(data):
    """iDP §3.2.2: the library's pre-processed centroid of every individual-ranking cluster
    (k ≥ 3, up to three attributes) is the mean of the reference pre-processed cluster."""
    m = data.draw(st.integers(1, 3))
    n = data.draw(st.integers(3, 30))
    matrix, tol = [], 0.0
    for _ in range(m):
        values, low, high, _ = data.draw(columns(n, n))
        matrix.append(values)
        tol = max(tol, tolerance(low, high))
    matrix = np.array(matrix).T
    k = data.draw(st.integers(3, n))
    ranking = individual_ranking(matrix, k)
    got = preprocessed_centroids(ranking)
    assert got.shape == (n // k, m)
    for a in range(m):
        for j in range(n // k):
            members = matrix[ranking.labels[:, a] == j, a]
            assert got[j, a] == pytest.approx(reference_centroid("idp_cbls", members), abs=tol)


def test_paper_preprocessing_example():
    """iDP §3.2.2: in {3, 3, 3, 4, 5, 6, 6} the second smallest value is 3 and the second
    largest 6, so the pre-processed cluster is the same multiset and the centroid stays
    30/7."""
    values = np.array([6.0, 3.0, 4.0, 6.0, 3.0, 5.0, 3.0])
    assert reference_preprocessed(values) == [3.0, 3.0, 3.0, 4.0, 5.0, 6.0, 6.0]
    ranking = individual_ranking(values, k=len(values))
    assert ranking.smallest(1)[0, 0] == 3.0 and ranking.largest(1)[0, 0] == 6.0
    assert preprocessed_centroids(ranking)[0, 0] == pytest.approx(30 / 7, rel=1e-15)
    assert ranking.centroids[0, 0] == pytest.approx(30 / 7, rel=1e-15)
    # without ties the extremes do move: {1, 4, 5, 9} → {4, 4, 5, 5}
    other = individual_ranking(np.array([9.0, 1.0, 5.0, 4.0]), k=4)
    assert preprocessed_centroids(other)[0, 0] == pytest.approx(18 / 4, rel=1e-15)


def test_preprocessing_needs_clusters_of_three():
    """iDP Prop. 3 assumes clusters of at least three values."""
    with pytest.raises(ParameterError, match="at least 3"):
        preprocessed_centroids(individual_ranking(np.arange(4.0), k=2))


# --- 3. many clusters, held fixed ------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
@SETTINGS
@given(data=st.data())
def test_fixed_clusters_bound_every_centroid_change(name, data):
    """iDP §3.1–§3.2.2 with the clustering of individual ranking held fixed (the record
    keeps its cluster label when its value changes): each per-cluster sensitivity bounds
    the change of its centroid, and Props. 2 and 3 are attained in every cluster. A change
    of record i touches only cluster label(i), whose members are the only inputs of its
    centroid, so the other centroids do not move (parallel composition)."""
    values, low, high, extra, k = data.draw(column_and_k(name))
    ranking = individual_ranking(values, k)
    labels = ranking.labels[:, 0]
    centroids, bound = library_centroids_and_sensitivity(name, ranking, low, high)
    centroids, bound = centroids[:, 0], bound[:, 0]
    members = [np.flatnonzero(labels == j) for j in range(ranking.n_clusters)]
    before = np.array([reference_centroid(name, values[rows]) for rows in members])
    tol = tolerance(low, high)
    np.testing.assert_allclose(centroids, before, rtol=0, atol=tol)
    candidates = candidate_values(values, low, high, extra)
    worst = np.zeros(ranking.n_clusters)
    for j, rows in enumerate(members):
        for position in range(len(rows)):
            for z in candidates:
                cluster = values[rows].copy()
                cluster[position] = z
                worst[j] = max(worst[j], abs(reference_centroid(name, cluster) - before[j]))
    assert np.all(worst <= bound * (1 + REL) + tol)
    if name != "dp_um":
        assert np.all(worst >= bound * (1 - REL) - tol)


# --- 4. re-ranking audit ---------------------------------------------------------------------


def privacy_loss_ratio(name: str, values, low: float, high: float, k: int, extra=()) -> float:
    """L = max over neighbours x' of Σ_j |c_j(x') − c_j(x)| / b_j, in units of ε.

    x' replaces one record of x by a candidate value (see :func:`candidate_values`; the
    same monotonicity argument makes {low, high} exhaustive here, cluster by cluster), the
    clusters of x' are RECOMPUTED by individual ranking, cluster j of x' is matched with
    cluster j of x by rank position (both have n//k clusters of the same sizes), and b_j
    is the mechanism's sensitivity computed at x. With Laplace noise of scale b_j/ε per
    cluster, ε·L is the worst log-ratio of the output densities at x and x'.
    """
    values = np.asarray(values, dtype=float)
    n = len(values)
    centroids, bound = library_centroids_and_sensitivity(
        name, individual_ranking(values, k), low, high
    )
    candidates = candidate_values(values, low, high, extra)
    # every neighbour is one column: record i replaced by candidate z
    neighbours = np.repeat(values[:, None], n * len(candidates), axis=1)
    neighbours[np.repeat(np.arange(n), len(candidates)), np.arange(neighbours.shape[1])] = np.tile(
        candidates, n
    )
    moved, _ = library_centroids_and_sensitivity(name, individual_ranking(neighbours, k), low, high)
    change = np.abs(moved - centroids)  # (p, N) against (p, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(change > tolerance(low, high), change / bound, 0.0)
    return float(ratio.sum(axis=0).max())


@SETTINGS
@given(data=st.data())
def test_dp_um_privacy_loss_with_reranking_is_at_most_one(data):
    """DP-UM stays ε-DP per attribute even though one change re-ranks the column.

    Why: n and k fix the cluster sizes, so |C_j| is the same at x and x'. If x_i rises to
    z, every order statistic of the column is nondecreasing, so every cluster sum S_j
    rises (or stays), and the rises telescope: Σ_j (S_j(x') − S_j(x)) = z − x_i. With
    b_j = (max A − min A)/|C_j|, Σ_j |c_j' − c_j|/b_j = Σ_j |S_j' − S_j|/(max A − min A)
    = |z − x_i|/(max A − min A) ≤ 1, with equality in the first step for every neighbour;
    the worst neighbour moves the value farthest from a bound to that bound."""
    values, low, high, extra, k = data.draw(column_and_k("dp_um"))
    loss = privacy_loss_ratio("dp_um", values, low, high, k, extra)
    assert loss <= 1 + REL
    expected = max(high - values.min(), values.max() - low) / (high - low)
    assert loss == pytest.approx(expected, rel=REL)


@SETTINGS
@given(data=st.data())
def test_idp_ls_privacy_loss_with_reranking_is_at_most_two(data):
    """A bound that does hold for iDP-LS (not 1, see the example below): |C_j|·b_j =
    max{max A − min C_j, max C_j − min A} ≥ (max A − min A)/2, since the two terms add
    up to at least the domain width; with the telescoping of the DP-UM test,
    L ≤ |z − x_i| / ((max A − min A)/2) ≤ 2."""
    values, low, high, extra, k = data.draw(column_and_k("idp_ls"))
    assert privacy_loss_ratio("idp_ls", values, low, high, k, extra) <= 2 + REL


def test_idp_ls_privacy_loss_with_reranking_exceeds_one():
    """A finding, not a property of the paper: the local sensitivities of Prop. 2 do not
    bound the privacy loss once re-ranking is accounted for.

    x = (0, 0, 5, 5), k = 2, domain [0, 10]: clusters {0, 0}, {5, 5}, b = (5, 2.5). Moving
    one 0 to 10 re-ranks to {0, 5}, {5, 10}: the centroids move by 2.5 and 2.5, a loss of
    2.5/5 + 2.5/2.5 = 1.5 (1.5ε for a budget of ε). With the clusters held fixed the same
    change moves only the first centroid, by 5 = b_1, a loss of exactly 1."""
    values = np.array([0.0, 0.0, 5.0, 5.0])
    ranking = individual_ranking(values, 2)
    _, bound = library_centroids_and_sensitivity("idp_ls", ranking, 0.0, 10.0)
    np.testing.assert_allclose(bound[:, 0], [5.0, 2.5])
    assert privacy_loss_ratio("idp_ls", values, 0.0, 10.0, 2) == pytest.approx(1.5)
    changed = individual_ranking(np.array([10.0, 0.0, 5.0, 5.0]), 2)
    np.testing.assert_allclose(changed.centroids[:, 0], [2.5, 7.5])
    assert abs(mean([10.0, 0.0]) - ranking.centroids[0, 0]) == pytest.approx(bound[0, 0])


@pytest.mark.parametrize("p", [2, 4, 6])
def test_idp_cbls_privacy_loss_with_reranking_grows_with_the_number_of_clusters(p):
    """A finding, not a property of the paper: the cluster-based local sensitivities of
    Prop. 3 do not bound the privacy loss once re-ranking is accounted for; the loss can
    grow with the number of clusters.

    x = clusters {j, j, j+1} for j < p, k = 3, domain [0, 10]: the pre-processed centroid
    of each cluster is its median j and Expr. (1)/3 = (1 + 1 + 1)/3 = 1. Moving one 0 to
    10 shifts every cluster by one rank: {0, 1, 1}, {1, 2, 2}, …, {p−1, p, 10}, so every
    median rises by 1 = b_j and the loss is p (pε for a budget of ε)."""
    values = np.concatenate([[j, j, j + 1] for j in range(p)]).astype(float)
    ranking = individual_ranking(values, 3)
    centroids, bound = library_centroids_and_sensitivity("idp_cbls", ranking, 0.0, 10.0)
    np.testing.assert_allclose(centroids[:, 0], np.arange(p))
    np.testing.assert_allclose(bound[:, 0], np.ones(p))
    assert privacy_loss_ratio("idp_cbls", values, 0.0, 10.0, 3) == pytest.approx(p)
    changed = values.copy()
    changed[0] = 10.0
    moved, _ = library_centroids_and_sensitivity(
        "idp_cbls", individual_ranking(changed, 3), 0.0, 10.0
    )
    np.testing.assert_allclose(moved[:, 0], np.arange(1, p + 1))


# --- 5. the methods --------------------------------------------------------------------------


@pytest.mark.parametrize("k", [1, 2])
def test_idp_cbls_rejects_k_below_three(k):
    """iDP Prop. 3 needs clusters of at least three values, so k ≥ 3."""
    with pytest.raises(ParameterError, match="k"):
        IdpCbls(k=k, epsilon=1.0)
    with pytest.raises(ParameterError, match="k"):
        make_method("idp_cbls", {"k": k, "epsilon": 1.0})
    assert IdpCbls(k=3, epsilon=1.0).k == 3


@st.composite
def datasets(draw) -> Dataset:
    """n in 6..30 records, 1..3 numerical attributes with declared domains, all protected."""
    n = draw(st.integers(6, 30))
    frame, domains = {}, {}
    for a in range(draw(st.integers(1, 3))):
        values, low, high, _ = draw(columns(n, n))
        frame[f"a{a}"] = values
        domains[f"a{a}"] = [low, high]
    return build_dataset("t", pd.DataFrame(frame), list(frame), domains=domains)


@pytest.mark.parametrize("name", NAMES)
@FEW_SETTINGS
@given(
    data=st.data(),
    dataset=datasets(),
    epsilon=st.sampled_from([1e-3, 0.5, 5.0, 1e6]),
    seed=st.integers(0, 2**32),
)
def test_methods_release_one_noisy_centroid_per_cluster(name, data, dataset, epsilon, seed):
    """iDP Algorithm 1 with §3.1–§3.2.2: individual-ranking clusters, one release value
    per cluster and attribute shared by its records, Laplace scale = sensitivity/(ε/m)
    per cluster and attribute with the library sensitivity, outputs clipped to the domain
    (iDP §4.1). Clipping to the domain moves a noisy value towards its centroid (which is
    in the domain), so every release is within 60 scales of the right centroid."""
    k = data.draw(st.integers(MIN_SIZE[name], dataset.n), label="k")
    m = len(dataset.protected)
    release = METHODS[name](k=k, epsilon=epsilon).protect(dataset, np.random.default_rng(seed))
    ranking = individual_ranking(dataset.protected_values, k)
    low = np.array([a.domain[0] for a in dataset.protected_attributes])
    high = np.array([a.domain[1] for a in dataset.protected_attributes])
    centroids, sensitivity = library_centroids_and_sensitivity(name, ranking, low, high)
    np.testing.assert_array_equal(release.labels, ranking.labels)
    assert release.scale.shape == (ranking.n_clusters, m)
    np.testing.assert_allclose(release.scale, sensitivity / (epsilon / m), rtol=1e-12)
    released = release.values
    assert released.shape == (dataset.n, m)
    assert np.all(np.isfinite(released))
    assert np.all((released >= low) & (released <= high))
    for a in range(m):
        for j in range(ranking.n_clusters):
            shared = np.unique(released[ranking.labels[:, a] == j, a])
            assert len(shared) == 1
            slack = 60 * release.scale[j, a] + tolerance(low[a], high[a])
            assert abs(shared[0] - centroids[j, a]) <= slack


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("dp_um", [13 / 3, 13 / 3, 13 / 3, 41 / 3, 41 / 3, 41 / 3]),
        ("idp_ls", [13 / 3, 13 / 3, 13 / 3, 41 / 3, 41 / 3, 41 / 3]),
        ("idp_cbls", [2.0, 2.0, 2.0, 11.0, 11.0, 11.0]),  # medians of clusters of three
    ],
)
def test_methods_release_their_own_centroids(name, expected):
    """iDP §3.1/§3.2.1 release cluster means, §3.2.2 the pre-processed means; at a huge ε
    the noise is negligible and the release shows which centroid was used."""
    values = np.array([20.0, 1.0, 10.0, 2.0, 11.0, 10.0])
    dataset = build_dataset("t", pd.DataFrame({"x": values}), ["x"], domains={"x": [0, 30]})
    release = METHODS[name](k=3, epsilon=1e12).protect(dataset, np.random.default_rng(2))
    order = np.argsort(values, kind="stable")
    np.testing.assert_allclose(release.values[order, 0], expected, rtol=1e-9)


def test_dp_releases_every_value_with_the_domain_width_scale():
    """iDP §4.1 DP: noise on every record, scale m·(max A − min A)/ε, clipped, not
    rounded."""
    dataset = build_dataset(
        "t",
        pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "y": [10.0, 20.0, 30.0, 40.0]}),
        ["x", "y"],
        domains={"x": [0, 5], "y": [0, 50]},
    )
    release = Dp(epsilon=2.0).protect(dataset, np.random.default_rng(1))
    np.testing.assert_allclose(release.scale, [2 * 5 / 2.0, 2 * 50 / 2.0])
    assert release.labels is None
    assert np.all((release.values >= [0, 0]) & (release.values <= [5, 50]))
    assert np.any(release.values != np.round(release.values))


@pytest.mark.parametrize(
    ("name", "values", "k", "expected"),
    [
        ("idp_ls", [0.0, 0.0, 5.0, 5.0], 2, 1.5),
        ("idp_cbls", [0.0, 0.0, 1.0, 1.0, 1.0, 2.0, 2.0, 2.0, 3.0, 3.0, 3.0, 4.0], 3, 4.0),
        ("dp_um", [0.0, 0.0, 5.0, 5.0], 2, 1.0),
    ],
)
def test_audit_script_measures_the_same_loss(name, values, k, expected):
    """anonlab.experiments.idp_reranking_audit (which searches only the domain bounds) agrees with
    the exhaustive search above."""
    from anonlab.experiments.idp_reranking_audit import reranking_privacy_loss

    method = make_method(name, {"k": k, "epsilon": 1.0})
    loss = reranking_privacy_loss(method, np.array(values), 0.0, 10.0)
    assert loss == pytest.approx(expected)
    assert loss == pytest.approx(privacy_loss_ratio(name, values, 0.0, 10.0, k))
