"""An experiment from config to files: validate (:mod:`anonlab.runner.validate`), fit to
the data, run the grid, store, plot."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.datasets import Dataset, load_dataset
from anonlab.metrics import AttributeMetric, ReleaseMetric, get_metric
from anonlab.plotting import FigureSpec
from anonlab.plotting.tables import TableBuilder, load_builder
from anonlab.provenance import provenance
from anonlab.runner.checkpoint import Checkpoint, checkpoint_key, folder_lock, note
from anonlab.runner.execute import (
    Interrupted,
    count_jobs,
    run_cells,
    tidy_table,
)
from anonlab.runner.fit import (
    data_label,
    data_names,
    derived_figures,
    fit_figures,
    fit_grid,
    fit_methods,
    fit_metrics,
    fit_tables,
    retitled,
)
from anonlab.runner.grid import Cell, expand_grid
from anonlab.runner.render import render_experiment
from anonlab.runner.reuse import Reuse, primary_rows
from anonlab.runner.store import (
    finite_rows,
    git_commit,
    package_versions,
    write_json,
    write_table,
)
from anonlab.runner.validate import (
    RESULTS_FILE,
    RUN_FILE,
    Declared,
    RunnerSpec,
    dataset_configs,
    validate,
)
from anonlab.runner.workers import facts, load_average, machine
from anonlab.validation import ParameterError

PARTS_DIR = "parts"


@dataclass(frozen=True)
class Experiment:
    """A validated experiment, ready to run."""

    name: str
    datasets: tuple[Dataset, ...]
    cells: tuple[Cell, ...]
    reps: int
    metrics: tuple[str, ...]
    metrics_by_attribute: tuple[str, ...]
    seed: int
    n_jobs: int
    out_dir: Path
    figures: tuple[FigureSpec, ...]
    tables: tuple[tuple[str, TableBuilder], ...] = ()
    config: Mapping[str, Any] = field(default_factory=dict)  # resolved, profile applied
    runner: RunnerSpec = RunnerSpec()
    reading: str | None = None  # the reading run (None: the primary, or none declared)
    overrides: tuple[str, ...] = ()  # the overrides the config was composed from
    #: what the user declared themselves (:class:`~anonlab.runner.validate.Given`), the
    #: policy the fit stage followed
    given: Mapping[str, Any] = field(default_factory=dict)
    provenance: str = "paper"  # or "own", "custom" (anonlab.provenance.provenance)
    notes: tuple[str, ...] = ()  # what validation adjusted, said once before the run
    # {metric: {option: value}}, validated; the methods' options are on their cells
    metric_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: {data set: the name its figures show} where the two differ (a user's file by its
    #: stem, :func:`~anonlab.runner.fit.data_names`); the results keep the data set's name
    data_names: Mapping[str, str] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The run's name in progress bars: its folder, ``census_ir@reading~label``."""
        return self.out_dir.name

    @property
    def parts_dir(self) -> Path:
        """Where finished batches are stored for resuming (:mod:`~anonlab.runner.checkpoint`)."""
        return self.out_dir / PARTS_DIR

    @property
    def results_path(self) -> Path:
        return self.out_dir / RESULTS_FILE

    @property
    def dataset(self) -> Dataset:
        """The (first) data set."""
        return self.datasets[0]

    def cells_of(self, dataset: Dataset) -> tuple[Cell, ...]:
        """The cells that run on ``dataset``."""
        return tuple(cell for cell in self.cells if cell.dataset == dataset.name)


def check_metrics(
    datasets: Sequence[Dataset],
    cells: Sequence[Cell],
    metrics: Sequence[AttributeMetric | ReleaseMetric],
    skip_undefined: bool = False,
) -> list[tuple[tuple[str, str, int | None, int], str]]:
    """Raise a :class:`ParameterError` if a metric cannot be computed on a cell's release
    (a cluster metric of a method that does not cluster, a class metric without a class,
    a metric dividing by a constant column's variance, …): before any work, not in a
    worker. With ``skip_undefined`` (config ``inapplicable: skip``), a metric undefined
    for a cell by what its release or data lack (record correspondence, a class, a
    training part smaller than the method's k) is left out for it instead; the jobs skip
    it too. Returns the pairs left out by the size of the data, which the experiment's
    config cannot foresee: ((method, data set, training records, k), metric)."""
    short: dict[tuple[str, str, int | None, int], list[str]] = {}  # → metrics left out
    by_name = {d.name: d for d in datasets}
    views: dict[tuple[Any, ...], Dataset] = {}
    for cell in cells:
        key = cell.view_key
        if key not in views:
            views[key] = cell.view(by_name[cell.dataset])
        method = cell.build()
        for metric in metrics:
            if not (skip_undefined and metric.undefined(views[key], method)):
                metric.check(views[key], method)
            elif metric.training_too_small(views[key], method):
                view = views[key]
                at = (method.name, view.name, metric.training_records(view), method.k)
                short.setdefault(at, []).append(metric.name)
    return [(at, name) for at, names in short.items() for name in names]


def short_notes(pairs: Sequence[tuple[tuple[str, str, int | None, int], str]]) -> list[str]:
    """One note per method whose k exceeds the training part that metrics needing control
    records rerun it on (:func:`check_metrics`' pairs), naming those metrics."""
    by_method: dict[tuple[str, str, int | None, int], list[str]] = {}
    for at, metric in pairs:
        by_method.setdefault(at, []).append(metric)
    return [
        f"metrics {list(dict.fromkeys(names))} left out for method {name!r} (each release "
        f"form): they rerun it on the {training} training records of dataset {data!r}, "
        f"fewer than its k={k}, the others held out as their control records; lower k or "
        "their option control"
        for (name, data, training, k), names in by_method.items()
    ]


def domain_notes(datasets: Sequence[Dataset]) -> list[str]:
    """A note for each categorical attribute whose domain was read off the data (a flat
    taxonomy): the DP guarantee then holds only if that set of values is public."""
    return [
        f"dataset {d.name!r}: the domain of {a.name!r} is the {len(a.taxonomy.labels)} "
        "values found in the data (a flat taxonomy); the DP guarantee assumes a public "
        "domain, so give a hierarchy file listing every possible value unless these are"
        for d in datasets
        for a in d.attributes
        if a.taxonomy is not None and a.taxonomy.from_data
    ]


def build_experiment(config: Mapping[str, Any] | Declared) -> Experiment:
    """The :class:`Experiment` of a composed config: validated first
    (:func:`~anonlab.runner.validate.validate`, the pipeline's first stage: profile,
    reading, parameters, grid, output folder) unless it comes as the
    :class:`~anonlab.runner.validate.Declared` run that returns, then fitted to its data
    (:mod:`anonlab.runner.fit`: what the data cannot take is left out with a note, or
    refused) and expanded into cells; nothing is written. ``options`` (``{method or
    metric: {option: value}}``) reach the methods through the cells and the metrics
    through :attr:`Experiment.metric_options`."""
    declared = config if isinstance(config, Declared) else validate(config)
    config, given, study = declared.config, declared.given, declared.study
    name, methods = declared.name, declared.methods
    metrics, by_attribute = declared.metrics, declared.metrics_by_attribute
    method_options, metric_options = declared.method_options, declared.metric_options
    figures = () if study else tuple(FigureSpec.from_config(f) for f in config.get("figures") or ())
    configs, datasets_note = dataset_configs(config, given)
    if datasets_note:  # run.json and the resume key record the data set that runs
        config = {**config, "datasets": {"dataset": configs[0]}}
    datasets = tuple(load_dataset(c) for c in configs)
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise ParameterError(f"datasets must have distinct names, got {names}")
    grid = declared.grid
    # a preset on a user's data keeps what the data can take (runner.fit); on its own
    # data, or for what the user named, a method or metric that cannot run is an error
    own_data = given.own_data
    grid_notes: list[str] = []
    kept_tables, table_notes = fit_tables(config.get("tables") or (), names if own_data else None)
    if table_notes:  # run.json records the tables that are written
        config = {**config, "tables": kept_tables}
    tables = tuple((str(t["name"]), load_builder(str(t["builder"]))) for t in kept_tables)
    if own_data:  # a study's axes are all the user's: checked against the data, not fitted
        grid, grid_notes = fit_grid(grid, datasets, given.axes(grid))
        config = {**config, "grid": grid}  # run.json records the grid that runs
    by_method = declared.grid_by_method

    expanded: dict[tuple[str, str], tuple[Cell, ...]] = {}  # each method's cells, once

    def expand(chosen: Sequence[str], dataset: Dataset) -> tuple[Cell, ...]:
        for m in chosen:
            if (m, dataset.name) not in expanded:
                own = {m: by_method[m]} if m in by_method else {}
                cells = expand_grid([m], grid, dataset, method_options, own)
                expanded[m, dataset.name] = tuple(cells)
        return tuple(cell for m in chosen for cell in expanded[m, dataset.name])

    methods, method_notes = fit_methods(
        methods,
        datasets,
        configs,
        expand,
        explicit=not own_data or given.named("methods"),
        python=config.get("interface") == "python",
    )
    cells = tuple(cell for d in datasets for cell in expand(methods, d))
    inapplicable = declared.inapplicable

    skipped: dict[Any, None] = {}  # pairs left out by the data's size (short_notes)

    def check(chosen: Sequence[AttributeMetric | ReleaseMetric]) -> None:
        skipped.update(
            dict.fromkeys(
                check_metrics(datasets, cells, chosen, skip_undefined=inapplicable == "skip")
            )
        )

    listed = (*metrics, *by_attribute)  # the metrics as the config lists them

    def get(name: str) -> AttributeMetric | ReleaseMetric:
        return get_metric(name, metric_options.get(name))

    def nowhere(metric: AttributeMetric | ReleaseMetric) -> str | None:
        """Why ``metric`` is undefined on every cell (a class metric on data without a
        class), so that inapplicable: skip would leave it no row at all."""
        if "target" in metric.requires and all(d.target is None for d in datasets):
            return "the data has no class (dataset.target)"
        return None

    explicit_metrics = not own_data or given.named("metrics")
    metrics, metric_notes = fit_metrics(metrics, get, check, explicit_metrics, nowhere)
    by_attribute, by_attribute_notes = fit_metrics(
        by_attribute, get, check, not own_data or given.named("metrics_by_attribute")
    )
    if not metrics and not by_attribute:
        raise ParameterError("no metric can be computed on this data: " + "; ".join(metric_notes))
    shown = data_label(datasets, configs)
    figure_notes: list[str] = []
    if study:
        figures = derived_figures(
            dict.fromkeys((*metrics, *by_attribute)),
            grid,
            methods,
            config.get("figure_x"),
            names,
            shown,
        )
    else:
        # the experiment's own figures bend to metrics the user replaced; figures the
        # user named must plot what runs
        replaced = not given.named("figures") and (
            given.named("metrics") or given.named("metrics_by_attribute")
        )
        figures, figure_notes = fit_figures(
            figures, (*metrics, *by_attribute), None if replaced else listed, grid
        )
        if own_data:
            figures = retitled(figures, name, shown)
    check_size(datasets, cells, declared.reps, metrics, by_attribute)
    return Experiment(
        name,
        datasets,
        cells,
        declared.reps,
        metrics,
        by_attribute,
        declared.seed,
        declared.n_jobs,
        declared.out_dir,
        figures,
        tables,
        config,
        declared.runner,
        reading=config.get("reading"),
        overrides=declared.overrides,
        provenance=provenance(
            declared.overrides, paper=bool((config.get("experiment") or {}).get("paper"))
        ),
        given=given.record(),
        notes=tuple(
            n
            for n in (
                *declared.notes,
                datasets_note,
                *grid_notes,
                *method_notes,
                *metric_notes,
                *by_attribute_notes,
                *figure_notes,
                *table_notes,
                *short_notes(list(skipped)),
                *domain_notes(datasets),
            )
            if n
        ),
        metric_options=metric_options,
        data_names=data_names(datasets, configs),
    )


#: bytes of memory a result row takes while a run holds it (its dict, then its share of
#: the tables built from the rows): 3.9 kB measured on census_ir at 48 000 and 192 000
#: rows (benchmarks/drills/faults.py), rounded up
ROW_BYTES = 4096


def available_memory() -> int | None:
    """Bytes of memory this process can still take: the kernel's estimate of what is
    available (``MemAvailable``, else the free pages), within the control group's limit
    if one is set; ``None`` where neither can be read."""
    available = None
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    available = int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    if available is None:
        try:
            available = os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        except (AttributeError, OSError, ValueError):
            return None
    try:  # a container's limit (cgroup v2) is what the kernel enforces
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        used = Path("/sys/fs/cgroup/memory.current").read_text().strip()
        if limit != "max":
            available = min(available, int(limit) - int(used))
    except (OSError, ValueError):
        pass
    return max(available, 0)


def _size(n: float) -> str:
    for unit in ("B", "kB", "MB", "GB", "TB", "PB"):
        if n < 1000 or unit == "PB":
            return f"{n:.3g} {unit}"
        n /= 1000
    raise AssertionError  # pragma: no cover


def check_size(
    datasets: Sequence[Dataset],
    cells: Sequence[Cell],
    reps: int,
    metrics: Sequence[str],
    metrics_by_attribute: Sequence[str],
    available: int | None = None,
) -> None:
    """Raise a :class:`ParameterError` before any work when the run's result rows (jobs ×
    rows a job gives, at :data:`ROW_BYTES` each) would not fit in the memory this machine
    has ``available`` (:func:`available_memory` by default): such a run would otherwise
    grow until the system kills it."""
    jobs = rows = 0
    for dataset in datasets:
        own = [cell for cell in cells if cell.dataset == dataset.name]
        count = count_jobs(own, reps, metrics)
        jobs += count
        rows += count * (len(metrics) + len(metrics_by_attribute) * len(dataset.protected))
    available = available_memory() if available is None else available
    if available is None or rows * ROW_BYTES <= available:
        return
    raise ParameterError(
        f"reps={reps} over {len(cells)} cells plans {jobs:,} jobs (cell x repetition) giving "
        f"{rows:,} result rows, about {_size(rows * ROW_BYTES)} of memory, more than the "
        f"{_size(available)} this machine has available: lower reps or the grid, or split "
        "the run"
    )


def run_grid(
    experiment: Experiment,
    *,
    progress: bool = True,
    resume: bool = False,
    workers: dict[str, Any] | None = None,
    look: Look | None = None,
    reuse: Reuse | None = None,
    git: Mapping[str, Any] | None = None,
) -> pd.DataFrame:
    """The tidy result table of every data set's cells × repetitions. With ``resume``, each
    finished batch is stored under :attr:`Experiment.parts_dir` and jobs stored by an earlier
    run with the same seed, metrics, data sets and code are not recomputed, while the
    results folder is locked (:func:`~anonlab.runner.checkpoint.folder_lock`): a second run
    into it waits, then reuses the first's parts. Otherwise nothing is written. A Dask run
    records its workers' code digests and versions in ``workers``. A ``look`` runs only
    its cells' added repetitions, its parts in its own folder. A reading's run takes the
    rows of the cells in ``reuse`` from its primary run (:mod:`anonlab.runner.reuse`)
    and computes the others. ``git`` is the checkout's state (:func:`git_commit`) where
    the caller has read it already."""
    code = git_commit() if git is None and resume else git
    key = checkpoint_key(experiment.config, code) if resume else ""
    reps, first = (look.reps, look.first_rep) if look else (experiment.reps, 0)
    folder = look.folder if look else experiment.out_dir
    metrics = look.measured(experiment.metrics) if look else experiment.metrics
    by_attribute = (
        look.measured(experiment.metrics_by_attribute) if look else experiment.metrics_by_attribute
    )
    cells = {
        d.name: tuple(c for c in experiment.cells_of(d) if look is None or c.id in look.cell_ids)
        for d in experiment.datasets
    }
    taken = reuse.cell_ids if reuse is not None else frozenset()
    computed = {name: tuple(c for c in own if c.id not in taken) for name, own in cells.items()}
    totals = [  # the jobs to run: those of the repetitions from ``first`` on
        count_jobs(computed[d.name], reps, metrics)
        - (count_jobs(computed[d.name], first, metrics) if first else 0)
        for d in experiment.datasets
    ]
    tables = []
    with folder_lock(folder) if resume else nullcontext():
        for index, dataset in enumerate(experiment.datasets):
            rows = _reused_rows(reuse, dataset.name)
            if not totals[index]:
                if len(rows):  # every cell here taken from the primary run
                    tables.append(tidy_table(rows, cells[dataset.name], dataset.name))
                continue  # or a look with no randomised cell here
            try:
                part = run_cells(
                    dataset,
                    computed[dataset.name],
                    reps=reps,
                    first_rep=first,
                    master_seed=experiment.seed,
                    metrics=metrics,
                    metrics_by_attribute=by_attribute,
                    n_jobs=experiment.n_jobs,
                    progress=progress,
                    runner=experiment.runner,
                    label=f"{experiment.label} "
                    f"[{experiment.data_names.get(dataset.name, dataset.name)}]"
                    + (f" reps {first}-{reps - 1}" if look else ""),
                    metric_options=experiment.metric_options,
                    workers=workers,
                    checkpoint=(
                        Checkpoint(folder / PARTS_DIR / dataset.name, key).open()
                        if resume
                        else None
                    ),
                )
            except Interrupted as stop:  # the whole experiment's count, and its folder
                stored = sum(totals[:index]) + stop.stored if resume else 0
                raise Interrupted(stored, sum(totals), folder) from None
            if len(rows):  # in the order a run of every cell gives (cell, rep, metric)
                both = pd.concat([part.drop(columns="dataset"), rows], ignore_index=True)
                part = tidy_table(both, cells[dataset.name], dataset.name)
            tables.append(part)
    if not tables:
        return pd.DataFrame()
    table = pd.concat(tables, ignore_index=True)
    table.insert(0, "experiment", experiment.name)
    table, notes = finite_rows(table)
    for said in notes:
        note(said)
    return table


def _reused_rows(reuse: Reuse | None, dataset: str) -> pd.DataFrame:
    """The rows ``reuse`` holds of data set ``dataset``, as a run's parts hold them (no
    ``dataset`` column)."""
    if reuse is None:
        return pd.DataFrame()
    rows = reuse.rows[reuse.rows["dataset"] == dataset]
    return rows.drop(columns="dataset").reset_index(drop=True)


@dataclass(frozen=True)
class Look:
    """A later look of the pre-registered plan: repetitions ``first_rep`` to ``reps`` − 1
    of the cells ``cell_ids``, stored under ``folder`` (the rows of the repetitions below
    ``first_rep`` are the run's own, so none is computed twice; a deterministic cell runs
    once and adds nothing), measured by the ``metrics`` its claims read (``None``: all of
    the run's)."""

    cell_ids: frozenset[int]
    first_rep: int
    reps: int
    folder: Path
    metrics: frozenset[str] | None = None

    def measured(self, names: Sequence[str]) -> tuple[str, ...]:
        """The metrics of ``names`` this look computes, in their order: its claims', and
        every randomized or timed one, since those decide how many repetitions a
        deterministic method's cells run (:func:`~anonlab.runner.execute.plan_jobs`), so
        the look's jobs are the run's. A metric left out changes no other: each draws
        from a stream of its own cell and repetition."""
        if self.metrics is None:
            return tuple(names)
        return tuple(
            n
            for n in names
            if n in self.metrics or get_metric(n).randomized or get_metric(n).measured
        )


def written_files(experiment: Experiment) -> list[Path]:
    """The files a run of ``experiment`` writes: the results table, ``run.json``, and every
    figure and table file drawn from them."""
    figures = [
        p
        for spec in experiment.figures
        for p in sorted((experiment.out_dir / "figures").glob(f"{spec.name}.*"))
    ]
    tables = [
        p
        for name, _ in experiment.tables
        for p in sorted((experiment.out_dir / "tables").glob(f"{name}.*"))
    ]
    return [experiment.results_path, experiment.out_dir / RUN_FILE, *figures, *tables]


def run_experiment(
    experiment: Experiment, config: Mapping[str, Any], *, progress: bool = True
) -> pd.DataFrame:
    """Run the grid (resuming from stored parts), write ``results.parquet`` and
    ``run.json``, then draw the figures and lay out the tables from the stored file, all
    while holding the results folder's lock (a second run into it waits)."""
    if experiment.figures:  # matplotlib (0.3 s) now, while a pool's workers start, not
        import anonlab.plotting.curves  # noqa: F401 - after the grid, on the critical path
    with folder_lock(experiment.out_dir):
        started = datetime.now(UTC)
        clock = time.perf_counter()
        load_at_start = load_average()
        workers: dict[str, Any] = {}
        here = facts()
        versions = {**package_versions(), **here["versions"]}
        git = git_commit()  # the checkout whose code runs: its parts' key and run.json's
        reuse = primary_rows(
            experiment.name,
            experiment.reading,
            experiment.out_dir,
            experiment.config,
            experiment.overrides,
            experiment.cells,
            {"source_sha256": here["source_sha256"], "versions": versions},
        )
        if reuse is not None:
            note(
                f"{experiment.label}: {len(reuse.cell_ids)} of {len(experiment.cells)} cells "
                f"taken from the primary run in {reuse.folder} (options, code and data alike)"
            )
        table = run_grid(
            experiment, progress=progress, resume=True, workers=workers, reuse=reuse, git=git
        )
        wall = time.perf_counter() - clock
        write_table(table, experiment.results_path)
        write_json(
            {
                "experiment": experiment.name,
                "reading": experiment.reading,
                "provenance": experiment.provenance,
                "overrides": list(experiment.overrides),
                "given": dict(experiment.given),
                "config": dict(config),
                "versions": versions,
                "source_sha256": here["source_sha256"],
                # a Dask run's workers: each one's code digest and versions, checked equal
                "workers": workers or None,
                # a reading's cells taken from its primary run (anonlab.runner.reuse)
                "reused": reuse.record() if reuse is not None else None,
                # CPU model, cores and load average at the start and end (run times vary)
                "machine": machine(load_at_start),
                "git": git,
                "started_at": started.isoformat(),
                "wall_time_s": round(wall, 3),
                "n_cells": len(experiment.cells),
                "n_rows": len(table),
                "datasets": [
                    {
                        "name": d.name,
                        # the name its figures show, where it differs (a user's file)
                        **(
                            {"shown": experiment.data_names[d.name]}
                            if d.name in experiment.data_names
                            else {}
                        ),
                        "n": d.n,
                        "attributes": [
                            {k: v for k, v in vars(a).items() if k != "taxonomy"}
                            | {"taxonomy": a.taxonomy.name if a.taxonomy else None}
                            for a in d.attributes
                        ],
                    }
                    for d in experiment.datasets
                ],
            },
            experiment.out_dir / RUN_FILE,
        )
        render_experiment(experiment, pd.read_parquet(experiment.results_path), progress=progress)
    return table
