"""Scalar test statistics of a release, aimed at one pair (D, D').

In each view (:mod:`anonlab.audit.views`) three statistics are aimed with the noise-free
releases μ of D and μ' of D' (:mod:`anonlab.audit.noisefree`) and the Laplace scale b of
each value:

``llr``
    Σ_c (|y_c − μ_c| − |y_c − μ'_c|) / b_c over the values that move (computed without
    floating-point artefacts, see :meth:`Statistic.__call__`): the log-likelihood
    ratio of D' to D were each value μ or μ' plus independent Laplace noise of scale b
    (clipping, rounding and draws shared by a cluster's records are ignored), so the
    most powerful test of D against D' (Neyman–Pearson lemma) for that model; its
    events {s > τ} have P_D' ≥ e^τ · P_D there;
``projection``
    w_c = sign(μ'_c − μ_c) / b_c over the values that move. For independent Laplace
    coordinates the log-likelihood ratio is Σ_c (|y_c − μ_c| − |y_c − μ'_c|) / b_c, and
    far enough in the tail this projection's probability ratio tends to
    exp(Σ_c |μ'_c − μ_c| / b_c), the whole privacy loss of the pair;
``coordinate``
    the one value with the largest |μ'_c − μ_c| / b_c, oriented the same way: the best
    single released value (the replaced record's own value, for plain Laplace), whose
    ratio is reached at moderate tail probabilities.

Both are oriented so that s tends to be larger on D'; the event chosen on them may use
either tail.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.audit.noisefree import Aimed

TINY = 1e-12


@dataclass(frozen=True)
class Statistic:
    """``s = weights · y`` on the flat vector ``y`` of ``view``, or for ``llr``
    Σ_c (|y_c − μ_c| − |y_c − μ'_c|) · weights_c (weights 1/b_c, 0 where nothing moves)."""

    view: str
    kind: str
    weights: np.ndarray
    mu: np.ndarray | None = None
    mu2: np.ndarray | None = None

    @property
    def name(self) -> str:
        """``<view>/<kind>``, e.g. ``released/coordinate``."""
        return f"{self.view}/{self.kind}"

    def __call__(self, samples: np.ndarray) -> np.ndarray:
        """The statistic of each row of ``(runs, size)`` samples of the view."""
        if self.kind != "llr":
            return samples @ self.weights
        used = np.flatnonzero(self.weights)
        mu, mu2 = self.mu[used], self.mu2[used]
        gap = np.abs(mu2 - mu)
        # Laplace log-likelihood ratio, ln p_D'(y) − ln p_D(y) = Σ (|y − μ| − |y − μ'|)/b,
        # each term written as sign(μ' − μ)·clip(2y − μ − μ', ±|μ' − μ|) so that a value
        # beyond both centres gives exactly ±|μ' − μ|: the difference of the two distances
        # would carry rounding that depends on y's low-order bits, an event on which the
        # floating-point Laplace of D and D' differ (Mironov 2012), not the mechanism's ε
        terms = np.sign(mu2 - mu) * np.clip(2 * samples[:, used] - mu - mu2, -gap, gap)
        return terms @ self.weights[used]


def _moves(base: Aimed, moved: Aimed, view: str) -> tuple[np.ndarray, np.ndarray]:
    """μ' − μ and the mean scale (b + b')/2 of each value of ``view``."""
    return (
        moved.values[view] - base.values[view],
        np.maximum((base.scale[view] + moved.scale[view]) / 2, TINY),
    )


def comparable(base: Aimed, moved: Aimed, view: str) -> bool:
    """Whether both releases have ``view`` with as many values (cluster counts agree)."""
    return (
        view in base.values
        and view in moved.values
        and base.values[view].shape == moved.values[view].shape
    )


def candidates(base: Aimed, moved: Aimed, view: str, tolerance: float) -> list[Statistic]:
    """The ``llr``, ``projection`` and ``coordinate`` statistics of ``view``; none when no
    value moves by more than ``tolerance``."""
    moved_by, spread = _moves(base, moved, view)
    moves = np.abs(moved_by) > tolerance
    if not moves.any():
        return []
    projection = np.where(moves, np.sign(moved_by) / spread, 0.0)
    best = int(np.argmax(np.where(moves, np.abs(moved_by) / spread, -1.0)))
    coordinate = np.zeros_like(projection)
    coordinate[best] = np.sign(moved_by[best])
    llr = np.where(moves, 1.0 / spread, 0.0)
    return [
        Statistic(view, "llr", llr, base.values[view], moved.values[view]),
        Statistic(view, "projection", projection),
        Statistic(view, "coordinate", coordinate),
    ]


def expected_loss(base: Aimed, moved: Aimed, view: str) -> float:
    """Σ_c |μ'_c − μ_c| / b_c over ``view`` (``released`` of records: the largest such sum over one
    record's row): the privacy loss the noise-free releases suggest, in units of ε;
    only used to choose which neighbours to sample and shown beside the bound."""
    moved_by, spread = _moves(base, moved, view)
    per_value = np.abs(moved_by) / spread
    if view == "released" and per_value.size == np.prod(base.shape):
        return float(per_value.reshape(base.shape).sum(axis=1).max())
    return float(per_value.sum())
