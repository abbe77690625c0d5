"""Compiled loops of individual ranking (numba, cached beside the module: ``cache=True``):
the per-column stable radix sort, the spreading of cluster values back to the records and
the cluster of each rank (:mod:`anonlab.microaggregation.individual_ranking`).

A separate module, imported on first use, so that importing the data sets and the
methods does not import numba (0.2 s): a process that only builds a run never calls them.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_SIGN = np.uint64(1 << 63)
_MAGNITUDE = np.uint64((1 << 63) - 1)
_INFINITY = np.uint64(0x7FF0000000000000)  # bits of +inf; larger magnitudes are NaNs
_LARGEST = np.uint64(0xFFFFFFFFFFFFFFFF)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)

#: radix digits of at most this many bits: (most columns, columns with many ties). With
#: 2^8 buckets a pass scatters into 256 places at once, which the caches and the TLB
#: follow whatever the values; 11-bit digits (6 passes instead of 8 over a 64-bit key)
#: sort columns with few distinct values 25-30 % faster (gamma rounded to 0.1, integers),
#: since their keys fill few buckets, but continuous ones (normal, gamma) up to 1.6 times
#: slower (10⁶ records). A column takes the wide digits when a sample of
#: ``TIES_SAMPLE`` of its keys holds at most half as many distinct ones.
RADIX_BITS = (8, 11)
TIES_SAMPLE = 4096

#: gaps of the shell sort that orders the sample (Ciura 2001, extended by × 2.25)
_GAPS = (2660, 1182, 525, 233, 102, 57, 23, 10, 4, 1)


@njit(cache=True)
def _shell_sort(values: np.ndarray) -> None:
    """Sort ``values`` in place (shell sort: a few lines that numba compiles in a tenth
    of the time its ``np.sort`` takes, for the ``TIES_SAMPLE`` keys of one column)."""
    n = values.shape[0]
    for gap in _GAPS:
        for i in range(gap, n):
            value = values[i]
            j = i
            while j >= gap and values[j - gap] > value:
                values[j] = values[j - gap]
                j -= gap
            values[j] = value


@njit(cache=True)
def sort_key(bits: np.uint64) -> np.uint64:
    """The order-preserving unsigned key of the float64 with these ``bits``: keys compare
    as the numbers do, −0.0 and 0.0 share one key (they tie, as in NumPy's sort) and every
    NaN takes the largest key (NumPy sorts NaNs last)."""
    if (bits & _MAGNITUDE) > _INFINITY:
        return _LARGEST
    if bits == _SIGN:
        return _SIGN  # −0.0 as 0.0
    if bits & _SIGN:
        return ~bits
    return bits | _SIGN


@njit(cache=True)
def column_ranges(bits: np.ndarray, low: np.ndarray, high: np.ndarray, varying: np.ndarray) -> None:
    """Per column of the float64 ``bits``, in one pass over the rows: the smallest and
    largest key and the OR of every key's difference to the first one (its trailing zeros
    are bits no key changes)."""
    n, m = bits.shape
    for a in range(m):
        low[a] = _LARGEST
        high[a] = _ZERO
        varying[a] = _ZERO
    for i in range(n):
        for a in range(m):
            key = sort_key(bits[i, a])
            low[a] = min(low[a], key)
            high[a] = max(high[a], key)
            varying[a] |= key - sort_key(bits[0, a])


@njit(cache=True)
def radix_argsort(
    keys: np.ndarray,
    low: np.uint64,
    high: np.uint64,
    varying: np.uint64,
    order: np.ndarray,
    key_buffer: np.ndarray,
    index_buffer: np.ndarray,
    radix_bits: tuple[int, int],
) -> None:
    """Stable sort of one column's ``keys``: ``order`` receives the record of each rank
    and ``keys`` the sorted keys.

    Least significant digit first; each pass moves (key, record) pairs by one digit and
    keeps the order of equal digits, so equal keys end in record order. Only the bits
    that differ between keys are sorted: keys are shifted to ``key − low`` without the
    trailing bits no key changes, and a digit that every key shares is skipped; the
    digits are as wide as ``radix_bits`` allows (the second for a column with many ties,
    see :data:`RADIX_BITS`), of equal width.
    """
    n = keys.shape[0]
    size = min(n, TIES_SAMPLE)
    sample = keys[:: n // size][:size].copy()
    _shell_sort(sample)
    distinct = 1
    for i in range(1, size):
        distinct += sample[i] != sample[i - 1]
    radix_bits = radix_bits[1] if 2 * distinct <= size else radix_bits[0]
    shift = 0
    if varying != _ZERO:
        while (varying >> np.uint64(shift)) & _ONE == _ZERO:
            shift += 1
    span = (high - low) >> np.uint64(shift)
    width = 0
    while span >> np.uint64(width) != _ZERO:
        width += 1
    passes = (width + radix_bits - 1) // radix_bits
    if passes == 0:  # every key equal: record order
        for i in range(n):
            order[i] = i
        return
    digit_bits = (width + passes - 1) // passes
    mask = np.uint64((1 << digit_bits) - 1)
    counts = np.zeros((passes, 1 << digit_bits), dtype=np.int64)
    for i in range(n):
        reduced = (keys[i] - low) >> np.uint64(shift)
        keys[i] = reduced
        for p in range(passes):
            counts[p, (reduced >> np.uint64(p * digit_bits)) & mask] += 1
    moving = np.zeros(passes, dtype=np.bool_)  # keys differ, so at least one digit does
    total = 0
    for p in range(passes):
        moving[p] = counts[p].max() < n
        total += moving[p]
    done = 0
    keys_from, keys_to = keys, key_buffer
    # the records alternate between `index_buffer` and `order`, the last pass into `order`
    index_from = order if total % 2 == 0 else index_buffer
    index_to = index_buffer if total % 2 == 0 else order
    position = np.empty(1 << digit_bits, dtype=np.int64)
    for p in range(passes):
        if not moving[p]:
            continue
        start = 0
        for d in range(1 << digit_bits):
            position[d] = start
            start += counts[p, d]
        at = np.uint64(p * digit_bits)
        if done == 0:  # records still in their own order
            for i in range(n):
                key = keys_from[i]
                digit = (key >> at) & mask
                to = position[digit]
                position[digit] = to + 1
                keys_to[to] = key
                index_to[to] = i
        else:
            for i in range(n):
                key = keys_from[i]
                digit = (key >> at) & mask
                to = position[digit]
                position[digit] = to + 1
                keys_to[to] = key
                index_to[to] = index_from[i]
        done += 1
        keys_from, keys_to = keys_to, keys_from
        index_from, index_to = index_to, index_from
    for i in range(n):  # back to keys, into `keys`
        keys[i] = (keys_from[i] << np.uint64(shift)) + low


@njit(cache=True)
def sort_columns(
    bits: np.ndarray,
    order: np.ndarray,
    keys: np.ndarray,
    key_buffer: np.ndarray,
    index_buffer: np.ndarray,
    radix_bits: tuple[int, int],
) -> None:
    """``order[a]``: the records by increasing value in column ``a`` of the float64 matrix
    whose ``bits`` are given, ties in record order. The buffers hold one column each."""
    n, m = bits.shape
    low = np.empty(m, dtype=np.uint64)
    high = np.empty(m, dtype=np.uint64)
    varying = np.empty(m, dtype=np.uint64)
    column_ranges(bits, low, high, varying)
    for a in range(m):
        for i in range(n):
            keys[i] = sort_key(bits[i, a])
        radix_argsort(
            keys, low[a], high[a], varying[a], order[a], key_buffer, index_buffer, radix_bits
        )


@njit(cache=True)
def rank_clusters(order: np.ndarray, sizes: np.ndarray, clusters: np.ndarray) -> None:
    """``clusters[a, r]``: the cluster of record ``r`` in attribute ``a``'s ranking, the
    clusters cut from ``order[a]`` with ``sizes`` in rank order."""
    m = order.shape[0]
    for a in range(m):
        rank = 0
        for j in range(sizes.shape[0]):
            for _ in range(sizes[j]):
                clusters[a, order[a, rank]] = j
                rank += 1


@njit(cache=True)
def spread(
    order: np.ndarray,
    sizes: np.ndarray,
    centroids: np.ndarray,
    columns: np.ndarray,
    values: np.ndarray,
) -> None:
    """``values[r, columns[a]] = centroids[a, c]`` for each record ``r`` of cluster ``c``
    in attribute ``a``'s ranking, walking ``order[a]`` cluster by cluster (no array of
    each record's cluster is made)."""
    m = order.shape[0]
    for a in range(m):
        column = columns[a]
        rank = 0
        for j in range(sizes.shape[0]):
            centroid = centroids[a, j]
            for _ in range(sizes[j]):
                values[order[a, rank], column] = centroid
                rank += 1


# --- public API --------------------------------------------------------------------------
