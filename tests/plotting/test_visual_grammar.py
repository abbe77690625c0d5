"""Every figure reads at a glance (the grammar of :mod:`anonlab.plotting.styles`): each
method its own hue, far from every other method's, and its own marker on every line; a
release form in its method's hue, told apart by line style; a log x axis where the values
span a factor of 10; whole-number ticks on an integer axis; the repetitions behind the
bands said, and a panel of fewer than 3 repetitions noted.

Checked on the figures a quick run of every experiment draws (``profile=quick``: its
grid, repetitions, methods and data sets), from a result table built like the runner's,
without running the methods, and on one panel holding every registered method. Figures
that differ in nothing the grammar reads (the same methods, axes, facets, repetitions and
kinds of metric, another metric's name) draw alike: one of each is drawn."""

from __future__ import annotations

import functools
import itertools
from pathlib import Path
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
import yaml
from matplotlib.collections import PathCollection, PolyCollection
from matplotlib.colors import to_hex

from anonlab.datasets.axes import VIEW_AXES
from anonlab.methods import METHODS, grid_axes, method_class, split_variant
from anonlab.plotting import FigureSpec
from anonlab.plotting.curves import exact, plot_curves
from anonlab.plotting.maps import plot_map
from anonlab.plotting.styles import (
    FALLBACK_COLORS,
    FALLBACK_MARKERS,
    MIN_DELTA_E,
    MIN_REPETITIONS,
    WALL_MARKER,
    ZERO_MARKER,
    band_label,
    delta_e,
    free_colours,
    free_markers,
    log_x,
    mark_every,
    method_color,
    method_marker,
    repetitions_note,
)

ROOT = Path(__file__).resolve().parents[2]
ATTRIBUTES = ("a", "b")  # the per-attribute (per-class) rows of a metric that has them


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


def _datasets(config: dict[str, Any]) -> list[str]:
    """The data sets an experiment config names (``/dataset@datasets.<name>``), else one."""
    names = [
        key.split("@datasets.", 1)[1]
        for entry in config.get("defaults") or []
        if isinstance(entry, dict)
        for key in entry
        if "@datasets." in key
    ]
    return names or ["data"]


def _values(values: Any) -> list[Any]:
    """A grid axis's values; an interpolation the quick profile leaves (none does) as two."""
    return list(values) if isinstance(values, list) else [2, 10]


def results(config: dict[str, Any], metrics: set[str], by_attribute: bool) -> pd.DataFrame:
    """The result table a quick run of ``config`` stores for ``metrics``: a row per data
    set, method, cell of the method's axes, repetition (one for a point every repetition
    gives alike, as the runner computes it) and metric, with positive noisy values."""
    quick = (config.get("profiles") or {}).get("quick") or {}
    grid = {**(config.get("grid") or {}), **(quick.get("grid") or {})}
    reps = int(quick.get("reps", config.get("reps", 1)))
    by_method = config.get("grid_by_method") or {}
    rng = np.random.default_rng(0)
    rows = []
    for dataset, (rank, method) in itertools.product(
        _datasets(config), enumerate(config["methods"])
    ):
        own = {**grid, **by_method.get(method, {})}
        taken = set(method_class(method).axes) | set(VIEW_AXES)
        axes = [a for a in own if a in taken]
        for cell in itertools.product(*(_values(own[a]) for a in axes)):
            params = dict(zip(axes, cell, strict=True))
            level = (1 + rank) * (1 + sum(float(v) for v in cell))
            for metric in sorted(metrics):
                n = 1 if exact(method, metric) else reps
                for rep, attribute in itertools.product(
                    range(n), ATTRIBUTES if by_attribute else [None]
                ):
                    value = level * (1 + 0.1 * rng.standard_normal() * (n > 1))
                    rows.append(
                        {"dataset": dataset, "method": method, **params, "rep": rep}
                        | {"metric": metric, "attribute": attribute, "value": value}
                    )
    return pd.DataFrame(rows)


def quick_figures() -> list[tuple[str, FigureSpec, pd.DataFrame, int]]:
    """The figures a quick run draws, one of each kind: ``(id, spec, its result table,
    repetitions)``, the id naming the first and counting the others drawn alike."""
    kinds: dict[tuple, list[Any]] = {}
    for path in sorted((ROOT / "conf" / "experiment").glob("*.yaml")):
        config = yaml.safe_load(path.read_text(encoding="utf-8"))
        figures = config.get("figures") or []
        if figures == "auto" or not config.get("methods"):
            continue
        quick = (config.get("profiles") or {}).get("quick") or {}
        reps = int(quick.get("reps", config.get("reps", 1)))
        for figure in figures:
            spec = FigureSpec.from_config(figure)
            metrics = [spec.metric, *([spec.x_metric] if spec.x_metric else [])]
            alike = (
                tuple(config["methods"]),
                *(spec.x, spec.facet, spec.row, spec.series, spec.x_metric is None, reps),
                tuple(exact(m, metric) for m in config["methods"] for metric in metrics),
            )
            kinds.setdefault(alike, [config, spec, reps, []])[3].append(f"{path.stem}:{spec.name}")
    found = []
    for config, spec, reps, names in kinds.values():
        metrics = {spec.metric, *([spec.x_metric] if spec.x_metric else [])}
        by_attribute = "attribute" in (spec.facet, spec.row, spec.series)
        table = results(config, metrics, by_attribute)
        others = f" (+{len(names) - 1} alike)" if len(names) > 1 else ""
        found.append((names[0] + others, spec, table, reps))
    return found


def every_method() -> tuple[str, FigureSpec, pd.DataFrame, int]:
    """One panel of every registered method, and each one's shuffled columns where it
    offers them, against ε."""
    methods = list(METHODS)
    methods += [f"{m}/shuffled_columns" for m in METHODS if "shuffled_columns" in METHODS[m].forms]
    config = {"methods": methods, "grid": {"epsilon": [0.1, 1.0, 10.0], "k": [5]}, "reps": 3}
    spec = FigureSpec(name="every_method", metric="re", x="epsilon", series=None)
    return "every_method", spec, results(config, {"re"}, False), 3


FIGURES = [*quick_figures(), every_method()]


FIGURE = {name.split(" (")[0]: (spec, table) for name, spec, table, _ in FIGURES}


@functools.cache
def _drawn(name: str):
    """Figure ``name`` (the first of its kind), drawn once."""
    spec, table = FIGURE[name]
    return plot_curves(table, spec) if spec.x_metric is None else plot_map(table, spec)


def _method_artists(ax) -> dict[str, list[Any]]:
    """The artists of each method a panel draws (lines and marked points), by name."""
    found: dict[str, list[Any]] = {}
    for artist in [*ax.get_lines(), *ax.collections]:
        if artist.get_gid():
            found.setdefault(artist.get_gid(), []).append(artist)
    return found


def _colour(artist) -> str:
    if isinstance(artist, PathCollection):
        return to_hex(artist.get_edgecolor()[0])
    return to_hex(artist.get_color())


def _dashes(line) -> tuple:
    offset, pattern = line._unscaled_dash_pattern
    return (offset, tuple(pattern or ()))


def _whole(ticks: np.ndarray) -> bool:
    return bool(np.allclose(ticks, np.round(ticks)))


def test_every_registered_method_has_a_hue_far_from_every_other_and_a_marker_of_its_own():
    # a method that declares no colour takes a fallback, far from every declared one
    colours = {name: cls.colour for name, cls in METHODS.items() if cls.colour}
    for (one, a), (other, b) in itertools.combinations(colours.items(), 2):
        assert delta_e(a, b) >= MIN_DELTA_E, (
            f"{one} {a} and {other} {b}: delta E {delta_e(a, b):.1f} < {MIN_DELTA_E}; "
            f"anonlab.plotting.styles.free_colours() lists colours far from all: "
            f"{free_colours(3)}"
        )
    for free in free_colours():
        taken = [*colours.values(), *FALLBACK_COLORS]
        assert min(delta_e(free, c) for c in taken) >= MIN_DELTA_E
    assert free_colours(), "no colour is left for a new method"
    markers = [cls.marker for cls in METHODS.values() if cls.marker is not None]
    assert len(set(markers)) == len(markers), "no two methods share a marker"
    assert not set(markers) & set(FALLBACK_MARKERS)
    assert not set(markers) & {ZERO_MARKER, WALL_MARKER}, "a mean of 0 draws these"
    free = free_markers()
    assert free and not set(free) & {*markers, *FALLBACK_MARKERS, ZERO_MARKER, WALL_MARKER}
    # a user's method: a colour far from every declared one and a marker, fixed by name
    for fallback in FALLBACK_COLORS:
        assert min(delta_e(fallback, c) for c in colours.values()) >= MIN_DELTA_E, fallback
    assert method_color("my_method") in FALLBACK_COLORS
    assert method_marker("my_method") == method_marker("my_method") in FALLBACK_MARKERS
    # a release form keeps its method's colour and marker
    assert method_color("ir_laplace/shuffled_columns") == METHODS["ir_laplace"].colour
    assert method_marker("dp_um/shuffled_rows") == METHODS["dp_um"].marker


def test_colour_difference_and_the_helpers_behind_the_notes():
    assert delta_e("#000000", "#ffffff") == pytest.approx(100.0, abs=1e-3)
    assert delta_e("#1f77b4", "#3182bd") < 10  # the two blues that could not be told apart
    assert log_x([0.1, 1, 10]) and not log_x([2, 5, 10]) and not log_x([0, 1, 100])
    assert band_label([10]) == "95 % interval of the mean over 10 repetitions"
    assert band_label([2, 10]) == "95 % interval of the mean over 2–10 repetitions"
    assert repetitions_note(1) == "1 repetition: no interval, decides nothing"
    assert "2 repetitions" in repetitions_note(2)
    # a long curve keeps its markers, spaced as drawn
    assert mark_every(99, 0, 1) is not None and mark_every(5, 0, 1) is None


@pytest.mark.parametrize(("name", "spec", "table", "reps"), FIGURES, ids=[f[0] for f in FIGURES])
def test_figure_follows_the_visual_grammar(name, spec, table, reps):
    fig = _drawn(name.split(" (")[0])
    panels = [ax for ax in fig.axes if _method_artists(ax)]
    assert panels, name
    for ax in panels:
        artists = _method_artists(ax)
        hues: dict[str, set[str]] = {}
        for method, drawn in artists.items():
            base = split_variant(method)[0]
            hues.setdefault(base, set()).update(_colour(a) for a in drawn)
            # every line of a method carries its marker
            lines = [a for a in drawn if not isinstance(a, PathCollection)]
            marked = [a for a in drawn if isinstance(a, PathCollection)] or [
                ln for ln in lines if ln.get_marker() not in (None, "None", "", " ")
            ]
            assert marked, (name, method)
            for ln in lines if spec.x_metric is None else []:
                assert ln.get_marker() == method_marker(method), (name, method)
                assert ln.get_markevery() is None or ln.get_markevery()[1] > 0
        # the lines of any two methods differ by ΔE ≥ 20
        for (one, a), (other, b) in itertools.combinations(hues.items(), 2):
            closest = min(delta_e(x, y) for x in a for y in b)
            assert closest >= MIN_DELTA_E, (name, one, other, round(closest, 1))
        # a release form: its method's hue, another line style
        for method, drawn in artists.items():
            base, form = split_variant(method)
            if form is None or base not in artists:
                continue
            line, own = (
                next(a for a in group if not isinstance(a, PathCollection))
                for group in (drawn, artists[base])
            )
            assert _colour(line) == _colour(own), (name, method)
            assert _dashes(line) != _dashes(own), (name, method)
        # fewer than 3 repetitions behind a point that depends on them: said on the panel
        noted = [t.get_text() for t in ax.texts if t.get_gid() == "repetitions-note"]
        metrics = [spec.metric, *([spec.x_metric] if spec.x_metric else [])]
        random = any(not exact(m, metric) for m in artists for metric in metrics)
        assert bool(noted) == (random and reps < MIN_REPETITIONS), (name, noted)
        assert not noted or noted == [repetitions_note(reps)]
    if spec.x_metric is not None:
        return
    # x axis: a continuous one log where its values span a factor of 10; an integer one
    # linear with whole-number ticks
    xs = np.concatenate([ln.get_xdata() for ax in panels for ln in ax.get_lines()])
    span = xs.min() > 0 and xs.max() >= 10 * xs.min()
    integer = grid_axes()[spec.x].kind is int
    for ax in panels:
        assert ax.get_xscale() == ("log" if span and not integer else "linear"), name
        low, high = sorted(ax.get_xlim())
        ticks = np.asarray(ax.get_xticks())
        ticks = ticks[(ticks >= low) & (ticks <= high)]
        assert len(ticks) >= 2, (name, ticks)
        assert not integer or _whole(ticks), (name, ticks)
    # the bands' repetitions, in the legend
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    if any(isinstance(c, PolyCollection) for ax in panels for c in ax.collections):
        assert band_label([reps]) in legend, (name, legend)


def test_the_complaints_are_gone():
    """IR and iDP-LS, the arena's DP-UM, iDP-LS and IR + Laplace and their release forms:
    each pair far apart, or a form told apart by line style; ε over {0.1, 1, 10} on a log
    axis, k ticks whole."""
    assert delta_e(method_color("ir"), method_color("idp_ls")) >= MIN_DELTA_E
    for one, other in itertools.combinations(("dp_um", "idp_ls", "ir_laplace"), 2):
        assert delta_e(method_color(one), method_color(other)) >= MIN_DELTA_E
    ax = _drawn("arena:utility_jsd").axes[0]
    lines = {ln.get_gid(): ln for ln in ax.get_lines() if ln.get_gid()}
    form = lines["ir_laplace/shuffled_columns"]
    assert to_hex(form.get_color()) == METHODS["ir_laplace"].colour
    assert _dashes(form) != _dashes(lines["ir_laplace"])
    assert ax.get_xscale() == "log"
    assert [f"{t:g}" for t in ax.get_xticks() if 0.1 <= t <= 10] == [
        "0.1",
        "0.2",
        "0.5",
        "1",
        "2",
        "5",
        "10",
    ]
    fig = _drawn("census_ir:figure1_re")
    low, high = fig.axes[0].get_xlim()
    assert fig.axes[0].get_xscale() == "linear"  # k from 2 to 100, as the paper draws it
    assert _whole(np.asarray([t for t in fig.axes[0].get_xticks() if low <= t <= high]))


def test_an_integer_axis_of_few_values_has_whole_ticks_and_a_float_one_keeps_its_own():
    config = {"methods": ["ir_laplace", "laplace"], "grid": {"k": [2, 3, 4], "epsilon": [1.0]}}
    fig = plot_curves(
        results({**config, "reps": 3}, {"re"}, False),
        FigureSpec(name="k", metric="re", series=None),
    )
    ax = fig.axes[0]
    low, high = ax.get_xlim()
    ticks = np.asarray([t for t in ax.get_xticks() if low <= t <= high])
    assert ax.get_xscale() == "linear" and len(ticks) >= 2 and _whole(ticks), ticks
    config = {"methods": ["tclose_merge"], "grid": {"k": [2], "t": [0.1, 0.15, 0.2]}}
    fig = plot_curves(results(config, {"sse_tcm"}, False), FigureSpec("t", "sse_tcm", x="t"))
    ticks = fig.axes[0].get_xticks()
    assert not _whole(ticks), ticks  # t is no integer axis: its ticks fall between
