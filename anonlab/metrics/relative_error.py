"""Relative error with a sanity bound, DP-IR §4.2."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric, domain_arrays, semantic_distances


def relative_error(original: np.ndarray, released: np.ndarray,
                   attributes: Sequence[Attribute]) -> np.ndarray:
    """Mean over records of |a − a'| / max(Dom(A)/100, |a|) per numerical attribute, and of
    the semantic distance δ(a, a') per categorical one (DP-IR §4.2)."""
    out = np.empty(len(attributes))
    numeric = np.array([not a.categorical for a in attributes], dtype=bool)
    if numeric.any():
        _, width = domain_arrays([a for a in attributes if not a.categorical])
        o, r = original[:, numeric], released[:, numeric]
        bound = np.maximum(width / 100.0, np.abs(o))  # sanity_bound(A) = Dom(A)/100
        out[numeric] = np.mean(np.abs(o - r) / bound, axis=0)
    for j in np.flatnonzero(~numeric):
        out[j] = semantic_distances(original[:, j], released[:, j], attributes[j]).mean()
    return out


RE = AttributeMetric("re", relative_error, "relative error, sanity bound Dom(A)/100")
