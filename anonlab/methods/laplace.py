"""Plain Laplace noise addition, the DP baseline of DP-IR §3.3 and DP-UNI §5."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonlab.datasets import Dataset
from anonlab.mechanisms import LaplaceMechanism, attribute_budget, record_sensitivity
from anonlab.methods.base import Method, Release, postprocess
from anonlab.validation import check_epsilon


@dataclass(frozen=True)
class Laplace(Method):
    """Independent Laplace noise on every value, scale m·Δ(A_i)/ε (DP-IR §3.3)."""

    epsilon: float
    name: ClassVar[str] = "laplace"
    axes: ClassVar[tuple[str, ...]] = ("epsilon",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        attrs = dataset.protected_attributes
        widths = np.array([a.width for a in attrs])
        # DP-IR §3.3 item 1: budget ε/m per attribute, sensitivity Δ(A_i) → scale m·Δ(A_i)/ε
        mechanism = LaplaceMechanism(
            record_sensitivity(widths), attribute_budget(self.epsilon, len(attrs))
        )
        noisy = mechanism.randomise(dataset.protected_values, rng)
        return Release(dataset, postprocess(dataset, noisy, noisy=True), scale=mechanism.scale)
