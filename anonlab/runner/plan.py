"""The plan stage: what a built experiment will cost, known before any job runs.

After validation (:mod:`~anonlab.runner.validate`) and the fit to the data
(:mod:`~anonlab.runner.fit`), the experiment's cells, repetitions and metrics are known,
and so are the data sets' sizes. :func:`estimate` adds up, over every job the run will
compute (:func:`~anonlab.runner.execute.count_jobs`: a deterministic method once, a
randomized one per repetition), the declared cost of the method's release and of each
metric's value (:class:`~anonlab.cost.Cost`, each component's own ``cost``), the method's
rerun on the training records of the attack-based risks, and :data:`JOB_SECONDS` of
bookkeeping; then the tables computed once per code version whose cache is cold
(:mod:`~anonlab.runner.artifacts`) and the figures. The work is spread over the workers
(``n_jobs``, capped to the cores), and no job runs faster than its own cost.

:func:`plan` says the estimate in one ``note:`` above :data:`NOTE_SECONDS`, and refuses a
run estimated above the config's ``max_hours`` (:data:`~anonlab.runner.validate.
DEFAULT_MAX_HOURS` unless raised) with one error naming the key, the estimate, the largest
contributors and how to raise it. The estimate counts every planned job, those a resumed
run finds stored too: it is what the run costs from scratch.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from anonlab.cost import Cost, duration
from anonlab.metrics import get_attribute_metric, get_metric
from anonlab.runner.artifacts import CACHE_KEY, cache_path, check_cache_dir, data_independent
from anonlab.runner.execute import count_jobs
from anonlab.runner.validate import MAX_HOURS_KEY
from anonlab.validation import ParameterError

if TYPE_CHECKING:
    from anonlab.datasets import Dataset
    from anonlab.methods import Method
    from anonlab.runner.experiment import Experiment
    from anonlab.runner.grid import Cell

#: seconds of a job beyond its method and metrics: seeding, the release's guarantee, its
#: result rows and their share of a batch (measured by ``benchmarks/timings/cost_model.py``)
JOB_SECONDS = 0.001
#: seconds of one figure, drawn in PNG and PDF
FIGURE_SECONDS = 0.5
#: a run estimated above this many seconds is announced with its estimate
NOTE_SECONDS = 60.0
#: how many of the largest contributors an estimate names
SHOWN = 3


@dataclass(frozen=True)
class Part:
    """One contributor to an estimate: a method's releases on one data set, a metric's
    values on one data set, a table or the figures, with its seconds of work (on one
    core) and its jobs."""

    what: str
    seconds: float
    jobs: int = 0


@dataclass(frozen=True)
class Estimate:
    """The cost of a run: its ``parts`` (seconds of work on one core), the ``workers``
    that share them and the ``seconds`` of wall time they take (:func:`estimate`)."""

    parts: tuple[Part, ...]
    workers: int
    seconds: float

    @property
    def work(self) -> float:
        """Seconds of work on one core."""
        return sum(p.seconds for p in self.parts)

    def __add__(self, other: Estimate) -> Estimate:
        """Two runs one after the other (``+experiment=all``), parts named alike merged."""
        merged: dict[str, Part] = {}
        for part in (*self.parts, *other.parts):
            seen = merged.get(part.what)
            if seen is not None:
                part = Part(part.what, seen.seconds + part.seconds, seen.jobs + part.jobs)
            merged[part.what] = part
        workers = max(self.workers, other.workers)
        return Estimate(tuple(merged.values()), workers, self.seconds + other.seconds)

    def largest(self, count: int = SHOWN) -> list[Part]:
        """The ``count`` parts with the most work, the most first."""
        return sorted(self.parts, key=lambda p: -p.seconds)[:count]

    def contributors(self) -> str:
        """The largest parts with their share of the work: ``mdav on 'x' (1 job) 99%``."""
        work = self.work or 1.0
        shown = []
        for part in self.largest():
            share = 100 * part.seconds / work
            jobs = f" ({part.jobs:,} job{'s' if part.jobs != 1 else ''})" if part.jobs else ""
            shown.append(
                f"{part.what}{jobs} {share:.0f}%" if share >= 1 else f"{part.what}{jobs} <1%"
            )
        return ", ".join(shown)

    def summary(self) -> str:
        """``about 12 min of work on 2 workers (largest: …)``."""
        workers = f"{self.workers} worker{'s' if self.workers != 1 else ''}"
        return (
            f"about {duration(self.seconds)} of work on {workers} (largest: {self.contributors()})"
        )


def _sizes(view: Dataset, cell: Cell, n: int | None = None) -> dict[str, Any]:
    """The sizes a cost formula names, for ``cell`` on ``view`` (``n``: another count of
    records, the training part of an attack)."""
    params = cell.param_dict
    return {
        "n": view.n if n is None else n,
        "m": len(view.protected),
        "k": params.get("k"),
        "t": params.get("t"),
        "epsilon": params.get("epsilon"),
    }


def _seconds(cost: Cost, sizes: Mapping[str, Any], what: str) -> float:
    """``cost`` at ``sizes``; a formula naming a size the cell lacks (a method's cost in
    an axis it does not take) raises a :class:`TypeError` naming ``what``."""
    try:
        return cost.of(**sizes)
    except KeyError as error:
        raise TypeError(f"{what}: {error.args[0]}") from None


def cell_seconds(
    view: Dataset, cell: Cell, method: Method, metrics: Sequence[Any], by_attribute: Sequence[Any]
) -> tuple[float, float, dict[str, float]]:
    """Seconds of one job of ``cell`` on ``view``: the method's release; its reruns on the
    training records that the metrics of control records measure (one per training part,
    as :func:`~anonlab.runner.execute.release_held_out` makes them); and each metric it
    computes (undefined ones left out, as the jobs leave them), ``{metric name:
    seconds}``."""
    sizes = _sizes(view, cell)
    what = f"method {cell.method!r}"
    release = _seconds(method.cost, sizes, what)
    spent: dict[str, float] = {}
    training: set[int] = set()
    for metric in (*metrics, *by_attribute):
        if metric.undefined(view, method):
            continue
        seconds = _seconds(metric.cost, sizes, f"metric {metric.name!r}")
        spent[metric.name] = spent.get(metric.name, 0.0) + seconds
        if metric.training_records(view) is not None:
            training.add(metric.training_records(view))
    rerun = sum(_seconds(method.cost, _sizes(view, cell, n), what) for n in training)
    return release, rerun, spent


def table_seconds(builder: Callable[..., Any]) -> float | None:
    """Seconds of work (on one core) of a table builder that declares its ``cost`` (a
    :class:`~anonlab.cost.Cost` of no size: computed on its own data), else ``None``."""
    cost = getattr(builder, "cost", None)
    return cost.of() if isinstance(cost, Cost) else None


def cold_tables(
    experiment: Experiment, counted: set[Path] | None = None
) -> list[tuple[str, Callable[..., Any]]]:
    """The tables of ``experiment`` computed once per code version whose cache holds no
    copy yet (:mod:`~anonlab.runner.artifacts`): the run computes them. A table whose cache
    file is in ``counted`` (computed by an earlier run of the same command) is left out,
    and the others are added to it."""
    if experiment.config.get("plot_only", False):
        return []
    folder = check_cache_dir(experiment.config.get(CACHE_KEY))
    cold = []
    for name, builder in experiment.tables:
        if not data_independent(builder):
            continue
        path = cache_path(name, builder, folder)
        if path.is_file() or (counted is not None and path in counted):
            continue
        if counted is not None:
            counted.add(path)
        cold.append((name, builder))
    return cold


def workers_of(n_jobs: int) -> int:
    """The processes that share a run's jobs for ``n_jobs`` (negative: counted from the
    cores, joblib's convention), at least one."""
    if n_jobs == 1:  # no pool: joblib is not imported
        return 1
    from joblib import effective_n_jobs

    return max(1, effective_n_jobs(n_jobs))


def estimate(experiment: Experiment, counted: set[Path] | None = None) -> Estimate:
    """The work of ``experiment``'s run from scratch: every planned job's method and
    metrics (:func:`cell_seconds`, times the jobs :func:`~anonlab.runner.execute.
    count_jobs` plans for its cell) and :data:`JOB_SECONDS` each, the cold tables
    (:func:`cold_tables`, :func:`table_seconds`; those in ``counted`` left out) and the
    figures."""
    options = experiment.metric_options
    metrics = [get_metric(n, options.get(n)) for n in experiment.metrics]
    by_attribute = [
        get_attribute_metric(n, options.get(n)) for n in experiment.metrics_by_attribute
    ]
    parts: dict[str, list[float]] = {}  # what → [seconds, jobs]

    def add(what: str, seconds: float, jobs: int) -> None:
        entry = parts.setdefault(what, [0.0, 0])
        entry[0] += seconds
        entry[1] += jobs

    longest, total_jobs = 0.0, 0
    for dataset in experiment.datasets:
        views: dict[Any, Dataset] = {}
        for cell in experiment.cells_of(dataset):
            key = cell.view_key
            if key not in views:
                views[key] = cell.view(dataset)
            jobs = count_jobs([cell], experiment.reps, experiment.metrics)
            release, rerun, spent = cell_seconds(
                views[key], cell, cell.build(), metrics, by_attribute
            )
            add(f"{cell.method} on {dataset.name!r}", jobs * release, jobs)
            if rerun:  # for the attack-based risks
                add(f"{cell.method} on {dataset.name!r} training part (attacks)", jobs * rerun, 0)
            for name, seconds in spent.items():
                add(f"metric {name} on {dataset.name!r}", jobs * seconds, 0)
            longest = max(longest, release + rerun + sum(spent.values()) + JOB_SECONDS)
            total_jobs += jobs
    if total_jobs:
        add("job overhead", total_jobs * JOB_SECONDS, total_jobs)
    after = 0.0
    for name, builder in cold_tables(experiment, counted):
        seconds = table_seconds(builder)
        if seconds:
            add(f"table {name}", seconds, 0)
            after += seconds
    if experiment.figures:
        add("figures", len(experiment.figures) * FIGURE_SECONDS, 0)
        after += len(experiment.figures) * FIGURE_SECONDS
    workers = workers_of(experiment.n_jobs)
    work = sum(seconds for seconds, _ in parts.values())
    # the grid's jobs shared by the workers (no worker splits one), then what comes after
    wall = max((work - after) / workers, longest) + after / workers
    return Estimate(
        tuple(Part(what, seconds, int(jobs)) for what, (seconds, jobs) in parts.items()),
        workers,
        wall,
    )


def suggested_hours(seconds: float) -> float:
    """A round ``max_hours`` above an estimate of ``seconds`` with a margin: 1, 2 or 5
    times a power of ten, at least 1.5 times the estimate."""
    need = 1.5 * seconds / 3600
    power = 10 ** math.floor(math.log10(need)) if need > 0 else 1.0
    for step in (1, 2, 5, 10):
        if step * power >= need:
            return float(f"{step * power:.3g}")
    raise AssertionError  # pragma: no cover


def _hours(value: float) -> str:
    return f"{value:g}"


def check_hours(total: Estimate, max_hours: float) -> None:
    """Raise a :class:`ParameterError` naming ``max_hours`` when ``total`` is estimated
    above it: the estimate, its largest contributors and the value that would let it
    run."""
    if total.seconds <= max_hours * 3600:
        return
    raise ParameterError(
        f"this run would take {total.summary()}, above {MAX_HOURS_KEY}={_hours(max_hours)} "
        f"({duration(max_hours * 3600)}); to run it anyway raise the limit, "
        f"{MAX_HOURS_KEY}={_hours(suggested_hours(total.seconds))}, or shrink the run (fewer "
        "records, grid values, methods, metrics or reps)"
    )


def plan(experiments: Iterable[Experiment], max_hours: float) -> str | None:
    """The plan of ``experiments`` run one after the other: refused above ``max_hours``
    (:func:`check_hours`), else the note announcing it when it is estimated above
    :data:`NOTE_SECONDS` (``None`` below)."""
    return planned_total(experiments, max_hours)[1]


def planned_total(
    experiments: Iterable[Experiment], max_hours: float
) -> tuple[Estimate | None, str | None]:
    """:func:`plan`'s estimate of ``experiments`` run one after the other (``None`` for
    none) with its note: the command line also reads off it whether the run pays for a
    worker pool (:data:`~anonlab.runner.pool.POOL_SECONDS`)."""
    counted: set[Path] = set()  # a table cached by one experiment is not paid again
    estimates = [estimate(e, counted) for e in experiments]
    if not estimates:
        return None, None
    total = estimates[0]
    for more in estimates[1:]:
        total = total + more
    check_hours(total, max_hours)
    return total, (None if total.seconds <= NOTE_SECONDS else total.summary())


__all__ = [
    "FIGURE_SECONDS",
    "JOB_SECONDS",
    "NOTE_SECONDS",
    "Estimate",
    "Part",
    "cell_seconds",
    "check_hours",
    "cold_tables",
    "estimate",
    "plan",
    "planned_total",
    "suggested_hours",
    "table_seconds",
    "workers_of",
]
