"""The floating-point reachability test (anonlab/audit/floating.py).

numpy's Laplace sampler must fail it (Mironov 2012: most values released from x cannot be
released from x'), the discrete sampler must pass it, under its own support check and
under numpy's; the reachability check must agree with numpy's own draws (no false
"unreachable") and with a brute-force enumeration of numpy's uniforms around a point.
"""

from __future__ import annotations

import numpy as np
import pytest

from anonlab.audit import FloatingResult, floating_point_audit
from anonlab.audit.floating import (
    K_MAX,
    U_STEP,
    _released,
    _standard_laplace,
    grid_reachable,
    numpy_reachable,
    reachable,
)
from anonlab.mechanisms import LaplaceMechanism
from anonlab.mechanisms.discrete import grid
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

RUNS = 1000


@pytest.mark.parametrize("epsilon", [0.5, 1.0, 2.0])
def test_numpy_sampler_fails(epsilon):
    result = floating_point_audit("numpy", epsilon, runs=RUNS)
    assert isinstance(result, FloatingResult)
    assert result.hits_d2 == 0  # a release of D' is always reachable from x'
    assert result.hits_d > RUNS // 10
    assert result.epsilon_lower > epsilon + 2.0
    assert result.exceeds and "EXCEEDS EPSILON" in result.summary()


def test_discrete_sampler_passes():
    result = floating_point_audit("discrete", 1.0, runs=RUNS)
    assert (result.hits_d, result.hits_d2) == (0, 0)  # on the grid from every x
    assert result.epsilon_lower <= 1.0
    assert not result.exceeds


def test_discrete_sampler_resists_numpys_attack():
    result = floating_point_audit("discrete", 1.0, runs=RUNS, attack="numpy")
    assert result.hits_d > 0 and result.hits_d2 > 0  # the event is not empty
    assert result.epsilon_lower <= 1.0


def test_seeded_and_summarised():
    first = floating_point_audit("numpy", 1.0, runs=300, seed=3)
    assert first == floating_point_audit("numpy", 1.0, runs=300, seed=3)
    line = first.summary()
    assert "sampler=numpy" in line and f"{first.hits_d} releases of D" in line
    assert "\n" not in line


def test_forward_model_is_numpys_laplace():
    # the same stream read as uniforms and as Laplace draws: U = k·2**-53 gives the draw
    seed, n = 17, 100_000
    u = np.random.default_rng(seed).random(n)
    draws = np.random.default_rng(seed).laplace(0.0, 1.0, size=n)
    k = (u / U_STEP).astype(np.int64)
    assert np.array_equal(_standard_laplace(k, "exact"), draws)


@pytest.mark.parametrize(
    ("mu", "scale", "low", "high"),
    [
        (54.4294, 100.0, 0.0, 100.0),  # the audit's setting, clipping included
        (-3.75, 0.5, -np.inf, np.inf),
        (1e6 + 0.3, 1e-3, -np.inf, np.inf),  # |noise| ≪ |x|: many uniforms per value
        (1e-3, 1e4, -np.inf, np.inf),  # |noise| ≫ |x|
    ],
)
def test_no_false_unreachable(mu, scale, low, high):
    rng = np.random.default_rng(2)
    y = np.clip(mu + rng.laplace(0.0, 1.0, size=3000) * scale, low, high)
    assert numpy_reachable(y, mu, scale, low, high).all()


@pytest.mark.parametrize(
    ("mu", "scale", "u", "half_width", "sparse"),
    [
        (54.4294, 100.0, 0.35, 400, True),  # L < 0
        (54.4294, 100.0, 0.7, 400, True),  # L > 0
        (50.0, 100.0, np.exp((1e-6 - 50.0) / 100.0) / 2, 3, True),  # y ≈ 1e-6: cancellation
        (1000.3, 0.01, 0.4, 300_000, False),  # |noise| ≪ |x|: every double is reachable
        (7.123, 3.0, 0.49999, 1000, False),  # L ≈ -2e-5: the same
    ],
)
def test_reachability_matches_brute_force(mu, scale, u, half_width, sparse):
    # a double strictly between the releases of k0 − w and k0 + w is reachable exactly
    # when one of those k releases it (the release is monotone in k); every such double
    # is tested, or 100,000 of them at random and every released one when they are more
    k0 = int(u / U_STEP)
    ks = np.arange(k0 - half_width, k0 + half_width + 1, dtype=np.int64)
    released = _released(ks, np.float64(mu), np.float64(scale), -np.inf, np.inf, "exact")
    assert np.all(np.diff(released) >= 0)
    low, high = released[0], released[-1]
    assert low > 0  # consecutive positive doubles are consecutive integers
    first, last = np.array([low, high]).view(np.int64) + [1, 0]
    if last - first <= 200_000:
        bits = np.arange(first, last, dtype=np.int64)
    else:
        bits = np.random.default_rng(0).integers(first, last, size=100_000)
    candidates = np.union1d(bits.view(np.float64), released[1:-1])
    truth = np.isin(candidates, released)
    assert np.array_equal(numpy_reachable(candidates, mu, scale), truth)
    if sparse:
        assert 0 < truth.sum() < len(candidates)
    else:
        assert truth.all() and len(candidates) > 10


def test_reachable_at_the_ends_of_numpys_uniforms():
    ks = np.array([1, 2, K_MAX - 1, K_MAX], dtype=np.int64)
    y = _released(ks, np.float64(3.0), np.float64(2.0), -np.inf, np.inf, "exact")
    assert numpy_reachable(y, 3.0, 2.0).all()
    assert not numpy_reachable(np.nextafter(y[-1], np.inf), 3.0, 2.0)
    assert not numpy_reachable(np.nextafter(y[0], -np.inf), 3.0, 2.0)


def test_grid_reachability_of_discrete_releases():
    mechanism = LaplaceMechanism(100.0, 1.0, sampler="discrete")
    y = mechanism.randomise(np.full(500, 54.4294), np.random.default_rng(1))
    assert grid_reachable(y, mechanism.scale).all()
    half = grid(mechanism.scale) / 2
    off = (y + half)[(y + half) - y == half]  # where y + g/2 is a double: half a step off
    assert len(off) > 400 and not grid_reachable(off, mechanism.scale).any()
    assert reachable(y, 54.4294, mechanism.scale, "discrete").all()
    # a clipping bound off the grid is reachable too
    assert grid_reachable(np.array([0.1]), 100.0, low=0.1, high=99.9).all()


def test_bad_sampler_or_attack():
    with pytest.raises(ParameterError, match="sampler"):
        floating_point_audit("gaussian", 1.0, runs=300)
    with pytest.raises(ParameterError, match="attack"):
        floating_point_audit("numpy", 1.0, runs=300, attack="bits")
