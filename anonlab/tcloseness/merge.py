"""t-Closeness through standard microaggregation and merging (TCM §5, Algorithm 1).

MDAV microaggregates the quasi-identifiers (QIs); then, while some cluster is farther than
t from the whole data set (EMD of TCM §2.2), the cluster with the greatest EMD is merged
with the cluster whose QI centroid is closest to its own. The loop always ends: once a
single cluster is left its EMD is 0 (TCM §5).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab.microaggregation.mdav import mdav, standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.emd_kernels import counts_emd, linked_bins_emd, merge_linked
from anonlab.validation import ParameterError, check_int, check_t

#: Absolute slack on EMD comparisons (EMDs lie in [0, 1]). Two EMDs closer than this are
#: equal, so rounding in the cumulative sums neither breaks a tie nor fails a threshold.
EMD_TOLERANCE = 1e-13
#: Relative slack on squared centroid distances, for the same reason.
DISTANCE_TOLERANCE = 1e-12


def check_same_length(qi: np.ndarray, confidential: np.ndarray) -> None:
    """Raise :class:`ParameterError` unless there is one confidential value per record."""
    if len(qi) != len(confidential):
        raise ParameterError(
            f"qi has {len(qi)} records but confidential has {len(confidential)} values"
        )
    if len(qi) == 0:
        raise ParameterError("the data set has no records")


def first_appearance(labels: np.ndarray) -> np.ndarray:
    """Renumber labels 0..c−1 in order of first appearance by record index."""
    _, first, dense = np.unique(labels, return_index=True, return_inverse=True)
    rank = np.empty(len(first), dtype=np.int64)
    rank[np.argsort(first, kind="stable")] = np.arange(len(first))
    return rank[dense.ravel()]


def merge_until_t_close(
    points: np.ndarray, labels: np.ndarray, emd: OrderedEMD, t: float
) -> np.ndarray:
    """Merge clusters until every cluster is t-close (the loop of TCM Algorithm 1, §5).

    While some cluster has EMD > t: C is the cluster with the greatest EMD (TCM §2.2) to
    the whole data set and C' the cluster whose centroid (mean of its rows of ``points``)
    is closest to C's in Euclidean distance; C and C' are merged. Ties go to the lowest
    label; the merged cluster takes the lower of the two labels. Bin counts, sizes,
    centroid sums and EMDs are kept per cluster and updated for the merged cluster only:
    O(m) for its EMD and O(c·d) for the nearest-centroid search per merge.

    The loop is compiled (:func:`_merge_kernel`, numba) with NumPy's arithmetic: squared
    distances summed in attribute order, EMDs as :class:`~anonlab.tcloseness.emd.
    OrderedEMD` computes them (``benchmarks/references/reference_tcloseness.py`` keeps the NumPy
    loop and ``tests/tcloseness/test_kernels_tcloseness.py`` checks both give the same
    partitions). On
    Patient Discharge, MDAV's 11,717 clusters at k = 2 merge down to t = 0.02 (493
    clusters) in about 0.13 s, against 2.2 s for the NumPy loop
    (``benchmarks/timings/bench_tcloseness.py``).

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
    if points.shape[1] == 0 or not np.isfinite(points).all():
        raise ParameterError(
            "points must hold at least one attribute, all finite (no NaN or infinity)"
        )
    _, dense = np.unique(labels, return_inverse=True)
    dense = dense.ravel().astype(np.int64)
    n_clusters = int(dense.max()) + 1
    sizes = np.bincount(dense, minlength=n_clusters).astype(float)
    width = -(-points.shape[1] // LANES) * LANES
    sums = np.zeros((width, n_clusters))  # by column, padded with zero columns
    for j in range(points.shape[1]):
        sums[j] = np.bincount(dense, weights=points[:, j], minlength=n_clusters)
    if emd.sparse:  # every cluster's records linked in increasing bin
        counts = np.zeros((0, 0))
        order = np.lexsort((emd.bins, dense))
        following = np.full(len(dense), -1, dtype=np.int64)
        same = dense[order[1:]] == dense[order[:-1]]
        following[order[:-1][same]] = order[1:][same]
        firsts = order[np.concatenate([[True], ~same])]  # every cluster's lowest bin
        heads = np.empty(n_clusters, dtype=np.int64)
        heads[dense[firsts]] = firsts
        emds = emd._sorted_partition(dense)
    else:
        counts = emd.cluster_counts(dense)
        following = heads = np.zeros(0, dtype=np.int64)
        emds = np.asarray(emd.of_counts(counts), dtype=float)
    parent = _merge_kernel(
        sums,
        sizes,
        emds,
        counts,
        heads,
        following,
        emd.bins,
        emd.global_cdf,
        emd._cdf_prefix,
        float(emd._norm),
        emd.sparse,
        t + EMD_TOLERANCE,
    )
    while True:  # follow merges to the surviving label
        hop = parent[parent]
        if np.array_equal(hop, parent):
            break
        parent = hop
    return first_appearance(parent[dense])


#: centroids are padded with zero columns to a multiple of this (adding (0 − 0)² = 0
#: leaves a squared distance unchanged), so a distance pass reads 4 or 8 of them at once
LANES = 4


@njit(cache=True)
def sq_distances_by_column(
    cols: np.ndarray, size: int, point: np.ndarray, penalty: np.ndarray, out: np.ndarray
) -> None:
    """Squared distances of the first ``size`` points (columns of ``cols``, rows padded with
    zeros to a multiple of :data:`LANES`) to ``point``, each summed in attribute order as
    :func:`~anonlab.microaggregation.kernels.sq_distances` does, eight (or four)
    attributes per pass over the points, vectorised over points; then ``penalty[i]`` is
    added (0 leaves a distance unchanged, ∞ rules a point out)."""
    width, j = cols.shape[0], 0
    while j < width:
        c0, c1, c2, c3 = cols[j], cols[j + 1], cols[j + 2], cols[j + 3]
        p0, p1, p2, p3 = point[j], point[j + 1], point[j + 2], point[j + 3]
        if width - j >= 8:
            c4, c5, c6, c7 = cols[j + 4], cols[j + 5], cols[j + 6], cols[j + 7]
            p4, p5, p6, p7 = point[j + 4], point[j + 5], point[j + 6], point[j + 7]
            last = j + 8 == width
            for i in range(size):
                d0, d1, d2, d3 = c0[i] - p0, c1[i] - p1, c2[i] - p2, c3[i] - p3
                d4, d5, d6, d7 = c4[i] - p4, c5[i] - p5, c6[i] - p6, c7[i] - p7
                total = d0 * d0 if j == 0 else out[i] + d0 * d0
                total = total + d1 * d1 + d2 * d2 + d3 * d3 + d4 * d4 + d5 * d5 + d6 * d6 + d7 * d7
                out[i] = total + penalty[i] if last else total
            j += 8
        else:
            last = j + 4 == width
            for i in range(size):
                d0, d1, d2, d3 = c0[i] - p0, c1[i] - p1, c2[i] - p2, c3[i] - p3
                total = d0 * d0 if j == 0 else out[i] + d0 * d0
                total = total + d1 * d1 + d2 * d2 + d3 * d3
                out[i] = total + penalty[i] if last else total
            j += 4


@njit(cache=True)
def _smallest(values: np.ndarray, size: int) -> float:
    """The smallest of the first ``size`` values (no NaN), in eight independent lanes."""
    l0 = l1 = l2 = l3 = l4 = l5 = l6 = l7 = np.inf
    i = 0
    while i + 8 <= size:
        l0 = l0 if l0 <= values[i] else values[i]
        l1 = l1 if l1 <= values[i + 1] else values[i + 1]
        l2 = l2 if l2 <= values[i + 2] else values[i + 2]
        l3 = l3 if l3 <= values[i + 3] else values[i + 3]
        l4 = l4 if l4 <= values[i + 4] else values[i + 4]
        l5 = l5 if l5 <= values[i + 5] else values[i + 5]
        l6 = l6 if l6 <= values[i + 6] else values[i + 6]
        l7 = l7 if l7 <= values[i + 7] else values[i + 7]
        i += 8
    for j in range(i, size):
        l0 = l0 if l0 <= values[j] else values[j]
    return min(min(min(l0, l1), min(l2, l3)), min(min(l4, l5), min(l6, l7)))


@njit(cache=True)
def _set_largest(tree: np.ndarray, slot: int, value: float) -> None:
    """Set a leaf of the max-tree ``tree`` (leaves from ``len(tree) // 2``) and the maxima
    above it."""
    node = len(tree) // 2 + slot
    tree[node] = value
    while node > 1:
        node //= 2
        tree[node] = max(tree[2 * node], tree[2 * node + 1])


@njit(cache=True)
def _merge_kernel(
    sums: np.ndarray,
    sizes: np.ndarray,
    emds: np.ndarray,
    counts: np.ndarray,
    heads: np.ndarray,
    following: np.ndarray,
    bins: np.ndarray,
    global_cdf: np.ndarray,
    prefix: np.ndarray,
    norm: float,
    sparse: bool,
    threshold: float,
) -> np.ndarray:
    """The merging loop of :func:`merge_until_t_close` on c clusters, labelled 0..c−1:
    ``sums`` their coordinate sums by column (padded), ``sizes`` and ``emds`` theirs; for
    the distinct ground ``counts`` their bin counts, for the rank ground their records
    linked in increasing bin (``heads``, ``following``). Returns ``parent``: the label
    every label was merged into (itself if it survives).

    The clusters sit in slots in label order. A merged-away slot gets an infinite distance
    penalty and EMD −∞, and the slots in use move to the front once 1/16 are not. The
    greatest EMD, and the first slot within :data:`EMD_TOLERANCE` of it, are read off a
    max-tree over the slots' EMDs in O(log c); the nearest centroid takes one distance
    pass."""
    c = len(sizes)
    width = sums.shape[0]
    parent = np.arange(c)
    label = np.arange(c)  # label of every slot
    centroids = np.empty((width, c))
    point = np.empty(width)
    for j in range(width):
        for i in range(c):
            centroids[j, i] = sums[j, i] / sizes[i]
    penalty = np.zeros(c)
    distances = np.empty(c)
    scratch = np.empty(counts.shape[1])
    leaves = 1
    while leaves < c:
        leaves *= 2
    tree = np.empty(2 * leaves)
    slots, alive, rebuild = c, c, True
    while True:
        if rebuild:
            for node in range(leaves, 2 * leaves):
                tree[node] = emds[node - leaves] if node - leaves < slots else -np.inf
            for node in range(leaves - 1, 0, -1):
                tree[node] = max(tree[2 * node], tree[2 * node + 1])
            rebuild = False
        greatest = tree[1]
        if greatest <= threshold:
            break
        floor = greatest - EMD_TOLERANCE
        node = 1  # the first slot whose EMD is ≥ floor: the lowest label among ties
        while node < leaves:
            node = 2 * node if tree[2 * node] >= floor else 2 * node + 1
        worst = node - leaves
        penalty[worst] = np.inf
        for j in range(width):
            point[j] = centroids[j, worst]
        sq_distances_by_column(centroids, slots, point, penalty, distances)
        penalty[worst] = 0.0
        nearest = _smallest(distances, slots)
        bound = nearest + DISTANCE_TOLERANCE * (1.0 + nearest)
        near = 0
        while near < slots - 1 and not distances[near] <= bound:  # lowest label of ties
            near += 1
        keep, drop = min(worst, near), max(worst, near)
        sizes[keep] += sizes[drop]
        for j in range(width):
            sums[j, keep] += sums[j, drop]
            centroids[j, keep] = sums[j, keep] / sizes[keep]
        kept, dropped = label[keep], label[drop]
        if sparse:
            heads[kept] = merge_linked(heads[kept], heads[dropped], following, bins)
            emds[keep] = linked_bins_emd(
                heads[kept], int(sizes[keep]), following, bins, global_cdf, prefix, norm
            )
        else:
            for b in range(counts.shape[1]):
                counts[kept, b] += counts[dropped, b]
            emds[keep] = counts_emd(counts[kept], global_cdf, norm, scratch)
        emds[drop] = -np.inf
        _set_largest(tree, keep, emds[keep])
        _set_largest(tree, drop, -np.inf)
        penalty[drop] = np.inf
        parent[dropped] = kept
        alive -= 1
        if (slots - alive) * 16 > slots:  # compact, keeping slots in label order
            at = 0
            for i in range(slots):
                if penalty[i] == 0.0:
                    for j in range(width):
                        sums[j, at] = sums[j, i]
                        centroids[j, at] = centroids[j, i]
                    sizes[at], emds[at], label[at] = sizes[i], emds[i], label[i]
                    at += 1
            slots = alive
            for i in range(slots):
                penalty[i] = 0.0
            rebuild = True
    return parent


def tclose_merge(
    qi: np.ndarray, confidential: np.ndarray, k: int, t: float, ground: str = "distinct"
) -> np.ndarray:
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
