"""Risk–utility maps: one metric against another, a line per method through its parameter
values (the SDC literature's R–U confidentiality map: Duncan, Keller-McNulty & Stokes 2001).

Each point is a method at one value of ``spec.series`` (ε, k, …): x is the mean over
repetitions of ``spec.x_metric``, y that of ``spec.metric``; a panel per ``spec.facet``
value (a data set), the panels sharing their y range unless ``spec.sharey`` is false. A
method that ignores the series axis is one point, larger. Methods whose release a metric
cannot measure (record linkage of synthetic data) are left out of the panel, not drawn at
zero; a mean of 0 (or below) on a log axis is a hollow triangle on the axis's edge, named
in the legend. The grammar is the curves' (:mod:`anonlab.plotting.styles`): a method's
colour and marker, its release form's line style through its points, the series value's
marker fill and size; a panel whose points rest on too few repetitions says so.
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
from anonlab.plotting.curves import (  # noqa: E402
    PANEL_HEIGHT,
    PANEL_WIDTH,
    exact,
    in_registry_order,
    log_ticks,
    note_repetitions,
)
from anonlab.plotting.names import axis_name, method_name, metric_name, value_label  # noqa: E402
from anonlab.plotting.spec import FigureSpec, point_values  # noqa: E402
from anonlab.plotting.styles import (  # noqa: E402
    KEY_GREY,
    MARKER_EDGE,
    MARKER_SIZE,
    MIN_REPETITIONS,
    SERIES_SIZES,
    WALL_MARKER,
    ZERO_LABEL,
    ZERO_MARKER,
    line_style,
    method_color,
    method_marker,
    series_marker,
    zero_marker_style,
)
from anonlab.validation import ParameterError  # noqa: E402

#: marker size (points) of a method that ignores the series axis: one point, larger
SINGLE_SIZE = SERIES_SIZES[1] + 1.5


def map_points(table: pd.DataFrame, spec: FigureSpec) -> pd.DataFrame:
    """One row per method and parameter values with both metrics' means (``x``, ``y``)
    and the fewer of their numbers of repetitions (``n``)."""

    def means(metric: str, column: str) -> pd.DataFrame:
        stats = point_values(table, metric).agg(["mean", "count"]).reset_index()
        return stats.rename(columns={"mean": column, "count": f"{column}_n"})

    x, y = means(str(spec.x_metric), "x"), means(spec.metric, "y")
    keys = [c for c in x.columns if c in y.columns and c not in ("x", "y", "x_n", "y_n")]
    points = x.merge(y, on=keys, how="inner")
    if points.empty:
        raise ParameterError(
            f"figure {spec.name!r}: no release has both {spec.x_metric!r} and {spec.metric!r}"
        )
    points["n"] = np.minimum(points.pop("x_n"), points.pop("y_n")).astype(int)
    return points


def plot_map(table: pd.DataFrame, spec: FigureSpec) -> Figure:
    """Draw the map ``spec`` (``x_metric`` set) from the result ``table``."""
    points = map_points(table, spec)
    facets = sorted(points[spec.facet].dropna().unique()) if spec.facet in points else [None]
    present = set(points["method"])
    methods = [m for m in spec.methods or in_registry_order(list(present)) if m in present]
    width = PANEL_WIDTH * len(facets) + 0.6 if len(facets) > 1 else 6.0
    fig = plt.figure(figsize=(width, PANEL_HEIGHT + 1.4), layout="constrained")
    axes = fig.subplots(1, len(facets), squeeze=False, sharey=spec.sharey)[0]
    series = spec.series
    values = sorted(points[series].dropna().unique()) if series in points else []
    zeros = False
    drawn: list[str] = []  # the methods drawn in some panel, in order
    for ax, facet in zip(axes, facets, strict=True):
        panel = points if facet is None else points[points[spec.facet] == facet]
        dots: list[tuple[float, float, str]] = []  # x, y, colour
        fewest: int | None = None
        for method in methods:
            part = panel[panel["method"] == method]
            if part.empty:
                continue
            drawn += [] if method in drawn else [method]
            if not exact(method, spec.metric) or not exact(method, str(spec.x_metric)):
                least = int(part["n"].min())
                fewest = least if fewest is None else min(fewest, least)
            color, marker = method_color(method), method_marker(method)
            if series in part and series in method_class(method).axes:
                part = part.groupby(series, sort=True)[["x", "y"]].mean()
                ax.plot(
                    part["x"],
                    part["y"],
                    linestyle=line_style(method),
                    color=color,
                    linewidth=1.0,
                    alpha=0.6,
                    gid=method,
                )
                looks = [series_marker(color, values.index(v), len(values)) for v in part.index]
                sizes = [look["markersize"] ** 2 for look in looks]
                faces = [look["markerfacecolor"] for look in looks]
            else:
                part = part[["x", "y"]].mean().to_frame().T
                sizes, faces = [SINGLE_SIZE**2], [color]
            ax.scatter(
                part["x"],
                part["y"],
                s=sizes,
                marker=marker,
                facecolors=faces,
                edgecolors=color,
                linewidths=MARKER_EDGE,
                zorder=2.5,
                gid=method,
            )
            dots += zip(part["x"], part["y"], [color] * len(part), strict=True)
        zeros |= _mark_zeros(ax, dots, spec.logy)
        if fewest is not None and fewest < MIN_REPETITIONS:
            note_repetitions(ax, fewest)
        if spec.logy:
            ax.set_yscale("log")
        ax.set_xscale("log")
        log_ticks(ax.xaxis, points["x"])
        ax.set_xlabel(metric_name(str(spec.x_metric)) + ", log scale")
        if ax is axes[0] or not spec.sharey:
            ax.set_ylabel(metric_name(spec.metric) + (", log scale" if spec.logy else ""))
        if facet is not None:
            ax.set_title(value_label(spec.facet, facet), fontsize="medium")
        ax.grid(True, alpha=0.3)
    handles: list[Line2D] = [
        Line2D(
            [],
            [],
            color=method_color(method),
            linestyle=line_style(method),
            linewidth=1.0,
            marker=method_marker(method),
            markersize=MARKER_SIZE,
            markerfacecolor=method_color(method),
            markeredgecolor=method_color(method),
        )
        for method in drawn
    ]
    labels = [method_name(method) for method in drawn]
    for i, value in enumerate(values):
        look = series_marker(KEY_GREY, i, len(values))
        handles.append(Line2D([], [], linestyle="none", color=KEY_GREY, marker="o", **look))
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


def _mark_zeros(ax: Axes, dots: list[tuple[float, float, str]], logy: bool) -> bool:
    """Hollow triangles on the edges of the log axes where a mean is 0 or below (a log
    axis has no place for it): on the floor, pointing down, for y; on the left wall,
    pointing left, for x; in the corner for both. Returns whether there were any."""
    x = np.array([d[0] for d in dots], dtype=float)
    y = np.array([d[1] for d in dots], dtype=float)
    colors = np.array([d[2] for d in dots], dtype=object)
    low_x, low_y = x <= 0, (y <= 0) & logy
    for mask, xs, ys, transform, marker in (
        (low_y & ~low_x, x, np.zeros_like(y), ax.get_xaxis_transform(), ZERO_MARKER),
        (low_x & ~low_y, np.zeros_like(x), y, ax.get_yaxis_transform(), WALL_MARKER),
        (low_x & low_y, np.zeros_like(x), np.zeros_like(y), ax.transAxes, ZERO_MARKER),
    ):
        for color in dict.fromkeys(colors[mask]):  # one artist per colour
            mine = mask & (colors == color)
            style = {**zero_marker_style(color), "marker": marker}
            ax.plot(xs[mine], ys[mine], transform=transform, **style)
    return bool((low_x | low_y).any())
