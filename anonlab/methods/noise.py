"""Noise addition of statistical disclosure control, as sdcMicro's ``addNoise`` draws it:
uncorrelated Gaussian noise scaled to each attribute's own standard deviation
(``additive``), or Gaussian noise with the data's own covariance (``correlated``, Brand
2002). Neither is differentially private: the noise is calibrated to statistics of the
private data, and nothing bounds what one record changes.

References: R. Brand, "Microdata protection through noise addition", in *Inference
Control in Statistical Databases*, LNCS 2316, 97–116, 2002; M. Templ, A. Kowarik and B.
Meindl, "Statistical disclosure control for micro-data using the R package sdcMicro",
*Journal of Statistical Software* 67(4), 2015.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonlab.axes import Axis
from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import NONE, Guarantee
from anonlab.mechanisms.measurements import GAUSSIAN_NUMPY, Measurement
from anonlab.methods.base import Method, Release, postprocess
from anonlab.validation import ParameterError

#: sdcMicro's ``noise`` (``addNoise``), in percent: of each attribute's standard deviation
#: (``additive``) or of the data's covariance matrix (``correlated``); its default 150
NOISE = Axis(
    "noise",
    float,
    low=0,
    high=math.inf,
    closed="neither",
    default=150.0,
    symbol="noise",
    label="noise (% of the data's σ, or of Σ)",
    why="a percentage of the data's spread (sdcMicro addNoise)",
    test_value=50.0,
    bad_values=(0.0, -10.0, math.inf),
)

#: what knowing the seed of a seeded release gives away
SEED_UNDOES_NOISE = (
    "a seeded release is reproduced by anyone who knows the seed, who can then subtract "
    "its noise and recover the original values"
)


def check_records(dataset: Dataset, name: str, least: int = 2) -> None:
    """Refuse ``dataset`` if it has fewer than ``least`` records: a sample standard
    deviation or covariance needs two."""
    if dataset.n < least:
        raise ParameterError(
            f"method {name!r} scales its noise to the data's sample standard deviations, "
            f"which need at least {least} records; data set {dataset.name!r} has {dataset.n}"
        )


@dataclass(frozen=True)
class AdditiveNoise(Method):
    """Uncorrelated noise (sdcMicro addNoise, method 'additive'): each attribute A_j
    gets independent N(0, (noise/100 · σ_j)²), σ_j the standard deviation of the data's
    own values of A_j; not DP."""

    noise: float = 150.0
    name: ClassVar[str] = "additive_noise"
    label: ClassVar[str] = "Additive noise"
    colour: ClassVar[str | None] = "#44aa99"  # teal (Paul Tol)
    marker: ClassVar[str | tuple[int, int, float] | None] = (9, 1, 0)  # 9-point star
    axes: ClassVar[tuple[str, ...]] = ("noise",)
    own_axes: ClassVar[tuple[Axis, ...]] = (NOISE,)
    cost: ClassVar[Cost] = Cost("n*m", seconds=1.2e-7)  # one draw per value
    numeric_only: ClassVar[bool] = True
    # noisy values of whole-number attributes are rounded, as every noisy release here
    round_integers: ClassVar[bool] = True
    #: why the release is not differentially private (the guarantee's reason)
    not_dp: ClassVar[str] = (
        "perturbative SDC (sdcMicro addNoise 'additive'): Gaussian noise scaled to "
        "each attribute's own standard deviation, which depends on every record; "
        "nothing bounds what one record changes, so no differential privacy"
    )

    def claim(self, m: int) -> Guarantee:
        return Guarantee(NONE, NONE, caveat=SEED_UNDOES_NOISE, reason=self.not_dp)

    def mechanisms(self) -> tuple[Measurement, ...]:
        return (GAUSSIAN_NUMPY,)  # numpy's floating-point normal draws

    def check_dataset(self, dataset: Dataset) -> None:
        check_records(dataset, self.name)

    def sigma(self, dataset: Dataset) -> np.ndarray:
        """The noise's standard deviation per protected attribute: noise/100 · σ_j, σ_j
        the sample standard deviation (n − 1 in the denominator, R's ``sd``)."""
        return self.noise / 100.0 * np.sqrt(dataset.protected_variance)

    def draw(self, dataset: Dataset, rng: np.random.Generator) -> np.ndarray:
        """The noise, one standard normal per value scaled by :meth:`sigma`."""
        return rng.standard_normal(dataset.protected_values.shape) * self.sigma(dataset)

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        check_records(dataset, self.name)
        noisy = dataset.protected_values + self.draw(dataset, rng)
        # clipped to the declared domains and rounded where declared whole (sdcMicro does
        # neither)
        return Release(dataset, postprocess(dataset, noisy, noisy=True, in_place=True))


def noise_factor(covariance: np.ndarray) -> np.ndarray:
    """A matrix L with L·Lᵀ = ``covariance`` (symmetric, positive semi-definite): its
    eigenvectors scaled by the square roots of its eigenvalues, negative rounding errors
    set to 0, so a singular covariance (a constant or collinear attribute) is taken."""
    eigenvalues, eigenvectors = np.linalg.eigh(covariance)
    return eigenvectors * np.sqrt(np.clip(eigenvalues, 0.0, None))


@dataclass(frozen=True)
class CorrelatedNoise(AdditiveNoise):
    """Correlated noise (sdcMicro addNoise, method 'correlated'; Brand 2002): every
    record gets a draw of N(0, noise/100 · Σ), Σ the covariance matrix of the data's own
    protected attributes, so the release's covariance is (1 + noise/100)·Σ in expectation;
    not DP."""

    name: ClassVar[str] = "correlated_noise"
    label: ClassVar[str] = "Correlated noise"
    colour: ClassVar[str | None] = "#88ccee"  # light cyan (Paul Tol)
    marker: ClassVar[str | tuple[int, int, float] | None] = (12, 1, 0)  # 12-point star
    cost: ClassVar[Cost] = Cost("n*m", seconds=1.2e-7)  # one draw per value, mixed by m × m
    not_dp: ClassVar[str] = (
        "perturbative SDC (sdcMicro addNoise 'correlated', Brand 2002): Gaussian "
        "noise with the covariance of the data's own attributes, which depends on "
        "every record; nothing bounds what one record changes, so no differential "
        "privacy"
    )

    def covariance(self, dataset: Dataset) -> np.ndarray:
        """The noise's covariance: noise/100 · Σ, Σ the sample covariance (n − 1 in the
        denominator, R's ``cov``) of the protected attributes."""
        sigma = np.cov(dataset.protected_values, rowvar=False, ddof=1)
        return self.noise / 100.0 * np.atleast_2d(sigma)

    def draw(self, dataset: Dataset, rng: np.random.Generator) -> np.ndarray:
        """One standard normal per value, mixed by the factor of :meth:`covariance`: each
        row ~ N(0, noise/100·Σ)."""
        factor = noise_factor(self.covariance(dataset))
        return rng.standard_normal(dataset.protected_values.shape) @ factor.T
