"""Sensitivities and budget splits as small pure functions."""

from __future__ import annotations

from collections.abc import Sequence

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


def insensitive_microaggregation_sensitivity(
    width: ArrayLike, n_clusters: int, k: int
) -> np.ndarray:
    """L1-sensitivity per attribute of the centroids of insensitive microaggregation:
    each of the n/k clusters may change by one record, moving its centroid by up to
    Δ(A)/k, so (n/k)·Δ(A)/k (DP-IR §2.4, §3.1). ``n_clusters`` = ⌊n/k⌋ is the exact
    number of released centroids."""
    return check_int(n_clusters, "n_clusters", 1) * individual_ranking_sensitivity(width, k)


def centroid_global_sensitivity(width: ArrayLike, sizes: ArrayLike) -> np.ndarray:
    """Global sensitivity of each cluster's mean, (max A − min A)/|C_j| (iDP §3.1, DP-UM):
    ``(p, m)`` from ``(m,)`` domain widths and ``(p,)`` cluster sizes."""
    return np.asarray(width, dtype=float)[None, :] / np.asarray(sizes, dtype=float)[:, None]


def centroid_local_sensitivity(
    smallest: ArrayLike, largest: ArrayLike, low: ArrayLike, high: ArrayLike, sizes: ArrayLike
) -> np.ndarray:
    """Local sensitivity of each cluster's mean (iDP Proposition 2):
    max{max A − min_{x∈C} x, max_{x∈C} x − min A} / |C|, as ``(p, m)``."""
    spread = np.maximum(
        np.asarray(high, dtype=float) - np.asarray(smallest, dtype=float),
        np.asarray(largest, dtype=float) - np.asarray(low, dtype=float),
    )
    return spread / np.asarray(sizes, dtype=float)[:, None]


def cluster_based_local_sensitivity(
    smallest: Sequence[ArrayLike], largest: Sequence[ArrayLike], sizes: ArrayLike
) -> np.ndarray:
    """Local sensitivity of each pre-processed cluster mean (iDP Proposition 3, Expr. (1)).

    ``smallest`` = (x_min, x_min', x_min''), ``largest`` = (x_max, x_max', x_max''), the
    three smallest and largest values of each cluster (ties counted), each ``(p, m)``.
    """
    x_min, x_min1, x_min2 = (np.asarray(v, dtype=float) for v in smallest)
    x_max, x_max1, x_max2 = (np.asarray(v, dtype=float) for v in largest)
    # iDP Prop. 3, Expr. (2): the smallest value moves above the largest
    up = np.abs(x_max - x_min1) + np.abs(x_min2 - x_min1) + np.abs(x_max - x_max1)
    # iDP Prop. 3, Expr. (3): the largest value moves below the smallest
    down = np.abs(x_min - x_max1) + np.abs(x_max2 - x_max1) + np.abs(x_min - x_min1)
    return np.maximum(up, down) / np.asarray(sizes, dtype=float)[:, None]
