"""Relative error with a sanity bound, DP-IR §4.2."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric, domain_arrays


def relative_error(original: np.ndarray, released: np.ndarray,
                   attributes: Sequence[Attribute]) -> np.ndarray:
    """Mean over records of |a − a'| / max(Dom(A)/100, |a|) per attribute (DP-IR §4.2)."""
    _, width = domain_arrays(attributes)
    bound = np.maximum(width / 100.0, np.abs(original))  # sanity_bound(A) = Dom(A)/100
    return np.mean(np.abs(original - released) / bound, axis=0)


RE = AttributeMetric("re", relative_error, "relative error, sanity bound Dom(A)/100")
