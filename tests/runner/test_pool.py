"""The local pool: this process and n_jobs − 1 workers share the tasks, every task runs
once, an error is raised, and a data set is pickled without its caches (so a worker never
receives a half-written one while this process computes)."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pandas as pd
import pytest

from anonlab.cli import warm_pool
from anonlab.datasets import build_dataset
from anonlab.runner import pool

pytestmark = pytest.mark.integration  # starts worker processes


def pid_of(value: int) -> tuple[int, int]:
    return value, os.getpid()


def fail_on(value: int) -> int:
    if value == 3:
        raise ValueError("task 3 fails")
    return value


def test_every_task_runs_once_here_and_in_a_worker():
    tasks = [(i,) for i in range(12)]
    results = dict(pool.map_tasks(pid_of, tasks, n_jobs=2))
    assert sorted(results) == list(range(12))
    assert [results[i][0] for i in range(12)] == list(range(12))
    pids = {pid for _, pid in results.values()}
    assert os.getpid() in pids  # this process took tasks
    assert len(pids) == 2  # and one worker did


def test_one_job_runs_every_task_here_in_order():
    assert list(pool.map_tasks(pid_of, [(1,), (2,)], n_jobs=1)) == [
        (0, (1, os.getpid())),
        (1, (2, os.getpid())),
    ]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_an_error_in_a_task_is_raised(n_jobs):
    with pytest.raises(ValueError, match="task 3 fails"):
        list(pool.map_tasks(fail_on, [(i,) for i in range(8)], n_jobs=n_jobs))


def test_a_data_set_is_pickled_without_its_caches():
    frame = pd.DataFrame({"x": np.arange(10.0), "y": np.arange(10.0) ** 2})
    view = build_dataset("t", frame, ["x", "y"], domains={"x": (0, 10), "y": (0, 100)})
    view.computed_once("answer", lambda: 42)
    _ = view.protected_values, view.protected_attributes
    copy = pickle.loads(pickle.dumps(view))
    assert "_computed" not in copy.__dict__ and "protected_values" not in copy.__dict__
    assert copy.name == view.name and copy.frame.equals(view.frame)
    assert copy.attributes == view.attributes
    np.testing.assert_array_equal(copy.protected_values, view.protected_values)


def test_a_taxonomy_is_pickled_without_its_tables():
    from anonlab.semantics import Taxonomy

    taxonomy = Taxonomy.flat("colours", ["red", "green", "blue"])
    _ = taxonomy.distances
    copy = pickle.loads(pickle.dumps(taxonomy))
    assert "distances" not in copy.__dict__
    np.testing.assert_array_equal(copy.distances, taxonomy.distances)


@pytest.mark.parametrize(
    "config",
    [
        {"n_jobs": 0},
        {"n_jobs": "two"},
        {"n_jobs": True},
        {"n_jobs": 2, "runner": {"name": "dask"}},
    ],
)
def test_no_pool_is_started_for_a_bad_n_jobs_or_dask(config, monkeypatch):
    started = []
    monkeypatch.setattr(pool, "warm_up", started.append)
    warm_pool(config)
    assert started == []


def test_a_redraw_starts_its_pool_to_draw_in_parallel(monkeypatch):
    started = []
    monkeypatch.setattr(pool, "warm_up", started.append)
    warm_pool({"n_jobs": 2, "plot_only": True})
    assert started == [2]


def test_a_local_run_starts_its_pool_capped_at_the_cores(monkeypatch):
    started = []
    monkeypatch.setattr(pool, "warm_up", started.append)
    warm_pool({"n_jobs": 10_000, "runner": {"name": "local"}})
    assert started == [os.cpu_count()]


def test_one_job_needs_no_worker():
    pool.stop()
    pool.warm_up(1)
    assert pool._pool is None


@pytest.mark.slow  # starts and stops worker processes
def test_stop_without_a_pool_does_nothing_and_a_pool_restarts_after_it():
    pool.stop()
    pool.stop()
    assert len(dict(pool.map_tasks(pid_of, [(i,) for i in range(4)], n_jobs=2))) == 4
    pool.stop()
    assert len(dict(pool.map_tasks(pid_of, [(i,) for i in range(4)], n_jobs=2))) == 4


def test_stop_can_kill_a_busy_worker_at_once():
    import time

    executor = pool._executor(1)
    busy = executor.submit(time.sleep, 30)
    time.sleep(0.5)
    clock = time.perf_counter()
    pool.stop(kill=True)
    assert time.perf_counter() - clock < 10
    assert busy.done()


def _alive(pid: int) -> bool:
    """Whether process ``pid`` still runs (a zombie waiting to be reaped does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: ask the kernel
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads /proc")
def test_workers_and_trackers_exit_when_the_run_is_sigkilled(tmp_path):
    """A run killed with SIGKILL leaves no worker and no resource tracker behind."""
    import subprocess
    import sys
    import time

    child = """
import multiprocessing.resource_tracker as mp_tracker, os, signal
from joblib.externals.loky.backend import resource_tracker as loky_tracker
from anonlab.runner import pool
executor = pool._executor(1)
worker = executor.submit(os.getpid).result()
print(worker, loky_tracker._resource_tracker._pid, mp_tracker._resource_tracker._pid, flush=True)
os.kill(os.getpid(), signal.SIGKILL)
"""
    out = tmp_path / "pids"  # a file, not a pipe: a surviving worker would hold a pipe open
    with out.open("w") as stdout:
        status = subprocess.run([sys.executable, "-c", child], stdout=stdout).returncode
    assert status == -9
    pids = [int(p) for p in out.read_text().split() if p != "None"]
    assert len(pids) >= 2  # the worker and at least loky's tracker
    deadline = time.monotonic() + 5
    while any(map(_alive, pids)) and time.monotonic() < deadline:
        time.sleep(0.05)
    left = [pid for pid in pids if _alive(pid)]
    for pid in left:  # ours: not to be left running after a failure
        os.kill(pid, 9)
    assert left == []
