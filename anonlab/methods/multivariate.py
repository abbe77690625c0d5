"""Multivariate microaggregation methods: MDAV, insensitive MDAV and its DP release ([17]
in DP-IR: Soria-Comas et al., VLDB J. 2014, as DP-IR §2.4, §3.1 and §4.4 describe it)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import ClassVar

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import DP, K_ANONYMITY, Guarantee
from anonlab.mechanisms import LaplaceMechanism, insensitive_microaggregation_sensitivity
from anonlab.mechanisms.measurements import EXPONENTIAL, LAPLACE, Measurement
from anonlab.methods.base import FORMS, Method, Release, codes_of, postprocess, split_kinds
from anonlab.methods.categorical import centroid_codes, private_centroid_codes
from anonlab.microaggregation import cluster_means, mdav
from anonlab.microaggregation.insensitive import domain_order, labels_in_order
from anonlab.semantics import marginality_rank, value_change_sensitivity
from anonlab.validation import ParameterError, check_int


def _order_coordinates(dataset: Dataset) -> np.ndarray:
    """Records in domain-normalised units for the insensitive order: (x − low)/Δ for a
    numerical attribute, the rank in the marginality order / (|Dom| − 1) for a categorical
    one (DP-IR §3.4: marginality defines the total order of categorical values)."""
    values = dataset.protected_values
    unit = np.empty_like(values)
    for j, attr in enumerate(dataset.protected_attributes):
        if attr.categorical:
            rank = marginality_rank(attr.taxonomy)[codes_of(values, j)]
            unit[:, j] = rank / max(len(attr.taxonomy.labels) - 1, 1)
        else:
            unit[:, j] = (values[:, j] - attr.domain[0]) / attr.width
    return unit


def _insensitive_clusters(dataset: Dataset, k: int) -> np.ndarray:
    """Groups of k in the insensitive order, which depends on the data set only and is
    sorted once per data set view (as its sorted columns are)."""
    m = len(dataset.protected)
    order = dataset.computed_once(
        "insensitive order",
        lambda: domain_order(_order_coordinates(dataset), np.zeros(m), np.ones(m)),
    )
    return labels_in_order(order, k)


def _centroids(dataset: Dataset, labels: np.ndarray) -> np.ndarray:
    """Per cluster: the mean of numerical attributes, the marginality centroid (DP-IR
    Eq. 5) of categorical ones."""
    values = dataset.protected_values
    centroids = cluster_means(values, labels)
    for j in split_kinds(dataset)[1]:
        taxonomy = dataset.protected_attributes[j].taxonomy
        centroids[:, j] = centroid_codes(taxonomy, codes_of(values, j), labels)
    return centroids


def _record_labels(labels: np.ndarray, m: int) -> np.ndarray:
    """A record-level partition as the ``(n, m)`` labels a :class:`Release` carries."""
    return np.repeat(labels[:, None], m, axis=1)


IMDAV_REASON = (
    "the scale DP-IR states for [17], (n/k)·Δ/(k·ε), spends ε on every "
    "attribute: by DP-IR §3.1's worst case the record's loss is m·ε "
    "(imdav_laplace_composed is ε-DP)"
)


@dataclass(frozen=True)
class Mdav(Method):
    """MDAV microaggregation of the protected attributes, records replaced by their
    cluster centroids (k-anonymity on them; not DP)."""

    k: int
    name: ClassVar[str] = "mdav"
    numeric_only: ClassVar[bool] = True
    label: ClassVar[str] = "MDAV"
    colour: ClassVar[str | None] = "#332288"  # indigo
    marker: ClassVar[str | tuple[int, int, float] | None] = (8, 1, 0)  # 8-point star
    partition: ClassVar[str | None] = "record"
    axes: ClassVar[tuple[str, ...]] = ("k",)
    # n/k clusters, each found by passes over the records left: n²/k distances, whose
    # time hardly grows with m (a record's loop costs about 20 attributes' arithmetic)
    cost: ClassVar[Cost] = Cost("n^2/k*(m+20)", seconds=2e-10)
    randomized: ClassVar[bool] = False

    def claim(self, m: int) -> Guarantee:
        return Guarantee(K_ANONYMITY, K_ANONYMITY, k=self.k)

    def check_dataset(self, dataset: Dataset) -> None:
        """MDAV averages records (Euclidean distances, means): numerical attributes only."""
        categorical = [a.name for a in dataset.protected_attributes if a.categorical]
        if categorical:
            raise ParameterError(
                f"method 'mdav' handles numerical attributes only; the "
                f"protected attribute(s) {categorical} are categorical "
                "(imdav handles them)"
            )

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        if split_kinds(dataset)[1]:
            raise ParameterError(
                "mdav handles numerical attributes only; the protected "
                "attributes include categorical ones"
            )
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
    label: ClassVar[str] = "Insensitive MDAV"
    colour: ClassVar[str | None] = "#225555"  # dark teal
    marker: ClassVar[str | tuple[int, int, float] | None] = "p"  # pentagon
    partition: ClassVar[str | None] = "record"
    axes: ClassVar[tuple[str, ...]] = ("k",)
    cost: ClassVar[Cost] = Cost("n*log(n)*m", seconds=2.5e-8)  # a sort in the domain order
    randomized: ClassVar[bool] = False

    def claim(self, m: int) -> Guarantee:
        return Guarantee(K_ANONYMITY, K_ANONYMITY, k=self.k)

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        labels = _insensitive_clusters(dataset, check_int(self.k, "k", 1, dataset.n))
        released = postprocess(dataset, _centroids(dataset, labels)[labels], noisy=False)
        return Release(dataset, released, labels=_record_labels(labels, len(dataset.protected)))


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
    cluster_noise: ClassVar[bool] = True
    label: ClassVar[str] = "Insensitive MDAV + Laplace [17]"
    colour: ClassVar[str | None] = "#cc79a7"  # reddish purple
    marker: ClassVar[str | tuple[int, int, float] | None] = (4, 1, 0)  # 4-point star
    partition: ClassVar[str | None] = "record"
    axes: ClassVar[tuple[str, ...]] = ("k", "epsilon")
    cost: ClassVar[Cost] = Cost("n*log(n)*m", seconds=2.5e-8)  # a sort in the domain order
    # [17]'s proof covers the list of noisy centroid records: its multiset of rows
    forms: ClassVar[tuple[str, ...]] = FORMS
    draws_laplace: ClassVar[bool] = True
    round_integers: ClassVar[bool] = True  # DP-IR §4.3: whole numbers stay whole
    compose: ClassVar[bool] = False

    def claim(self, m: int) -> Guarantee:
        if self.compose:  # DP-IR Lemma 2: ε/m per attribute, ε for the record
            return Guarantee(DP, DP, self.epsilon / m, self.epsilon)
        # DP-IR §4.4 compares [17] at ε per attribute, as it states the method
        return Guarantee(DP, DP, self.epsilon, self.epsilon)

    def holds(self, stated: Guarantee, m: int) -> Guarantee:
        if self.compose:
            return super().holds(stated, m)
        return replace(stated, notion_epsilon=stated.epsilon_total * m, reason=IMDAV_REASON)

    def mechanisms(self) -> tuple[Measurement, ...]:
        return (LAPLACE[self.sampler],)  # DP-IR §2.4: Laplace noise on the centroids

    def categorical_mechanisms(self) -> tuple[Measurement, ...]:
        return (EXPONENTIAL[self.sampler],)  # DP-IR §3.4: the exponential mechanism

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        attrs = dataset.protected_attributes
        values = dataset.protected_values
        numeric, categorical = split_kinds(dataset)
        k = check_int(self.k, "k", 1, dataset.n)
        labels = _insensitive_clusters(dataset, k)
        centroids = _centroids(dataset, labels)
        m, n_clusters = len(attrs), len(centroids)
        # budget ε per attribute ([17] as DP-IR §4.4 compares it) or ε/m by sequential
        # composition (DP-IR Lemma 2)
        budget = self.epsilon / m if self.compose else self.epsilon
        noisy = np.array(centroids, copy=True)
        scale = np.full(m, np.nan)
        if numeric:
            width = np.array([attrs[j].width for j in numeric])
            # DP-IR §2.4: sensitivity (n/k)·Δ(A_i)/k
            mechanism = LaplaceMechanism(
                insensitive_microaggregation_sensitivity(width, n_clusters, k), budget, self.sampler
            )
            noisy[:, numeric] = mechanism.randomise(centroids[:, numeric], rng)
            scale[numeric] = mechanism.scale
        for j in categorical:
            taxonomy = attrs[j].taxonomy
            # [17]: every cluster may swap one value, so Δ(q) = (n/k)·max|δ(a,c) − δ(b,c)|
            noisy[:, j] = private_centroid_codes(
                taxonomy,
                codes_of(values, j),
                labels,
                budget,
                n_clusters * value_change_sensitivity(taxonomy),
                rng,
                sampler=self.sampler,
            )
        return Release(
            dataset,
            postprocess(dataset, noisy[labels], noisy=self.round_integers),
            labels=_record_labels(labels, m),
            scale=scale,
        )


@dataclass(frozen=True)
class ImdavLaplaceComposed(ImdavLaplace):
    """:class:`ImdavLaplace` with budget ε/m per attribute, scale m·(n/k)·Δ(A_i)/(k·ε):
    ε-DP for the whole record by sequential composition (DP-IR Lemma 2)."""

    name: ClassVar[str] = "imdav_laplace_composed"
    label: ClassVar[str] = "Insensitive MDAV + Laplace (ε/m per attribute)"
    colour: ClassVar[str | None] = "#8c510a"  # brown
    marker: ClassVar[str | tuple[int, int, float] | None] = "P"  # plus
    compose: ClassVar[bool] = True
