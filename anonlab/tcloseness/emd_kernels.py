"""Compiled forms of the EMD of one cluster (TCM §2.2), for the merging loops of
Algorithms 1 and 2 (:mod:`anonlab.tcloseness.merge`, :mod:`anonlab.tcloseness.kfirst`).

They repeat NumPy's arithmetic operation for operation (sums by
:func:`~anonlab.microaggregation.kernels.pairwise_sum`), so their EMDs equal
:meth:`~anonlab.tcloseness.emd.OrderedEMD.of_counts` and
:meth:`~anonlab.tcloseness.emd.OrderedEMD.of_sorted_bins` to the bit. A module of their
own, so that the EMD itself (and every module that only measures a partition) imports
without numba.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from anonlab.microaggregation.kernels import pairwise_sum


@njit(cache=True)
def counts_emd(
    counts: np.ndarray, global_cdf: np.ndarray, norm: float, scratch: np.ndarray
) -> float:
    """:meth:`OrderedEMD.of_counts` of one cluster's bin ``counts`` (whole numbers, so
    their sum and cumulative sums are exact in any order); ``scratch`` holds m values."""
    m = len(counts)
    size = 0.0
    for b in range(m):
        size += counts[b]
    cumulative = 0.0
    for b in range(m):
        cumulative += counts[b]
        scratch[b] = abs(cumulative / size - global_cdf[b])
    return pairwise_sum(scratch, 0, m) / norm


@njit(cache=True)
def linked_bins_emd(
    head: int,
    size: int,
    following: np.ndarray,
    bins: np.ndarray,
    global_cdf: np.ndarray,
    prefix: np.ndarray,
    norm: float,
) -> float:
    """:meth:`OrderedEMD.of_sorted_bins` of the cluster of ``size`` records whose bins,
    in increasing order, are ``bins[head]``, ``bins[following[head]]``, … (−1 ends): the
    same terms, summed in the same order."""
    m = len(global_cdf)
    total = 0.0
    node, position = head, 0
    while node >= 0:
        start = bins[node]
        after = following[node]
        end = bins[after] if after >= 0 else m
        level = (position + 1) / size
        low, high = 0, m  # searchsorted(global_cdf, level, side="right")
        while low < high:
            middle = (low + high) // 2
            if global_cdf[middle] <= level:
                low = middle + 1
            else:
                high = middle
        split = min(max(low, start), end)
        total += (
            level * (split - start)
            - (prefix[split] - prefix[start])
            + (prefix[end] - prefix[split])
            - level * (end - split)
        )
        node, position = after, position + 1
    return (total + prefix[bins[head]]) / norm


@njit(cache=True)
def merge_linked(first: int, second: int, following: np.ndarray, bins: np.ndarray) -> int:
    """Merge two lists of records linked by ``following`` (−1 ends), each in increasing
    ``bins``, into one; returns its head."""
    if bins[second] < bins[first]:
        first, second = second, first
    head = tail = first
    first = following[first]
    while first >= 0 and second >= 0:
        if bins[second] < bins[first]:
            following[tail] = second
            tail, second = second, following[second]
        else:
            following[tail] = first
            tail, first = first, following[first]
    following[tail] = first if first >= 0 else second
    return head
