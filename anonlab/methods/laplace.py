"""Plain Laplace noise addition, the DP baseline of DP-IR §3.3 and DP-UNI §5."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import DP, Guarantee
from anonlab.mechanisms import LaplaceMechanism, attribute_budget, record_sensitivity
from anonlab.mechanisms.measurements import EXPONENTIAL, LAPLACE, Measurement
from anonlab.methods.base import FORMS, Method, Release, codes_of, postprocess, split_kinds
from anonlab.methods.categorical import private_record_codes
from anonlab.semantics import value_change_sensitivity


@dataclass(frozen=True)
class Laplace(Method):
    """Independent Laplace noise on every value, scale m·Δ(A_i)/ε (DP-IR §3.3); each
    categorical value drawn by the exponential mechanism on δ with budget ε/m."""

    epsilon: float
    name: ClassVar[str] = "laplace"
    label: ClassVar[str] = "Laplace"
    colour: ClassVar[str | None] = "#777777"  # grey
    marker: ClassVar[str | tuple[int, int, float] | None] = "o"  # circle
    axes: ClassVar[tuple[str, ...]] = ("epsilon",)
    cost: ClassVar[Cost] = Cost("n*m", seconds=4e-8)  # one draw per value
    forms: ClassVar[tuple[str, ...]] = FORMS  # independent noise per value: any layout
    draws_laplace: ClassVar[bool] = True
    # DP-IR §4.3 releases whole numbers for whole-number attributes; iDP §4.1 only clips
    round_integers: ClassVar[bool] = True

    def attribute_epsilon(self, m: int) -> float:
        """Budget of each of the ``m`` protected attributes."""
        return attribute_budget(self.epsilon, m)  # DP-IR §3.3 item 1: ε/m each

    def claim(self, m: int) -> Guarantee:
        return Guarantee(DP, DP, self.epsilon / m, self.epsilon)  # DP-IR §3.3: ε/m each

    def mechanisms(self) -> tuple[Measurement, ...]:
        return (LAPLACE[self.sampler],)  # numerical attributes: Laplace noise

    def categorical_mechanisms(self) -> tuple[Measurement, ...]:
        return (EXPONENTIAL[self.sampler],)  # DP-IR §3.4: the exponential mechanism

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        attrs = dataset.protected_attributes
        values = dataset.protected_values
        numeric, categorical = split_kinds(dataset)
        budget = self.attribute_epsilon(len(attrs))
        noisy = np.array(values, copy=True)
        scale = np.full(len(attrs), np.nan)
        if numeric:
            widths = np.array([attrs[j].width for j in numeric])
            # DP-IR §3.3 item 1: sensitivity Δ(A_i), budget ε/m → scale m·Δ(A_i)/ε
            mechanism = LaplaceMechanism(record_sensitivity(widths), budget, self.sampler)
            noisy[:, numeric] = mechanism.randomise(values[:, numeric], rng)
            scale[numeric] = mechanism.scale
        for j in categorical:
            taxonomy = attrs[j].taxonomy
            # DP-IR §3.4: exponential mechanism on −δ(x, c), Δ = max |δ(a, c) − δ(b, c)|
            noisy[:, j] = private_record_codes(
                taxonomy,
                codes_of(values, j),
                budget,
                value_change_sensitivity(taxonomy),
                rng,
                sampler=self.sampler,
            )
        return Release(dataset, postprocess(dataset, noisy, noisy=self.round_integers), scale=scale)
