"""Marginality, its total order and centroids, and the sensitivities of the quality
function of DP-IR Algorithm 2 (DP-IR §3.4, Eqs. 4–6)."""

from __future__ import annotations

import numpy as np

from anonlab.semantics.taxonomy import Taxonomy


def domain_marginality(taxonomy: Taxonomy) -> np.ndarray:
    """m(Dom(A), a) = Σ_{b ∈ Dom(A) − {a}} δ(b, a) for every label a (DP-IR Eq. 4)."""
    codes = taxonomy.label_codes
    return taxonomy.distances[np.ix_(codes, codes)].sum(axis=0)


def marginality_rank(taxonomy: Taxonomy) -> np.ndarray:
    """Rank of every concept code in the total order of DP-IR §3.4: labels sorted by δ to
    the most marginal label (the one of largest Eq. 4 marginality, first in label order on
    ties), ties by label order. Defined on the domain only. Non-label concepts rank after
    all labels (they never occur in original data)."""
    codes = taxonomy.label_codes
    most_marginal = codes[int(np.argmax(domain_marginality(taxonomy)))]
    key = taxonomy.distances[most_marginal, codes]
    order = codes[np.lexsort([np.arange(len(codes)), key])]
    rank = np.full(len(taxonomy.nodes), len(codes), dtype=np.int64)
    rank[order] = np.arange(len(codes))
    return rank


def cluster_marginality(
    taxonomy: Taxonomy, codes: np.ndarray, labels: np.ndarray, n_clusters: int
) -> tuple[np.ndarray, np.ndarray]:
    """For every cluster, m(S, c) = Σ_{a ∈ S} δ(a, c) for every concept c (DP-IR Eq. 4 on
    the cluster sample S), and the value counts of each cluster (clusters × concepts)."""
    n_nodes = len(taxonomy.nodes)
    counts = np.bincount(labels * n_nodes + codes, minlength=n_clusters * n_nodes)
    counts = counts.reshape(n_clusters, n_nodes).astype(float)
    return counts @ taxonomy.distances, counts


def minimal_taxonomy(taxonomy: Taxonomy, counts: np.ndarray) -> np.ndarray:
    """Boolean ``(clusters, concepts)``: the concepts of τ(S), the minimal taxonomy covering
    each cluster's sample — every ancestor-or-self of a member up to, and including, their
    lowest common ancestor (DP-IR Eq. 5)."""
    present = (counts > 0).astype(np.int64)
    covering = present @ taxonomy.ancestors.astype(np.int64)  # members under each concept
    some = covering > 0
    common = covering == present.sum(axis=1, keepdims=True)
    depth = np.where(common, taxonomy.depth[None, :], -1)
    lcs = depth.argmax(axis=1)
    above = common.copy()
    above[np.arange(len(lcs)), lcs] = False
    return some & ~above


def marginality_centroids(
    taxonomy: Taxonomy, codes: np.ndarray, labels: np.ndarray, n_clusters: int
) -> np.ndarray:
    """Code of each cluster's centroid, argmin of m(S, c) over c ∈ τ(S) (DP-IR Eq. 5);
    ties go to the lowest code."""
    margin, counts = cluster_marginality(taxonomy, codes, labels, n_clusters)
    margin = np.where(minimal_taxonomy(taxonomy, counts), margin, np.inf)
    return margin.argmin(axis=1)


def value_change_sensitivity(taxonomy: Taxonomy) -> float:
    """max over labels a, b and concepts c of |δ(a, c) − δ(b, c)|: how much the quality
    −m(S, c) of one sample can change when one of its values is replaced (DP-IR §3.4);
    at most max δ ≤ 1."""
    d = taxonomy.distances[taxonomy.label_codes]
    return float((d.max(axis=0) - d.min(axis=0)).max())


def order_path_sensitivity(taxonomy: Taxonomy) -> float:
    """Σ_t max_c |δ(a_t, c) − δ(a_{t+1}, c)| over consecutive labels a_t, a_{t+1} of the
    marginality order.

    Bound on Σ_j max_c |q_j(X, c) − q_j(X', c)| over all individual-ranking clusters j of an
    attribute when one record changes: as in DP-IR Lemma 1 case 2, each affected cluster
    swaps one value for the next one along a monotone chain in the order, and by the
    triangle inequality the chain's steps sum to at most this path length. With it as Δ(q),
    one exponential-mechanism draw per cluster gives ε for the whole attribute.
    """
    rank = marginality_rank(taxonomy)
    codes = taxonomy.label_codes
    ordered = codes[np.argsort(rank[codes])]
    d = taxonomy.distances[ordered]
    return float(np.abs(np.diff(d, axis=0)).max(axis=1).sum())
