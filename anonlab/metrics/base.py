"""Metrics defined per protected attribute and averaged over attributes, as the papers do."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.datasets import Attribute, Dataset
from anonlab.methods.base import Release
from anonlab.validation import check_options

PerAttribute = Callable[..., np.ndarray]  # (original, released, attributes, **options)


class _Options:
    """What metrics share: ``option_choices`` (option → allowed values, the first the
    default; config ``options.<name>.<option>``) and the chosen ``options``."""

    name: str
    option_choices: Mapping[str, tuple[Any, ...]]
    options: Mapping[str, Any]

    def with_options(self, **options: Any) -> Any:
        """A copy of the metric with ``options`` set (the others unchanged); an unknown
        option or value raises a :class:`~anonlab.validation.ParameterError` naming
        ``options.<name>.<option>``."""
        chosen = check_options(self.name, options, self.option_choices)
        return replace(self, options={**self.options, **chosen})  # type: ignore[type-var]


@dataclass(frozen=True)
class AttributeMetric(_Options):
    """A metric computed column by column on the protected attributes.

    ``per_attribute(original, released, attributes, **options)`` takes ``(n, m)``
    matrices and returns ``m`` values; the metric of the data set is their mean (DP-IR
    §4.2: "we averaged the divergence of all the attributes"; DP-UNI §5: SSE "normalized
    by m"). Called as ``metric(original, released, dataset) -> float``.
    """

    name: str
    per_attribute: PerAttribute
    description: str = ""
    option_choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, hash=False)
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)
    randomized = False  # per-attribute metrics are deterministic (see ReleaseMetric)

    def values(self, original: np.ndarray, released: np.ndarray,
               attributes: Sequence[Attribute]) -> np.ndarray:
        """The metric of each attribute under the chosen options."""
        return self.per_attribute(original, released, attributes, **self.options)

    def evaluate(self, original: np.ndarray, released: np.ndarray,
                 attributes: Sequence[Attribute]) -> float:
        """The metric of ``(n, m)`` original and released matrices of ``attributes``."""
        return float(np.mean(self.values(original, released, attributes)))

    def of_release(self, view: Dataset, release: Release,
                   rng: np.random.Generator | None = None) -> float:
        """The metric of a :class:`~anonlab.methods.Release` of ``view`` (``rng`` is unused:
        per-attribute metrics are deterministic)."""
        return self.evaluate(view.protected_values, release.values, view.protected_attributes)

    def by_attribute(
        self, original: pd.DataFrame, released: pd.DataFrame, dataset: Dataset
    ) -> dict[str, float]:
        """The metric of each protected attribute."""
        values = self.values(*_matrices(original, released, dataset),
                             dataset.protected_attributes)
        return {name: float(v) for name, v in zip(dataset.protected, values, strict=True)}

    def __call__(self, original: pd.DataFrame, released: pd.DataFrame, dataset: Dataset) -> float:
        return self.evaluate(*_matrices(original, released, dataset), dataset.protected_attributes)


def _matrices(original: pd.DataFrame, released: pd.DataFrame,
              dataset: Dataset) -> tuple[np.ndarray, np.ndarray]:
    cols = list(dataset.protected)
    return original[cols].to_numpy(dtype=float), released[cols].to_numpy(dtype=float)


def domain_arrays(attributes: Sequence[Attribute]) -> tuple[np.ndarray, np.ndarray]:
    """Lower bounds and widths of the attributes' domains."""
    low = np.array([a.domain[0] for a in attributes], dtype=float)
    width = np.array([a.width for a in attributes], dtype=float)
    return low, width


def semantic_distances(original: np.ndarray, released: np.ndarray,
                       attribute: Attribute) -> np.ndarray:
    """δ(original, released) per record of a categorical column (DP-IR Eq. 3)."""
    return attribute.taxonomy.distances[original.astype(np.int64), released.astype(np.int64)]


@dataclass(frozen=True)
class ReleaseMetric(_Options):
    """A metric of the release as a whole (cluster sizes, EMD, run time, …):
    ``fn(view, release, **options) -> float``, or ``fn(view, release, rng, **options)``
    if ``randomized``.

    ``fn`` may return ``{part: value}`` instead of a float (the F-measure of each class);
    the runner stores one row per part, with the part in the ``attribute`` column.
    """

    name: str
    fn: Callable[..., float | Mapping[str, float]]
    description: str = ""
    randomized: bool = False
    option_choices: Mapping[str, tuple[Any, ...]] = field(default_factory=dict, hash=False)
    options: Mapping[str, Any] = field(default_factory=dict, hash=False)

    def of_release(self, view: Dataset, release: Release,
                   rng: np.random.Generator | None = None) -> float | dict[str, float]:
        """The metric of ``release``; a randomized metric draws from ``rng``."""
        if self.randomized:
            if rng is None:
                raise TypeError(f"metric {self.name!r} is randomized: pass an rng")
            value = self.fn(view, release, rng, **self.options)
        else:
            value = self.fn(view, release, **self.options)
        if isinstance(value, Mapping):
            return {str(part): float(v) for part, v in value.items()}
        return float(value)
