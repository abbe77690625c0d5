"""The discretised Laplace mechanism (anonlab/mechanisms/discrete.py).

Checks the exact integer sampler against the discrete Laplace pmf and variance (Canonne,
Kamath & Steinke 2020, Algorithm 2), the Bernoulli(exp(−γ)) draws it is built from
(Algorithm 1, overflow branch included), the grid and integer scales with their privacy
accounting (loss ≤ max(L, ε), exactly, with fractions), and the ``discrete`` sampler of
:class:`LaplaceMechanism`: outputs on the grid, seeds, broadcasting, ``out=``, errors.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from anonlab.mechanisms import SAMPLERS, LaplaceMechanism
from anonlab.mechanisms.discrete import (
    GRID_BITS,
    _on_grid,
    bernoulli_exp,
    discrete_laplace,
    discrete_laplace_pmf,
    discrete_laplace_variance,
    discretised_laplace,
    grid,
    inflation,
    integer_scale,
)
from anonlab.validation import ParameterError

#: the smallest p-value a test accepts: with fixed seeds each test is deterministic, and a
#: sampler off by a few percent in any bin fails it by many orders of magnitude
P_MIN = 1e-3


def chi_square_pvalue(draws: np.ndarray, t: int, edge: int) -> float:
    """Pearson's chi-square of ``draws`` against the discrete Laplace pmf of scale ``t``,
    on the bins −edge … edge and the two tails beyond."""
    z = np.arange(-edge, edge + 1)
    inner = discrete_laplace_pmf(z, t)
    tail = (1.0 - inner.sum()) / 2
    expected = np.concatenate([[tail], inner, [tail]]) * len(draws)
    observed = np.concatenate(
        [
            [np.sum(draws < -edge)],
            np.bincount(draws[np.abs(draws) <= edge] + edge, minlength=2 * edge + 1),
            [np.sum(draws > edge)],
        ]
    )
    return float(stats.chisquare(observed, expected).pvalue)


@pytest.mark.parametrize("t", [1, 3, 10])
def test_integer_draws_follow_the_discrete_laplace_pmf(t):
    draws = discrete_laplace(np.full(60_000, t), np.random.default_rng(t))
    assert draws.dtype == np.int64
    assert chi_square_pvalue(draws, t, edge=4 * t) > P_MIN


def test_mixed_scales_follow_their_own_pmf():
    # different scales per entry take the array-bound path; each scale keeps its law
    t = np.tile([2, 7], 40_000)
    draws = discrete_laplace(t, np.random.default_rng(11))
    for scale in (2, 7):
        assert chi_square_pvalue(draws[t == scale], scale, edge=4 * scale) > P_MIN


@pytest.mark.integration  # a simulation: 2,500 calls of the sampler
def test_small_calls_follow_the_pmf():
    # below SMALL values each round runs TRIALS attempts per value and keeps the first
    # accepted one: the same law, checked on 2,500 calls of 8 values
    rng = np.random.default_rng(13)
    draws = np.concatenate([discrete_laplace(np.full(8, 2), rng) for _ in range(2500)])
    assert chi_square_pvalue(draws, 2, edge=8) > P_MIN


def test_mean_zero_and_exact_variance():
    t, n = 5, 100_000
    draws = discrete_laplace(np.full(n, t), np.random.default_rng(3)).astype(float)
    variance = float(discrete_laplace_variance(t))
    # 2e^{-1/t}/(1 - e^{-1/t})^2, a little below the continuous 2t^2
    assert variance == pytest.approx(2 * np.exp(-1 / t) / (1 - np.exp(-1 / t)) ** 2)
    assert abs(draws.mean()) < 5 * np.sqrt(variance / n)
    # sd of the sample variance ≈ σ²·sqrt(5/n) (kurtosis 6): 0.7% here; 4% is ~6 sd
    assert draws.var() / variance == pytest.approx(1.0, rel=0.04)


def test_large_integer_scales_match_the_continuous_laplace():
    # the scales the mechanism uses (2**48 to 2**49): Z/t is Laplace(1) up to 2**-48
    t = 2**48 + 12345
    draws = discrete_laplace(np.full(20_000, t), np.random.default_rng(5))
    assert stats.kstest(draws / t, stats.laplace.cdf).pvalue > P_MIN
    assert draws.dtype == np.int64


@pytest.mark.parametrize(
    ("numerator", "denominator"), [(0, 1), (1, 1), (1, 3), (2, 3), (7, 10), (2**61, 2**62 - 1)]
)
def test_bernoulli_exp_has_probability_exp_minus_gamma(numerator, denominator):
    # denominator 2**62 - 1 overflows int64 at K = 2: the two-draw branch
    n = 40_000
    draws = bernoulli_exp(np.full(n, numerator), denominator, np.random.default_rng(9))
    p = np.exp(-numerator / denominator)
    hits = int(draws.sum())
    if p == 1.0:
        assert hits == n
    else:
        assert stats.binomtest(hits, n, p).pvalue > P_MIN


def test_bernoulli_exp_rejects_gamma_outside_unit_interval():
    with pytest.raises(ValueError, match="numerator <= denominator"):
        bernoulli_exp(np.array([4]), 3, np.random.default_rng(0))


def test_adjacent_inputs_differ_by_exactly_exp_one_over_t():
    # exact: P(A + Z = w) / P(A' + Z = w) for A = 0, A' = 1 is e^{+1/t} for w ≤ 0 and
    # e^{-1/t} for w ≥ 1, at every w (all integers are reachable from both)
    t = 4
    w = np.arange(-60, 61)
    ratio = discrete_laplace_pmf(w - 0, t) / discrete_laplace_pmf(w - 1, t)
    expected = np.where(w <= 0, np.exp(1 / t), np.exp(-1 / t))
    np.testing.assert_allclose(ratio, expected, rtol=1e-12)
    # empirically: the log ratio of the two histograms in each well-filled bin
    n = 200_000
    from_a = discrete_laplace(np.full(n, t), np.random.default_rng(21))
    from_b = 1 + discrete_laplace(np.full(n, t), np.random.default_rng(22))
    edge = 3 * t
    count_a = np.bincount(from_a[np.abs(from_a) <= edge] + edge, minlength=2 * edge + 1)
    count_b = np.bincount(from_b[np.abs(from_b) <= edge] + edge, minlength=2 * edge + 1)
    log_ratio = np.log(count_a / count_b)
    log_expected = np.where(np.arange(-edge, edge + 1) <= 0, 1 / t, -1 / t)
    # 4.5 standard errors of a log ratio of counts per bin (25 bins, familywise ~1e-4)
    tolerance = 4.5 * np.sqrt(1 / count_a + 1 / count_b)
    assert np.all(np.abs(log_ratio - log_expected) <= tolerance)


def test_grid_is_the_power_of_two_below_b_times_two_to_minus_r():
    b = np.array([1e-3, 0.7, 1.0, 100.0, 2.0**10, 3e7])
    g = grid(b)
    assert np.all(np.frexp(g)[0] == 0.5)  # powers of two
    ratio = b / g
    assert np.all((ratio >= 2.0**GRID_BITS) & (ratio < 2.0 ** (GRID_BITS + 1)))


def test_integer_scale_covers_b_times_one_plus_eta_exactly():
    b = np.array([1e-3, 0.7, 100.0, 3e7, 123.456])
    count, epsilon = 10**6, 0.01
    g, t = integer_scale(b, count, epsilon)
    eta = inflation(count, epsilon)
    assert Fraction(eta) >= Fraction(count, 2**GRID_BITS) / Fraction(epsilon)
    for b_j, g_j, t_j in zip(b, g, t, strict=True):
        assert Fraction(int(t_j)) * Fraction(g_j) >= Fraction(b_j) * (1 + Fraction(eta))
        # the noise grows by at most η + 2**(1 - R)
        assert t_j * g_j / b_j - 1 <= eta + 2.0 ** (1 - GRID_BITS)
    # negligible: below 1e-6 for a million values at ε = 0.01, 1e-8 at ε = 1
    assert eta < 1e-6
    assert inflation(10**6, 1.0) < 1e-8


@pytest.mark.parametrize("step", [1e-15, 1e-9, 0.3, 7.0])
def test_privacy_loss_is_at_most_the_continuous_loss_or_epsilon(step):
    # exact loss Σ|A − A'|/t of the discrete mechanism for inputs x, x' (every coordinate
    # changed, the worst case for the rounding), against max(L, ε), L = Σ|dx|/b
    rng = np.random.default_rng(31)
    c, epsilon = 400, 0.5
    b = rng.choice([0.3, 2.0, 50.0], size=c)
    x = rng.uniform(-100, 100, size=c)
    x2 = x + step * rng.choice([-1.0, 1.0], size=c)
    g, t = integer_scale(b, c, epsilon)
    a, a2 = np.rint(x / g), np.rint(x2 / g)
    loss = sum(Fraction(int(abs(p - q)), int(s)) for p, q, s in zip(a, a2, t, strict=True))
    continuous = sum(
        abs(Fraction(p) - Fraction(q)) / Fraction(s) for p, q, s in zip(x, x2, b, strict=True)
    )
    assert loss <= max(continuous, Fraction(epsilon))


def test_release_is_a_function_of_the_integer_sum():
    g = np.array([2.0**-30, 2.0**-30, 2.0**-3])
    a = np.array([3.0 * 2**50, -(2.0**60), 5.0])
    z = np.array([2**53 + 3, -(2**55) - 1, 2**40], dtype=np.int64)  # beyond 2**53
    y = _on_grid(a, z, g)
    for a_j, z_j, g_j, y_j in zip(a, z, g, y, strict=True):
        assert y_j == float(Fraction(int(a_j) + int(z_j)) * Fraction(g_j))


def mechanism(sensitivity=1.0, epsilon=1.0):
    return LaplaceMechanism(sensitivity, epsilon, sampler="discrete")


def test_samplers_numpy_first():
    assert SAMPLERS == ("numpy", "discrete")
    assert LaplaceMechanism(1.0, 1.0).sampler == "numpy"


def test_numpy_sampler_is_unchanged():
    values = np.linspace(0, 1, 12).reshape(4, 3)
    released = LaplaceMechanism(np.array([1.0, 2.0, 3.0]), 0.5).randomise(
        values, np.random.default_rng(4)
    )
    noise = np.random.default_rng(4).laplace(0.0, 1.0, size=(4, 3)) * np.array([2.0, 4, 6])
    assert np.array_equal(released, values + noise)


def test_outputs_are_multiples_of_the_grid():
    sensitivity = np.array([1.0, 30.0, 0.01])
    m = mechanism(sensitivity, 0.7)
    values = np.random.default_rng(1).uniform(-50, 50, size=(500, 3))
    released = m.randomise(values, np.random.default_rng(2))
    units = released / grid(m.scale)
    assert np.array_equal(units, np.round(units))
    noise = m.noise((20_000, 3), np.random.default_rng(3))
    assert np.array_equal(noise / grid(m.scale), np.round(noise / grid(m.scale)))
    # scale stays the nominal b, and the noise has its spread
    np.testing.assert_allclose(noise.std(axis=0), np.sqrt(2) * m.scale, rtol=0.03)


def test_same_seed_same_draws():
    values = np.zeros((50, 2))
    first = mechanism().randomise(values, np.random.default_rng(8))
    again = mechanism().randomise(values, np.random.default_rng(8))
    other = mechanism().randomise(values, np.random.default_rng(9))
    assert np.array_equal(first, again)
    assert not np.array_equal(first, other)


def test_per_cluster_scales_broadcast():
    # iDP: a (p, m) array of sensitivities, one per cluster and attribute
    sensitivity = np.array([[1.0, 100.0], [0.0, 5.0], [1e-3, 2.0]])
    centroids = np.array([[10.0, 20.0], [30.5, 40.0], [50.0, 60.0]])
    rng = np.random.default_rng(12)
    one = mechanism(sensitivity, 2.0).randomise(centroids, rng)
    units = one / grid(np.where(sensitivity > 0, sensitivity / 2.0, 1.0))
    assert one.shape == (3, 2)
    assert np.array_equal(units, np.round(units))
    # many releases at once: the (p, m) arrays stacked 3000 times
    runs = (
        mechanism(np.tile(sensitivity, (3000, 1)), 2.0)
        .randomise(np.tile(centroids, (3000, 1)), rng)
        .reshape(3000, 3, 2)
    )
    assert np.all(runs[:, 1, 0] == 30.5)  # zero sensitivity: unchanged
    spread = (runs - centroids).std(axis=0)
    nominal = np.sqrt(2) * sensitivity / 2.0
    np.testing.assert_allclose(spread[sensitivity > 0], nominal[sensitivity > 0], rtol=0.1)


def test_randomise_into_out_in_place():
    values = np.random.default_rng(0).uniform(size=(10, 2))
    expected = mechanism(np.array([1.0, 2.0])).randomise(values, np.random.default_rng(6))
    centroids = values.copy()
    result = mechanism(np.array([1.0, 2.0])).randomise(
        centroids, np.random.default_rng(6), out=centroids
    )
    assert result is centroids
    assert np.array_equal(centroids, expected)


def test_bad_sampler_names_the_parameter_and_choices():
    with pytest.raises(ParameterError, match=r"sampler 'exact'.*\['discrete', 'numpy'\]"):
        LaplaceMechanism(1.0, 1.0, sampler="exact")


def test_scale_below_the_smallest_grid_is_refused():
    with pytest.raises(ParameterError, match="finite scales"):
        discretised_laplace(np.zeros(2), 1e-300, 1.0, np.random.default_rng(0))


def test_inflation_above_one_is_refused():
    with pytest.raises(ParameterError, match="double the noise"):
        integer_scale(np.ones(3), 10**6, 1e-12)
