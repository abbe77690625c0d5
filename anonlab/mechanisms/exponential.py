"""The exponential mechanism (McSherry & Talwar; DP-IR §3.4, Eq. 6).

Two samplers (:data:`~anonlab.mechanisms.laplace.SAMPLERS`): ``numpy``, Gumbel-max on
numpy's floating-point Gumbel draws (the papers' runs), whose draws lie in
[−3.604, 36.737], so that a candidate more than 40.34 logits below the best is never
chosen; and ``discrete``, :func:`exact_exponential`, rejection sampling with integer draws
only, whose law is the mechanism's exactly (for an ε smaller by 2s ≈ 4.7·10⁻¹⁰, the
rounding it pays for).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from anonlab.mechanisms.discrete import SMALL, TRIALS, _geometric_minus_one, bernoulli_exp
from anonlab.mechanisms.laplace import SAMPLERS
from anonlab.validation import ParameterError, check_choice, check_epsilon

#: R: each γ is rounded up to a multiple of 2^−R (a "unit")
GAMMA_BITS = 32
#: the units of a γ stay below this (half the int64 range: sums of them cannot overflow)
UNITS_LIMIT = 2.0**62
#: s: the most a γ grows by rounding up, in logits: one unit, and 2^−19 of one unit that
#: covers the floating-point error of its computation (:func:`gamma_units`)
SLACK = Fraction(1 + 2**-19) / 2**GAMMA_BITS
#: qualities and the factor ε·2^R/(2Δq) stay below this in magnitude (the exact products
#: of :func:`gamma_units` split doubles, which overflows near 2^996)
MAGNITUDE_LIMIT = 2.0**900
#: proposals drawn in one round of :func:`exact_exponential`, at most (one per row at least)
PROPOSALS = 2**20
#: a margin, in units, added before rounding up: covers rounding errors below 2^−40 units
_MARGIN = 2.0**-20
_VELTKAMP = 2.0**27 + 1.0


@dataclass(frozen=True)
class ExponentialMechanism:
    """Select candidate c with probability ∝ exp(ε·q(c) / (2·Δq)) (DP-IR §3.4).

    ``quality`` rows are independent selections (one per cluster); ``-inf`` excludes a
    candidate. ``sampler`` (one of :data:`~anonlab.mechanisms.laplace.SAMPLERS`): ``numpy``,
    Gumbel-max on numpy's floating-point Gumbel draws, or ``discrete``,
    :func:`exact_exponential` (exact, integer draws only).
    """

    epsilon: float
    sensitivity: float
    sampler: str = SAMPLERS[0]

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        check_choice(self.sampler, "sampler", SAMPLERS)
        if not np.isfinite(self.sensitivity) or self.sensitivity <= 0:
            raise ParameterError(f"sensitivity must be finite and > 0, got {self.sensitivity!r}")

    def log_weights(self, quality: np.ndarray) -> np.ndarray:
        """ε·q / (2Δq) (DP-IR Eq. 6), unnormalised log-probabilities."""
        return self.epsilon * np.asarray(quality, dtype=float) / (2.0 * self.sensitivity)

    def probabilities(self, quality: np.ndarray) -> np.ndarray:
        """Selection probabilities, each row summing to 1."""
        logits = self.log_weights(quality)
        logits = logits - logits.max(axis=-1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=-1, keepdims=True)

    def select(self, quality: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One index per row of ``quality``: Gumbel-max (``numpy``) or
        :func:`exact_exponential` (``discrete``)."""
        if self.sampler == "discrete":
            return exact_exponential(quality, self.epsilon, self.sensitivity, rng)
        logits = self.log_weights(np.atleast_2d(quality))
        return np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)


@functools.lru_cache(maxsize=256)
def units_per_quality(epsilon: float, sensitivity: float) -> float:
    """Φ = (ε − 2s)·2^R / (2Δq), rounded down to a double: the units of γ per unit of
    quality gap, calibrated to ε − 2s (s = :data:`SLACK`), so that the rounding costs
    no more than ε in all (:func:`exact_exponential`, Notes).

    Raises
    ------
    ParameterError : ε ≤ 2s, or Φ beyond :data:`MAGNITUDE_LIMIT`.
    """
    epsilon = check_epsilon(epsilon)
    if not math.isfinite(sensitivity) or sensitivity <= 0:
        raise ParameterError(f"sensitivity must be finite and > 0, got {sensitivity!r}")
    used = Fraction(epsilon) - 2 * SLACK
    if used <= 0:
        raise ParameterError(
            f"epsilon={epsilon!r} is at most {float(2 * SLACK):.3g}, what rounding γ to "
            f"2^-{GAMMA_BITS} costs the exact exponential sampler; use a larger epsilon"
        )
    exact = used * 2**GAMMA_BITS / (2 * Fraction(sensitivity))
    phi = float(exact)  # the nearest double
    if Fraction(phi) > exact:
        phi = math.nextafter(phi, 0.0)
    if phi > MAGNITUDE_LIMIT:
        raise ParameterError(
            f"epsilon/sensitivity = {epsilon!r}/{sensitivity!r} is too large for the exact "
            "exponential sampler (units per quality beyond 2^900)"
        )
    return phi


def _two_sum(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """s + e = a + b exactly, s = fl(a + b) (Knuth's TwoSum; no overflow)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _split(a: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """a = hi + lo, each with at most 26 significant bits (Veltkamp's splitting)."""
    c = _VELTKAMP * a
    hi = c - (c - a)
    return hi, a - hi


def _two_product(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """p + e = a·b exactly, p = fl(a·b) (Dekker's TwoProduct; exact barring overflow, and
    to within a few 2^−1074 on underflow)."""
    p = a * b
    a_hi, a_lo = _split(a)
    b_hi, b_lo = _split(b)
    return p, ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


def gamma_units(best: np.ndarray, quality: np.ndarray, phi: float) -> np.ndarray:
    """⌈Φ·(best − quality)⌉ in units of 2^−R, rounded up, never down: int64 u with
    Φ·(best − q) ≤ u ≤ Φ·(best − q) + 1 + 2^−19, q and best doubles taken as exact.

    best − q is the exact sum d_hi + d_lo (TwoSum) and Φ·d_hi the exact sum p + e
    (TwoProduct), so Φ·(best − q) = p + e + Φ·d_lo with |e| ≤ 2^−53·p and
    |Φ·d_lo| ≤ 2^−52·p; the integer part of p is split off exactly, and the rest,
    below 2^11 in magnitude for p < 2^62, is summed in floating point with an error below
    2^−40, which the margin 2^−20 covers before ``ceil``.

    Parameters
    ----------
    best, quality : doubles with best ≥ quality, |·| ≤ :data:`MAGNITUDE_LIMIT` (broadcast).
    phi : Φ ≥ 0, :func:`units_per_quality`.

    Returns
    -------
    int64 array of the broadcast shape.

    Raises
    ------
    ParameterError : Φ·(best − q) ≥ 2^62 units (γ beyond 2^30 logits for R = 32).
    """
    d_hi, d_lo = _two_sum(np.asarray(best, dtype=float), -np.asarray(quality, dtype=float))
    p, e = _two_product(d_hi, phi)
    if np.any(p >= UNITS_LIMIT):
        raise ParameterError(
            f"a candidate lies γ = {float(np.max(p)) / 2**GAMMA_BITS:.4g} logits below the "
            f"best; the exact exponential sampler counts γ in 2^-{GAMMA_BITS} as int64, up "
            f"to 2^{math.log2(UNITS_LIMIT) - GAMMA_BITS:.0f}: use a smaller epsilon, a "
            "larger sensitivity, or sampler='numpy'"
        )
    whole = np.floor(p)
    rest = ((p - whole) + e) + d_lo * phi  # p − ⌊p⌋ is exact (Sterbenz)
    return whole.astype(np.int64) + np.ceil(rest + _MARGIN).astype(np.int64)


def bernoulli_exp_units(units: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Exact Bernoulli(exp(−γ)) draws for γ = ``units``·2^−R ≥ 0 (int64 units).

    γ = n + f with n = ⌊γ⌋: Bernoulli(e^−γ) is n Bernoulli(e^−1) successes in a row
    and one Bernoulli(e^−f) (Canonne, Kamath & Steinke 2020, Algorithm 1, γ > 1 branch).
    The n successes are the event V ≥ n for V the count of Bernoulli(e^−1) successes
    before the first failure (``_geometric_minus_one``, P(V ≥ n) = e^−n), drawn only
    where n > 0; Bernoulli(e^−f) is :func:`~anonlab.mechanisms.discrete.bernoulli_exp` of
    the fraction over 2^R, drawn only where the first part succeeded and f > 0.
    """
    units = np.asarray(units, dtype=np.int64)
    whole, fraction = units >> GAMMA_BITS, units & (2**GAMMA_BITS - 1)
    result = np.ones(units.shape, dtype=bool)
    far = np.flatnonzero(whole > 0)
    if far.size:
        result[far] = _geometric_minus_one(far.size, rng) >= whole[far]
    live = np.flatnonzero(result & (fraction > 0))
    if live.size:
        result[live] = bernoulli_exp(fraction[live], 2**GAMMA_BITS, rng)
    return result


def exact_exponential(
    quality: np.ndarray, epsilon: float, sensitivity: float, rng: np.random.Generator
) -> np.ndarray:
    """The exponential mechanism, P(c) ∝ exp(ε·q(c)/(2Δq)) (DP-IR §3.4 Eq. 6), sampled
    exactly with integer draws only: one index per row of ``quality``.

    Rejection sampling with a uniform proposal (McKenna & Sheldon 2020, "Permute-and-flip",
    NeurIPS, the exponential mechanism as permute-and-flip with replacement): propose c
    uniformly among the row's candidates (``-inf`` excluded), accept it with an exact
    Bernoulli(exp(−γ'_c)) draw (:func:`bernoulli_exp_units`), γ'_c the gap
    γ_c = ε'·(q_max − q_c)/(2Δq) to the row's best rounded up to 2^−R (:func:`gamma_units`),
    ε' = ε − 2s; repeat until one is accepted. The loop runs on the rows still pending,
    each round drawing about 1/a proposals per row (a the row's acceptance rate,
    estimated in floating point, which sets only the batch size; :data:`TRIALS` times as
    many below :data:`SMALL` rows) and keeping each row's first accepted one: the
    proposals are i.i.d., so this has the law of one proposal at a time.

    Parameters
    ----------
    quality : float array (rows, candidates), finite or ``-inf``, at least one finite per
        row, |q| ≤ :data:`MAGNITUDE_LIMIT`.
    epsilon, sensitivity : ε > 2s and Δq > 0.
    rng : the generator every draw comes from (bounded integers only).

    Returns
    -------
    int64 array, one candidate index per row; the same for the same generator state.

    Raises
    ------
    ParameterError : ε ≤ 2s; a quality that is NaN, +inf or too large; a row without a
        candidate; a γ of 2^(62 − R) or more (:func:`gamma_units`).

    Notes
    -----
    *Law.* A round proposes c with probability 1/K (K candidates) and accepts it with
    probability exp(−γ'_c), so the accepted candidate has P(c) = exp(−γ'_c)/Σ_j exp(−γ'_j)
    exactly; every candidate can be chosen. Every γ' is at least one unit and the best's
    exactly one (a zero gap plus the margin): one unit less for all (a shift that leaves
    the law unchanged) gives the best 0, so a proposal is accepted with probability
    ≥ 1/K. All draws are bounded integers (numpy's Lemire method).

    *Privacy.* Let φ = Φ/2^R ≤ ε'/(2Δq) (:func:`units_per_quality`) and γ_c = φ·(q_max −
    q_c) exactly; :func:`gamma_units` gives γ_c ≤ γ'_c ≤ γ_c + s with s = :data:`SLACK` =
    2^−R(1 + 2^−19). Then P(c) lies within a factor e^{±s} of P*(c) = exp(φ·q_c)/Σ_j
    exp(φ·q_j): exp(−γ'_c) is within [e^−s, 1] of exp(−γ_c), and so is the normaliser.
    P* is the exponential mechanism at 2φΔq ≤ ε', so P*_D(c) ≤ exp(ε')·P*_D'(c) for
    neighbours D, D' (Dwork & Roth 2014, Theorem 3.10; for a set of candidates, sum),
    and P_D(c) ≤ e^s·P*_D(c) ≤ e^{s + ε'}·P*_D'(c) ≤ e^{2s + ε'}·P_D'(c) = e^ε·P_D'(c):
    **ε-DP, pure and exact** (2s ≈ 4.7·10⁻¹⁰ for R = 32). The refusals depend on the
    qualities' spread and magnitude only, public where they are bounded by public values
    (a taxonomy's distances).
    """
    phi = units_per_quality(epsilon, sensitivity)
    quality = np.atleast_2d(np.asarray(quality, dtype=float))
    rows, width = quality.shape
    if not np.all(quality < np.inf):
        raise ParameterError("qualities must be finite or -inf (excluded), not NaN or +inf")
    valid = quality > -np.inf
    all_valid = bool(valid.all())
    finite = quality if all_valid else np.where(valid, quality, np.nan)
    counts = np.full(rows, width) if all_valid else valid.sum(axis=1)
    if rows and (width == 0 or np.any(counts == 0)):
        raise ParameterError("every row of quality needs at least one finite candidate")
    if rows == 0:
        return np.empty(0, dtype=np.int64)
    best = finite.max(axis=1) if all_valid else np.nanmax(finite, axis=1)
    lowest = finite.min() if all_valid else np.nanmin(finite)
    if max(best.max(), -lowest) > MAGNITUDE_LIMIT:
        raise ParameterError("qualities beyond 2^900 in magnitude are out of the exact range")
    # fl(Φ·fl(best − q)), as gamma_units computes it: refuses the same γ, here for every
    # candidate before any draw; it sets how many proposals a round draws, never the law
    approx = (best[:, None] - finite) * phi
    if (approx.max() if all_valid else np.nanmax(approx)) >= UNITS_LIMIT:
        gamma_units(best[:, None], np.where(valid, quality, best[:, None]), phi)  # raises
    weight = np.exp(approx * -(2.0**-GAMMA_BITS))
    weight = weight.sum(axis=1) if all_valid else np.nansum(weight, axis=1)  # ≥ 1: the best
    per_row = np.ceil(counts / weight).astype(np.int64)  # about 1/a
    # the j-th candidate of a row among its valid ones (stable): only with exclusions
    order = None if all_valid else np.argsort(~valid, axis=1, kind="stable")
    out = np.empty(rows, dtype=np.int64)
    done = np.zeros(rows, dtype=bool)
    pending = np.arange(rows)
    while pending.size:
        copies = per_row[pending] * (TRIALS if pending.size < SMALL else 1)
        copies = np.clip(copies, 1, max(1, PROPOSALS // pending.size))
        trial = np.repeat(pending, copies)  # sorted: a row's proposals are consecutive
        if all_valid:
            column = rng.integers(0, width, size=trial.size)
        else:
            column = order[trial, rng.integers(0, counts[trial])]
        # the best gets 1 unit exactly (a zero gap plus the margin), so units − 1 ≥ 0,
        # 0 for the best: a shift of every γ' of the row, which leaves the law unchanged
        units = gamma_units(best[trial], quality[trial, column], phi) - 1
        # DP-IR §3.4 Eq. 6: accepted with probability exp(−γ'_c) ∝ exp(ε'·q(c)/(2Δq))
        accepted = bernoulli_exp_units(units, rng)
        index, first = np.unique(trial[accepted], return_index=True)  # a row's first
        out[index] = column[accepted][first]
        done[index] = True
        pending = pending[~done[pending]]
    return out


__all__ = [
    "GAMMA_BITS",
    "SLACK",
    "ExponentialMechanism",
    "bernoulli_exp_units",
    "exact_exponential",
    "gamma_units",
    "units_per_quality",
]
