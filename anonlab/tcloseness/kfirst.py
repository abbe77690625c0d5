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
``benchmarks/reference_kfirst.py``; ``tests/test_kernels_kfirst.py`` checks that both
give the same partitions, ties included, and ``benchmarks/bench_kfirst.py`` times them.
The first call in a process loads the compiled code from numba's cache (about 0.4 s;
compiling it, the first time, takes about 7 s).

The arithmetic is fixed so that the compiled loop and the NumPy one agree to the bit:
squared distances are summed in attribute order and centroids in record order (as
:func:`~anonlab.microaggregation.kernels.sq_distances` and
:func:`~anonlab.microaggregation.kernels.centroid`), a cluster's EMD is
:meth:`OrderedEMD.of_counts` with NumPy's pairwise summation of the m gaps
(:func:`_pairwise_sum`), and a swap's EMD change is :meth:`OrderedEMD.swap_deltas`'s
difference of sequential prefix sums. EMDs within
:data:`~anonlab.tcloseness.merge.EMD_TOLERANCE` count as equal, as in the NumPy loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab.microaggregation.mdav import standardise
from anonlab.tcloseness.emd import OrderedEMD
from anonlab.tcloseness.merge import EMD_TOLERANCE, check_same_length, merge_until_t_close
from anonlab.validation import check_int, check_t

_PREFIX = 16  # candidates sorted by distance per cluster, read before any other search

# The distance, centroid and argmax loops below compute what those of
# anonlab/microaggregation/kernels.py compute, to the bit, rather than call them: numba's
# cache of a function is not invalidated when a function it calls from another module
# changes, so a cached Algorithm 2 could otherwise keep an old copy of them.


@njit(cache=True)
def _weight(attribute: int, last: int) -> float:
    """1 for an attribute, 0 past the last one."""
    return 1.0 if attribute <= last else 0.0


@njit(cache=True)
def _distances(cols: np.ndarray, size: int, point: np.ndarray, out: np.ndarray) -> None:
    """Squared distances of the first ``size`` records (columns of ``cols``) to ``point``:
    each record's sum in attribute order, up to eight attributes per pass over the records
    (vectorised over records). In the last pass the attributes past the last one repeat it
    with weight 0: adding 0·(d·d) = +0 to a sum of squares leaves it unchanged to the bit
    (d·d is finite and ≥ 0), so the sums are those of
    :func:`~anonlab.microaggregation.kernels.sq_distances`."""
    m, last = cols.shape[0], cols.shape[0] - 1
    for j in range(0, m, 8):
        c0, c1, c2, c3 = cols[j], cols[min(j + 1, last)], cols[min(j + 2, last)], \
            cols[min(j + 3, last)]
        c4, c5, c6, c7 = cols[min(j + 4, last)], cols[min(j + 5, last)], \
            cols[min(j + 6, last)], cols[min(j + 7, last)]
        p0, p1, p2, p3 = point[j], point[min(j + 1, last)], point[min(j + 2, last)], \
            point[min(j + 3, last)]
        p4, p5, p6, p7 = point[min(j + 4, last)], point[min(j + 5, last)], \
            point[min(j + 6, last)], point[min(j + 7, last)]
        w1, w2, w3, w4 = _weight(j + 1, last), _weight(j + 2, last), \
            _weight(j + 3, last), _weight(j + 4, last)
        w5, w6, w7 = _weight(j + 5, last), _weight(j + 6, last), _weight(j + 7, last)
        for i in range(size):
            d0, d1, d2, d3 = c0[i] - p0, c1[i] - p1, c2[i] - p2, c3[i] - p3
            d4, d5, d6, d7 = c4[i] - p4, c5[i] - p5, c6[i] - p6, c7[i] - p7
            total = d0 * d0 if j == 0 else out[i] + d0 * d0
            out[i] = (total + w1 * (d1 * d1) + w2 * (d2 * d2) + w3 * (d3 * d3)
                      + w4 * (d4 * d4) + w5 * (d5 * d5) + w6 * (d6 * d6) + w7 * (d7 * d7))


_BLOCK = 8  # the centroid pass keeps this many column sums in registers at once


@njit(cache=True)
def _centroid(cols: np.ndarray, size: int, alive: np.ndarray, count: int) -> np.ndarray:
    """Mean of the alive records, each column summed in record order."""
    m = cols.shape[0]
    total = np.zeros(m)
    last = m - 1
    for j0 in range(0, m, _BLOCK):
        # the block's columns; past the last column, the last column again (not stored)
        c0, c1, c2, c3 = cols[j0], cols[min(j0 + 1, last)], cols[min(j0 + 2, last)], \
            cols[min(j0 + 3, last)]
        c4, c5, c6, c7 = cols[min(j0 + 4, last)], cols[min(j0 + 5, last)], \
            cols[min(j0 + 6, last)], cols[min(j0 + 7, last)]
        a0 = a1 = a2 = a3 = a4 = a5 = a6 = a7 = 0.0
        for i in range(size):
            if alive[i]:
                a0 += c0[i]
                a1 += c1[i]
                a2 += c2[i]
                a3 += c3[i]
                a4 += c4[i]
                a5 += c5[i]
                a6 += c6[i]
                a7 += c7[i]
        sums = (a0, a1, a2, a3, a4, a5, a6, a7)
        for q in range(min(_BLOCK, m - j0)):
            total[j0 + q] = sums[q]
    return total / count


@njit(cache=True)
def _argmax(values: np.ndarray, size: int, alive: np.ndarray) -> int:
    """The first alive position of the largest value (``values`` finite)."""
    best, largest = -1, -np.inf
    for i in range(size):
        value = values[i] if alive[i] else -np.inf
        if value > largest:
            best, largest = i, value
    return best


# EMD arithmetic of TCM §2.2, as OrderedEMD computes it (anonlab/tcloseness/emd.py).

@njit(cache=True)
def _block_sum(values: np.ndarray, start: int, length: int) -> float:
    """NumPy's sum of a block of up to 128 values: sequential below 8 values, else eight
    interleaved partial sums combined as a tree, then the last ``length % 8`` values."""
    if length < 8:
        res = 0.0
        for i in range(start, start + length):
            res += values[i]
        return res
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], \
        values[start + 7]
    i = start + 8
    end8 = start + length - length % 8
    while i < end8:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + length:
        res += values[i]
        i += 1
    return res


@njit(cache=True)
def _pairwise_sum(values: np.ndarray, length: int) -> float:
    """Sum of ``values[:length]`` in NumPy's order for a contiguous float reduction, so the
    result is ``np.sum``'s to the bit: blocks of up to 128 values (:func:`_block_sum`),
    longer runs halved (the first half a multiple of 8) and the halves' sums added. The
    halving is unrolled on a stack (numba's cache cannot hold recursive functions)."""
    starts = np.empty(64, dtype=np.int64)
    lengths = np.empty(64, dtype=np.int64)
    stage = np.empty(64, dtype=np.int64)  # 0: left half next, 1: right half, 2: add them
    sums = np.empty(64)
    top, held = 0, 0
    starts[0], lengths[0], stage[0] = 0, length, 0
    while top >= 0:
        start, size = starts[top], lengths[top]
        if size <= 128:
            sums[held] = _block_sum(values, start, size)
            held += 1
            top -= 1
            continue
        half = size // 2
        half -= half % 8
        if stage[top] == 2:
            sums[held - 2] = sums[held - 2] + sums[held - 1]
            held -= 1
            top -= 1
            continue
        if stage[top] == 0:
            starts[top + 1], lengths[top + 1] = start, half
        else:
            starts[top + 1], lengths[top + 1] = start + half, size - half
        stage[top] += 1
        top += 1
        stage[top] = 0
    return sums[0]


@njit(cache=True)
def _emd_of_counts(counts: np.ndarray, size: float, global_cdf: np.ndarray, norm: float,
                   work: np.ndarray) -> float:
    """EMD of the cluster with bin ``counts`` (``size`` records), as
    :meth:`OrderedEMD.of_counts`: Σ_i |P_i − Q_i| / (m − 1), P and Q the cumulative
    distributions (TCM §2.2), summed pairwise."""
    m = len(global_cdf)
    cum = 0.0
    for i in range(m):
        cum += counts[i]
        work[i] = abs(cum / size - global_cdf[i])
    return _pairwise_sum(work, m) / norm


@njit(cache=True)
def _swap_prefixes(counts: np.ndarray, size: float, global_cdf: np.ndarray, cum: np.ndarray,
                   up: np.ndarray, down: np.ndarray, start: int) -> None:
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
def _improving_bins(up: np.ndarray, down: np.ndarray, member_bins: np.ndarray,
                    available: np.ndarray, norm: float, tolerance: float,
                    improving: np.ndarray, lowest_up: np.ndarray,
                    highest_down: np.ndarray) -> bool:
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
            below < k and (lowest_up[below] - up[a]) / norm < -tolerance
            or below > 0 and (down[a] - highest_down[below - 1]) / norm < -tolerance)
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
def _group_by_bin(bins: np.ndarray, size: int, order: np.ndarray,
                  bin_start: np.ndarray) -> None:
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
        if child + 1 < end and _after(values[child + 1], positions[child + 1],
                                      values[child], positions[child]):
            child += 1
        if not _after(values[child], positions[child], values[at], positions[at]):
            return
        values[at], values[child] = values[child], values[at]
        positions[at], positions[child] = positions[child], positions[at]
        at = child


@njit(cache=True)
def _nearest(dist: np.ndarray, size: int, alive: np.ndarray, seed: int, ahead: int,
             values: np.ndarray, positions: np.ndarray, bins: np.ndarray,
             next_dist: np.ndarray, next_position: np.ndarray) -> None:
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
        if next_position[b] >= 0 and not _after(next_dist[b], next_position[b],
                                                 values[ahead - 1], positions[ahead - 1]):
            next_position[b] = _UNKNOWN


@njit(cache=True)
def _next_candidate(dist: np.ndarray, size: int, alive: np.ndarray, bins: np.ndarray,
                    order: np.ndarray, bin_start: np.ndarray, initial: np.ndarray,
                    improving: np.ndarray, last_dist: float, last_position: int,
                    next_dist: np.ndarray, next_position: np.ndarray) -> int:
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
        if improving[b] and (q == _UNKNOWN or q >= 0 and not _after(
                next_dist[b], q, last_dist, last_position)):
            stale += bin_start[b + 1] - bin_start[b]
    if 4 * stale > size:  # one pass over the pool for every bin
        next_position[:] = -1
        for p in range(size):
            if not alive[p] or initial[p]:
                continue
            d, b = dist[p], bins[p]
            if (d > last_dist or d == last_dist and p > last_position) and (
                    next_position[b] < 0 or d < next_dist[b]):  # positions increase
                next_dist[b], next_position[b] = d, p
    elif stale:
        for b in range(m):
            q = next_position[b]
            if not improving[b] or not (q == _UNKNOWN or q >= 0 and not _after(
                    next_dist[b], q, last_dist, last_position)):
                continue
            best_dist, best = np.inf, -1
            for j in range(bin_start[b], bin_start[b + 1]):
                p = order[j]  # increasing within the bin
                if not alive[p] or initial[p]:
                    continue
                d = dist[p]
                if (d > last_dist or d == last_dist and p > last_position) and (
                        best < 0 or d < best_dist):
                    best_dist, best = d, p
            next_dist[b], next_position[b] = best_dist, best
    best_dist, best = np.inf, -1
    for b in range(m):
        q = next_position[b]
        if improving[b] and q >= 0 and (best < 0 or not _after(next_dist[b], q, best_dist,
                                                                 best)):
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
def _generate_cluster(dist: np.ndarray, seed: int, size: int, count: int,
                      alive: np.ndarray, bins: np.ndarray, order: np.ndarray,
                      bin_start: np.ndarray, bin_alive: np.ndarray, initial: np.ndarray,
                      k: int, prefix: int, global_cdf: np.ndarray, norm: float,
                      threshold: float, tolerance: float, counts: np.ndarray,
                      available: np.ndarray, improving: np.ndarray, up: np.ndarray,
                      down: np.ndarray, work: np.ndarray, near_dist: np.ndarray,
                      near: np.ndarray, change: np.ndarray, member_bins: np.ndarray,
                      lowest_up: np.ndarray, highest_down: np.ndarray,
                      next_dist: np.ndarray, next_position: np.ndarray,
                      members: np.ndarray) -> int:
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
    _nearest(dist, size, alive, seed, ahead, near_dist, near, bins, next_dist,
             next_position)
    for r in range(k):  # the k records closest to x, x included
        members[r] = near[r]
        initial[near[r]] = True  # not a candidate
        counts[bins[near[r]]] += 1.0
    size_c = float(k)
    current = _emd_of_counts(counts, size_c, global_cdf, norm, work)
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
            if not _improving_bins(up, down, member_bins, available, norm, tolerance,
                                   improving, lowest_up, highest_down):
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
                y = _next_candidate(dist, size, alive, bins, order, bin_start, initial,
                                    improving, last_dist, last_position, next_dist,
                                    next_position)
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
def _compact(cols: np.ndarray, index: np.ndarray, bins: np.ndarray, alive: np.ndarray,
             size: int) -> int:
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
def _kfirst_kernel(points: np.ndarray, record_bins: np.ndarray, global_cdf: np.ndarray,
                   norm: float, k: int, threshold: float, tolerance: float,
                   prefix: int) -> np.ndarray:
    """Cluster labels of Algorithm 2 on standardised ``points`` (see
    :func:`k_anonymity_first`): the NumPy loop of ``benchmarks/reference_kfirst.py``, step
    for step. The records are stored by column, so each distance pass is vectorised over
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
    counts, available, improving = np.zeros(m), np.empty(m, dtype=np.int64), \
        np.zeros(m, dtype=np.bool_)
    up, down, work = np.empty(m + 1), np.empty(m + 1), np.empty(m)
    near_dist, near, change = np.empty(ahead), np.empty(ahead, dtype=np.int64), np.empty(k)
    member_bins, lowest_up, highest_down = np.empty(k, dtype=np.int64), np.empty(k + 1), \
        np.empty(k)
    next_dist, next_position = np.empty(m), np.empty(m, dtype=np.int64)
    members = np.empty(n, dtype=np.int64)
    size, count, cluster = n, n, 0
    while count > 0:
        # x0 = the record farthest from the average, x1 = the record farthest from x0
        seed = -1
        for step in range(2):
            if step == 0:
                _distances(cols, size, _centroid(cols, size, alive, count), from_centre)
                seed = _argmax(from_centre, size, alive)
                _distances(cols, size, cols[:, seed].copy(), from_x0)
                dist = from_x0
            else:
                if count == 0:
                    break
                seed = _argmax(from_x0, size, alive)
                _distances(cols, size, cols[:, seed].copy(), from_seed)
                dist = from_seed
            taken = _generate_cluster(dist, seed, size, count, alive, bins, order,
                                      bin_start, bin_alive, initial, k, prefix, global_cdf,
                                      norm, threshold, tolerance, counts, available,
                                      improving, up, down, work, near_dist, near, change,
                                      member_bins, lowest_up, highest_down, next_dist,
                                      next_position, members)
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


def k_anonymity_first(qi: np.ndarray, confidential: np.ndarray, k: int,
                      t: float, ground: str = "distinct") -> np.ndarray:
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
    return _kfirst_kernel(np.ascontiguousarray(points, dtype=float), emd.bins,
                          emd.global_cdf, float(max(emd.m - 1, 1)), k, threshold,
                          EMD_TOLERANCE, int(_PREFIX))


def tclose_kfirst(qi: np.ndarray, confidential: np.ndarray, k: int, t: float,
                  ground: str = "distinct") -> np.ndarray:
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
    return merge_until_t_close(standardise(qi), labels,
                               OrderedEMD(np.asarray(confidential, dtype=float), ground), t)
