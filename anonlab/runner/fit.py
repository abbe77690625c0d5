"""What a run keeps of its experiment on the data it is given, decided before any work.

A paper experiment or the arena run on a user's data (a *preset*) may name methods and
metrics that need what the data lacks: roles, a class, numerical attributes, public
bounds. Each such method or metric is left out with one note, and so is each figure whose
metric or axis is gone. A method or metric the user named (``methods=…``, ``metrics=…``;
every one of a study's) is kept or refused with one error naming the real cause. The
checks of methods and metrics against the data come before any figure is considered.

A study's figures are derived from what runs (``figures: auto``, :func:`derived_figures`),
on the axes :func:`~anonlab.runner.validate.figure_axes` chose when the run was validated.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from anonlab.datasets import DATA_DOMAINS, Dataset
from anonlab.datasets.axes import VIEW_AXES
from anonlab.datasets.build import observed_bounds, unbounded
from anonlab.datasets.sources import shown_name
from anonlab.methods import grid_axes, method_class, split_variant
from anonlab.metrics import AttributeMetric, ReleaseMetric
from anonlab.plotting import FigureSpec, metric_name
from anonlab.runner.grid import Cell
from anonlab.runner.validate import figure_axes
from anonlab.validation import ParameterError


def fit_grid(
    grid: Mapping[str, Any], datasets: Sequence[Dataset], named: Collection[str] = ()
) -> tuple[dict[str, Any], list[str]]:
    """A preset's grid on a user's data: the values of an axis with a data-dependent limit
    (:attr:`~anonlab.axes.Axis.limit`: ``k`` beyond the records, ``m`` beyond the
    attributes) beyond that of the smallest data set are left out with a note; when none
    is left, the largest that fits (the limit) stands in. An axis the user ``named`` is
    theirs: a value beyond the data is an error naming the axis, never a method left out
    for it."""
    fitted, notes = dict(grid), []
    for name, axis in grid_axes().items():
        values = grid.get(name)
        if axis.limit is None or not isinstance(values, Sequence) or isinstance(values, str):
            continue
        limit = min(axis.limit(d) for d in datasets)
        kind = numbers.Integral if axis.kind is int else numbers.Real
        given = [v for v in values if isinstance(v, kind) and not isinstance(v, bool)]
        if len(given) != len(values) or all(v <= limit for v in given):
            continue  # a bad value is the grid check's to name
        kept = [v for v in given if v <= limit] or [limit]
        gone = [v for v in given if v > limit]
        what = axis.limit_unit
        if name in named:
            raise ParameterError(
                f"grid.{name}: {gone} exceed the data's {limit} {what}; {name} must be "
                f"{axis.bounds(limit)}"
            )
        notes.append(
            f"grid.{name}: {gone} left out, the data has {limit} {what}; runs {name}={kept}"
        )
        fitted[name] = kept
    return fitted, notes


def needs_bounds(method: str) -> bool:
    """Whether ``method``'s proof assumes public bounds (its ``public-bounds`` tag)."""
    return "public-bounds" in method_class(split_variant(method)[0]).tags()


def missing_bounds(
    datasets: Sequence[Dataset], configs: Sequence[Mapping[str, Any]]
) -> dict[str, list[str]]:
    """Per user data set (loader ``csv`` without ``domains: data``), the protected columns
    whose bounds were read off the data (:func:`~anonlab.datasets.build.unbounded`). A
    paper data set's domains follow its paper's rule and are stated as a caveat."""
    missing = {}
    for dataset, config in zip(datasets, configs, strict=True):
        if config.get("loader") != "csv" or config.get("domains") == DATA_DOMAINS:
            continue
        columns = [a.name for a in unbounded(dataset)]
        if columns:
            missing[dataset.name] = columns
    return missing


def bounds_line(dataset: Dataset, columns: Sequence[str], python: bool = False) -> str:
    """The command-line overrides (or, ``python``, the arguments) that declare bounds for
    ``columns``: observed ranges to widen into public ones for numeric columns, a
    hierarchy file for text ones."""
    numeric = [c for c in columns if not dataset.attribute(c).categorical]
    text = [c for c in columns if dataset.attribute(c).categorical]
    parts = []
    if python:
        if numeric:
            ranges = {c: observed_bounds(dataset.frame[c]) for c in numeric}
            parts.append(f"domains={ranges}")
        if text:
            parts.append(f"hierarchies={dict.fromkeys(text, 'FILE')}")
        return ", ".join(parts)
    if numeric:
        ranges = ",".join(
            "{}:[{:g},{:g}]".format(c, *observed_bounds(dataset.frame[c])) for c in numeric
        )
        parts.append(f"'dataset.domains={{{ranges}}}'")
    if text:
        parts.append("'dataset.hierarchies={" + ",".join(f"{c}:FILE" for c in text) + "}'")
    return " ".join(parts)


def bounds_error(
    methods: Sequence[str],
    datasets: Sequence[Dataset],
    configs: Sequence[Mapping[str, Any]],
    missing: Mapping[str, Sequence[str]],
    python: bool = False,
) -> str:
    """One error for every column that lacks public bounds, with the line to paste (the
    command line's overrides, or, ``python``, the arguments of :func:`anonlab.study`)."""
    by_name = {d.name: d for d in datasets}
    label = {
        d.name: "the frame" if python else _file_or_name(d, c)
        for d, c in zip(datasets, configs, strict=True)
    }
    lines = [
        f"methods {list(methods)} assume public bounds, and these columns of "
        + "; ".join(f"{label[name]} have none: {', '.join(cs)}" for name, cs in missing.items())
        + ". Declare them (the observed ranges below are a start: widen them to bounds "
        "known without looking at the data), or add "
        + ('domains="data"' if python else "dataset.domains=data")
        + " to read them off the data (each release's guarantee then states that its ε holds"
        " only if those bounds are public):"
    ]
    lines += [bounds_line(by_name[name], columns, python) for name, columns in missing.items()]
    return "\n  ".join(lines)


def fit_methods(
    methods: Sequence[str],
    datasets: Sequence[Dataset],
    configs: Sequence[Mapping[str, Any]],
    expand: Callable[[Sequence[str], Dataset], Sequence[Cell]],
    explicit: bool,
    python: bool = False,
) -> tuple[tuple[str, ...], list[str]]:
    """The methods the data can take, and a note for each left out; ``explicit``: the
    user named them, so one that cannot run is an error instead. What a method cannot do
    at all comes first (its own check of each data set), then the bounds: one error for
    every column and every method that needs them."""
    notes, capable = [], []
    for method in methods:  # what the method cannot do at all comes first
        try:
            for dataset in datasets:
                cells = expand([method], dataset)
                if explicit:  # named for these attributes: never silently fewer of them
                    for cell in cells:
                        cell.build().check(cell.declared_view(dataset))
        except ParameterError as error:
            if explicit:
                raise
            notes.append(f"method {method!r} left out: {error}")
            continue
        capable.append(method)
    missing = missing_bounds(datasets, configs)
    asking = [m for m in capable if needs_bounds(m)] if missing else []
    if asking and explicit:
        raise ParameterError(bounds_error(asking, datasets, configs, missing, python))
    kept = [m for m in capable if m not in asking]
    columns = sorted({c for cs in missing.values() for c in cs})
    notes += [
        f"method {method!r} left out: it assumes public bounds, which columns {columns} "
        "lack (declare them with dataset.domains, or dataset.domains=data)"
        for method in asking
    ]
    if not kept and asking:  # every method that could run asks for bounds: ask
        raise ParameterError(bounds_error(asking, datasets, configs, missing, python))
    if not kept:
        raise ParameterError(
            "no method can run on this data: " + "; ".join(notes) if notes else "methods is empty"
        )
    for method in kept:  # Cell.view gives them the numerical attributes
        if not method_class(split_variant(method)[0]).numeric_only:
            continue
        for dataset in datasets:
            text = [a.name for a in dataset.protected_attributes if a.categorical]
            if text and len(text) < len(dataset.protected):
                notes.append(
                    f"method {method!r} runs on the numerical attributes of {dataset.name!r} "
                    f"only: it takes no categorical one, so {text} are released unchanged "
                    "by it and its metrics average over the numerical attributes"
                )
    return tuple(kept), notes


def fit_metrics(
    metrics: Sequence[str],
    get: Callable[[str], AttributeMetric | ReleaseMetric],
    check: Callable[[Sequence[AttributeMetric | ReleaseMetric]], None],
    explicit: bool,
    nowhere: Callable[[AttributeMetric | ReleaseMetric], str | None] = lambda metric: None,
) -> tuple[tuple[str, ...], list[str]]:
    """The metrics that can be computed on every cell, and a note for each left out;
    ``explicit``: the user named them, so one that cannot is an error instead. A metric
    ``nowhere`` defined (it says why: no cell has what it needs) is left out too."""
    kept, notes = [], []
    for name in metrics:
        why = None if explicit else nowhere(get(name))
        if why:
            notes.append(f"metric {name!r} left out: {why}")
            continue
        try:
            check([get(name)])
        except ParameterError as error:
            if explicit:
                raise
            notes.append(f"metric {name!r} left out: {error}")
            continue
        kept.append(name)
    return tuple(kept), notes


def fit_figures(
    figures: Sequence[FigureSpec],
    metrics: Sequence[str],
    declared: Sequence[str] | None,
    grid: Mapping[str, Any],
) -> tuple[tuple[FigureSpec, ...], list[str]]:
    """The figures whose metric and x axis the run has, and a note for each left out. A
    figure of a metric its experiment's own list (``declared``; ``None`` when the user
    replaced it) never had is an error, the config being wrong; one whose metric or x axis
    the run left out is a note; a facet, row or series axis the run left out (an axis
    none of the user's methods takes) is drawn as one panel or series."""
    columns = {*grid, "dataset", "method", "attribute"}
    kept, notes = [], []
    for figure in figures:
        for metric in (figure.metric, figure.x_metric):
            if metric is not None and declared is not None and metric not in declared:
                raise ParameterError(
                    f"figure {figure.name!r} plots metric {metric!r}, "
                    f"which is not in metrics {list(declared)}"
                )
        gone = [m for m in (figure.metric, figure.x_metric) if m is not None and m not in metrics]
        if gone or figure.x not in columns:
            why = f"metric {gone[0]!r} is not computed" if gone else f"x={figure.x} is not swept"
            notes.append(f"figure {figure.name!r} left out: {why} in this run")
            continue
        roles = ("facet", "row", "series")
        kept.append(
            replace(
                figure, **{r: None for r in roles if getattr(figure, r) not in (None, *columns)}
            )
        )
    return tuple(kept), notes


def fit_tables(
    tables: Sequence[Mapping[str, Any]], names: Collection[str] | None
) -> tuple[list[Mapping[str, Any]], list[str]]:
    """The tables a run keeps, and a note for each left out: a table ``about`` a fixed
    data set (one that does not read the run's results, such as the arena's attack on
    Census) describes that data set, not a user's, so a run on other data (``names``, its
    data sets' names; ``None`` on the experiment's own data) leaves it out."""
    kept, notes = [], []
    for table in tables:
        about = table.get("about")
        if names is not None and about is not None and about not in names:
            notes.append(
                f"table {table['name']!r} left out: it describes the data set {about!r}, "
                "not this run's data"
            )
            continue
        kept.append(table)
    return kept, notes


def derived_figures(
    metrics: Sequence[str],
    grid: Mapping[str, Any],
    methods: Sequence[str],
    x: str | None,
    datasets: Sequence[str],
    label: str,
) -> tuple[FigureSpec, ...]:
    """A study's figures: one per metric, ``x`` the named axis or the swept axis with the
    most values, the methods as curves (a method that ignores ``x`` as a horizontal
    line), each other swept axis a facet, a row of panels, then a marker series; a panel
    per data set when there are several."""
    taken = {a for m in methods for a in method_class(split_variant(m)[0]).axes} | set(VIEW_AXES)
    x, facet, row, series = figure_axes(grid, taken, x, len(datasets))
    return tuple(
        FigureSpec(
            name=name,
            metric=name,
            x=x,
            facet=facet,
            row=row,
            series=series,
            title=f"{metric_name(name)} on {label}",
        )
        for name in metrics
    )


def retitled(figures: Sequence[FigureSpec], experiment: str, data: str) -> tuple[FigureSpec, ...]:
    """The figures of a run on other data than the paper's, titled by what they show and
    the data they show it on (a paper title such as "DP-IR Fig. 1 (Census)" would misname
    the data)."""
    return tuple(
        replace(f, title=f"{metric_name(f.metric)} on {data} (custom run of {experiment})")
        for f in figures
    )


def data_names(datasets: Sequence[Dataset], configs: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """The names figures show for the run's data sets where they differ from those the
    results hold (:func:`~anonlab.datasets.sources.shown_name`: a user's file by its stem),
    e.g. ``{"csv": "patients"}``; empty for the papers' data, and when two data sets would
    show alike (the results' names then stand)."""
    shown = {d.name: shown_name(c) for d, c in zip(datasets, configs, strict=True)}
    if len(set(shown.values())) < len(shown):
        return {}
    return {name: label for name, label in shown.items() if label != name}


def data_label(datasets: Sequence[Dataset], configs: Sequence[Mapping[str, Any]]) -> str:
    """How figure titles name the data: each data set as the figures show it
    (:func:`data_names`), ``patients`` for ``dataset.path=/x/patients.csv``."""
    names = data_names(datasets, configs)
    return ", ".join(names.get(d.name, d.name) for d in datasets)


def _file_or_name(dataset: Dataset, config: Mapping[str, Any]) -> str:
    """How an error names the data: a CSV by its file name, any other by its name."""
    path = config.get("path")
    return Path(str(path)).name if config.get("loader") == "csv" and path else dataset.name
