"""Faults end in one line and leave nothing half-done: Ctrl-C, a full disk, a part changed
since it was stored, a damaged results table, a run too large for the machine, a
multirun with a bad value in a later job."""

from __future__ import annotations

import errno
import json
import os
import shlex
import shutil
from pathlib import Path

import pandas as pd
import pytest
from reference import SMALL_RUN

from anonlab import cli
from anonlab.io import STORAGE_ERRNOS
from anonlab.runner import execute
from anonlab.runner.checkpoint import Checkpoint

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

# 8 jobs in 8 batches of one job, ~0.3 s a run
SMALL = [*SMALL_RUN, "run_name=small"]
RESULTS = "results.parquet"


def console(tmp_path: Path, *overrides: str) -> int:
    return cli.console(["run", *SMALL, f"results_dir={tmp_path}", *overrides])


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines on stderr, but for the progress bar's."""
    err = capsys.readouterr().err.replace("\r", "\n")
    return [line for line in err.splitlines() if line.strip() and not line.startswith("small [")]


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """Figures are drawn after the table is written and do not concern these faults: not
    by a run, nor by a redraw (``plot_only``, which the command line renders through
    :mod:`anonlab.runner.render` once the table is read or rebuilt)."""
    monkeypatch.setattr("anonlab.runner.experiment.render_experiment", lambda *a, **k: [])
    monkeypatch.setattr("anonlab.runner.render.render_experiment", lambda *a, **k: [])


@pytest.fixture(scope="module")
def done(tmp_path_factory):
    """``done(folder)``: the results of a finished run of :data:`SMALL` copied into
    ``folder`` (one run for the module)."""
    base = tmp_path_factory.mktemp("done")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("anonlab.runner.experiment.render_experiment", lambda *a, **k: [])
        assert console(base) == 0

    def copy(folder: Path) -> None:
        shutil.copytree(base / "small", folder / "small")

    return copy


def interrupt_after(monkeypatch: pytest.MonkeyPatch, batches: int) -> None:
    """Press Ctrl-C when the run starts its ``batches + 1``-th batch."""
    real, ran = execute.run_batch, []

    def counted(*args):
        if len(ran) == batches:
            raise KeyboardInterrupt
        ran.append(1)
        return real(*args)

    monkeypatch.setattr(execute, "run_batch", counted)


def test_ctrl_c_is_one_line_with_status_130_saying_what_is_stored(tmp_path, monkeypatch, capsys):
    interrupt_after(monkeypatch, 3)
    assert console(tmp_path) == 130
    assert lines(capsys) == [
        f"interrupted: 3 of 8 jobs (cell x repetition) stored in {tmp_path / 'small'}; "
        "run the same command to resume"
    ]
    assert len(list((tmp_path / "small" / "parts" / "census").glob("part-*"))) == 3
    assert not (tmp_path / "small" / "results.parquet").exists()


@pytest.mark.parametrize("code", [errno.ENOSPC])
def test_a_full_disk_is_one_error_line_naming_the_folder_with_nothing_half_written(
    tmp_path, monkeypatch, capsys, code
):
    real, written = Path.write_bytes, []

    def fills_up(path, data):
        if len(written) == 2:  # the disk fills up during the third part
            real(path, data[:10])
            raise OSError(code, os.strerror(code))
        written.append(path)
        return real(path, data)

    monkeypatch.setattr(Path, "write_bytes", fills_up)
    assert console(tmp_path) == 1
    folder = tmp_path / "small" / "parts" / "census"
    assert lines(capsys) == [
        f"error: cannot write in {folder} ({os.strerror(code)}); nothing was half-written: "
        f"{STORAGE_ERRNOS[code]}, then run the same command to resume"
    ]
    assert len(list(folder.glob("part-*.parquet"))) == 2  # the parts written before
    assert not list(tmp_path.rglob("*.tmp")) and not (tmp_path / "small" / RESULTS).exists()


ROW = {"cell_id": 1, "rep": 0, "metric": "re", "attribute": None, "value": 0.5}


def two_parts(tmp_path: Path) -> Checkpoint:
    checkpoint = Checkpoint(tmp_path / "parts" / "census", "key").open()
    checkpoint.save([ROW])
    checkpoint.save([{**ROW, "rep": 1}])
    return checkpoint


def notes(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in lines(capsys) if line.startswith("note:")]


def test_a_part_with_one_value_changed_fails_its_checksum_and_is_recomputed(tmp_path, capsys):
    checkpoint = two_parts(tmp_path)
    digests = json.loads((checkpoint.directory / "manifest.json").read_text())["parts"]
    assert sorted(digests) == [p.name for p in checkpoint.parts()]
    changed, kept = checkpoint.parts()
    frame = pd.read_parquet(changed)
    frame.loc[0, "value"] = 0.25  # still valid Parquet, with the result columns
    frame.to_parquet(changed, index=False)
    assert checkpoint.load()["rep"].tolist() == [pd.read_parquet(kept)["rep"][0]]
    assert notes(capsys) == [
        f"note: parts/census/{changed.name} fails its checksum (changed since it was "
        "stored); its jobs are recomputed"
    ]
    assert checkpoint.parts() == [kept]


def test_a_part_the_manifest_does_not_list_is_recomputed(tmp_path, capsys):
    checkpoint = two_parts(tmp_path)
    stray = checkpoint.directory / "part-0000.parquet"
    shutil.copy(checkpoint.parts()[0], stray)
    assert len(checkpoint.load()) == 2
    assert notes(capsys) == [
        f"note: parts/census/{stray.name} has no checksum in manifest.json; its jobs are recomputed"
    ]


def test_parts_stored_without_checksums_are_discarded_with_one_note(tmp_path, capsys):
    checkpoint = two_parts(tmp_path)
    (checkpoint.directory / "manifest.json").write_text('{"key": "key"}')  # an earlier format
    assert Checkpoint(checkpoint.directory, "key").open().load().empty
    assert notes(capsys) == [
        "note: parts/census holds 2 parts stored without checksums (an earlier version); "
        "they are discarded and their jobs recomputed"
    ]
    (checkpoint.directory / "manifest.json").write_text('{"key": "key"}')  # and no parts
    Checkpoint(checkpoint.directory, "key").open()
    assert notes(capsys) == []


def test_a_tampered_part_is_recomputed_to_the_same_bytes(tmp_path, done, capsys):
    done(tmp_path)
    results = tmp_path / "small" / RESULTS
    expected = results.read_bytes()
    [part] = (tmp_path / "small" / "parts" / "census").glob("part-*.parquet")  # compacted
    frame = pd.read_parquet(part)
    frame.loc[3, "value"] += 1e-9
    frame.to_parquet(part, index=False)
    capsys.readouterr()
    assert console(tmp_path) == 0
    assert [n.split(" fails ")[1] for n in notes(capsys)] == [
        "its checksum (changed since it was stored); its jobs are recomputed"
    ]
    assert results.read_bytes() == expected


def truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def test_plot_only_rebuilds_a_truncated_results_table_from_the_parts(tmp_path, done, capsys):
    done(tmp_path)
    results = tmp_path / "small" / RESULTS
    expected = results.read_bytes()
    truncate(results)
    capsys.readouterr()
    assert console(tmp_path, "plot_only=true") == 0
    assert notes(capsys) == [
        f"note: {results} was unreadable (Parquet magic bytes not found in footer); it is "
        "rebuilt from the run's stored parts"
    ]
    assert results.read_bytes() == expected
    for part in (tmp_path / "small" / "parts" / "census").glob("part-*"):
        part.unlink()  # nothing to rebuild from: one line says how to recompute
    truncate(results)
    assert console(tmp_path, "plot_only=true") == 2
    assert lines(capsys) == [
        f"error: {results} is unreadable (Parquet magic bytes not found in footer) and "
        "cannot be rebuilt from its parts (parts/census holds 0 of 8 jobs); run the same "
        "command without plot_only=true to recompute it"
    ]


def test_the_report_of_a_damaged_results_table_is_one_line_saying_how_to_rebuild_it(
    tmp_path, done, capsys
):
    done(tmp_path)
    truncate(tmp_path / "small" / RESULTS)
    info = json.loads((tmp_path / "small" / "run.json").read_text())
    info["provenance"] = "paper"  # the report reads the tables of the paper's runs
    (tmp_path / "small" / "run.json").write_text(json.dumps(info))
    assert cli.main(["report", str(tmp_path)]) == 2
    overrides = info["overrides"]
    command = shlex.join(["anonlab", "run", *overrides, "plot_only=true"])
    assert lines(capsys) == [
        f"error: {tmp_path / 'small' / RESULTS} is unreadable (Parquet magic bytes not found "
        f"in footer); rebuild it from the run's stored parts with: {command}"
    ]
    assert not (tmp_path / "report").exists()


def test_a_run_larger_than_the_memory_is_refused_before_any_work(tmp_path, capsys):
    assert console(tmp_path, "reps=1000000000") == 2
    [line] = lines(capsys)
    assert line.startswith(
        "error: reps=1000000000 over 5 cells plans 3,000,000,002 jobs (cell x repetition) "
        "giving 6,000,000,004 result rows, about 24.6 TB of memory, more than the "
    )
    assert line.endswith(" this machine has available: lower reps or the grid, or split the run")
    assert list(tmp_path.iterdir()) == []


def test_check_size_weighs_rows_against_the_memory_available():
    from anonlab.datasets import build_dataset
    from anonlab.runner.experiment import ROW_BYTES, check_size
    from anonlab.runner.grid import Cell
    from anonlab.validation import ParameterError

    frame = pd.DataFrame({"x": [1.0, 2.0, 3.0], "y": [4.0, 5.0, 6.0]})
    data = build_dataset("d", frame, ["x", "y"], domains={"x": (0, 10), "y": (0, 10)})
    cells = [  # laplace repeats, ir (deterministic) runs once: 3 + 1 jobs
        Cell("laplace", (("epsilon", 1.0),), "d", 1),
        Cell("ir", (("k", 2),), "d", 2),
    ]
    args = ([data], cells, 3, ["re"], ["jsd"])
    rows = 4 * (1 + 2)  # 4 jobs, a row of re and one of jsd per attribute
    check_size(*args, available=rows * ROW_BYTES)
    with pytest.raises(ParameterError, match="4 jobs .* 12 result rows, about 49.2 kB of memory"):
        check_size(*args, available=rows * ROW_BYTES - 1)


def test_a_multirun_validates_every_job_before_the_first_runs(tmp_path, capsys):
    sweep = [o if o != "reps=2" else "reps=2,0" for o in SMALL]
    assert cli.main(["run", "-m", *sweep, f"results_dir={tmp_path}"]) == 2
    assert lines(capsys) == ["error: multirun job 2 of 2 (reps=0): reps must be >= 1, got 0"]
    assert list(tmp_path.iterdir()) == []
