"""Column shapes and column pair trends: the two scores of the synthetic-data quality
reports (SDMetrics' Quality Report), defined without record correspondence.

* **Column shapes**: per attribute, 1 − the Kolmogorov–Smirnov statistic of the original
  and released values for a numerical attribute (SDMetrics' KSComplement), 1 − their
  total variation distance for a categorical one (TVComplement).
* **Column pair trends**: per pair of attributes, 1 − |r − r'|/2 for two numerical ones,
  r Pearson's correlation (CorrelationSimilarity), and 1 − the total variation distance of
  their 2-way table otherwise, a numerical attribute cut in 10 equal bins over the
  original's [min, max] (ContingencySimilarity with SDMetrics' ``discretize_column``).

Both are similarities in [0, 1] (1: the same shapes or trends), averaged over attributes
(each attribute's pair trend is its mean over its pairs, so their mean is the mean over
the m(m − 1)/2 pairs). Option ``pairs`` of the pair trends chooses which pairs count
(:data:`PAIRS`): ``all`` of them, the mean of CorrelationSimilarity and
ContingencySimilarity over every pair (SDMetrics' Column Pair Trends score before 0.27), or
``strong``, those whose original data show a trend, as the Column Pair Trends score of
SDMetrics' Quality Report (0.27 and later) counts them: a numerical pair with |r| > 0.5
(:data:`STRONG_CORRELATION`), a pair with a categorical attribute whose original 2-way
table has Cramér's V > 0.3 (:data:`STRONG_ASSOCIATION`). Where they depart from
SDMetrics: a constant column has r = 0 with every other one (SDMetrics refuses it), and
values are not rounded to 14 digits first.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Attribute
from anonlab.metrics.base import AttributeMetric
from anonlab.metrics.correlation import pearson
from anonlab.metrics.jsd import value_counts_pair
from anonlab.metrics.marginals import pair_shares

#: equal-width bins of a numerical attribute in a pair with a categorical one (SDMetrics'
#: ``num_discrete_bins`` default)
PAIR_BINS = 10
#: the pairs the pair trends count (the first the default): every pair, or those whose
#: original data show a trend, as SDMetrics' Quality Report counts them
PAIRS: tuple[str, ...] = ("all", "strong")
#: a numerical pair counts under ``pairs: strong`` if its original |r| exceeds this
#: (SDMetrics' ``DEFAULT_REAL_CORRELATION_THRESHOLD``)
STRONG_CORRELATION = 0.5
#: a pair with a categorical attribute counts under ``pairs: strong`` if the Cramér's V of
#: its original 2-way table exceeds this (SDMetrics' ``DEFAULT_REAL_ASSOCIATION_THRESHOLD``)
STRONG_ASSOCIATION = 0.3


def ks_statistics(original: np.ndarray, released: np.ndarray) -> np.ndarray:
    """Two-sample Kolmogorov–Smirnov statistic sup_x |F(x) − F'(x)| of each column of
    ``(n, c)`` and ``(n', c)`` matrices (Smirnov 1948; :func:`scipy.stats.ks_2samp`'s
    statistic): the empirical CDFs compared after every run of tied values, in whole
    numbers, |c·n' − c'·n| / (n·n'), so the value is the exact ratio rounded once, as
    ``ks_2samp``'s exact mode returns it."""
    n1, n2 = len(original), len(released)
    values = np.concatenate([original, released])
    order = np.argsort(values, axis=0, kind="stable")
    ordered = np.take_along_axis(values, order, axis=0)
    from_original = order < n1
    # F(x)·n·n' − F'(x)·n·n' after each value: counts c, c' of values ≤ x
    gap = np.cumsum(from_original, axis=0) * n2 - np.cumsum(~from_original, axis=0) * n1
    last_of_run = np.ones(ordered.shape, dtype=bool)
    last_of_run[:-1] = ordered[1:] != ordered[:-1]
    return np.abs(np.where(last_of_run, gap, 0)).max(axis=0, initial=0) / (n1 * n2)


def tv_distance(original: np.ndarray, released: np.ndarray) -> float:
    """Total variation distance ½ Σ_v |p(v) − q(v)| of the value frequencies of two columns
    (SDMetrics' TVComplement is 1 − this)."""
    p, q = value_counts_pair(original, released)
    return 0.5 * float(np.abs(p / len(original) - q / len(released)).sum())


@dataclass(frozen=True)
class ShapeReference:
    """The original's side of :func:`column_shapes`: which columns are categorical and
    the original values."""

    categorical: np.ndarray
    original: np.ndarray


def shapes_reference(original: np.ndarray, attributes: Sequence[Attribute]) -> ShapeReference:
    """The original's columns, shared by every release of a data set view."""
    categorical = np.array([a.categorical for a in attributes], dtype=bool)
    return ShapeReference(categorical, np.asarray(original, dtype=float))


def shapes_against(reference: ShapeReference, released: np.ndarray) -> np.ndarray:
    """Per attribute, 1 − KS (numerical) or 1 − TVD (categorical) against ``released``."""
    out = np.empty(len(reference.categorical))
    numerical = ~reference.categorical
    if numerical.any():
        out[numerical] = 1.0 - ks_statistics(
            reference.original[:, numerical], np.asarray(released, dtype=float)[:, numerical]
        )
    for j in np.flatnonzero(reference.categorical):
        out[j] = 1.0 - tv_distance(reference.original[:, j], released[:, j])
    return out


def column_shapes(
    original: np.ndarray, released: np.ndarray, attributes: Sequence[Attribute]
) -> np.ndarray:
    """Column shape score of each attribute: 1 − the Kolmogorov–Smirnov statistic for a
    numerical attribute (SDMetrics' KSComplement), 1 − the total variation distance of the
    value frequencies for a categorical one (TVComplement); in [0, 1], 1 the same
    distribution. Needs no record correspondence."""
    return shapes_against(shapes_reference(original, attributes), released)


@dataclass(frozen=True)
class TrendReference:
    """The original's side of :func:`pair_trends`: its correlation matrix, the pairs
    with a categorical attribute, the bins that cut their numerical attributes, their
    normalised 2-way tables (laid out as :func:`~anonlab.metrics.marginals.pair_shares`),
    and, under ``pairs: strong``, the ``(m, m)`` mask of the pairs that count
    (``None``: every pair)."""

    correlation: np.ndarray
    categorical: np.ndarray
    edges: tuple[np.ndarray | None, ...]
    first: np.ndarray
    second: np.ndarray
    sizes: np.ndarray
    offsets: np.ndarray
    shares: np.ndarray
    counted: np.ndarray | None = None


def _codes(values: np.ndarray, reference: TrendReference) -> np.ndarray:
    """Bin of every value: a categorical attribute's code, a numerical attribute's bin
    among :data:`PAIR_BINS` (SDMetrics' ``discretize_column``: the outer edges opened to
    ±∞, a value on an inner edge in the bin above it)."""
    codes = np.zeros(values.shape, dtype=np.int64)
    for j, edges in enumerate(reference.edges):
        if edges is not None:
            codes[:, j] = np.digitize(values[:, j], edges[1:-1])
        elif reference.categorical[j]:
            codes[:, j] = values[:, j].astype(np.int64)
    return codes


def strong_pairs(reference: TrendReference, n: int) -> np.ndarray:
    """The ``(m, m)`` mask of the pairs whose original data show a trend, as SDMetrics'
    Quality Report counts them: two numerical attributes with |r| >
    :data:`STRONG_CORRELATION`; a pair with a categorical attribute whose 2-way table of
    ``n`` records, its empty rows and columns left out, has at least two of each and a
    Cramér's V (:func:`scipy.stats.contingency.association`) > :data:`STRONG_ASSOCIATION`."""
    from scipy.stats.contingency import association  # here: not needed to build a run

    numerical = ~reference.categorical
    counted = (np.abs(reference.correlation) > STRONG_CORRELATION) & np.outer(numerical, numerical)
    np.fill_diagonal(counted, False)
    for p, (a, b) in enumerate(zip(reference.first, reference.second, strict=True)):
        shares = reference.shares[reference.offsets[p] : reference.offsets[p + 1]]
        table = np.rint(shares * n).astype(np.int64).reshape(reference.sizes[[a, b]])
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
        strong = min(table.shape) >= 2 and association(table, method="cramer") > STRONG_ASSOCIATION
        counted[a, b] = counted[b, a] = strong
    return counted


def trends_reference(
    original: np.ndarray, attributes: Sequence[Attribute], pairs: str = PAIRS[0]
) -> TrendReference:
    """The original's correlations and 2-way tables, and the pairs that count under
    ``pairs`` (:data:`PAIRS`), shared by every release of a view."""
    original = np.asarray(original, dtype=float)
    m = original.shape[1]
    categorical = np.array([a.categorical for a in attributes], dtype=bool)
    first, second = np.triu_indices(m, k=1)
    mixed = categorical[first] | categorical[second]
    first, second = first[mixed], second[mixed]
    in_table = np.zeros(m, dtype=bool)
    in_table[first] = in_table[second] = True
    edges = tuple(
        np.histogram_bin_edges(original[:, j], bins=PAIR_BINS)
        if in_table[j] and not categorical[j]
        else None
        for j in range(m)
    )
    sizes = np.array(
        [len(a.taxonomy.nodes) if a.categorical else PAIR_BINS for a in attributes], dtype=np.int64
    )
    offsets = np.concatenate([[0], np.cumsum(sizes[first] * sizes[second])]).astype(np.int64)
    numerical = np.where(categorical, 0.0, original)  # categorical columns: no correlation
    reference = TrendReference(
        pearson(numerical), categorical, edges, first, second, sizes, offsets, np.empty(0)
    )
    shares = pair_shares(_codes(original, reference), first, second, sizes, offsets)
    reference = TrendReference(
        reference.correlation, categorical, edges, first, second, sizes, offsets, shares
    )
    if pairs == "strong":
        return replace(reference, counted=strong_pairs(reference, len(original)))
    return reference


def trends_against(reference: TrendReference, released: np.ndarray) -> np.ndarray:
    """Per attribute, the mean pair trend score with each other attribute against
    ``released``; with one attribute there is no pair and nothing lost: 1. Under
    ``pairs: strong`` (``reference.counted``) every attribute holds the mean over the pairs
    that count (SDMetrics' report scores pairs, not attributes), so their mean is that
    score; NaN for each when no pair counts (SDMetrics' report: no score either)."""
    m = len(reference.categorical)
    counted = reference.counted
    if counted is not None and not counted.any():
        return np.full(m, np.nan)
    if m < 2:
        return np.ones(m)
    released = np.asarray(released, dtype=float)
    # SDMetrics' CorrelationSimilarity: 1 − |r − r'| / 2
    score = (
        1.0
        - np.abs(reference.correlation - pearson(np.where(reference.categorical, 0.0, released)))
        / 2.0
    )
    if len(reference.first):
        shares = pair_shares(
            _codes(released, reference),
            reference.first,
            reference.second,
            reference.sizes,
            reference.offsets,
        )
        # SDMetrics' ContingencySimilarity: 1 − ½ Σ_cells |p − q|
        tvd = 0.5 * np.add.reduceat(np.abs(reference.shares - shares), reference.offsets[:-1])
        score[reference.first, reference.second] = 1.0 - tvd
        score[reference.second, reference.first] = 1.0 - tvd
    np.fill_diagonal(score, 0.0)
    if counted is not None:
        return np.full(m, score[np.triu(counted, k=1)].mean())
    return score.sum(axis=1) / (m - 1)


def pair_trends(
    original: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    pairs: str = PAIRS[0],
) -> np.ndarray:
    """Column pair trend score of each attribute: per pair, 1 − |r − r'|/2 for two
    numerical attributes (SDMetrics' CorrelationSimilarity; for numerical data
    1 − ``correlation_difference``/2) and 1 − the TVD of the 2-way table for a pair with a
    categorical attribute (ContingencySimilarity, the numerical one in 10 equal bins over
    the original's range). ``pairs: all``: each attribute's mean over its m − 1 pairs, so
    their mean is the mean over every pair; ``strong``: for every attribute, the mean over
    the pairs whose original data show a trend (:func:`strong_pairs`), the Column Pair
    Trends score of SDMetrics' Quality Report, NaN if none does. Needs no record
    correspondence."""
    return trends_against(trends_reference(original, attributes, pairs), released)


COLUMN_SHAPES = AttributeMetric(
    "column_shapes",
    column_shapes,
    "column shape similarity: 1 - Kolmogorov-Smirnov statistic of a numerical attribute, "
    "1 - total variation distance of a categorical one (SDMetrics' KSComplement, "
    "TVComplement); no record correspondence needed",
    reference=shapes_reference,
    against=shapes_against,
    label="Column shapes (1 − KS, 1 − TVD)",
    cost=Cost("n*log(n)*m", seconds=2e-8),  # each released column sorted
)
PAIR_TRENDS = AttributeMetric(
    "pair_trends",
    pair_trends,
    "column pair trend similarity: 1 - |r - r'|/2 for numerical pairs, 1 - TVD of the "
    "2-way table (10 bins) with a categorical attribute (SDMetrics' CorrelationSimilarity, "
    "ContingencySimilarity), averaged over all m(m-1)/2 attribute pairs (option pairs: all; "
    "1 for m = 1) or, as the Column Pair Trends score of SDMetrics' Quality Report, over the "
    "pairs with a trend in the original, |r| > 0.5 or Cramér's V > 0.3 (pairs: strong; NaN "
    "if none); no record correspondence needed",
    option_choices={"pairs": PAIRS},
    # pairs: strong is NaN on the conformance data, whose attributes are drawn independently
    test_params=({},),
    reference=trends_reference,
    against=trends_against,
    label="Column pair trends (1 − |Δr|/2, 1 − TVD)",
)
