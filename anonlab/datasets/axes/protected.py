"""The protected attributes ``m`` (DP-IR §4.2: m ∈ {1, 8, 13})."""

from __future__ import annotations

from anonlab.axes import Axis
from anonlab.datasets.base import Dataset


def attributes(dataset: Dataset) -> int:
    """The number of attributes of ``dataset``: the largest m it takes."""
    return len(dataset.attributes)


def protect_first(dataset: Dataset, m: int) -> Dataset:
    """``dataset`` protecting its first ``m`` attributes."""
    return dataset.protect_first(m)


M = Axis(
    "m",
    int,
    low=1,
    label="m (protected attributes)",
    test_value=2,
    bad_values=(0, -1),
    limit=attributes,
    limit_unit="attributes",
    view=protect_first,
)
