"""The Laplace mechanism (DP-IR §2.2)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.validation import ParameterError, check_epsilon


@dataclass(frozen=True)
class LaplaceMechanism:
    """Laplace noise of scale ``sensitivity / epsilon`` (DP-IR §2.2).

    ``sensitivity`` and ``epsilon`` may be arrays (one per attribute, broadcast over the
    last axis of the values).
    """

    sensitivity: float | np.ndarray
    epsilon: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        sensitivity = np.asarray(self.sensitivity, dtype=float)
        if not np.all(np.isfinite(sensitivity)) or np.any(sensitivity < 0):
            raise ParameterError(f"sensitivity must be finite and >= 0, got {self.sensitivity!r}")

    @property
    def scale(self) -> float | np.ndarray:
        """b = Δ(f)/ε (DP-IR §2.2)."""
        return np.asarray(self.sensitivity, dtype=float) / self.epsilon

    @property
    def variance(self) -> float | np.ndarray:
        """Var = 2b²."""
        return 2.0 * np.asarray(self.scale) ** 2

    def noise(self, shape: tuple[int, ...], rng: np.random.Generator) -> np.ndarray:
        """Independent draws of zero-mean Laplace noise of this scale."""
        return rng.laplace(0.0, 1.0, size=shape) * self.scale

    def randomise(self, values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``values`` plus one independent draw per entry."""
        values = np.asarray(values, dtype=float)
        return values + self.noise(values.shape, rng)
