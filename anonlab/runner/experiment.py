"""An experiment from config to files: validate, run the grid, store, plot."""

from __future__ import annotations

import os
import socket
import time
from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.config import (
    CONFIRMATORY,
    CONFIRMATORY_SEED_KEY,
    EXPLORATORY,
    OVERRIDES_KEY,
    PAPER_PROFILE,
    STAGES,
    apply_profile,
)
from anonlab.datasets import Dataset, load_dataset
from anonlab.methods import METHODS, method_class
from anonlab.metrics import (
    METRICS,
    AttributeMetric,
    ReleaseMetric,
    get_attribute_metric,
    get_metric,
)
from anonlab.plotting import FigureSpec
from anonlab.plotting.tables import TableBuilder, load_builder, write_table_files
from anonlab.provenance import override_key, provenance, run_folder
from anonlab.readings import apply_reading
from anonlab.runner import pool
from anonlab.runner.checkpoint import PARTS as PARTS_KEY
from anonlab.runner.checkpoint import Checkpoint, checkpoint_key, folder_lock, note, reason
from anonlab.runner.execute import (
    RUNNERS,
    Interrupted,
    RunnerSpec,
    assemble,
    count_jobs,
    plan_jobs,
    run_cells,
)
from anonlab.runner.fit import (
    AUTO,
    data_label,
    derived_figures,
    fit_figures,
    fit_grid,
    fit_methods,
    fit_metrics,
    fit_tables,
    named,
    retitled,
)
from anonlab.runner.grid import DATASET_AXES, Cell, expand_grid
from anonlab.runner.pool import map_tasks
from anonlab.runner.store import git_commit, package_versions, write_json, write_table
from anonlab.runner.workers import check_cluster, facts
from anonlab.validation import (
    MAX_SEED,
    ParameterError,
    cap_n_jobs,
    check_choice,
    check_int,
    check_options,
    check_results_dir,
)

RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"
#: more figures than this are drawn by the worker pool (:func:`render_experiment`)
PARALLEL_FIGURES = 3
PARTS_DIR = "parts"
#: config ``inapplicable``: a metric undefined for a cell (records compared with their
#: release on synthetic data, a class metric on data without a class) is an error, or
#: left out for that cell (:meth:`~anonlab.metrics.base._Options.undefined`)
INAPPLICABLE = ("error", "skip")


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
    provenance: str = "paper"  # or "custom" (anonlab.provenance.provenance)
    notes: tuple[str, ...] = ()  # what validation adjusted, said once before the run
    # {metric: {option: value}}, validated; the methods' options are on their cells
    metric_options: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

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


def _names(value: Any, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list of names, got {value!r}")
    return tuple(str(v) for v in value)


def split_options(options: Any) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The config's ``options`` (``{method or metric name: {option: value}}``) split into
    the methods' and the metrics', each validated against the options its method or
    metric declares (``option_choices``); an unknown name, option or value raises a
    :class:`ParameterError` naming its key, e.g. ``options.jsd.bins``. Options of a
    registered method or metric the experiment does not run are checked and unused."""
    if options is None:
        return {}, {}
    if not isinstance(options, Mapping):
        raise ParameterError(
            f"options must be a mapping {{method or metric: {{option: value}}}}, got {options!r}"
        )
    methods: dict[str, dict[str, Any]] = {}
    metrics: dict[str, dict[str, Any]] = {}
    for name, given in options.items():
        if name in METHODS:
            cls = method_class(name)
            methods[name] = check_options(name, given, cls.choices())
        elif name in METRICS:
            metrics[name] = check_options(name, given, METRICS[name].option_choices)
        else:
            raise ParameterError(
                f"options.{name}: {name!r} is not a registered method or "
                f"metric; choose among {sorted(METHODS) + sorted(METRICS)}"
            )
    return methods, metrics


def check_same_ground(
    methods: Sequence[str],
    metrics: Sequence[str],
    method_options: Mapping[str, Mapping[str, Any]],
    metric_options: Mapping[str, Mapping[str, Any]],
) -> None:
    """Raise a :class:`ParameterError` unless every method with an EMD ground distance
    (the t-closeness methods) uses the one the ``max_emd`` metric reports with."""
    if "max_emd" not in metrics:
        return
    metric = get_metric("max_emd", metric_options.get("max_emd"))
    ground = metric.options.get("ground", metric.option_choices["ground"][0])
    for name in methods:
        cls = method_class(name)
        if "ground" not in cls.option_choices:
            continue
        chosen = method_options.get(cls.name, {}).get("ground", cls.option_choices["ground"][0])
        if chosen != ground:
            raise ParameterError(
                f"options.{cls.name}.ground={chosen!r} but options.max_emd.ground={ground!r}: "
                "a run's t-closeness methods and its EMD metric must use the same ground "
                "distance; set both"
            )


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
        key = (cell.dataset, *(v for a, v in cell.params if a in DATASET_AXES))
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


def dataset_configs(
    config: Mapping[str, Any], overrides: Sequence[str]
) -> tuple[list[Mapping[str, Any]], str | None]:
    """The dataset configs an experiment runs on, and a note when they were replaced.

    ``datasets: {key: dataset config}`` (Hydra: ``- /dataset@datasets.key: name``) runs
    the grid on several data sets, e.g. TCM's MCD and HCD; otherwise the single
    ``dataset``. An override of ``dataset`` (``dataset=csv``, ``dataset.path=…``) on an
    experiment with several data sets runs that one data set in their place, never the
    paper's data silently; ``datasets.<key>.…`` overrides change one of them."""
    several = dict(config.get("datasets") or {})
    single = dict(config.get("dataset") or {})
    chosen = [o for o in overrides if override_key(o).split(".")[0] == "dataset"]
    if not several:
        return [single], None
    if not chosen:
        return list(several.values()), None
    replaced = [str(c.get("name", key)) for key, c in several.items()]
    return [single], (
        f"{chosen[0]} runs data set {single.get('name')!r} in place of this "
        f"experiment's data sets {replaced}"
    )


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


def build_experiment(config: Mapping[str, Any]) -> Experiment:
    """Validate a resolved config and build the :class:`Experiment`; nothing is written.
    The config's ``profile`` overrides (:func:`~anonlab.config.apply_profile`) apply, then
    its ``reading``'s (:func:`~anonlab.readings.apply_reading`). The output folder follows
    the run's provenance (:func:`~anonlab.provenance.run_folder`), judged from
    ``config["overrides"]``, the overrides it was composed from (none when absent).
    ``options`` (``{method or metric: {option: value}}``) is checked here (see
    :func:`split_options`) and reaches the methods through the cells and the metrics
    through :attr:`Experiment.metric_options`."""
    overrides = tuple(str(o) for o in config.get(OVERRIDES_KEY) or ())
    config = apply_reading(apply_profile(config, keep=[override_key(o) for o in overrides]))
    name = str(config.get("experiment", {}).get("name") or "custom")
    reps = check_int(config.get("reps", 1), "reps", 1)
    seed = check_int(config.get("seed", 0), "seed", 0, MAX_SEED)
    stage = check_choice(str(config.get("stage") or EXPLORATORY), "stage", STAGES)
    if stage == CONFIRMATORY and config.get(CONFIRMATORY_SEED_KEY) != seed:
        raise ParameterError(
            "stage=confirmatory runs on the pre-registered seed only; prepare the "
            "config with anonlab.preregistration.staged (anonlab run does)"
        )
    n_jobs = check_int(config.get("n_jobs", -1), "n_jobs", -(2**31))
    if n_jobs == 0:
        raise ParameterError(
            "n_jobs must be a positive number of workers or negative (all cores), got 0"
        )
    n_jobs, n_jobs_note = cap_n_jobs(n_jobs)
    metrics = _names(config.get("metrics"), "metrics")
    by_attribute = _names(config.get("metrics_by_attribute"), "metrics_by_attribute")
    for metric in metrics:
        get_metric(metric)
    for metric in by_attribute:
        get_attribute_metric(metric)
    if not metrics and not by_attribute:
        raise ParameterError("metrics is empty: name at least one metric")
    methods = _names(config.get("methods"), "methods")
    if not methods:
        raise ParameterError("methods is empty: name at least one method")
    for method in methods:
        method_class(method)
    method_options, metric_options = split_options(config.get("options"))
    for metric in (*metrics, *by_attribute):
        get_metric(metric, metric_options.get(metric))
    check_same_ground(methods, metrics, method_options, metric_options)
    figure_configs = config.get("figures") or ()
    study = figure_configs == AUTO
    if not study and (
        not isinstance(figure_configs, Sequence)
        or isinstance(figure_configs, str)
        or not all(isinstance(f, Mapping) for f in figure_configs)
    ):
        raise ParameterError(
            f"figures must be a list of figure mappings, [] or {AUTO!r}, got {figure_configs!r}"
        )
    figures = () if study else tuple(FigureSpec.from_config(f) for f in figure_configs)
    configs, datasets_note = dataset_configs(config, overrides)
    if datasets_note:  # run.json and the resume key record the data set that runs
        config = {**config, "datasets": {"dataset": configs[0]}}
    datasets = tuple(load_dataset(c) for c in configs)
    names = [d.name for d in datasets]
    if len(set(names)) != len(names):
        raise ParameterError(f"datasets must have distinct names, got {names}")
    grid = config.get("grid") or {}
    # a preset on a user's data keeps what the data can take (runner.fit); on its own
    # data, or for what the user named, a method or metric that cannot run is an error
    own_data = any(override_key(o).split(".")[0] in ("dataset", "datasets") for o in overrides)
    grid_notes: list[str] = []
    kept_tables, table_notes = fit_tables(config.get("tables") or (), names if own_data else None)
    if table_notes:  # run.json records the tables that are written
        config = {**config, "tables": kept_tables}
    tables = tuple((str(t["name"]), load_builder(str(t["builder"]))) for t in kept_tables)
    if own_data and not study:
        axes = {override_key(o).partition(".")[2] for o in overrides}
        grid, grid_notes = fit_grid(grid, datasets, axes)
        config = {**config, "grid": grid}  # run.json records the grid that runs
    by_method = config.get("grid_by_method") or {}
    if not isinstance(by_method, Mapping):
        raise ParameterError(f"grid_by_method must map methods to axes, got {by_method!r}")
    if named(overrides, "methods", False) and not any(
        override_key(o).startswith("grid_by_method") for o in overrides
    ):  # the experiment's own k for methods the user's list no longer runs
        by_method = {m: axes for m, axes in by_method.items() if m in methods}
    unknown = [m for m in by_method if m not in methods]
    if unknown:
        raise ParameterError(
            f"grid_by_method.{unknown[0]}: {unknown[0]!r} is not one of methods {list(methods)}"
        )

    def expand(chosen: Sequence[str], dataset: Dataset) -> tuple[Cell, ...]:
        own = {m: axes for m, axes in by_method.items() if m in chosen}
        return tuple(expand_grid(chosen, grid, dataset, method_options, own))

    methods, method_notes = fit_methods(
        methods,
        datasets,
        configs,
        expand,
        explicit=not own_data or named(overrides, "methods", study),
        python=config.get("interface") == "python",
    )
    cells = tuple(cell for d in datasets for cell in expand(methods, d))
    inapplicable = check_choice(
        str(config.get("inapplicable", INAPPLICABLE[0])), "inapplicable", INAPPLICABLE
    )

    skipped: dict[Any, None] = {}  # pairs left out by the data's size (short_notes)

    def check(chosen: Sequence[AttributeMetric | ReleaseMetric]) -> None:
        skipped.update(
            dict.fromkeys(
                check_metrics(datasets, cells, chosen, skip_undefined=inapplicable == "skip")
            )
        )

    declared = (*metrics, *by_attribute)

    def get(name: str) -> AttributeMetric | ReleaseMetric:
        return get_metric(name, metric_options.get(name))

    def nowhere(metric: AttributeMetric | ReleaseMetric) -> str | None:
        """Why ``metric`` is undefined on every cell (a class metric on data without a
        class), so that inapplicable: skip would leave it no row at all."""
        if "target" in metric.requires and all(d.target is None for d in datasets):
            return "the data has no class (dataset.target)"
        return None

    explicit_metrics = not own_data or named(overrides, "metrics", study)
    metrics, metric_notes = fit_metrics(metrics, get, check, explicit_metrics, nowhere)
    by_attribute, by_attribute_notes = fit_metrics(
        by_attribute, get, check, not own_data or named(overrides, "metrics_by_attribute", study)
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
        replaced = not named(overrides, "figures", False) and (
            named(overrides, "metrics", False) or named(overrides, "metrics_by_attribute", False)
        )
        figures, figure_notes = fit_figures(
            figures, (*metrics, *by_attribute), None if replaced else declared, grid
        )
        if own_data:
            figures = retitled(figures, name, shown)
    if not isinstance(config.get("plot_only", False), bool):
        raise ParameterError(f"plot_only must be true or false, got {config['plot_only']!r}")
    results_dir = config.get("results_dir", "results")
    if not isinstance(results_dir, str) or not results_dir.strip():
        raise ParameterError(f"results_dir must name a folder, got {results_dir!r}")
    out_dir = check_results_dir(Path(results_dir))
    profile = str(config.get("profile") or PAPER_PROFILE)
    reading = config.get("reading")
    folder = run_folder(name, reading=reading, overrides=overrides, run_name=config.get("run_name"))
    out_dir = out_dir if profile == PAPER_PROFILE else out_dir / profile
    out_dir = (out_dir / CONFIRMATORY if stage == CONFIRMATORY else out_dir) / folder
    check_size(datasets, cells, reps, metrics, by_attribute)
    return Experiment(
        name,
        datasets,
        cells,
        reps,
        metrics,
        by_attribute,
        seed,
        n_jobs,
        out_dir,
        figures,
        tables,
        config,
        runner_spec(config.get("runner") or {}),
        reading=reading,
        overrides=overrides,
        provenance=provenance(overrides),
        notes=tuple(
            n
            for n in (
                n_jobs_note,
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
    )


#: bytes of memory a result row takes while a run holds it (its dict, then its share of
#: the tables built from the rows): 3.9 kB measured on census_ir at 48 000 and 192 000
#: rows (benchmarks/faults.py), rounded up
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


def runner_spec(config: Mapping[str, Any]) -> RunnerSpec:
    """The validated ``runner`` config group: ``local`` or ``dask`` (with ``address``). A
    scheduler at ``address`` must be reachable and each of its workers run this code and
    these library versions (:func:`~anonlab.runner.workers.check_cluster`)."""
    name = check_choice(str(config.get("name", "local")), "runner", RUNNERS)
    address = config.get("address")
    if name == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError as error:
            raise ParameterError(
                "runner=dask needs dask.distributed: pip install 'dask[distributed]'"
            ) from error
    if name == "dask" and address:
        check_reachable(str(address))
        check_cluster(str(address))  # every worker runs this code, before any work
    return RunnerSpec(name=name, address=str(address) if address else None)


def check_reachable(address: str, timeout: float = 3.0) -> None:
    """Raise a :class:`ParameterError` unless a TCP connection to the Dask scheduler at
    ``address`` (``tcp://host:port``, ``tls://…`` or ``host:port``) opens within
    ``timeout`` seconds; other transports are left to Dask."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp", "tls"):
        return
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise ParameterError(f"runner.address={address!r} must be tcp://host:port")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ParameterError(
            f"runner.address={address!r}: cannot reach a Dask scheduler ({error.strerror or error})"
        ) from None


def draw_figure(table: pd.DataFrame, spec: FigureSpec, directory: Path) -> list[Path] | str:
    """Draw ``spec`` from the result ``table`` and save it in ``directory`` (matplotlib is
    imported here, on first use); a figure the stored rows cannot give (every value of its
    metric left out) is the note saying so, never an error after the sweep."""
    from anonlab.plotting.curves import plot_curves, save_figure
    from anonlab.plotting.maps import plot_map

    try:
        drawn = plot_curves(table, spec) if spec.x_metric is None else plot_map(table, spec)
    except ParameterError as error:
        return f"figure {spec.name!r} is not drawn: {error}"
    return save_figure(drawn, directory, spec.name)


def stored_results(experiment: Experiment) -> pd.DataFrame:
    """The stored results table of ``experiment``. A damaged one (truncated, not Parquet)
    is rebuilt from the run's stored parts when they hold every job under the run's current
    key (:func:`rebuild_results`), with a note; otherwise a :class:`ParameterError` says
    how to recompute it."""
    path = experiment.results_path
    if not path.is_file():
        raise ParameterError(f"no results at {str(path)!r}: run it first")
    try:
        return pd.read_parquet(path)
    except Exception as error:  # any damage: the parts hold the same rows
        why = reason(error)
    try:
        table = rebuild_results(experiment)
    except ParameterError as error:
        raise ParameterError(
            f"{path} is unreadable ({why}) and cannot be rebuilt from its parts ({error}); "
            "run the same command without plot_only=true to recompute it"
        ) from None
    note(f"{path} was unreadable ({why}); it is rebuilt from the run's stored parts")
    return table


def rebuild_results(experiment: Experiment) -> pd.DataFrame:
    """Write ``results.parquet`` again from the stored parts alone, the same bytes a run
    writes, and return it; raises a :class:`ParameterError` saying why when the parts
    were stored under another key (other code or settings) or miss a job. Nothing is
    computed."""
    key = checkpoint_key(experiment.config, git_commit())
    tables = []
    with folder_lock(experiment.out_dir):
        for dataset in experiment.datasets:
            checkpoint = Checkpoint(experiment.parts_dir / dataset.name, key)
            shown = f"parts/{dataset.name}"
            try:
                manifest = checkpoint.manifest()
            except Exception as error:
                raise ParameterError(f"{shown}/manifest.json is unreadable: {error}") from None
            if manifest is None or manifest.get("key") != key:
                raise ParameterError(f"{shown} holds no parts of this code and these settings")
            if PARTS_KEY not in manifest:
                raise ParameterError(f"{shown} holds parts stored without checksums")
            cells = experiment.cells_of(dataset)
            planned = {
                (c.id, r) for _, c, r in plan_jobs(cells, experiment.reps, experiment.metrics)
            }
            frame = checkpoint.load()
            stored = (
                set(zip(frame["cell_id"].astype(int), frame["rep"].astype(int), strict=True))
                if len(frame)
                else set()
            )
            if not planned <= stored:
                raise ParameterError(
                    f"{shown} holds {len(planned & stored)} of {len(planned)} jobs"
                )
            tables.append(assemble(frame, planned, cells, dataset.name))
        table = pd.concat(tables, ignore_index=True)
        table.insert(0, "experiment", experiment.name)
        write_table(table, experiment.results_path)
    return table


def render_experiment(experiment: Experiment, table: pd.DataFrame | None = None) -> list[Path]:
    """Draw every figure and lay out every table of ``experiment`` from its stored results
    (``figures/*.png|pdf``, ``tables/*.csv|md``); a damaged results table is rebuilt from
    the stored parts first (:func:`stored_results`)."""
    if table is None:
        table = stored_results(experiment)
    directory = experiment.out_dir / "figures"
    figures = experiment.figures
    # about 0.5 s a figure (PNG and PDF): drawn in parallel by workers already started
    # (by the grid: their imports are done), else a few here and more in parallel, where
    # starting the workers (about 1.5 s of imports) pays for itself
    parallel = len(figures) > 1 and pool.running() or len(figures) > PARALLEL_FIGURES
    workers = experiment.n_jobs if parallel else 1
    drawn = dict(map_tasks(draw_figure, [(table, spec, directory) for spec in figures], workers))
    for i in range(len(figures)):
        if isinstance(drawn[i], str):
            note(drawn[i])
    paths: list[Path] = [
        p for i in range(len(figures)) if not isinstance(drawn[i], str) for p in drawn[i]
    ]
    for name, builder in experiment.tables:
        try:
            laid_out = builder(table)
        except (KeyError, ValueError) as error:  # a paper table of a run without its axes
            note(f"table {name!r} is not laid out: this run lacks what it needs ({error!r})")
            continue
        legend = getattr(builder, "legend", None)  # how to read its cells, if it says
        paths += write_table_files(laid_out, experiment.out_dir / "tables", name, legend)
    return paths


def run_grid(
    experiment: Experiment,
    *,
    progress: bool = True,
    resume: bool = False,
    workers: dict[str, Any] | None = None,
) -> pd.DataFrame:
    """The tidy result table of every data set's cells × repetitions. With ``resume``, each
    finished batch is stored under :attr:`Experiment.parts_dir` and jobs stored by an earlier
    run with the same seed, metrics, data sets and code are not recomputed, while the
    results folder is locked (:func:`~anonlab.runner.checkpoint.folder_lock`): a second run
    into it waits, then reuses the first's parts. Otherwise nothing is written. A Dask run
    records its workers' code digests and versions in ``workers``."""
    key = checkpoint_key(experiment.config, git_commit()) if resume else ""
    totals = [
        count_jobs(experiment.cells_of(d), experiment.reps, experiment.metrics)
        for d in experiment.datasets
    ]
    tables = []
    with folder_lock(experiment.out_dir) if resume else nullcontext():
        for index, dataset in enumerate(experiment.datasets):
            try:
                tables.append(
                    run_cells(
                        dataset,
                        experiment.cells_of(dataset),
                        reps=experiment.reps,
                        master_seed=experiment.seed,
                        metrics=experiment.metrics,
                        metrics_by_attribute=experiment.metrics_by_attribute,
                        n_jobs=experiment.n_jobs,
                        progress=progress,
                        runner=experiment.runner,
                        label=f"{experiment.label} [{dataset.name}]",
                        metric_options=experiment.metric_options,
                        workers=workers,
                        checkpoint=(
                            Checkpoint(experiment.parts_dir / dataset.name, key).open()
                            if resume
                            else None
                        ),
                    )
                )
            except Interrupted as stop:  # the whole experiment's count, and its folder
                stored = sum(totals[:index]) + stop.stored if resume else 0
                raise Interrupted(stored, sum(totals), experiment.out_dir) from None
        table = pd.concat(tables, ignore_index=True)
    table.insert(0, "experiment", experiment.name)
    return table


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
        workers: dict[str, Any] = {}
        table = run_grid(experiment, progress=progress, resume=True, workers=workers)
        wall = time.perf_counter() - clock
        here = facts()
        write_table(table, experiment.results_path)
        write_json(
            {
                "experiment": experiment.name,
                "reading": experiment.reading,
                "provenance": experiment.provenance,
                "overrides": list(experiment.overrides),
                "config": dict(config),
                "versions": {**package_versions(), **here["versions"]},
                "source_sha256": here["source_sha256"],
                # a Dask run's workers: each one's code digest and versions, checked equal
                "workers": workers or None,
                "git": git_commit(),
                "started_at": started.isoformat(),
                "wall_time_s": round(wall, 3),
                "n_cells": len(experiment.cells),
                "n_rows": len(table),
                "datasets": [
                    {
                        "name": d.name,
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
        render_experiment(experiment, pd.read_parquet(experiment.results_path))
    return table
