"""t-Closeness through standard microaggregation and merging (TCM §5, Algorithm 1).

MDAV microaggregates the quasi-identifiers (QIs); then, while some cluster is farther than
t from the whole data set (EMD of TCM §2.2), the cluster with the greatest EMD is merged
with the cluster whose QI centroid is closest to its own. The loop always ends: once a
single cluster is left its EMD is 0 (TCM §5).
"""

from __future__ import annotations

import numpy as np

from anonlab.microaggregation.kernels import sq_distances
from anonlab.microaggregation.mdav import mdav, standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.validation import ParameterError, check_int, check_t

#: Absolute slack on EMD comparisons (EMDs lie in [0, 1]). Two EMDs closer than this are
#: equal, so rounding in the cumulative sums neither breaks a tie nor fails a threshold.
EMD_TOLERANCE = 1e-13
#: Relative slack on squared centroid distances, for the same reason.
DISTANCE_TOLERANCE = 1e-12


def check_same_length(qi: np.ndarray, confidential: np.ndarray) -> None:
    """Raise :class:`ParameterError` unless there is one confidential value per record."""
    if len(qi) != len(confidential):
        raise ParameterError(f"qi has {len(qi)} records but confidential has "
                             f"{len(confidential)} values")
    if len(qi) == 0:
        raise ParameterError("the data set has no records")


def first_appearance(labels: np.ndarray) -> np.ndarray:
    """Renumber labels 0..c−1 in order of first appearance by record index."""
    _, first, dense = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[dense.ravel()]


def merge_until_t_close(points: np.ndarray, labels: np.ndarray, emd: OrderedEMD,
                        t: float) -> np.ndarray:
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
        raise ParameterError(f"points ({len(points)}), labels ({len(labels)}) and the EMD's "
                             f"data set ({emd.n}) must have the same number of records")
    _, dense = np.unique(labels, return_inverse=True)
    dense = dense.ravel().astype(np.int64)
    n_clusters = int(dense.max()) + 1
    masses = emd.cluster_masses(dense)  # bin counts (or sorted member bins) per cluster
    sizes = np.bincount(dense, minlength=n_clusters).astype(float)
    sums = np.stack([np.bincount(dense, weights=points[:, j], minlength=n_clusters)
                     for j in range(points.shape[1])], axis=1)
    centroids = sums / sizes[:, None]
    emds = masses.emds()
    slot_label = np.arange(n_clusters)  # label of every slot, increasing
    parent = np.arange(n_clusters)      # label → the label it was merged into
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


def tclose_merge(qi: np.ndarray, confidential: np.ndarray, k: int, t: float,
                 ground: str = "distinct") -> np.ndarray:
    """k-Anonymous t-closeness by MDAV and merging (TCM §5, Algorithm 1).

    ``X' = microaggregation(X, k)`` with MDAV on the standardised quasi-identifiers, then
    :func:`merge_until_t_close` with Euclidean distances between standardised centroids.

    Parameters
    ----------
    qi : ``(n, d)`` (or ``(n,)``) quasi-identifiers.
    confidential : ``(n,)`` confidential attribute (numeric, ordered).
    k : minimum cluster size, 1..n.
    t : t-closeness level, 0 < t ≤ 1.
    ground : EMD ground distance, ``"distinct"`` (TCM §2.2) or ``"rank"`` (TCM
        Propositions 1–2), see :class:`~anonlab.tcloseness.emd.OrderedEMD`.

    Returns
    -------
    labels : cluster label 0..c−1 of every record; every cluster has ≥ k records and
        EMD ≤ t.
    """
    qi = np.asarray(qi, dtype=float)
    confidential = np.asarray(confidential, dtype=float)
    check_same_length(qi, confidential)
    k = check_int(k, "k", 1, len(qi))
    t = check_t(t)
    labels = mdav(qi, k)
    return merge_until_t_close(standardise(qi), labels, OrderedEMD(confidential, ground), t)
