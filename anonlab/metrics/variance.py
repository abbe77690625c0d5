"""Variation of attribute variances Δσ², DP-IR §4.2 and Table 1."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric
from anonlab.validation import ParameterError


def variance_change(original: np.ndarray, released: np.ndarray,
                    attributes: Sequence[Attribute]) -> np.ndarray:
    """|σ²(A) − σ²(A')| / |σ²(A)| per attribute (DP-IR §4.2); the ddof cancels. Defined
    for numerical attributes only."""
    for attribute in attributes:
        if attribute.categorical:
            raise ParameterError(f"variance_change is not defined for the categorical "
                                 f"attribute {attribute.name!r}")
    before = original.var(axis=0)
    return np.abs(before - released.var(axis=0)) / np.abs(before)


VARIANCE_CHANGE = AttributeMetric("variance_change", variance_change, "relative change of variance")
