"""A reading's run takes the primary run's rows of the cells the reading leaves alone
(anonlab/runner/reuse.py): the same bytes as computing them, and nothing taken from a
primary that differs in code, versions, metric options or name."""

from __future__ import annotations

import hashlib
import json

import pytest

from anonlab.metrics import get_metric
from anonlab.runner import build_experiment
from anonlab.runner.reuse import primary_rows
from anonlab.runner.store import package_versions
from anonlab.runner.workers import facts
from tests.conftest import run_command

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

# DP-UNI Figure 1's reading remainder_first changes ir's and ir_laplace's options, not
# laplace's: laplace's one cell (ε = 1) is taken, ir's and ir_laplace's computed
RUN = [
    "+experiment=adult_uni_sse",
    "grid.k=[2,7]",
    "grid.epsilon=[1.0]",
    "reps=2",
    "n_jobs=1",
    "figures=[]",
]
READING = "reading=remainder_first"


def this_process() -> dict:
    """What ``run.json`` records of the code and versions, as the run computes it."""
    here = facts()
    return {
        "source_sha256": here["source_sha256"],
        "versions": package_versions() | here["versions"],
    }


def digest(path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """The primary and the reading in one results folder, the reading alone in another."""
    shared, alone = tmp_path_factory.mktemp("shared"), tmp_path_factory.mktemp("alone")
    for argv in (
        [*RUN, f"results_dir={shared}"],
        [*RUN, READING, f"results_dir={shared}"],
        [*RUN, READING, f"results_dir={alone}"],
    ):
        done = run_command(*argv)
        assert done.returncode == 0, done.stderr
    return shared, alone


def test_a_reading_takes_the_cells_it_leaves_alone_byte_for_byte(runs):
    shared, alone = runs
    [primary] = [p for p in shared.iterdir() if "@" not in p.name]
    [taking] = shared.glob("*@remainder_first*")
    [computing] = alone.glob("*@remainder_first*")
    assert digest(taking / "results.parquet") == digest(computing / "results.parquet")
    reused = json.loads((taking / "run.json").read_text())["reused"]
    assert reused == {"from": str(primary), "cells": 1, "rows": 2}  # laplace, 2 reps
    assert json.loads((computing / "run.json").read_text())["reused"] is None


def test_nothing_is_taken_from_another_code_or_metric_options_or_name(runs, compose_config):
    shared, _ = runs
    config = compose_config(*RUN, READING, f"results_dir={shared}")
    experiment = build_experiment(config)
    now = this_process()

    def taken(config=experiment.config, here=now, reading=experiment.reading):
        found = primary_rows(
            experiment.name,
            reading,
            experiment.out_dir,
            config,
            experiment.overrides,
            experiment.cells,
            here,
        )
        return None if found is None else len(found.cell_ids)

    assert taken() == 1
    assert taken(here={**now, "source_sha256": "0" * 64}) is None  # other code
    assert taken(here={**now, "versions": {**now["versions"], "numpy": "0"}}) is None
    # a metric's options, compared as declared: sse reads every cell
    options = {**experiment.config["options"], "sse": {"any": "value"}}
    assert taken(config={**experiment.config, "options": options}) is None
    assert taken(config={**experiment.config, "seed": 1}) is None
    assert taken(config={**experiment.config, "reps": 3}) is None
    assert taken(config={**experiment.config, "run_name": "mine"}) is None
    assert taken(reading=None) is None  # a primary takes nothing


def test_a_timed_run_takes_nothing(runs, compose_config, monkeypatch):
    """Timings are compared within one run (on one machine's speed): none is taken."""
    shared, _ = runs
    experiment = build_experiment(compose_config(*RUN, READING, f"results_dir={shared}"))
    now = this_process()
    args = (experiment.name, experiment.reading, experiment.out_dir, experiment.config)
    rest = (experiment.overrides, experiment.cells, now)
    assert primary_rows(*args, *rest) is not None
    monkeypatch.setattr(type(get_metric("sse")), "measured", True)  # as if sse were timed
    assert primary_rows(*args, *rest) is None
