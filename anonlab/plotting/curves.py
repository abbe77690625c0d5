"""Metric-against-parameter line figures in the papers' style (DP-IR Figs. 1–4, DP-UNI Fig. 1).

Methods that do not depend on the x axis (plain Laplace against k) are drawn as horizontal
lines, as the papers draw their baselines.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402

from anonlab.io import write_atomic  # noqa: E402
from anonlab.methods import method_class  # noqa: E402
from anonlab.validation import ParameterError  # noqa: E402

# Papers' conventions: the proposal in black, baselines in gray; one dash pattern per ε.
METHOD_STYLES: dict[str, dict[str, Any]] = {
    "tclose_merge": {"color": "tab:red", "linewidth": 1.4, "label": "Algorithm 1 (merge)"},
    "tclose_kfirst": {"color": "tab:blue", "linewidth": 1.4,
                      "label": "Algorithm 2 (k-anonymity first)"},
    "tclose_tfirst": {"color": "tab:green", "linewidth": 1.4,
                      "label": "Algorithm 3 (t-closeness first)"},
    "tclose_tfirst_merged": {"color": "tab:olive", "linewidth": 1.0, "linestyle": "--",
                             "label": "Algorithm 3 + merging"},
    "laplace": {"color": "0.55", "linewidth": 1.2, "label": "Laplace"},
    "dp": {"color": "0.45", "linewidth": 1.4, "label": "DP"},
    "dp_um": {"color": "tab:orange", "linewidth": 1.4, "label": "DP-UM"},
    "idp_ls": {"color": "tab:blue", "linewidth": 1.4, "label": "iDP-LS"},
    "idp_cbls": {"color": "tab:green", "linewidth": 1.4, "label": "iDP-CBLS"},
    "original": {"color": "black", "linewidth": 1.0, "linestyle": ":",
                 "label": "original training data"},
    "ir": {"color": "black", "linewidth": 2.2, "linestyle": "-", "label": "IR"},
    "ir_laplace": {"color": "black", "linewidth": 1.2, "label": "IR + Laplace"},
    "mdav": {"color": "0.35", "linewidth": 2.2, "linestyle": "-", "label": "MDAV"},
    "imdav": {"color": "0.55", "linewidth": 2.2, "linestyle": "-", "label": "IMDAV"},
    "imdav_laplace": {"color": "0.55", "linewidth": 1.2, "label": "IMDAV + Laplace [17]"},
    "imdav_laplace_composed": {"color": "0.75", "linewidth": 1.2,
                               "label": "IMDAV + Laplace, ε/m"},
}
SERIES_DASHES = ("--", "-.", ":", (0, (5, 1, 1, 1, 1, 1)), (0, (8, 2)))


@dataclass(frozen=True)
class FigureSpec:
    """One figure: ``metric`` against ``x``, a panel per ``facet`` value (and a row of panels
    per ``row`` value), a dash per ``series``. ``facet``, ``row`` or ``series`` may be
    ``"attribute"``: the per-attribute (or per-class, for ``f_measure``) rows of the metric."""

    name: str
    metric: str
    x: str = "k"
    facet: str | None = None
    row: str | None = None
    series: str | None = "epsilon"
    methods: Sequence[str] | None = None
    logy: bool = True
    title: str = ""
    styles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> FigureSpec:
        known = set(cls.__dataclass_fields__)
        unknown = set(config) - known
        if unknown:
            raise ParameterError(f"figure {config.get('name')!r}: unknown key(s) {sorted(unknown)}")
        return cls(**dict(config))


def point_values(table: pd.DataFrame, metric: str, by_attribute: bool = False
                 ) -> pd.core.groupby.SeriesGroupBy:
    """The repetitions' values of the data-set-level ``metric`` (or of its per-attribute,
    per-class rows if ``by_attribute``), grouped by method and parameters: one group per
    point of a curve."""
    rows = table[(table["metric"] == metric) & (table["attribute"].notna() == by_attribute)]
    dropped = ("rep", "seed", "cell_id", "metric", "value",
               *(() if by_attribute else ("attribute",)))
    params = [c for c in rows.columns if c not in dropped]
    return rows.groupby(params, dropna=False, sort=True)["value"]


def curve_means(table: pd.DataFrame, metric: str, by_attribute: bool = False) -> pd.DataFrame:
    """Mean over repetitions of the data-set-level ``metric`` per method and parameters,
    or of its per-attribute (per-class) rows if ``by_attribute``."""
    return point_values(table, metric, by_attribute).mean().reset_index()


def _label(name: str, value: Any) -> str:
    if name == "attribute":
        return str(value)
    symbol = {"epsilon": "ε", "k": "k", "m": "m", "alpha": "α", "t": "t"}.get(name, name)
    return f"{symbol}={value:g}" if isinstance(value, float) else f"{symbol}={value}"


def _matching(frame: pd.DataFrame, column: str | None, value: Any) -> pd.DataFrame:
    """Rows with ``column == value``, and those of methods that do not depend on it."""
    if column is None or value is None:
        return frame
    return frame[(frame[column] == value) | frame[column].isna()]


def plot_curves(table: pd.DataFrame, spec: FigureSpec) -> Figure:
    """Draw ``spec`` from the result ``table`` (mean over repetitions)."""
    by_attribute = "attribute" in (spec.facet, spec.row, spec.series)
    means = curve_means(table, spec.metric, by_attribute)
    if means.empty:
        raise ParameterError(f"figure {spec.name!r}: no rows for metric {spec.metric!r}")

    def values_of(column: str | None) -> list[Any]:
        if not column or column not in means:
            return [None]
        return sorted(means[column].dropna().unique()) or [None]

    facets, rows = values_of(spec.facet), values_of(spec.row)
    series_values = values_of(spec.series)
    dashes = {v: SERIES_DASHES[i % len(SERIES_DASHES)] for i, v in enumerate(series_values)}
    # one panel per method, or more series than dash patterns (e.g. one line per t):
    # solid lines along a colormap
    by_method = spec.facet == "method"
    shades = (dict(zip(series_values, plt.cm.viridis(np.linspace(0, 0.9, len(series_values))),
                       strict=True))
              if (by_method or len(series_values) > len(SERIES_DASHES))
              and series_values != [None] else {})
    methods = list(spec.methods or means["method"].unique())
    fig, axes = plt.subplots(len(rows), len(facets),
                             figsize=(4.2 * len(facets) + 1.6, 3.3 * len(rows) + 0.3),
                             squeeze=False, sharey=False)
    for r, row in enumerate(rows):
        for ax, facet in zip(axes[r], facets, strict=True):
            panel = _matching(_matching(means, spec.row, row), spec.facet, facet)
            _draw_panel(ax, panel, spec, methods, series_values, dashes, shades)
            title = ", ".join(_label(name, value) for name, value in
                              ((spec.row, row), (spec.facet, facet)) if value is not None)
            if title:
                ax.set_title(title)
            if by_method:
                ax.legend(fontsize=6, loc="best")
    if not by_method:
        axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0),
                           frameon=False)
    if spec.title:
        fig.suptitle(textwrap.fill(spec.title, width=50 * len(facets)), fontsize="medium")
    fig.tight_layout()
    return fig


def _draw_panel(ax: Any, panel: pd.DataFrame, spec: FigureSpec, methods: Sequence[str],
                series_values: list[Any], dashes: Mapping[Any, Any],
                shades: Mapping[Any, Any]) -> None:
    """One panel: a curve per method (and series value), a horizontal line for a method
    that does not depend on ``spec.x``."""
    x_values = panel[spec.x].dropna() if spec.x in panel else pd.Series(dtype=float)
    for method in methods:
        axes_of = method_class(method).axes
        style = {**METHOD_STYLES.get(method, {}), **spec.styles.get(method, {})}
        label = style.pop("label", method)
        data = panel[panel["method"] == method]
        by_series = (series_values != [None] and spec.series in data
                     and data[spec.series].notna().any())
        for value in series_values if by_series else [None]:
            part = data if value is None else data[data[spec.series] == value]
            if part.empty:
                continue
            line = dict(style)
            if value in shades:
                line.update(color=shades[value], linestyle="-")
            elif value is not None:
                line.setdefault("linestyle", dashes[value])
            name = label if value is None else f"{label}, {_label(spec.series, value)}"
            if spec.x in axes_of:
                part = part.groupby(spec.x, sort=True)["value"].mean()
                ax.plot(part.index, part.to_numpy(), label=name, **line)
            elif len(x_values):
                ax.hlines(part["value"].mean(), x_values.min(), x_values.max(), label=name,
                          **line)
    if spec.logy:
        ax.set_yscale("log")
    ax.set_xlabel(spec.x)
    ax.set_ylabel(spec.metric.upper() + (" (log10 scale)" if spec.logy else ""))
    ax.grid(True, which="major", alpha=0.3)


def save_figure(fig: Figure, directory: Path, name: str) -> list[Path]:
    """Save ``fig`` as ``name.png`` and ``name.pdf`` in ``directory``, atomically."""
    paths = []
    for fmt in ("png", "pdf"):
        target = directory / f"{name}.{fmt}"
        write_atomic(target, lambda tmp, fmt=fmt: fig.savefig(tmp, format=fmt, dpi=150))
        paths.append(target)
    plt.close(fig)
    return paths
