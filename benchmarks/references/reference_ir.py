"""Plain NumPy individual ranking and DP-IR Algorithm 1 (``ir_laplace``), kept as they
were before the compiled sort: the ratios of ``benchmarks/timings/bench_ir.py`` are taken against
them, and ``tests/microaggregation/test_kernels_ir.py`` checks that the library gives the same sort,
labels, centroids and release, bit for bit, on data with many ties.

The code paths are those of ``anonlab/microaggregation/individual_ranking.py``
(:func:`sort_columns_numpy`, :func:`individual_ranking_numpy`) and of
``IndividualRankingMethod.protect`` / ``IndividualRankingLaplace.protect``
(:func:`ir_numpy`, :func:`ir_laplace_numpy`): a stable argsort per column, the ranks as
its inverse, the cluster label of every record gathered from the ranks, centroids by
``np.add.reduceat`` over the sorted values, and the release gathered from the labels.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.datasets import Dataset
from anonlab.mechanisms import LaplaceMechanism, attribute_budget, individual_ranking_sensitivity
from anonlab.methods.base import Release, codes_of, postprocess, split_kinds
from anonlab.methods.categorical import centroid_codes, private_centroid_codes, ranking_clusters
from anonlab.microaggregation import cluster_sizes, ranking_labels
from anonlab.semantics import order_path_sensitivity
from anonlab.validation import check_int


@dataclass(frozen=True)
class SortedColumnsNumpy:
    """``order`` (stable argsort per column), ``ranks`` (its inverse), ``ordered``."""

    order: np.ndarray
    ranks: np.ndarray
    ordered: np.ndarray

    def columns(self, positions: list[int]) -> SortedColumnsNumpy:
        return SortedColumnsNumpy(
            self.order[:, positions], self.ranks[:, positions], self.ordered[:, positions]
        )


@dataclass(frozen=True)
class IndividualRankingNumpy:
    labels: np.ndarray
    centroids: np.ndarray
    sizes: np.ndarray
    ordered: np.ndarray
    starts: np.ndarray

    def release(self) -> np.ndarray:
        return np.take_along_axis(self.centroids, self.labels, axis=0)


def sort_columns_numpy(values: np.ndarray) -> SortedColumnsNumpy:
    """Stable per-column sort of ``values`` (``(n, m)``, or ``(n,)`` as one column)."""
    matrix = np.asarray(values, dtype=float)
    if matrix.ndim == 1:
        matrix = matrix[:, None]
    order = np.argsort(np.ascontiguousarray(matrix.T), axis=1, kind="stable").T
    ranks = np.empty_like(order)
    np.put_along_axis(ranks, order, np.arange(len(matrix))[:, None], axis=0)
    return SortedColumnsNumpy(
        order=order, ranks=ranks, ordered=np.take_along_axis(matrix, order, axis=0)
    )


def individual_ranking_numpy(
    values: np.ndarray,
    k: int,
    sorted_columns: SortedColumnsNumpy | None = None,
    remainder: str = "last",
) -> IndividualRankingNumpy:
    """Microaggregate each column of ``values`` independently (DP-IR §2.1)."""
    if sorted_columns is None:
        sorted_columns = sort_columns_numpy(values)
    ordered = sorted_columns.ordered
    n = ordered.shape[0]
    rank_labels = ranking_labels(n, k, remainder)
    sizes = cluster_sizes(n, k, remainder)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
    centroids = np.add.reduceat(ordered, starts, axis=0) / sizes[:, None]
    return IndividualRankingNumpy(
        labels=rank_labels[sorted_columns.ranks],
        centroids=centroids,
        sizes=sizes,
        ordered=ordered,
        starts=starts,
    )


def _categorical_clusters(
    dataset: Dataset, k: int, remainder: str = "last"
) -> dict[int, np.ndarray]:
    attrs, values = dataset.protected_attributes, dataset.protected_values
    return {
        j: ranking_clusters(attrs[j].taxonomy, codes_of(values, j), k, remainder)
        for j in split_kinds(dataset)[1]
    }


def ir_numpy(
    dataset: Dataset,
    k: int,
    remainder: str = "last",
    sorted_columns: SortedColumnsNumpy | None = None,
) -> Release:
    """``IndividualRankingMethod(k, remainder).protect(dataset, rng)``; ``sorted_columns``
    (:func:`sort_columns_numpy` of ``dataset.protected_values``) plays the data set's
    cached sort."""
    k = check_int(k, "k", 1, dataset.n)
    values = dataset.protected_values
    numeric, _ = split_kinds(dataset)
    released = np.array(values, copy=True)
    labels = np.zeros(values.shape, dtype=np.int64)
    if numeric:
        if sorted_columns is None:
            sorted_columns = sort_columns_numpy(values)
        ranking = individual_ranking_numpy(
            values[:, numeric], k, sorted_columns.columns(numeric), remainder
        )
        released[:, numeric] = ranking.release()
        labels[:, numeric] = ranking.labels
    for j, clusters in _categorical_clusters(dataset, k, remainder).items():
        taxonomy = dataset.protected_attributes[j].taxonomy
        released[:, j] = centroid_codes(taxonomy, codes_of(values, j), clusters)[clusters]
        labels[:, j] = clusters
    return Release(dataset, postprocess(dataset, released, noisy=False), labels=labels)


def ir_laplace_numpy(
    dataset: Dataset,
    k: int,
    epsilon: float,
    rng: np.random.Generator,
    remainder: str = "last",
    sorted_columns: SortedColumnsNumpy | None = None,
) -> Release:
    """``IndividualRankingLaplace(k, epsilon, remainder).protect(dataset, rng)`` (DP-IR
    Algorithm 1): the same random draws in the same order."""
    attrs = dataset.protected_attributes
    k = check_int(k, "k", 1, dataset.n)
    values = dataset.protected_values
    numeric, _ = split_kinds(dataset)
    budget = attribute_budget(epsilon, len(attrs))
    noisy = np.array(values, copy=True)
    labels = np.zeros(values.shape, dtype=np.int64)
    scale = np.full(len(attrs), np.nan)
    if numeric:
        if sorted_columns is None:
            sorted_columns = sort_columns_numpy(values)
        ranking = individual_ranking_numpy(
            values[:, numeric], k, sorted_columns.columns(numeric), remainder
        )
        widths = np.array([attrs[j].width for j in numeric])
        mechanism = LaplaceMechanism(individual_ranking_sensitivity(widths, k), budget)
        noisy_centroids = mechanism.randomise(ranking.centroids, rng)
        noisy[:, numeric] = np.take_along_axis(noisy_centroids, ranking.labels, axis=0)
        labels[:, numeric] = ranking.labels
        scale[numeric] = mechanism.scale
    for j, clusters in _categorical_clusters(dataset, k, remainder).items():
        taxonomy = attrs[j].taxonomy
        chosen = private_centroid_codes(
            taxonomy, codes_of(values, j), clusters, budget, order_path_sensitivity(taxonomy), rng
        )
        noisy[:, j] = chosen[clusters]
        labels[:, j] = clusters
    return Release(dataset, postprocess(dataset, noisy, noisy=True), labels=labels, scale=scale)
