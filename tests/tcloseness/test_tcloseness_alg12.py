"""TCM Algorithms 1 (§5) and 2 (§6) against the definitions and straightforward loops."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from reference import direct_emd

from anonlab.microaggregation import mdav, standardise
from anonlab.tcloseness import OrderedEMD, kfirst
from anonlab.tcloseness.kfirst import k_anonymity_first, tclose_kfirst
from anonlab.tcloseness.merge import (
    EMD_TOLERANCE,
    first_appearance,
    merge_until_t_close,
    tclose_merge,
)
from anonlab.validation import ParameterError
from tests.properties import examples

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SETTINGS = settings(max_examples=examples(60))


def reference_kfirst(qi: np.ndarray, confidential: np.ndarray, k: int, t: float) -> np.ndarray:
    """TCM Algorithm 2 as its pseudo-code, one record at a time, EMDs from the formula."""
    points = standardise(qi)
    remaining = list(range(len(points)))
    labels = np.full(len(points), -1)

    def emd(records: list[int]) -> float:
        return direct_emd(confidential[records], confidential)

    def distance(i: int, point: np.ndarray) -> float:  # Σ_j (p_j − x_j)², in column order
        total = 0.0
        for value, centre in zip(points[i], point, strict=True):
            total += (value - centre) * (value - centre)
        return total

    def farthest(point: np.ndarray) -> int:  # lowest index among ties
        return max(remaining, key=lambda i: (distance(i, point), -i))

    def generate_cluster(x: int) -> list[int]:
        if len(remaining) < 2 * k:
            return list(remaining)
        others = sorted((i for i in remaining if i != x), key=lambda i: (distance(i, points[x]), i))
        cluster = [x, *others[: k - 1]]
        for y in others[k - 1 :]:  # X' \ C in increasing distance from x
            current = emd(cluster)
            if current <= t + EMD_TOLERANCE:
                break
            trials = [(emd([z for z in cluster if z != out] + [y]), out) for out in cluster]
            best = min(value for value, _ in trials)
            out = min(z for value, z in trials if value <= best + EMD_TOLERANCE)
            if best < current - EMD_TOLERANCE:
                cluster = [z for z in cluster if z != out] + [y]
        return cluster

    def assign(cluster: list[int], label: int) -> None:
        for i in cluster:
            labels[i] = label
            remaining.remove(i)

    label = 0
    while remaining:
        x0 = farthest(points[remaining].mean(axis=0))
        assign(generate_cluster(x0), label)
        label += 1
        if remaining:
            assign(generate_cluster(farthest(points[x0])), label)
            label += 1
    return labels


def reference_merge(
    points: np.ndarray, labels: np.ndarray, confidential: np.ndarray, t: float
) -> np.ndarray:
    """TCM Algorithm 1's loop with every EMD and centroid recomputed from the records."""
    clusters = {int(c): list(np.flatnonzero(labels == c)) for c in np.unique(labels)}

    def emd(c: int) -> float:
        return direct_emd(confidential[clusters[c]], confidential)

    while True:
        emds = {c: emd(c) for c in clusters}
        worst_emd = max(emds.values())
        if worst_emd <= t + EMD_TOLERANCE:
            break
        worst = min(c for c in clusters if emds[c] >= worst_emd - EMD_TOLERANCE)
        centre = points[clusters[worst]].mean(axis=0)
        dist = {
            c: float(np.sum((points[clusters[c]].mean(axis=0) - centre) ** 2))
            for c in clusters
            if c != worst
        }
        nearest = min(dist.values())
        near = min(c for c in dist if dist[c] <= nearest + 1e-12 * (1 + nearest))
        keep, drop = min(worst, near), max(worst, near)
        clusters[keep] += clusters.pop(drop)
    out = np.empty(len(labels), dtype=np.int64)
    for c, members in clusters.items():
        out[members] = c
    return first_appearance(out)


def check_partition(labels: np.ndarray, confidential: np.ndarray, k: int, t: float) -> None:
    """Every record in exactly one cluster; every cluster ≥ k records and EMD ≤ t."""
    assert labels.shape == confidential.shape
    assert (labels >= 0).all()
    sizes = np.bincount(labels)
    assert (sizes >= k).all()  # also: labels are 0..c−1 with no empty cluster
    for c in range(len(sizes)):
        assert direct_emd(confidential[labels == c], confidential) <= t + 1e-12


confidential_values = st.one_of(
    st.sampled_from([0.0, 1.0, 2.0, 3.0, 5.0, 8.0]),  # many ties
    st.floats(0, 1000, allow_nan=False).map(lambda v: round(v, 3)),  # mostly distinct
)


@st.composite
def data_sets(draw, max_n: int = 40, small_k: bool = False):
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 3))
    qi = draw(arrays(float, (n, d), elements=st.sampled_from([0.0, 1.0, 2.0, 3.5, 7.0, 10.0])))
    if draw(st.booleans()):
        confidential = draw(arrays(float, n, elements=st.sampled_from([0.0, 1.0, 2.0, 5.0])))
    else:
        confidential = np.array(draw(st.lists(confidential_values, min_size=n, max_size=n)))
    k = draw(st.integers(1, min(n, 3) if small_k else n))
    t = draw(st.floats(0.005, 1.0))
    return qi, confidential, k, t


@SETTINGS
@given(data_sets())
def test_both_algorithms_give_k_anonymous_t_close_partitions(case):
    qi, confidential, k, t = case
    check_partition(tclose_merge(qi, confidential, k, t), confidential, k, t)
    check_partition(tclose_kfirst(qi, confidential, k, t), confidential, k, t)


@settings(SETTINGS, max_examples=examples(150))
@given(
    st.one_of(data_sets(max_n=30), data_sets(max_n=30, small_k=True)),
    st.sampled_from([kfirst._PREFIX, 0, 1, 3]),
)
def test_k_anonymity_first_equals_the_pseudo_code(case, prefix):
    """Also with short sorted prefixes, so the searches beyond the prefix (by bin and over
    the whole pool) are exercised on small data."""
    qi, confidential, k, t = case
    with mock.patch.object(kfirst, "_PREFIX", prefix):
        labels = k_anonymity_first(qi, confidential, k, t)
    np.testing.assert_array_equal(labels, reference_kfirst(qi, confidential, k, t))


@SETTINGS
@given(data_sets())
def test_merging_equals_the_recomputing_loop(case):
    qi, confidential, k, t = case
    points, labels = standardise(qi), mdav(qi, k)
    np.testing.assert_array_equal(
        merge_until_t_close(points, labels, OrderedEMD(confidential), t),
        reference_merge(points, labels, confidential, t),
    )


@SETTINGS
@given(data_sets())
def test_merging_leaves_t_close_clusters_unchanged(case):
    qi, confidential, k, _ = case
    labels = mdav(qi, k)
    t = max(direct_emd(confidential[labels == c], confidential) for c in np.unique(labels))
    t = min(max(t, 1e-9), 1.0)
    merged = merge_until_t_close(standardise(qi), labels, OrderedEMD(confidential), t)
    np.testing.assert_array_equal(merged, first_appearance(labels))


@SETTINGS
@given(data_sets())
def test_with_t_one_algorithm_1_is_plain_mdav(case):
    qi, confidential, k, _ = case
    np.testing.assert_array_equal(
        tclose_merge(qi, confidential, k, 1.0), first_appearance(mdav(qi, k))
    )


@SETTINGS
@given(data_sets())
def test_k_anonymity_first_sizes(case):
    """Every cluster has k records except the last, of k..2k−1 (|X'| < 2k: C = X')."""
    qi, confidential, k, t = case
    sizes = np.bincount(k_anonymity_first(qi, confidential, k, t))
    assert (sizes[:-1] == k).all() and k <= sizes[-1] <= 2 * k - 1


def test_k_anonymity_first_swaps_towards_the_whole_distribution():
    """QIs sorted like the confidential attribute: MDAV pairs neighbours (EMD far above t),
    Algorithm 2 swaps in far records until its first clusters reach t."""
    n, t = 40, 0.3
    values = np.arange(n, dtype=float)
    emd = OrderedEMD(values)
    assert emd.of_records(np.flatnonzero(mdav(values, 2) == 0)) > t
    labels = k_anonymity_first(values, values, 2, t)
    first = np.flatnonzero(labels == 0)
    assert emd.of_records(first) <= t
    assert first.max() > 2 * 2  # not the seed's 2 nearest: records 0 and 1 were swapped out
    np.testing.assert_array_equal(labels, reference_kfirst(values, values, 2, t))


def test_parameters_are_checked():
    qi, confidential = np.arange(10.0), np.arange(10.0)
    for bad_t in (0, -0.1, 1.5, float("nan")):
        for method in (tclose_merge, tclose_kfirst, k_anonymity_first):
            with pytest.raises(ParameterError, match=r"t must be in \(0, 1\]"):
                method(qi, confidential, 2, bad_t)
    for method in (tclose_merge, tclose_kfirst, k_anonymity_first):
        with pytest.raises(ParameterError, match="k must be in 1..10"):
            method(qi, confidential, 11, 0.2)
        with pytest.raises(ParameterError, match="confidential"):
            method(qi, confidential[:-1], 2, 0.2)
    with pytest.raises(TypeError):
        tclose_merge(qi, confidential, 2, "0.2")
