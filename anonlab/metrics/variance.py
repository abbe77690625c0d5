"""Variation of attribute variances Δσ², DP-IR §4.2 and Table 1."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric
from anonlab.validation import ParameterError

#: ``absolute``: True (default) gives each repetition's |Δσ²|, so a table's mean over
#: repetitions is the mean of |Δσ²|; False gives the signed change, so the absolute value
#: of that mean is |mean Δσ²|. A table takes |mean over repetitions| either way
#: (experiments/dp_ir.py), which is the plain mean under the default.
ABSOLUTE: tuple[bool, ...] = (True, False)


def variance_change(
    original: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    absolute: bool = True,
) -> np.ndarray:
    """|σ²(A) − σ²(A')| / |σ²(A)| per attribute (DP-IR §4.2); the ddof cancels. With
    ``absolute=False`` the signed change (σ²(A') − σ²(A)) / |σ²(A)|. Defined for
    numerical attributes only."""
    for attribute in attributes:
        if attribute.categorical:
            raise ParameterError(
                f"variance_change is not defined for the categorical attribute {attribute.name!r}"
            )
    before = original.var(axis=0)
    if absolute:  # DP-IR §4.2: Δ(σ²(A_i)) = |σ²(A_i) − σ²(A'_i)| / |σ²(A_i)|
        return np.abs(before - released.var(axis=0)) / np.abs(before)
    return (released.var(axis=0) - before) / np.abs(before)  # the same without |·| on top


VARIANCE_CHANGE = AttributeMetric(
    "variance_change",
    variance_change,
    "relative change of variance (option absolute)",
    option_choices={"absolute": ABSOLUTE},
    requires=("numerical", "variance"),
    label="Δσ² (relative variance change)",
)
