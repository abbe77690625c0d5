"""The discretised Laplace mechanism: exact integer noise on a power-of-two grid.

numpy's ``Generator.laplace`` turns a uniform double U into ``log(2U)`` in floating point,
so the set of doubles a release can take depends on the input down to its last bits, and
one release can tell neighbouring inputs apart (Mironov 2012, "On significance of the
least significant bits for differential privacy", CCS, §3). The remedy OpenDP and
Google's differential-privacy library use, implemented here: round the input to a grid g
(a power of two), add integer noise drawn exactly from the discrete Laplace distribution
with integer draws only, and release the sum times g (Canonne, Kamath & Steinke 2020,
"The discrete Gaussian for differential privacy", NeurIPS, Algorithms 1 and 2).

:func:`discretised_laplace` is the mechanism, :func:`discrete_laplace` the exact integer
sampler (vectorised: its rejection loops run on arrays with masks), :func:`integer_scale`
the grid and the integer scale of each coordinate, chosen so that the mechanism spends no
more than the ε it is asked for (its Notes give the argument).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from anonlab.validation import ParameterError, check_epsilon

#: R: the grid of a coordinate of Laplace scale b is g = 2^(floor(log2 b) - R), so
#: 2^R ≤ b/g < 2^(R + 1) and the integer scale t ≈ b/g stays below 2^50
GRID_BITS = 48
#: integers up to this magnitude are exact doubles
EXACT_INTEGERS = 2**53
#: largest int64, the bound of every integer the sampler forms
INT64_MAX = 2**63 - 1
#: smallest scale whose grid is a normal double (so that x / g is exact)
MIN_SCALE = 2.0 ** (GRID_BITS - 1022)
#: below this many values still to draw, the rejection loops run TRIALS independent
#: attempts of each per round (same law, fewer rounds of Python calls)
SMALL = 256
TRIALS = 4


def grid(scale: ArrayLike) -> np.ndarray:
    """The grid g = 2^(floor(log2 b) - :data:`GRID_BITS`) of each scale b > 0.

    Computed from the binary exponent (``frexp``), so exactly, without a rounded log2.
    """
    b = np.asarray(scale, dtype=float)
    _, exponent = np.frexp(b)  # b = mantissa·2**exponent, mantissa in [0.5, 1)
    return np.ldexp(1.0, exponent - 1 - GRID_BITS)


def inflation(count: int, epsilon: float) -> float:
    """η = count·2^-R / ε, rounded up: the relative noise increase that pays for
    rounding ``count`` coordinates to their grids (:func:`discretised_laplace`, Notes)."""
    if count <= 0:
        return 0.0
    # count·2**-R is exact below 2**53; nextafter rounds the quotient up
    return float(np.nextafter(count * 2.0**-GRID_BITS / epsilon, np.inf))


def integer_scale(scale: ArrayLike, count: int, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """The grid g and the integer scale t ≥ b(1 + η)/g of each Laplace scale b.

    Parameters
    ----------
    scale : the intended Laplace scales b, each > 0.
    count : coordinates drawn in one call (``c`` in :func:`discretised_laplace`).
    epsilon : the ε the scales were calibrated with (b = Δ/ε).

    Returns
    -------
    g : float array of powers of two, ``grid(scale)``.
    t : int64 array, ``ceil(b/g·(1 + η)) + 1`` with η = :func:`inflation`.

    Raises
    ------
    ParameterError : a scale that is not finite, or below :data:`MIN_SCALE`; η > 1 (more
        than 2^48·ε values in one call would double the noise).
    """
    b = np.asarray(scale, dtype=float)
    if not np.all(np.isfinite(b)) or np.any(b < MIN_SCALE):
        raise ParameterError(
            f"the discrete sampler needs finite scales >= {MIN_SCALE:g}, got "
            f"min {b.min(initial=np.inf)!r}, max {b.max(initial=0.0)!r}"
        )
    g = grid(b)
    eta = inflation(count, epsilon)
    if eta > 1:
        raise ParameterError(
            f"the discrete sampler would more than double the noise for {count} values at "
            f"epsilon={epsilon!r} (inflation {eta:.3g}); draw fewer values per call"
        )
    # b/g is exact and < 2**(R + 1); the two roundings of (b/g)·fl(1 + η) < 2**(R + 2)
    # lose less than 2**(R + 2)·2**-52 = 1/4, so ceil(...) + 1 ≥ b(1 + η)/g exactly
    t = np.ceil((b / g) * (1.0 + eta)) + 1.0
    return g, t.astype(np.int64)


def _uniform_below(high: int | np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform integers on {0, …, high − 1}, one per entry (``high`` a scalar or an array
    of ``size``); numpy's bounded integers are exact (Lemire's method, no floats)."""
    if isinstance(high, np.ndarray):
        return rng.integers(0, high)
    return rng.integers(0, high, size=size)


def bernoulli_exp(
    numerator: ArrayLike, denominator: ArrayLike, rng: np.random.Generator
) -> np.ndarray:
    """Exact Bernoulli(exp(−γ)) draws for γ = numerator/denominator ∈ [0, 1].

    Canonne, Kamath & Steinke 2020, Algorithm 1 (γ ≤ 1 branch): K ← 1; while a
    Bernoulli(γ/K) draw is 1, K ← K + 1; return 1 if K is odd. Bernoulli(γ/K) is
    ``integers(0, d·K) < n``; when d·K would pass the int64 range it is drawn as
    Bernoulli(n/d) ∧ Bernoulli(1/K), two independent exact draws with the same law. The
    loop runs on the coordinates still going (all share K), about e^γ ≤ e rounds each.

    Parameters
    ----------
    numerator, denominator : integers with 0 ≤ numerator ≤ denominator, denominator ≥ 1
        (broadcast together).
    rng : the generator every draw comes from.

    Returns
    -------
    bool array of the broadcast shape.
    """
    scalar = np.ndim(denominator) == 0  # one bound for all: numpy's faster scalar path
    num, den = np.broadcast_arrays(
        np.asarray(numerator, dtype=np.int64), np.asarray(denominator, dtype=np.int64)
    )
    shape = num.shape
    num, den = num.ravel(), den.ravel()
    if num.size and (np.any(den < 1) or np.any(num < 0) or np.any(num > den)):
        raise ValueError(
            "bernoulli_exp needs integers 0 <= numerator <= denominator, denominator >= 1"
        )
    result = np.empty(num.size, dtype=bool)
    active = np.arange(num.size)
    largest = int(den.max(initial=1))
    k = 1
    while active.size:
        n_a = num[active]
        d_a: int | np.ndarray = largest if scalar else den[active]
        if largest * k <= INT64_MAX:
            success = _uniform_below(d_a * k, active.size, rng) < n_a  # Bernoulli(γ/K)
        else:  # Bernoulli(γ/K) = Bernoulli(γ) ∧ Bernoulli(1/K), independent
            success = (_uniform_below(d_a, active.size, rng) < n_a) & (
                _uniform_below(k, active.size, rng) == 0
            )
        result[active[~success]] = k % 2 == 1
        active = active[success]
        k += 1
    return result.reshape(shape)


def _bernoulli_exp_minus_one(size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` exact Bernoulli(e^−1) draws: :func:`bernoulli_exp` at γ = 1, whose first
    draw, Bernoulli(1), is always 1, so the loop starts at K = 2 with scalar bounds."""
    result = np.empty(size, dtype=bool)
    active = np.arange(size)
    k = 2
    while active.size:
        success = _uniform_below(k, active.size, rng) == 0  # Bernoulli(1/K)
        result[active[~success]] = k % 2 == 1
        active = active[success]
        k += 1
    return result


def _geometric_minus_one(size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of V with P(V ≥ v) = e^−v: the count of Bernoulli(e^−1) successes
    before the first failure (Canonne, Kamath & Steinke 2020, Algorithm 2 step 3).

    Below :data:`SMALL` draws, each round draws :data:`TRIALS` Bernoulli(e^−1) per draw
    still going and counts its leading successes (the draws after a failure are i.i.d.
    and dropped, which leaves the law of V unchanged): fewer rounds of Python calls.
    """
    v = np.zeros(size, dtype=np.int64)
    active = np.arange(size)
    while active.size:
        batch = TRIALS if active.size < SMALL else 1
        success = _bernoulli_exp_minus_one(active.size * batch, rng).reshape(-1, batch)
        going = success.all(axis=1)
        v[active] += np.where(going, batch, np.argmin(success, axis=1))
        active = active[going]
    return v


def discrete_laplace(t: ArrayLike, rng: np.random.Generator) -> np.ndarray:
    """Exact draws from the discrete Laplace distribution of integer scale t:
    P(Z = z) = (1 − e^{−1/t}) / (1 + e^{−1/t}) · e^{−|z|/t}, z ∈ ℤ.

    Canonne, Kamath & Steinke 2020, Algorithm 2 with s = 1: U uniform on {0, …, t − 1},
    accepted with probability e^{−U/t} (:func:`bernoulli_exp`); V with P(V ≥ v) = e^{−v};
    X = U + t·V; a fair sign B, rejecting B = 1 with X = 0 (so 0 is not counted twice);
    Z = (1 − 2B)·X. Every draw is a bounded integer from ``rng`` (no floating point).
    The rejection loops run on arrays: each round redraws only the coordinates rejected so
    far (several independent attempts each below :data:`SMALL` of them, the first
    accepted kept), so the same generator state gives the same draws.

    Parameters
    ----------
    t : integer scales ≥ 1, any shape.
    rng : the generator every draw comes from.

    Returns
    -------
    int64 array of the shape of ``t``.

    Raises
    ------
    OverflowError : U + t·V would pass the int64 range, which needs V ≥ (2^63 − t)/t
        (P(V ≥ v) = e^{−v}: below e^{−8000} for t < 2^50, so it never happens).
    """
    t = np.asarray(t, dtype=np.int64)
    if t.size and np.any(t < 1):
        raise ValueError("discrete_laplace needs integer scales t >= 1")
    flat = t.ravel()
    out = np.empty(flat.size, dtype=np.int64)
    # one scalar bound when every scale is equal: numpy's faster scalar path, same law
    same = flat.size > 0 and bool(np.all(flat == flat[0]))
    pending = np.arange(flat.size)
    while pending.size:
        # below SMALL values, TRIALS independent runs of each at once, the first accepted
        # kept: the runs are i.i.d., so it has the law of one run (fewer rounds)
        copies = TRIALS if pending.size < SMALL else 1
        trial = np.repeat(pending, copies)  # sorted: a value's runs are consecutive
        scales = flat[trial]
        bound: int | np.ndarray = int(flat[0]) if same else scales
        u = _uniform_below(bound, trial.size, rng)  # step 1
        accepted = bernoulli_exp(u, bound, rng)  # step 2: keep U with probability e^{-U/t}
        index, scales, u = trial[accepted], scales[accepted], u[accepted]
        v = _geometric_minus_one(index.size, rng)  # step 3
        if np.any(v > (INT64_MAX - u) // scales):
            raise OverflowError("discrete Laplace draw beyond the int64 range")
        x = u + scales * v  # step 4 (Y = X for s = 1)
        negative = _uniform_below(2, index.size, rng) == 1  # step 6: B ~ Bernoulli(1/2)
        kept = ~(negative & (x == 0))  # step 7: reject B = 1, Y = 0
        index, z = index[kept], np.where(negative, -x, x)[kept]
        if copies == 1:
            out[index] = z
            done = np.zeros(pending.size, dtype=bool)
            done[np.flatnonzero(accepted)[kept]] = True
            pending = pending[~done]
        else:
            index, first = np.unique(index, return_index=True)  # each value's first run
            out[index] = z[first]
            pending = np.setdiff1d(pending, index, assume_unique=True)
    return out.reshape(t.shape)


def discrete_laplace_pmf(z: ArrayLike, t: ArrayLike) -> np.ndarray:
    """P(Z = z) of the discrete Laplace distribution of scale t (Canonne, Kamath & Steinke
    2020, Definition 4 with the scale t)."""
    q = np.exp(-1.0 / np.asarray(t, dtype=float))
    return (1.0 - q) / (1.0 + q) * q ** np.abs(np.asarray(z, dtype=float))


def discrete_laplace_variance(t: ArrayLike) -> np.ndarray:
    """Var Z = 2e^{−1/t} / (1 − e^{−1/t})² (≈ 2t², the continuous Laplace's 2b²)."""
    q = np.exp(-1.0 / np.asarray(t, dtype=float))
    return 2.0 * q / (1.0 - q) ** 2


def _on_grid(a: np.ndarray, z: np.ndarray, g: np.ndarray) -> np.ndarray:
    """fl((a + z)·g) for integer-valued doubles ``a``, int64 ``z`` and powers of two
    ``g``: ``a·g + z·g`` (two exact products, one correctly rounded sum), and with Python
    integers where |z| > 2^53 (z·g would be rounded), so it depends on a + z only."""
    y = a * g + z.astype(float) * g
    big = np.flatnonzero(np.abs(z) > EXACT_INTEGERS)
    for i in big:  # probability below e^{-16} per value for t < 2**50
        y[i] = float(int(a[i]) + int(z[i])) * g[i]  # int → float rounds correctly
    return y


def discretised_laplace(
    values: ArrayLike, scale: ArrayLike, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """The discretised Laplace mechanism: ``values`` rounded to a grid plus exact discrete
    Laplace noise, for Laplace scales ``scale`` calibrated to ``epsilon``.

    Parameters
    ----------
    values : float array, any shape.
    scale : the intended Laplace scale b of each coordinate (b = Δ/ε), broadcast to the
        shape of ``values`` (one per attribute over the last axis, or one per cluster and
        attribute); a coordinate of scale 0 is returned unchanged.
    epsilon : the ε the scales were calibrated with (> 0).
    rng : the generator every draw comes from (integer draws only).

    Returns
    -------
    float array of the shape of ``values``: y = fl(A·g + Z·g), A = rint(x/g).

    Raises
    ------
    ParameterError : a non-finite scale, one in (0, :data:`MIN_SCALE`), or a bad ε.
    ValueError : a finite value too large for its grid (|x|/g overflows).

    Notes
    -----
    *Grid and integer scale.* Coordinate j of scale b_j > 0 gets the grid
    g_j = 2^(floor(log2 b_j) − R), R = :data:`GRID_BITS`, so 2^−(R+1) < g_j/b_j ≤ 2^−R,
    and the integer scale t_j ≥ b_j(1 + η)/g_j with η = c·2^−R/ε, c the number of
    coordinates in the call (:func:`integer_scale`). Neither depends on the values.

    *Privacy.* Rounding is exact (x/g scales by a power of two; ``rint`` rounds to an
    integer), and moves a value by at most g/2, so inputs x, x' give integers with
    |A_j − A'_j| ≤ |x_j − x'_j|/g_j + 1 where x_j ≠ x'_j (0 elsewhere). Discrete Laplace
    noise of scale t_j spends |A_j − A'_j|/t_j on coordinate j (its pmf ratio at any w is
    exp((|w − A'_j| − |w − A_j|)/t_j)), so the loss of the whole release is at most

        Σ_j (|dx_j|/g_j + 1)/t_j ≤ Σ_j (|dx_j| + g_j)/(b_j(1 + η)) ≤ (L + c·2^−R)/(1 + η),

    with L = Σ_j |dx_j|/b_j the loss of the continuous Laplace mechanism of scales b (and
    at most c coordinates change). For η = c·2^−R/ε the right side is ≤ L when L ≥ ε and
    < ε when L < ε: **the loss is at most max(L, ε)**. So wherever continuous Laplace
    noise of scales b is ε'-DP with ε' ≥ ε (its accounting bounds L ≤ ε' for neighbours:
    a per-attribute budget ε within a total ε' ≥ ε), the discretised release is ε'-DP,
    pure and exact: no δ, and no floating-point caveat.

    *Release.* A·g and Z·g are exact (an integer-valued double times a power of two;
    |Z| ≤ 2^53, else Python integers), and IEEE addition rounds their exact sum
    (A + Z)·g correctly, so y is a deterministic function of the integer A + Z:
    post-processing of the discrete Laplace mechanism (Dwork & Roth 2014, Prop. 2.1). y is
    a multiple of g (of a coarser power of two once |A + Z| > 2^53).

    *Cost.* t_j·g_j ≤ b_j(1 + η + 2^(1−R)), and the discrete Laplace's standard deviation
    is ≤ √2·t, so the noise grows by a factor at most 1 + η + 2^(1−R) over Laplace of
    scale b (η ≈ 3.6e-9 for c = 10^6 at ε = 1, 3.6e-7 at ε = 0.01), and each value moves
    by at most g/2 ≤ b·2^−49 before noise.
    """
    epsilon = check_epsilon(epsilon)
    out = np.array(values, dtype=float, copy=True)
    b = np.asarray(scale, dtype=float)
    zero = b == 0
    # on the scales as given (one per attribute, say), then broadcast to the values
    g, t = integer_scale(np.where(zero, 1.0, b), out.size, epsilon)
    g, t, noisy = (np.broadcast_to(v, out.shape).ravel() for v in (g, t, ~zero))
    flat = out.reshape(-1)  # a view: out is a fresh contiguous copy
    if not noisy.all():
        g, t, flat = g[noisy], t[noisy], flat[noisy]
    a = np.rint(flat / g)  # exact: a power-of-two scaling, then the nearest integer
    if np.any(np.isfinite(flat) & ~np.isfinite(a)):
        raise ValueError("a value is too large for the grid of its scale (|x|/g overflows)")
    released = _on_grid(a, discrete_laplace(t, rng), g)
    if noisy.all():
        return released.reshape(out.shape)
    out.reshape(-1)[noisy] = released
    return out


__all__ = [
    "GRID_BITS",
    "bernoulli_exp",
    "discrete_laplace",
    "discrete_laplace_pmf",
    "discrete_laplace_variance",
    "discretised_laplace",
    "grid",
    "inflation",
    "integer_scale",
]
