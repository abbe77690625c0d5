"""Individual ranking alone and DP-IR Algorithm 1 (individual ranking + Laplace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonlab.datasets import Dataset
from anonlab.mechanisms import (
    LaplaceMechanism,
    attribute_budget,
    individual_ranking_sensitivity,
)
from anonlab.methods.base import Method, Release, postprocess
from anonlab.microaggregation import individual_ranking
from anonlab.validation import check_epsilon, check_int


@dataclass(frozen=True)
class IndividualRankingMethod(Method):
    """Plain individual-ranking microaggregation, no noise (DP-IR §4.3 baseline; not DP)."""

    k: int
    name: ClassVar[str] = "ir"
    axes: ClassVar[tuple[str, ...]] = ("k",)
    randomized: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", 1))

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        k = check_int(self.k, "k", 1, dataset.n)
        ranking = individual_ranking(dataset.protected_values, k)
        released = postprocess(dataset, ranking.release(), noisy=False)
        return Release(dataset, released, labels=ranking.labels)


@dataclass(frozen=True)
class IndividualRankingLaplace(Method):
    """DP-IR Algorithm 1: individual ranking, then one Laplace draw per cluster and
    attribute with scale m·Δ(A_i)/(k·ε), shared by every record of the cluster."""

    k: int
    epsilon: float
    name: ClassVar[str] = "ir_laplace"
    axes: ClassVar[tuple[str, ...]] = ("k", "epsilon")

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", 1))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        attrs = dataset.protected_attributes
        k = check_int(self.k, "k", 1, dataset.n)
        ranking = individual_ranking(dataset.protected_values, k)
        widths = np.array([a.width for a in attrs])
        # DP-IR Alg. 1 step 2 with §3.3 item 2: sensitivity Δ(A_i)/k (Lemma 1), budget ε/m
        mechanism = LaplaceMechanism(
            individual_ranking_sensitivity(widths, k), attribute_budget(self.epsilon, len(attrs))
        )
        # DP-IR Alg. 1 note: the same draw for all repeated centroid values of a cluster
        noisy_centroids = mechanism.randomise(ranking.centroids, rng)
        noisy = np.take_along_axis(noisy_centroids, ranking.labels, axis=0)
        return Release(
            dataset, postprocess(dataset, noisy, noisy=True), labels=ranking.labels,
            scale=mechanism.scale,
        )
