"""Insensitive microaggregation and [17]'s release (DP-IR §2.4, §3.1, §4.4), brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.datasets import build_dataset
from anonlab.methods import make_method
from anonlab.microaggregation import cluster_means, insensitive_labels, mdav, ranking_labels
from tests.properties import examples

SETTINGS = settings(max_examples=examples(80))
D = 10.0  # every attribute's domain is [0, D]


def clusters(labels: np.ndarray) -> list[set[int]]:
    return [set(np.flatnonzero(labels == j)) for j in range(labels.max() + 1)]


cases = st.integers(2, 14).flatmap(
    lambda n: st.tuples(
        arrays(
            float,
            st.tuples(st.just(n), st.integers(1, 3)),
            elements=st.sampled_from([0.0, 1.0, 2.5, 5.0, 7.5, 9.0, D]),
        ),
        st.integers(1, n),
        st.integers(0, n - 1),
    )
)
replacements = st.lists(st.sampled_from([0.0, 0.5, 3.0, 5.0, 8.0, D]), min_size=1, max_size=3)


@SETTINGS
@given(cases, replacements)
def test_one_record_change_moves_each_cluster_by_at_most_one_record(case, new_value):
    """DP-IR §2.4: for neighbouring data sets each insensitive cluster differs in at most
    one record; its centroid moves by at most Δ(A)/k per attribute, so the centroid list
    by at most ⌊n/k⌋·Δ(A)/k (DP-IR §3.1)."""
    values, k, i = case
    m = values.shape[1]
    low, width = np.zeros(m), np.full(m, D)
    before = insensitive_labels(values, low, width, k)
    changed = values.copy()
    changed[i] = (new_value * m)[:m]
    after = insensitive_labels(changed, low, width, k)
    for old, new in zip(clusters(before), clusters(after), strict=True):
        assert len(old - new) <= 1 and len(new - old) <= 1
    shift = np.abs(cluster_means(changed, after) - cluster_means(values, before))
    assert (shift <= D / k + 1e-9).all()
    assert (shift.sum(axis=0) <= (len(values) // k) * D / k + 1e-9).all()


@SETTINGS
@given(cases)
def test_one_attribute_order_is_individual_ranking(case):
    """DP-IR §4.4: for m = 1 insensitive microaggregation and individual ranking coincide."""
    values, k, _ = case
    column = values[:, :1]
    labels = insensitive_labels(column, np.zeros(1), np.full(1, D), k)
    order = np.argsort(column[:, 0], kind="stable")
    expected = np.empty(len(column), dtype=int)
    expected[order] = ranking_labels(len(column), k)
    np.testing.assert_array_equal(labels, expected)


def test_mdav_is_not_insensitive():
    """Why [17] needs an order on the domain: changing one record re-forms MDAV's
    clusters so that no matching of old to new clusters keeps every change to one record
    (the cluster holding records 0 and 8 loses or gains two of them)."""
    values = np.array(
        [[2, 5], [8, 2], [3, 8], [5, 5], [6, 5], [9, 7], [0, 1], [5, 8], [0, 6]], dtype=float
    )
    changed = values.copy()
    changed[6] = [7, 8]
    before, after = clusters(mdav(values, 3)), clusters(mdav(changed, 3))
    assert not any(
        all(len(a - b) <= 1 and len(b - a) <= 1 for a, b in zip(before, perm, strict=True))
        for perm in itertools.permutations(after)
    )
    insensitive = [
        clusters(insensitive_labels(v, np.zeros(2), np.full(2, D), 3)) for v in (values, changed)
    ]
    for a, b in zip(*insensitive, strict=True):
        assert len(a - b) <= 1 and len(b - a) <= 1


def dataset(n: int = 40, m: int = 3) -> object:
    rng = np.random.default_rng(5)
    frame = pd.DataFrame(rng.uniform(1, 99, size=(n, m)), columns=[f"a{j}" for j in range(m)])
    return build_dataset("t", frame, list(frame), domains={c: [0, 100] for c in frame})


@pytest.mark.parametrize(("name", "factor"), [("imdav_laplace", 1), ("imdav_laplace_composed", 3)])
def test_imdav_laplace_scale(name, factor):
    """DP-IR §2.4/§4.4: scale (n/k)·Δ(A_i)/(k·ε) with n/k the ⌊n/k⌋ released centroids,
    independent of m; the composed variant splits ε over the m = 3 attributes."""
    data = dataset()
    release = make_method(name, {"k": 4, "epsilon": 2.0}).protect(data, np.random.default_rng(0))
    np.testing.assert_allclose(release.scale, factor * (40 // 4) * 100 / (4 * 2.0))


def test_imdav_laplace_draws_once_per_cluster():
    """One Laplace draw per cluster and attribute, shared by its records."""
    data = dataset()
    release = make_method("imdav_laplace", {"k": 4, "epsilon": 1e4}).protect(
        data, np.random.default_rng(1)
    )
    labels = release.labels[:, 0]
    assert (release.labels == labels[:, None]).all()
    noise = release.values - cluster_means(data.protected_values, labels)[labels]
    for j in range(labels.max() + 1):
        block = noise[labels == j]
        assert (block == block[0]).all()
    per_cluster = np.array([noise[labels == j][0] for j in range(labels.max() + 1)])
    assert len(np.unique(per_cluster)) == per_cluster.size


def test_imdav_alone_replaces_records_by_centroids():
    data = dataset()
    release = make_method("imdav", {"k": 5}).protect(data, np.random.default_rng(0))
    labels = release.labels[:, 0]
    np.testing.assert_allclose(release.values, cluster_means(data.protected_values, labels)[labels])
    assert np.bincount(labels).min() >= 5
