"""Individual-ranking (univariate) microaggregation, DP-IR §2.1 and Lemma 1."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.validation import check_int, check_option

#: Which group of consecutive ranks takes the n mod k remaining records. DP-IR and DP-UNI
#: Lemma 1 allow any one: "⌊n/k⌋ clusters of k consecutive values each, except perhaps one
#: cluster that contains up to 2k − 1 consecutive values". ``last`` (the default) is
#: §2.1's "groups of successive k values" cut from the lowest value up.
REMAINDERS: tuple[str, ...] = ("last", "first", "middle")


def cluster_sizes(n: int, k: int, remainder: str = "last") -> np.ndarray:
    """Sizes of the ⌊n/k⌋ groups of consecutive ranks, in rank order: k each, and the
    n mod k remaining records in the ``remainder`` group (``last``, ``first`` or
    ``middle``, the ⌈q/2⌉-th of q groups), so every group has k..2k−1 records
    (DP-IR/DP-UNI Lemma 1)."""
    k = check_int(k, "k", 1, n)
    remainder = check_option(remainder, "remainder", REMAINDERS)
    groups, extra = divmod(n, k)
    sizes = np.full(groups, k, dtype=np.int64)
    position = {"last": groups - 1, "first": 0, "middle": (groups - 1) // 2}[remainder]
    sizes[position] += extra  # Lemma 1: one cluster of k + (n mod k) ≤ 2k − 1 values
    return sizes


def ranking_labels(n: int, k: int, remainder: str = "last") -> np.ndarray:
    """Cluster of each rank 0..n−1: ⌊n/k⌋ groups of consecutive ranks with the sizes of
    :func:`cluster_sizes`; by default groups of k, the last absorbing the remainder
    (DP-IR Lemma 1)."""
    sizes = cluster_sizes(n, k, remainder)
    return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes)


@dataclass(frozen=True)
class IndividualRanking:
    """Result of individual ranking on an ``n × m`` matrix.

    Attributes
    ----------
    labels : ``(n, m)`` int array, cluster of each record in each attribute's ranking.
    centroids : ``(n // k, m)`` cluster means, cluster ``j`` of attribute ``a`` at ``[j, a]``.
    sizes : ``(n // k,)`` cluster sizes (shared by all attributes), k..2k−1, in rank order.
    ordered : ``(n, m)`` each column sorted; cluster ``j`` holds rows
        ``starts[j] : starts[j] + sizes[j]`` of it.
    starts : ``(n // k,)`` first sorted row of each cluster.
    """

    labels: np.ndarray
    centroids: np.ndarray
    sizes: np.ndarray
    ordered: np.ndarray
    starts: np.ndarray

    @property
    def n_clusters(self) -> int:
        """⌊n/k⌋."""
        return len(self.sizes)

    @property
    def sums(self) -> np.ndarray:
        """``(n // k, m)`` sum of each cluster's values."""
        return np.add.reduceat(self.ordered, self.starts, axis=0)

    def smallest(self, r: int = 0) -> np.ndarray:
        """``(n // k, m)`` the (r+1)-th smallest value of each cluster (ties counted, so
        in {3, 3, 4} the second smallest is 3, as iDP §3.2.2 defines it)."""
        return self.ordered[self.starts + check_int(r, "r", 0, int(self.sizes.min()) - 1)]

    def largest(self, r: int = 0) -> np.ndarray:
        """``(n // k, m)`` the (r+1)-th largest value of each cluster, ties counted."""
        r = check_int(r, "r", 0, int(self.sizes.min()) - 1)
        return self.ordered[self.starts + self.sizes - 1 - r]

    def release(self) -> np.ndarray:
        """The microaggregated matrix X^M: every value replaced by its cluster centroid."""
        return np.take_along_axis(self.centroids, self.labels, axis=0)


@dataclass(frozen=True)
class SortedColumns:
    """Each column of an ``n × m`` matrix sorted once: ``order[:, a]`` lists the records by
    increasing value of attribute ``a`` (stable, so ties keep record order), ``ranks`` is
    its inverse (the position of each record) and ``ordered`` the sorted values. Individual
    ranking at any k reuses it."""

    order: np.ndarray
    ranks: np.ndarray
    ordered: np.ndarray

    def columns(self, positions: list[int]) -> SortedColumns:
        """The sort of the columns at ``positions`` only."""
        return SortedColumns(self.order[:, positions], self.ranks[:, positions],
                             self.ordered[:, positions])


def sort_columns(values: np.ndarray) -> SortedColumns:
    """Stable per-column sort of ``values`` (``(n, m)``, or ``(n,)`` as one column)."""
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    # sorting contiguous rows of the transpose is several times faster than axis=0
    order = np.argsort(np.ascontiguousarray(matrix.T), axis=1, kind="stable").T
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(len(matrix))[:, None], axis=0)
    return SortedColumns(order=order, ranks=ranks,
                         ordered=np.take_along_axis(matrix, order, axis=0))


def individual_ranking(values: np.ndarray, k: int, sorted_columns: SortedColumns | None = None,
                       remainder: str = "last") -> IndividualRanking:
    """Microaggregate each column of ``values`` independently (DP-IR §2.1).

    Each attribute is sorted (stable sort, so ties keep record order), cut into groups of
    ``k`` consecutive values with one group absorbing the n mod k remaining values (the
    last by default; ``remainder``, see :func:`cluster_sizes`), and each value is
    represented by its group mean. Vectorised over records and attributes;
    ``sorted_columns`` (:func:`sort_columns` of ``values``) skips the sort.
    """
    if sorted_columns is None:
        sorted_columns = sort_columns(values)
    ordered = sorted_columns.ordered
    n = ordered.shape[0]
    rank_labels = ranking_labels(n, k, remainder)
    sizes = cluster_sizes(n, k, remainder)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    centroids = np.add.reduceat(ordered, starts, axis=0) / sizes[:, None]
    return IndividualRanking(labels=rank_labels[sorted_columns.ranks], centroids=centroids,
                             sizes=sizes, ordered=ordered, starts=starts)
