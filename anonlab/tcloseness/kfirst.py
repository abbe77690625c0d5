"""t-Closeness aware microaggregation, k-anonymity first (TCM §6, Algorithm 2).

Clusters are seeded as in MDAV: x_0 is the remaining record farthest from the average of
the remaining records, x_1 the remaining record farthest from x_0, and so on in pairs.
GenerateCluster(x) takes the k records closest to x (x included) and then scans the other
remaining records in increasing distance from x: each y is swapped with the member y' of
the cluster that minimises EMD(C ∪ {y} \\ {y'}) (TCM §2.2) if that lowers the EMD, until
the cluster is t-close or the records are exhausted.

Speed (TCM §6 gives O(n³/k) for the loop that recomputes the EMD of every candidate). A
swap changes the cluster's cumulative distribution only on the bins between the two
confidential values, so the EMD change of every (incoming bin, outgoing member) pair is a
difference of two prefix sums, O(1) after an O(m) pass (:func:`_swap_prefixes`, the
arithmetic of :meth:`OrderedEMD.swap_deltas`, redone from the lower bin of the last swap
only). The best change depends on the incoming record through its bin only, and for each
bin on the least and greatest prefix sums at the members' bins, so one O(m + |C|) pass per
state of C tells which bins would lower EMD(C) (:func:`_improving_bins`). The candidates
examined against the same C are rejected up to the first one, in distance order, whose
bin lowers it, so no candidate needs an EMD of its own: the scan jumps from one accepted
swap to the next. That record is looked for among the ``_PREFIX`` closest candidates
(selected and sorted once per cluster), then as the closest of the first candidates of
the improving bins, each bin's found once and kept until the scan passes it
(:func:`_next_candidate`; the selection pass finds the closest record of every bin). The
whole loop is compiled with numba (:func:`_kfirst_kernel`): a cluster costs one distance
pass, one selection pass, O(m + |C|) per accepted swap and the reads of the records of
the bins whose first candidate is taken. On the Patient Discharge data of
``conf/dataset/patient_discharge.yaml`` (23,435 records × 7 quasi-identifiers, 77
confidential values, k = 2) a call takes about 0.6 s for t from 0.02 to 0.25 (MDAV alone
takes 0.5 s), against 10–20 s for the NumPy loop it replaces, and 12–24 s with the rank
ground (m = n bins) against 8–18 minutes. That loop is kept in
``benchmarks/references/reference_kfirst.py``; ``tests/tcloseness/test_kernels_kfirst.py``
checks that both give the same partitions, ties included, and
``benchmarks/timings/bench_kfirst.py`` times them.
The first call in a process loads the compiled code from numba's cache (about 0.4 s;
compiling it, the first time, takes about 7 s).

The arithmetic is fixed so that the compiled loop and the NumPy one agree to the bit:
squared distances are summed in attribute order and centroids in record order (the
passes of :mod:`anonlab.microaggregation.kernels`, shared with MDAV), a cluster's EMD is
:meth:`OrderedEMD.of_counts` with NumPy's pairwise summation of the m gaps
(:func:`~anonlab.microaggregation.kernels.pairwise_sum`), and a swap's EMD change is
:meth:`OrderedEMD.swap_deltas`'s difference of sequential prefix sums. EMDs within
:data:`~anonlab.tcloseness.merge.EMD_TOLERANCE` count as equal, as in the NumPy loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab.microaggregation.kernels import alive_argmax, alive_centroid, column_distances
from anonlab.microaggregation.mdav import standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.emd_kernels import counts_emd
from anonlab.tcloseness.merge import EMD_TOLERANCE, check_same_length, merge_until_t_close
from anonlab.validation import check_int, check_t

_PREFIX = 16  # candidates sorted by distance per cluster, read before any other search

# EMD arithmetic of TCM §2.2, as OrderedEMD computes it (anonlab/tcloseness/emd.py).


@njit(cache=True)
def _swap_prefixes(
    counts: np.ndarray,
    size: float,
    global_cdf: np.ndarray,
    cum: np.ndarray,
    up: np.ndarray,
    down: np.ndarray,
    start: int,
) -> None:
    """Prefix sums of :meth:`OrderedEMD.swap_deltas` (TCM §2.2, §6): a record of bin a
    replacing one of bin r moves the cumulative gap by +1/s on bins [a, r) or by −1/s on
    [r, a), so the EMD changes by (up[r] − up[a]) / (m − 1) when a < r, else by
    (down[a] − down[r]) / (m − 1) (:func:`_delta`). Recomputed from bin ``start`` on,
    ``cum``, ``up`` and ``down`` being right below it (a swap changes the cumulative
    counts only from the lower of its two bins on); the sums stay sequential."""
    step = 1.0 / size
    up[0] = 0.0
    down[0] = 0.0
    running = cum[start - 1] if start > 0 else 0.0
    for i in range(start, len(global_cdf)):
        running += counts[i]
        cum[i] = running
        gap = running / size - global_cdf[i]
        here = abs(gap)
        up[i + 1] = up[i] + (abs(gap + step) - here)
        down[i + 1] = down[i] + (abs(gap - step) - here)


@njit(cache=True)
def _improving_bins(
    up: np.ndarray,
    down: np.ndarray,
    member_bins: np.ndarray,
    available: np.ndarray,
    norm: float,
    tolerance: float,
    improving: np.ndarray,
    lowest_up: np.ndarray,
    highest_down: np.ndarray,
) -> bool:
    """Mark the bins a with unexamined candidates (``available``) whose record would lower
    EMD(C) replacing some member: min over the members' bins r of :func:`_delta` (a, r) <
    −tolerance; whether any is marked. ``member_bins`` is sorted. (x − c)/(m − 1) never
    decreases with x, so the least change over the members of bins r > a is the one of
    the least up[r], over those of bins r ≤ a the one of the greatest down[r]: O(m + |C|)
    in all, the decisions of the (m, |C|) table of :meth:`OrderedEMD.swap_deltas`."""
    k = len(member_bins)
    lowest_up[k] = np.inf
    for j in range(k - 1, -1, -1):
        lowest_up[j] = min(up[member_bins[j]], lowest_up[j + 1])
    for j in range(k):
        value = down[member_bins[j]]
        highest_down[j] = value if j == 0 else max(value, highest_down[j - 1])
    below = 0  # members of bins ≤ a
    found = False
    for a in range(len(available)):
        while below < k and member_bins[below] <= a:
            below += 1
        improving[a] = available[a] > 0 and (
            below < k
            and (lowest_up[below] - up[a]) / norm < -tolerance
            or below > 0
            and (down[a] - highest_down[below - 1]) / norm < -tolerance
        )
        found = found or improving[a]
    return found


@njit(cache=True)
def _delta(up: np.ndarray, down: np.ndarray, add: int, remove: int, norm: float) -> float:
    """Change of EMD(C) when a record of bin ``add`` replaces a member of bin ``remove``."""
    if add < remove:
        return (up[remove] - up[add]) / norm
    return (down[add] - down[remove]) / norm


# The pool of unclustered records and GenerateCluster.


@njit(cache=True)
def _group_by_bin(bins: np.ndarray, size: int, order: np.ndarray, bin_start: np.ndarray) -> None:
    """``order``: the positions 0..size−1 grouped by bin, increasing within a bin;
    ``bin_start[b]``: where bin b's group begins (counting sort)."""
    bin_start[:] = 0
    for i in range(size):
        bin_start[bins[i] + 1] += 1
    for b in range(len(bin_start) - 1):
        bin_start[b + 1] += bin_start[b]
    fill = bin_start[:-1].copy()
    for i in range(size):
        order[fill[bins[i]]] = i
        fill[bins[i]] += 1


_UNKNOWN = -2  # a bin's next candidate is not known (-1: the bin has none left)


@njit(cache=True)
def _after(value: float, position: int, other_value: float, other_position: int) -> bool:
    """Whether (value, position) comes after (other_value, other_position)."""
    return value > other_value or value == other_value and position > other_position


@njit(cache=True)
def _sift_down(values: np.ndarray, positions: np.ndarray, at: int, end: int) -> None:
    """Restore the max-heap order of (value, position) pairs in ``[0, end)`` below ``at``."""
    while True:
        child = 2 * at + 1
        if child >= end:
            return
        if child + 1 < end and _after(
            values[child + 1], positions[child + 1], values[child], positions[child]
        ):
            child += 1
        if not _after(values[child], positions[child], values[at], positions[at]):
            return
        values[at], values[child] = values[child], values[at]
        positions[at], positions[child] = positions[child], positions[at]
        at = child


@njit(cache=True)
def _nearest(
    dist: np.ndarray,
    size: int,
    alive: np.ndarray,
    seed: int,
    ahead: int,
    values: np.ndarray,
    positions: np.ndarray,
    bins: np.ndarray,
    next_dist: np.ndarray,
    next_position: np.ndarray,
) -> None:
    """The ``ahead`` alive positions of smallest (distance, position), ``seed`` first
    (distance −1), sorted into ``positions`` with their distances in ``values``: one pass
    keeping them in a max-heap (a later position never displaces an equal distance),
    which starts full of ``ahead`` pairs (inf, past the last position) that any alive
    record displaces, then heapsort (at least ``ahead`` records are alive). ``dist[seed]``
    is −1 during the pass.

    The same pass starts the cache of :func:`_next_candidate`: a bin whose closest record
    comes after the ``ahead`` selected ones has it as its first candidate after any of
    them; a bin with a record among them is ``_UNKNOWN``, a bin without records −1."""
    next_dist[:] = np.inf
    next_position[:] = -1
    for j in range(ahead):  # a max-heap: positions decrease from the root
        values[j] = np.inf
        positions[j] = size + ahead - 1 - j
    kept = dist[seed]
    dist[seed] = -1.0
    greatest = values[0]  # in a register: the stores below may alias ``values``
    for i in range(size):
        if not alive[i]:
            continue
        d = dist[i]
        b = bins[i]
        if d < next_dist[b]:  # positions increase: the first of equal distances
            next_dist[b] = d
            next_position[b] = i
        if d < greatest:  # replaces the greatest kept pair
            values[0] = d
            positions[0] = i
            _sift_down(values, positions, 0, ahead)
            greatest = values[0]
    dist[seed] = kept
    for end in range(ahead - 1, 0, -1):
        values[0], values[end] = values[end], values[0]
        positions[0], positions[end] = positions[end], positions[0]
        _sift_down(values, positions, 0, end)
    for b in range(len(next_position)):
        if next_position[b] >= 0 and not _after(
            next_dist[b], next_position[b], values[ahead - 1], positions[ahead - 1]
        ):
            next_position[b] = _UNKNOWN


@njit(cache=True)
def _next_candidate(
    dist: np.ndarray,
    size: int,
    alive: np.ndarray,
    bins: np.ndarray,
    order: np.ndarray,
    bin_start: np.ndarray,
    initial: np.ndarray,
    improving: np.ndarray,
    last_dist: float,
    last_position: int,
    next_dist: np.ndarray,
    next_position: np.ndarray,
) -> int:
    """The alive position of smallest (distance, position) after ``(last_dist,
    last_position)`` whose bin is improving, leaving out the cluster's first k records
    (``initial``); −1 if there is none.

    ``next_position[b]`` (with ``next_dist[b]``) caches bin b's first candidate after the
    ``last`` of an earlier search (−1: none, ``_UNKNOWN``: not computed for this cluster).
    ``last`` only grows within a cluster, so an entry stays right while it comes after
    ``last``, and a bin found empty stays empty. The stale entries of the improving bins
    are recomputed from the records of those bins when they are few, else every bin's
    entry in one pass over the pool."""
    m = len(improving)
    stale = 0
    for b in range(m):
        q = next_position[b]
        if improving[b] and (
            q == _UNKNOWN or q >= 0 and not _after(next_dist[b], q, last_dist, last_position)
        ):
            stale += bin_start[b + 1] - bin_start[b]
    if 4 * stale > size:  # one pass over the pool for every bin
        next_position[:] = -1
        for p in range(size):
            if not alive[p] or initial[p]:
                continue
            d, b = dist[p], bins[p]
            if (d > last_dist or d == last_dist and p > last_position) and (
                next_position[b] < 0 or d < next_dist[b]
            ):  # positions increase
                next_dist[b], next_position[b] = d, p
    elif stale:
        for b in range(m):
            q = next_position[b]
            if not improving[b] or not (
                q == _UNKNOWN or q >= 0 and not _after(next_dist[b], q, last_dist, last_position)
            ):
                continue
            best_dist, best = np.inf, -1
            for j in range(bin_start[b], bin_start[b + 1]):
                p = order[j]  # increasing within the bin
                if not alive[p] or initial[p]:
                    continue
                d = dist[p]
                if (d > last_dist or d == last_dist and p > last_position) and (
                    best < 0 or d < best_dist
                ):
                    best_dist, best = d, p
            next_dist[b], next_position[b] = best_dist, best
    best_dist, best = np.inf, -1
    for b in range(m):
        q = next_position[b]
        if improving[b] and q >= 0 and (best < 0 or not _after(next_dist[b], q, best_dist, best)):
            best_dist, best = next_dist[b], q
    return best


@njit(cache=True)
def _replace_sorted(values: np.ndarray, gone: int, come: int) -> None:
    """Replace one ``gone`` by ``come`` in the sorted ``values``, keeping them sorted."""
    at = 0
    while values[at] != gone:
        at += 1
    while at > 0 and values[at - 1] > come:
        values[at] = values[at - 1]
        at -= 1
    while at < len(values) - 1 and values[at + 1] < come:
        values[at] = values[at + 1]
        at += 1
    values[at] = come


@njit(cache=True)
def _generate_cluster(
    dist: np.ndarray,
    seed: int,
    size: int,
    count: int,
    alive: np.ndarray,
    bins: np.ndarray,
    order: np.ndarray,
    bin_start: np.ndarray,
    bin_alive: np.ndarray,
    initial: np.ndarray,
    k: int,
    prefix: int,
    global_cdf: np.ndarray,
    norm: float,
    threshold: float,
    tolerance: float,
    counts: np.ndarray,
    available: np.ndarray,
    improving: np.ndarray,
    up: np.ndarray,
    down: np.ndarray,
    work: np.ndarray,
    near_dist: np.ndarray,
    near: np.ndarray,
    change: np.ndarray,
    member_bins: np.ndarray,
    lowest_up: np.ndarray,
    highest_down: np.ndarray,
    next_dist: np.ndarray,
    next_position: np.ndarray,
    members: np.ndarray,
) -> int:
    """GenerateCluster(x, X', X, k, t) of TCM Algorithm 2 (§6): writes the cluster's pool
    positions into ``members`` and returns their number. The pool is not changed: records
    examined or swapped out stay available.

    ``dist`` holds squared distances from the seed record to every pool position. The
    candidates are examined in (distance, position) order; ``last`` is the key of the last
    one examined. The next one accepted is the first after ``last`` whose bin lowers the
    EMD, looked for in the ``prefix`` closest candidates (sorted once per cluster), then by
    :func:`_next_candidate`. ``available`` bounds from above the unexamined candidates of
    every bin, so bins known to be used up are skipped, and the scan stops when no
    improving bin has one left. ``member_bins`` keeps the members' bins sorted and
    ``work`` the cluster's cumulative bin counts; the other arrays are scratch."""
    if count < 2 * k:  # |X'| < 2k: C = X'
        taken = 0
        for i in range(size):
            if alive[i]:
                members[taken] = i
                taken += 1
        return taken
    m = len(global_cdf)
    ahead = min(k + prefix, count)
    _nearest(dist, size, alive, seed, ahead, near_dist, near, bins, next_dist, next_position)
    for r in range(k):  # the k records closest to x, x included
        members[r] = near[r]
        initial[near[r]] = True  # not a candidate
        counts[bins[near[r]]] += 1.0
    size_c = float(k)
    current = counts_emd(counts, global_cdf, norm, work)
    if current > threshold:
        filled = 0
        for b in range(m):
            available[b] = bin_alive[b] - int(counts[b])
            for _ in range(int(counts[b])):  # the members' bins, sorted
                member_bins[filled] = b
                filled += 1
        head = k  # next unexamined entry of the sorted candidates
        last_dist, last_position = -np.inf, -1
        changed = 0  # the prefix sums are right below this bin
        while current > threshold:
            # which bins y would lower EMD(C) swapped in for some member y'
            _swap_prefixes(counts, size_c, global_cdf, work, up, down, changed)
            if not _improving_bins(
                up,
                down,
                member_bins,
                available,
                norm,
                tolerance,
                improving,
                lowest_up,
                highest_down,
            ):
                break  # every remaining candidate would be examined and rejected
            y = -1
            if head < ahead:
                while head < ahead:
                    p = near[head]
                    head += 1
                    available[bins[p]] -= 1
                    if improving[bins[p]]:
                        y = p
                        break
                if y < 0:  # the rest of the sorted candidates is rejected against C
                    last_dist, last_position = near_dist[ahead - 1], near[ahead - 1]
            if y < 0:
                y = _next_candidate(
                    dist,
                    size,
                    alive,
                    bins,
                    order,
                    bin_start,
                    initial,
                    improving,
                    last_dist,
                    last_position,
                    next_dist,
                    next_position,
                )
                if y < 0:
                    break  # no improving bin has an unexamined candidate left
                available[bins[y]] -= 1
            last_dist, last_position = dist[y], y
            # y' = the member minimising EMD(C ∪ {y} \ {y'}); ties: lowest record index
            lowest = np.inf
            for r in range(k):
                change[r] = _delta(up, down, bins[y], bins[members[r]], norm)
                lowest = min(lowest, change[r])
            out = -1
            for r in range(k):
                if change[r] <= lowest + tolerance and (out < 0 or members[r] < members[out]):
                    out = r
            gone, come = bins[members[out]], bins[y]
            counts[gone] -= 1.0
            counts[come] += 1.0
            _replace_sorted(member_bins, gone, come)
            changed = min(gone, come)
            members[out] = y
            current += change[out]
    for r in range(k):
        counts[bins[members[r]]] = 0.0
        initial[near[r]] = False
    return k


@njit(cache=True)
def _compact(
    cols: np.ndarray, index: np.ndarray, bins: np.ndarray, alive: np.ndarray, size: int
) -> int:
    """Move the alive records to the front, in order, in place; returns their number."""
    kept = 0
    for i in range(size):
        if alive[i]:
            for j in range(cols.shape[0]):
                cols[j, kept] = cols[j, i]
            index[kept] = index[i]
            bins[kept] = bins[i]
            kept += 1
    alive[:kept] = True
    return kept


@njit(cache=True)
def _kfirst_kernel(
    points: np.ndarray,
    record_bins: np.ndarray,
    global_cdf: np.ndarray,
    norm: float,
    k: int,
    threshold: float,
    tolerance: float,
    prefix: int,
) -> np.ndarray:
    """Cluster labels of Algorithm 2 on standardised ``points`` (see
    :func:`k_anonymity_first`): the NumPy loop of ``benchmarks/references/reference_kfirst.py``,
    step for step. The records are stored by column, so each distance pass is vectorised over
    records, and compacted once a quarter of them are used up, in record order: ties
    broken by the lowest position are broken by the lowest record index."""
    n = points.shape[0]
    m = len(global_cdf)
    labels = np.full(n, -1, dtype=np.int64)
    cols = np.ascontiguousarray(points.T)
    index = np.arange(n)
    bins = record_bins.copy()
    alive = np.ones(n, dtype=np.bool_)
    initial = np.zeros(n, dtype=np.bool_)  # the first k records of the cluster being built
    bin_alive = np.zeros(m, dtype=np.int64)
    for i in range(n):
        bin_alive[bins[i]] += 1
    order = np.empty(n, dtype=np.int64)
    bin_start = np.empty(m + 1, dtype=np.int64)
    _group_by_bin(bins, n, order, bin_start)
    from_centre, from_seed = np.empty(n), np.empty(n)
    from_x0 = np.empty(n)
    ahead = min(k + prefix, n)
    counts, available, improving = (
        np.zeros(m),
        np.empty(m, dtype=np.int64),
        np.zeros(m, dtype=np.bool_),
    )
    up, down, work = np.empty(m + 1), np.empty(m + 1), np.empty(m)
    near_dist, near, change = np.empty(ahead), np.empty(ahead, dtype=np.int64), np.empty(k)
    member_bins, lowest_up, highest_down = np.empty(k, dtype=np.int64), np.empty(k + 1), np.empty(k)
    next_dist, next_position = np.empty(m), np.empty(m, dtype=np.int64)
    members = np.empty(n, dtype=np.int64)
    size, count, cluster = n, n, 0
    while count > 0:
        # x0 = the record farthest from the average, x1 = the record farthest from x0
        seed = -1
        for step in range(2):
            if step == 0:
                column_distances(cols, size, alive_centroid(cols, size, alive, count), from_centre)
                seed = alive_argmax(from_centre, size, alive)
                column_distances(cols, size, cols[:, seed].copy(), from_x0)
                dist = from_x0
            else:
                if count == 0:
                    break
                seed = alive_argmax(from_x0, size, alive)
                column_distances(cols, size, cols[:, seed].copy(), from_seed)
                dist = from_seed
            taken = _generate_cluster(
                dist,
                seed,
                size,
                count,
                alive,
                bins,
                order,
                bin_start,
                bin_alive,
                initial,
                k,
                prefix,
                global_cdf,
                norm,
                threshold,
                tolerance,
                counts,
                available,
                improving,
                up,
                down,
                work,
                near_dist,
                near,
                change,
                member_bins,
                lowest_up,
                highest_down,
                next_dist,
                next_position,
                members,
            )
            for r in range(taken):
                p = members[r]
                alive[p] = False
                bin_alive[bins[p]] -= 1
                labels[index[p]] = cluster
            count -= taken
            cluster += 1
        if 0 < count and count * 4 < size * 3:  # compact, keeping the records' order
            size = _compact(cols, index, bins, alive, size)
            _group_by_bin(bins, size, order, bin_start)
    return labels


def k_anonymity_first(
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
    return _kfirst_kernel(
        np.ascontiguousarray(points, dtype=float),
        emd.bins,
        emd.global_cdf,
        float(max(emd.m - 1, 1)),
        k,
        threshold,
        EMD_TOLERANCE,
        int(_PREFIX),
    )


def tclose_kfirst(
    qi: np.ndarray, confidential: np.ndarray, k: int, t: float, ground: str = "distinct"
) -> np.ndarray:
    """k-Anonymous t-closeness with Algorithm 2 as the microaggregation of Algorithm 1.

    TCM §6: Algorithm 2 alone may leave clusters that are not t-close (the records run out
    before the EMD reaches t), so it is used as the microaggregation function in
    Algorithm 1, whose merging loop (:func:`merge_until_t_close`, TCM §5) then enforces
    t-closeness.

    Parameters
    ----------
    qi : ``(n, d)`` (or ``(n,)``) quasi-identifiers.
    confidential : ``(n,)`` confidential attribute (numeric, ordered).
    k : minimum cluster size, 1..n.
    t : t-closeness level, 0 < t ≤ 1.
    ground : EMD ground distance, ``"distinct"`` or ``"rank"``, for both steps.

    Returns
    -------
    labels : cluster label 0..c−1 of every record (order of first appearance); every
        cluster has ≥ k records and EMD ≤ t.
    """
    labels = k_anonymity_first(qi, confidential, k, t, ground)
    return merge_until_t_close(
        standardise(qi), labels, OrderedEMD(np.asarray(confidential, dtype=float), ground), t
    )
