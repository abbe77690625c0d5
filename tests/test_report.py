"""Crossover detection on a hand-made result table."""

from __future__ import annotations

import pandas as pd

from anonlab.report import crossings


def table() -> pd.DataFrame:
    rows = []
    for k, value in zip([2, 3, 4, 5, 6], [0.1, 0.6, 0.2, 0.7, 0.8], strict=True):
        for rep, noise in enumerate((-0.01, 0.01)):
            rows.append({"method": "ir_laplace", "k": k, "epsilon": 10.0, "rep": rep,
                         "metric": "jsd", "attribute": None, "value": value + noise})
    for rep in range(2):
        rows.append({"method": "laplace", "k": None, "epsilon": 10.0, "rep": rep,
                     "metric": "jsd", "attribute": None, "value": 0.5})
    frame = pd.DataFrame(rows)
    frame["k"] = frame["k"].astype("Int64")
    return frame


def test_first_above_and_stays_above_a_horizontal_baseline():
    found = crossings(table(), "jsd", "ir_laplace", "laplace", by=("epsilon",))
    row = found.iloc[0]
    assert row["first_above"] == 3 and row["stays_above_from"] == 5
    assert row["n_above"] == 3 and row["baseline_value"] == 0.5


def test_never_above():
    frame = table()
    frame.loc[frame.method == "laplace", "value"] = 0.9
    row = crossings(frame, "jsd", "ir_laplace", "laplace", by=("epsilon",)).iloc[0]
    assert row["first_above"] is None and row["stays_above_from"] is None
