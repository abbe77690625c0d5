"""Earth mover's distance with the ordered distance (TCM §2.2), and its incremental forms.

The confidential attribute's m distinct values v_1 < … < v_m are the bins; the distance
between bins i and j is |i − j|/(m − 1), and
EMD(P, Q) = 1/(m − 1) · Σ_i |Σ_{j≤i} (p_j − q_j)|  (TCM §2.2).
P is a cluster's distribution, Q the whole data set's.
"""

from __future__ import annotations

import numpy as np


class OrderedEMD:
    """EMD of clusters of one data set's confidential attribute against the whole data set.

    Parameters
    ----------
    confidential : the confidential value of every record.
    """

    def __init__(self, confidential: np.ndarray) -> None:
        values, bins = np.unique(np.asarray(confidential, dtype=float), return_inverse=True)
        self.values = values
        self.bins = bins.astype(np.int64)  # bin of every record
        self.m = len(values)
        self.n = len(bins)
        self.global_cdf = np.cumsum(np.bincount(self.bins, minlength=self.m)) / self.n
        self._norm = max(self.m - 1, 1)

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
        """EMD of every cluster of a partition (labels 0..c−1)."""
        return self.of_counts(self.cluster_counts(labels))

    def swap_deltas(self, counts: np.ndarray, add_bins: np.ndarray,
                    remove_bins: np.ndarray) -> np.ndarray:
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
        delta = np.where(a < r, up[np.maximum(r, a)] - up[np.minimum(r, a)],
                         down[np.maximum(r, a)] - down[np.minimum(r, a)])
        return delta / self._norm

    def add_emds(self, counts: np.ndarray, add_bins: np.ndarray) -> np.ndarray:
        """EMD of the cluster after adding one record of each bin in ``add_bins`` (one
        candidate at a time): ``(len(add_bins),)``, O(m) per candidate, vectorised."""
        size = counts.sum() + 1.0
        cum = np.cumsum(counts)[None, :] + (np.arange(self.m)[None, :]
                                            >= np.asarray(add_bins)[:, None])
        return np.abs(cum / size - self.global_cdf).sum(axis=1) / self._norm


def proposition_2_bound(n: int, k: int) -> float:
    """Upper bound on the EMD of a cluster taking one record from each of k equal subsets
    by the confidential attribute: (n − k)/(2(n − 1)k) (TCM Proposition 2)."""
    return (n - k) / (2 * (n - 1) * k)


def proposition_1_bound(n: int, k: int) -> float:
    """Lower bound on the EMD of any cluster of k records: (n + k)(n − k)/(4n(n − 1)k)
    (TCM Proposition 1)."""
    return (n + k) * (n - k) / (4 * n * (n - 1) * k)
