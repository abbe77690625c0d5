"""Metric-against-parameter line figures in the papers' style (DP-IR Figs. 1–4, DP-UNI Fig. 1).

Methods that do not depend on the x axis (plain Laplace against k) are drawn as horizontal
reference lines, as the papers draw their baselines. Every text a reader sees uses the
human names of :mod:`anonlab.plotting.names`; every line follows the grammar of
:mod:`anonlab.plotting.styles` (a method's colour and marker, its release form's line
style, the series value's marker fill and size), the same in every figure; one legend,
below the panels, lists each line once and the repetitions behind the bands.

What a reader can trust: a line through means over repetitions carries its 95 % Student-t
band (:func:`~anonlab.plotting.spec.curve_bands`; none where every repetition gave the
same value), the panels of a figure share their y range unless its spec says otherwise
(``sharey``), and a mean of 0 (or below) on a log axis is a hollow triangle on the axis
floor, named in the legend, not a point that silently vanishes. A panel whose points rest
on fewer than 3 repetitions says so under its x axis; an x axis spanning a factor of 10
is logarithmic, an integer one has whole-number ticks.
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
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import (  # noqa: E402
    FuncFormatter,
    LogLocator,
    MaxNLocator,
    NullFormatter,
)

from anonlab.io import write_atomic  # noqa: E402
from anonlab.methods import (  # noqa: E402
    FORMS,
    METHODS,
    VARIANT_SEPARATOR,
    grid_axes,
    method_class,
)
from anonlab.metrics import METRICS  # noqa: E402
from anonlab.plotting.names import axis_name, method_name, metric_name, value_label  # noqa: E402
from anonlab.plotting.spec import FigureSpec, curve_bands, pooled_bands  # noqa: E402
from anonlab.plotting.styles import (  # noqa: E402
    BAND_ALPHA,
    CURVE_WIDTH,
    KEY_GREY,
    MIN_REPETITIONS,
    REFERENCE_MARKERS,
    REFERENCE_WIDTH,
    ZERO_LABEL,
    band_label,
    band_visible,
    line_style,
    log_x,
    mark_every,
    method_color,
    method_marker,
    repetitions_note,
    series_marker,
    series_shade,
    zero_marker_style,
)
from anonlab.validation import ParameterError  # noqa: E402

PANEL_WIDTH, PANEL_HEIGHT = 4.2, 3.2  # inches
LEGEND_FONTSIZE = 8
DPI = 150  # of the PNG; the layout is computed at it
#: legend ranks of the note on zeros on a log axis and of the bands' entry: after every
#: method's column
ZERO_RANK = (1 << 30, 0)
BAND_RANK = (1 << 30, 1)
NOTE_COLOR = "#8b0000"  # the note on a panel of too few repetitions


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
    """How every line of one figure is drawn (:mod:`anonlab.plotting.styles`), decided
    once so that panels agree."""

    spec: FigureSpec
    series_values: list[Any]
    by_method: bool  # a panel per method: the lines' lightness tells the series values too

    def rank(self, value: Any) -> tuple[int, int]:
        """``value``'s rank among the series values and their count (0 of 1: none)."""
        if value is None:
            return 0, 1
        return self.series_values.index(value), len(self.series_values)

    def line(self, method: str, value: Any, reference: bool) -> tuple[str, dict[str, Any]]:
        """Legend label and line properties of ``method``'s line for series ``value``:
        the method's colour and marker, its release form's line style, the series
        value's marker fill and size."""
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
        rank, count = self.rank(value)
        color = method_color(method)
        if self.by_method:
            color = series_shade(color, rank, count)
        style: dict[str, Any] = {
            "color": color,
            "linestyle": line_style(method, reference),
            "linewidth": REFERENCE_WIDTH if reference else CURVE_WIDTH,
            "marker": method_marker(method),
            **series_marker(color, rank, count),
            "gid": method,  # the method a line draws, for readers of the figure object
        }
        return label, {**style, **custom}

    def key(self, value: Any) -> Line2D:
        """The legend's key of series ``value`` in a figure of a panel per method, whose
        lines are in every method's hue: grey, as light as the lines of ``value``."""
        rank, count = self.rank(value)
        grey = series_shade(KEY_GREY, rank, count)
        return Line2D(
            [],
            [],
            color=grey,
            linewidth=CURVE_WIDTH,
            marker="o",
            **series_marker(grey, rank, count),
        )


def in_registry_order(methods: Sequence[str]) -> list[str]:
    """``methods`` in the order of :data:`~anonlab.methods.METHODS`, each method's release
    forms (``<method>/<form>``) right after it in the order of
    :data:`~anonlab.release.FORMS`, others after by name, so that every figure lists
    methods alike."""
    order = {name: i for i, name in enumerate(METHODS)}

    def key(name: str) -> tuple[int, int, str]:
        base, _, form = str(name).partition(VARIANT_SEPARATOR)
        return order.get(base, len(order)), FORMS.index(form) if form in FORMS else 0, str(name)

    return sorted(methods, key=key)


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
        return (in_registry_order(values) if column == "method" else sorted(values)) or [None]

    facets, rows = values_of(spec.facet), values_of(spec.row)
    methods = list(spec.methods or in_registry_order(means["method"].unique()))
    look = _Look(spec, values_of(spec.series), "method" in (spec.facet, spec.row))
    width = PANEL_WIDTH * len(facets) + 0.6 if len(facets) > 1 else 6.0
    fig = plt.figure(figsize=(width, PANEL_HEIGHT * len(rows) + 0.6), layout="constrained")
    # shared y: panels compare at a glance (only the first column labels the y ticks)
    axes = fig.subplots(len(rows), len(facets), squeeze=False, sharey=spec.sharey)
    entries: dict[str, tuple[tuple[int, int], Artist]] = {}
    banded: set[int] = set()  # the repetitions behind the points of banded lines
    for r, row in enumerate(rows):
        for c, (ax, facet) in enumerate(zip(axes[r], facets, strict=True)):
            panel = _matching(_matching(means, spec.row, row), spec.facet, facet)
            fewest = _draw_panel(ax, panel, spec, methods, look, entries, banded)
            _x_axis(ax, means[spec.x] if spec.x in means else [], spec.x)
            if fewest is not None and fewest < MIN_REPETITIONS:
                note_repetitions(ax, fewest)
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
    if banded:
        band_key = Patch(facecolor=KEY_GREY, alpha=BAND_ALPHA, linewidth=0)
        entries.setdefault(band_label(banded), (BAND_RANK, band_key))
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
    banded: set[int],
) -> int | None:
    """One panel: a curve per method (and series value), a horizontal reference line for a
    method that does not depend on ``spec.x``; each new legend label goes into
    ``entries`` with its (method, series) rank, and the repetitions behind the points of
    each line drawn with a band into ``banded``. Returns the fewest repetitions behind a
    point whose value depends on them (``None``: none does)."""
    x_values = (
        np.sort(panel[spec.x].dropna().unique().astype(float)) if spec.x in panel else np.empty(0)
    )
    n_series = len(look.series_values)
    fewest: int | None = None
    by_method = dict(tuple(panel.groupby("method", sort=False)))
    for rank, method in enumerate(methods):
        reference = spec.x not in method_class(method).axes
        data = by_method.get(method, panel.iloc[:0])
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
            index = look.rank(value)[0]
            style.setdefault("markevery", mark_every(len(xs), index, n_series, sparse=reference))
            (line,) = ax.plot(xs, ys, label=label, **style)
            repetitions = {int(n) for n in part["value_n"]}
            if band_visible(ys, lows, highs):
                _draw_band(ax, xs, lows, highs, line, spec.logy)
                banded |= repetitions
            if not exact(method, spec.metric):
                fewest = min(repetitions) if fewest is None else min(fewest, *repetitions)
            if spec.logy and (ys <= 0).any():
                _mark_zeros(ax, xs, ys, line.get_color(), reference, index, n_series)
                entries.setdefault(ZERO_LABEL, (ZERO_RANK, _zero_handle()))
            group = 0 if look.by_method and not reference else rank + 1
            keyed = look.by_method and not reference and value is not None
            key = look.key(value) if keyed else line  # a grey key: the value in every hue
            entries.setdefault(label, ((group, index), key))
    if spec.logy:
        ax.set_yscale("log")
    ax.grid(True, which="major", alpha=0.3)
    return fewest


def exact(method: str, metric: str) -> bool:
    """Whether the values of ``metric`` on ``method``'s releases are the same in every
    repetition: a deterministic method (:attr:`~anonlab.methods.base.Method.randomized`
    false) measured by a metric that neither draws at random nor times; one repetition
    of such a point decides as much as many."""
    measure = METRICS.get(metric)
    return not method_class(method).randomized and not (
        getattr(measure, "randomized", False) or getattr(measure, "measured", False)
    )


def note_repetitions(ax: Axes, fewest: int) -> None:
    """Say on panel ``ax`` that its points rest on ``fewest`` repetitions, too few to
    decide anything (:func:`~anonlab.plotting.styles.repetitions_note`): under its x axis
    label, from its left edge, where no line runs."""
    ax.annotate(
        repetitions_note(fewest),
        xy=(0, 0),
        xycoords=("axes fraction", ax.xaxis.label),
        xytext=(0, -2),
        textcoords="offset points",
        ha="left",
        va="top",
        fontsize=7.5,
        color=NOTE_COLOR,
        gid="repetitions-note",
    )


def integer_axis(name: str, values: Any) -> bool:
    """Whether grid axis ``name`` takes whole numbers only: declared ``int``
    (:class:`~anonlab.axes.Axis`), or, undeclared, whole numbers in ``values``."""
    declared = grid_axes().get(name)
    if declared is not None:
        return declared.kind is int
    numbers = pd.to_numeric(pd.Series(values), errors="coerce").dropna().to_numpy(float)
    return bool(len(numbers)) and bool(np.all(numbers == np.round(numbers)))


def log_ticks(axis: Any, values: Any) -> None:
    """Major ticks of the log-scaled ``axis`` (an :class:`~matplotlib.axis.Axis`) through
    ``values``, written plainly (``0.1``, ``20``): at every digit times a power of ten
    within one decade, at 1, 2 and 5 times one up to three decades, at powers of ten
    beyond. Minor ticks keep no label."""
    numbers = np.asarray(values, dtype=float)
    numbers = numbers[np.isfinite(numbers) & (numbers > 0)]
    decades = np.log10(numbers.max() / numbers.min()) if len(numbers) else np.inf
    subs = tuple(range(1, 10)) if decades < 1 else (1, 2, 5) if decades <= 3 else (1,)
    axis.set_major_locator(LogLocator(base=10, subs=subs))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def _x_axis(ax: Axes, values: Any, name: str) -> None:
    """Scale and ticks of ``ax``'s x axis through ``values`` (all of the figure's, so
    that panels agree): a continuous axis (ε, δ, …) logarithmic when they span a factor
    of :data:`~anonlab.plotting.styles.LOG_SPAN` (:func:`log_ticks`); an integer axis (k,
    m, …) linear, as the papers draw it, with whole-number ticks."""
    try:
        numbers = np.asarray(values, dtype=float)
    except (TypeError, ValueError):  # not a numeric axis: matplotlib's own ticks
        return
    integer = integer_axis(name, values)
    if log_x(numbers) and not integer:  # ε, δ, …; k and m stay linear, as the papers draw them
        ax.set_xscale("log")
        log_ticks(ax.xaxis, numbers)
    elif integer:
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))


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
    axis has no place for it): every such point of a curve, at most
    :data:`~anonlab.plotting.styles.REFERENCE_MARKERS` evenly spaced ones of a reference
    line. The y coordinate is the axes' own (0 = the floor, whatever the limits), so
    the markers neither move the limits nor leave the panel."""
    at = np.flatnonzero(ys <= 0)
    if reference:
        step = max(1, -(-len(xs) // REFERENCE_MARKERS))
        at = at[(index * step // max(n_series, 1)) :: step]
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
