"""Risk–utility maps: one metric against another, a line per method through its parameter
values (the SDC literature's R–U confidentiality map: Duncan, Keller-McNulty & Stokes 2001).

Each point is a method at one value of ``spec.series`` (ε, k, …): x is the mean over
repetitions of ``spec.x_metric``, y that of ``spec.metric``; a panel per ``spec.facet``
value (a data set). A method that ignores the series axis is one point. Methods whose
release a metric cannot measure (record linkage of synthetic data) are left out of the
panel, not drawn at zero.
"""

from __future__ import annotations

import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from anonlab.methods import method_class  # noqa: E402
from anonlab.plotting.curves import PANEL_HEIGHT, PANEL_WIDTH  # noqa: E402
from anonlab.plotting.names import axis_name, method_name, metric_name, value_label  # noqa: E402
from anonlab.plotting.spec import FigureSpec, curve_means  # noqa: E402
from anonlab.plotting.styles import SERIES_MARKERS, method_color  # noqa: E402
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
    axes = fig.subplots(1, len(facets), squeeze=False)[0]
    series = spec.series
    values = sorted(points[series].dropna().unique()) if series in points else []
    for ax, facet in zip(axes, facets, strict=True):
        panel = points if facet is None else points[points[spec.facet] == facet]
        for method in methods:
            part = panel[panel["method"] == method]
            if part.empty:
                continue
            if series in part and series in method_class(method).axes:
                part = part.groupby(series, sort=True)[["x", "y"]].mean()
                ax.plot(
                    part["x"], part["y"], "-", color=method_color(method), linewidth=1.0, alpha=0.6
                )
                for value, (px, py) in part.iterrows():
                    ax.plot(
                        px,
                        py,
                        SERIES_MARKERS[values.index(value) % len(SERIES_MARKERS)],
                        color=method_color(method),
                        markersize=5,
                    )
            else:
                ax.plot(
                    part["x"].mean(),
                    part["y"].mean(),
                    "*",
                    color=method_color(method),
                    markersize=10,
                )
            ax.plot([], [], "-", color=method_color(method), label=method_name(method))
        if spec.logy:
            ax.set_yscale("log")
        ax.set_xscale("log")
        ax.set_xlabel(metric_name(str(spec.x_metric)) + ", log scale")
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
    fig.legend(
        handles,
        labels,
        loc="outside lower center",
        ncols=min(len(labels), 5),
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
