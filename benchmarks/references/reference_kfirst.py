"""TCM Algorithm 2 (k-anonymity first, §6) as the plain NumPy loop it was before its loops
were compiled (anonlab/tcloseness/kfirst.py). The compiled code must give the same
partitions, ties included: ``benchmarks/timings/bench_kfirst.py`` takes its ratios against
this loop and ``tests/tcloseness/test_kernels_kfirst.py`` compares both on random data with
many ties."""

from __future__ import annotations

import numpy as np

from anonlab.microaggregation.mdav import RemainingRecords, closest_positions, standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.merge import EMD_TOLERANCE, check_same_length
from anonlab.validation import check_int, check_t

_PREFIX = 128  # candidates sorted by distance per cluster, read before any other search


class _Pool(RemainingRecords):
    """Unclustered records with their confidential bins, compacted as they are used up.

    Squared distances are accumulated column by column, Σ_j (p_j − x_j)² in column order,
    on a column-major copy of the points (faster than a row-wise reduction, and the same
    floating-point operations as the plain sum, so exact ties stay ties). ``order`` lists
    the pool positions grouped by bin (positions increasing within a bin) and
    ``bin_start`` where every bin's group begins, so the records of a few bins can be read
    without a pass over the pool; ``bin_counts`` counts the unclustered records per bin.
    """

    def __init__(self, points: np.ndarray, bins: np.ndarray, m: int) -> None:
        super().__init__(points)
        self.columns = np.ascontiguousarray(points.T)
        self.bins = bins
        self.m = m
        self.bin_counts = np.bincount(bins, minlength=m)
        self._renumber()

    def _renumber(self) -> None:
        self.positions = np.arange(len(self.bins))
        self.order = np.argsort(self.bins, kind="stable")
        self.bin_start = np.concatenate([[0], np.cumsum(np.bincount(self.bins, minlength=self.m))])

    def sq_distances(self, point: np.ndarray, fill: float) -> np.ndarray:
        """Squared Euclidean distances to ``point``; ``fill`` at clustered positions."""
        dist = self.columns[0] - point[0]
        dist *= dist
        term = np.empty_like(dist)
        for column, value in zip(self.columns[1:], point[1:], strict=True):
            np.subtract(column, value, out=term)
            term *= term
            dist += term
        dist[~self.alive] = fill
        return dist

    def take(self, positions: np.ndarray) -> np.ndarray:
        self.bin_counts -= np.bincount(self.bins[positions], minlength=self.m)
        return super().take(positions)

    def compact(self) -> None:
        if self.count * 2 < len(self.points):
            self.columns = np.ascontiguousarray(self.columns[:, self.alive])
            self.bins = self.bins[self.alive]
            super().compact()
            self._renumber()


def _first_after(values: np.ndarray, positions: np.ndarray, after: tuple[float, int]) -> int:
    """Index in ``values`` of the smallest (value, position) greater than ``after``, −1 if
    none is (``inf`` values are not candidates)."""
    value, position = after
    valid = ((values > value) | ((values == value) & (positions > position))) & (values < np.inf)
    if not valid.any():
        return -1
    masked = np.where(valid, values, np.inf)
    ties = np.flatnonzero(masked == masked.min())
    return int(ties[np.argmin(positions[ties])])


def _generate_cluster(
    pool: _Pool, emd: OrderedEMD, seed: int, from_seed: np.ndarray, k: int, threshold: float
) -> np.ndarray:
    """GenerateCluster(x, X', X, k, t) of TCM Algorithm 2 (§6); returns pool positions.

    ``from_seed`` holds squared distances from the seed record to every pool position. The
    pool itself is not changed: records examined or swapped out stay available.

    The candidates are examined in (distance, position) order; ``last`` is the key of the
    last one examined. The next one accepted is the first after ``last`` whose bin
    lowers the EMD, looked for in the ``_PREFIX`` closest candidates (sorted once per cluster),
    then in the records of the improving bins only (grouped by bin in the pool) when
    those are few, else in one masked pass over the pool. ``available`` bounds from above
    the unexamined candidates of every bin, so bins known to be used up are skipped.
    """
    alive = pool.alive
    if pool.count < 2 * k:  # |X'| < 2k: C = X'
        return np.flatnonzero(alive)
    dist = np.where(alive, from_seed, np.inf)
    dist[seed] = -1.0  # the seed itself is one of its k closest records
    ahead = min(k + _PREFIX, pool.count)
    nearest = closest_positions(dist, ahead)
    nearest = nearest[np.lexsort((nearest, dist[nearest]))]  # by (distance, position)
    cluster = nearest[:k].copy()  # the k records closest to x, x included
    counts = np.bincount(pool.bins[cluster], minlength=emd.m).astype(float)
    current = float(emd.of_counts(counts))
    if current <= threshold:
        return cluster
    dist[cluster] = np.inf  # finite distance = candidate
    prefix = nearest[k:]
    prefix_bins = pool.bins[prefix]
    available = pool.bin_counts - counts.astype(np.int64)
    every_bin = np.arange(emd.m)
    by_bin = None  # distances in the pool's by-bin order, read on first use
    head = 0  # next unexamined entry of the prefix
    last = (-np.inf, -1)
    while current > threshold:
        # EMD(C ∪ {y} \ {y'}) − EMD(C) for every bin of y and every member y' of C
        table = emd.swap_deltas(counts, every_bin, pool.bins[cluster])
        improving = (table.min(axis=1) < -EMD_TOLERANCE) & (available > 0)
        if not improving.any():
            break  # every remaining candidate would be examined and rejected
        y = -1
        if head < len(prefix):
            hits = np.flatnonzero(improving[prefix_bins[head:]])
            if hits.size:
                found = head + int(hits[0])
                np.subtract.at(available, prefix_bins[head : found + 1], 1)
                head = found + 1
                y = int(prefix[found])
            else:  # the whole prefix is examined against this C and rejected
                np.subtract.at(available, prefix_bins[head:], 1)
                head = len(prefix)
                last = (float(dist[prefix[-1]]), int(prefix[-1]))
        if y < 0:
            wanted = np.flatnonzero(improving)
            sizes = pool.bin_start[wanted + 1] - pool.bin_start[wanted]
            total = int(sizes.sum())
            if 4 * total <= len(dist):  # read the records of the improving bins only
                if by_bin is None:
                    by_bin = dist[pool.order]
                ends = np.cumsum(sizes)
                spots = np.arange(total) + np.repeat(pool.bin_start[wanted] - ends + sizes, sizes)
                found = _first_after(by_bin[spots], pool.order[spots], last)
                if found < 0:
                    break  # no improving bin has an unexamined candidate left
                y = int(pool.order[spots[found]])
            else:
                found = _first_after(
                    np.where(improving[pool.bins], dist, np.inf), pool.positions, last
                )
                if found < 0:
                    break
                y = found
        last = (float(dist[y]), y)
        change = table[pool.bins[y]]
        ties = np.flatnonzero(change <= change.min() + EMD_TOLERANCE)
        out = int(ties[np.argmin(pool.index[cluster[ties]])])  # y': lowest record index
        counts[pool.bins[cluster[out]]] -= 1.0
        counts[pool.bins[y]] += 1.0
        cluster[out] = y
        current += float(change[out])
    return cluster


def k_anonymity_first_numpy(
    qi: np.ndarray, confidential: np.ndarray, k: int, t: float, ground: str = "distinct"
) -> np.ndarray:
    """Cluster labels of the k-anonymity-first microaggregation (TCM §6, Algorithm 2).

    While records remain: x_a = average of the remaining records X', x_0 = the record of X'
    farthest from x_a, C = GenerateCluster(x_0), X' = X' \\ C; then, if X' is not empty,
    x_1 = the record of X' farthest from x_0, C = GenerateCluster(x_1), X' = X' \\ C.

    GenerateCluster(x): if |X'| < 2k, C = X'. Otherwise C = the k records of X' closest to
    x (x included), then the other records y of X' in increasing distance from x, while
    EMD(C) > t: y' = the member of C minimising EMD(C ∪ {y} \\ {y'}); C = C ∪ {y} \\ {y'} if
    that EMD is strictly below EMD(C). Records examined or swapped out stay in X' for later
    clusters; only the final C leaves X'.

    Distances are Euclidean on standardised quasi-identifiers, EMD is the ordered EMD of
    TCM §2.2, ties go to the lowest record index, and EMDs within
    :data:`~anonlab.tcloseness.merge.EMD_TOLERANCE` count as equal. Every cluster has k
    records except the last (k..2k−1); clusters need not be t-close (TCM §6), see
    :func:`tclose_kfirst`.

    Parameters
    ----------
    qi : ``(n, d)`` (or ``(n,)``) quasi-identifiers.
    confidential : ``(n,)`` confidential attribute (numeric, ordered).
    k : minimum cluster size, 1..n.
    t : t-closeness level, 0 < t ≤ 1.
    ground : EMD ground distance, ``"distinct"`` or ``"rank"``
        (:class:`~anonlab.tcloseness.emd.OrderedEMD`).

    Returns
    -------
    labels : cluster label of every record, 0..c−1 in order of creation.
    """
    points = standardise(qi)
    confidential = np.asarray(confidential, dtype=float)
    check_same_length(points, confidential)
    n = len(points)
    k = check_int(k, "k", 1, n)
    threshold = check_t(t) + EMD_TOLERANCE
    emd = OrderedEMD(confidential, ground)
    pool = _Pool(points, emd.bins, emd.m)
    labels = np.full(n, -1, dtype=np.int64)
    cluster = 0
    while pool.count:
        x0 = int(np.argmax(pool.sq_distances(pool.centroid(), -np.inf)))
        from_x0 = pool.sq_distances(pool.points[x0], np.inf)
        members = _generate_cluster(pool, emd, x0, from_x0, k, threshold)
        labels[pool.take(members)] = cluster
        cluster += 1
        if pool.count:
            from_x0[~pool.alive] = -np.inf
            x1 = int(np.argmax(from_x0))
            from_x1 = pool.sq_distances(pool.points[x1], np.inf)
            members = _generate_cluster(pool, emd, x1, from_x1, k, threshold)
            labels[pool.take(members)] = cluster
            cluster += 1
        pool.compact()
    return labels
