"""Multivariate microaggregation methods: MDAV, insensitive MDAV and its DP release ([17]
in DP-IR: Soria-Comas et al., VLDB J. 2014, as DP-IR §2.4, §3.1 and §4.4 describe it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonlab.datasets import Dataset
from anonlab.mechanisms import LaplaceMechanism, insensitive_microaggregation_sensitivity
from anonlab.methods.base import Method, Release, postprocess
from anonlab.microaggregation import cluster_means, insensitive_labels, mdav
from anonlab.validation import check_epsilon, check_int


def _domain(dataset: Dataset) -> tuple[np.ndarray, np.ndarray]:
    attrs = dataset.protected_attributes
    return np.array([a.domain[0] for a in attrs]), np.array([a.width for a in attrs])


def _record_labels(labels: np.ndarray, m: int) -> np.ndarray:
    """A record-level partition as the ``(n, m)`` labels a :class:`Release` carries."""
    return np.repeat(labels[:, None], m, axis=1)


@dataclass(frozen=True)
class Mdav(Method):
    """MDAV microaggregation of the protected attributes, records replaced by their
    cluster centroids (k-anonymity on them; not DP)."""

    k: int
    name: ClassVar[str] = "mdav"
    axes: ClassVar[tuple[str, ...]] = ("k",)
    randomized: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", 1))

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        values = dataset.protected_values
        labels = mdav(values, check_int(self.k, "k", 1, dataset.n))
        released = postprocess(dataset, cluster_means(values, labels)[labels], noisy=False)
        return Release(dataset, released, labels=_record_labels(labels, values.shape[1]))


@dataclass(frozen=True)
class Imdav(Method):
    """Insensitive microaggregation alone: groups of k consecutive records in a total
    order defined on the domain (see :mod:`anonlab.microaggregation.insensitive`)."""

    k: int
    name: ClassVar[str] = "imdav"
    axes: ClassVar[tuple[str, ...]] = ("k",)
    randomized: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", 1))

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        values = dataset.protected_values
        labels = insensitive_labels(values, *_domain(dataset), check_int(self.k, "k", 1, dataset.n))
        released = postprocess(dataset, cluster_means(values, labels)[labels], noisy=False)
        return Release(dataset, released, labels=_record_labels(labels, values.shape[1]))


@dataclass(frozen=True)
class ImdavLaplace(Method):
    """[17] as DP-IR states it: insensitive-microaggregation centroids plus one Laplace
    draw per cluster and attribute with scale (n/k)·Δ(A_i)/(k·ε), independent of m
    (DP-IR §2.4 and §4.4).

    Privacy: each attribute's centroid list gets ε; by the worst case of DP-IR §3.1 (every
    cluster changes by one record in every attribute) the m attributes compose to m·ε.
    :class:`ImdavLaplaceComposed` splits ε over the attributes and is ε-DP.
    """

    k: int
    epsilon: float
    name: ClassVar[str] = "imdav_laplace"
    axes: ClassVar[tuple[str, ...]] = ("k", "epsilon")
    compose: ClassVar[bool] = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, "k", 1))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        values = dataset.protected_values
        low, width = _domain(dataset)
        k = check_int(self.k, "k", 1, dataset.n)
        labels = insensitive_labels(values, low, width, k)
        centroids = cluster_means(values, labels)
        m = values.shape[1]
        # DP-IR §2.4: sensitivity (n/k)·Δ/k; budget ε per attribute ([17] as DP-IR §4.4
        # compares it) or ε/m by sequential composition (DP-IR Lemma 2)
        mechanism = LaplaceMechanism(
            insensitive_microaggregation_sensitivity(width, len(centroids), k),
            self.epsilon / m if self.compose else self.epsilon,
        )
        noisy = mechanism.randomise(centroids, rng)[labels]  # one draw per cluster
        return Release(dataset, postprocess(dataset, noisy, noisy=True),
                       labels=_record_labels(labels, m), scale=mechanism.scale)


@dataclass(frozen=True)
class ImdavLaplaceComposed(ImdavLaplace):
    """:class:`ImdavLaplace` with budget ε/m per attribute, scale m·(n/k)·Δ(A_i)/(k·ε):
    ε-DP for the whole record by sequential composition (DP-IR Lemma 2)."""

    name: ClassVar[str] = "imdav_laplace_composed"
    compose: ClassVar[bool] = True
