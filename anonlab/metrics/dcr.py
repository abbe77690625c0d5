"""Distance to closest record (DCR) of a release to the original records, as SDMetrics
defines it (``sdmetrics.single_table.privacy.dcr_utils.calculate_dcr`` and
``DCRBaselineProtection``, SDMetrics 0.17 and later).

The distance between a released record x and an original record y is the mean over the
m protected attributes of

* |x_j − y_j| / range_j, at most 1, for a numerical attribute, range_j being the
  ORIGINAL's max − min (a constant original column: 0 if equal, 1 otherwise);
* 0 if equal, 1 otherwise, for a categorical attribute;

and a released record's DCR is its distance to the nearest original record: 0 for a copy,
at most 1. ``dcr`` is the median DCR of the released records (SDMetrics'
``median_DCR_to_real_data.synthetic_data``). ``dcr_baseline_protection`` divides it by the
median DCR of as many RANDOM records, each attribute drawn uniformly over the original's
values (whole numbers between its min and max for an attribute declared whole-numbered,
any number between them for another numerical one, one of its distinct values for a
categorical one), and caps the ratio at 1: 1 when the release is no closer to the
original records than random data, 0 when it copies them; undefined (NaN) when the random
records' median DCR is 0, as SDMetrics returns. The random records are drawn from a stream
jumped from the metric's generator (:func:`~anonlab.metrics.base.side_stream`), so this
metric changes no other metric's draws.

Both need no record correspondence: they measure synthetic data as any other release. A
small DCR says released records sit near original ones; it is not a re-identification
probability, and a large one does not bound what an attack learns (see
:mod:`anonlab.metrics.attacks`).

Exactness. DCRs are exact, not sampled (SDMetrics' ``num_rows_subsample`` is not used):
identical records are searched once; an exact k-d tree on the range-scaled attributes
(L1 distance, categories one-hot coded by ½) gives each released record's nearest
distance without the cap at 1, which is its DCR whenever that distance is at most 1 (a
nearer record under the cap would be nearer without it); the others, whose every original
record differs by a full range somewhere, are computed against every original record.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Attribute, Dataset
from anonlab.metrics.base import ReleaseMetric, side_stream
from anonlab.release import Release

#: bytes of one temporary (records × original records × attributes) array of the
#: records whose nearest distance exceeds 1, computed against every original record
CHUNK_BYTES = 32 * 2**20
#: the jump of the metric generator's stream the random records are drawn from
#: (:func:`~anonlab.metrics.base.side_stream`)
STREAM = 2


def _capped_sums(
    queries: np.ndarray, reference: np.ndarray, width: np.ndarray, categorical: np.ndarray
) -> np.ndarray:
    """Σ_j min(|q_j − y_j| / width_j, 1) (numbers) + Σ_j [q_j ≠ y_j] (categories),
    minimised over the ``reference`` rows, per query; in chunks of queries."""
    out = np.empty(len(queries))
    m = queries.shape[1]
    chunk = max(1, CHUNK_BYTES // (8 * max(1, len(reference) * m)))
    for start in range(0, len(queries), chunk):
        q = queries[start : start + chunk, None, :]
        diff = np.abs(q - reference[None, :, :])
        terms = np.where(categorical, diff != 0, np.minimum(diff / width, 1.0))
        out[start : start + chunk] = terms.sum(axis=2).min(axis=1)
    return out


def closest_distances(
    released: np.ndarray, original: np.ndarray, attributes: Sequence[Attribute]
) -> np.ndarray:
    """The DCR of each released record to the ``original`` records (see the module):
    mean over the attributes of the range-scaled distance capped at 1 (numbers) or the
    mismatch (categories), minimised over the original records."""
    released = np.asarray(released, dtype=float)
    original = np.asarray(original, dtype=float)
    m = original.shape[1]
    if len(released) == 0:
        return np.empty(0)
    categorical = np.array([a.categorical for a in attributes], dtype=bool)
    low, high = original.min(axis=0), original.max(axis=0)
    width = np.where(categorical, 0.0, high - low)
    constant = ~categorical & (width == 0)
    queries, inverse = np.unique(released, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    reference = np.unique(original, axis=0)
    # an original column with one value: 0 if equal, 1 otherwise (SDMetrics), per query
    fixed = (queries[:, constant] != low[constant]).sum(axis=1).astype(float)
    varying = ~constant
    total = fixed.copy()
    if varying.any():
        q, r = queries[:, varying], reference[:, varying]
        is_category = categorical[varying]
        span = np.where(is_category, 1.0, width[varying])
        embedded_q, embedded_r = _embedding(q, r, span, is_category)
        from scipy.spatial import cKDTree

        nearest, _ = cKDTree(embedded_r).query(embedded_q, k=1, p=1)
        far = np.flatnonzero(nearest > 1.0)  # the cap at 1 may lower these: exact search
        if len(far):
            nearest[far] = _capped_sums(q[far], r, span, is_category)
        total += nearest
    return (total / m)[inverse]


def _embedding(
    queries: np.ndarray, reference: np.ndarray, width: np.ndarray, categorical: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Queries and reference rows in a space whose L1 distance is the uncapped sum of
    :func:`_capped_sums`: numbers over ``width``, categories one-hot times ½."""
    parts_q, parts_r = [], []
    for j in range(queries.shape[1]):
        if categorical[j]:
            codes, inverse = np.unique(
                np.concatenate([queries[:, j], reference[:, j]]), return_inverse=True
            )
            onehot = 0.5 * np.eye(len(codes))[inverse.reshape(-1)]
            parts_q.append(onehot[: len(queries)])
            parts_r.append(onehot[len(queries) :])
        else:
            parts_q.append(queries[:, j : j + 1] / width[j])
            parts_r.append(reference[:, j : j + 1] / width[j])
    return np.hstack(parts_q), np.hstack(parts_r)


def random_records(
    original: np.ndarray, attributes: Sequence[Attribute], size: int, rng: np.random.Generator
) -> np.ndarray:
    """``size`` records drawn attribute by attribute, uniformly over the original's values
    (SDMetrics' ``DCRBaselineProtection._generate_random_data``): whole numbers in
    [min, max] for an attribute declared whole-numbered, real numbers in [min, max] for
    another numerical one, one of the distinct values for a categorical one."""
    columns = []
    for j, attribute in enumerate(attributes):
        values = original[:, j]
        if attribute.categorical:
            columns.append(rng.choice(np.unique(values), size=size))
        elif attribute.integer:
            low, high = int(np.ceil(values.min())), int(np.floor(values.max()))
            columns.append(rng.integers(low, high + 1, size=size).astype(float))
        else:
            columns.append(rng.uniform(values.min(), values.max(), size=size))
    return np.column_stack(columns) if columns else np.empty((size, 0))


def dcr(view: Dataset, release: Release) -> float:
    """The median DCR of the released records to the original records (SDMetrics)."""
    original = view.protected_values
    return float(np.median(closest_distances(release.values, original, view.protected_attributes)))


def dcr_baseline_protection(view: Dataset, release: Release, rng: np.random.Generator) -> float:
    """SDMetrics' DCRBaselineProtection: min(median DCR of the release / median DCR of as
    many random records, 1); NaN when the random records' median DCR is 0."""
    original, attributes = view.protected_values, view.protected_attributes
    synthetic = np.median(closest_distances(release.values, original, attributes))
    baseline = random_records(original, attributes, len(release.values), side_stream(rng, STREAM))
    random = np.median(closest_distances(baseline, original, attributes))
    return float(min(synthetic / random, 1.0)) if random > 0 else float("nan")


DCR = ReleaseMetric(
    "dcr",
    dcr,
    "median distance to closest record of the released records to the original ones "
    "(SDMetrics' DCR): mean over attributes of |x − y| / the original's range, capped at 1 "
    "(0/1 for categories), minimised over the original records; 0 for a copy",
    label="Median DCR to the original",
    cost=Cost("n*log(n)*m", seconds=1e-6),  # a k-d tree's nearest records
)
DCR_BASELINE_PROTECTION = ReleaseMetric(
    "dcr_baseline_protection",
    dcr_baseline_protection,
    "SDMetrics' DCRBaselineProtection: the release's median DCR over that of as many "
    "random records (uniform over the original's ranges and categories), capped at 1 "
    "(1: no closer than random data, 0: copies); NaN when random data's median DCR is 0",
    randomized=True,
    label="DCR baseline protection",
    cost=Cost("n*log(n)*m", seconds=2e-6),  # two k-d tree searches
)
