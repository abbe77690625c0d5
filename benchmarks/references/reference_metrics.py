"""Plain NumPy binned Jensen–Shannon divergence of one release, kept as it was before the
compiled loop (:mod:`anonlab.metrics.kernels`): the ratios of
``benchmarks/timings/bench_grids.py`` are taken against it, and
``tests/metrics/test_kernels_metrics.py`` checks that the library gives the same values, bit
for bit.
"""

from __future__ import annotations

import numpy as np

from anonlab.metrics.jsd import JSDReference, equal_bin_counts, js_divergence


def jsd_continuous_numpy(reference: JSDReference, released: np.ndarray) -> np.ndarray:
    """JSD (bits) of the continuous attributes: 100 equal bins, then NumPy's divergence."""
    q = equal_bin_counts(released[:, reference.continuous], reference.low, reference.width)
    return js_divergence(reference.counts, q.astype(float))
