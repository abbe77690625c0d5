"""Difference of correlation matrices: how well a release keeps the linear dependence
between attributes, defined without record correspondence (synthetic data).

The literature on masking (Domingo-Ferrer & Torra 2001, "A quantitative comparison of
disclosure control methods for microdata", information loss IL on correlation matrices)
and on synthetic data (e.g. synthcity's and SDMetrics' "correlation similarity", the
"pairwise correlation difference" of Goncalves et al. 2020) compares the two Pearson
correlation matrices entry by entry; this metric is the mean absolute difference over the
m(m − 1)/2 off-diagonal pairs.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric


def pearson(values: np.ndarray) -> np.ndarray:
    """``(m, m)`` Pearson correlation matrix of the columns of ``values``. A constant column
    (zero variance, e.g. individual ranking with k = n) has correlation 0 with every
    other column (it carries no linear dependence) and 1 with itself; numpy's ``corrcoef``
    would give NaN."""
    values = np.asarray(values, dtype=float)
    centred = values - values.mean(axis=0)
    norm = np.sqrt(np.einsum("ij,ij->j", centred, centred))
    constant = norm == 0
    scaled = centred / np.where(constant, 1.0, norm)
    corr = scaled.T @ scaled
    corr[constant, :] = 0.0
    corr[:, constant] = 0.0
    np.fill_diagonal(corr, 1.0)
    return np.clip(corr, -1.0, 1.0, out=corr)


def correlation_reference(original: np.ndarray, attributes: Sequence[Attribute]) -> np.ndarray:
    """The original's correlation matrix, shared by every release of a data set view."""
    return pearson(original)


def correlation_against(reference: np.ndarray, released: np.ndarray) -> np.ndarray:
    """Per attribute i, the mean over the other attributes j of |r_ij − r'_ij|; their mean
    over attributes is the mean over the m(m − 1)/2 pairs (each pair counts twice). With
    one attribute there is no pair and nothing to lose: 0 (a grid over m, as DP-IR's m = 1,
    8, 13, stays defined)."""
    m = reference.shape[0]
    if m < 2:
        return np.zeros(m)
    difference = np.abs(reference - pearson(released))
    np.fill_diagonal(difference, 0.0)
    return difference.sum(axis=1) / (m - 1)


def correlation_difference(
    original: np.ndarray, released: np.ndarray, attributes: Sequence[Attribute]
) -> np.ndarray:
    """Mean |r_ij(original) − r_ij(release)| of each attribute over the others (Pearson's
    r; a constant column has r = 0 with every other column): the metric, their mean, is
    the mean over the m(m − 1)/2 off-diagonal pairs, in [0, 2]. Needs no record
    correspondence."""
    return correlation_against(correlation_reference(original, attributes), released)


CORRELATION_DIFFERENCE = AttributeMetric(
    "correlation_difference",
    correlation_difference,
    "mean |r - r'| of the Pearson correlations over the m(m-1)/2 attribute pairs (a constant "
    "column has r = 0; 0 for m = 1); no record correspondence needed (Domingo-Ferrer & "
    "Torra 2001 IL on correlations; synthetic-data pairwise correlation difference)",
    requires=("numerical",),
    reference=correlation_reference,
    against=correlation_against,
    label="Mean |Δ correlation| over attribute pairs",
)
