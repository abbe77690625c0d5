"""Option ``report: rates`` of the attack-based risks in a run: one result row per part,
the risk part the default's value, and the next randomized metric's draws unchanged."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import Attribute, Dataset
from anonlab.metrics import get_metric
from anonlab.runner.execute import run_job
from anonlab.runner.grid import Cell

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

NUMBERS = tuple(Attribute(name, domain=(-1e3, 1e3)) for name in "abc")


def population(rng: np.random.Generator, n: int) -> np.ndarray:
    base = rng.normal(50.0, 10.0, n)
    return np.column_stack([base, 0.5 * base + rng.normal(0, 5, n), rng.normal(20, 4, n)])


def test_report_rates_gives_one_row_per_part_in_a_run():
    rng = np.random.default_rng(7)
    frame = pd.DataFrame(population(rng, 120), columns=list("abc"))
    view = Dataset("toy", frame, NUMBERS)
    cell = Cell("original", (), "toy", id=3)
    names = ["singling_out", "linkability", "attribute_inference"]
    plain = {r["metric"]: r["value"] for r in run_job(view, (0, cell, 0), 5, names, [])}
    options = {name: {"report": "rates"} for name in names[:2]}
    rows = run_job(view, (0, cell, 0), 5, names, [], options)
    parts_of = {(r["metric"], r["attribute"]): r["value"] for r in rows}
    for name in names[:2]:
        assert parts_of[name, "risk"] == plain[name]
        assert set(p for m, p in parts_of if m == name) == {
            "risk",
            "attack_rate",
            "control_rate",
            "baseline_rate",
        }
    # the next randomized metric draws what it drew before
    assert parts_of["attribute_inference", None] == plain["attribute_inference"]
    inference = get_metric("attribute_inference", {"report": "rates"})
    assert inference.option_choices["report"] == ("risk", "rates")
