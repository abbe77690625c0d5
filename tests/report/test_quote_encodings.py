"""Encodings that follow their quotes: a literal "for k > 100" asks the crossing to come by
100 (crossover ``by``), and "the one whose SSE increases the most" compares rises (kind
``growth``), not monotone curves."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab.report.claims import (
    CONTRADICTED,
    REPRODUCED,
    WITHIN_NOISE,
    evaluate_claim,
    parse_claim,
)
from anonlab.validation import ParameterError

BASE = {"paper": "TCM", "section": "§0", "quote": "q", "metric": "sse_tcm"}


def deterministic(values: dict[str, dict[int, float]]) -> pd.DataFrame:
    """One run of deterministic methods (exact values) over k and t."""
    rows = [
        {
            "experiment": "x",
            "dataset": "d",
            "method": method,
            "k": k,
            "t": t,
            "rep": 0,
            "seed": 1,
            "cell_id": 0,
            "metric": "sse_tcm",
            "attribute": None,
            "value": value + t,
        }
        for method, curve in values.items()
        for k, value in curve.items()
        for t in (0.1, 0.2)
    ]
    frame = pd.DataFrame(rows)
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def growth(**fields) -> dict:
    return {
        **BASE,
        "id": "g",
        "kind": "growth",
        "method": "tclose_tfirst",
        "others": ["tclose_merge", "tclose_kfirst"],
        "x": "k",
        "start": 2,
        "end": 30,
        "over": ["t"],
        **fields,
    }


def test_growth_compares_rises_not_monotone_curves():
    table = deterministic(
        {
            "tclose_tfirst": {2: 0.2, 10: 0.35, 15: 0.33, 30: 0.5},  # a dip, yet the largest rise
            "tclose_merge": {2: 0.5, 10: 0.45, 15: 0.5, 30: 0.45},
            "tclose_kfirst": {2: 0.3, 10: 0.4, 15: 0.4, 30: 0.4},
        }
    )
    result = evaluate_claim(parse_claim(growth()), table)
    assert result.status == REPRODUCED, result.ours
    assert "rise of tclose_tfirst from k=2 to k=30" in result.ours
    flat = deterministic(
        {
            "tclose_tfirst": {2: 0.2, 30: 0.25},
            "tclose_merge": {2: 0.2, 30: 0.5},
            "tclose_kfirst": {2: 0.3, 30: 0.3},
        }
    )
    assert evaluate_claim(parse_claim(growth()), flat).status == CONTRADICTED


def test_growth_fields_are_checked():
    with pytest.raises(ParameterError, match="field 'others'"):
        parse_claim(growth(others=[]))
    with pytest.raises(ParameterError, match="field 'end' must be above start"):
        parse_claim(growth(start=30, end=2))


def crossover(**fields) -> dict:
    return {
        **BASE,
        "id": "c",
        "kind": "crossover",
        "metric": "re",
        "method": "imdav",
        "baseline": "ir_laplace",
        "x": "k",
        "expected": 100,
        **fields,
    }


def curves(cross: int) -> pd.DataFrame:
    """imdav above ir_laplace from ``cross`` on, with clear noise-free gaps."""
    rows = []
    for k in (10, 40, 80, 120, 160, 200):
        for method, value in (("ir_laplace", 1.0), ("imdav", 1.5 if k >= cross else 0.5)):
            for rep in range(4):
                rows.append(
                    {
                        "experiment": "x",
                        "dataset": "d",
                        "method": method,
                        "k": k,
                        "epsilon": 1.0,
                        "rep": rep,
                        "seed": 1,
                        "cell_id": 0,
                        "metric": "re",
                        "attribute": None,
                        "value": value + 0.01 * (rep - 1.5),
                    }
                )
    frame = pd.DataFrame(rows)
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


@pytest.mark.parametrize(
    "cross, near, by",
    [
        (40, CONTRADICTED, REPRODUCED),  # better from k = 40: "for k > 100" holds
        (120, REPRODUCED, REPRODUCED),  # crossing in (80, 120]: inside 100 ± 30 either way
        (200, CONTRADICTED, CONTRADICTED),  # not better at k = 120, 160: the words fail
    ],
)
def test_a_literal_threshold_asks_the_crossing_to_come_by_it(cross, near, by):
    table = curves(cross)
    assert (
        evaluate_claim(parse_claim(crossover(tolerance=30, tolerance_note="t")), table).status
        == near
    )
    literal = evaluate_claim(
        parse_claim(crossover(by=True, tolerance=20, tolerance_note="t")), table
    )
    assert literal.status == by, literal.ours
    assert literal.status != WITHIN_NOISE
