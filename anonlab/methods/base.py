"""What every method shares: the call shape and the release it returns."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd

from anonlab.datasets import Dataset


@dataclass(frozen=True)
class Release:
    """A protected data set.

    Attributes
    ----------
    frame : released records, same shape and columns as the original frame; attributes
        that are not protected are copied unchanged.
    labels : ``(n, m)`` cluster label of each record per protected attribute, or ``None``
        for methods that do not cluster.
    scale : Laplace scale used per protected attribute, or ``None`` without noise.
    """

    frame: pd.DataFrame
    labels: np.ndarray | None = None
    scale: np.ndarray | None = None


@dataclass(frozen=True)
class Method(ABC):
    """A registered protection method, called as ``method.protect(dataset, rng)``.

    ``axes`` names the grid parameters the method depends on (besides the data set view
    ``m``), so the runner skips cells that differ only in other parameters and plots draw
    it as a horizontal line against an axis it ignores. ``randomized`` is false for
    deterministic methods, which the runner computes once instead of once per repetition.
    """

    name: ClassVar[str]
    axes: ClassVar[tuple[str, ...]]
    randomized: ClassVar[bool] = True

    @abstractmethod
    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        """Protect ``dataset.protected`` and return the :class:`Release`."""


def release_frame(dataset: Dataset, protected: np.ndarray, noisy: bool) -> pd.DataFrame:
    """Assemble the released frame from the protected ``(n, m)`` matrix.

    Noisy values are clipped to each attribute's domain (DP-IR §4.1: "we bound
    noise-added outputs to the domain ranges") and, for attributes holding whole numbers
    in the source, rounded (DP-IR §4.3 discretises Adult). Both are post-processing and
    cost no privacy. Noise-free releases (centroids) are kept as computed.
    """
    attrs = dataset.protected_attributes
    values = np.array(protected, dtype=float, copy=True)
    if noisy:
        low = np.array([a.domain[0] for a in attrs])
        high = np.array([a.domain[1] for a in attrs])
        integer = np.array([a.integer for a in attrs])
        values[:, integer] = np.round(values[:, integer])
        np.clip(values, low, high, out=values)
    frame = dataset.frame.copy()
    frame[list(dataset.protected)] = values
    return frame
