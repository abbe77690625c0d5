"""A monotone claim "per method, ε and α" (``each_group: true``) holds on each curve: a
pooled share lets one whole curve go the wrong way, judging each curve does not; and a
claim true on every curve is not contradicted beyond the stated rate however many curves
it has."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.report.claims import CONTRADICTED, REPRODUCED, evaluate_claim, parse_claim

K = list(range(2, 12))


def curves(
    slopes: dict[float, float], reps: int, rng: np.random.Generator, sd: float = 0.05
) -> pd.DataFrame:
    """One curve of ``ir_laplace`` per ε, value 1 + slope·k, with normal noise."""
    rows = []
    for epsilon, slope in slopes.items():
        for k in K:
            for rep in range(reps):
                rows.append(
                    {
                        "experiment": "x",
                        "dataset": "d",
                        "method": "ir_laplace",
                        "k": k,
                        "epsilon": epsilon,
                        "rep": rep,
                        "seed": 1,
                        "cell_id": 0,
                        "metric": "re",
                        "attribute": None,
                        "value": 1 + slope * k + rng.normal(0, sd),
                    }
                )
    frame = pd.DataFrame(rows)
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def claim(each: bool) -> dict:
    return parse_claim(
        {
            "id": "c",
            "paper": "DP-IR",
            "section": "§4.3",
            "quote": "q",
            "kind": "monotone",
            "metric": "re",
            "method": "ir_laplace",
            "direction": "increasing",
            "min_share": 0.51,
            "each_group": each,
            "tolerance_note": "a trend, per ε",
        }
    )


def test_one_curve_the_wrong_way_passes_pooled_and_is_contradicted_per_curve():
    frame = curves({0.1: 0.1, 1.0: 0.1, 10.0: -0.1}, 5, np.random.default_rng(0), sd=0.02)
    assert evaluate_claim(claim(False), frame).status == REPRODUCED  # 2 of 3 curves: 67 %
    judged = evaluate_claim(claim(True), frame)
    assert judged.status == CONTRADICTED and "ε=10" in judged.ours


@pytest.mark.integration  # a simulation: 30 verdicts on flat curves
def test_a_claim_true_on_every_curve_is_rarely_contradicted():
    # five flat curves (every pair on the boundary of "increasing"): a union over curves
    rng = np.random.default_rng(1)
    slopes = dict.fromkeys((0.1, 0.5, 1.0, 5.0, 10.0), 0.0)
    verdicts = [evaluate_claim(claim(True), curves(slopes, 3, rng)).status for _ in range(30)]
    assert verdicts.count(CONTRADICTED) <= 2 and verdicts.count(REPRODUCED) == 0
