"""The plan's later looks, taken by the run: only the cells of the claims that need more
data, the stored repetitions as the prefix, the same rows as a run with every repetition,
and the report judging each claim on what its looks added."""

from __future__ import annotations

import json
from dataclasses import replace

import pandas as pd
import pytest
from reference import SMALL_RUN

from anonlab.report import looks
from anonlab.report.claims import parse_claim
from anonlab.runner import build_experiment
from anonlab.runner.experiment import Look, run_grid
from anonlab.runner.store import write_table
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SMALL = SMALL_RUN
ORDERING = {
    "id": "c_laplace",
    "paper": "DP-IR",
    "section": "§0",
    "quote": "q",
    "kind": "ordering",
    "metric": "re",
    "lower": "ir_laplace",
    "higher": "laplace",
    "where": {"k": 10},
}


def experiment_in(tmp_path, compose_config, reps: int = 2):
    config = compose_config(*SMALL, f"reps={reps}", f"results_dir={tmp_path / str(reps)}")
    return build_experiment(config)


def stored_run(experiment) -> pd.DataFrame:
    """The experiment's results table, stored as a run stores it (no figures)."""
    table = run_grid(experiment, progress=False)
    write_table(table, experiment.results_path)
    return table


def test_a_claim_reads_the_cells_of_its_selections_and_filters(tmp_path, compose_config):
    experiment = experiment_in(tmp_path, compose_config)
    table = stored_run(experiment)
    cells = looks.claim_cells(parse_claim(ORDERING), table)
    chosen = table[table["cell_id"].isin(cells)]
    assert set(chosen["method"]) == {"ir_laplace", "laplace"}
    assert set(chosen.loc[chosen["method"] == "ir_laplace", "k"]) == {10}  # where k = 10
    assert len(cells) == 2  # laplace has no k: its one cell passes the filter


def test_a_later_look_adds_only_the_missing_repetitions_of_its_cells(
    tmp_path, compose_config, monkeypatch
):
    """A claim within noise at look 1 (2 repetitions) gets look 2 (4): repetitions 2 and 3
    of its cells only, measured by its metric only (RE, not the run's JSD), the same rows
    a run of 4 repetitions gives them."""
    experiment = experiment_in(tmp_path, compose_config)
    stored_run(experiment)
    entry = type("Entry", (), {"claims": [ORDERING]})()
    monkeypatch.setattr(looks, "plan_of", lambda _: (entry, (2, 4, 8)))
    judged: list[int] = []

    def judge(claim, data, plan, spent):  # within noise until it has 4 repetitions
        judged.append(data.available)
        status = "within noise" if data.available < 4 else "reproduced"
        result = type("R", (), {})()
        result.needs_more_data = status == "within noise"
        result.next_reps = 4 if status == "within noise" else None
        return result

    monkeypatch.setattr(looks, "judge_in_looks", judge)
    written = looks.run_later_looks(experiment, progress=False)
    assert [p.name for p in written] == ["results.parquet", "looks.json"]
    added = pd.read_parquet(written[0])
    record = json.loads(written[1].read_text())
    assert [r["look"] for r in record["looks"]] == [2] and record["plan"] == [2, 4, 8]
    assert judged == [2, 4]  # look 1, then look 2 on the added repetitions
    assert sorted(added["rep"].unique()) == [2, 3]
    cells = looks.claim_cells(parse_claim(ORDERING), pd.read_parquet(experiment.results_path))
    assert set(added["cell_id"]) <= cells  # nothing else runs
    assert set(experiment.metrics) == {"re", "jsd"} and set(added["metric"]) == {"re"}
    full = experiment_in(tmp_path, compose_config, reps=4)
    whole = run_grid(full, progress=False)
    expected = whole[
        whole["cell_id"].isin(added["cell_id"]) & (whole["rep"] >= 2) & (whole["metric"] == "re")
    ]
    columns = ["cell_id", "rep", "metric", "value"]
    pd.testing.assert_frame_equal(
        added[columns].reset_index(drop=True), expected[columns].reset_index(drop=True)
    )
    # the report judges the claim on its added repetitions, any other claim without them
    table = pd.read_parquet(experiment.results_path)
    tables = looks.claim_tables(experiment.out_dir, table, (2, 4, 8))
    assert tables("c_laplace")["rep"].max() == 3
    assert tables("another") is table


def test_a_look_keeps_its_claims_metrics_and_every_randomized_one(tmp_path):
    look = Look(frozenset({1}), 2, 4, tmp_path, frozenset({"re"}))
    # f_measure (a forest) decides how many repetitions deterministic cells run: kept
    assert look.measured(("jsd", "re", "f_measure", "sse")) == ("re", "f_measure")
    assert replace(look, metrics=None).measured(("jsd", "re")) == ("jsd", "re")


def test_no_look_without_the_plan(tmp_path, compose_config):
    paper = replace(experiment_in(tmp_path, compose_config), provenance="paper")
    assert looks.plan_of(paper)[1] == (10, 20, 40)  # census_ir's 10 repetitions, × 1, 2, 4
    for changed in (
        {"later_looks": False},
        {"profile": "quick"},
        {"claims": []},
    ):
        assert looks.plan_of(replace(paper, config={**paper.config, **changed})) is None
    assert looks.plan_of(replace(paper, provenance="custom")) is None  # not the paper's run


def test_a_recorded_look_beyond_the_plan_is_refused(tmp_path):
    folder = tmp_path / looks.LOOKS_DIR
    folder.mkdir()
    (folder / looks.LOOKS_FILE).write_text(
        json.dumps({"looks": [{"look": 4, "reps": 80, "claims": ["x"], "cells": 1}]})
    )
    with pytest.raises(ParameterError, match="look 4 at 80 repetitions, beyond the pre-reg"):
        looks.read_looks(tmp_path, (10, 20, 40))


def test_later_looks_must_be_a_flag(compose_config):
    from anonlab.runner.validate import validate

    with pytest.raises(ParameterError, match="later_looks must be true or false, got 'yes'"):
        validate({**compose_config(*SMALL), "later_looks": "yes"})
