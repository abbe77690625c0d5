"""Categorical attributes in the methods: ordering, centroids and exponential-mechanism
selections on taxonomy concepts (DP-IR §3.4, Algorithm 2)."""

from __future__ import annotations

import numpy as np

from anonlab.mechanisms import SAMPLERS
from anonlab.mechanisms.exponential import ExponentialMechanism
from anonlab.microaggregation import ranking_labels
from anonlab.semantics import (
    Taxonomy,
    cluster_marginality,
    marginality_centroids,
    marginality_rank,
)


def ranking_clusters(
    taxonomy: Taxonomy, codes: np.ndarray, k: int, remainder: str = "last"
) -> np.ndarray:
    """Individual ranking of one categorical attribute: records sorted (stably) by the
    marginality order of their value, groups of k, the ``remainder`` group (the last by
    default) absorbing the n mod k remaining records."""
    order = np.argsort(marginality_rank(taxonomy)[codes], kind="stable")
    labels = np.empty(len(codes), dtype=np.int64)
    labels[order] = ranking_labels(len(codes), k, remainder)
    return labels


def centroid_codes(taxonomy: Taxonomy, codes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """Marginality centroid of each cluster (DP-IR Eq. 5)."""
    return marginality_centroids(taxonomy, codes, labels, int(labels.max()) + 1)


def private_centroid_codes(
    taxonomy: Taxonomy,
    codes: np.ndarray,
    labels: np.ndarray,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    *,
    sampler: str = SAMPLERS[0],
) -> np.ndarray:
    """One exponential-mechanism centroid per cluster over every concept of τ(A), quality
    −m(S, c) (DP-IR Algorithm 2, Eq. 6), drawn by ``sampler`` (:class:`ExponentialMechanism`)."""
    margin, _ = cluster_marginality(taxonomy, codes, labels, int(labels.max()) + 1)
    return _select(-margin, epsilon, sensitivity, rng, sampler)


def private_record_codes(
    taxonomy: Taxonomy,
    codes: np.ndarray,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    *,
    sampler: str = SAMPLERS[0],
) -> np.ndarray:
    """Plain exponential mechanism per record: concept c with probability ∝
    exp(ε·(−δ(x, c))/(2Δ)) over every concept of τ(A) (the categorical counterpart of plain
    Laplace noise, DP-IR §3.3–3.4), drawn by ``sampler``."""
    return _select(-taxonomy.distances[codes], epsilon, sensitivity, rng, sampler)


def _select(
    quality: np.ndarray,
    epsilon: float,
    sensitivity: float,
    rng: np.random.Generator,
    sampler: str = SAMPLERS[0],
) -> np.ndarray:
    """The exponential mechanism's choice per row. With Δq = 0 (a taxonomy with one leaf:
    no neighbour changes any quality) the mechanism's limit, the best candidate, is
    released without a draw, at no privacy cost."""
    quality = np.atleast_2d(quality)
    if sensitivity == 0:
        return np.argmax(quality, axis=-1)
    return ExponentialMechanism(epsilon, sensitivity, sampler).select(quality, rng)
