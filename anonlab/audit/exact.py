"""Exact privacy losses, where they can be computed: the noisy list a method's proof
covers (each cluster's centroid, or each value for plain Laplace) is a vector of
independent Laplace draws clipped to the public domain, so the loss between a data set D
and a neighbour D' is a sum of one-dimensional suprema (Dwork & Roth 2014, §3.3: the
privacy loss of a product of independent mechanisms is the sum of theirs).

Two readings of the noise scale of D' (iDP Proposition 1 and its proof):

``fixed_scale``
    the scale of D for both data sets, as iDP's Proposition 1 reads the local
    sensitivity ("the clustering held fixed" as far as the noise goes): the loss is the
    Laplace mechanism's Σ_c |μ'_c − μ_c| / b_c, less where clipping caps it;
``own_scale``
    each data set's own scale (the method run on D' computes its local sensitivity on
    D'): the loss adds ln(b'/b) terms and is capped by the domain.

Both compare the lists by rank position, as experiments/idp_reranking_audit.py does. The
release in record order is a function of the list only if the partition is: a neighbour
that changes which records share a cluster makes some release possible under one data
set and not the other, an infinite loss (:attr:`ExactResult.released`).

``python -m anonlab.audit exact method=idp_ls epsilon=1`` prints the losses of one method
on the audit's data set; the audit table carries them beside the sampled bounds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from anonlab.audit.data import make_dataset
from anonlab.audit.noisefree import noise_free_release, value_scale
from anonlab.audit.views import centroid_values
from anonlab.datasets import Dataset
from anonlab.methods import Method

#: values a record is moved to when searching the neighbours (evenly over the domain)
POSITIONS = 41
READINGS = ("fixed_scale", "own_scale")


def _log_cdf(x: np.ndarray, mu: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ln P[μ + Lap(b) ≤ x]."""
    z = (x - mu) / b
    return np.where(
        z < 0, math.log(0.5) + np.minimum(z, 0), np.log1p(-0.5 * np.exp(-np.maximum(z, 0)))
    )


def _log_sf(x: np.ndarray, mu: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ln P[μ + Lap(b) ≥ x]."""
    return _log_cdf(-x, -mu, b)


def _log_density(y: np.ndarray, mu: np.ndarray, b: np.ndarray) -> np.ndarray:
    return -np.log(2 * b) - np.abs(y - mu) / b


def one_way_loss(
    mu: np.ndarray, b: np.ndarray, mu2: np.ndarray, b2: np.ndarray, low: float, high: float
) -> float:
    """sup over releases of ln(p_D / p_D'), for independent coordinates μ_c + Lap(b_c)
    clipped to [low, high] (D) against μ'_c + Lap(b'_c) (D'): per coordinate the larger
    of the two atoms' log ratios (at ``low`` and ``high``) and of the densities' log
    ratio, piecewise linear between ``low``, ``high``, μ and μ', so evaluated there."""
    mu, b, mu2, b2 = (np.asarray(v, dtype=float) for v in (mu, b, mu2, b2))
    points = np.clip(np.stack([np.full_like(mu, low), np.full_like(mu, high), mu, mu2]), low, high)
    density = (_log_density(points, mu, b) - _log_density(points, mu2, b2)).max(axis=0)
    at_low = _log_cdf(np.full_like(mu, low), mu, b) - _log_cdf(np.full_like(mu, low), mu2, b2)
    at_high = _log_sf(np.full_like(mu, high), mu, b) - _log_sf(np.full_like(mu, high), mu2, b2)
    return float(np.maximum(density, np.maximum(at_low, at_high)).sum())


def laplace_loss(
    mu: np.ndarray, b: np.ndarray, mu2: np.ndarray, b2: np.ndarray, low: float, high: float
) -> float:
    """The exact privacy loss of the pair: the larger of the two one-way suprema."""
    return max(one_way_loss(mu, b, mu2, b2, low, high), one_way_loss(mu2, b2, mu, b, low, high))


@dataclass(frozen=True)
class _List:
    """The noise-free list of one data set: values, Laplace scales, and the partition
    each attribute's clusters make of the records (``None`` without clusters)."""

    values: np.ndarray
    scale: np.ndarray
    partition: tuple[tuple[int, ...], ...] | None


def _canonical_partition(labels: np.ndarray) -> tuple[tuple[int, ...], ...]:
    """Each column's labels renumbered in order of first appearance: equal for two
    labellings exactly when they make the same partition of the records."""
    out = []
    for column in np.asarray(labels).T:
        _, first, inverse = np.unique(column, return_index=True, return_inverse=True)
        rank = np.empty(len(first), dtype=np.int64)
        rank[np.argsort(first)] = np.arange(len(first))
        out.append(tuple(int(v) for v in rank[inverse]))
    return tuple(out)


def noisy_list(method: Method, dataset: Dataset) -> _List:
    """The list ``method``'s proof covers on ``dataset``, with the noise switched off:
    the rank-ordered centroids and their scales, or the values for a method without
    clusters."""
    release = noise_free_release(method, dataset)
    scale = value_scale(release)
    centroids = centroid_values(release, release.values)
    if centroids is None:
        return _List(release.values.ravel(), scale.ravel(), None)
    return _List(
        centroids.ravel(),
        centroid_values(release, scale).ravel(),
        _canonical_partition(release.cluster_labels),
    )


@dataclass(frozen=True)
class ExactResult:
    """The largest exact loss over the neighbours searched, per reading of the scale,
    whether some neighbour changes the partition (then the release in record order has
    an infinite loss), and the neighbour that gave each maximum."""

    method: str
    epsilon: float
    fixed_scale: float
    own_scale: float
    partition_changes: bool
    worst: dict[str, str]
    neighbours: int

    def released(self, form: str) -> float:
        """The loss of the release in ``form``: infinite in record order when a
        neighbour changes the partition; otherwise the list's (own scale), an upper
        bound for a shuffled form, which is post-processing of the list."""
        if form == "records" and self.partition_changes:
            return math.inf
        return self.own_scale

    def summary(self) -> str:
        changes = "yes (records form: not DP for any epsilon)" if self.partition_changes else "no"
        lines = [
            f"{self.method} at epsilon={self.epsilon:g}: exact privacy loss of the noisy "
            f"list over {self.neighbours} neighbours",
            f"  scale of D for both (iDP Proposition 1): {self.fixed_scale:.4f}  "
            f"({self.worst['fixed_scale']})",
            f"  each data set's own scale:              {self.own_scale:.4f}  "
            f"({self.worst['own_scale']})",
            f"  some neighbour changes which records share a cluster: {changes}",
        ]
        return "\n".join(lines)


def _losses(base: _List, other: _List, low: float, high: float) -> dict[str, float] | None:
    """The exact loss between two noisy lists under each reading of the scale; ``None``
    when they differ in length (no rank position to match)."""
    if other.values.shape != base.values.shape:
        return None
    return {
        "fixed_scale": laplace_loss(base.values, base.scale, other.values, base.scale, low, high),
        "own_scale": laplace_loss(base.values, base.scale, other.values, other.scale, low, high),
    }


def moved_record(dataset: Dataset, record: int, position: float) -> Dataset:
    """The neighbour of ``dataset`` with ``record`` moved to ``position`` in every
    attribute."""
    low, high = dataset.protected_attributes[0].domain
    values = np.array(dataset.protected_values, dtype=float, copy=True)
    values[record] = position
    return make_dataset(values, low, high)


def pair_losses(
    method: Method, dataset: Dataset, record: int, position: float
) -> dict[str, float] | None:
    """The exact loss of ``method``'s noisy list between ``dataset`` and the neighbour that
    moves ``record`` to ``position``, under each reading of the scale (:data:`READINGS`);
    ``None`` when the two lists differ in length."""
    low, high = dataset.protected_attributes[0].domain
    moved = moved_record(dataset, record, position)
    return _losses(noisy_list(method, dataset), noisy_list(method, moved), low, high)


def exact_losses(method: Method, dataset: Dataset, positions: int = POSITIONS) -> ExactResult:
    """The exact losses of ``method``'s noisy list between ``dataset`` (one public domain
    for every attribute, as the audit's) and each neighbour that moves one record to one
    of ``positions`` values spread over the domain, in every attribute."""
    low, high = dataset.protected_attributes[0].domain
    base = noisy_list(method, dataset)
    best = {reading: (-math.inf, "") for reading in READINGS}
    changes = False
    count = 0
    for record in range(dataset.n):
        for position in np.linspace(low, high, positions):
            other = noisy_list(method, moved_record(dataset, record, position))
            count += 1
            losses = _losses(base, other, low, high)
            if losses is None:
                continue
            label = f"record {record} -> {position:g}"
            for reading, loss in losses.items():
                if loss > best[reading][0]:
                    best[reading] = (loss, label)
            changes = changes or (base.partition is not None and other.partition != base.partition)
    return ExactResult(
        method.name,
        float(method.epsilon),
        best["fixed_scale"][0],
        best["own_scale"][0],
        changes,
        {reading: best[reading][1] for reading in READINGS},
        count,
    )
