"""Faults end in one line and leave nothing half-done: Ctrl-C, a full disk, a part changed
since it was stored, a damaged results table, a run too large for the machine, a
multirun with a bad value in a later job."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import pandas as pd
import pytest

from anonlab import cli
from anonlab.io import STORAGE_ERRNOS
from anonlab.runner import execute

# 8 jobs (ir is deterministic: one repetition) in 8 batches of one job, ~0.3 s a run
SMALL = [
    "+experiment=census_ir",
    "grid.k=[2,10]",
    "grid.epsilon=[1.0]",
    "grid.m=[1]",
    "reps=2",
    "n_jobs=1",
    "run_name=small",
]
RESULTS = "results.parquet"


def console(tmp_path: Path, *overrides: str) -> int:
    return cli.console(["run", *SMALL, f"results_dir={tmp_path}", *overrides])


def lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    """The lines on stderr, but for the progress bar's."""
    err = capsys.readouterr().err.replace("\r", "\n")
    return [line for line in err.splitlines() if line.strip() and not line.startswith("small [")]


@pytest.fixture(autouse=True)
def no_figures(monkeypatch):
    """Figures are drawn after the table is written and do not concern these faults."""
    monkeypatch.setattr("anonlab.runner.experiment.render_experiment", lambda *a, **k: [])


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


@pytest.mark.parametrize("code", [errno.ENOSPC, errno.EFBIG])
def test_a_full_disk_is_one_error_line_naming_the_folder_with_nothing_half_written(
    tmp_path, monkeypatch, capsys, code
):
    real, written = pd.DataFrame.to_parquet, []

    def fills_up(frame, path, *args, **kwargs):
        if len(written) == 2:  # the disk fills up during the third part
            Path(path).write_bytes(b"PAR1 half")
            raise OSError(code, os.strerror(code))
        written.append(path)
        return real(frame, path, *args, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_parquet", fills_up)
    assert console(tmp_path) == 1
    folder = tmp_path / "small" / "parts" / "census"
    assert lines(capsys) == [
        f"error: cannot write in {folder} ({os.strerror(code)}); nothing was half-written: "
        f"{STORAGE_ERRNOS[code]}, then run the same command to resume"
    ]
    assert len(list(folder.glob("part-*.parquet"))) == 2  # the parts written before
    assert not list(tmp_path.rglob("*.tmp")) and not (tmp_path / "small" / RESULTS).exists()
