"""Individual ranking alone and DP-IR Algorithm 1 (individual ranking + Laplace), on
numerical and categorical attributes (DP-IR §3.2–3.4)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import ClassVar

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import DP, NONE, Guarantee
from anonlab.mechanisms import (
    LaplaceMechanism,
    attribute_budget,
    individual_ranking_sensitivity,
)
from anonlab.mechanisms.measurements import EXPONENTIAL, LAPLACE, Measurement
from anonlab.methods.base import FORMS, Method, Release, codes_of, postprocess, split_kinds
from anonlab.methods.categorical import centroid_codes, private_centroid_codes, ranking_clusters
from anonlab.microaggregation import (
    REMAINDERS,
    IndividualRanking,
    individual_ranking,
    rank_labels,
)
from anonlab.semantics import order_path_sensitivity
from anonlab.validation import check_int


def _categorical_clusters(
    dataset: Dataset, k: int, remainder: str = "last"
) -> dict[int, np.ndarray]:
    """Individual-ranking cluster of each record, per categorical attribute position."""
    attrs, values = dataset.protected_attributes, dataset.protected_values
    return {
        j: ranking_clusters(attrs[j].taxonomy, codes_of(values, j), k, remainder)
        for j in split_kinds(dataset)[1]
    }


def _numeric_ranking(
    dataset: Dataset, numeric: list[int], k: int, remainder: str, keep: bool = False
) -> IndividualRanking:
    """Individual ranking of the numerical protected attributes (positions ``numeric``),
    from the data set's cached sort; with every attribute numerical, neither the values
    nor the sort are copied.

    With ``keep``, the view keeps the last ranking it gave (one: a release's memory), for
    the next call with the same attributes, k and remainder: the repetitions of a cell of
    DP-IR Algorithm 1, and its cells that differ only in ε, which a run computes one after
    the other, cut the same clusters. A kept ranking is never written into."""
    if keep:
        kept = dataset.computed_once("kept_ranking", dict)
        key = (tuple(numeric), k, remainder)
        if key not in kept:
            kept.clear()
            kept[key] = _numeric_ranking(dataset, numeric, k, remainder)
        return kept[key]
    values = dataset.protected_values
    subset = values if len(numeric) == values.shape[1] else values[:, numeric]
    return individual_ranking(subset, k, dataset.sorted_protected.columns(numeric), remainder)


def _labels(
    shape: tuple[int, int],
    numeric: list[int],
    order: np.ndarray,
    sizes: np.ndarray,
    categorical: dict[int, np.ndarray],
) -> np.ndarray:
    """The release's ``(n, m)`` 32-bit labels: the individual-ranking clusters of the
    numerical attributes (at positions ``numeric``, cut from their sort ``order`` into
    ``sizes``) and the ``categorical`` ones ({position: clusters})."""
    if not categorical:
        return rank_labels(order, sizes)
    labels = np.empty(shape, dtype=np.int32 if shape[0] < 2**31 else np.int64)
    if numeric:
        labels[:, numeric] = rank_labels(order, sizes)
    for j, clusters in categorical.items():
        labels[:, j] = clusters
    return labels


def _labelling(
    dataset: Dataset, ranking: IndividualRanking | None, categorical: dict[int, np.ndarray]
) -> Callable[[], np.ndarray]:
    """Computes the release's labels on demand, holding the sort's ``order`` (kept by the
    data set anyway) and the cluster sizes, not the ranking's centroids."""
    numeric = split_kinds(dataset)[0]
    order = None if ranking is None else ranking.order
    sizes = None if ranking is None else ranking.sizes
    return partial(_labels, dataset.protected_values.shape, numeric, order, sizes, categorical)


IR_CAVEAT = "individual ranking alone is not k-anonymous: each attribute is grouped on its own"


@dataclass(frozen=True)
class IndividualRankingMethod(Method):
    """Plain individual-ranking microaggregation, no noise (DP-IR §4.3 baseline; not DP).
    Categorical values are ranked by marginality and replaced by the marginality centroid
    (DP-IR §3.4, Eq. 5).

    Option ``remainder`` (``last``, ``first``, ``middle``): the group of consecutive ranks
    that takes the n mod k remaining records (DP-IR Lemma 1 allows any one group).
    """

    k: int
    remainder: str = REMAINDERS[0]
    name: ClassVar[str] = "ir"
    label: ClassVar[str] = "Individual ranking (IR)"
    colour: ClassVar[str | None] = "#0072b2"  # blue
    marker: ClassVar[str | tuple[int, int, float] | None] = "d"  # thin diamond
    partition: ClassVar[str | None] = "attribute"
    axes: ClassVar[tuple[str, ...]] = ("k",)
    cost: ClassVar[Cost] = Cost("n*log(n)*m", seconds=4.5e-9)  # a sort per attribute
    randomized: ClassVar[bool] = False
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"remainder": REMAINDERS}

    def claim(self, m: int) -> Guarantee:
        return Guarantee(NONE, NONE, caveat=IR_CAVEAT)

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        k = check_int(self.k, "k", 1, dataset.n)
        values = dataset.protected_values
        numeric, _ = split_kinds(dataset)
        # the sort's buffers are freed before the release is made
        ranking = _numeric_ranking(dataset, numeric, k, self.remainder) if numeric else None
        released = np.empty(values.shape)  # every column is written below
        if ranking is not None:
            ranking.spread(values=released, columns=numeric)
        categorical = _categorical_clusters(dataset, k, self.remainder)
        for j, clusters in categorical.items():
            taxonomy = dataset.protected_attributes[j].taxonomy
            released[:, j] = centroid_codes(taxonomy, codes_of(values, j), clusters)[clusters]
        labelling = _labelling(dataset, ranking, categorical)
        del ranking  # its centroids are not held while the release is post-processed
        return Release(
            dataset, postprocess(dataset, released, noisy=False, in_place=True), labelling=labelling
        )


@dataclass(frozen=True)
class IndividualRankingLaplace(Method):
    """DP-IR Algorithm 1: individual ranking, then one Laplace draw per cluster and
    attribute with scale m·Δ(A_i)/(k·ε), shared by every record of the cluster; for a
    categorical attribute one exponential-mechanism centroid per cluster (Algorithm 2)
    with budget ε/m.

    Option ``remainder`` as for ``ir``. Every option keeps each cluster at k..2k−1
    records, so the sensitivity Δ(A_i)/k of DP-IR Lemma 1 holds under each: Lemma 1
    needs clusters of at least k values, one of them possibly larger, wherever it lies.
    """

    k: int
    epsilon: float
    remainder: str = REMAINDERS[0]
    name: ClassVar[str] = "ir_laplace"
    cluster_noise: ClassVar[bool] = True
    label: ClassVar[str] = "IR + Laplace (DP-IR Alg. 1)"
    colour: ClassVar[str | None] = "#d55e00"  # vermilion
    marker: ClassVar[str | tuple[int, int, float] | None] = "s"  # square
    partition: ClassVar[str | None] = "attribute"
    axes: ClassVar[tuple[str, ...]] = ("k", "epsilon")
    cost: ClassVar[Cost] = Cost("n*log(n)*m", seconds=5e-9)  # a sort per attribute
    # DP-IR Lemma 1 covers each attribute's list of noisy centroids: its multiset
    # (shuffled_columns), and whole rows only with one attribute
    forms: ClassVar[tuple[str, ...]] = FORMS
    rows_need_one_attribute: ClassVar[bool] = True
    draws_laplace: ClassVar[bool] = True
    round_integers: ClassVar[bool] = True  # DP-IR §4.3: whole numbers stay whole
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"remainder": REMAINDERS}

    def claim(self, m: int) -> Guarantee:
        return Guarantee(DP, DP, self.epsilon / m, self.epsilon)  # DP-IR Alg. 1: ε/m each

    def mechanisms(self) -> tuple[Measurement, ...]:
        return (LAPLACE[self.sampler],)  # DP-IR Alg. 1 step 2: Laplace noise

    def categorical_mechanisms(self) -> tuple[Measurement, ...]:
        return (EXPONENTIAL[self.sampler],)  # DP-IR Alg. 2: the exponential mechanism

    def _mechanism(
        self, dataset: Dataset, numeric: list[int], k: int, budget: float
    ) -> LaplaceMechanism:
        """DP-IR Alg. 1 step 2 with §3.3 item 2: Laplace noise of sensitivity Δ(A_i)/k
        (Lemma 1) and budget ε/m on the numerical attributes (positions ``numeric``);
        every ``remainder`` option keeps each cluster at ≥ k records, as Lemma 1 needs.
        The same for every release of a cell on its view (kept by the view)."""
        widths = np.array([dataset.protected_attributes[j].width for j in numeric])
        return LaplaceMechanism(individual_ranking_sensitivity(widths, k), budget, self.sampler)

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        attrs = dataset.protected_attributes
        k = check_int(self.k, "k", 1, dataset.n)
        values = dataset.protected_values
        numeric, _ = split_kinds(dataset)
        budget = attribute_budget(self.epsilon, len(attrs))  # DP-IR §3.3 item 2: ε/m each
        # kept by the view for the next release of the same clusters (never written into)
        ranking = (
            _numeric_ranking(dataset, numeric, k, self.remainder, keep=True) if numeric else None
        )
        noisy = np.empty(values.shape)  # every column is written below
        scale = np.full(len(attrs), np.nan)
        if ranking is not None:
            mechanism = dataset.computed_once(
                ("ir_laplace", tuple(numeric), k, budget, self.sampler),
                lambda: self._mechanism(dataset, numeric, k, budget),
            )
            # DP-IR Alg. 1 note: the same draw for all repeated centroid values of a cluster
            # (drawn into a copy of the ranking's centroids, in their memory order)
            centroids = np.copy(ranking.centroids, order="K")
            mechanism.randomise(centroids, rng, out=centroids)
            ranking.spread(centroids, values=noisy, columns=numeric)
            scale[numeric] = mechanism.scale
        categorical = _categorical_clusters(dataset, k, self.remainder)
        for j, clusters in categorical.items():
            taxonomy = attrs[j].taxonomy
            # DP-IR Alg. 2 with Δ(q) the order-path bound (docs/reproduction-notes.md)
            chosen = private_centroid_codes(
                taxonomy,
                codes_of(values, j),
                clusters,
                budget,
                order_path_sensitivity(taxonomy),
                rng,
                sampler=self.sampler,
            )
            noisy[:, j] = chosen[clusters]
        labelling = _labelling(dataset, ranking, categorical)
        del ranking
        return Release(
            dataset,
            postprocess(dataset, noisy, noisy=self.round_integers, in_place=True),
            scale=scale,
            labelling=labelling,
        )
