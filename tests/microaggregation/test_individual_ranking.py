"""Individual-ranking microaggregation and DP-IR Lemma 1, checked by brute force.

DP-IR §2.1 defines individual ranking (each attribute sorted and cut into groups of k
consecutive values, the last group absorbing the remainder); Lemma 1 bounds the L1 change
of the list of centroids by |x'_i − x_i| / k when one value changes. Every property is
checked on small random columns, including columns with many ties.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anonlab.microaggregation import individual_ranking, ranking_labels
from anonlab.validation import ParameterError
from tests.properties import examples

SETTINGS = settings(max_examples=examples(120))
LEMMA_SETTINGS = settings(max_examples=examples(80))

FLOATS = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)
FEW_INTS = st.integers(0, 3)  # many ties


@st.composite
def n_and_k(draw, max_n: int = 40) -> tuple[int, int]:
    n = draw(st.integers(1, max_n))
    return n, draw(st.integers(1, n))


@st.composite
def column_and_k(draw, max_n: int = 40) -> tuple[np.ndarray, int]:
    """A column of n ≤ max_n floats, or of small integers with many ties, and k in 1..n."""
    n, k = draw(n_and_k(max_n))
    elements = draw(st.sampled_from([FLOATS, FEW_INTS]))
    values = draw(st.lists(elements, min_size=n, max_size=n))
    return np.array(values, dtype=float), k


@st.composite
def matrix_and_k(draw) -> tuple[np.ndarray, int]:
    """An n × m matrix (m in 1..4), each column floats or tied small integers."""
    n, k = draw(n_and_k(25))
    m = draw(st.integers(1, 4))
    columns = []
    for _ in range(m):
        elements = draw(st.sampled_from([FLOATS, FEW_INTS]))
        columns.append(draw(st.lists(elements, min_size=n, max_size=n)))
    return np.array(columns, dtype=float).T, k


def centroid_l1_change(
    values: np.ndarray, i: int, new_value: float, k: int, before: np.ndarray | None = None
) -> float:
    """Σ_j |c'_j − c_j| over rank clusters j when record i takes ``new_value``."""
    if before is None:
        before = individual_ranking(values, k).centroids[:, 0]
    changed = values.copy()
    changed[i] = new_value
    after = individual_ranking(changed, k).centroids[:, 0]
    return float(np.abs(after - before).sum())


# --- ranking_labels -------------------------------------------------------------------


@SETTINGS
@given(n_and_k())
def test_ranking_labels_cut_ranks_into_floor_n_over_k_groups(nk):
    """DP-IR §2.1 / Lemma 1: ranks 0..n−1 form ⌊n/k⌋ runs of consecutive ranks, all of
    size k except the last, of size k..2k−1."""
    n, k = nk
    labels = ranking_labels(n, k)
    assert labels.shape == (n,)
    assert np.all(np.diff(labels) >= 0), "groups must be runs of consecutive ranks"
    sizes = np.bincount(labels)
    assert len(sizes) == n // k
    assert np.all(sizes[:-1] == k)
    assert k <= sizes[-1] <= 2 * k - 1
    assert sizes.sum() == n


@pytest.mark.parametrize(
    ("n", "k", "error"),
    [(5, 0, ParameterError), (5, 6, ParameterError), (5, 1.5, TypeError), (5, True, TypeError)],
)
def test_ranking_labels_rejects_bad_k(n, k, error):
    """k must be an integer in 1..n."""
    with pytest.raises(error):
        ranking_labels(n, k)


# --- individual_ranking on one column -------------------------------------------------


@SETTINGS
@given(column_and_k())
def test_clusters_are_groups_of_consecutive_sorted_values(case):
    """DP-IR §2.1: ⌊n/k⌋ clusters of size k..2k−1, cluster j holding the j-th run of k
    values in sorted order (max of cluster j ≤ min of cluster j+1), ties included."""
    values, k = case
    n = len(values)
    result = individual_ranking(values, k)
    labels = result.labels[:, 0]
    assert result.labels.shape == (n, 1)
    assert result.n_clusters == n // k
    np.testing.assert_array_equal(result.sizes, np.bincount(labels, minlength=n // k))
    assert np.all((result.sizes >= k) & (result.sizes <= 2 * k - 1))
    assert result.sizes.sum() == n

    ordered = np.sort(values)
    starts = np.concatenate([np.cumsum(result.sizes) - result.sizes, [n]])
    for j in range(result.n_clusters):
        members = np.sort(values[labels == j])
        # the multiset of cluster j is exactly the j-th slice of the sorted column
        np.testing.assert_array_equal(members, ordered[starts[j] : starts[j + 1]])
        if j + 1 < result.n_clusters:
            assert members.max() <= values[labels == j + 1].min()


@SETTINGS
@given(column_and_k())
def test_centroids_are_cluster_means_and_release_maps_each_record(case):
    """DP-IR §2.1: centroid j is the mean of cluster j, and X^M replaces every value by
    the centroid of its own cluster (Algorithm 1 step 1)."""
    values, k = case
    result = individual_ranking(values, k)
    labels = result.labels[:, 0]
    means = np.array([values[labels == j].mean() for j in range(result.n_clusters)])
    scale = max(1.0, float(np.abs(values).max()))
    np.testing.assert_allclose(result.centroids[:, 0], means, rtol=1e-12, atol=1e-12 * scale)
    released = result.release()
    assert released.shape == (len(values), 1)
    np.testing.assert_array_equal(released[:, 0], result.centroids[labels, 0])
    # microaggregation by means preserves the column total
    np.testing.assert_allclose(released.sum(), values.sum(), rtol=1e-9, atol=1e-9 * scale)


@SETTINGS
@given(n_and_k())
def test_ties_keep_record_order(nk):
    """DP-IR §2.1 with a stable sort: in a constant column, record r gets rank r, so its
    label is ranking_labels(n, k)[r] and the centroid is the constant."""
    n, k = nk
    result = individual_ranking(np.full(n, 2.0), k)
    np.testing.assert_array_equal(result.labels[:, 0], ranking_labels(n, k))
    np.testing.assert_array_equal(result.centroids, 2.0)


@SETTINGS
@given(n_and_k(), st.data())
def test_equal_values_are_ranked_in_record_order(nk, data):
    """DP-IR §2.1 with a stable sort: among records holding the same value, an earlier
    record never lands in a later cluster, so the partition is a function of the data
    and the record order only."""
    n, k = nk
    values = np.array(data.draw(st.lists(FEW_INTS, min_size=n, max_size=n)), dtype=float)
    labels = individual_ranking(values, k).labels[:, 0]
    for value in np.unique(values):
        assert np.all(np.diff(labels[values == value]) >= 0), value


def test_small_example_by_hand():
    """DP-IR §2.1 on 7 values with k = 3: clusters {1,2,3} and {4,5,6,7} by rank."""
    values = np.array([7.0, 1.0, 5.0, 3.0, 2.0, 6.0, 4.0])
    result = individual_ranking(values, 3)
    np.testing.assert_array_equal(result.labels[:, 0], [1, 0, 1, 0, 0, 1, 1])
    np.testing.assert_array_equal(result.sizes, [3, 4])
    np.testing.assert_allclose(result.centroids[:, 0], [2.0, 5.5])
    np.testing.assert_allclose(result.release()[:, 0], [5.5, 2, 5.5, 2, 2, 5.5, 5.5])


# --- column-wise ----------------------------------------------------------------------


@SETTINGS
@given(matrix_and_k())
def test_matrix_is_microaggregated_column_by_column(case):
    """DP-IR §3.2 / Algorithm 1 step 1: each attribute is ranked independently, so the
    n × m result equals running every column on its own."""
    matrix, k = case
    n, m = matrix.shape
    result = individual_ranking(matrix, k)
    assert result.labels.shape == (n, m)
    assert result.centroids.shape == (n // k, m)
    released = result.release()
    assert released.shape == (n, m)
    for a in range(m):
        alone = individual_ranking(matrix[:, a], k)
        np.testing.assert_array_equal(result.labels[:, a], alone.labels[:, 0])
        np.testing.assert_array_equal(result.centroids[:, a], alone.centroids[:, 0])
        np.testing.assert_array_equal(result.sizes, alone.sizes)
        np.testing.assert_array_equal(released[:, a], alone.release()[:, 0])


# --- DP-IR Lemma 1 --------------------------------------------------------------------


@st.composite
def lemma_case(draw) -> tuple[np.ndarray, int, float, list[float]]:
    """n ≤ 12 values in a domain [0, D], k in 1..n, and extra replacement values in it."""
    n, k = draw(n_and_k(12))
    width = draw(st.sampled_from([1.0, 7.5, 100.0, 1e6]))
    kind = draw(st.sampled_from(["float", "ties", "constant"]))
    if kind == "float":
        elements = st.floats(0.0, width, allow_nan=False)
    elif kind == "ties":
        elements = st.sampled_from([0.0, width / 3, width / 2, width])
    else:
        elements = st.just(draw(st.sampled_from([0.0, width / 2, width])))
    values = np.array(draw(st.lists(elements, min_size=n, max_size=n)), dtype=float)
    extra = draw(st.lists(st.floats(0.0, width, allow_nan=False), max_size=3))
    return values, k, width, extra


@LEMMA_SETTINGS
@given(lemma_case())
def test_lemma_1_centroid_l1_change_is_at_most_change_over_k(case):
    """DP-IR Lemma 1 by brute force: for every record i and replacements x'_i in [0, D]
    (the bounds 0 and D, every data value, midpoints of neighbours in sorted order,
    x_i ± small and large steps, random points),
    Σ_j |c'_j − c_j| ≤ |x'_i − x_i| / k over rank clusters j; hence the L1-sensitivity of
    the centroid list is at most Δ/k with Δ = D."""
    values, k, width, extra = case
    tol = 1e-9 * max(1.0, width)
    ordered = np.sort(values)
    candidates = {0.0, width, *extra, *values.tolist(), *((ordered[:-1] + ordered[1:]) / 2)}
    before = individual_ranking(values, k).centroids[:, 0]
    worst = 0.0
    for i, x in enumerate(values):
        near = {x + width * 1e-3, x - width * 1e-3, x + width / 3, x - width / 3}
        for new in sorted(candidates | {v for v in near if 0.0 <= v <= width}):
            change = centroid_l1_change(values, i, new, k, before)
            assert change <= abs(new - x) / k + tol, (i, x, new, change)
            worst = max(worst, change)
    assert worst <= width / k + tol


@SETTINGS
@given(n_and_k(20), st.sampled_from([1.0, 7.5, 100.0]))
def test_lemma_1_bound_is_attained(nk, width):
    """DP-IR §3.1 extreme case: all records at D and the last one moved to 0 lands in the
    first cluster, changing only its centroid, by D/|cluster 1|; that is exactly Δ/k
    whenever the first cluster has size k, so Δ/k cannot be lowered."""
    n, k = nk
    values = np.full(n, width)
    first_size = k if n // k >= 2 else n
    change = centroid_l1_change(values, n - 1, 0.0, k)
    assert change == pytest.approx(width / first_size, rel=1e-12)
    if n // k >= 2 or n == k:
        assert change == pytest.approx(width / k, rel=1e-12)


def test_repeated_centroids_have_sensitivity_delta_not_delta_over_k():
    """DP-IR Algorithm 1 note: the per-record release X^M (each centroid repeated k times)
    moves by Δ in L1 when one record moves by Δ, which is why one noise draw must be
    shared by the whole cluster instead of one draw per record."""
    n, k, width = 12, 3, 10.0
    values = np.full(n, width)
    changed = values.copy()
    changed[-1] = 0.0
    before = individual_ranking(values, k)
    after = individual_ranking(changed, k)
    assert np.abs(after.centroids - before.centroids).sum() == pytest.approx(width / k)
    assert np.abs(after.release() - before.release()).sum() == pytest.approx(width)
