"""Risk–utility maps: one metric against another, a line per method through its parameter
values (the SDC literature's R–U confidentiality map: Duncan, Keller-McNulty & Stokes 2001).

Each point is a method at one value of ``spec.series`` (ε, k, …): x is the mean over
repetitions of ``spec.x_metric``, y that of ``spec.metric``; a panel per ``spec.facet``
value (a data set), the panels sharing their y range unless ``spec.sharey`` is false. A
method that ignores the series axis is one point. Methods whose release a metric cannot
measure (record linkage of synthetic data) are left out of the panel, not drawn at zero; a
mean of 0 (or below) on a log axis is a hollow triangle on the axis's edge, named in the
legend.
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from anonlab.methods import method_class  # noqa: E402
from anonlab.plotting.curves import PANEL_HEIGHT, PANEL_WIDTH  # noqa: E402
from anonlab.plotting.names import axis_name, method_name, metric_name, value_label  # noqa: E402
from anonlab.plotting.spec import FigureSpec, curve_means  # noqa: E402
from anonlab.plotting.styles import (  # noqa: E402
    SERIES_MARKERS,
    ZERO_LABEL,
    method_color,
    zero_marker_style,
)
from anonlab.validation import ParameterError  # noqa: E402


def map_points(table: pd.DataFrame, spec: FigureSpec) -> pd.DataFrame:
    """One row per method and parameter values with both metrics' means (``x``, ``y``)."""
    x = curve_means(table, str(spec.x_metric)).rename(columns={"value": "x"})
    y = curve_means(table, spec.metric).rename(columns={"value": "y"})
    keys = [c for c in x.columns if c in y.columns and c not in ("x", "y")]
    points = x.merge(y, on=keys, how="inner")
    if points.empty:
        raise ParameterError(
            f"figure {spec.name!r}: no release has both {spec.x_metric!r} and {spec.metric!r}"
        )
    return points


def plot_map(table: pd.DataFrame, spec: FigureSpec) -> Figure:
    """Draw the map ``spec`` (``x_metric`` set) from the result ``table``."""
    points = map_points(table, spec)
    facets = sorted(points[spec.facet].dropna().unique()) if spec.facet in points else [None]
    methods = [m for m in (spec.methods or points["method"].unique()) if m in set(points["method"])]
    width = PANEL_WIDTH * len(facets) + 0.6 if len(facets) > 1 else 6.0
    fig = plt.figure(figsize=(width, PANEL_HEIGHT + 1.4), layout="constrained")
    axes = fig.subplots(1, len(facets), squeeze=False, sharey=spec.sharey)[0]
    series = spec.series
    values = sorted(points[series].dropna().unique()) if series in points else []
    zeros = False
    for ax, facet in zip(axes, facets, strict=True):
        panel = points if facet is None else points[points[spec.facet] == facet]
        dots: list[tuple[str, float, float, str]] = []  # marker, x, y, colour
        for method in methods:
            part = panel[panel["method"] == method]
            if part.empty:
                continue
            color = method_color(method)
            if series in part and series in method_class(method).axes:
                part = part.groupby(series, sort=True)[["x", "y"]].mean()
                ax.plot(part["x"], part["y"], "-", color=color, linewidth=1.0, alpha=0.6)
                marks = [SERIES_MARKERS[values.index(v) % len(SERIES_MARKERS)] for v in part.index]
                dots += zip(marks, part["x"], part["y"], [color] * len(part), strict=True)
            else:
                ax.plot(part["x"].mean(), part["y"].mean(), "*", color=color, markersize=10)
                dots.append(("*", part["x"].mean(), part["y"].mean(), color))
            ax.plot([], [], "-", color=color, label=method_name(method))
        _draw_markers(ax, [d for d in dots if d[0] != "*"])
        zeros |= _mark_zeros(ax, dots, spec.logy)
        if spec.logy:
            ax.set_yscale("log")
        ax.set_xscale("log")
        ax.set_xlabel(metric_name(str(spec.x_metric)) + ", log scale")
        if ax is axes[0] or not spec.sharey:
            ax.set_ylabel(metric_name(spec.metric) + (", log scale" if spec.logy else ""))
        if facet is not None:
            ax.set_title(value_label(spec.facet, facet), fontsize="medium")
        ax.grid(True, alpha=0.3)
    handles, labels = axes[0].get_legend_handles_labels()
    for i, value in enumerate(values):
        handles.append(
            plt.Line2D(
                [],
                [],
                linestyle="none",
                color="black",
                marker=SERIES_MARKERS[i % len(SERIES_MARKERS)],
            )
        )
        labels.append(value_label(series, value))
    if zeros:
        handles.append(Line2D([], [], **zero_marker_style("0.2")))
        labels.append(ZERO_LABEL)
    # as many columns as the longest label leaves room for (about 18 characters an inch at
    # 8 pt, and a marker), the figure taller by the rows beyond two: every method of the
    # arena's twelve stays inside the figure
    ncols = max(1, min(len(labels), 5, int(width / ((max(map(len, labels)) + 5) / 18.0))))
    fig.set_size_inches(width, PANEL_HEIGHT + 1.4 + 0.16 * max(0, -(-len(labels) // ncols) - 2))
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=ncols,
        frameon=False,
        fontsize=8,
    )
    title = spec.title or (
        f"{metric_name(spec.metric)} against "
        f"{metric_name(str(spec.x_metric))}, a point per "
        f"{axis_name(series) if series else 'method'}"
    )
    fig.suptitle(textwrap.fill(title, width=int(width * 11)), fontsize="medium")
    return fig


def _draw_markers(ax: Axes, dots: list[tuple[str, float, float, str]]) -> None:
    """The points of the series values, one artist per marker (not per point): each in its
    method's colour, over the lines joining them."""
    for marker in dict.fromkeys(d[0] for d in dots):
        mine = [d for d in dots if d[0] == marker]
        colors = [d[3] for d in mine]
        ax.scatter(
            [d[1] for d in mine],
            [d[2] for d in mine],
            s=25,
            marker=marker,
            c=colors,
            edgecolors=colors,
            linewidths=1.0,
            zorder=2.5,
        )


def _mark_zeros(ax: Axes, dots: list[tuple[str, float, float, str]], logy: bool) -> bool:
    """Hollow triangles on the edges of the log axes where a mean is 0 or below (a log
    axis has no place for it): on the floor, pointing down, for y; on the left wall,
    pointing left, for x; in the corner for both. Returns whether there were any."""
    x = np.array([d[1] for d in dots], dtype=float)
    y = np.array([d[2] for d in dots], dtype=float)
    colors = np.array([d[3] for d in dots], dtype=object)
    low_x, low_y = x <= 0, (y <= 0) & logy
    for mask, xs, ys, transform, marker in (
        (low_y & ~low_x, x, np.zeros_like(y), ax.get_xaxis_transform(), "v"),
        (low_x & ~low_y, np.zeros_like(x), y, ax.get_yaxis_transform(), "<"),
        (low_x & low_y, np.zeros_like(x), np.zeros_like(y), ax.transAxes, "v"),
    ):
        for color in dict.fromkeys(colors[mask]):  # one artist per colour
            mine = mask & (colors == color)
            style = {**zero_marker_style(color), "marker": marker}
            ax.plot(xs[mine], ys[mine], transform=transform, **style)
    return bool((low_x | low_y).any())
