"""Metric-against-parameter line figures in the papers' style (DP-IR Figs. 1–4, DP-UNI Fig. 1).

Methods that do not depend on the x axis (plain Laplace against k) are drawn as horizontal
reference lines, as the papers draw their baselines. Every text a reader sees uses the
human names of :mod:`anonlab.plotting.names`; every method keeps its colour of
:mod:`anonlab.plotting.styles` in every figure; one legend, below the panels, lists each
line once.

What a reader can trust: a line through means over repetitions carries its 95 % Student-t
band (:func:`~anonlab.plotting.spec.curve_bands`; none where every repetition gave the
same value), the panels of a figure share their y range unless its spec says otherwise
(``sharey``), and a mean of 0 (or below) on a log axis is a hollow triangle on the axis
floor, named in the legend, not a point that silently vanishes.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import groupby
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.artist import Artist  # noqa: E402
from matplotlib.axes import Axes  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.layout_engine import ConstrainedLayoutEngine  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

from anonlab.io import write_atomic  # noqa: E402
from anonlab.methods import METHODS, method_class  # noqa: E402
from anonlab.plotting.names import axis_name, method_name, metric_name, value_label  # noqa: E402
from anonlab.plotting.spec import FigureSpec, curve_bands, pooled_bands  # noqa: E402
from anonlab.plotting.styles import (  # noqa: E402
    BAND_ALPHA,
    CURVE_STYLES,
    CURVE_WIDTH,
    REFERENCE_STYLES,
    REFERENCE_WIDTH,
    SERIES_MARKERS,
    ZERO_LABEL,
    band_visible,
    mark_every,
    method_color,
    zero_marker_style,
)
from anonlab.validation import ParameterError  # noqa: E402

PANEL_WIDTH, PANEL_HEIGHT = 4.2, 3.2  # inches
LEGEND_FONTSIZE = 8
DPI = 150  # of the PNG; the layout is computed at it
#: legend rank of the note on zeros on a log axis: after every method's column
ZERO_RANK = (1 << 30, 0)


def _matching(frame: pd.DataFrame, column: str | None, value: Any) -> pd.DataFrame:
    """Rows with ``column == value``, and those of methods that do not depend on it."""
    if column is None or value is None:
        return frame
    return frame[(frame[column] == value) | frame[column].isna()]


def _axis_of(column: str, spec: FigureSpec) -> str:
    """The name a facet, row or series column goes by: ``attribute`` rows of
    ``f_measure`` are classes."""
    return "class" if column == "attribute" and spec.metric == "f_measure" else column


@dataclass(frozen=True)
class _Look:
    """How every line of one figure is drawn, decided once so that panels agree."""

    spec: FigureSpec
    series_values: list[Any]
    by_method: bool  # a panel per method: colours tell the series values
    shades: Mapping[Any, Any]  # series value -> colour, if colours tell series values
    curve_styles: Mapping[str, Any]  # method -> line style of its curves
    reference_styles: Mapping[tuple[str, Any], Any]  # (method, value) -> reference style

    @classmethod
    def build(
        cls, means: pd.DataFrame, spec: FigureSpec, methods: Sequence[str], series_values: list[Any]
    ) -> _Look:
        has_series = series_values != [None]
        by_method = "method" in (spec.facet, spec.row)
        shaded = has_series and (by_method or len(series_values) > len(SERIES_MARKERS))
        shades = (
            dict(
                zip(
                    series_values,
                    plt.cm.viridis(np.linspace(0, 0.9, len(series_values))),
                    strict=True,
                )
            )
            if shaded
            else {}
        )
        curves = [m for m in methods if spec.x in method_class(m).axes]
        curve_styles = {
            m: CURVE_STYLES[i % len(CURVE_STYLES)] if shaded and not by_method else "-"
            for i, m in enumerate(curves)
        }
        references = []
        for method in methods:
            if method in curves:
                continue
            values = (
                means.loc[means["method"] == method, spec.series].dropna()
                if has_series and spec.series in means
                else pd.Series(dtype=object)
            )
            references += [(method, v) for v in sorted(values.unique())] or [(method, None)]
        reference_styles = {
            key: REFERENCE_STYLES[i % len(REFERENCE_STYLES)] for i, key in enumerate(references)
        }
        return cls(spec, series_values, by_method, shades, curve_styles, reference_styles)

    def line(self, method: str, value: Any, reference: bool) -> tuple[str, dict[str, Any]]:
        """Legend label and line properties of ``method``'s line for series ``value``."""
        custom = dict(self.spec.styles.get(method, {}))
        name = custom.pop("label", method_name(method))
        series = (
            None if value is None else value_label(_axis_of(self.spec.series, self.spec), value)
        )
        if series is None:
            label = name
        elif self.by_method and not reference:  # the panel title names the method
            label = series
        else:
            label = f"{name}, {series}"
        style: dict[str, Any] = {
            "color": self.shades.get(value, method_color(method)),
            "linestyle": (
                self.reference_styles.get((method, value), "--")
                if reference
                else self.curve_styles.get(method, "-")
            ),
            "linewidth": REFERENCE_WIDTH if reference else CURVE_WIDTH,
        }
        if value is not None and not self.shades:
            style.update(marker=SERIES_MARKERS[self.series_values.index(value)], markersize=4.5)
            if reference:  # open markers: a reference line, not a curve through points
                style.update(markerfacecolor="white", markersize=5)
        return label, {**style, **custom}


def _in_registry_order(methods: Sequence[str]) -> list[str]:
    """``methods`` in the order of :data:`~anonlab.methods.METHODS`, others after by name,
    so that every figure lists methods alike."""
    order = {name: i for i, name in enumerate(METHODS)}
    return sorted(methods, key=lambda name: (order.get(name, len(order)), str(name)))


def plot_curves(table: pd.DataFrame, spec: FigureSpec) -> Figure:
    """Draw ``spec`` from the result ``table``: means over repetitions, each with its 95 %
    t band where repetitions differ.

    Parameters
    ----------
    table : pandas.DataFrame
        The stored result table (one row per cell, repetition and metric).
    spec : FigureSpec
        What to draw.

    Returns
    -------
    matplotlib.figure.Figure
        A panel per facet (and row) value, sharing the y range unless ``spec.sharey`` is
        false, human names on axes, titles and legend, one legend below the panels.
    """
    by_attribute = "attribute" in (spec.facet, spec.row, spec.series)
    means = curve_bands(table, spec.metric, by_attribute)
    if means.empty:
        raise ParameterError(f"figure {spec.name!r}: no rows for metric {spec.metric!r}")
    if spec.logy and not (means["value"] > 0).any():  # a log axis of zeros shows nothing
        spec = replace(spec, logy=False)

    def values_of(column: str | None) -> list[Any]:
        if not column or column not in means:
            return [None]
        values = means[column].dropna().unique()
        return (_in_registry_order(values) if column == "method" else sorted(values)) or [None]

    facets, rows = values_of(spec.facet), values_of(spec.row)
    methods = list(spec.methods or _in_registry_order(means["method"].unique()))
    look = _Look.build(means, spec, methods, values_of(spec.series))
    width = PANEL_WIDTH * len(facets) + 0.6 if len(facets) > 1 else 6.0
    fig = plt.figure(figsize=(width, PANEL_HEIGHT * len(rows) + 0.6), layout="constrained")
    # shared y: panels compare at a glance (only the first column labels the y ticks)
    axes = fig.subplots(len(rows), len(facets), squeeze=False, sharey=spec.sharey)
    entries: dict[str, tuple[tuple[int, int], Artist]] = {}
    for r, row in enumerate(rows):
        for c, (ax, facet) in enumerate(zip(axes[r], facets, strict=True)):
            panel = _matching(_matching(means, spec.row, row), spec.facet, facet)
            _draw_panel(ax, panel, spec, methods, look, entries)
            title = ", ".join(
                value_label(_axis_of(name, spec), value)
                for name, value in ((spec.row, row), (spec.facet, facet))
                if value is not None
            )
            if title:
                ax.set_title(title, fontsize="medium")
            if r == len(rows) - 1:
                ax.set_xlabel(axis_name(spec.x))
            if c == 0:
                ax.set_ylabel(metric_name(spec.metric) + (", log scale" if spec.logy else ""))
    legend_rows = _figure_legend(fig, entries, width)
    fig.set_size_inches(width, PANEL_HEIGHT * len(rows) + 0.6 + 0.19 * legend_rows)
    title = spec.title or f"{metric_name(spec.metric)} against {axis_name(spec.x)}"
    fig.suptitle(textwrap.fill(title, width=int(width * 11)), fontsize="medium")
    return fig


def _draw_panel(
    ax: Axes,
    panel: pd.DataFrame,
    spec: FigureSpec,
    methods: Sequence[str],
    look: _Look,
    entries: dict[str, tuple[tuple[int, int], Artist]],
) -> None:
    """One panel: a curve per method (and series value), a horizontal reference line for a
    method that does not depend on ``spec.x``; each new legend label goes into
    ``entries`` with its (method, series) rank."""
    x_values = (
        np.sort(panel[spec.x].dropna().unique().astype(float)) if spec.x in panel else np.empty(0)
    )
    n_series = len(look.series_values)
    for rank, method in enumerate(methods):
        reference = spec.x not in method_class(method).axes
        data = panel[panel["method"] == method]
        by_series = (
            look.series_values != [None] and spec.series in data and data[spec.series].notna().any()
        )
        for value in look.series_values if by_series else [None]:
            part = data if value is None else data[data[spec.series] == value]
            if part.empty or (reference and not len(x_values)):
                continue
            label, style = look.line(method, value, reference)
            if reference:  # one value across the x axis: a horizontal line and band
                point = pooled_bands(part)
                xs = x_values
                ys, lows, highs = (np.full(len(xs), point[c].iloc[0]) for c in BAND_COLUMNS)
            else:
                curve = pooled_bands(part, spec.x)
                xs = curve[spec.x].to_numpy(dtype=float)
                ys, lows, highs = (curve[c].to_numpy(dtype=float) for c in BAND_COLUMNS)
            index = 0 if value is None else look.series_values.index(value)
            if "marker" in style:
                style.setdefault(
                    "markevery", mark_every(len(xs), index, n_series, sparse=reference)
                )
            (line,) = ax.plot(xs, ys, label=label, **style)
            if band_visible(ys, lows, highs):
                _draw_band(ax, xs, lows, highs, line, spec.logy)
            if spec.logy and (ys <= 0).any():
                _mark_zeros(ax, xs, ys, line.get_color(), reference, index, n_series)
                entries.setdefault(ZERO_LABEL, (ZERO_RANK, _zero_handle()))
            group = 0 if look.by_method and not reference else rank + 1
            entries.setdefault(label, ((group, index), line))
    if spec.logy:
        ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)


BAND_COLUMNS = ("value", "value_low", "value_high")


def _draw_band(
    ax: Axes, xs: np.ndarray, lows: np.ndarray, highs: np.ndarray, line: Line2D, logy: bool
) -> None:
    """The band ``lows``–``highs`` behind ``line``, in its colour, light: one polygon per
    run of points that have an interval (a point of one repetition has none). The y range
    takes in the whole band on a linear axis, only its top on a log axis, where a lower
    edge near or below 0 would stretch the axis over decades: it runs to the floor."""
    ok = np.isfinite(lows) & np.isfinite(highs)
    starts = np.flatnonzero(ok & ~np.concatenate([[False], ok[:-1]]))
    stops = np.flatnonzero(ok & ~np.concatenate([ok[1:], [False]])) + 1
    polygons = [
        np.concatenate(
            [np.column_stack([xs[a:b], highs[a:b]]), np.column_stack([xs[a:b], lows[a:b]])[::-1]]
        )
        for a, b in zip(starts, stops, strict=True)
    ]
    band = PolyCollection(
        polygons,
        facecolors=line.get_color(),
        alpha=BAND_ALPHA,
        linewidths=0,
        zorder=line.get_zorder() - 0.5,
        label="_nolegend_",
    )
    ax.add_collection(band, autolim=False)
    edges = [highs[ok]] if logy else [highs[ok], lows[ok]]
    ax.update_datalim(np.column_stack([np.tile(xs[ok], len(edges)), np.concatenate(edges)]))


def _mark_zeros(
    ax: Axes,
    xs: np.ndarray,
    ys: np.ndarray,
    color: Any,
    reference: bool,
    index: int,
    n_series: int,
) -> None:
    """Hollow triangles on the floor of the log y axis where a mean is 0 or below (a log
    axis has no place for it): every such point of a curve, a reference line's marker
    positions. The y coordinate is the axes' own (0 = the floor, whatever the limits), so
    the markers neither move the limits nor leave the panel."""
    at = np.flatnonzero(ys <= 0)
    if reference:
        start, step = mark_every(len(xs), index, n_series, sparse=True) or (0, 1)
        at = at[start::step]
    ax.plot(
        xs[at],
        np.zeros(len(at)),
        transform=ax.get_xaxis_transform(),
        label="_nolegend_",
        **zero_marker_style(color),
    )


def _zero_handle() -> Line2D:
    """The legend's key for the zeros on a log axis."""
    return Line2D([], [], **zero_marker_style("0.2"))


def _figure_legend(
    fig: Figure, entries: Mapping[str, tuple[tuple[int, int], Artist]], width: float
) -> int:
    """One legend below the panels listing each label once, a column per method when they
    fit the figure's ``width`` (inches); returns its number of rows."""
    if not entries:
        return 0
    ordered = sorted(entries.items(), key=lambda item: item[1][0])
    columns = [
        [(label, artist) for label, (_, artist) in group]
        for _, group in groupby(ordered, key=lambda item: item[1][0][0])
    ]

    def column_width(labels: Sequence[str]) -> float:  # inches, at LEGEND_FONTSIZE
        return 0.7 + 0.055 * max(len(label) for label in labels)

    tallest = max(len(column) for column in columns)
    if (
        1 < len(columns) <= 6
        and tallest <= 6
        and sum(column_width([lb for lb, _ in col]) for col in columns) <= width
    ):
        blank = Line2D([], [], linestyle="none")
        padded = [col + [("", blank)] * (tallest - len(col)) for col in columns]
        items, ncols = [item for col in padded for item in col], len(columns)
    else:
        items = [item for col in columns for item in col]
        ncols = max(1, min(len(items), int(width // column_width([lb for lb, _ in items]))))
    fig.legend(
        [artist for _, artist in items],
        [label for label, _ in items],
        loc="outside lower center",
        ncols=ncols,
        frameon=False,
        fontsize=LEGEND_FONTSIZE,
    )
    return -(-len(items) // ncols)


def settle_layout(fig: Figure, dpi: float = DPI) -> Figure:
    """Lay ``fig`` out once, at ``dpi``, and fix it: its constrained layout is computed
    now and the engine removed, so that saving it as PNG and PDF draws it once per format
    instead of laying it out (and drawing it without rendering) before each save. What is
    drawn is what a save with the engine draws: the layout is the one the PNG's draw at
    ``dpi`` would compute."""
    engine = fig.get_layout_engine()
    if isinstance(engine, ConstrainedLayoutEngine):
        fig.set_dpi(dpi)
        engine.execute(fig)
        fig.set_layout_engine(None)
    return fig


def save_figure(fig: Figure, directory: Path, name: str) -> list[Path]:
    """Save ``fig`` as ``name.png`` and ``name.pdf`` in ``directory``, atomically; the
    same figure gives the same bytes. Its layout is computed once
    (:func:`settle_layout`), then each format is drawn once."""
    settle_layout(fig)
    paths = []
    for fmt in ("png", "pdf"):
        target = directory / f"{name}.{fmt}"
        # no creation date in a PDF, so the same results give the same bytes
        metadata = {"CreationDate": None} if fmt == "pdf" else None
        write_atomic(
            target,
            lambda tmp, fmt=fmt, metadata=metadata: fig.savefig(
                tmp, format=fmt, dpi=DPI, metadata=metadata
            ),
        )
        paths.append(target)
    plt.close(fig)
    return paths
