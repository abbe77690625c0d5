"""Individual-ranking (univariate) microaggregation, DP-IR §2.1 and Lemma 1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.validation import check_int


def ranking_labels(n: int, k: int) -> np.ndarray:
    """Cluster of each rank 0..n−1: groups of k consecutive ranks, the last absorbing
    the remainder, so ⌊n/k⌋ clusters of size k except the last of size k..2k−1
    (DP-IR Lemma 1)."""
    k = check_int(k, "k", 1, n)
    return np.minimum(np.arange(n) // k, n // k - 1)


@dataclass(frozen=True)
class IndividualRanking:
    """Result of individual ranking on an ``n × m`` matrix.

    Attributes
    ----------
    labels : ``(n, m)`` int array, cluster of each record in each attribute's ranking.
    centroids : ``(n // k, m)`` cluster means, cluster ``j`` of attribute ``a`` at ``[j, a]``.
    sizes : ``(n // k,)`` cluster sizes (shared by all attributes).
    """

    labels: np.ndarray
    centroids: np.ndarray
    sizes: np.ndarray

    @property
    def n_clusters(self) -> int:
        """⌊n/k⌋."""
        return len(self.sizes)

    def release(self) -> np.ndarray:
        """The microaggregated matrix X^M: every value replaced by its cluster centroid."""
        return np.take_along_axis(self.centroids, self.labels, axis=0)


def individual_ranking(values: np.ndarray, k: int) -> IndividualRanking:
    """Microaggregate each column of ``values`` independently (DP-IR §2.1).

    Each attribute is sorted (stable sort, so ties keep record order), cut into groups of
    ``k`` consecutive values with the last group absorbing the remainder, and each value
    is represented by its group mean. Vectorised over records and attributes.
    """
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    n = matrix.shape[0]
    rank_labels = ranking_labels(n, k)
    order = np.argsort(matrix, axis=0, kind="stable")
    ordered = np.take_along_axis(matrix, order, axis=0)
    starts = np.arange(n // k) * k
    sizes = np.diff(np.append(starts, n))
    centroids = np.add.reduceat(ordered, starts, axis=0) / sizes[:, None]
    labels = np.empty_like(order)
    np.put_along_axis(labels, order, np.broadcast_to(rank_labels[:, None], order.shape), axis=0)
    return IndividualRanking(labels=labels, centroids=centroids, sizes=sizes)
