"""Figures and tables drawn from the stored result table alone."""

from anonlab.plotting.curves import (
    FigureSpec,
    curve_means,
    plot_curves,
    point_values,
    save_figure,
)
from anonlab.plotting.names import (
    AXIS_NAMES,
    METHOD_NAMES,
    METRIC_NAMES,
    axis_name,
    method_name,
    metric_name,
    value_label,
)
from anonlab.plotting.styles import METHOD_COLORS, method_color

__all__ = [
    "AXIS_NAMES", "METHOD_COLORS", "METHOD_NAMES", "METRIC_NAMES", "FigureSpec", "axis_name",
    "curve_means", "method_color", "method_name", "metric_name", "plot_curves",
    "point_values", "save_figure", "value_label",
]
