"""The exact exponential-mechanism sampler (anonlab/mechanisms/exponential.py) and its
audit (anonlab/audit/exponential.py).

Checks the sampler's law against the exact softmax (chi-square), its acceptance path on a
candidate 3 logits below the best, that γ is never rounded down (against exact fractions),
its refusals and seeds, that ``sampler="numpy"`` is numpy's Gumbel-max bit for bit (in the
mechanism and in a method's release), and the audit's reachability: numpy's Gumbel draws
never reach a candidate more than 40.34 logits below the best, the exact sampler reaches
every candidate.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from anonlab.audit.exponential import (
    GUMBEL_HIGH,
    GUMBEL_LOW,
    design,
    exponential_audit,
    gumbel_reachable,
    reachable,
)
from anonlab.datasets import build_dataset
from anonlab.mechanisms.exponential import (
    GAMMA_BITS,
    SLACK,
    ExponentialMechanism,
    bernoulli_exp_units,
    exact_exponential,
    gamma_units,
    units_per_quality,
)
from anonlab.methods import make_method
from anonlab.methods.categorical import private_record_codes
from anonlab.semantics import value_change_sensitivity
from anonlab.validation import ParameterError

#: the smallest p-value a test accepts: with fixed seeds each test is deterministic, and a
#: sampler off by a few percent in any bin fails it by many orders of magnitude
P_MIN = 1e-3


def softmax(logits: np.ndarray) -> np.ndarray:
    weights = np.exp(logits - logits.max())
    return weights / weights.sum()


@pytest.mark.parametrize(
    ("quality", "epsilon", "sensitivity", "draws"),
    [
        ([0.0, -0.5, -1.0, -2.0, -3.0], 0.5, 1.0, 40_000),  # flat: γ < 1
        ([0.0, -0.5, -1.0, -2.0, -3.0], 2.0, 1.0, 40_000),  # γ up to 3
        ([3.0, 1.7, -0.4, -2.9, -5.0, 2.2], 3.0, 2.5, 40_000),  # unsorted, fractions
        ([0.0, -np.inf, -1.0, -np.inf, -4.0], 1.5, 0.5, 40_000),  # exclusions
    ],
)
def test_exact_sampler_follows_the_softmax(quality, epsilon, sensitivity, draws):
    """DP-IR Eq. 6: P(c) ∝ exp(ε·q(c)/(2Δq)), checked by chi-square on the draws."""
    quality = np.array(quality)
    chosen = exact_exponential(
        np.tile(quality, (draws, 1)), epsilon, sensitivity, np.random.default_rng(5)
    )
    valid = np.isfinite(quality)
    observed = np.bincount(chosen, minlength=len(quality))
    assert observed[~valid].sum() == 0
    expected = softmax(epsilon * quality[valid] / (2 * sensitivity)) * draws
    assert stats.chisquare(observed[valid], expected).pvalue > P_MIN


def test_small_calls_follow_the_softmax():
    # below SMALL rows each round draws TRIALS times more proposals per row
    quality = np.tile([0.0, -1.0, -2.5], (8, 1))
    rng = np.random.default_rng(8)
    chosen = np.concatenate([exact_exponential(quality, 2.0, 1.0, rng) for _ in range(300)])
    quality = quality[0]
    expected = softmax(quality) * len(chosen)
    assert stats.chisquare(np.bincount(chosen, minlength=3), expected).pvalue > P_MIN


def test_a_candidate_three_logits_below_is_accepted_at_its_rate():
    """Two candidates 3 logits apart: the far one needs V ≥ 3 (three Bernoulli(e^−1)
    successes) and a Bernoulli(e^−2^−32·u) draw; its frequency is e^−3/(1 + e^−3)."""
    draws = 100_000
    chosen = ExponentialMechanism(2.0, 1.0, "discrete").select(
        np.tile([0.0, -3.0], (draws, 1)), np.random.default_rng(2)
    )
    p = math.exp(-3) / (1 + math.exp(-3))
    assert stats.binomtest(int(chosen.sum()), draws, p).pvalue > P_MIN


def test_bernoulli_exp_units_has_rate_exp_minus_gamma():
    gammas = np.array([0.25, 1.0, 1.75, 4.5])
    units = (gammas * 2**GAMMA_BITS).astype(np.int64)
    hits = bernoulli_exp_units(np.repeat(units, 20_000), np.random.default_rng(4))
    for rate, gamma in zip(hits.reshape(4, -1).mean(axis=1), gammas, strict=True):
        assert stats.binomtest(round(rate * 20_000), 20_000, math.exp(-gamma)).pvalue > P_MIN


def test_a_candidate_sixty_logits_below_stays_reachable():
    """exp(−60) ≈ 9e−27 cannot be sampled; what makes it positive can be checked: its γ'
    is 60·(1 − s) logits (ε − 2s) rounded up by at most one unit, accepted with
    probability e^−γ' > 0, and the audit counts it reachable, while numpy's Gumbel-max
    can never choose it."""
    logits = np.array([0.0, -60.0])
    phi = units_per_quality(2.0, 1.0)  # Φ = (2 − 2s)·2^R/2 per unit of quality
    units = int(gamma_units(np.array([0.0]), np.array([-60.0]), phi)[0])
    exact = 60 * (1 - SLACK) * 2**GAMMA_BITS
    assert exact <= units <= exact + 1 + Fraction(1, 2**19)
    assert reachable("discrete", logits).all()
    assert gumbel_reachable(logits).tolist() == [True, False]


def exact_units(best: float, quality: float, phi: float) -> Fraction:
    return Fraction(phi) * (Fraction(best) - Fraction(quality))


def test_gamma_is_rounded_up_never_down():
    """Against exact fractions: Φ·(best − q) ≤ u ≤ Φ·(best − q) + 1 + 2^−19, on random
    doubles of many magnitudes and on ties, tiny gaps and gaps near the int64 limit."""
    rng = np.random.default_rng(0)
    scales = 10.0 ** rng.uniform(-300, 15, size=400)
    best = rng.normal(size=400) * scales
    quality = best - np.abs(rng.normal(size=400)) * scales * rng.uniform(0, 1e-6, size=400)
    quality = np.concatenate([quality, best[:5], np.nextafter(best[:5], -np.inf)])
    best = np.concatenate([best, best[:5], best[:5]])
    for phi in (units_per_quality(1.0, 1.0), 0.37 * 2**GAMMA_BITS, 3.1e-7, 2.0**20 / 3):
        gap = best - quality
        keep = gap * phi < 2.0**61  # within the sampler's range
        units = gamma_units(best[keep], quality[keep], phi)
        for u, b, q in zip(units.tolist(), best[keep], quality[keep], strict=True):
            exact = exact_units(float(b), float(q), phi)
            assert exact <= u <= exact + 1 + Fraction(1, 2**19)
    # just below the limit: γ·2^R near 2^62, the exact part beyond 2^53
    big = np.array([-(2.0**61) / 7, -(2.0**62) * 0.99])
    units = gamma_units(np.array([0.0, 0.0]), big, 1.0)
    for u, q in zip(units.tolist(), big, strict=True):
        exact = exact_units(0.0, float(q), 1.0)
        assert exact <= u <= exact + 1 + Fraction(1, 2**19)


def test_calibration_spends_at_most_epsilon():
    """Φ/2^R·2Δq + 2s ≤ ε exactly, and Φ is the largest double with that property."""
    for epsilon, sensitivity in [(1.0, 1.0), (0.01, 3.7), (7.5, 0.013), (1e-6, 1e6)]:
        phi = units_per_quality(epsilon, sensitivity)
        spent = Fraction(phi) / 2**GAMMA_BITS * 2 * Fraction(sensitivity) + 2 * SLACK
        assert spent <= Fraction(epsilon)
        above = Fraction(math.nextafter(phi, math.inf))
        assert above / 2**GAMMA_BITS * 2 * Fraction(sensitivity) + 2 * SLACK > epsilon


def test_refusals_name_their_cause():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="rounding"):
        exact_exponential(np.zeros((1, 2)), 4e-10, 1.0, rng)
    with pytest.raises(ParameterError, match="logits below the best"):
        exact_exponential(np.array([[0.0, -1e12]]), 1.0, 1.0, rng)
    with pytest.raises(ParameterError, match="NaN"):
        exact_exponential(np.array([[0.0, np.nan]]), 1.0, 1.0, rng)
    with pytest.raises(ParameterError, match="at least one finite"):
        exact_exponential(np.array([[0.0, -1.0], [-np.inf, -np.inf]]), 1.0, 1.0, rng)
    with pytest.raises(ParameterError, match="sampler"):
        ExponentialMechanism(1.0, 1.0, "float")
    # the refusal is decided on every candidate before any draw: the generator is untouched
    state = rng.bit_generator.state
    with pytest.raises(ParameterError):
        exact_exponential(np.tile([0.0, -1.0, -1e12], (50, 1)), 1.0, 1.0, rng)
    assert rng.bit_generator.state == state


def test_same_seed_same_selections():
    quality = np.random.default_rng(1).normal(size=(3000, 7)) * 3
    first = exact_exponential(quality, 1.0, 1.0, np.random.default_rng(9))
    again = exact_exponential(quality, 1.0, 1.0, np.random.default_rng(9))
    other = exact_exponential(quality, 1.0, 1.0, np.random.default_rng(10))
    assert first.dtype == np.int64 and np.array_equal(first, again)
    assert not np.array_equal(first, other)
    assert exact_exponential(np.empty((0, 3)), 1.0, 1.0, np.random.default_rng(0)).size == 0


def test_numpy_sampler_is_gumbel_max_bit_for_bit():
    quality = np.random.default_rng(3).normal(size=(500, 9))
    chosen = ExponentialMechanism(0.8, 1.3).select(quality, np.random.default_rng(6))
    rng = np.random.default_rng(6)
    logits = 0.8 * quality / (2.0 * 1.3)
    assert np.array_equal(chosen, np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1))
    explicit = ExponentialMechanism(0.8, 1.3, "numpy").select(quality, np.random.default_rng(6))
    assert np.array_equal(chosen, explicit)


def test_numpy_releases_are_unchanged_and_discrete_ones_exact():
    """The ``laplace`` method on one categorical attribute: with ``sampler="numpy"`` its
    release is Gumbel-max on the taxonomy's distances, draw for draw (as before the exact
    sampler); with ``discrete`` it draws from the same law by integers."""
    occupations = ["Sales", "Tech-support", "Craft-repair", "Exec-managerial", "Sales"] * 8
    data = build_dataset(
        "t", pd.DataFrame({"occupation": occupations}), ["occupation"],
        categorical={"occupation": "adult_occupation"},
    )  # fmt: skip
    attr = data.protected_attributes[0]
    codes = data.protected_values[:, 0].astype(np.int64)
    released = {
        sampler: make_method("laplace", {"epsilon": 1.5}, {"sampler": sampler})
        .protect(data, np.random.default_rng(12))
        .values[:, 0]
        for sampler in ("numpy", "discrete")
    }
    delta = value_change_sensitivity(attr.taxonomy)
    logits = 1.5 * -attr.taxonomy.distances[codes] / (2.0 * delta)
    rng = np.random.default_rng(12)
    gumbel = np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)
    assert np.array_equal(released["numpy"], gumbel)
    direct = private_record_codes(
        attr.taxonomy, codes, 1.5, delta, np.random.default_rng(12), sampler="discrete"
    )
    assert np.array_equal(released["discrete"], direct)


def test_only_the_numpy_sampler_carries_the_gumbel_caveat():
    data = build_dataset(
        "t", pd.DataFrame({"occupation": ["Sales", "Tech-support"] * 10}), ["occupation"],
        categorical={"occupation": "adult_occupation"},
    )  # fmt: skip
    caveats = {
        sampler: make_method("laplace", {"epsilon": 1.0}, {"sampler": sampler})
        .release(data, np.random.default_rng(0))
        .guarantee.caveat
        or ""
        for sampler in ("numpy", "discrete")
    }
    assert "40.34 logits" in caveats["numpy"]
    assert "Gumbel" not in caveats["discrete"]


def test_numpy_gumbel_support():
    """numpy's Gumbel draws: −log(−log U), U ∈ [2^−53, 1 − 2^−53]."""
    assert GUMBEL_LOW == pytest.approx(-3.6037789929704576, abs=0)
    assert GUMBEL_HIGH - GUMBEL_LOW == pytest.approx(40.3405795626, abs=1e-9)
    draws = np.random.default_rng(0).gumbel(size=200_000)
    assert GUMBEL_LOW <= draws.min() and draws.max() <= GUMBEL_HIGH


def test_gumbel_reach_ends_at_40_34_logits():
    gaps = np.array([0.0, 40.3, 40.34, 40.35, 41.0])
    assert gumbel_reachable(-gaps).tolist() == [True, True, True, False, False]
    # ties: argmax keeps the first maximum, so a later copy of the best can still win
    assert gumbel_reachable(np.array([0.0, 0.0])).tolist() == [True, True]


def test_audit_finds_the_gumbel_gap_and_none_for_the_exact_sampler():
    _, quality, moved, in_event = design(60.0, 1.0)
    assert np.all(np.abs(moved - quality) == 1.0)  # a neighbour: each quality moves by Δq
    before = exponential_audit("numpy", 60.0, selections=2000)
    after = exponential_audit("discrete", 60.0, selections=2000)
    assert before.newly_reachable > 0 and before.loss == math.inf
    assert 0 < before.p_newly < 1e-16  # far too rare for any sample to see
    assert after.newly_reachable == 0 and after.loss == 1.0
    assert exponential_audit("numpy", 40.0, selections=10).newly_reachable == 0
    assert after.event_loss <= 1.0 and after.epsilon_lower <= 1.0
