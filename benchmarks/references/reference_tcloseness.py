"""Plain NumPy implementations of TCM Algorithm 3 and of Algorithm 1's merging loop, as
they were before their loops were compiled (anonlab/tcloseness/tfirst.py, merge.py). The
compiled code must give the same partitions, ties included:
``benchmarks/timings/bench_tcloseness.py`` takes its ratios against these, and
``tests/tcloseness/test_kernels_tcloseness.py`` compares them on random data with many ties."""

from __future__ import annotations

import numpy as np

from anonlab.microaggregation.kernels import centroid, sq_distances
from anonlab.microaggregation.mdav import standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.merge import DISTANCE_TOLERANCE, EMD_TOLERANCE, first_appearance
from anonlab.tcloseness.tfirst import DEFAULT_ROUNDING, subset_sizes, tfirst_cluster_size
from anonlab.validation import ParameterError, check_int, check_t


def _lowest_record(candidates: np.ndarray, records: np.ndarray) -> int:
    """The position in ``candidates`` (positions) holding the lowest record index."""
    return int(candidates[np.argmin(records[candidates])])


def tclose_tfirst_numpy(
    qi: np.ndarray, confidential: np.ndarray, k: int, t: float, rounding: str = DEFAULT_ROUNDING
) -> np.ndarray:
    """Cluster label of every record by t-closeness-first microaggregation (TCM Algorithm 3).

    1. k' = :func:`tfirst_cluster_size` (TCM Expressions (3) and (4)).
    2. The records are sorted by the confidential attribute (ties by record index) and split
       into k' subsets S_1..S_k' of consecutive ranks, with sizes from :func:`subset_sizes`:
       ⌊n/k'⌋ each, and the n mod k' remaining records in the central subset(s).
    3. Clusters are formed in pairs on the standardised quasi-identifiers, as in MDAV. Let
       x_a be the average of the remaining records and x_0 the remaining record farthest
       from x_a. One cluster takes, for i = 1..k', the record of S_i closest to x_0. It also
       takes the next-closest record of S_i when |S_i| > |S_1| (both counted after this
       cluster's picks so far) and no extra record is in the cluster yet ("|C| = i" in
       Algorithm 3). Then x_1, the remaining record farthest from x_0, gets a cluster the
       same way. This repeats until no record remains.

    Ties go to the lowest record index. Every subset loses exactly one record per cluster,
    except that the first r clusters take a second record from a central subset. So there
    are ⌊n/k'⌋ clusters: the first n mod k' have k' + 1 records and the rest k'. Extra
    records come first from S_{k'/2} and then from S_{k'/2+1} when k' is even. If k' divides
    n, every cluster holds one record of each subset and its EMD is at most
    (n − k')/(2(n − 1)k') ≤ t (TCM Proposition 2).

    Each step is vectorised: one distance pass over the remaining records and a segmented
    minimum per subset. The remaining records are kept ordered by (subset, record index) and
    compacted as they are used up.

    Parameters
    ----------
    qi : ``(n, p)`` (or ``(n,)``) quasi-identifier values.
    confidential : ``(n,)`` confidential values; only their order is used.
    k : k-anonymity level, 1 ≤ k ≤ n.
    t : t-closeness level, 0 < t ≤ 1.
    rounding : Expression (4) rounding, see :func:`tfirst_cluster_size`.

    Returns
    -------
    numpy.ndarray
        ``(n,)`` int64 labels 0..c−1, numbered in the order the clusters are formed.
    """
    values = np.asarray(qi)
    if len(values) == 0:
        raise ParameterError("qi must hold at least one record, got 0")
    points = standardise(values)
    conf = np.asarray(confidential)
    if conf.ndim != 1 or len(conf) != len(points):
        raise ParameterError(
            f"confidential must be one value per record ({len(points)}), got shape {conf.shape}"
        )
    n = len(points)
    k = check_int(k, "k", 1, n)
    check_t(t)
    size = tfirst_cluster_size(n, k, t, rounding)

    # Subset of every record: ranks by the confidential value, ties by record index.
    rank_order = np.argsort(conf, kind="stable")
    sizes = subset_sizes(n, size)
    subset = np.empty(n, dtype=np.int64)
    subset[rank_order] = np.repeat(np.arange(size), sizes)
    # Remaining records ordered by (subset, record index); segment i holds S_i.
    order = np.lexsort((np.arange(n), subset))
    state = _Subsets(points[order], order, subset[order], size)

    labels = np.full(n, -1, dtype=np.int64)
    cluster = 0
    while state.count:
        far = state.farthest(state.distances(state.centroid()))
        from_seed = state.distances(state.points[far])
        labels[state.take_cluster(from_seed)] = cluster
        cluster += 1
        if state.count:
            far = state.farthest(from_seed)
            labels[state.take_cluster(state.distances(state.points[far]))] = cluster
            cluster += 1
        state.compact()
    return labels


class _Subsets:
    """The remaining records of S_1..S_k', ordered by (subset, record index), compacted as
    they are used up so every pass stays O(remaining)."""

    def __init__(
        self, points: np.ndarray, records: np.ndarray, subset: np.ndarray, size: int
    ) -> None:
        self.points = points
        self.records = records
        self.subset = subset
        self.size = size
        self.alive = np.ones(len(points), dtype=bool)
        self.count = len(points)
        self.remaining = np.bincount(subset, minlength=size)  # |S_i|
        self._bounds()

    def _bounds(self) -> None:
        self.starts = np.searchsorted(self.subset, np.arange(self.size))
        self.lengths = np.diff(np.append(self.starts, len(self.subset)))

    def centroid(self) -> np.ndarray:
        return centroid(self.points[self.alive])

    def distances(self, point: np.ndarray) -> np.ndarray:
        """Squared Euclidean distances to ``point`` (assigned positions included)."""
        return sq_distances(self.points, point)

    def farthest(self, distances: np.ndarray) -> int:
        """Position of the remaining record farthest away, ties by lowest record index."""
        d = np.where(self.alive, distances, -np.inf)
        return _lowest_record(np.flatnonzero(d == d.max()), self.records)

    def take_cluster(self, distances: np.ndarray) -> np.ndarray:
        """One cluster around the seed that ``distances`` are measured from: the closest
        remaining record of every S_i, plus the next-closest of the first S_i with
        |S_i| > |S_1| (TCM Algorithm 3). Returns the record indices."""
        d = np.where(self.alive, distances, np.inf)
        # Closest remaining record of every subset. No subset runs out before the last
        # cluster, since each loses one record per cluster and the central ones keep at
        # least |S_1|. Positions in a segment follow the record index, so the first one
        # reaching the segment's minimum is the lowest record.
        if not self.remaining.all():  # cannot happen when n mod k' ≤ ⌊n/k'⌋
            raise RuntimeError("a subset ran out of records before the others")
        minima = np.minimum.reduceat(d, self.starts)
        hits = np.flatnonzero(d == np.repeat(minima, self.lengths))
        picks = hits[np.searchsorted(hits, self.starts)]
        left = self.remaining - 1
        # "if |S_i| > |S_1| and |C| = i": only the first subset that qualifies gives a second
        # record, since after it |C| = i + 1 for every later i.
        extra = np.flatnonzero(left > left[0])
        if len(extra):
            i = int(extra[0])
            segment = d[self.starts[i] : self.starts[i] + self.lengths[i]].copy()
            segment[picks[i] - self.starts[i]] = np.inf
            picks = np.append(picks, self.starts[i] + int(np.argmin(segment)))
            left[i] -= 1
        self.remaining = left
        self.alive[picks] = False
        self.count -= len(picks)
        return self.records[picks]

    def compact(self) -> None:
        if self.count * 2 < len(self.points):
            keep = self.alive
            self.points = self.points[keep]
            self.records = self.records[keep]
            self.subset = self.subset[keep]
            self.alive = np.ones(self.count, dtype=bool)
            self._bounds()


def merge_until_t_close_numpy(
    points: np.ndarray, labels: np.ndarray, emd: OrderedEMD, t: float
) -> np.ndarray:
    """Merge clusters until every cluster is t-close (the loop of TCM Algorithm 1, §5).

    While some cluster has EMD > t: C is the cluster with the greatest EMD (TCM §2.2) to
    the whole data set and C' the cluster whose centroid (mean of its rows of ``points``)
    is closest to C's in Euclidean distance; C and C' are merged. Ties go to the lowest
    label; the merged cluster takes the lower of the two labels. Bin counts, sizes,
    centroid sums and EMDs are kept per cluster and updated for the merged cluster only:
    O(m) for its EMD and O(c·d) for the nearest-centroid search per merge.

    Parameters
    ----------
    points : ``(n, d)`` quasi-identifiers of the records, usually standardised.
    labels : cluster label (integer ≥ 0) of every record.
    emd : EMD of the data set's confidential attribute.
    t : t-closeness level, 0 < t ≤ 1.

    Returns
    -------
    labels : ``(n,)`` cluster labels 0..c−1 numbered in order of first appearance by
        record index. Every cluster has EMD ≤ t (up to :data:`EMD_TOLERANCE`).
    """
    points = np.asarray(points, dtype=float)
    if points.ndim == 1:
        points = points[:, None]
    labels = np.asarray(labels)
    t = check_t(t)
    if not (len(points) == len(labels) == emd.n):
        raise ParameterError(
            f"points ({len(points)}), labels ({len(labels)}) and the EMD's "
            f"data set ({emd.n}) must have the same number of records"
        )
    _, dense = np.unique(labels, return_inverse=True)
    dense = dense.ravel().astype(np.int64)
    n_clusters = int(dense.max()) + 1
    masses = emd.cluster_masses(dense)  # bin counts (or sorted member bins) per cluster
    sizes = np.bincount(dense, minlength=n_clusters).astype(float)
    sums = np.stack(
        [
            np.bincount(dense, weights=points[:, j], minlength=n_clusters)
            for j in range(points.shape[1])
        ],
        axis=1,
    )
    centroids = sums / sizes[:, None]
    emds = masses.emds()
    slot_label = np.arange(n_clusters)  # label of every slot, increasing
    parent = np.arange(n_clusters)  # label → the label it was merged into
    alive = np.ones(n_clusters, dtype=bool)
    n_alive = n_clusters
    threshold = t + EMD_TOLERANCE
    while True:
        greatest = emds.max()
        if greatest <= threshold:
            break
        worst = int(np.argmax(emds >= greatest - EMD_TOLERANCE))  # lowest label among ties
        dist = sq_distances(centroids, centroids[worst])
        dist[~alive] = np.inf
        dist[worst] = np.inf
        nearest_dist = dist.min()
        near = int(np.argmax(dist <= nearest_dist + DISTANCE_TOLERANCE * (1.0 + nearest_dist)))
        keep, drop = min(worst, near), max(worst, near)
        sizes[keep] += sizes[drop]
        sums[keep] += sums[drop]
        centroids[keep] = sums[keep] / sizes[keep]
        emds[keep] = masses.merge(keep, drop)
        emds[drop] = -np.inf
        alive[drop] = False
        parent[slot_label[drop]] = slot_label[keep]
        n_alive -= 1
        if n_alive * 2 < len(alive):  # compact, keeping slots in label order
            masses.compact(alive)
            sizes, sums = sizes[alive], sums[alive]
            centroids, emds, slot_label = centroids[alive], emds[alive], slot_label[alive]
            alive = np.ones(n_alive, dtype=bool)
    while True:  # follow merges to the surviving label
        hop = parent[parent]
        if np.array_equal(hop, parent):
            break
        parent = hop
    return first_appearance(parent[dense])
