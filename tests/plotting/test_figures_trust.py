"""Figures a reader can trust: a 95 % t band around every mean over repetitions (none for a
deterministic method), one y range for the panels of a figure, a 0 on a log axis drawn on
its floor and named, a figure saved as it is drawn, the report showing figures at their
natural width and saying how to read TCM's table cells."""

from __future__ import annotations

import io
import re
from itertools import product

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.collections import PolyCollection
from scipy import stats

from anonlab.experiments import tcm
from anonlab.plotting.curves import plot_curves, save_figure, settle_layout
from anonlab.plotting.spec import FigureSpec, curve_bands, t_quantile
from anonlab.plotting.styles import ZERO_LABEL
from anonlab.report.render import STYLE, _figure_html, _table_html, builder_legend, png_size

COLUMNS = ["experiment", "dataset", "method", "m", "epsilon", "k", "rep", "seed", "cell_id"]
COLUMNS += ["metric", "attribute", "value"]


def table_of(values: dict[tuple[str, int | None, int], list[float]]) -> pd.DataFrame:
    """A result table: ``(method, k, m) -> the repetitions' values`` of ``re``."""
    rows = [
        ["fixture", "census", method, m, 1.0, k, rep, rep, 0, "re", None, value]
        for (method, k, m), reps in values.items()
        for rep, value in enumerate(reps)
    ]
    return pd.DataFrame(rows, columns=COLUMNS).astype({"m": "Int64", "k": "Int64"})


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def bands_of(ax) -> list[PolyCollection]:
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def test_band_is_the_t_interval_of_the_mean_and_none_for_a_deterministic_method():
    reps = [1.0, 2.0, 4.0, 5.0]
    table = table_of(
        {
            ("ir_laplace", 2, 1): reps,
            ("ir_laplace", 5, 1): [2.0, 2.0, 2.0, 2.0],
            ("ir", 2, 1): [3.0, 3.0, 3.0],  # deterministic: every repetition the same
            ("ir", 5, 1): [3.0, 3.0, 3.0],
        }
    )
    bands = curve_bands(table, "re").set_index(["method", "k"])
    half = stats.t.ppf(0.975, len(reps) - 1) * np.std(reps, ddof=1) / np.sqrt(len(reps))
    point = bands.loc[("ir_laplace", 2)]
    assert point["value"] == pytest.approx(3.0)
    assert point["value_n"] == 4 and point["value_sd"] == pytest.approx(np.std(reps, ddof=1))
    assert point["value_half"] == pytest.approx(half, rel=1e-12)
    assert (point["value_low"], point["value_high"]) == pytest.approx((3.0 - half, 3.0 + half))
    assert bands.loc[("ir", 2), "value_half"] == 0.0
    # as drawn: one band, of the noisy method, spanning the interval at k = 2
    fig = plot_curves(table, FigureSpec(name="f", metric="re", series=None, logy=False))
    (band,) = bands_of(fig.axes[0])
    vertices = band.get_paths()[0].vertices
    at_2 = vertices[np.isclose(vertices[:, 0], 2.0), 1]
    assert (at_2.min(), at_2.max()) == pytest.approx((3.0 - half, 3.0 + half))
    # one repetition: no interval to draw
    single = curve_bands(table_of({("ir_laplace", 2, 1): [1.0]}), "re")
    assert np.isnan(single["value_half"].iloc[0])


def test_t_quantiles_are_scipys():
    for level in (0.95, 0.99):
        dfs = [*range(1, 40), 99, 250, 1000, 1001, 2.5]
        ours = [t_quantile(df, level) for df in dfs]
        assert ours == pytest.approx(stats.t.ppf(0.5 + level / 2, dfs), rel=1e-12)


def test_a_reference_line_has_a_horizontal_band():
    table = table_of(
        {("laplace", None, 1): [1.0, 2.0, 3.0], ("ir", 2, 1): [1.0], ("ir", 9, 1): [1.0]}
    )
    fig = plot_curves(table, FigureSpec(name="f", metric="re", series=None))
    (band,) = bands_of(fig.axes[0])
    ys = band.get_paths()[0].vertices[:, 1]
    half = stats.t.ppf(0.975, 2) * 1.0 / np.sqrt(3)
    assert set(np.round(ys, 12)) == set(np.round([2.0 - half, 2.0 + half], 12))


def test_a_zero_on_a_log_axis_is_a_marker_on_its_floor():
    table = table_of({("ir", k, 1): [0.0 if k == 5 else k / 10] for k in (2, 5, 9)})
    fig = plot_curves(table, FigureSpec(name="f", metric="re", series=None, logy=True))
    ax = fig.axes[0]
    (zero,) = [ln for ln in ax.get_lines() if ln.get_marker() == "v"]
    assert list(zero.get_xdata()) == [5.0] and zero.get_visible() and not zero.get_clip_on()
    assert zero.get_markerfacecolor() == "none"  # hollow, in the line's colour
    fig.canvas.draw()
    x, y = zero.get_transform().transform((5.0, 0.0))
    assert y == pytest.approx(ax.bbox.y0) and ax.bbox.x0 < x < ax.bbox.x1
    assert ZERO_LABEL in [t.get_text() for t in fig.legends[0].get_texts()]
    # nothing to note on a linear axis
    fig = plot_curves(table, FigureSpec(name="g", metric="re", series=None, logy=False))
    assert not [ln for ln in fig.axes[0].get_lines() if ln.get_marker() == "v"]


def test_panels_share_their_y_range_unless_the_spec_says_otherwise():
    table = table_of({("ir", k, m): [k * m**3] for k, m in product((2, 5), (1, 8))})
    fig = plot_curves(table, FigureSpec(name="f", metric="re", facet="m", series=None))
    assert fig.axes[0].get_ylim() == fig.axes[1].get_ylim()
    fig = plot_curves(
        table, FigureSpec(name="f", metric="re", facet="m", series=None, sharey=False)
    )
    assert fig.axes[0].get_ylim() != fig.axes[1].get_ylim()
    assert FigureSpec.from_config({"name": "g", "metric": "re"}).sharey


def test_a_saved_figure_is_the_figure_as_drawn(tmp_path):
    table = table_of({("ir_laplace", k, 1): [k, k + 1.0] for k in (2, 5, 9)})
    spec = FigureSpec(name="f", metric="re", series=None)
    drawn = io.BytesIO()
    plot_curves(table, spec).savefig(drawn, format="png", dpi=40)  # laid out as it saves
    fig = settle_layout(plot_curves(table, spec), dpi=40)  # laid out once, before
    assert fig.get_layout_engine() is None
    settled = io.BytesIO()
    fig.savefig(settled, format="png", dpi=40)
    assert settled.getvalue() == drawn.getvalue()
    png, pdf = save_figure(plot_curves(table, spec), tmp_path, "f")
    assert png.is_file() and pdf.read_bytes().startswith(b"%PDF")


def test_report_shows_figures_at_their_natural_width(tmp_path):
    table = table_of({("ir", k, 1): [k] for k in (2, 5)})
    png, _ = save_figure(plot_curves(table, FigureSpec(name="f", metric="re")), tmp_path, "f")
    width, height, dpi = png_size(png)
    assert dpi == pytest.approx(150, abs=0.05)
    markup = _figure_html(png)
    # the size matplotlib laid it out at (6 in wide: 576 CSS px), never stretched
    assert f'width="{round(width * 96 / dpi)}"' in markup and 'width="576"' in markup
    stretched = re.compile(r"(?<![-\w])width\s*:\s*100%")  # max-width: 100% is fine
    assert not stretched.search(STYLE) and not stretched.search(markup)
    assert "figure img{max-width:100%;height:auto" in STYLE


def test_tcm_tables_say_which_pair_is_ours(tmp_path):
    rows = [
        ["tclose_sizes", "census_mcd", "tclose_merge", 2, 0.01, metric, None, value]
        for metric, value in (("cluster_min", 7.0), ("cluster_mean", 9.5))
    ]
    table = pd.DataFrame(
        rows, columns=["experiment", "dataset", "method", "k", "t", "metric", "attribute", "value"]
    )
    laid_out = tcm.table1(table)
    # ours first (average to one decimal), the paper's printed cell in parentheses
    assert laid_out.loc[laid_out["k"] == 2, "t=0.01 MCD"].item() == "7/9.5 (1080/1080)"
    legend = builder_legend("anonlab.experiments.tcm:table1")
    assert legend == tcm.CELL_LEGEND and "a/b is ours" in legend and "(c/d)" in legend
    assert builder_legend("experiments.tcm:table2") == legend  # as older runs recorded it
    assert builder_legend("anonlab.experiments.dp_ir:build") is None
    stem = tmp_path / "table1"
    laid_out.to_csv(stem.with_suffix(".csv"), index=False)
    assert "a/b is ours" in _table_html(stem, legend)
