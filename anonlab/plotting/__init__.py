"""Figures and tables drawn from the stored result table alone.

What a figure draws (:mod:`~anonlab.plotting.spec`) and its names and colours load without
matplotlib; the drawing functions (:func:`plot_curves`, :func:`save_figure`) import it on
first use, so building and running an experiment does not pay for it until it draws.
"""

from typing import Any

from anonlab.plotting.names import (
    AXIS_NAMES,
    axis_name,
    method_name,
    metric_name,
    value_label,
)
from anonlab.plotting.spec import ROW_COLUMNS, FigureSpec, curve_means, point_values
from anonlab.plotting.styles import method_color

__all__ = [
    "AXIS_NAMES",
    "FigureSpec",
    "axis_name",
    "curve_means",
    "method_color",
    "method_name",
    "metric_name",
    "plot_curves",
    "point_values",
    "ROW_COLUMNS",
    "save_figure",
    "value_label",
]

_DRAWING = ("plot_curves", "save_figure")  # in anonlab.plotting.curves, with matplotlib


def __getattr__(name: str) -> Any:
    if name in _DRAWING:
        from anonlab.plotting import curves

        return getattr(curves, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
