"""Resumable sweeps (killed with SIGKILL, then restarted) give the same results file, byte
for byte, as an uninterrupted run (the Dask runner's: tests/runner/test_cluster.py)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from anonlab.runner import build_experiment, run_experiment
from anonlab.runner.checkpoint import Checkpoint

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[2]
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


def start(results_dir: Path, *overrides: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(ROOT / "run.py"), *SLOW, *overrides, f"results_dir={results_dir}"],
        cwd=ROOT,
        start_new_session=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )


@pytest.mark.slow  # 20 s: a real sweep killed mid-run; `python -m pytest -m slow` runs it
def test_sigkilled_sweep_resumes_to_the_same_bytes(tmp_path):
    whole = start(tmp_path / "whole")
    assert whole.wait(timeout=300) == 0, whole.stderr.read()

    killed = start(tmp_path / "killed")
    parts = tmp_path / "killed" / "census_idp_rf" / "parts" / "census_idp"
    deadline = time.monotonic() + 120
    while len(list(parts.glob("part-*.parquet"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert killed.poll() is None, "the run finished before it could be killed"
    os.killpg(killed.pid, signal.SIGKILL)  # the run and any worker it started
    killed.wait(timeout=30)
    stored = len(list(parts.glob("part-*.parquet")))
    assert 2 <= stored < 8  # 8 batches in all: killed partway
    results = tmp_path / "killed" / "census_idp_rf" / "results.parquet"
    assert not results.exists()

    done = {
        job
        for part in parts.glob("part-*.parquet")
        for job in pd.read_parquet(part)[["cell_id", "rep"]].itertuples(index=False)
    }

    resumed = start(tmp_path / "killed")
    assert resumed.wait(timeout=300) == 0, resumed.stderr.read()
    expected = (tmp_path / "whole" / "census_idp_rf" / "results.parquet").read_bytes()
    assert results.read_bytes() == expected
    # the stored batches were not recomputed: the progress bar starts at their jobs
    assert re.search(r"\| *(\d+)/28 \[", resumed.stderr.read())[1] == str(len(done))
    assert len(list(parts.glob("part-*.parquet"))) == 1  # compacted once complete


def test_a_finished_sweep_is_not_recomputed_and_a_new_seed_is(
    tmp_path, compose_config, monkeypatch
):
    cfg = compose_config(
        "+experiment=census_ir",
        "grid.k=[2,10]",
        "grid.epsilon=[1.0]",
        "reps=2",
        "n_jobs=1",
        "figures=[]",
        f"results_dir={tmp_path}",
    )
    experiment = build_experiment(cfg)
    first = run_experiment(experiment, experiment.config, progress=False)

    def fail(*args, **kwargs):
        raise AssertionError("a stored job was recomputed")

    monkeypatch.setattr("anonlab.runner.execute.run_batch", fail)
    again = run_experiment(experiment, experiment.config, progress=False)
    pd.testing.assert_frame_equal(first, again)
    monkeypatch.undo()

    other = build_experiment(compose_config(*[*cfg_overrides(tmp_path), "seed=7"]))
    key_before = (other.parts_dir / "census" / "manifest.json").read_text()
    table = run_experiment(other, other.config, progress=False)
    assert set(table["seed"]) == {7}
    assert (other.parts_dir / "census" / "manifest.json").read_text() != key_before


def cfg_overrides(tmp_path: Path) -> list[str]:
    return [
        "+experiment=census_ir",
        "grid.k=[2,10]",
        "grid.epsilon=[1.0]",
        "reps=2",
        "n_jobs=1",
        "figures=[]",
        f"results_dir={tmp_path}",
    ]


def test_checkpoint_ignores_parts_of_another_key(tmp_path):
    first = Checkpoint(tmp_path, "a").open()
    first.save([{"cell_id": 1, "rep": 0, "metric": "re", "attribute": None, "value": 1.0}])
    assert len(Checkpoint(tmp_path, "a").open().load()) == 1
    assert Checkpoint(tmp_path, "b").open().load().empty


def test_a_job_stored_twice_counts_once(tmp_path, compose_config):
    cfg = compose_config(
        "+experiment=census_ir",
        "grid.k=[2,10]",
        "grid.epsilon=[1.0]",
        "reps=2",
        "n_jobs=1",
        "figures=[]",
        f"results_dir={tmp_path}",
    )
    experiment = build_experiment(cfg)
    first = run_experiment(experiment, experiment.config, progress=False)
    parts = sorted((experiment.parts_dir / "census").glob("part-*.parquet"))
    copy = parts[0].with_name("part-" + "0" * 20 + ".parquet")  # sorts first
    copy.write_bytes(parts[0].read_bytes())
    again = run_experiment(experiment, experiment.config, progress=False)
    pd.testing.assert_frame_equal(first, again)
