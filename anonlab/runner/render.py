"""The last stage of a run: its figures and tables, drawn from the stored results.

:func:`render_experiment` draws every figure (in parallel where workers are already
running) and lays out every table of an experiment from its ``results.parquet``; a damaged
results table is rebuilt from the run's stored parts first (:func:`stored_results`), and a
table the same on any data is read from the cache (:mod:`anonlab.runner.artifacts`).
Nothing here computes a release.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd

from anonlab.cost import duration
from anonlab.plotting import FigureSpec
from anonlab.plotting.tables import write_table_files
from anonlab.runner import pool
from anonlab.runner.artifacts import CACHE_KEY, cached_table, check_cache_dir, data_independent
from anonlab.runner.checkpoint import PARTS as PARTS_KEY
from anonlab.runner.checkpoint import Checkpoint, checkpoint_key, folder_lock, note, reason
from anonlab.runner.execute import assemble, plan_jobs
from anonlab.runner.plan import cold_tables, table_seconds, workers_of
from anonlab.runner.pool import PARALLEL_FIGURES, map_tasks
from anonlab.runner.store import finite_rows, git_commit, write_table
from anonlab.validation import ParameterError

if TYPE_CHECKING:
    from anonlab.runner.experiment import Experiment


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


def shown_data(table: pd.DataFrame, names: Mapping[str, str]) -> pd.DataFrame:
    """``table`` with its data sets named as the figures show them (``names``,
    :attr:`~anonlab.runner.experiment.Experiment.data_names`: ``csv`` → ``patients``), for
    drawing; the stored results keep their names. ``table`` itself when none differs."""
    if not names or "dataset" not in table:
        return table
    return table.assign(dataset=table["dataset"].map(lambda name: names.get(name, name)))


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
        table, _ = finite_rows(table)  # said when the run wrote it
        write_table(table, experiment.results_path)
    return table


def render_experiment(
    experiment: Experiment, table: pd.DataFrame | None = None, *, progress: bool = True
) -> list[Path]:
    """Draw every figure and lay out every table of ``experiment`` from its stored results
    (``figures/*.png|pdf``, ``tables/*.csv|md``); a damaged results table is rebuilt from
    the stored parts first (:func:`stored_results`). With ``progress``, a table computed
    now for the cache (:func:`~anonlab.runner.plan.cold_tables`) is announced with its
    estimated time before it starts."""
    if table is None:
        table = stored_results(experiment)
    directory = experiment.out_dir / "figures"
    figures = experiment.figures
    # about 0.5 s a figure (PNG and PDF): drawn in parallel by workers already started
    # (for the grid or the figures: their imports are done), whatever share of the grid
    # they took, else a few here and more in parallel, where starting the workers (about
    # 1.5 s of imports) pays for itself
    if len(figures) > 1 and pool.running():
        workers = pool.processes()
    else:
        workers = experiment.n_jobs if len(figures) > PARALLEL_FIGURES else 1
    shown = shown_data(table, experiment.data_names)
    drawn = dict(map_tasks(draw_figure, [(shown, spec, directory) for spec in figures], workers))
    for i in range(len(figures)):
        if isinstance(drawn[i], str):
            note(drawn[i])
    paths: list[Path] = [
        p for i in range(len(figures)) if not isinstance(drawn[i], str) for p in drawn[i]
    ]
    cache = check_cache_dir(experiment.config.get(CACHE_KEY))
    cold = dict(cold_tables(experiment)) if progress else {}
    for name, builder in experiment.tables:
        if name in cold:  # minutes, after the grid's bar: said before it starts
            seconds = table_seconds(builder)
            about = (
                ""
                if seconds is None
                else f"about {duration(seconds / workers_of(experiment.n_jobs))}; "
            )
            note(f"table {name}: computing ({about}cached for later runs in {cache})")
        if data_independent(builder):  # the same on any data: once per code version
            laid_out, said = cached_table(
                name,
                builder,
                cache,
                n_jobs=experiment.n_jobs,
                compute=not experiment.config.get("plot_only", False),
            )
            if said:
                note(said)
            if laid_out is None:
                continue
        else:
            try:
                laid_out = builder(table)
            except (KeyError, ValueError) as error:  # a paper table without its axes
                note(f"table {name!r} is not laid out: this run lacks what it needs ({error!r})")
                continue
        legend = getattr(builder, "legend", None)  # how to read its cells, if it says
        paths += write_table_files(laid_out, experiment.out_dir / "tables", name, legend)
    return paths
