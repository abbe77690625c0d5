"""Earth mover's distance with the ordered distance (TCM §2.2), and its incremental forms.

The confidential attribute's m distinct values v_1 < … < v_m are the bins; the distance
between bins i and j is |i − j|/(m − 1), and
EMD(P, Q) = 1/(m − 1) · Σ_i |Σ_{j≤i} (p_j − q_j)|  (TCM §2.2).
P is a cluster's distribution, Q the whole data set's.

Two ground distances (:data:`GROUNDS`), which differ only when confidential values tie:

* ``distinct`` (the default): bins are the m distinct values, as TCM §2.2 defines the
  ordered distance, "If the numerical attribute takes values {v_1, …, v_m} … then
  ordered_distance(v_i, v_j) = |i − j|/(m − 1)".
* ``rank``: bins are the ranks 1..n of the n records (ties broken by record index, as
  Algorithm 3 splits its subsets), distance |i − j|/(n − 1), as the proofs of TCM
  Propositions 1–2 measure it: "the difference between the ranks of the values of A in T
  divided by n − 1". Every bin then holds one record, so Proposition 2's bound holds
  exactly for Algorithm 3's clusters when k' divides n.

The compiled EMD of one cluster that Algorithms 1–2 call in their loops lives in
:mod:`anonlab.tcloseness.emd_kernels`, imported (with numba) on first use; its names are
also read from here (:data:`KERNELS`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonlab.validation import check_option

GROUNDS: tuple[str, ...] = ("distinct", "rank")


#: :meth:`OrderedEMD.of_partition` counts bins densely while clusters × bins ≤ this × n
DENSE_LIMIT = 16


class OrderedEMD:
    """EMD of clusters of one data set's confidential attribute against the whole data set.

    Parameters
    ----------
    confidential : the confidential value of every record.
    ground : ``"distinct"`` (bins = distinct values, TCM §2.2) or ``"rank"`` (bins = the
        records' ranks, TCM Propositions 1–2); see the module docstring.
    """

    def __init__(self, confidential: np.ndarray, ground: str = "distinct") -> None:
        self.ground = check_option(ground, "ground", GROUNDS)
        if self.ground == "distinct":
            values, bins = np.unique(np.asarray(confidential, dtype=float), return_inverse=True)
        else:  # one bin per record, in (value, record index) order
            conf = np.asarray(confidential, dtype=float).ravel()
            order = np.argsort(conf, kind="stable")
            bins = np.empty(len(conf), dtype=np.int64)
            bins[order] = np.arange(len(conf))
            values = conf[order]
        self.values = values
        self.bins = bins.astype(np.int64)  # bin of every record
        self.m = len(values)
        self.n = len(bins)
        self.global_cdf = np.cumsum(np.bincount(self.bins, minlength=self.m)) / self.n
        self._norm = max(self.m - 1, 1)
        # Σ_{i<j} Q(v_i) for the sorted-member form (:meth:`of_sorted_bins`)
        self._cdf_prefix = np.concatenate([[0.0], np.cumsum(self.global_cdf)])

    @property
    def sparse(self) -> bool:
        """Whether clusters are kept as sorted member bins rather than dense bin counts
        (the rank ground, where m = n would make a ``(clusters, m)`` array too large)."""
        return self.ground == "rank"

    def counts(self, records: np.ndarray) -> np.ndarray:
        """Bin counts of a set of record indices."""
        return np.bincount(self.bins[records], minlength=self.m).astype(float)

    def cluster_counts(self, labels: np.ndarray) -> np.ndarray:
        """``(n_clusters, m)`` bin counts of every cluster of a partition."""
        n_clusters = int(labels.max()) + 1
        flat = np.bincount(labels * self.m + self.bins, minlength=n_clusters * self.m)
        return flat.reshape(n_clusters, self.m).astype(float)

    def of_counts(self, counts: np.ndarray) -> np.ndarray | float:
        """EMD of clusters given their bin counts (last axis = bins)."""
        counts = np.asarray(counts, dtype=float)
        size = counts.sum(axis=-1, keepdims=True)
        gap = np.cumsum(counts, axis=-1) / size - self.global_cdf
        return np.abs(gap).sum(axis=-1) / self._norm

    def of_records(self, records: np.ndarray) -> float:
        """EMD of the cluster made of ``records`` (indices)."""
        return float(self.of_counts(self.counts(records)))

    def of_partition(self, labels: np.ndarray) -> np.ndarray:
        """EMD of every cluster of a partition (labels 0..c−1): from dense bin counts when
        the ``(clusters, m)`` array is small beside the n records, else from the members'
        sorted bins, O(n log n) (many small clusters over many distinct values)."""
        labels = np.asarray(labels, dtype=np.int64)
        if self.sparse or (labels.max(initial=0) + 1) * self.m > DENSE_LIMIT * len(labels):
            return self._sorted_partition(labels)
        return self.of_counts(self.cluster_counts(labels))

    def of_sorted_bins(self, bins: np.ndarray) -> float:
        """EMD of the cluster whose records have the sorted bins ``bins``: O(|C| log m),
        without an array of m counts."""
        return float(
            self._sorted_partition(
                np.zeros(len(bins), dtype=np.int64), np.asarray(bins, dtype=np.int64)
            )[0]
        )

    def _sorted_partition(self, labels: np.ndarray, bins: np.ndarray | None = None) -> np.ndarray:
        """EMD of every cluster from its members' bins. Between consecutive members the
        cluster's CDF is a constant c and the data set's Q is non-decreasing, so
        Σ_i |c − Q_i| over the bins in between splits where Q passes c into two prefix-sum
        differences (TCM §2.2: EMD = Σ_i |P_i − Q_i| / (m − 1), P_i, Q_i the CDFs)."""
        bins = self.bins if bins is None else bins
        order = np.lexsort((bins, labels))
        label, start = labels[order], bins[order]
        sizes = np.bincount(label)
        first = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        position = np.arange(len(order)) - first[label]  # 0-based rank within the cluster
        end = np.append(start[1:], self.m)  # the next member's bin, or m after the last
        end[position == sizes[label] - 1] = self.m
        level = (position + 1) / sizes[label]  # the cluster's CDF from `start` to `end`
        prefix = self._cdf_prefix
        split = np.clip(np.searchsorted(self.global_cdf, level, side="right"), start, end)
        gap = (
            level * (split - start)
            - (prefix[split] - prefix[start])
            + (prefix[end] - prefix[split])
            - level * (end - split)
        )
        total = np.bincount(label, weights=gap, minlength=len(sizes))
        lowest = position == 0  # the CDF is 0 before a cluster's lowest member
        np.add.at(total, label[lowest], prefix[start[lowest]])
        return total / self._norm

    def cluster_masses(self, labels: np.ndarray) -> ClusterMasses:
        """The mergeable confidential values of every cluster of a partition (labels
        0..c−1), for Algorithm 1's merging loop."""
        return ClusterMasses(self, np.asarray(labels, dtype=np.int64))

    def swap_deltas(
        self, counts: np.ndarray, add_bins: np.ndarray, remove_bins: np.ndarray
    ) -> np.ndarray:
        """Change of EMD when a record of bin ``add_bins[a]`` replaces one of bin
        ``remove_bins[r]`` in the cluster with bin ``counts``: an ``(a, r)`` array, O(1) per
        pair after an O(m) pass.

        The swap moves the cluster's cumulative distribution by +1/s on bins [a, r) (or
        −1/s on [r, a)) and nowhere else, so the change of Σ|gap| is a difference of prefix
        sums.
        """
        size = counts.sum()
        gap = np.cumsum(counts) / size - self.global_cdf
        step = 1.0 / size
        up = np.concatenate([[0.0], np.cumsum(np.abs(gap + step) - np.abs(gap))])
        down = np.concatenate([[0.0], np.cumsum(np.abs(gap - step) - np.abs(gap))])
        a = np.asarray(add_bins)[:, None]
        r = np.asarray(remove_bins)[None, :]
        delta = np.where(
            a < r,
            up[np.maximum(r, a)] - up[np.minimum(r, a)],
            down[np.maximum(r, a)] - down[np.minimum(r, a)],
        )
        return delta / self._norm

    def add_emds(self, counts: np.ndarray, add_bins: np.ndarray) -> np.ndarray:
        """EMD of the cluster after adding one record of each bin in ``add_bins`` (one
        candidate at a time): ``(len(add_bins),)``, O(m) per candidate, vectorised."""
        size = counts.sum() + 1.0
        cum = np.cumsum(counts)[None, :] + (
            np.arange(self.m)[None, :] >= np.asarray(add_bins)[:, None]
        )
        return np.abs(cum / size - self.global_cdf).sum(axis=1) / self._norm


class ClusterMasses:
    """The confidential values of the clusters of a partition, merged as clusters merge:
    dense bin counts ``(c, m)`` for the distinct ground, each cluster's sorted member bins
    for the rank ground (m = n bins)."""

    def __init__(self, emd: OrderedEMD, labels: np.ndarray) -> None:
        self.emd = emd
        if emd.sparse:
            order = np.lexsort((emd.bins, labels))
            cuts = np.cumsum(np.bincount(labels))[:-1]
            self.members: list[np.ndarray] = np.split(emd.bins[order], cuts)
        else:
            self.counts = emd.cluster_counts(labels)

    def emds(self) -> np.ndarray:
        """EMD of every cluster."""
        if self.emd.sparse:
            labels = np.repeat(np.arange(len(self.members)), [len(b) for b in self.members])
            return self.emd._sorted_partition(labels, np.concatenate(self.members))
        return np.asarray(self.emd.of_counts(self.counts), dtype=float)

    def merge(self, keep: int, drop: int) -> float:
        """Merge cluster ``drop`` into ``keep``; the EMD of the merged cluster."""
        if self.emd.sparse:
            self.members[keep] = np.sort(np.concatenate([self.members[keep], self.members[drop]]))
            return self.emd.of_sorted_bins(self.members[keep])
        self.counts[keep] += self.counts[drop]
        return float(self.emd.of_counts(self.counts[keep]))

    def compact(self, alive: np.ndarray) -> None:
        """Keep the clusters where ``alive`` is true, in order."""
        if self.emd.sparse:
            self.members = [b for b, a in zip(self.members, alive, strict=True) if a]
        else:
            self.counts = self.counts[alive]


#: the compiled forms of :mod:`anonlab.tcloseness.emd_kernels`, readable from this module
KERNELS = ("counts_emd", "linked_bins_emd", "merge_linked")


def __getattr__(name: str) -> Any:
    """A compiled form (:data:`KERNELS`), imported with numba only when asked for."""
    if name in KERNELS:
        from anonlab.tcloseness import emd_kernels

        return getattr(emd_kernels, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def proposition_2_bound(n: int, k: int) -> float:
    """Upper bound on the EMD of a cluster taking one record from each of k equal subsets
    by the confidential attribute: (n − k)/(2(n − 1)k) (TCM Proposition 2)."""
    return (n - k) / (2 * (n - 1) * k)


def proposition_1_bound(n: int, k: int) -> float:
    """Lower bound on the EMD of any cluster of k records: (n + k)(n − k)/(4n(n − 1)k)
    (TCM Proposition 1)."""
    return (n + k) * (n - k) / (4 * n * (n - 1) * k)
