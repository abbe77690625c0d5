"""Plain NumPy relative error and binned Jensen–Shannon divergence of one release, kept as
they were before the compiled metric loops (:mod:`anonlab.metrics.kernels`): the ratios
of ``benchmarks/bench_grids.py`` are taken against them, and
``tests/test_kernels_metrics.py`` checks that the library gives the same values, bit for
bit.
"""

from __future__ import annotations

import numpy as np

from anonlab.metrics.jsd import JSDReference, equal_bin_counts, js_divergence
from anonlab.metrics.relative_error import REReference


def jsd_continuous_numpy(reference: JSDReference, released: np.ndarray) -> np.ndarray:
    """JSD (bits) of the continuous attributes: 100 equal bins, then NumPy's divergence."""
    q = equal_bin_counts(released[:, reference.continuous], reference.low, reference.width)
    return js_divergence(reference.counts, q.astype(float))


def re_numeric_numpy(reference: REReference, released: np.ndarray) -> np.ndarray:
    """Relative error of the numerical attributes: the mean over records of
    |a − a'| / max(Dom(A)/100, |a|)."""
    return np.mean(np.abs(reference.values - released[:, reference.numeric])
                   / reference.bound, axis=0)
