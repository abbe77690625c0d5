"""Sum of squared errors normalised by the number of attributes, DP-UNI §5."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric, semantic_distances


def squared_errors(original: np.ndarray, released: np.ndarray,
                   attributes: Sequence[Attribute]) -> np.ndarray:
    """Σ over records of dist(a, a')² per attribute; their mean is Σ_records Σ_attrs / m,
    DP-UNI §5's SSE "normalized by the number of attributes considered (m)". dist is
    |a − a'| for numerical attributes and δ (DP-IR Eq. 3) for categorical ones."""
    out = np.sum((original - released) ** 2, axis=0)
    for j, attribute in enumerate(attributes):
        if attribute.categorical:
            out[j] = np.sum(semantic_distances(original[:, j], released[:, j], attribute) ** 2)
    return out


SSE = AttributeMetric("sse", squared_errors, "sum of squared errors / m (raw units)")
