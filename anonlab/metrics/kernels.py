"""Compiled loop of the binned Jensen–Shannon divergence of a release (DP-IR §4.2; numba,
cached beside the module: ``cache=True``): one pass over the release, with no temporary
``(n, m)`` array.

The JSD was a dozen NumPy calls on small arrays per release, the largest part of a Census
grid job. The arithmetic follows NumPy's and scipy's, so the values equal those of the
NumPy code (:func:`anonlab.metrics.jsd.equal_bin_counts` and
:func:`~anonlab.metrics.jsd.js_divergence`) to the bit (``tests/test_kernels_metrics.py``):
a sum along a row of bins is NumPy's pairwise sum (:func:`pairwise_sum`), and
:func:`rel_entr` is scipy's. (The relative error stays NumPy: compiled, it was no faster.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

LOG2 = math.log(2.0)
TINY = float(np.finfo(np.float64).tiny)  # the least normal float64, scipy's DBL_MIN


#: NumPy's pairwise block: up to this many values are added with eight partial sums
PAIRWISE_BLOCK = 128


@njit(cache=True)
def _block_sum(a: np.ndarray, start: int, n: int) -> float:
    """NumPy's sum of ``a[start:start + n]``, n ≤ :data:`PAIRWISE_BLOCK`: one by one below
    8 values, else eight partial sums combined pairwise, then the n mod 8 last values."""
    if n < 8:
        res = 0.0
        for i in range(start, start + n):
            res += a[i]
        return res
    r0, r1, r2, r3 = a[start], a[start + 1], a[start + 2], a[start + 3]
    r4, r5, r6, r7 = a[start + 4], a[start + 5], a[start + 6], a[start + 7]
    i = 8
    while i < n - (n % 8):
        b = start + i
        r0 += a[b]
        r1 += a[b + 1]
        r2 += a[b + 2]
        r3 += a[b + 3]
        r4 += a[b + 4]
        r5 += a[b + 5]
        r6 += a[b + 6]
        r7 += a[b + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[start + i]
        i += 1
    return res


@njit(cache=True)
def pairwise_sum(a: np.ndarray) -> float:
    """``a.sum()`` of a contiguous float64 vector as NumPy computes it: blocks of at most
    :data:`PAIRWISE_BLOCK` values (:func:`_block_sum`), longer runs split in halves (a
    multiple of 8 first) whose sums are added, left + right. NumPy recurses; this walks
    the same tree with a stack (numba does not cache recursive functions)."""
    n = len(a)
    if n <= PAIRWISE_BLOCK:
        return _block_sum(a, 0, n)
    depth = 4 * (64 + 1)
    starts = np.empty(depth, dtype=np.int64)
    sizes = np.empty(depth, dtype=np.int64)
    combine = np.empty(depth, dtype=np.bool_)
    sums = np.empty(depth)
    top, done = 0, 0
    starts[0], sizes[0], combine[0] = 0, n, False
    while top >= 0:
        start, size, join = starts[top], sizes[top], combine[top]
        top -= 1
        if join:  # both halves are summed: left + right, as NumPy adds them
            sums[done - 2] = sums[done - 2] + sums[done - 1]
            done -= 1
        elif size <= PAIRWISE_BLOCK:
            sums[done] = _block_sum(a, start, size)
            done += 1
        else:
            half = size // 2
            half -= half % 8
            # popped in order: left half, right half, then their sum
            starts[top + 1], sizes[top + 1], combine[top + 1] = start, size, True
            starts[top + 2], sizes[top + 2], combine[top + 2] = start + half, size - half, False
            starts[top + 3], sizes[top + 3], combine[top + 3] = start, half, False
            top += 3
    return sums[0]


@njit(cache=True)
def rel_entr(x: float, y: float) -> float:
    """x·log(x/y) as :func:`scipy.special.rel_entr` computes it (0 for x = 0, y ≥ 0; +inf
    for a negative argument or y = 0 < x; with ``log1p`` when x and y are within a factor
    2, and a difference of logs where x/y under- or overflows)."""
    if x > 0.0 and y > 0.0:
        ratio = x / y
        if 0.5 < ratio < 2.0:
            return x * math.log1p((x - y) / y)
        if TINY < ratio < math.inf:
            return x * math.log(ratio)
        return x * (math.log(x) - math.log(y))
    if x == 0.0 and y >= 0.0:
        return 0.0
    return math.inf


@njit(cache=True)
def _half_kl(p: np.ndarray, mix: np.ndarray, work: np.ndarray) -> float:
    """Σ rel_entr(p, mix), summed as NumPy sums."""
    for b in range(len(p)):
        work[b] = rel_entr(p[b], mix[b])
    return pairwise_sum(work)


@njit(cache=True)
def binned_jsd(released: np.ndarray, columns: np.ndarray, low: np.ndarray,
               width: np.ndarray, reference: np.ndarray, out: np.ndarray) -> None:
    """``out[c]``: the JSD in bits between the counts ``reference[c]`` and the counts of
    ``released[:, columns[c]]`` in ``reference.shape[1]`` equal bins from ``low[c]`` of
    width ``width[c]`` in all; values below the first bin (or NaN) count in it, values
    above the last in the last."""
    bins = reference.shape[1]
    q = np.empty(bins)
    p = np.empty(bins)
    mix = np.empty(bins)
    work = np.empty(bins)
    for c in range(len(columns)):
        j = columns[c]
        q[:] = 0.0
        for i in range(released.shape[0]):
            x = (released[i, j] - low[c]) / width[c] * bins
            if x >= bins - 1:
                q[bins - 1] += 1.0
            elif x >= 0.0:  # False for NaN
                q[int(x)] += 1.0
            else:
                q[0] += 1.0
        p_total = pairwise_sum(reference[c])
        q_total = pairwise_sum(q)
        for b in range(bins):
            p[b] = reference[c, b] / p_total
            q[b] = q[b] / q_total
            mix[b] = 0.5 * (p[b] + q[b])
        kl = 0.5 * _half_kl(p, mix, work) + 0.5 * _half_kl(q, mix, work)
        out[c] = max(kl / LOG2, 0.0)
