"""The domain factor ``alpha``: every domain set by the rule [0, α·max] (iDP §4.1:
α ∈ {1.5, 3.0})."""

from __future__ import annotations

import math

from anonlab.axes import Axis
from anonlab.datasets.base import Dataset


def with_alpha(dataset: Dataset, alpha: float) -> Dataset:
    """``dataset`` with each rule-based domain [0, α·max]; declared domains are kept."""
    return dataset.with_alpha(alpha)


ALPHA = Axis(
    "alpha",
    float,
    low=1,
    high=math.inf,
    closed="left",
    symbol="α",
    why="so that [0, alpha*max] holds the data",
    test_value=3.0,
    bad_values=(0.5, -1.0, math.inf, math.nan),
    view=with_alpha,
)
