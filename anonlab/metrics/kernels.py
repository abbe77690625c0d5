"""Compiled loop of the binned Jensen–Shannon divergence of a release (DP-IR §4.2; numba,
cached beside the module: ``cache=True``): one pass over the release, with no temporary
``(n, m)`` array.

The JSD was a dozen NumPy calls on small arrays per release, the largest part of a Census
grid job. The arithmetic follows NumPy's and scipy's, so the values equal those of the
NumPy code (:func:`anonlab.metrics.jsd.equal_bin_counts` and
:func:`~anonlab.metrics.jsd.js_divergence`) to the bit (``tests/metrics/test_kernels_metrics.py``):
a sum along a row of bins is NumPy's pairwise sum
(:func:`~anonlab.microaggregation.kernels.pairwise_sum`), and
:func:`rel_entr` is scipy's. (The relative error stays NumPy: compiled, it was no faster.)
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from anonlab.microaggregation.kernels import pairwise_sum

LOG2 = math.log(2.0)
TINY = float(np.finfo(np.float64).tiny)  # the least normal float64, scipy's DBL_MIN


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
    return pairwise_sum(work, 0, len(work))


@njit(cache=True)
def binned_jsd(
    released: np.ndarray,
    columns: np.ndarray,
    low: np.ndarray,
    width: np.ndarray,
    reference: np.ndarray,
    out: np.ndarray,
) -> None:
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
        p_total = pairwise_sum(reference[c], 0, bins)
        q_total = pairwise_sum(q, 0, bins)
        for b in range(bins):
            p[b] = reference[c, b] / p_total
            q[b] = q[b] / q_total
            mix[b] = 0.5 * (p[b] + q[b])
        kl = 0.5 * _half_kl(p, mix, work) + 0.5 * _half_kl(q, mix, work)
        out[c] = max(kl / LOG2, 0.0)
