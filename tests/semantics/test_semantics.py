"""Semantic distance, marginality and the exponential mechanism (DP-IR §3.4) on a
hand-made taxonomy, with the sensitivities proved by brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from anonlab.mechanisms.exponential import ExponentialMechanism
from anonlab.methods.categorical import ranking_clusters
from anonlab.semantics import (
    Taxonomy,
    cluster_marginality,
    domain_marginality,
    marginality_centroids,
    marginality_rank,
    minimal_taxonomy,
    order_path_sensitivity,
    value_change_sensitivity,
)
from anonlab.validation import ParameterError
from tests.properties import examples

#            root
#        /          \
#     person       place
#    /     \          |
# worker  soldier   country
#  /   \             /   \
# clerk  farmer   spain  chile
TOY = Taxonomy(
    name="toy",
    root="root",
    parent={
        "root": None,
        "person": "root",
        "place": "root",
        "worker": "person",
        "soldier": "person",
        "clerk": "worker",
        "farmer": "worker",
        "country": "place",
        "spain": "country",
        "chile": "country",
    },
    labels={
        "Clerk": "clerk",
        "Farmer": "farmer",
        "Soldier": "soldier",
        "Spain": "spain",
        "Chile": "chile",
    },
)
SETTINGS = settings(max_examples=examples(60))


def delta(a: str, b: str) -> float:
    return float(TOY.distances[TOY.index[a], TOY.index[b]])


def test_delta_by_hand():
    """DP-IR Eq. 3: clerk {clerk, worker, person, root}, farmer {farmer, worker, person,
    root}: union 5, common 3 → log2(1 + 2/5)."""
    assert delta("clerk", "farmer") == pytest.approx(np.log2(1.4))
    assert delta("clerk", "spain") == pytest.approx(np.log2(1 + 6 / 7))
    assert delta("clerk", "clerk") == 0.0


def test_delta_is_a_metric_on_every_triple():
    d = TOY.distances
    assert (d >= 0).all() and (d <= 1).all() and (np.diag(d) == 0).all()
    np.testing.assert_array_equal(d, d.T)
    # triangle inequality δ(a, b) ≤ δ(a, c) + δ(c, b), axes (a, b, c)
    assert (d[:, :, None] <= d[:, None, :] + d.T[None, :, :] + 1e-12).all()
    off = ~np.eye(len(d), dtype=bool)
    assert (d[off] > 0).all()


def test_marginality_and_order():
    """Eq. 4 over Dom = the five labels; the most marginal label heads the order."""
    margin = domain_marginality(TOY)
    labels = list(TOY.labels.values())
    expected = [sum(delta(b, a) for b in labels if b != a) for a in labels]
    np.testing.assert_allclose(margin, expected)
    rank = marginality_rank(TOY)
    first = labels[int(np.argmax(margin))]
    assert rank[TOY.index[first]] == 0
    ranked = sorted(labels, key=lambda a: rank[TOY.index[a]])
    assert [delta(first, a) for a in ranked] == sorted(delta(first, a) for a in ranked)


def test_minimal_taxonomy_and_centroid():
    """τ(S) for S = {clerk, farmer, farmer} is {clerk, farmer, worker}; the centroid
    minimises Σ δ over it (Eq. 5): farmer."""
    codes = TOY.encode(np.array(["Clerk", "Farmer", "Farmer", "Spain", "Chile", "Chile"]))
    labels = np.array([0, 0, 0, 1, 1, 1])
    _, counts = cluster_marginality(TOY, codes, labels, 2)
    mask = minimal_taxonomy(TOY, counts)
    assert {TOY.nodes[i] for i in np.flatnonzero(mask[0])} == {"clerk", "farmer", "worker"}
    assert {TOY.nodes[i] for i in np.flatnonzero(mask[1])} == {"spain", "chile", "country"}
    centroids = marginality_centroids(TOY, codes, labels, 2)
    assert [TOY.nodes[c] for c in centroids] == ["farmer", "chile"]


def test_unknown_label_is_named():
    with pytest.raises(ParameterError, match="no concept for value"):
        TOY.encode(np.array(["Clerk", "Pirate"]))


# --- sensitivities, brute force over neighbouring data sets -------------------------------

samples = st.tuples(
    st.lists(st.sampled_from(list(TOY.labels)), min_size=2, max_size=9), st.integers(1, 4)
)


def cluster_qualities(values: list[str], k: int) -> np.ndarray:
    """q_j(X, c) = −m(S_j, c) for the individual-ranking clusters j of ``values``."""
    codes = TOY.encode(np.array(values))
    labels = ranking_clusters(TOY, codes, min(k, len(values)))
    margin, _ = cluster_marginality(TOY, codes, labels, int(labels.max()) + 1)
    return -margin


@SETTINGS
@given(samples)
def test_order_path_bounds_the_summed_quality_change(case):
    """For every record and every replacement label, Σ_j max_c |q_j(X, c) − q_j(X', c)|
    over the individual-ranking clusters is at most the order-path sensitivity: one
    exponential-mechanism draw per cluster then gives ε for the attribute."""
    values, k = case
    bound = order_path_sensitivity(TOY)
    before = cluster_qualities(values, k)
    for i, new in itertools.product(range(len(values)), TOY.labels):
        changed = list(values)
        changed[i] = new
        after = cluster_qualities(changed, k)
        assert np.abs(after - before).max(axis=1).sum() <= bound + 1e-12


def test_single_value_change_bound_is_tight():
    """max |δ(a, c) − δ(b, c)| is reached by some pair of labels and concept."""
    d = TOY.distances[TOY.label_codes]
    best = max(
        abs(d[a, c] - d[b, c])
        for a in range(len(d))
        for b in range(len(d))
        for c in range(d.shape[1])
    )
    assert value_change_sensitivity(TOY) == pytest.approx(best)
    assert value_change_sensitivity(TOY) <= order_path_sensitivity(TOY)


# --- the exponential mechanism ------------------------------------------------------------


@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_exponential_mechanism_frequencies(epsilon):
    """DP-IR Eq. 6: Pr(c) ∝ exp(ε·q(c)/(2Δq)). A chi-square test on 40,000 draws accepts
    this law and rejects the law without the factor 2 and the one with the sign flipped."""
    quality = np.array([0.0, -0.5, -1.0, -2.0, -3.0])
    mechanism = ExponentialMechanism(epsilon, 1.0)
    draws = mechanism.select(np.tile(quality, (40_000, 1)), np.random.default_rng(11))
    observed = np.bincount(draws, minlength=len(quality))

    def law(logits):
        p = np.exp(logits - logits.max())
        return p / p.sum() * len(draws)

    assert stats.chisquare(observed, law(epsilon * quality / 2)).pvalue > 1e-3
    assert stats.chisquare(observed, law(epsilon * quality)).pvalue < 1e-6  # no factor 2
    assert stats.chisquare(observed, law(-epsilon * quality / 2)).pvalue < 1e-6  # sign
    np.testing.assert_allclose(
        mechanism.probabilities(quality) * len(draws), law(epsilon * quality / 2)
    )


def test_exponential_mechanism_rejects_bad_parameters():
    with pytest.raises(ParameterError):
        ExponentialMechanism(1.0, 0.0)
    with pytest.raises(ParameterError):
        ExponentialMechanism(-1.0, 1.0)
