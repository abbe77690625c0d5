"""The registered methods ``mst`` and ``aim`` (:mod:`anonlab.methods.synthetic`)."""

from __future__ import annotations

import importlib.util
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import APPROX_DP, Guarantee
from anonlab.mechanisms.accounting import zcdp_rho
from anonlab.mechanisms.measurements import EXPONENTIAL_GUMBEL, GAUSSIAN_NUMPY, Measurement
from anonlab.methods.base import Method, Release, postprocess
from anonlab.methods.synthetic.encoding import Encoding, attribute_size
from anonlab.methods.synthetic.pgm import run_aim, run_mst
from anonlab.methods.synthetic.settings import (
    BIN_CHOICES,
    DEFAULT_DELTA,
    DELTA_CHOICES,
    SYNTH_EXTRA,
)
from anonlab.validation import ParameterError

SYNTHETIC_CAVEAT = (
    "synthetic records, which correspond to no original record; ρ-zCDP "
    "converted to (ε, δ) by Canonne-Kamath-Steinke's bound, for neighbours "
    "that differ in one record replaced (n public)"
)


def require_mbi() -> None:
    """Raise a :class:`~anonlab.validation.ParameterError` unless mbi is installed
    (without importing it)."""
    if importlib.util.find_spec("mbi") is None:
        raise ParameterError(f"methods 'mst' and 'aim' need private-pgm (mbi): {SYNTH_EXTRA}")


@dataclass(frozen=True)
class _Synthetic(Method):
    """What MST and AIM share: encoding, accounting, decoding."""

    epsilon: float
    bins: int = BIN_CHOICES[0]
    delta: float = DEFAULT_DELTA
    axes: ClassVar[tuple[str, ...]] = ("epsilon",)
    randomized: ClassVar[bool] = True
    partition: ClassVar[str | None] = None
    record_aligned: ClassVar[bool] = False  # synthetic records match no original record
    carries_class: ClassVar[bool] = True  # the class is synthesised with the records
    # whole-number attributes get bins of whole numbers and stay whole (Encoding)
    round_integers: ClassVar[bool] = True
    needs_bounds: ClassVar[bool] = True  # numerical attributes are binned over their domains
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {
        "bins": BIN_CHOICES,
        "delta": DELTA_CHOICES,
    }

    def check_dataset(self, dataset: Dataset) -> None:
        require_mbi()
        if dataset.n < 1:
            raise ParameterError(f"method {self.name!r} needs at least one record")
        values = dataset.protected_values
        for j, attr in enumerate(dataset.protected_attributes):
            size = attribute_size(attr, self.bins)
            if attr.categorical and values.shape[0] and values[:, j].max() >= size:
                raise ParameterError(
                    f"method {self.name!r} synthesises the labels of "
                    f"taxonomy {attr.taxonomy.name!r}; column {attr.name!r} "
                    "also holds inner concepts: map them to labels first"
                )

    def claim(self, m: int) -> Guarantee:
        # MST, AIM: ρ-zCDP for ρ = zcdp_rho(ε, δ), the record synthesised as one unit
        return Guarantee(
            APPROX_DP, APPROX_DP, None, self.epsilon, delta=self.delta, caveat=SYNTHETIC_CAVEAT
        )

    def mechanisms(self) -> tuple[Measurement, ...]:
        # MST, AIM: Gaussian measurements of marginals (rng.normal) and exponential
        # selections (ExponentialMechanism's numpy Gumbel-max), both in floating point
        return (GAUSSIAN_NUMPY, EXPONENTIAL_GUMBEL)

    @property
    def rho(self) -> float:
        """The zCDP ρ the mechanism spends (:func:`zcdp_rho` of ε and δ)."""
        return zcdp_rho(self.epsilon, self.delta)

    def synthesize(
        self, codes: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator
    ) -> np.ndarray:
        raise NotImplementedError

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        encoding = Encoding.of(dataset, self.bins)
        synthetic = self.synthesize(encoding.codes, encoding.sizes, rng)
        values, target = encoding.decode(dataset, synthetic, rng)
        return Release(
            dataset,
            postprocess(dataset, values, noisy=self.round_integers, in_place=True),
            target=target,
            record_aligned=False,
        )


@dataclass(frozen=True)
class Mst(_Synthetic):
    """MST synthetic data (McKenna, Miklau & Sheldon 2021), claimed (ε, δ)-DP; none as
    released, its noise being drawn in floating point. Noisy one-way
    marginals, a private maximum spanning tree of attribute pairs and its noisy 2-way
    marginals; Private-PGM fits a graphical model to them, sampled to n records. Options
    ``bins`` (numerical attributes, equal-width over their domains) and ``delta``
    (default 1e-9); see :mod:`anonlab.methods.synthetic` for what differs from the
    published script."""

    name: ClassVar[str] = "mst"
    label: ClassVar[str] = "MST (DP synthetic data)"
    # the model fit (jax) over a tree of m − 1 attribute pairs, whatever n; the records'
    # sampling and decoding are linear and small beside it
    cost: ClassVar[Cost] = Cost("m", seconds=1.2)
    colour: ClassVar[str | None] = "#999933"  # olive
    marker: ClassVar[str | tuple[int, int, float] | None] = "*"  # star

    def synthesize(
        self, codes: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator
    ) -> np.ndarray:
        return run_mst(codes, sizes, self.rho, rng)


@dataclass(frozen=True)
class Aim(_Synthetic):
    """AIM synthetic data (McKenna, Mullins, Sheldon & Vietri 2022), claimed (ε, δ)-DP;
    none as released, its noise being drawn in floating point. One-way
    marginals, then rounds that each measure the marginal of the 2-way workload the model
    estimates worst (exponential mechanism), with budget annealing (AIM §4); Private-PGM
    fits the model, sampled to n records. Options ``bins`` and ``delta`` (default 1e-9)
    as for ``mst``."""

    name: ClassVar[str] = "aim"
    label: ClassVar[str] = "AIM (DP synthetic data)"
    # rounds over the m(m − 1)/2 pairs; a larger ε affords more rounds and larger
    # marginals, each new model structure a jax compilation (how many depends on the data
    # as much as on ε: within a factor of about 7 either way on Census, Adult and synthetic
    # data)
    cost: ClassVar[Cost] = Cost("m^2*(1+epsilon)", seconds=0.01)
    colour: ClassVar[str | None] = "#fb9a99"  # pink
    marker: ClassVar[str | tuple[int, int, float] | None] = "h"  # hexagon

    def synthesize(
        self, codes: np.ndarray, sizes: tuple[int, ...], rng: np.random.Generator
    ) -> np.ndarray:
        return run_aim(codes, sizes, self.rho, rng)
