"""Run cells × repetitions with joblib; results are independent of the number of workers."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from tqdm.auto import tqdm

from anonlab.datasets import Dataset
from anonlab.methods import method_class
from anonlab.metrics import get_attribute_metric, get_metric
from anonlab.runner.grid import DATASET_AXES, Cell
from anonlab.runner.seeds import metric_rng_for, rng_for

Job = tuple[int, Cell, int]  # (cell index, cell, repetition)


def run_job(
    view: Dataset,
    job: Job,
    master_seed: int,
    metrics: Sequence[str],
    metrics_by_attribute: Sequence[str],
) -> list[dict[str, Any]]:
    """Protect one (cell, repetition) of the cell's data set ``view`` and evaluate every
    metric on it."""
    index, cell, rep = job
    method, rng = cell.build(), rng_for(master_seed, cell.id, rep)
    clock = time.perf_counter()
    release = method.protect(view, rng)
    release = replace(release, seconds=time.perf_counter() - clock)
    base = {"_cell": index, "method": cell.method, **cell.param_dict, "rep": rep,
            "seed": master_seed, "cell_id": cell.id}
    original, attributes = view.protected_values, view.protected_attributes
    rows: list[dict[str, Any]] = []
    metric_rng = metric_rng_for(master_seed, cell.id, rep)
    for name in metrics:
        value = get_metric(name).of_release(view, release, metric_rng)
        parts = value.items() if isinstance(value, dict) else [(None, value)]
        rows.extend({**base, "metric": name, "attribute": part, "value": v} for part, v in parts)
    for name in metrics_by_attribute:
        values = get_attribute_metric(name).per_attribute(original, release.values, attributes)
        for attribute, value in zip(view.protected, values, strict=True):
            rows.append({**base, "metric": name, "attribute": attribute, "value": float(value)})
    return rows


def run_batch(dataset: Dataset, jobs: Sequence[Job], master_seed: int, metrics: Sequence[str],
              metrics_by_attribute: Sequence[str]) -> tuple[int, list[dict[str, Any]]]:
    """Run a batch of jobs in one worker (the data set is shipped once per batch);
    returns the number of jobs run and their rows."""
    rows: list[dict[str, Any]] = []
    views: dict[tuple[Any, ...], Dataset] = {}  # one view (and matrix) per data set axis value
    for job in jobs:
        cell = job[1]
        key = tuple(v for a, v in cell.params if a in DATASET_AXES)
        if key not in views:
            views[key] = cell.view(dataset)
        view = views[key]
        rows.extend(run_job(view, job, master_seed, metrics, metrics_by_attribute))
    return len(jobs), rows


def plan_jobs(cells: Sequence[Cell], reps: int, metrics: Sequence[str] = ()) -> list[Job]:
    """Every (cell, repetition); deterministic methods run once (rep 0) unless a metric
    is randomized (a random forest), whose repetitions they then share."""
    random_metric = any(getattr(get_metric(name), "randomized", False) for name in metrics)
    jobs: list[Job] = []
    for index, cell in enumerate(cells):
        n_reps = reps if random_metric or method_class(cell.method).randomized else 1
        jobs.extend((index, cell, rep) for rep in range(n_reps))
    return jobs


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
) -> pd.DataFrame:
    """Run all cells and return the tidy result table in a worker-independent order."""
    jobs = plan_jobs(cells, reps, metrics)
    n_batches = min(len(jobs), max(1, effective_n_jobs(n_jobs) * 8))
    batches = [list(b) for b in np.array_split(np.arange(len(jobs)), n_batches) if len(b)]
    tasks = (delayed(run_batch)(dataset, [jobs[i] for i in batch], master_seed, metrics,
                                metrics_by_attribute) for batch in batches)
    rows: list[dict[str, Any]] = []
    parallel = Parallel(n_jobs=n_jobs, return_as="generator_unordered")
    with tqdm(total=len(jobs), desc="cells x reps", unit="run", disable=not progress) as bar:
        for done, batch_rows in parallel(tasks):
            rows.extend(batch_rows)
            bar.update(done)
    return tidy_table(rows, cells, dataset.name)


def tidy_table(rows: list[dict[str, Any]], cells: Sequence[Cell], dataset: str) -> pd.DataFrame:
    """Rows sorted by (cell, rep, metric order, attribute), with typed parameter columns."""
    frame = pd.DataFrame(rows)
    frame["_metric_order"] = frame.groupby(["_cell", "rep"], sort=False).cumcount()
    frame = frame.sort_values(["_cell", "rep", "_metric_order"], kind="stable")
    frame = frame.drop(columns=["_cell", "_metric_order"]).reset_index(drop=True)
    frame.insert(0, "dataset", dataset)
    axes = list(dict.fromkeys(a for cell in cells for a, _ in cell.params))
    for axis in axes:
        values = frame[axis]
        if axis in ("k", "m"):
            frame[axis] = values.astype("Int64")
        elif pd.api.types.is_numeric_dtype(values):
            frame[axis] = values.astype(float)
    ordered = ["dataset", "method", *axes, "rep", "seed", "cell_id", "metric", "attribute", "value"]
    frame["attribute"] = frame["attribute"].astype("string")
    return frame[ordered]
