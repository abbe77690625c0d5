"""Runs heal: an unreadable part or manifest costs one ``note:`` line and a recomputation,
never a crash; a complete sweep's parts are compacted into one; runs into one folder are
serialized by a lock, so the second reuses the first's parts. Every run here must write
the same ``results.parquet`` bytes as an uninterrupted one."""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import pytest
from reference import SMALL_RUN

from anonlab.config import compose_config
from anonlab.report.view import load_runs
from anonlab.runner import Experiment, build_experiment, execute, run_experiment
from anonlab.runner.checkpoint import Checkpoint, folder_lock

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

fcntl = pytest.importorskip("fcntl")

ROOT = Path(__file__).resolve().parents[2]
SMALL = list(SMALL_RUN)  # 8 jobs in 8 batches of one job, ~0.3 s a run
UNREADABLE = re.compile(
    r"note: parts/census/(?P<name>\S+) is unreadable \((?P<reason>.+)\); "
    r"its jobs are recomputed"
)


class Killed(Exception):
    """Stands for a kill in the middle of a sweep."""


#: the ``results_dir`` the configs of :func:`build` are composed with, then replaced
SOMEWHERE = "results-dir-to-replace"


@functools.cache
def composed(*overrides: str) -> dict:
    """:data:`SMALL` and ``overrides`` composed once (about 0.2 s a composition) with
    ``results_dir=``:data:`SOMEWHERE`, which nothing else in the config refers to."""
    config = compose_config(*SMALL, *overrides, f"results_dir={SOMEWHERE}")
    assert str(config).count(SOMEWHERE) == 2  # results_dir and the overrides' last
    return config


def build(results_dir: Path, *overrides: str) -> Experiment:
    """The experiment of ``compose_config(*SMALL, *overrides, f"results_dir={results_dir}")``,
    the same config from a copy of :func:`composed`'s."""
    config = copy.deepcopy(composed(*overrides))
    config["results_dir"] = str(results_dir)
    config["overrides"][-1] = f"results_dir={results_dir}"
    return build_experiment(config)


def run(experiment: Experiment) -> pd.DataFrame:
    return run_experiment(experiment, experiment.config, progress=False)


def parts(experiment: Experiment, dataset: str = "census") -> list[Path]:
    return sorted((experiment.parts_dir / dataset).glob("part-*.parquet"))


def notes(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("note:")]


def count_jobs(monkeypatch: pytest.MonkeyPatch, stop_after: int | None = None) -> list[tuple]:
    """Record the jobs run from now on; raise :class:`Killed` once ``stop_after`` ran."""
    real, jobs = execute.run_batch, []

    def counted(dataset, batch, *args):
        if stop_after is not None and len(jobs) >= stop_after:
            raise Killed
        jobs.extend((job[1].id, job[2]) for job in batch)
        return real(dataset, batch, *args)

    monkeypatch.setattr(execute, "run_batch", counted)
    return jobs


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """Figures are drawn after the table is written and do not concern resuming."""
    monkeypatch.setattr("anonlab.runner.experiment.render_experiment", lambda *a, **k: [])


@pytest.fixture(scope="module")
def whole(tmp_path_factory) -> Path:
    """The folder of an uninterrupted run (one for the module: copy it to change it)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("anonlab.runner.experiment.render_experiment", lambda *a, **k: [])
        experiment = build(tmp_path_factory.mktemp("whole"))
        run(experiment)
    return experiment.out_dir


@pytest.fixture(scope="module")
def expected(whole) -> bytes:
    """The results of an uninterrupted run."""
    return (whole / "results.parquet").read_bytes()


def test_a_killed_run_with_a_truncated_part_heals_to_the_same_bytes(
    tmp_path, expected, monkeypatch, capsys
):
    experiment = build(tmp_path)
    with pytest.raises(Killed):
        run_with(experiment, monkeypatch, stop_after=3)
    stored = parts(experiment)
    assert len(stored) == 3 and not experiment.results_path.exists()
    victim = stored[1]
    _truncate(victim)
    capsys.readouterr()

    jobs = count_jobs(monkeypatch)
    run(experiment)
    [line] = notes(capsys)
    assert line == (
        f"note: parts/census/{victim.name} is unreadable (Parquet magic bytes not "
        "found in footer); its jobs are recomputed"
    )
    assert len(jobs) == 8 - 2  # the two intact parts were reused
    assert experiment.results_path.read_bytes() == expected


def run_with(experiment: Experiment, monkeypatch: pytest.MonkeyPatch, stop_after: int) -> None:
    with monkeypatch.context() as patch:
        count_jobs(patch, stop_after)
        run(experiment)


def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _folder(path: Path) -> None:
    path.unlink()
    path.mkdir()
    (path / "x").write_text("x")


DAMAGE: dict[str, Callable[[Path], None]] = {
    "truncated": _truncate,
    "zero bytes": lambda path: path.write_bytes(b""),
    "garbage": lambda path: path.write_bytes(b"\x00garbage\xff" * 100),
    "wrong schema": lambda path: pd.DataFrame({"x": [1, 2]}).to_parquet(path),
    "not parquet": lambda path: pd.read_parquet(path).to_csv(path),
    "a folder": _folder,
}


def test_a_zero_byte_part_is_recomputed_with_one_note(
    tmp_path, whole, expected, monkeypatch, capsys
):
    experiment = build(tmp_path)
    shutil.copytree(whole, experiment.out_dir)  # a finished run, as if run here
    [part] = parts(experiment)  # compacted
    part.write_bytes(b"")
    capsys.readouterr()
    jobs = count_jobs(monkeypatch)
    run(experiment)
    assert notes(capsys) == [
        f"note: parts/census/{part.name} is unreadable (Parquet file size "
        "is 0 bytes); its jobs are recomputed"
    ]
    assert len(jobs) == 8
    assert experiment.results_path.read_bytes() == expected
    assert [p.is_file() for p in parts(experiment)] == [True]


ROW = {"cell_id": 1, "rep": 0, "metric": "re", "attribute": None, "value": 0.5}


def two_parts(tmp_path: Path) -> Checkpoint:
    checkpoint = Checkpoint(tmp_path / "parts" / "census", "key").open()
    checkpoint.save([ROW])
    checkpoint.save([{**ROW, "rep": 1}])
    return checkpoint


@pytest.mark.parametrize("damage", DAMAGE)
def test_an_unreadable_part_is_removed_with_one_note(tmp_path, capsys, damage):
    checkpoint = two_parts(tmp_path)
    part, kept = checkpoint.parts()
    DAMAGE[damage](part)
    stored = checkpoint.load()
    [line] = notes(capsys)
    assert (match := UNREADABLE.fullmatch(line)) and match["name"] == part.name, line
    assert stored.to_dict("records") == pd.read_parquet(kept).to_dict("records")
    assert checkpoint.parts() == [kept] and not part.exists()
    checkpoint.load()
    assert notes(capsys) == []  # said once: the part is gone


MANIFESTS: dict[str, Callable[[Path], None]] = {
    "garbage": lambda path: path.write_bytes(b"{\x00not json"),
    "zero bytes": lambda path: path.write_bytes(b""),
    "not a key": lambda path: path.write_text('["key"]'),
    "a folder": lambda path: (path.unlink(), path.mkdir()),
}


@pytest.mark.parametrize("damage", MANIFESTS)
def test_an_unreadable_manifest_discards_its_parts_with_one_note(tmp_path, capsys, damage):
    checkpoint = two_parts(tmp_path)
    MANIFESTS[damage](checkpoint.directory / "manifest.json")
    reopened = Checkpoint(checkpoint.directory, "key").open()
    [line] = notes(capsys)
    assert line.startswith("note: parts/census/manifest.json is unreadable (")
    assert line.endswith("); the parts beside it (2) are discarded and their jobs recomputed")
    assert reopened.parts() == [] and reopened.load().empty
    assert json.loads((checkpoint.directory / "manifest.json").read_text()) == {
        "key": "key",
        "parts": {},
    }


def test_a_garbage_manifest_recomputes_the_sweep_to_the_same_bytes(
    tmp_path, expected, monkeypatch, capsys
):
    experiment = build(tmp_path)
    with pytest.raises(Killed):
        run_with(experiment, monkeypatch, stop_after=3)
    (experiment.parts_dir / "census" / "manifest.json").write_text("garbage")
    capsys.readouterr()
    jobs = count_jobs(monkeypatch)
    run(experiment)
    assert notes(capsys) == [
        "note: parts/census/manifest.json is unreadable (Expecting value: "
        "line 1 column 1 (char 0)); the parts beside it (3) are discarded "
        "and their jobs recomputed"
    ]
    assert len(jobs) == 8  # parts under an unreadable manifest cannot be trusted
    assert experiment.results_path.read_bytes() == expected


def test_a_part_unreadable_when_loaded_back_is_run_again(tmp_path, expected, monkeypatch, capsys):
    save, saved = Checkpoint.save, []

    def flaky(self, rows):  # the disk mangles the second part written
        save(self, rows)
        saved.append(1)
        if len(saved) == 2:
            _truncate(
                sorted(self.directory.glob("part-*.parquet"), key=lambda p: p.stat().st_mtime_ns)[
                    -1
                ]
            )

    monkeypatch.setattr(Checkpoint, "save", flaky)
    experiment = build(tmp_path)
    run(experiment)
    assert len(notes(capsys)) == 1
    assert experiment.results_path.read_bytes() == expected


def test_sweeps_are_compacted_to_one_part_per_data_set(tmp_path, monkeypatch, capsys):
    two = ["+dataset@datasets.hcd=census_hcd", "+dataset@datasets.mcd=census_mcd"]
    loose = build(tmp_path / "loose", *two)
    with monkeypatch.context() as patch:
        patch.setattr(Checkpoint, "compact", lambda self, stored: stored)
        run(loose)
    assert len(parts(loose, "census_hcd")) > 1  # the sweep left many parts...
    experiment = build(tmp_path / "compacted", *two, "run_name=sweep")
    run(experiment)
    for dataset in ("census_hcd", "census_mcd"):  # ...compaction leaves one
        assert len(parts(experiment, dataset)) == 1
        assert sorted(p.name for p in (experiment.parts_dir / dataset).iterdir()) == [
            "manifest.json",
            parts(experiment, dataset)[0].name,
        ]
    assert experiment.results_path.read_bytes() == loose.results_path.read_bytes()

    jobs = count_jobs(monkeypatch)
    run(experiment)  # resuming from the compacted parts runs nothing
    assert jobs == []
    assert experiment.results_path.read_bytes() == loose.results_path.read_bytes()

    wider = build_experiment(
        compose_config(
            *[o.replace("grid.k=[2,10]", "grid.k=[2,10,20]") for o in SMALL],
            *two,
            "run_name=sweep",
            f"results_dir={tmp_path / 'compacted'}",
        )
    )
    assert wider.out_dir == experiment.out_dir
    run(wider)  # a wider grid runs only its new cells, then compacts again
    new = {cell.id for cell in wider.cells} - {cell.id for cell in experiment.cells}
    assert jobs and {cell for cell, _ in jobs} == new
    assert len(parts(wider, "census_hcd")) == 1
    assert notes(capsys) == []


def test_compaction_keeps_a_job_stored_twice_once(tmp_path):
    checkpoint = Checkpoint(tmp_path / "parts" / "d", "key").open()
    checkpoint.save([ROW])
    checkpoint.save([ROW, {**ROW, "rep": 1}])
    merged = checkpoint.compact(checkpoint.load())
    [part] = checkpoint.parts()
    assert pd.read_parquet(part)[["cell_id", "rep"]].values.tolist() == [[1, 0], [1, 1]]
    assert merged[["cell_id", "rep"]].values.tolist() == [[1, 0], [1, 1]]
    before = part.stat().st_mtime_ns
    checkpoint.compact(checkpoint.load())  # one part: nothing to merge, nothing written
    assert checkpoint.parts() == [part] and part.stat().st_mtime_ns == before


def test_leftovers_of_a_kill_are_cleared_and_a_file_in_place_of_the_folder_replaced(
    tmp_path, capsys
):
    (tmp_path / "parts").mkdir()
    (tmp_path / "parts" / "d").write_text("not a folder")
    checkpoint = Checkpoint(tmp_path / "parts" / "d", "key").open()
    assert notes(capsys) == ["note: parts/d is not a folder; it is removed"]
    (checkpoint.directory / ".part-x.parquet.abc.tmp").write_bytes(b"half")
    Checkpoint(checkpoint.directory, "key").open()
    assert sorted(p.name for p in checkpoint.directory.iterdir()) == ["manifest.json"]
    assert notes(capsys) == []


def wait_for_note(capsys: pytest.CaptureFixture[str], timeout: float = 20) -> list[str]:
    deadline, seen = time.monotonic() + timeout, []
    while not seen and time.monotonic() < deadline:
        seen = notes(capsys)
        time.sleep(0.02)
    return seen


def test_a_run_waits_while_another_holds_the_folder(tmp_path, expected, capsys):
    experiment = build(tmp_path)
    experiment.out_dir.mkdir(parents=True)
    with open(experiment.out_dir / ".lock", "a") as held, ThreadPoolExecutor(1) as pool:
        fcntl.flock(held, fcntl.LOCK_EX)
        waiting = pool.submit(run, experiment)
        assert wait_for_note(capsys) == [
            f"note: another run is writing {experiment.out_dir}; this run waits until it is done"
        ]
        time.sleep(0.2)
        assert not waiting.done() and not experiment.parts_dir.exists()
        fcntl.flock(held, fcntl.LOCK_UN)
        waiting.result(timeout=60)
    assert experiment.results_path.read_bytes() == expected


def test_two_runs_into_one_folder_do_the_work_once(tmp_path, monkeypatch, capsys):
    experiment = build(tmp_path)
    real, started, go, jobs = execute.run_batch, threading.Event(), threading.Event(), []

    def held_up(dataset, batch, *args):
        started.set()
        go.wait(30)
        jobs.extend((job[1].id, job[2]) for job in batch)
        return real(dataset, batch, *args)

    monkeypatch.setattr(execute, "run_batch", held_up)
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(run, experiment)
        assert started.wait(30)
        second = pool.submit(run, build(tmp_path))  # as another process would
        assert len(wait_for_note(capsys)) == 1  # it waits for the first
        go.set()
        pd.testing.assert_frame_equal(first.result(timeout=60), second.result(timeout=60))
    assert len(jobs) == len(set(jobs)) == 8  # each job ran once, in the first run


def test_the_lock_is_released_on_errors_and_is_no_result(tmp_path, monkeypatch):
    experiment = build(tmp_path)
    with pytest.raises(Killed):
        run_with(experiment, monkeypatch, stop_after=1)
    with open(experiment.out_dir / ".lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)  # free: BlockingIOError otherwise
    assert load_runs(tmp_path) == []  # a folder with a lock and parts is not a run
    with folder_lock(experiment.out_dir), folder_lock(experiment.out_dir):  # reentrant
        run(experiment)
    assert [r.folder for r in load_runs(tmp_path)] == [experiment.out_dir.name]


# --- a real kill ----------------------------------------------------------------------------

# 28 random-forest fits of ~0.15 s in 8 batches: long enough to be killed partway
SLOW = [
    "+experiment=census_idp_rf",
    "grid.k=[5,20,80]",
    "grid.epsilon=[1.0]",
    "grid.alpha=[1.5]",
    "reps=4",
    "n_jobs=1",
    "run_name=census_idp_rf",
]


def start(results_dir: Path) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "run.py"), *SLOW, f"results_dir={results_dir}"],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow  # 25 s: three real runs; the in-process test above checks the same healing
def test_a_sigkilled_sweep_with_a_truncated_part_resumes_to_the_same_bytes(tmp_path):
    whole = start(tmp_path / "whole")
    assert whole.wait(timeout=300) == 0, whole.stderr.read()

    killed = start(tmp_path / "killed")
    folder = tmp_path / "killed" / "census_idp_rf"
    deadline = time.monotonic() + 120
    while (
        len(list((folder / "parts" / "census_idp").glob("part-*.parquet"))) < 3
        and time.monotonic() < deadline
    ):
        time.sleep(0.05)
    assert killed.poll() is None, "the run finished before it could be killed"
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(timeout=30)
    stored = sorted((folder / "parts" / "census_idp").glob("part-*.parquet"))
    assert 3 <= len(stored) < 8
    _truncate(stored[0])

    resumed = start(tmp_path / "killed")
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read()
    lines = [line for line in resumed.stderr.read().splitlines() if line.startswith("note:")]
    assert lines == [
        f"note: parts/census_idp/{stored[0].name} is unreadable (Parquet magic "
        "bytes not found in footer); its jobs are recomputed"
    ]
    expected = (tmp_path / "whole" / "census_idp_rf" / "results.parquet").read_bytes()
    assert (folder / "results.parquet").read_bytes() == expected


def test_key_follows_the_contents_of_a_users_files(tmp_path):
    """Editing a user's CSV or hierarchy file between runs recomputes their jobs."""
    from anonlab.runner.checkpoint import checkpoint_key, user_files

    data, tree = tmp_path / "mine.csv", tmp_path / "tree.csv"
    data.write_text("a\n1\n")
    tree.write_text("value,parent\nx,\n")
    config = {
        "seed": 1,
        "metrics": ["re"],
        "dataset": {"loader": "csv", "path": str(data), "hierarchies": {"c": str(tree)}},
    }
    first = checkpoint_key(config, None)
    data.write_text("a\n2\n")
    second = checkpoint_key(config, None)
    tree.write_text("value,parent\ny,\n")
    assert len({first, second, checkpoint_key(config, None)}) == 3
    # the paper's data sets name no user file: their key is the one it was before
    assert (
        user_files(
            {
                "": {
                    "loader": "adult",
                    "path": None,
                    "categorical": {"occupation": "adult_occupation"},
                }
            }
        )
        == {}
    )
