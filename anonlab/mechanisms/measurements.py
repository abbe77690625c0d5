"""The facts of each noise sampler the package draws with, as OpenDP states a measurement
beside its privacy map: its distribution, whether its draws are exact (resist
floating-point attacks), the reason when they are not, and the map from the mechanism's
parameters to the privacy loss it gives.

A release's guarantee is composed from the measurements its method declares
(:meth:`anonlab.methods.base.Method.mechanisms`,
:func:`anonlab.methods.guarantees.guarantee`): a privacy notion holds as released only
if every measurement it draws with is declared and exact.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from anonlab.mechanisms.laplace import SAMPLERS

#: the privacy measures of OpenDP: pure DP (max-divergence), where the map gives ε, and
#: zero-concentrated DP, where it gives ρ (ρ-zCDP implies (ε, δ)-DP for every δ > 0,
#: :func:`anonlab.mechanisms.accounting.cdp_delta`)
PURE_DP = "ε-DP"
ZCDP = "ρ-zCDP"
MEASURES = (PURE_DP, ZCDP)

#: what numpy's floating-point Laplace noise cannot do (the reason of
#: :data:`LAPLACE_NUMPY`)
FLOATING_POINT = (
    "numpy's floating-point Laplace sampler: released values carry low-order "
    "bits that tell neighbours apart (Mironov 2012; python -m anonlab.audit "
    "floating); sampler='discrete' resists it"
)
#: what numpy's Gumbel-max exponential mechanism cannot do (the reason of
#: :data:`EXPONENTIAL_GUMBEL`; ``EXPONENTIAL_FLOAT`` of :mod:`anonlab.methods.guarantees`
#: says it of categorical values)
GUMBEL_FLOAT = (
    "the exponential mechanism from numpy's "
    "floating-point Gumbel draws, which lie in [-3.604, 36.737]: a candidate more than "
    "40.34 logits (ε·(q_max − q)/(2Δq)) below the best is never chosen, and a neighbour "
    "can bring it within reach, so pure ε-DP fails once the utilities span more than "
    "40.34 logits (python -m anonlab.audit.exponential)"
)
#: what numpy's floating-point Gaussian noise cannot do (the reason of
#: :data:`GAUSSIAN_NUMPY`)
GAUSSIAN_FLOAT = (
    "numpy's floating-point Gaussian sampler (Generator.normal): its draws carry "
    "low-order bits that can tell neighbours apart (Mironov 2012; for Gaussian samplers "
    "Jin, McMurtry, Rubinstein & Ohrimenko 2022, IEEE S&P), so the Gaussian mechanism's "
    "guarantee ((ε, δ)-DP, ρ-zCDP) is not shown for these draws, nor for anything computed "
    "from them (post-processing keeps only a guarantee the draws have); an exact sampler "
    "(the discrete Gaussian, Canonne, Kamath & Steinke 2020) would resist it"
)


def laplace_map(sensitivity: float, scale: float) -> float:
    """ε of Laplace noise of scale b on a query of L1 sensitivity Δ₁."""
    return sensitivity / scale  # ε = Δ₁/b (Dwork, McSherry, Nissim & Smith 2006)


def discrete_laplace_map(sensitivity: float, scale: float) -> float:
    """ε of the discretised Laplace mechanism of nominal scale b on a query of L1
    sensitivity Δ₁: at most Δ₁/b, the grid's rounding paid for by the inflated integer
    scale (:func:`~anonlab.mechanisms.discrete.discretised_laplace`, Notes)."""
    return sensitivity / scale  # ε = Δ/t for integer Δ (Canonne, Kamath & Steinke 2020)


def exponential_map(sensitivity: float, scale: float) -> float:
    """ε of the exponential mechanism P(c) ∝ exp(q(c)/τ) of temperature τ (``scale``) on
    a utility of sensitivity Δq; the package's mechanism has τ = 2Δq/ε (DP-IR Eq. 6)."""
    return 2.0 * sensitivity / scale  # ε = 2Δq/τ (McSherry & Talwar 2007)


def gaussian_map(sensitivity: float, scale: float) -> float:
    """ρ of Gaussian noise of standard deviation σ on a query of L2 sensitivity Δ₂, as
    the synthetic-data baselines account it (:mod:`anonlab.mechanisms.accounting`)."""
    return sensitivity**2 / (2.0 * scale**2)  # ρ = Δ₂²/(2σ²) (Bun & Steinke 2016, Prop. 1.6)


@dataclass(frozen=True)
class Measurement:
    """One noise sampler's facts (OpenDP: a measurement and its privacy map).

    Attributes
    ----------
    name : the sampler's name.
    distribution : the distribution it draws, with its scale parameter.
    exact : whether its draws have the mechanism's law exactly, with no floating-point
        draw whose low bits could tell neighbours apart.
    measure : the privacy measure of ``privacy_map`` (:data:`MEASURES`).
    privacy_map : ``(sensitivity, scale) → loss``: the ε (``ε-DP``) or ρ (``ρ-zCDP``)
        the mechanism gives on a query of that sensitivity at that scale.
    reason : why a privacy notion does not hold as released with these draws (``None``
        when ``exact``).
    """

    name: str
    distribution: str
    exact: bool
    measure: str
    privacy_map: Callable[[float, float], float]
    reason: str | None = None

    def __post_init__(self) -> None:
        if self.measure not in MEASURES:
            raise ValueError(f"measure must be one of {list(MEASURES)}, got {self.measure!r}")
        if self.exact == (self.reason is not None):
            raise ValueError("a measurement states a reason if and only if it is not exact")


LAPLACE_NUMPY = Measurement(
    "numpy_laplace",
    "Laplace(b), numpy's Generator.laplace in floating point",
    False,
    PURE_DP,
    laplace_map,
    FLOATING_POINT,
)
DISCRETE_LAPLACE = Measurement(
    "discrete_laplace",
    "discrete Laplace(t) on a power-of-two grid g, t ≥ b/g, integer draws only",
    True,
    PURE_DP,
    discrete_laplace_map,
)
EXPONENTIAL_GUMBEL = Measurement(
    "gumbel_max_exponential",
    "exponential mechanism exp(q/τ), Gumbel-max on numpy's floating-point Gumbel draws",
    False,
    PURE_DP,
    exponential_map,
    GUMBEL_FLOAT,
)
EXPONENTIAL_EXACT = Measurement(
    "exact_exponential",
    "exponential mechanism exp(q/τ), rejection sampling with integer draws only",
    True,
    PURE_DP,
    exponential_map,
)
GAUSSIAN_NUMPY = Measurement(
    "numpy_gaussian",
    "Gaussian(σ), numpy's Generator.normal in floating point",
    False,
    ZCDP,
    gaussian_map,
    GAUSSIAN_FLOAT,
)

#: the Laplace and the exponential mechanism by sampler (:data:`SAMPLERS`)
LAPLACE = dict(zip(SAMPLERS, (LAPLACE_NUMPY, DISCRETE_LAPLACE), strict=True))
EXPONENTIAL = dict(zip(SAMPLERS, (EXPONENTIAL_GUMBEL, EXPONENTIAL_EXACT), strict=True))
#: every noise sampler the package draws with
MEASUREMENTS = (
    LAPLACE_NUMPY,
    DISCRETE_LAPLACE,
    EXPONENTIAL_GUMBEL,
    EXPONENTIAL_EXACT,
    GAUSSIAN_NUMPY,
)

__all__ = [
    "DISCRETE_LAPLACE",
    "EXPONENTIAL",
    "EXPONENTIAL_EXACT",
    "EXPONENTIAL_GUMBEL",
    "FLOATING_POINT",
    "GAUSSIAN_FLOAT",
    "GAUSSIAN_NUMPY",
    "GUMBEL_FLOAT",
    "LAPLACE",
    "LAPLACE_NUMPY",
    "MEASUREMENTS",
    "MEASURES",
    "PURE_DP",
    "ZCDP",
    "Measurement",
    "discrete_laplace_map",
    "exponential_map",
    "gaussian_map",
    "laplace_map",
]
