"""Human names for what figures show: methods, metrics and grid axes.

A method's and a metric's display name is declared with it (``label``); a grid axis's
label and symbol with the axis (:class:`~anonlab.axes.Axis`: shared, of the data view,
or a method's own). A name without one falls back to the registry name, so a method
registered by a user still plots.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from numbers import Integral, Real
from typing import Any

from anonlab.methods import grid_axes, method_class, split_variant
from anonlab.metrics import METRICS
from anonlab.validation import ParameterError


class AxisTexts(Mapping[str, str]):
    """One text declared by every grid axis (:func:`~anonlab.methods.grid_axes`), by
    axis name: a live view, so an axis registered later is in it."""

    def __init__(self, field: str) -> None:
        self.field = field

    def __getitem__(self, name: str) -> str:
        return getattr(grid_axes()[name], self.field)

    def __contains__(self, name: object) -> bool:
        return name in grid_axes()

    def __iter__(self) -> Iterator[str]:
        return iter(grid_axes())

    def __len__(self) -> int:
        return len(grid_axes())


#: axis label of every grid axis (``"k (cluster size)"``), as its axis declares it
AXIS_NAMES: Mapping[str, str] = AxisTexts("label")
#: short symbol of every grid axis in panel titles, legend entries and claims
#: (``ε = 0.1``), as its axis declares it
AXIS_SYMBOLS: Mapping[str, str] = AxisTexts("symbol")


def method_name(name: str) -> str:
    """Display name of method ``name`` (or of an alias of it); ``name`` if it has none.

    Parameters
    ----------
    name : str
        Registry name, e.g. ``"tclose_kfirst"``.

    Returns
    -------
    str
        E.g. ``"Alg. 2 (k-anonymity first)"``.
    """
    base, form = split_variant(name)
    if form is not None:
        return f"{method_name(base)}, {form.replace('_', ' ')}"
    try:
        return method_class(name).label or str(name)
    except ParameterError:  # not registered: the raw name
        return str(name)


def metric_name(name: str) -> str:
    """Display name, with unit, of metric ``name``; ``name`` if it has none."""
    metric = METRICS.get(name)
    return (metric.label if metric is not None else "") or str(name)


def axis_name(name: str) -> str:
    """Axis label of grid axis ``name`` (e.g. ``"k (cluster size)"``); ``name`` if it is
    no declared axis."""
    return AXIS_NAMES.get(name, str(name))


def format_value(value: Any) -> str:
    """``value`` as a figure shows it: floats in ``%g`` form, the rest as ``str``."""
    if isinstance(value, Integral) or not isinstance(value, Real):
        return str(value)
    return f"{float(value):g}"


def value_label(axis: str, value: Any) -> str:
    """Label of one value of a facet, row or series axis.

    Parameters
    ----------
    axis : str
        The column the value comes from: a grid axis, ``"dataset"``, ``"method"``,
        ``"attribute"`` or ``"class"``.
    value : Any
        The value.

    Returns
    -------
    str
        ``"ε = 0.1"``, ``"m = 8"``, ``"dataset = census_mcd"``; a method's display name
        for ``axis == "method"``.
    """
    if axis == "method":
        return method_name(value)
    return f"{AXIS_SYMBOLS.get(axis, axis)} = {format_value(value)}"
