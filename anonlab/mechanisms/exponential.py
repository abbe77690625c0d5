"""The exponential mechanism (McSherry & Talwar; DP-IR §3.4, Eq. 6)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from anonlab.validation import ParameterError, check_epsilon


@dataclass(frozen=True)
class ExponentialMechanism:
    """Select candidate c with probability ∝ exp(ε·q(c) / (2·Δq)) (DP-IR §3.4).

    ``quality`` rows are independent selections (one per cluster); ``-inf`` excludes a
    candidate.
    """

    epsilon: float
    sensitivity: float

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        if not np.isfinite(self.sensitivity) or self.sensitivity <= 0:
            raise ParameterError(f"sensitivity must be finite and > 0, got {self.sensitivity!r}")

    def log_weights(self, quality: np.ndarray) -> np.ndarray:
        """ε·q / (2Δq) (DP-IR Eq. 6), unnormalised log-probabilities."""
        return self.epsilon * np.asarray(quality, dtype=float) / (2.0 * self.sensitivity)

    def probabilities(self, quality: np.ndarray) -> np.ndarray:
        """Selection probabilities, each row summing to 1."""
        logits = self.log_weights(quality)
        logits = logits - logits.max(axis=-1, keepdims=True)
        weights = np.exp(logits)
        return weights / weights.sum(axis=-1, keepdims=True)

    def select(self, quality: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """One index per row of ``quality`` (Gumbel-max: exact sampling of the softmax)."""
        logits = self.log_weights(np.atleast_2d(quality))
        return np.argmax(logits + rng.gumbel(size=logits.shape), axis=-1)
