"""Privacy accounting in zero-concentrated DP: the conversions to (ε, δ)-DP and the costs
of Gaussian and exponential measurements (used by the synthetic-data baselines, MST and AIM)."""

from __future__ import annotations

import math

from anonlab.validation import ParameterError, check_epsilon

#: squared L2 sensitivity of a count vector when one record is replaced: (−1)² + 1²
SENSITIVITY_SQ = 2.0
#: the L1 sensitivity of ‖x − x̂‖₁ for a marginal x when one record is replaced
L1_SENSITIVITY = 2.0


def cdp_delta(rho: float, epsilon: float) -> float:
    """δ of the (ε, δ)-DP that ρ-zCDP implies, by Canonne, Kamath & Steinke (2020,
    "The Discrete Gaussian for Differential Privacy", Corollary 13):
    δ = min over α > 1 of exp((α−1)(αρ − ε)) / (α−1) · (1 − 1/α)^α, the α found by
    bisection on the derivative of its logarithm (as private-pgm's ``cdp2adp.py``)."""
    if rho <= 0:
        return 0.0
    low, high = 1.01, (epsilon + 1) / (2 * rho) + 2  # the optimum α ≥ (1 + ε/ρ)/2
    for _ in range(200):
        alpha = (low + high) / 2
        # CKS Cor. 13: d/dα of the log-bound, up to a positive factor
        if (2 * alpha - 1) * rho - epsilon + math.log1p(-1.0 / alpha) < 0:
            low = alpha
        else:
            high = alpha
    alpha = (low + high) / 2
    log_delta = (
        (alpha - 1) * (alpha * rho - epsilon) + alpha * math.log1p(-1 / alpha) - math.log(alpha - 1)
    )  # CKS Cor. 13
    return min(math.exp(log_delta), 1.0)


def zcdp_rho(epsilon: float, delta: float) -> float:
    """The largest ρ whose ρ-zCDP implies (ε, δ)-DP by :func:`cdp_delta` (bisection, as
    ``cdp2adp.cdp_rho``); never below the standard ρ with ε = ρ + 2√(ρ·ln(1/δ)) (Bun &
    Steinke 2016, Prop. 1.3), which it tightens."""
    epsilon = check_epsilon(epsilon)
    if not 0 < delta < 1:
        raise ParameterError(f"delta must be in (0, 1), got {delta!r}")
    low, high = 0.0, epsilon + 1  # cdp_delta(low) ≤ δ < cdp_delta(high)
    for _ in range(200):
        rho = (low + high) / 2
        if cdp_delta(rho, epsilon) <= delta:
            low = rho
        else:
            high = rho
    return low


def gaussian_sigma(rho: float) -> float:
    """σ of a Gaussian measurement of one count vector that costs ρ-zCDP when one record
    is replaced: ρ = Δ₂²/(2σ²) (Bun & Steinke 2016, Prop. 1.6) with Δ₂² = 2."""
    return math.sqrt(SENSITIVITY_SQ / (2 * rho))


def gaussian_rho(sigma: float) -> float:
    """ρ of a Gaussian measurement of one count vector with σ: Δ₂²/(2σ²), Δ₂² = 2."""
    return SENSITIVITY_SQ / (2 * sigma**2)


def exponential_epsilon(rho: float) -> float:
    """ε of an exponential mechanism costing ρ-zCDP: ε-DP exponential mechanisms are
    ε²/8-zCDP (Cesar & Rogers 2021; MST and AIM §4 both rely on it), so ε = √(8ρ)."""
    return math.sqrt(8 * rho)
