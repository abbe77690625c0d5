"""The floating-point reachability test: one release of the ``laplace`` method tells
neighbouring data sets apart through the low bits of a value (Mironov 2012, "On
significance of the least significant bits for differential privacy", CCS, §3).

numpy's ``Generator.laplace`` draws U, a multiple of 2^−53 in (0, 1), and returns
``log(U + U)`` for U < 0.5, ``−log(2 − U − U)`` otherwise (numpy
random/src/distributions/distributions.c, ``random_laplace``, with loc 0 and scale 1);
the method multiplies it by the scale b and adds it to the value x, then clips to the
domain (:func:`anonlab.methods.base.postprocess`). Only a sparse, x-dependent set of
doubles y = fl(x + fl(L·b)) can come out, so most values released from x cannot be
released from a neighbouring x'. The test draws releases of D and of a neighbour D' that
moves one record from x to x', counts those in S = {y reachable from x, not from x'}
and bounds ε ≥ ln(P_D[S] / P_D'[S]) with Clopper–Pearson bounds
(:func:`anonlab.audit.bounds.epsilon_lower_bound`). S is fixed before any release is
drawn, so every release counts and any S gives a valid bound.

For the ``discrete`` sampler (:mod:`anonlab.mechanisms.discrete`) the support of a
release is the grid of the scale, the same for every x, so S is empty; the same test
with numpy's reachability (``attack="numpy"``) shows that its releases do not give that
attack anything either.

From Python::

    from anonlab.audit import floating_point_audit
    print(floating_point_audit("numpy", 1.0).summary())
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from anonlab.audit.bounds import epsilon_estimate, epsilon_lower_bound
from anonlab.audit.data import audit_dataset, make_dataset
from anonlab.audit.sampling import releases
from anonlab.mechanisms import SAMPLERS
from anonlab.mechanisms.discrete import grid
from anonlab.methods import make_method
from anonlab.validation import check_choice, check_epsilon, check_int

#: records of the audited data set (one attribute on [LOW, HIGH], the outlier design of
#: :func:`~anonlab.audit.data.audit_dataset`: record 0 lies in the middle tenth)
N = 5
LOW, HIGH = 0.0, 100.0
#: the audited record, and how far D' moves it (x' = x + SHIFT stays inside the domain)
RECORD = 0
SHIFT = 25.25
#: joint confidence of the bound (two one-sided Clopper–Pearson bounds)
CONFIDENCE = 0.95
#: releases per data set by default
RUNS = 10_000
#: numpy's uniform doubles are k·2^−53, k = 1 … 2^53 − 1 (k = 0 is redrawn)
U_STEP = 2.0**-53
K_MAX = 2**53 - 1
#: grid points either side of the located k checked exactly with the C library's log
WINDOW = 4


def _standard_laplace(k: np.ndarray, log: str) -> np.ndarray:
    """numpy's ``laplace(0.0, 1.0)`` from U = k·2^−53, as ``random_laplace`` computes it:
    ``log`` is ``"fast"`` (numpy's vectorised log, which may differ from the C library's
    in the last bit) or ``"exact"`` (``math.log``, the C library's, as numpy's C code)."""
    u = k * U_STEP  # exact: k < 2**53
    upper = u >= 0.5
    argument = np.where(upper, 2.0 - u - u, u + u)  # (2 − U) − U, as C evaluates it
    if log == "exact":
        logs = np.array([math.log(v) for v in argument.ravel()]).reshape(argument.shape)
    else:
        logs = np.log(argument)
    return np.where(upper, 0.0 - 1.0 * logs, 0.0 + 1.0 * logs)


def _released(
    k: np.ndarray, mu: np.ndarray, scale: np.ndarray, low: float, high: float, log: str
) -> np.ndarray:
    """The value the ``laplace`` method releases from x = ``mu`` when numpy's uniform is
    k·2^−53: ``clip(mu + laplace(0, 1)·b)``."""
    return np.minimum(np.maximum(mu + _standard_laplace(k, log) * scale, low), high)


def numpy_reachable(
    y: ArrayLike, mu: ArrayLike, scale: ArrayLike, low: float = -math.inf, high: float = math.inf
) -> np.ndarray:
    """Whether numpy's sampler can release each ``y`` from x = ``mu`` at scale ``scale``
    (clipped to [low, high]), exactly.

    The release is a nondecreasing function of k (log, the products by positive constants,
    the sum and the clip are monotone; ``(2 − U) − U`` decreases with U, and so does its
    rounding), so a binary search over the 2^53 values of k with numpy's fast log locates
    the first k whose release is ≥ y, and the :data:`WINDOW` values of k either side of it
    are then recomputed with the C library's log, as numpy's C code does, and compared
    with y. Every y is decided this way, whatever the size of |y − mu| against |mu|.

    Parameters
    ----------
    y, mu, scale : released values, the value x they are tested against, the scale b
        (broadcast together).
    low, high : the clipping bounds of the release.

    Returns
    -------
    bool array of the broadcast shape.
    """
    y, mu, scale = (np.array(v, dtype=float) for v in np.broadcast_arrays(y, mu, scale))
    lo = np.ones(y.shape, dtype=np.int64)
    hi = np.full(y.shape, K_MAX, dtype=np.int64)
    while np.any(lo < hi):  # 53 halvings
        mid = lo + (hi - lo) // 2
        below = _released(mid, mu, scale, low, high, "fast") < y
        lo = np.where(below, mid + 1, lo)
        hi = np.where(below, hi, mid)
    k = np.clip(lo[..., None] + np.arange(-WINDOW, WINDOW + 1), 1, K_MAX)
    exact = _released(k, mu[..., None], scale[..., None], low, high, "exact")
    return np.any(exact == y[..., None], axis=-1)


def grid_reachable(
    y: ArrayLike, scale: ArrayLike, low: float = -math.inf, high: float = math.inf
) -> np.ndarray:
    """Whether the discrete sampler can release each ``y`` at scale ``scale``: ``y`` is a
    multiple of the scale's grid (:func:`anonlab.mechanisms.discrete.grid`), or a clipping
    bound. Its noise reaches every grid point, so this does not depend on x."""
    y, scale = (np.array(v, dtype=float) for v in np.broadcast_arrays(y, scale))
    units = y / grid(scale)  # exact: a power-of-two scaling
    return (np.isfinite(units) & (units == np.round(units))) | (y == low) | (y == high)


def reachable(
    y: ArrayLike,
    mu: ArrayLike,
    scale: ArrayLike,
    sampler: str,
    low: float = -math.inf,
    high: float = math.inf,
) -> np.ndarray:
    """Whether ``sampler`` (one of :data:`~anonlab.mechanisms.SAMPLERS`) can release each
    ``y`` from x = ``mu`` at scale ``scale``, clipped to [low, high]."""
    check_choice(sampler, "sampler", SAMPLERS)
    if sampler == "numpy":
        return numpy_reachable(y, mu, scale, low, high)
    return grid_reachable(np.broadcast_arrays(y, mu)[0], scale, low, high)


@dataclass(frozen=True)
class FloatingResult:
    """What one floating-point reachability test found.

    ``hits_d`` of the ``runs`` releases of D and ``hits_d2`` of those of D' fell in
    S = {reachable from x under ``attack``, not from x'}; ``epsilon_lower`` is the lower
    bound on ε they give at ``confidence`` (two one-sided Clopper–Pearson bounds),
    ``epsilon_estimate`` the plug-in ln(p̂_D / p̂_D') (never a bound), ``ceiling`` the
    bound had every release of D and none of D' hit.
    """

    sampler: str
    attack: str
    epsilon: float
    runs: int
    x: float
    x_neighbour: float
    scale: float
    hits_d: int
    hits_d2: int
    epsilon_lower: float
    epsilon_estimate: float
    ceiling: float
    confidence: float = CONFIDENCE

    @property
    def exceeds(self) -> bool:
        """Whether the bound exceeds the ε the release claims."""
        return self.epsilon_lower > self.epsilon

    def summary(self) -> str:
        """One line for the terminal."""
        flag = "  EXCEEDS EPSILON" if self.exceeds else ""
        return (
            f"laplace sampler={self.sampler} epsilon={self.epsilon:g} "
            f"(attack {self.attack}): epsilon >= {self.epsilon_lower:.3f} at "
            f"{self.confidence:.0%} (plug-in {self.epsilon_estimate:.3g}, at most "
            f"{self.ceiling:.2f} from {self.runs} runs); S = reachable from "
            f"x={self.x:.6g}, not from x'={self.x_neighbour:.6g} (b={self.scale:g}): "
            f"{self.hits_d} releases of D, {self.hits_d2} of D'{flag}"
        )


def floating_point_audit(
    sampler: str, epsilon: float, runs: int = RUNS, seed: int = 0, *, attack: str | None = None
) -> FloatingResult:
    """Bound from below the ε one value of the ``laplace`` method's release spends, through
    which doubles it can take.

    Parameters
    ----------
    sampler : the method's Laplace sampler, one of :data:`~anonlab.mechanisms.SAMPLERS`.
    epsilon : ε of the release (one attribute, so the whole budget is on it).
    runs : releases of each of D and D'.
    seed : master seed: child 0 of ``SeedSequence(seed)`` draws D (as
        :func:`anonlab.audit.core.audited_dataset` does), child 1 the releases (its
        children 0 and 1 those of D and D').
    attack : the reachability the event uses, a sampler's name; by default the audited
        one (``numpy``: :func:`numpy_reachable`; ``discrete``: :func:`grid_reachable`).

    Returns
    -------
    :class:`FloatingResult`; :meth:`FloatingResult.summary` prints it.

    Notes
    -----
    D: :data:`N` records of one attribute on [:data:`LOW`, :data:`HIGH`] (not whole
    numbers, so nothing is rounded); D': record :data:`RECORD` moved from x to
    x + :data:`SHIFT`, both inside the domain. The noise scale b is the domain width
    over ε, so many releases are clipped to a bound: those are reachable from both and
    never in S, which only lowers the bound.
    """
    check_choice(sampler, "sampler", SAMPLERS)
    attack = sampler if attack is None else check_choice(attack, "attack", SAMPLERS)
    epsilon = check_epsilon(epsilon)
    runs = check_int(runs, "runs", 1)
    seed = check_int(seed, "seed", 0)
    data_seed, noise_seed = np.random.SeedSequence(seed).spawn(2)
    dataset = audit_dataset(N, 1, LOW, HIGH, data_seed, "outlier")
    values = np.array(dataset.protected_values, dtype=float, copy=True)
    x = float(values[RECORD, 0])
    values[RECORD, 0] = x + SHIFT
    x_neighbour = float(values[RECORD, 0])
    neighbour = make_dataset(values, LOW, HIGH)
    method = make_method("laplace", {"epsilon": epsilon}, {"sampler": sampler})
    # the scale the release reports (a deterministic function of the domain and ε)
    scale = float(method.protect(dataset, np.random.default_rng(0)).scale[0])
    hits = []
    for data, stream in zip((dataset, neighbour), noise_seed.spawn(2), strict=True):
        # the releases as the audit draws them (one attribute: the view is the column)
        y = releases(method, data, runs, stream)["released"][:, RECORD]
        from_x = reachable(y, x, scale, attack, LOW, HIGH)
        in_event = from_x.copy()
        in_event[from_x] = ~reachable(y[from_x], x_neighbour, scale, attack, LOW, HIGH)
        hits.append(int(np.count_nonzero(in_event)))
    beta = (1 - CONFIDENCE) / 2
    return FloatingResult(
        sampler=sampler,
        attack=attack,
        epsilon=epsilon,
        runs=runs,
        x=x,
        x_neighbour=x_neighbour,
        scale=scale,
        hits_d=hits[0],
        hits_d2=hits[1],
        epsilon_lower=float(epsilon_lower_bound(hits[0], runs, hits[1], runs, beta)),
        epsilon_estimate=epsilon_estimate(hits[0], runs, hits[1], runs),
        ceiling=float(epsilon_lower_bound(runs, runs, 0, runs, beta)),
    )


__all__ = [
    "FloatingResult",
    "floating_point_audit",
    "grid_reachable",
    "numpy_reachable",
    "reachable",
]
