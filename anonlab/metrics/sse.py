"""Sum of squared errors normalised by the number of attributes, DP-UNI §5."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric


def squared_errors(original: np.ndarray, released: np.ndarray,
                   attributes: Sequence[Attribute]) -> np.ndarray:
    """Σ over records of (a − a')² per attribute; their mean is Σ_records Σ_attrs / m,
    DP-UNI §5's SSE "normalized by the number of attributes considered (m)"."""
    return np.sum((original - released) ** 2, axis=0)


SSE = AttributeMetric("sse", squared_errors, "sum of squared errors / m (raw units)")
