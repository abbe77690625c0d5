"""Sums of squared errors: per attribute normalised by m (DP-UNI §5), and iDP §4.1's
mean SSE over the standardised record distance of iDP Eq. (5)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Attribute, Dataset
from anonlab.metrics.base import AttributeMetric, ReleaseMetric, semantic_distances
from anonlab.release import Release
from anonlab.validation import ParameterError


def squared_errors(
    original: np.ndarray, released: np.ndarray, attributes: Sequence[Attribute]
) -> np.ndarray:
    """Σ over records of dist(a, a')² per attribute; their mean is Σ_records Σ_attrs / m,
    DP-UNI §5's SSE "normalized by the number of attributes considered (m)". dist is
    |a − a'| for numerical attributes and δ (DP-IR Eq. 3) for categorical ones."""
    out = np.sum((original - released) ** 2, axis=0)
    for j, attribute in enumerate(attributes):
        if attribute.categorical:
            out[j] = np.sum(semantic_distances(original[:, j], released[:, j], attribute) ** 2)
    return out


SSE = AttributeMetric(
    "sse",
    squared_errors,
    "sum of squared errors / m (raw units)",
    requires=("record_correspondence",),
    label="SSE / m",
)


def idp_mean_sse(view: Dataset, release: Release, exponent: float = 1.0) -> float:
    """Mean SSE of iDP §4.1: (1/n) Σ_i d(r_i, r_i')² with the record distance of iDP
    Eq. (5) as printed, d = (1/m)·sqrt(Σ_j (|x_j − y_j| / σ_j²)²), σ_j² the sample
    variance (ddof = 1) of attribute j in the original data. Eq. (5) divides by the
    variance, not the standard deviation; we follow the print (docs/reproduction-notes.md).
    ``exponent = 0.5`` divides by σ_j instead (metric ``sse_idp_sd``)."""
    original = view.protected_values
    m = original.shape[1]
    variance = view.protected_variance
    if np.any(variance == 0):
        constant = [view.protected[j] for j in np.flatnonzero(variance == 0)]
        raise ParameterError(f"the iDP mean SSE divides by the variance; {constant} are constant")
    scaled = (original - release.values) / variance**exponent  # iDP Eq. (5): d_j/σ_j²
    return float(np.mean(np.sum(scaled**2, axis=1)) / m**2)  # iDP Eq. (4)/n with Eq. (5)


def idp_mean_sse_sd(view: Dataset, release: Release) -> float:
    """iDP's mean SSE with Eq. (5) dividing by the standard deviation σ_j, the usual
    standardised distance, which makes the metric independent of each attribute's unit."""
    return idp_mean_sse(view, release, exponent=0.5)


SSE_IDP = ReleaseMetric(
    "sse_idp",
    idp_mean_sse,
    "iDP mean SSE, Eq. (5) as printed: distances over variances, 1/m",
    requires=("numerical", "variance", "record_correspondence"),
    label="Mean SSE (iDP Eq. 5)",
)
SSE_IDP_SD = ReleaseMetric(
    "sse_idp_sd",
    idp_mean_sse_sd,
    "iDP mean SSE with Eq. (5) over standard deviations instead",
    requires=("numerical", "variance", "record_correspondence"),
    label="Mean SSE over σ (iDP)",
)
