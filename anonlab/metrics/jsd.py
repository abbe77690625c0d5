"""Jensen–Shannon divergence between attribute histograms, DP-IR §4.2."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric, domain_arrays

N_BINS = 100  # DP-IR §4.2: bins of 1/100th of the attribute domain
#: Where the 100 bins of a continuous attribute lie: over its public domain (DP-IR §4.2,
#: "bins accounting 1/100th of the attribute domain"), the default, or over the original
#: data's [min, max].
BINS: tuple[str, ...] = ("domain", "data_range")


def js_divergence(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """JSD in bits (bounded by 1) between count vectors along the last axis."""
    from scipy.special import rel_entr  # here: 0.1 s to import, not needed to build a run

    p = p / p.sum(axis=-1, keepdims=True)
    q = q / q.sum(axis=-1, keepdims=True)
    mix = 0.5 * (p + q)
    kl = 0.5 * rel_entr(p, mix).sum(axis=-1) + 0.5 * rel_entr(q, mix).sum(axis=-1)
    return np.maximum(kl / np.log(2.0), 0.0)


def equal_bin_counts(values: np.ndarray, low: np.ndarray, width: np.ndarray) -> np.ndarray:
    """``(m, N_BINS)`` counts of each column in 100 equal bins over its domain; the domain's
    upper bound falls in the last bin, as in :func:`numpy.histogram`, values beyond the
    bins (and NaN) in the edge bins."""
    n, m = values.shape
    scaled = values - low
    scaled /= width
    scaled *= N_BINS
    np.minimum(scaled, N_BINS - 1, out=scaled)
    # truncation, not floor: the two differ only on (-1, 0), which goes to bin 0 either
    # way; below that (and NaN, which converts to the least integer) is raised to bin 0
    index = scaled.astype(np.int64)
    np.maximum(index, 0, out=index)
    index += np.arange(0, m * N_BINS, N_BINS)
    return np.bincount(index.ravel(), minlength=m * N_BINS).reshape(m, N_BINS)


#: widest span of whole numbers counted with one bin per integer (8 MB of counts)
INTEGER_SPAN = 1_000_000


def value_counts_pair(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Counts of ``a`` and ``b`` over the union of their values (one bin per value, in
    increasing order). Whole numbers over a span up to :data:`INTEGER_SPAN` (codes,
    rounded releases) are counted in one pass, with the same result as sorting."""
    low, high = min(a.min(), b.min()), max(a.max(), b.max())
    if (
        high - low <= INTEGER_SPAN
        and np.array_equal(a, np.floor(a))
        and np.array_equal(b, np.floor(b))
    ):
        size = int(high - low) + 1
        ca = np.bincount((a - low).astype(np.int64), minlength=size)
        cb = np.bincount((b - low).astype(np.int64), minlength=size)
        present = (ca + cb) > 0
        return ca[present], cb[present]
    values, inverse = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca = np.bincount(inverse[: len(a)], minlength=len(values))
    cb = np.bincount(inverse[len(a) :], minlength=len(values))
    return ca, cb


def data_range(
    original: np.ndarray, attributes: Sequence[Attribute]
) -> tuple[np.ndarray, np.ndarray]:
    """Lower bounds and widths of the original values' [min, max] (domain width if constant)."""
    low = original.min(axis=0)
    width = original.max(axis=0) - low
    _, domain_width = domain_arrays(attributes)
    return low, np.where(width > 0, width, domain_width)


@dataclass(frozen=True)
class JSDReference:
    """The original data's side of :func:`jsd`: which attributes are continuous (a mask
    and their positions), their bins (``low``, ``width``) and counts, and the discrete
    columns' values."""

    continuous: np.ndarray
    positions: np.ndarray
    low: np.ndarray
    width: np.ndarray
    counts: np.ndarray
    discrete_values: np.ndarray


def jsd_reference(
    original: np.ndarray, attributes: Sequence[Attribute], bins: str = "domain"
) -> JSDReference:
    """The original's histograms of :func:`jsd`, shared by every release of a data set."""
    continuous = np.array([not a.discrete for a in attributes], dtype=bool)
    low = width = counts = np.empty(0)
    if continuous.any():
        kept = [a for a in attributes if not a.discrete]
        if bins == "domain":  # DP-IR §4.2: bins of 1/100th of the attribute domain
            low, width = domain_arrays(kept)
        else:
            low, width = data_range(original[:, continuous], kept)
        counts = equal_bin_counts(original[:, continuous], low, width).astype(float)
    return JSDReference(
        continuous,
        np.flatnonzero(continuous),
        np.asarray(low, dtype=float),
        np.asarray(width, dtype=float),
        counts,
        original[:, ~continuous],
    )


def jsd_against(reference: JSDReference, released: np.ndarray) -> np.ndarray:
    """JSD per attribute between the original's histograms and ``released``'s."""
    out = np.empty(len(reference.continuous))
    if reference.continuous.any():
        from anonlab.metrics.kernels import binned_jsd

        # js_divergence(counts, equal_bin_counts(…)) in one compiled pass, to the bit
        continuous = np.empty(len(reference.positions))
        binned_jsd(
            np.ascontiguousarray(released, dtype=float),
            reference.positions,
            reference.low,
            reference.width,
            reference.counts,
            continuous,
        )
        out[reference.continuous] = continuous
    for i, j in enumerate(np.flatnonzero(~reference.continuous)):
        p, q = value_counts_pair(reference.discrete_values[:, i], released[:, j])
        out[j] = js_divergence(p.astype(float), q.astype(float))
    return out


def jsd(
    original: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    bins: str = "domain",
) -> np.ndarray:
    """JSD per attribute between the original and released histograms (DP-IR §4.2).

    Continuous attributes use 100 equal bins over the domain (``bins="domain"``, as DP-IR
    §4.2 states) or over the original values' [min, max] (``bins="data_range"``; released
    values outside it count in the edge bins); discrete ones (``discrete``) one bin per
    value.
    """
    return jsd_against(jsd_reference(original, attributes, bins), released)


JSD = AttributeMetric(
    "jsd",
    jsd,
    "Jensen-Shannon divergence, 100 bins over the domain or "
    "the data's [min, max] (option bins) (bits)",
    option_choices={"bins": BINS},
    reference=jsd_reference,
    against=jsd_against,
    label="Jensen–Shannon divergence (bits)",
)
