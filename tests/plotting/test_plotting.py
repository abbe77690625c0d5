"""Figures a reader understands: human names, a legend clear of the curves, reference lines
told apart, one colour per method in every figure."""

from __future__ import annotations

import io
from itertools import product
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.colors import to_hex

from anonlab.datasets.axes import VIEW_AXES
from anonlab.methods import METHODS
from anonlab.methods.individual_ranking import IndividualRankingMethod
from anonlab.metrics import METRICS
from anonlab.plotting import (
    AXIS_NAMES,
    FigureSpec,
    method_name,
    metric_name,
    plot_curves,
    value_label,
)

ROOT = Path(__file__).resolve().parents[2]
COLUMNS = [
    "experiment",
    "dataset",
    "method",
    "m",
    "epsilon",
    "k",
    "rep",
    "seed",
    "cell_id",
    "metric",
    "attribute",
    "value",
]


def result_table(
    methods: dict[str, tuple[str, ...]],
    metric: str = "re",
    ks=(2, 5, 10),
    epsilons=(0.1, 1.0),
    ms=(1, 8),
) -> pd.DataFrame:
    """A result table as the runner stores it: ``methods`` maps a method to its axes."""
    rows = []
    for method, axes in methods.items():
        for m, k, eps in product(
            ms, ks if "k" in axes else [None], epsilons if "epsilon" in axes else [None]
        ):
            value = (1.0 + (k or 50) / 10) * (1 / eps if eps else 1.0) * m
            rows.append(["fixture", "census", method, m, eps, k, 0, 1, 0, metric, None, value])
    table = pd.DataFrame(rows, columns=COLUMNS)
    return table.astype({"m": "Int64", "k": "Int64", "epsilon": "float64"})


def texts(fig) -> list[str]:
    """Every text a reader sees: title, panel titles, axis labels, legend entries."""
    found = [fig._suptitle.get_text()] if fig._suptitle else []
    for ax in fig.axes:
        found += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
    found += [t.get_text() for legend in fig.legends for t in legend.get_texts()]
    return [t for t in found if t]


def line(fig, label: str, ax: int = 0):
    return next(ln for ln in fig.axes[ax].get_lines() if ln.get_label() == label)


def dashes(ln) -> tuple:
    """A line's style as drawn: its dash pattern (``get_linestyle`` calls every custom
    pattern ``--``)."""
    offset, pattern = ln._unscaled_dash_pattern
    return (ln.get_linestyle(), offset, tuple(pattern or ()))


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def test_every_registered_method_metric_and_axis_has_a_human_name():
    labels = [cls.label for cls in METHODS.values()]
    assert all(labels) and len(set(labels)) == len(labels), "give each method its own label"
    assert all(metric.label for metric in METRICS.values()), "give each metric a label"
    axes = {axis for cls in METHODS.values() for axis in cls.axes} | set(VIEW_AXES)
    assert axes <= set(AXIS_NAMES), "declare the grid axis (anonlab.axes.Axis) with its label"
    # a fixed colour per method that declares one, no two alike (one that declares none
    # takes a fallback by its name: tests/plotting/test_visual_grammar.py)
    colours = [to_hex(cls.colour) for cls in METHODS.values() if cls.colour]
    assert len(set(colours)) == len(colours)


def test_names_and_labels():
    assert method_name("tclose_kfirst") == "Alg. 2 (k-anonymity first)"
    assert method_name("onedims") == method_name("ir")  # an alias
    assert method_name("my_method") == "my_method"  # unknown: the raw name
    assert metric_name("jsd") == "Jensen–Shannon divergence (bits)"
    assert metric_name("my_metric") == "my_metric"
    assert value_label("epsilon", 0.1) == "ε = 0.1"
    assert value_label("epsilon", np.float64(10.0)) == "ε = 10"
    assert value_label("m", np.int64(8)) == "m = 8"
    assert value_label("dataset", "census_mcd") == "dataset = census_mcd"
    assert value_label("method", "tclose_merge") == "Alg. 1 (merge)"


def test_configured_figures_have_human_names():
    for path in sorted((ROOT / "conf" / "experiment").glob("*.yaml")):
        figures = yaml.safe_load(path.read_text(encoding="utf-8")).get("figures") or []
        for figure in [] if figures == "auto" else figures:  # auto: derived from the run
            spec = FigureSpec.from_config(figure)
            assert spec.metric in METRICS and spec.x in AXIS_NAMES, (path.name, spec)


def test_figure_texts_are_human_names():
    table = result_table({"laplace": ("epsilon",), "ir": ("k",), "ir_laplace": ("k", "epsilon")})
    fig = plot_curves(table, FigureSpec(name="f", metric="re", facet="m", series="epsilon"))
    seen = texts(fig)
    assert fig._suptitle.get_text() == "Relative error (RE) against k (cluster size)"
    assert [ax.get_title() for ax in fig.axes] == ["m = 1", "m = 8"]
    assert fig.axes[0].get_xlabel() == "k (cluster size)"
    assert fig.axes[0].get_ylabel() == "Relative error (RE), log scale"
    legend = [t.get_text() for t in fig.legends[0].get_texts() if t.get_text()]
    assert legend == [
        "Laplace, ε = 0.1",
        "Laplace, ε = 1",
        "Individual ranking (IR)",
        "IR + Laplace (DP-IR Alg. 1), ε = 0.1",
        "IR + Laplace (DP-IR Alg. 1), ε = 1",
    ]
    for raw in ("method=", "epsilon", "ir_laplace", "laplace,", "RE (log10", "m=1"):
        assert not any(raw in text for text in seen), raw
    # the configured title stays the title
    fig = plot_curves(table, FigureSpec(name="f", metric="re", title="DP-IR Fig. 1"))
    assert fig._suptitle.get_text() == "DP-IR Fig. 1"


def test_method_facets_are_titled_by_human_names():
    rows = [
        ["fixture", "census_mcd", method, 1, None, k, 0, 1, 0, "sse_tcm", None, k * t]
        for method in ("tclose_tfirst", "tclose_merge")
        for k in (2, 3)
        for t in (0.1, 0.2)
    ]
    table = pd.DataFrame(rows, columns=COLUMNS).assign(t=[t for _ in range(4) for t in (0.1, 0.2)])
    fig = plot_curves(
        table, FigureSpec(name="f", metric="sse_tcm", facet="method", series="t", logy=False)
    )
    # registry order, the same in every figure
    assert [ax.get_title() for ax in fig.axes] == ["Alg. 1 (merge)", "Alg. 3 (t-closeness first)"]
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["t = 0.1", "t = 0.2"]
    assert not any("method=" in text or "tclose_" in text for text in texts(fig))


def test_reference_lines_are_told_apart():
    table = result_table(
        {"laplace": ("epsilon",), "dp": ("epsilon",), "ir_laplace": ("k", "epsilon")}, ms=(1,)
    )
    fig = plot_curves(table, FigureSpec(name="f", metric="re"))
    references = [
        line(fig, f"{name}, ε = {eps}")
        for name in ("Laplace", "DP (Laplace)")
        for eps in ("0.1", "1")
    ]
    # every reference line dash-dotted, none solid, in its method's colour and marker; the
    # series value told by the marker's fill and size (ε = 0.1 hollow and small)
    assert len({dashes(ref) for ref in references}) == 1
    assert all(ref.get_linestyle() != "-" for ref in references)
    assert {to_hex(ref.get_color()) for ref in references[:2]} == {METHODS["laplace"].colour}
    assert {to_hex(ref.get_color()) for ref in references[2:]} == {METHODS["dp"].colour}
    assert [ref.get_marker() for ref in references] == [METHODS["laplace"].marker] * 2 + [
        METHODS["dp"].marker
    ] * 2
    small, large = references[:2]
    assert small.get_markersize() < large.get_markersize()
    assert to_hex(small.get_markerfacecolor()) == "#ffffff"
    assert to_hex(large.get_markerfacecolor()) == METHODS["laplace"].colour
    # horizontal, across the x axis
    assert np.ptp(references[0].get_ydata()) == 0
    assert list(references[0].get_xdata()) == [2, 5, 10]
    # and in the legend, under their human names
    legend = {t.get_text() for t in fig.legends[0].get_texts()}
    assert {ref.get_label() for ref in references} <= legend
    # without series values too (iDP: DP and the original data against k)
    table = result_table({"dp": (), "original": (), "idp_ls": ("k",)}, ms=(1,))
    fig = plot_curves(table, FigureSpec(name="f", metric="re", series=None))
    dp, original = line(fig, "DP (Laplace)"), line(fig, "Original data")
    assert dashes(dp) == dashes(original) != dashes(line(fig, "iDP-LS"))
    assert (dp.get_color(), dp.get_marker()) != (original.get_color(), original.get_marker())
    assert line(fig, "iDP-LS").get_linestyle() == "-"


def test_legend_lies_outside_the_axes():
    table = result_table({"laplace": ("epsilon",), "ir": ("k",), "ir_laplace": ("k", "epsilon")})
    for spec in (
        FigureSpec(name="f", metric="re", facet="m"),
        FigureSpec(name="g", metric="re", row="m"),
        FigureSpec(name="h", metric="re"),
    ):
        fig = plot_curves(table, spec)
        fig.canvas.draw()
        assert len(fig.legends) == 1 and all(ax.get_legend() is None for ax in fig.axes)
        box = fig.legends[0].get_window_extent()
        for ax in fig.axes:
            assert not box.overlaps(ax.bbox), spec.name
            assert not box.overlaps(ax.get_tightbbox()), spec.name  # nor the tick labels
        assert fig.bbox.contains(box.x0, box.y0) and fig.bbox.contains(box.x1, box.y1)
        # one entry per line, however many panels
        labels = [t.get_text() for t in fig.legends[0].get_texts() if t.get_text()]
        assert len(labels) == len(set(labels)) == 5


def test_method_colours_are_the_same_in_every_figure(monkeypatch: pytest.MonkeyPatch):
    one = plot_curves(
        result_table({"ir": ("k",), "laplace": ("epsilon",)}),
        FigureSpec(name="a", metric="re", series=None),
    )
    two = plot_curves(
        result_table({"ir": ("k",), "ir_laplace": ("k", "epsilon"), "imdav": ("k",)}, metric="jsd"),
        FigureSpec(name="b", metric="jsd"),
    )
    assert to_hex(line(one, "Individual ranking (IR)").get_color()) == METHODS["ir"].colour
    assert to_hex(line(two, "Individual ranking (IR)").get_color()) == METHODS["ir"].colour
    assert to_hex(line(one, "Laplace").get_color()) == METHODS["laplace"].colour
    # a method registered by a user plots under its own name, in a colour of its own
    mine = type("Mine", (IndividualRankingMethod,), {"name": "mine"})
    monkeypatch.setitem(METHODS, "mine", mine)
    figs = [
        plot_curves(result_table({"mine": ("k",), "ir": ("k",)}), FigureSpec(name="c", metric="re"))
        for _ in range(2)
    ]
    colours = {to_hex(line(fig, "mine").get_color()) for fig in figs}
    assert len(colours) == 1 and colours.isdisjoint({METHODS["ir"].colour})


def test_rendering_is_deterministic():
    table = result_table({"laplace": ("epsilon",), "ir_laplace": ("k", "epsilon")})
    spec = FigureSpec(name="f", metric="re", facet="m")
    drawn = []
    for _ in range(2):
        buffer = io.BytesIO()
        plot_curves(table, spec).savefig(buffer, format="png", dpi=40)
        drawn.append(buffer.getvalue())
    assert drawn[0] == drawn[1]
