"""Tables that do not depend on a run's data are computed once per code version."""

from __future__ import annotations

import pandas as pd
import pytest

import anonlab.runner.artifacts as artifacts
from anonlab.experiments import arena
from anonlab.validation import ParameterError


def _builder(calls: list[int]):
    def audit_like(table, n_jobs=-1):
        assert table is None  # never given the run's results
        calls.append(n_jobs)
        return pd.DataFrame({"method": ["laplace"], "epsilon_lower": [0.5]})

    audit_like.data_independent = True
    return audit_like


def test_a_data_independent_table_is_computed_once_and_reused(tmp_path, monkeypatch):
    calls: list[int] = []
    builder = _builder(calls)
    first, said = artifacts.cached_table("audit", builder, tmp_path, n_jobs=1)
    again, _ = artifacts.cached_table("audit", builder, tmp_path, n_jobs=1)
    assert said is None and calls == [1]  # n_jobs reaches the builder; computed once
    pd.testing.assert_frame_equal(first, again)
    # another code version is another key: computed again
    monkeypatch.setattr(artifacts, "source_digest", lambda: "f" * 64)
    artifacts.cached_table("audit", builder, tmp_path, n_jobs=2)
    assert calls == [1, 2]


def test_plot_only_computes_nothing_and_a_damaged_cache_is_computed_again(tmp_path):
    calls: list[int] = []
    builder = _builder(calls)
    table, said = artifacts.cached_table("audit", builder, tmp_path, n_jobs=1, compute=False)
    assert table is None and calls == [] and "plot_only=true computes nothing" in said
    artifacts.cached_table("audit", builder, tmp_path, n_jobs=1)
    artifacts.cache_path("audit", builder, tmp_path).write_bytes(b"not parquet")
    table, said = artifacts.cached_table("audit", builder, tmp_path, n_jobs=1)
    assert len(table) == 1 and calls == [1, 1] and "could not be read" in said


@pytest.mark.parametrize(
    ("value", "message"), [(5, "cache_dir must name a folder, got 5"), ("", "must name a folder")]
)
def test_a_cache_dir_that_is_not_a_folder_is_refused(tmp_path, value, message):
    with pytest.raises(ParameterError, match=message):
        artifacts.check_cache_dir(value)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ParameterError, match="is a file, not a folder"):
        artifacts.check_cache_dir(str(tmp_path / "file"))


def test_the_arena_audit_tables_say_they_read_no_results():
    assert all(
        artifacts.data_independent(b)
        for b in (arena.audited_epsilon, arena.floating_point, arena.attack)
    )
    assert not artifacts.data_independent(arena.summary)
