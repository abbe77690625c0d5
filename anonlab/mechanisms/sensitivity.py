"""Sensitivities and budget splits as small pure functions."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from anonlab.validation import check_epsilon, check_int


def attribute_budget(epsilon: float, m: int) -> float:
    """Per-attribute budget ε/m for an ε-DP record over m attributes (sequential
    composition, DP-IR §3.3 and Lemma 2)."""
    return check_epsilon(epsilon) / check_int(m, "m", 1)


def record_sensitivity(width: ArrayLike) -> np.ndarray:
    """L1-sensitivity of one released value of attribute A: Δ(A), its domain width
    (DP-IR §3.3, plain Laplace)."""
    return np.asarray(width, dtype=float)


def individual_ranking_sensitivity(width: ArrayLike, k: int) -> np.ndarray:
    """L1-sensitivity of the list of individual-ranking centroids: Δ(A)/k (DP-IR Lemma 1)."""
    return np.asarray(width, dtype=float) / check_int(k, "k", 1)


def insensitive_microaggregation_sensitivity(width: ArrayLike, n_clusters: int,
                                             k: int) -> np.ndarray:
    """L1-sensitivity per attribute of the centroids of insensitive microaggregation:
    each of the n/k clusters may change by one record, moving its centroid by up to
    Δ(A)/k, so (n/k)·Δ(A)/k (DP-IR §2.4, §3.1). ``n_clusters`` = ⌊n/k⌋ is the exact
    number of released centroids."""
    return check_int(n_clusters, "n_clusters", 1) * individual_ranking_sensitivity(width, k)
