"""Compiled loops of MDAV (numba): the sequential remaining-records loop NumPy cannot
express without one array pass, and one Python round trip, per step.

The arithmetic is fixed so the compiled and the NumPy code agree to the bit, ties
included: a squared distance is the sum of the squared differences in attribute order
(:func:`sq_distances`), a centroid the sum of the rows in record order divided by their
number (:func:`centroid`). ``benchmarks/references/reference.py`` keeps the NumPy
implementation; ``tests/microaggregation/test_kernels.py`` checks that both give identical
partitions.

Compiled functions are cached beside the module (``cache=True``), so a process pays the
compilation (about 4 s for MDAV's functions) only the first time. The distance, centroid
and argmax passes are shared with TCM Algorithm 2 (:mod:`anonlab.tcloseness.kfirst`), and
NumPy's pairwise sum (:func:`pairwise_sum`) with the EMDs of :mod:`anonlab.tcloseness.emd`
and the JSD of :mod:`anonlab.metrics.kernels`.
numba's cache keys a function on its own file only: after editing this module, delete the
``__pycache__`` caches of the modules whose compiled functions call it.
"""

from __future__ import annotations

import numpy as np
from numba import njit


def sq_distances(points: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Squared Euclidean distance of every row of ``points`` to ``point``, summed in
    attribute order (the compiled kernels' arithmetic, unlike ``einsum``'s, whose order
    follows the CPU's vector width)."""
    diff = points - point
    out = diff[:, 0] * diff[:, 0]
    for j in range(1, diff.shape[1]):
        out += diff[:, j] * diff[:, j]
    return out


#: up to this k, the nearest records are kept in a sorted buffer during one pass
SMALL_K = 16


def centroid(points: np.ndarray) -> np.ndarray:
    """Mean of the rows of ``points``, summed in record order (``mean(axis=0)`` sums a
    single column pairwise instead, so its last bit depends on the layout)."""
    return np.add.accumulate(points, axis=0)[-1] / len(points)


@njit(cache=True)
def select(values: np.ndarray, rank: int) -> float:
    """The ``rank``-th smallest of ``values`` (0-based; ``values`` is reordered):
    quickselect with a median-of-three pivot, expected O(len)."""
    low, high = 0, len(values) - 1
    while low < high:
        middle = (low + high) // 2
        a, b, c = values[low], values[middle], values[high]
        pivot = max(min(a, b), min(max(a, b), c))
        i, j = low, high
        while i <= j:
            while values[i] < pivot:
                i += 1
            while values[j] > pivot:
                j -= 1
            if i <= j:
                values[i], values[j] = values[j], values[i]
                i += 1
                j -= 1
        if rank <= j:
            high = j
        elif rank >= i:
            low = i
        else:
            return values[rank]
    return values[rank]


#: NumPy sums a contiguous float64 run pairwise in blocks of at most this many values
_PAIRWISE_BLOCK = 128


@njit(cache=True)
def _pairwise_block(values: np.ndarray, start: int, count: int) -> float:
    """NumPy's sum of at most 128 contiguous values: fewer than 8 in order; else eight
    interleaved partial sums combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)),
    then the rest in order."""
    if count < 8:
        total = 0.0
        for i in range(start, start + count):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[start], values[start + 1], values[start + 2], values[start + 3]
    r4, r5, r6, r7 = values[start + 4], values[start + 5], values[start + 6], values[start + 7]
    i = start + 8
    stop = start + count - count % 8
    while i < stop:
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + count:
        total += values[i]
        i += 1
    return total


@njit(cache=True)
def pairwise_sum(values: np.ndarray, start: int, count: int) -> float:
    """``values[start:start+count].sum()`` as NumPy computes it (float64 ``add.reduce``
    over contiguous values): blocks of at most 128 values by :func:`_pairwise_block`; a
    longer run is split at half its length rounded down to a multiple of 8, each part
    summed so and the two sums added (the recursion runs on an explicit stack)."""
    if count <= _PAIRWISE_BLOCK:
        # as int64: callers pass a literal 0, and numba would compile the block again for it
        return _pairwise_block(values, np.int64(start), count)
    depth = 2
    while count >> depth:
        depth += 1
    starts = np.empty(depth, dtype=np.int64)
    counts = np.empty(depth, dtype=np.int64)
    phases = np.zeros(depth, dtype=np.int64)
    sums = np.empty(depth + 1)
    starts[0], counts[0] = start, count
    frames, done = 1, 0
    while frames:
        top = frames - 1
        at, size = starts[top], counts[top]
        if size <= _PAIRWISE_BLOCK:
            sums[done] = _pairwise_block(values, at, size)
            done += 1
            frames -= 1
            continue
        half = size // 2
        half -= half % 8
        if phases[top] == 0:  # the first part
            phases[top] = 1
            starts[frames], counts[frames], phases[frames] = at, half, 0
            frames += 1
        elif phases[top] == 1:  # the second part
            phases[top] = 2
            starts[frames], counts[frames], phases[frames] = at + half, size - half, 0
            frames += 1
        else:  # both parts summed: add them
            done -= 1
            sums[done - 1] = sums[done - 1] + sums[done]
            frames -= 1
    return sums[0]


@njit(cache=True)
def column_distances(cols: np.ndarray, size: int, point: np.ndarray, out: np.ndarray) -> None:
    """Squared distances of the first ``size`` records (columns of ``cols``) to ``point``:
    each record's sum in attribute order, four attributes per pass over the records
    (vectorised over records)."""
    m, j = cols.shape[0], 0
    while j < m:
        if m - j >= 4:
            c0, c1, c2, c3 = cols[j], cols[j + 1], cols[j + 2], cols[j + 3]
            p0, p1, p2, p3 = point[j], point[j + 1], point[j + 2], point[j + 3]
            for i in range(size):
                d0, d1, d2, d3 = c0[i] - p0, c1[i] - p1, c2[i] - p2, c3[i] - p3
                total = d0 * d0 if j == 0 else out[i] + d0 * d0
                out[i] = total + d1 * d1 + d2 * d2 + d3 * d3
            j += 4
        else:
            column, value = cols[j], point[j]
            for i in range(size):
                d0 = column[i] - value
                out[i] = d0 * d0 if j == 0 else out[i] + d0 * d0
            j += 1


#: the centroid pass keeps this many column sums in registers at once
_BLOCK = 8


@njit(cache=True)
def alive_centroid(cols: np.ndarray, size: int, alive: np.ndarray, count: int) -> np.ndarray:
    """Mean of the alive records, summed in record order; the sums of up to ``_BLOCK``
    columns are accumulated together in scalars (an array accumulator costs a store and
    a load per value, six times slower)."""
    m = cols.shape[0]
    total = np.zeros(m)
    for j0 in range(0, m, _BLOCK):
        # the block's columns; past the last column, the last column again (not stored)
        last = m - 1
        c0, c1, c2, c3 = (
            cols[j0],
            cols[min(j0 + 1, last)],
            cols[min(j0 + 2, last)],
            cols[min(j0 + 3, last)],
        )
        c4, c5, c6, c7 = (
            cols[min(j0 + 4, last)],
            cols[min(j0 + 5, last)],
            cols[min(j0 + 6, last)],
            cols[min(j0 + 7, last)],
        )
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
def alive_argmax(values: np.ndarray, size: int, alive: np.ndarray) -> int:
    """The first alive position of the largest value (``values`` finite)."""
    best, largest = -1, -np.inf
    for i in range(size):
        value = values[i] if alive[i] else -np.inf
        if value > largest:
            best, largest = i, value
    return best


@njit(cache=True)
def _take_nearest(
    distances: np.ndarray,
    size: int,
    alive: np.ndarray,
    seed: int,
    k: int,
    scratch: np.ndarray,
    index: np.ndarray,
    labels: np.ndarray,
    label: int,
) -> None:
    """Label ``seed`` and the ``k − 1`` alive records nearest to it (ties by lowest
    position, as :func:`~anonlab.microaggregation.mdav.closest_positions`), and mark them
    taken. A small k keeps the k smallest (distance, position) pairs in one pass; a large
    one selects the k-th distance, then takes the records below it and the first ones
    equal to it."""
    if k <= SMALL_K:
        values = np.empty(k)
        positions = np.empty(k, dtype=np.int64)
        filled = 0
        for i in range(size):
            if not alive[i]:
                continue
            d = -1.0 if i == seed else distances[i]
            if filled == k and d >= values[k - 1]:
                continue
            at = filled if filled < k else k - 1
            while at > 0 and values[at - 1] > d:  # strict: an equal value stays ahead
                if at < k:
                    values[at] = values[at - 1]
                    positions[at] = positions[at - 1]
                at -= 1
            values[at] = d
            positions[at] = i
            filled = min(filled + 1, k)
        for i in positions:
            alive[i] = False
            labels[index[i]] = label
        return
    count = 0
    for i in range(size):
        if alive[i]:
            scratch[count] = -1.0 if i == seed else distances[i]
            count += 1
    kth = select(scratch[:count], k - 1)
    taken = 0
    for i in range(size):
        if alive[i] and (i == seed and -1.0 < kth or i != seed and distances[i] < kth):
            alive[i] = False
            labels[index[i]] = label
            taken += 1
    for i in range(size):
        if taken == k:
            break
        if alive[i] and (-1.0 if i == seed else distances[i]) == kth:
            alive[i] = False
            labels[index[i]] = label
            taken += 1


@njit(cache=True)
def mdav_kernel(points: np.ndarray, k: int) -> np.ndarray:
    """MDAV labels of standardised ``points`` (see :func:`anonlab.microaggregation.mdav`):
    the NumPy loop of ``benchmarks/references/reference.py``, step for step, the remaining records
    compacted once a quarter of them are used up. The records are stored by column, so each
    distance pass is vectorised over records."""
    n, m = points.shape
    labels = np.full(n, -1, dtype=np.int64)
    cols = np.ascontiguousarray(points.T)
    index = np.arange(n)
    alive = np.ones(n, dtype=np.bool_)
    distances = np.empty(n)
    scratch = np.empty(n)
    size, count, cluster = n, n, 0
    while count >= 3 * k:
        column_distances(cols, size, alive_centroid(cols, size, alive, count), distances)
        r = alive_argmax(distances, size, alive)
        column_distances(cols, size, cols[:, r].copy(), distances)
        _take_nearest(distances, size, alive, r, k, scratch, index, labels, cluster)
        s = alive_argmax(distances, size, alive)  # the remaining record farthest from r
        column_distances(cols, size, cols[:, s].copy(), distances)
        _take_nearest(distances, size, alive, s, k, scratch, index, labels, cluster + 1)
        count -= 2 * k
        cluster += 2
        if count * 4 < size * 3:  # compact, keeping the records' order
            keep = np.flatnonzero(alive[:size])
            cols = np.ascontiguousarray(cols[:, keep])
            index = index[keep]
            size = len(keep)
            alive = np.ones(size, dtype=np.bool_)
    if count >= 2 * k:
        column_distances(cols, size, alive_centroid(cols, size, alive, count), distances)
        r = alive_argmax(distances, size, alive)
        column_distances(cols, size, cols[:, r].copy(), distances)
        _take_nearest(distances, size, alive, r, k, scratch, index, labels, cluster)
        cluster += 1
    for i in range(size):
        if alive[i]:
            labels[index[i]] = cluster
    return labels
