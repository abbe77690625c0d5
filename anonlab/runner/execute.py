"""Run cells × repetitions with joblib; results are independent of the number of workers."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from tqdm.auto import tqdm

from anonlab.datasets import Dataset
from anonlab.guarantee import BOOL_COLUMNS as GUARANTEE_BOOLS
from anonlab.guarantee import FLOAT_COLUMNS as GUARANTEE_FLOATS
from anonlab.guarantee import INT_COLUMNS as GUARANTEE_INTS
from anonlab.guarantee import TEXT_COLUMNS as GUARANTEE_TEXTS
from anonlab.methods import Method, grid_axes, method_class
from anonlab.metrics import get_attribute_metric, get_metric
from anonlab.metrics.base import CONTROL_SHARES, control_split
from anonlab.plotting.spec import ROW_COLUMNS
from anonlab.release import Release
from anonlab.runner import pool
from anonlab.runner.checkpoint import ROW_KEY, Checkpoint
from anonlab.runner.grid import Cell
from anonlab.runner.pool import map_tasks
from anonlab.runner.seeds import control_rng_for, held_out_rng_for, metric_rng_for, rng_for
from anonlab.runner.validate import LOCAL, RunnerSpec
from anonlab.runner.workers import check_workers, dask_client, fingerprint, require_same

Job = tuple[int, Cell, int]  # (cell index, cell, repetition)
Options = Mapping[str, Mapping[str, Any]]  # {metric name: {option: value}}


@dataclass(frozen=True)
class _Metrics:
    """A batch's metrics, resolved once: ``(name, metric)`` pairs of the release metrics
    and of the per-attribute ones, and whether any draws random numbers."""

    release: tuple[tuple[str, Any], ...]
    by_attribute: tuple[tuple[str, Any], ...]
    randomized: bool

    @classmethod
    def of(
        cls,
        metrics: Sequence[str],
        metrics_by_attribute: Sequence[str],
        metric_options: Options | None,
    ) -> _Metrics:
        options = metric_options or {}
        release = tuple((name, get_metric(name, options.get(name))) for name in metrics)
        by_attribute = tuple(
            (name, get_attribute_metric(name, options.get(name))) for name in metrics_by_attribute
        )
        return cls(release, by_attribute, any(m.randomized for _, m in release))


def run_job(
    view: Dataset,
    job: Job,
    master_seed: int,
    metrics: Sequence[str],
    metrics_by_attribute: Sequence[str],
    metric_options: Options | None = None,
) -> list[dict[str, Any]]:
    """Protect one (cell, repetition) of the cell's data set ``view`` and evaluate every
    metric on it, each with its ``metric_options``."""
    return _run_job(
        view, job, master_seed, _Metrics.of(metrics, metrics_by_attribute, metric_options)
    )


def _run_job(
    view: Dataset, job: Job, master_seed: int, metrics: _Metrics, method: Method | None = None
) -> list[dict[str, Any]]:
    """:func:`run_job` with the metrics resolved and, optionally, the cell's method built
    (a method holds only its parameters, so the repetitions of a cell share it)."""
    _, cell, rep = job
    method = method or cell.build()
    release = method.release(view, rng_for(master_seed, cell.id, rep))
    base = {
        "method": cell.method,
        **cell.param_dict,
        "rep": rep,
        "seed": master_seed,
        "cell_id": cell.id,
        **release.guarantee.as_columns(),
    }
    rows: list[dict[str, Any]] = []
    # the child stream is derived only for a randomized metric: deriving costs per job
    metric_rng = metric_rng_for(master_seed, cell.id, rep) if metrics.randomized else None
    held_out: dict[float, Release] = {}  # the release of the training records, per share
    for name, metric in metrics.release:
        if metric.undefined(view, method):  # allowed by config inapplicable: skip
            continue
        measured = release
        if "control" in metric.requires:
            share = dict(metric.options).get("control", CONTROL_SHARES[0])
            if share not in held_out:
                held_out[share] = release_held_out(view, method, share, master_seed, cell.id, rep)
            measured = held_out[share]
        value = metric.of_release(view, measured, metric_rng)
        parts = value.items() if isinstance(value, dict) else [(None, value)]
        rows.extend({**base, "metric": name, "attribute": part, "value": v} for part, v in parts)
    if metrics.by_attribute:
        original, attributes = view.protected_values, view.protected_attributes
    for name, by_attribute in metrics.by_attribute:
        if by_attribute.undefined(view, method):
            continue
        values = by_attribute.values(original, release.values, attributes)
        for attribute, value in zip(view.protected, values, strict=True):
            rows.append({**base, "metric": name, "attribute": attribute, "value": float(value)})
    return rows


def release_held_out(
    view: Dataset, method: Method, share: float, master_seed: int, cell: int, rep: int
) -> Release:
    """The method's release of the training records of ``view`` with a share ``share``
    held out as control records (:attr:`~anonlab.release.Release.control`): what
    attack-based risks measure. The split is the repetition's, the same for every cell;
    the method draws from a stream of its own, so the cell's main release is unchanged."""
    training, control = control_split(view.n, share, control_rng_for(master_seed, rep))
    released = method.release(view.rows(training), held_out_rng_for(master_seed, cell, rep))
    return replace(released, control=view.rows(control))


def run_batch(
    dataset: Dataset,
    jobs: Sequence[Job],
    master_seed: int,
    metrics: Sequence[str],
    metrics_by_attribute: Sequence[str],
    metric_options: Options | None = None,
) -> tuple[int, list[dict[str, Any]]]:
    """Run a batch of jobs in one worker (the data set is shipped once per batch);
    returns the number of jobs run and their rows."""
    rows: list[dict[str, Any]] = []
    resolved = _Metrics.of(metrics, metrics_by_attribute, metric_options)
    views: dict[tuple[Any, ...], Dataset] = {}  # one view (and matrix) per data set axis value
    method, built_for = None, None
    for job in jobs:
        cell = job[1]
        key = cell.view_key
        if key not in views:
            views[key] = cell.view(dataset)
        if cell.id != built_for:
            method, built_for = cell.build(), cell.id
        rows.extend(_run_job(views[key], job, master_seed, resolved, method))
    return len(jobs), rows


def plan_jobs(
    cells: Sequence[Cell], reps: int, metrics: Sequence[str] = (), first_rep: int = 0
) -> list[Job]:
    """Every (cell, repetition); deterministic methods run once (rep 0) unless a metric
    is randomized (a random forest), whose repetitions they then share, or measures the
    machine (run time): then every cell runs ``reps`` times, repetition by repetition
    (all cells' first repetition, then their second, …), so that a change of the
    machine's speed during the run falls on every cell alike rather than on one.
    ``first_rep``: only the repetitions from it on (a later look of the pre-registered
    plan adds repetitions to those stored; each repetition's stream depends on its index
    alone, :mod:`anonlab.runner.seeds`)."""
    measured = any(get_metric(name).measured for name in metrics)
    jobs: list[Job] = []
    runs_per_cell = _runs_per_cell(cells, reps, metrics)
    for index, (cell, runs) in enumerate(zip(cells, runs_per_cell, strict=True)):
        jobs.extend((index, cell, rep) for rep in range(first_rep, runs))
    if measured:  # interleaved: the order of the work, not of the results (sorted later)
        jobs.sort(key=lambda job: (job[2], job[0]))
    return jobs


def _runs_per_cell(cells: Sequence[Cell], reps: int, metrics: Sequence[str]) -> list[int]:
    """How many repetitions of each cell :func:`plan_jobs` plans: ``reps``, or 1."""
    resolved = [get_metric(name) for name in metrics]
    repeat_all = any(m.randomized or m.measured for m in resolved)
    return [reps if repeat_all or method_class(c.method).randomized else 1 for c in cells]


def count_jobs(cells: Sequence[Cell], reps: int, metrics: Sequence[str] = ()) -> int:
    """``len(plan_jobs(cells, reps, metrics))``, without building the plan."""
    return sum(_runs_per_cell(cells, reps, metrics))


class Interrupted(KeyboardInterrupt):
    """Ctrl-C during a sweep, saying how many of its ``total`` jobs are ``stored`` (in
    parts a run of the same command loads instead of recomputing) and where."""

    def __init__(self, stored: int, total: int, folder: Any = None) -> None:
        super().__init__(stored, total, folder)
        self.stored, self.total, self.folder = stored, total, folder

    def line(self) -> str:
        """The one line the command line prints for it."""
        where = f" in {self.folder}" if self.folder is not None else ""
        return (
            f"interrupted: {self.stored} of {self.total} jobs (cell x repetition) stored"
            f"{where}; run the same command to resume"
        )


LOST_RETRIES = 2  # reruns of jobs whose parts cannot be loaded back before giving up


def _split(jobs: Sequence[Job], n_batches: int) -> list[list[Job]]:
    n_batches = min(len(jobs), max(1, n_batches))
    return [[jobs[i] for i in b] for b in np.array_split(np.arange(len(jobs)), n_batches) if len(b)]


def _local_batches(
    dataset: Dataset, jobs: Sequence[Job], args: tuple[Any, ...], n_jobs: int
) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    processes = 1 if n_jobs == 1 else pool.helpers(n_jobs) + 1
    tasks = [(dataset, batch, *args) for batch in _split(jobs, processes * 8)]
    for _, done in map_tasks(run_batch, tasks, n_jobs):  # this process and n_jobs − 1 workers
        yield done


#: records of the slice of the data a Dask worker warms its compiled kernels on (at
#: least 4 k, so every cell's k fits): the same column types as the run's, so numba
#: compiles, or loads from its cache, the functions the run's batches call
WARM_RECORDS = 256
_warmed: set[tuple[Any, ...]] = set()  # in a worker: what it has warmed up already


def _warm_batch(
    expected: str, dataset: Dataset, jobs: Sequence[Job], *args: Any
) -> list[tuple[Any, ...]]:
    """In a Dask worker: run each of ``jobs`` once on a slice of the data, rows discarded,
    unless this process did for its method, data set and metrics; returns what it warmed.
    A job failing on the slice is left to the run to report."""
    require_same(expected)
    warmed = []
    for job in jobs:
        key = (dataset.name, job[1].method, *map(repr, args[1:]))
        if key in _warmed:
            continue
        k = int(job[1].param_dict.get("k") or 1)
        size = min(dataset.n, max(WARM_RECORDS, 4 * k))
        target = None if dataset.target is None else dataset.target.iloc[:size]
        small = replace(dataset, frame=dataset.frame.iloc[:size], target=target)
        try:
            run_batch(small, [job], *args)
        except Exception:  # warming is best effort: the run itself reports errors
            pass
        _warmed.add(key)
        warmed.append(key)
    return warmed


def _checked_batch(
    expected: str, dataset: Dataset, jobs: Sequence[Job], *args: Any
) -> tuple[int, list[dict[str, Any]]]:
    """:func:`run_batch` in a Dask worker that runs the client's code and libraries
    (:func:`~anonlab.runner.workers.require_same`), refused otherwise."""
    require_same(expected)
    return run_batch(dataset, jobs, *args)


def warm_workers(
    client: Any, shared: Any, jobs: Sequence[Job], args: tuple[Any, ...], expected: str
) -> None:
    """Have every worker of ``client`` run one job of each method of ``jobs`` on a slice of
    the data (:func:`_warm_batch`): first one worker per host, then the others. A host's
    first worker compiles the numba kernels into the cache beside the modules (13.7 CPU-s
    measured when it is cold); its other workers then load them from it (1.8 s) instead
    of compiling them too, and no timed job (``runtime``) pays for either."""
    firsts: dict[str, Job] = {}
    for job in jobs:
        firsts.setdefault(job[1].method, job)
    by_host: dict[str, list[str]] = {}
    for address in sorted(client.nthreads()):
        by_host.setdefault(address.rsplit(":", 1)[0], []).append(address)
    waves = [[a[0] for a in by_host.values()], [w for a in by_host.values() for w in a[1:]]]
    for wave in waves:
        client.gather(
            [
                client.submit(
                    _warm_batch,
                    expected,
                    shared,
                    list(firsts.values()),
                    *args,
                    workers=[address],
                    allow_other_workers=False,
                    pure=False,
                )
                for address in wave
            ]
        )


def _dask_batches(
    dataset: Dataset,
    jobs: Sequence[Job],
    args: tuple[Any, ...],
    n_jobs: int,
    address: str | None,
    workers: dict[str, Any] | None = None,
) -> Iterator[tuple[int, list[dict[str, Any]]]]:
    """The batches of ``jobs`` run by a Dask cluster: the scheduler at ``address``, or a
    local cluster of ``n_jobs`` worker processes. Every worker's code and libraries are
    checked against this process's before any task (one
    :class:`~anonlab.runner.workers.WorkerMismatch` naming those that differ), recorded in
    ``workers`` (``{address: facts}``), and each warms its kernels (:func:`warm_workers`);
    every batch is refused by a worker that joined since with other code."""
    from dask.distributed import as_completed

    with dask_client(address, n_jobs) as client:
        found = check_workers(client)  # client.run: no task is submitted before it passes
        if workers is not None:
            workers.update(found)
        expected = fingerprint()
        threads = sum(client.nthreads().values()) or 1
        shared = client.scatter(dataset, broadcast=True)
        warm_workers(client, shared, jobs, args, expected)
        futures = [
            client.submit(_checked_batch, expected, shared, batch, *args, pure=False)
            for batch in _split(jobs, threads * 8)
        ]
        for future in as_completed(futures):
            yield future.result()


def run_cells(
    dataset: Dataset,
    cells: Sequence[Cell],
    *,
    reps: int,
    master_seed: int,
    metrics: Sequence[str],
    metrics_by_attribute: Sequence[str] = (),
    n_jobs: int = -1,
    progress: bool = True,
    checkpoint: Checkpoint | None = None,
    runner: RunnerSpec = LOCAL,
    label: str | None = None,
    metric_options: Options | None = None,
    workers: dict[str, Any] | None = None,
    first_rep: int = 0,
) -> pd.DataFrame:
    """Run all cells (repetitions ``first_rep`` to ``reps`` − 1) and return the tidy
    result table in a worker-independent order.
    ``label`` names the progress bar (``census_ir@reading [census]``); ``metric_options``
    (``{metric: {option: value}}``) sets the metrics' options (the methods' are on the
    cells). A Dask run records in ``workers`` each worker's code digest and library
    versions (:func:`~anonlab.runner.workers.facts`), checked against this process's.

    With a ``checkpoint``, jobs whose rows it holds are skipped, every finished batch is
    stored at once, and the table is assembled from the stored parts (resumable runs);
    jobs whose parts turn out unreadable are recomputed, and once every job is stored the
    parts are compacted into one.
    """
    jobs = plan_jobs(cells, reps, metrics, first_rep)
    planned = {(cell.id, rep) for _, cell, rep in jobs}
    args = (master_seed, metrics, metrics_by_attribute, dict(metric_options or {}))

    def run(todo: Sequence[Job], bar: tqdm) -> list[dict[str, Any]]:
        if not todo:
            return []
        batches = (
            _dask_batches(dataset, todo, args, n_jobs, runner.address, workers)
            if runner.name == "dask"
            else _local_batches(dataset, todo, args, n_jobs)
        )
        rows: list[dict[str, Any]] = []
        try:
            for done, batch_rows in batches:
                if checkpoint is not None:
                    checkpoint.save(batch_rows)
                    saved[0] += done
                rows.extend(batch_rows)
                bar.update(done)
        except KeyboardInterrupt:  # said in one line by the command line
            raise Interrupted(min(saved[0], len(jobs)), len(jobs)) from None
        return rows

    stored = checkpoint.load() if checkpoint is not None else pd.DataFrame()
    finished = _jobs_of(stored)
    todo = [job for job in jobs if (job[1].id, job[2]) not in finished]
    saved = [len(jobs) - len(todo)]  # jobs stored so far, for a Ctrl-C to report
    with tqdm(
        total=len(jobs),
        initial=len(jobs) - len(todo),
        desc=label or "cells x reps",
        unit="run",
        disable=not progress,
    ) as bar:
        rows = run(todo, bar)
        if checkpoint is None:
            frame = pd.DataFrame(rows)
        else:
            # every stored or new job must load back; one whose part became unreadable
            # (or vanished) since is run again
            expected = finished | {(int(r["cell_id"]), int(r["rep"])) for r in rows}
            for attempt in range(LOST_RETRIES + 1):
                frame = checkpoint.load()
                finished = _jobs_of(frame)
                gone = expected - finished
                lost = [job for job in jobs if (job[1].id, job[2]) in gone]
                if not lost:
                    break
                if attempt == LOST_RETRIES:
                    raise RuntimeError(
                        f"the parts under {checkpoint.directory} keep "
                        "disappearing: is another program deleting them?"
                    )
                bar.total += len(lost)
                run(lost, bar)
            if planned <= finished:
                frame = checkpoint.compact(frame)
    return assemble(frame, planned, cells, dataset.name)


def assemble(
    frame: pd.DataFrame, planned: set[tuple[int, int]], cells: Sequence[Cell], dataset: str
) -> pd.DataFrame:
    """The tidy table of the ``planned`` (cell id, repetition) jobs' rows in ``frame``
    (rows of a run, or of its stored parts), as :func:`run_cells` returns it."""
    # a job stored twice (two runs sharing a folder) counts once, from the first part
    frame = frame.drop_duplicates(ROW_KEY, keep="first")
    keep = [
        (int(c), int(r)) in planned for c, r in zip(frame["cell_id"], frame["rep"], strict=True)
    ]
    return tidy_table(frame[keep], cells, dataset)


def _jobs_of(frame: pd.DataFrame) -> set[tuple[int, int]]:
    """The (cell id, repetition) jobs with rows in ``frame``."""
    if not len(frame):
        return set()
    return set(zip(frame["cell_id"].astype(int), frame["rep"].astype(int), strict=True))


def tidy_table(frame: pd.DataFrame, cells: Sequence[Cell], dataset: str) -> pd.DataFrame:
    """Rows sorted by (cell, rep, metric order, attribute), with typed parameter columns;
    each job's rows must be contiguous and in metric order in ``frame``."""
    frame = frame.copy()
    position = {cell.id: index for index, cell in enumerate(cells)}
    frame["_cell"] = [position[int(c)] for c in frame["cell_id"]]
    frame["_metric_order"] = frame.groupby(["_cell", "rep"], sort=False).cumcount()
    frame = frame.sort_values(["_cell", "rep", "_metric_order"], kind="stable")
    frame = frame.drop(columns=["_cell", "_metric_order"]).reset_index(drop=True)
    frame.insert(0, "dataset", dataset)
    axes = list(dict.fromkeys(a for cell in cells for a, _ in cell.params))
    declared = grid_axes()
    for axis in axes:
        values = frame[axis]
        if axis in declared and declared[axis].kind is int:  # k, m: whole numbers
            frame[axis] = values.astype("Int64")
        elif pd.api.types.is_numeric_dtype(values):
            frame[axis] = values.astype(float)
    ordered = ["dataset", "method", *axes, *ROW_COLUMNS]
    frame["attribute"] = frame["attribute"].astype("string")
    for column in GUARANTEE_INTS:
        frame[column] = frame[column].astype("Int64")
    for column in GUARANTEE_FLOATS:
        frame[column] = frame[column].astype(float)
    for column in GUARANTEE_BOOLS:
        frame[column] = frame[column].astype("boolean")
    for column in GUARANTEE_TEXTS:  # one dtype whatever a batch held (None or text)
        frame[column] = frame[column].astype("string")
    return frame[ordered]
