"""Individual-ranking (univariate) microaggregation, DP-IR §2.1 and Lemma 1.

The per-column stable sort and the spreading of cluster values back to the records are
compiled loops (:mod:`anonlab.microaggregation.ir_kernels`, imported on first use). The
sort is a least significant digit radix sort of each value's order-preserving 64-bit
key, which is stable by construction, so ties keep record order as NumPy's stable
argsort does; the outputs equal those of the plain NumPy code kept in
``benchmarks/references/reference_ir.py``, bit for bit
(``tests/microaggregation/test_kernels_ir.py``).

Memory: a sort keeps ``order`` (32-bit), half the input; the sorted values, the ranks and
the 32-bit labels are computed only when asked for (iDP's cluster extremes, cluster
metrics), and a release is written straight from the sort, cluster by cluster
(:meth:`IndividualRanking.spread`). Compiling the loops takes about 5 s once; later
processes load them from the cache (under a second).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

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
class SortedColumns:
    """Each column of an ``n × m`` matrix sorted once: ``order[:, a]`` lists the records by
    increasing value of attribute ``a`` (stable, so ties keep record order); ``ranks`` is
    its inverse (the position of each record) and ``ordered`` the sorted values, both
    computed on first use. Individual ranking at any k reuses it.

    Only ``order`` is made by the sort: 32-bit integers below 2³¹ records (half the memory
    of the values), the transpose of an ``(m, n)`` C array, so each column is contiguous.
    A column's sorted values are gathered from ``values`` when needed (:meth:`column`),
    so a sort held for a data set costs half its values, not one and a half.
    """

    order: np.ndarray
    values: np.ndarray

    @cached_property
    def ordered(self) -> np.ndarray:
        """``(n, m)`` each column sorted (the transpose of an ``(m, n)`` C array)."""
        n, m = self.order.shape
        ordered = np.empty((m, n))
        for a in range(m):
            np.take(self.values[:, a], self.order[:, a], out=ordered[a])
        return ordered.T

    def cluster_sums(self, starts: np.ndarray) -> np.ndarray:
        """``(m, len(starts))`` sum of each group of consecutive ranks starting at
        ``starts``, per attribute. The first call gathers one sorted column at a time (no
        sorted copy of the matrix: a single release stays small); a second call, as in a
        grid over k, keeps :attr:`ordered` for every later one. The sums are the same,
        bit for bit, either way."""
        n, m = self.order.shape
        if "ordered" in self.__dict__ or self.__dict__.get("_summed", False):
            return np.ascontiguousarray(np.add.reduceat(self.ordered, starts, axis=0).T)
        self.__dict__["_summed"] = True
        sums = np.empty((m, len(starts)))
        for a in range(m):
            np.add.reduceat(self.column(a), starts, out=sums[a])
        return sums

    def column(self, a: int) -> np.ndarray:
        """Column ``a`` sorted: from :attr:`ordered` once computed, else gathered (and not
        kept)."""
        if "ordered" in self.__dict__:
            return self.ordered[:, a]
        return self.values[:, a].take(self.order[:, a])

    @cached_property
    def ranks(self) -> np.ndarray:
        """``(n, m)`` position of each record in each attribute's order."""
        ranks = np.empty_like(self.order)
        np.put_along_axis(ranks, self.order, np.arange(len(self.order))[:, None], axis=0)
        return ranks

    def columns(self, positions: list[int]) -> SortedColumns:
        """The sort of the columns at ``positions`` only (``self`` for every column in
        order, without a copy)."""
        if list(positions) == list(range(self.order.shape[1])):
            return self
        return SortedColumns(
            np.ascontiguousarray(self.order.T[positions]).T, self.values[:, positions]
        )


def sort_columns(values: np.ndarray) -> SortedColumns:
    """Stable per-column sort of ``values`` (``(n, m)``, or ``(n,)`` as one column): the
    order NumPy's ``argsort(kind="stable")`` gives, NaNs last, −0.0 tying with 0.0."""
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    n, m = matrix.shape
    index = np.int32 if n < 2**31 else np.int64
    order = np.empty((m, n), dtype=index)
    if n and m:  # the kernel allocates only per-column counters
        from anonlab.microaggregation import ir_kernels

        ir_kernels.sort_columns(
            matrix.view(np.uint64),
            order,
            np.empty(n, dtype=np.uint64),
            np.empty(n, dtype=np.uint64),
            np.empty(n, dtype=index),
            ir_kernels.RADIX_BITS,
        )
    return SortedColumns(order=order.T, values=matrix)


@dataclass(frozen=True)
class IndividualRanking:
    """Result of individual ranking on an ``n × m`` matrix.

    Attributes
    ----------
    centroids : ``(n // k, m)`` cluster means, cluster ``j`` of attribute ``a`` at ``[j, a]``.
    sizes : ``(n // k,)`` cluster sizes (shared by all attributes), k..2k−1, in rank order.
    starts : ``(n // k,)`` first sorted row of each cluster: cluster ``j`` holds rows
        ``starts[j] : starts[j] + sizes[j]`` of :attr:`ordered`.
    sorted_columns : the sort it was cut from (:class:`SortedColumns`).
    """

    centroids: np.ndarray
    sizes: np.ndarray
    starts: np.ndarray
    sorted_columns: SortedColumns

    @property
    def n_clusters(self) -> int:
        """⌊n/k⌋."""
        return len(self.sizes)

    @property
    def order(self) -> np.ndarray:
        """``(n, m)`` the record at each rank of each attribute (:attr:`SortedColumns.order`)."""
        return self.sorted_columns.order

    @property
    def ordered(self) -> np.ndarray:
        """``(n, m)`` each column sorted (:attr:`SortedColumns.ordered`, computed once)."""
        return self.sorted_columns.ordered

    @cached_property
    def labels(self) -> np.ndarray:
        """``(n, m)`` cluster of each record in each attribute's ranking (32-bit)."""
        return rank_labels(self.order, self.sizes)

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

    def spread(
        self,
        centroids: np.ndarray | None = None,
        values: np.ndarray | None = None,
        columns: list[int] | None = None,
    ) -> None:
        """Write each record's cluster value into ``values`` in place: for attribute ``a``
        and record ``r`` in cluster ``c``, ``values[r, columns[a]] = centroids[c, a]``
        (``centroids`` by default :attr:`centroids`, ``columns`` by default ``0..m−1``).
        Nothing of size ``(n, m)`` is made (a transposed copy of ``centroids`` unless it
        is the transpose of a C array, as :attr:`centroids` is)."""
        n, m = self.order.shape
        columns = np.arange(m) if columns is None else np.asarray(columns, dtype=np.int64)
        centroids = self.centroids if centroids is None else centroids
        centroids = np.asarray(centroids, dtype=float)
        if centroids.shape != self.centroids.shape or columns.shape != (m,):
            raise ValueError(
                f"centroids must be {self.centroids.shape} and columns "
                f"({m},), got {centroids.shape} and {columns.shape}"
            )
        from anonlab.microaggregation import ir_kernels

        ir_kernels.spread(
            np.ascontiguousarray(self.order.T),
            self.sizes,
            np.ascontiguousarray(centroids.T),
            columns,
            values,
        )

    def release(self, centroids: np.ndarray | None = None) -> np.ndarray:
        """The microaggregated matrix X^M: every value replaced by its cluster centroid
        (or by its cluster's row of ``centroids``)."""
        released = np.empty(self.order.shape)
        self.spread(centroids, values=released)
        return released


def individual_ranking(
    values: np.ndarray, k: int, sorted_columns: SortedColumns | None = None, remainder: str = "last"
) -> IndividualRanking:
    """Microaggregate each column of ``values`` independently (DP-IR §2.1).

    Each attribute is sorted (stable sort, so ties keep record order), cut into groups of
    ``k`` consecutive values with one group absorbing the n mod k remaining values (the
    last by default; ``remainder``, see :func:`cluster_sizes`), and each value is
    represented by its group mean. Vectorised over records and attributes;
    ``sorted_columns`` (:func:`sort_columns` of ``values``) skips the sort. The cluster
    sums are taken one sorted column at a time, so no sorted copy of the matrix is made.
    """
    if sorted_columns is None:
        sorted_columns = sort_columns(values)
    n, m = sorted_columns.order.shape
    sizes = cluster_sizes(n, k, remainder)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    centroids = sorted_columns.cluster_sums(starts)  # by attribute: spread reads it as is
    centroids /= sizes
    return IndividualRanking(
        centroids=centroids.T, sizes=sizes, starts=starts, sorted_columns=sorted_columns
    )


def rank_labels(order: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """``(n, m)`` 32-bit cluster of each record when each column of ``order``
    (:attr:`SortedColumns.order`) is cut into groups of ``sizes`` consecutive ranks (the
    transpose of an ``(m, n)`` C array)."""
    n, m = order.shape
    clusters = np.empty((m, n), dtype=np.int32 if len(sizes) < 2**31 else np.int64)
    from anonlab.microaggregation import ir_kernels

    ir_kernels.rank_clusters(np.ascontiguousarray(order.T), np.asarray(sizes), clusters)
    return clusters.T
