"""One Dask task per experiment: ``+experiment=all fanout=true runner=dask
[runner.address=…]``.

``+experiment=all`` runs every paper experiment and reading one after another in one
process. With ``fanout=true`` the validated experiments go to the Dask cluster instead,
each as one task that runs it whole (:func:`~anonlab.runner.experiment.run_experiment`,
its batches in that worker alone) and writes its folder, as the serial run would; the
command then prints each experiment's files as it finishes and writes the report. The
workers share this process's file system and must run its code and libraries (checked
before any task, :mod:`anonlab.runner.workers`); results are byte for byte the serial
run's (but for a measured metric's values, ``runtime``, which differ in any two runs).
A worker runs one experiment at a time (one thread): matplotlib draws one figure at a
time in a process.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from anonlab.runner.execute import RunnerSpec
from anonlab.runner.experiment import Experiment, run_experiment, written_files
from anonlab.runner.validate import check_fanout as validated_fanout
from anonlab.runner.workers import check_workers, dask_client, fingerprint, require_same
from anonlab.validation import ParameterError


def check_fanout(config: Mapping[str, Any]) -> bool:
    """Whether the config fans its experiments out (``fanout: true``); raises a
    :class:`ParameterError` for a value other than true or false, without
    ``runner=dask`` (:func:`anonlab.runner.validate.check_fanout`), or when a worker at
    ``runner.address`` has several threads."""
    fanout = validated_fanout(config)
    runner = config.get("runner") or {}
    if fanout and runner.get("address"):
        from dask.distributed import Client

        with Client(str(runner["address"]), timeout=10) as client:
            check_threads(client.nthreads())
    return fanout


def check_threads(nthreads: Mapping[str, int]) -> None:
    """Raise a :class:`ParameterError` naming the workers with more than one thread."""
    threaded = {a: t for a, t in sorted(nthreads.items()) if t > 1}
    if threaded:
        raise ParameterError(
            f"fanout=true runs one experiment per worker process, but {len(threaded)} "
            f"workers have several threads ({threaded}); start them with one thread "
            "each (dask worker --nthreads 1, or processes=cores in dask-jobqueue)"
        )


def _run_one(expected: str, experiment: Experiment) -> list[str]:
    """In a worker that runs the client's code: run ``experiment`` with its batches in
    this process and return the files it wrote."""
    require_same(expected)
    here = replace(experiment, runner=RunnerSpec(), n_jobs=1)
    run_experiment(here, experiment.config, progress=False)
    return [str(p) for p in written_files(here)]


def _size(experiment: Experiment) -> int:
    """Jobs of ``experiment``, an estimate of its work: the largest are submitted first."""
    return len(experiment.cells) * experiment.reps


def fan_out(
    experiments: Sequence[Experiment], address: str | None, n_jobs: int
) -> Iterator[list[Path]]:
    """Run each of ``experiments`` as one task of the Dask scheduler at ``address`` (or of
    a local cluster of ``n_jobs`` single-threaded worker processes); yields the files of
    each as it finishes. Refused before any task when a worker runs other code or
    libraries, or has more than one thread."""
    from dask.distributed import as_completed

    with dask_client(address, n_jobs) as client:
        check_workers(client)
        check_threads(client.nthreads())
        expected = fingerprint()
        ordered = sorted(experiments, key=_size, reverse=True)
        futures = [
            client.submit(_run_one, expected, replace(e, out_dir=e.out_dir.resolve()), pure=False)
            for e in ordered
        ]
        for future in as_completed(futures):
            yield [Path(p) for p in future.result()]
