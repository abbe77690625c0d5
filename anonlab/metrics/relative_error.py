"""Relative error with a sanity bound, DP-IR §4.2."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric, domain_arrays, semantic_distances


@dataclass(frozen=True)
class REReference:
    """The original data's side of :func:`relative_error`: the numerical columns and
    their sanity bounds max(Dom(A)/100, |a|), and the categorical columns."""

    attributes: tuple[Attribute, ...]
    numeric: np.ndarray
    values: np.ndarray
    bound: np.ndarray
    categorical_values: np.ndarray


def re_reference(original: np.ndarray, attributes: Sequence[Attribute]) -> REReference:
    """What :func:`relative_error` needs of the original, shared by every release."""
    numeric = np.array([not a.categorical for a in attributes], dtype=bool)
    values, bound = original[:, numeric], np.empty((len(original), 0))
    if numeric.any():
        _, width = domain_arrays([a for a in attributes if not a.categorical])
        bound = np.maximum(width / 100.0, np.abs(values))  # sanity_bound(A) = Dom(A)/100
    return REReference(tuple(attributes), numeric, values, bound, original[:, ~numeric])


def re_against(reference: REReference, released: np.ndarray) -> np.ndarray:
    """Relative error per attribute of ``released`` against the reference."""
    numeric = reference.numeric
    out = np.empty(len(numeric))
    if numeric.any():
        out[numeric] = np.mean(
            np.abs(reference.values - released[:, numeric]) / reference.bound, axis=0
        )
    for i, j in enumerate(np.flatnonzero(~numeric)):
        out[j] = semantic_distances(
            reference.categorical_values[:, i], released[:, j], reference.attributes[j]
        ).mean()
    return out


def relative_error(
    original: np.ndarray, released: np.ndarray, attributes: Sequence[Attribute]
) -> np.ndarray:
    """Mean over records of |a − a'| / max(Dom(A)/100, |a|) per numerical attribute, and of
    the semantic distance δ(a, a') per categorical one (DP-IR §4.2)."""
    return re_against(re_reference(original, attributes), released)


RE = AttributeMetric(
    "re",
    relative_error,
    "relative error, sanity bound Dom(A)/100",
    reference=re_reference,
    against=re_against,
    requires=("record_correspondence",),
    label="Relative error (RE)",
)
