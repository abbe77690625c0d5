"""Local parallel runs: this process and ``n_jobs − 1`` pool workers share the tasks
(:func:`map_tasks`); the command line starts the workers early (:func:`warm_up`), only
where the work pays for their start (:func:`anonlab.cli.sized`, :data:`POOL_SECONDS`), and
stops them when it ends (:func:`stop`).

The workers are joblib's reusable, memory-mapping loky executor (what
:class:`joblib.Parallel` runs on): large NumPy arrays reach them as memory maps. Unlike
:class:`~joblib.Parallel`, which leaves the main process waiting, the main process takes
tasks too, so ``n_jobs=2`` starts one worker, not two. A worker is a fresh interpreter
that imports NumPy, pandas, numba, matplotlib and the runner (about 1.5 s; a redraw's, the
figures only); started early, that overlaps the main process's own imports. Results never
depend on who runs a task (:mod:`anonlab.runner.execute`).

Nothing outlives the run: each worker watches the process that started it
(:func:`_watch_parent`) and exits within :data:`WATCH_INTERVAL` of its death, however it
died (SIGKILL included); the resource trackers of loky and multiprocessing then see their
pipes close and exit too. A worker ignores Ctrl-C: the terminal sends SIGINT to the whole
process group, and the main process alone decides what an interrupt does.

This module imports only the standard library at load, so the command line can start the
pool before it imports the runner.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, wait
from copy import deepcopy
from typing import Any

#: what a worker imports before its first task: the runner, the compiled kernels (numba)
#: and the figures (matplotlib), which it would otherwise import on first use
WORKER_MODULES = (
    "anonlab.runner.execute",
    "anonlab.microaggregation.ir_kernels",
    "anonlab.microaggregation.kernels",
    "anonlab.metrics.kernels",
    "anonlab.plotting.curves",
)
#: what a worker of a redraw (``plot_only``) imports: the figures only, no kernel
DRAWING_MODULES = ("anonlab.runner.render", "anonlab.plotting.curves")
#: more figures than this are drawn by the worker pool (:mod:`anonlab.runner.render`):
#: fewer cost less drawn here, one after the other, than the workers' start (their
#: imports) takes off
PARALLEL_FIGURES = 3
#: seconds of work (on one core, :mod:`anonlab.runner.plan`) below which a run starts no
#: pool: a worker's start (its imports, about 1.5 s of a core) would cost the machine
#: more than sharing the work would take off the run
POOL_SECONDS = 3.0
#: the thread pools of the numerical libraries, limited in each worker as joblib does
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "BLIS_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
AHEAD = 2  # tasks queued per worker, so a worker never waits for the next one
#: seconds between a worker's looks at its parent: the longest it outlives a killed run
WATCH_INTERVAL = 0.2

_pool: Any = None  # the executor this process started, if any
_workers = 0  # its number of workers


def _load_runner(modules: Sequence[str] = WORKER_MODULES) -> None:
    """Import ``modules`` (run in the workers), then leave the objects of every module
    imported out of garbage collection (:func:`gc.freeze`): they live as long as the
    worker, and the collections at its exit would otherwise walk them all again
    (0.2–0.3 s a worker)."""
    import gc
    from importlib import import_module

    for name in modules:
        import_module(name)
    gc.freeze()


def _watch_parent(parent: int) -> None:
    """Run in each worker as it starts: ignore Ctrl-C, and exit at once when ``parent``
    (the process that started the pool) is gone, i.e. when this process's parent is no
    longer ``parent`` (reparented to PID 1 or a subreaper).

    A thread polls :func:`os.getppid` rather than ``prctl(PR_SET_PDEATHSIG)``: Linux
    sends that signal when the *thread* that forked the worker ends, and loky forks
    replacement workers from its manager thread, so it could kill a worker of a live
    run; polling works the same on every POSIX system, for 0.2 s of delay."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(WATCH_INTERVAL)
        os._exit(1)  # no cleanup to wait for: the parent that wanted the results is gone

    if sys.platform != "win32":  # a Windows process is never reparented
        threading.Thread(target=watch, name="anonlab-watch-parent", daemon=True).start()


def helpers(n_jobs: int) -> int:
    """Pool workers beside this process for ``n_jobs`` (joblib's convention: negative
    counts from the number of cores)."""
    from joblib import effective_n_jobs

    return effective_n_jobs(n_jobs) - 1


def _executor(workers: int) -> Any:
    """joblib's reusable executor of ``workers`` processes, each with its numerical
    libraries' threads limited to its share of the cores."""
    global _pool, _workers
    from joblib.executor import get_memmapping_executor

    threads = str(max((os.cpu_count() or 1) // (workers + 1), 1))
    _pool = get_memmapping_executor(
        workers,
        env=dict.fromkeys(THREAD_VARIABLES, threads),
        initializer=_watch_parent,
        initargs=(os.getpid(),),
    )
    _workers = workers
    return _pool


def running() -> bool:
    """Whether this process has started its pool workers (whose imports are done, so a
    task costs them only its arguments' transfer)."""
    return _pool is not None


def processes() -> int:
    """The processes that share tasks with the pool running (:func:`running`): this one
    and its workers, as the ``n_jobs`` of :func:`map_tasks` (1 without a pool)."""
    return _workers + 1 if _pool is not None else 1


def warm_up(n_jobs: int, modules: Sequence[str] = WORKER_MODULES) -> None:
    """Start the pool workers of ``n_jobs`` now, each importing ``modules`` (a run's
    :data:`WORKER_MODULES`, a redraw's :data:`DRAWING_MODULES`); returns at once (no-op
    for ``n_jobs=1``). A failure surfaces with the first task."""
    if n_jobs == 1:  # no worker: not even joblib to import
        return
    workers = helpers(n_jobs)
    if workers >= 1:
        executor = _executor(workers)
        for _ in range(workers):
            executor.submit(_load_runner, tuple(modules))


def map_tasks(
    fn: Callable[..., Any], tasks: Sequence[tuple[Any, ...]], n_jobs: int
) -> Iterator[tuple[int, Any]]:
    """``(i, fn(*tasks[i]))`` for every task, in the order they finish, computed by this
    process and the ``n_jobs − 1`` pool workers; an error stops the run (tasks not yet
    started are cancelled) and is raised here."""
    workers = 0 if n_jobs == 1 or len(tasks) < 2 else min(helpers(n_jobs), len(tasks) - 1)
    if workers < 1:
        for index, task in enumerate(tasks):
            yield index, fn(*task)
        return
    executor = _executor(helpers(n_jobs))  # the same pool whatever the number of tasks
    pending = deque(enumerate(tasks))
    running: dict[Future, int] = {}
    # this process works on its own copies, made once per object: the originals are
    # pickled for the workers in a background thread, which must not see them change
    # (a data set fills its caches as it is used)
    copies: dict[int, Any] = {}
    try:
        while pending or running:
            # the workers' queues are kept full, but the last task is left to this process
            while len(pending) > 1 and len(running) < AHEAD * workers:
                index, task = pending.popleft()
                running[executor.submit(fn, *task)] = index
            finished = [future for future in running if future.done()]
            if not finished and pending:  # nothing to collect: take the next task here
                index, task = pending.popleft()
                yield index, fn(*deepcopy(task, copies))
                continue
            if not finished:
                finished = list(wait(running, return_when=FIRST_COMPLETED).done)
            for future in finished:
                yield running.pop(future), future.result()
    finally:
        for future in running:
            future.cancel()


def stop(kill: bool = False) -> None:
    """Stop the pool now and remove its temporary folders: once its workers have finished
    their tasks, or at once with ``kill``. Call it only when no more work will be
    submitted (the command line's last step)."""
    global _pool, _workers
    if _pool is not None:
        _pool.terminate(kill_workers=kill)
        _pool, _workers = None, 0
