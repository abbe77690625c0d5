"""The event S = {s > τ} or {s ≤ τ} of a statistic: chosen on one half of the releases,
bounded on the other (Jagielski, Ullman & Oprea 2020, §3: choose the threshold on one
set of trials, estimate on fresh ones, so the choice costs no confidence)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.audit.bounds import epsilon_estimate, epsilon_lower_bound

#: quantiles of the pooled statistic tried as thresholds τ
QUANTILES = np.linspace(0.0, 1.0, 401)[1:-1]
TAILS = ("above", "at_most")
SIDES = ("D", "D'")


@dataclass(frozen=True)
class Event:
    """S = {s > τ} (``above``) or {s ≤ τ} (``at_most``), bounded as
    ln(P_numerator[S] / P_other[S]) with ``numerator`` ``D`` or ``D'``."""

    tail: str
    numerator: str
    threshold: float

    def hits(self, values: np.ndarray) -> int:
        """How many of ``values`` fall in S."""
        inside = values > self.threshold if self.tail == "above" else values <= self.threshold
        return int(np.count_nonzero(inside))

    def describe(self, statistic: str) -> str:
        """E.g. ``P_D'[released/coordinate > 3.1] / P_D[…]``."""
        other = "D" if self.numerator == "D'" else "D'"
        sign = ">" if self.tail == "above" else "<="
        return f"P_{self.numerator}[{statistic} {sign} {self.threshold:.6g}] / P_{other}[same]"


def _counts(values: np.ndarray, thresholds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per threshold: how many ``values`` are above it, and how many at most it."""
    at_most = np.searchsorted(np.sort(values), thresholds, side="right")
    return len(values) - at_most, at_most


def choose_event(on_d: np.ndarray, on_d2: np.ndarray, beta: float) -> tuple[Event, float]:
    """The event whose bound (at error ``beta`` per Clopper–Pearson bound) is largest on
    the selection releases ``on_d`` (of D) and ``on_d2`` (of D'); returns it and that
    bound, which is optimistic (it chose among many) and is never reported."""
    thresholds = np.unique(np.quantile(np.concatenate([on_d, on_d2]), QUANTILES))
    counts = {"D": _counts(on_d, thresholds), "D'": _counts(on_d2, thresholds)}
    trials = {"D": len(on_d), "D'": len(on_d2)}
    best, best_bound = Event("above", "D'", float(thresholds[0])), -1.0
    for t, tail in enumerate(TAILS):
        for numerator in SIDES:
            other = "D" if numerator == "D'" else "D'"
            bounds = epsilon_lower_bound(
                counts[numerator][t], trials[numerator], counts[other][t], trials[other], beta
            )
            i = int(np.argmax(bounds))
            if bounds[i] > best_bound:
                best, best_bound = Event(tail, numerator, float(thresholds[i])), float(bounds[i])
    return best, best_bound


@dataclass(frozen=True)
class Measured:
    """An event's counts on the hold-out releases, its bound and plug-in estimate."""

    event: Event
    hits_numerator: int
    hits_other: int
    trials: int
    epsilon_lower: float
    epsilon_estimate: float


def measure(event: Event, on_d: np.ndarray, on_d2: np.ndarray, beta: float) -> Measured:
    """Bound ``event`` on the hold-out releases ``on_d`` (of D) and ``on_d2`` (of D')."""
    sample = {"D": on_d, "D'": on_d2}
    other = "D" if event.numerator == "D'" else "D'"
    hits, hits_other = event.hits(sample[event.numerator]), event.hits(sample[other])
    n, n_other = len(sample[event.numerator]), len(sample[other])
    bound = float(epsilon_lower_bound(hits, n, hits_other, n_other, beta))
    return Measured(
        event, hits, hits_other, n, bound, epsilon_estimate(hits, n, hits_other, n_other)
    )
