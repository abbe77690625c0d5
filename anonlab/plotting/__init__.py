"""Figures and tables drawn from the stored result table alone."""

from anonlab.plotting.curves import (
    FigureSpec,
    curve_means,
    plot_curves,
    point_values,
    save_figure,
)

__all__ = ["FigureSpec", "curve_means", "plot_curves", "point_values", "save_figure"]
