"""Human names for what figures show: methods, metrics and grid axes.

A method's and a metric's display name is declared with it (``label``); a grid axis a
method adds is named by the method (``axis_labels``). A name without one falls back to
the registry name, so a method registered by a user still plots.
"""

from __future__ import annotations

from numbers import Integral, Real
from typing import Any

from anonlab.methods import METHODS, method_class, split_variant
from anonlab.metrics import METRICS
from anonlab.validation import ParameterError

AXIS_NAMES: dict[str, str] = {
    "k": "k (cluster size)",
    "epsilon": "ε",
    "t": "t",
    "m": "m (protected attributes)",
    "alpha": "α",
}
"""Axis label of every grid axis the methods share (a method names its own in
``axis_labels``)."""

AXIS_SYMBOLS: dict[str, str] = {"epsilon": "ε", "alpha": "α"}
"""Short symbol of a grid axis in panel titles and legend entries (``ε = 0.1``)."""


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
    """Axis label of grid axis ``name`` (e.g. ``"k (cluster size)"``); ``name`` if none."""
    if name in AXIS_NAMES:
        return AXIS_NAMES[name]
    declared = (cls.axis_labels.get(name) for cls in METHODS.values())
    return next((label for label in declared if label), str(name))


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
