"""A statement true by construction of the implementation (``sanity:``) is judged like any
claim but counted apart: no finding about the paper, never a contradiction's cause."""

from __future__ import annotations

import pandas as pd

from anonlab.report.claims import REPRODUCED, ClaimError, evaluate_claims, parse_claim
from anonlab.report.render import _verdict_line
from anonlab.report.view import _counts

BASE = {
    "id": "c",
    "paper": "DP-IR",
    "section": "§4.4",
    "quote": "they overlap",
    "kind": "ratio",
    "metric": "re",
    "numerator": "imdav",
    "denominator": "ir",
    "within": 1.01,
    "tolerance_note": "a line width",
}
TABLE = pd.DataFrame(
    [
        {
            "experiment": "x",
            "dataset": "d",
            "method": m,
            "rep": 0,
            "seed": 1,
            "cell_id": 0,
            "metric": "re",
            "attribute": None,
            "value": 0.5,
        }
        for m in ("imdav", "ir")
    ]
).astype({"attribute": "string"})


def test_a_sanity_check_is_judged_and_counted_apart():
    plain, sanity = evaluate_claims(
        [BASE, {**BASE, "id": "s", "sanity": "one method at m=1"}], TABLE
    )
    assert plain.status == sanity.status == REPRODUCED
    assert sanity.sanity == "one method at m=1" and plain.sanity is None
    assert _counts([plain, sanity])[REPRODUCED] == 1
    assert _verdict_line(sanity).startswith("sanity check (true by construction")


def test_every_sanity_check_in_the_configs_says_why():
    from anonlab import catalog

    found = [raw for entry in catalog.experiments() for raw in entry.claims if "sanity" in raw]
    assert len(found) >= 3
    for raw in found:
        assert parse_claim(raw).sanity.strip()
    try:
        parse_claim({**BASE, "sanity": ""})
    except ClaimError as error:
        assert "sanity" in str(error)
    else:
        raise AssertionError("an empty reason was accepted")
