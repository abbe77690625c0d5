"""MDAV multivariate microaggregation (Domingo-Ferrer & Torra 2005; TCM §2.3, §5)."""

from __future__ import annotations

import numpy as np

from anonlab.validation import check_int

# the compiled kernels (anonlab.microaggregation.kernels) are imported on first use, so that
# importing the data sets and methods does not import numba (0.2 s)


def standardise(values: np.ndarray) -> np.ndarray:
    """Z-scores per column (population standard deviation); constant columns become 0."""
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    std = matrix.std(axis=0)
    return (matrix - matrix.mean(axis=0)) / np.where(std > 0, std, 1.0)


def closest_positions(distances: np.ndarray, count: int) -> np.ndarray:
    """Positions of the ``count`` smallest finite ``distances``, ties by lowest position."""
    kth = np.partition(distances, count - 1)[count - 1]
    below = np.flatnonzero(distances < kth)
    equal = np.flatnonzero(distances == kth)
    return np.concatenate([below, equal[: count - len(below)]])


class RemainingRecords:
    """Unassigned records, compacted as they are used up so each pass stays O(remaining)."""

    def __init__(self, points: np.ndarray) -> None:
        self.points = points
        self.index = np.arange(len(points))
        self.alive = np.ones(len(points), dtype=bool)
        self.count = len(points)

    def sq_distances(self, point: np.ndarray, fill: float) -> np.ndarray:
        """Squared Euclidean distances to ``point``; ``fill`` at assigned positions."""
        from anonlab.microaggregation.kernels import sq_distances

        d = sq_distances(self.points, point)
        d[~self.alive] = fill
        return d

    def centroid(self) -> np.ndarray:
        from anonlab.microaggregation.kernels import centroid

        return centroid(self.points[self.alive])

    def cluster_around(self, position: int, k: int, distances: np.ndarray) -> np.ndarray:
        """``position`` and its ``k − 1`` nearest unassigned records (``distances`` from it,
        ``inf`` at assigned positions); returns positions."""
        d = distances.copy()
        d[position] = -1.0  # the seed record itself comes first
        return closest_positions(d, k)

    def take(self, positions: np.ndarray) -> np.ndarray:
        """Mark ``positions`` assigned and return their original indices."""
        self.alive[positions] = False
        self.count -= len(positions)
        return self.index[positions]

    def compact(self) -> None:
        if self.count * 2 < len(self.points):
            self.points = self.points[self.alive]
            self.index = self.index[self.alive]
            self.alive = np.ones(self.count, dtype=bool)


def mdav(values: np.ndarray, k: int) -> np.ndarray:
    """Cluster label of each record by MDAV on standardised attributes.

    While at least 3k records remain: take the record r farthest from the centroid of the
    remaining records and cluster it with its k − 1 nearest; then the record s farthest
    from r and its k − 1 nearest. With 2k..3k−1 left, one more cluster around the record
    farthest from the centroid and the rest as the last cluster; with fewer than 2k, the
    rest form one cluster. Every cluster has k records except the last (k..2k−1). Ties go
    to the lowest record index. The loop is compiled (:func:`~anonlab.microaggregation.
    kernels.mdav_kernel`); ``benchmarks/references/reference.py`` keeps the NumPy loop it matches.
    """
    from anonlab.microaggregation.kernels import mdav_kernel

    points = standardise(values)
    k = check_int(k, "k", 1, len(points))
    return mdav_kernel(np.ascontiguousarray(points, dtype=float), k)
