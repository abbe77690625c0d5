"""Run time is a measurement: deterministic methods are timed once per repetition,
repetition by repetition across the cells, and a claim about run times is judged with
their spread. A single timing is never exact, and two methods timed from one
distribution are contradicted, or reproduced, at most at the checker's stated rate."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.report.claims import (
    CONTRADICTED,
    REPRODUCED,
    WITHIN_NOISE,
    evaluate_claim,
    parse_claim,
)
from anonlab.runner.execute import plan_jobs
from anonlab.runner.grid import Cell

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

CLAIM = parse_claim(
    {
        "id": "c",
        "paper": "TCM",
        "section": "§8.2",
        "quote": "q",
        "kind": "ordering",
        "metric": "runtime",
        "lower": "tclose_tfirst",
        "higher": "tclose_kfirst",
    }
)
T = [0.02, 0.06, 0.1, 0.14, 0.18, 0.22, 0.25]


def timings(reps: int, rng: np.random.Generator, ratio: float = 1.0) -> pd.DataFrame:
    """Log-normal timings (a loaded machine: 30 % spread) of two deterministic methods,
    ``tclose_kfirst`` ``ratio`` times slower than ``tclose_tfirst``."""
    rows = []
    for method, scale in (("tclose_tfirst", 1.0), ("tclose_kfirst", ratio)):
        for t in T:
            for rep in range(reps):
                rows.append(
                    {
                        "experiment": "x",
                        "dataset": "d",
                        "method": method,
                        "k": 2,
                        "t": t,
                        "rep": rep,
                        "seed": 1,
                        "cell_id": 0,
                        "metric": "runtime",
                        "attribute": None,
                        "value": scale * rng.lognormal(0.0, 0.3),
                    }
                )
    frame = pd.DataFrame(rows)
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def test_one_timing_per_cell_decides_nothing():
    rng = np.random.default_rng(0)
    verdicts = {evaluate_claim(CLAIM, timings(1, rng, ratio=3.0)).status for _ in range(10)}
    assert verdicts.isdisjoint({REPRODUCED, CONTRADICTED})


@pytest.mark.slow  # a verdict's rate over hundreds of simulated runs
def test_equal_run_times_are_neither_reproduced_nor_contradicted_beyond_the_stated_rate():
    rng = np.random.default_rng(1)
    verdicts = [evaluate_claim(CLAIM, timings(5, rng)).status for _ in range(80)]
    assert verdicts.count(CONTRADICTED) / len(verdicts) <= 0.025
    assert verdicts.count(REPRODUCED) / len(verdicts) <= 0.025
    assert verdicts.count(WITHIN_NOISE) / len(verdicts) >= 0.95


def test_a_clear_difference_is_reproduced_from_five_timings():
    rng = np.random.default_rng(2)
    verdicts = [evaluate_claim(CLAIM, timings(5, rng, ratio=4.0)).status for _ in range(20)]
    assert verdicts.count(REPRODUCED) >= 18


def test_a_timed_run_repeats_every_cell_repetition_by_repetition():
    cells = [Cell("tclose_kfirst", (("k", 2), ("t", t)), "d", i) for i, t in enumerate(T)]
    jobs = plan_jobs(cells, 3, ["runtime", "cluster_min"])
    assert len(jobs) == 3 * len(cells)
    assert [rep for _, _, rep in jobs] == sorted(rep for _, _, rep in jobs)
    assert [index for index, _, rep in jobs if rep == 0] == list(range(len(cells)))
    untimed = plan_jobs(cells, 3, ["cluster_min"])  # deterministic, nothing measured: once
    assert [(index, rep) for index, _, rep in untimed] == [(i, 0) for i in range(len(cells))]
