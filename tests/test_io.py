"""Atomic writes: a failed write leaves the old file and no temporary file behind."""

from __future__ import annotations

import os
import stat

import pytest

from anonlab.io import write_atomic


def test_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "results.parquet"
    write_atomic(target, lambda tmp: tmp.write_text("old"))

    def crash(tmp):
        tmp.write_text("half")
        raise RuntimeError("killed mid-write")

    with pytest.raises(RuntimeError):
        write_atomic(target, crash)
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["results.parquet"]


def test_written_files_get_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        target = write_atomic(tmp_path / "a.json", lambda tmp: tmp.write_text("{}"))
    finally:
        os.umask(mask)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644  # not mkstemp's 0600
