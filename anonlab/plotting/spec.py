"""What a figure draws, read from the stored result table: the :class:`FigureSpec` of an
experiment's ``figures:`` entry and the means over repetitions it plots. No matplotlib:
building and checking an experiment does not import it (drawing does,
:mod:`anonlab.plotting.curves`, :mod:`anonlab.plotting.maps`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from anonlab.guarantee import COLUMNS as GUARANTEE_COLUMNS
from anonlab.validation import ParameterError


@dataclass(frozen=True)
class FigureSpec:
    """One figure: ``metric`` against ``x``, a panel per ``facet`` value (and a row of panels
    per ``row`` value), a marker per ``series`` value. ``facet``, ``row`` or ``series`` may be
    ``"attribute"``: the per-attribute (or per-class, for ``f_measure``) rows of the metric.

    ``title`` replaces the default one (metric against x); ``styles`` maps a method to line
    properties overriding its defaults (``label`` among them: its legend name).
    ``x_metric`` makes it a risk–utility map instead (:mod:`anonlab.plotting.maps`):
    ``metric`` against ``x_metric``, a line per method through its ``series`` values."""

    name: str
    metric: str
    x: str = "k"
    facet: str | None = None
    row: str | None = None
    series: str | None = "epsilon"
    methods: Sequence[str] | None = None
    logy: bool = True
    title: str = ""
    styles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    x_metric: str | None = None

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> FigureSpec:
        """The spec of one ``figures:`` entry of an experiment config; an unknown key raises
        a :class:`~anonlab.validation.ParameterError`."""
        known = set(cls.__dataclass_fields__)
        unknown = set(config) - known
        if unknown:
            raise ParameterError(f"figure {config.get('name')!r}: unknown key(s) {sorted(unknown)}")
        return cls(**dict(config))


def point_values(
    table: pd.DataFrame, metric: str, by_attribute: bool = False
) -> pd.core.groupby.SeriesGroupBy:
    """The repetitions' values of the data-set-level ``metric`` (or of its per-attribute,
    per-class rows if ``by_attribute``), grouped by method and parameters: one group per
    point of a curve."""
    rows = table[(table["metric"] == metric) & (table["attribute"].notna() == by_attribute)]
    dropped = (
        "rep",
        "seed",
        "cell_id",
        "metric",
        "value",
        *GUARANTEE_COLUMNS,
        *(() if by_attribute else ("attribute",)),
    )
    params = [c for c in rows.columns if c not in dropped]
    return rows.groupby(params, dropna=False, sort=True)["value"]


def curve_means(table: pd.DataFrame, metric: str, by_attribute: bool = False) -> pd.DataFrame:
    """Mean over repetitions of the data-set-level ``metric`` per method and parameters,
    or of its per-attribute (per-class) rows if ``by_attribute``."""
    return point_values(table, metric, by_attribute).mean().reset_index()
