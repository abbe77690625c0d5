"""Crossover and extremum claims within noise name the repetitions that would decide them:
rebuilt with that many repetitions (same means, same spreads) the claim is decided, and
with one fewer it is not; decided and exact claims name none; the bootstrap share in the
verdict text is reproducible."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd

from anonlab.report.claims import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    WITHIN_NOISE,
    ResultsTable,
    crossover,
    evaluate_claim,
    parse_claim,
)
from anonlab.report.claims.crossover import (
    RESAMPLES,
    above_below,
    crossing_interval,
    crossing_intervals,
    fewest_reps,
    with_reps,
)
from anonlab.report.claims.stats import MAX_REPS, Quantity, judge


def table(rows: list[dict], reps: int) -> pd.DataFrame:
    """Each row repeated ``reps`` times with exactly the mean ``value`` and the sample
    standard deviation ``sd`` (no random draw): its standard error is sd/√reps."""
    pattern = np.linspace(-1.0, 1.0, reps) if reps > 1 else np.zeros(1)
    if reps > 1:
        pattern = pattern / pattern.std(ddof=1)
    out = [
        {
            "experiment": "x",
            "dataset": "d",
            "method": row["method"],
            "k": row.get("k"),
            "epsilon": row.get("epsilon", 1.0),
            "rep": rep,
            "seed": 1,
            "cell_id": 0,
            "metric": "re",
            "attribute": None,
            "value": row["value"] + row.get("sd", 0.0) * pattern[rep],
        }
        for row in rows
        for rep in range(reps)
    ]
    frame = pd.DataFrame(out)
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def claim(kind: str, **fields) -> dict:
    return {"id": "c", "paper": "P", "section": "§1", "quote": "q", "kind": kind} | {
        "metric": "re",
        **fields,
    }


CROSS = claim(
    "crossover",
    method="ir_laplace",
    baseline="laplace",
    expected=10,
    tolerance=2,
    tolerance_note="read off a figure",
)
LOWEST = claim("extremum", method="idp_cbls", x="k", which="min", expected=[6, 10])


def crossing_rows(slope: float = 0.02, sd: float = 0.05, cross_at: float = 10.0) -> list[dict]:
    """ir_laplace rising through laplace (0.5) at k = ``cross_at``, both with spread ``sd``."""
    values = {k: 0.5 + slope * (k - cross_at) for k in range(2, 31)}
    rows = [{"method": "ir_laplace", "k": k, "value": v, "sd": sd} for k, v in values.items()]
    return rows + [{"method": "laplace", "value": 0.5, "sd": sd}]


def valley_rows(sd: float = 1.0) -> list[dict]:
    """A shallow valley at k = 8: the neighbours' means are within noise of its own."""
    return [
        {"method": "idp_cbls", "k": k, "value": 1.0 + 0.05 * (k - 8) ** 2, "sd": sd}
        for k in range(3, 20)
    ]


def judged(raw: dict, rows: list[dict], reps: int):
    return evaluate_claim(parse_claim(raw), table(rows, reps))


def test_a_crossover_within_noise_names_the_repetitions_that_decide_it():
    rows = crossing_rows()
    first = judged(CROSS, rows, reps=4)
    assert first.status == WITHIN_NOISE and first.reps is not None and first.reps > 4
    # rebuilt with that many repetitions, same means and spreads: decided; one fewer: not
    assert judged(CROSS, rows, first.reps).status in (REPRODUCED, CONTRADICTED)
    assert judged(CROSS, rows, first.reps - 1).status == WITHIN_NOISE


def test_a_crossover_outside_the_window_is_named_its_contradiction():
    rows = crossing_rows(cross_at=14.5)
    first = judged(CROSS, rows, reps=4)
    assert first.status == WITHIN_NOISE and first.reps is not None
    assert judged(CROSS, rows, first.reps).status == CONTRADICTED
    assert judged(CROSS, rows, first.reps - 1).status == WITHIN_NOISE


def test_an_extremum_within_noise_names_the_repetitions_that_decide_it():
    rows = valley_rows()
    first = judged(LOWEST, rows, reps=10)
    assert first.status == WITHIN_NOISE and first.reps is not None and first.reps > 10
    assert judged(LOWEST, rows, first.reps).status == REPRODUCED
    assert judged(LOWEST, rows, first.reps - 1).status == WITHIN_NOISE


def test_decided_claims_name_no_repetitions():
    sharp = crossing_rows(slope=0.2, sd=0.01)
    assert judged(CROSS, sharp, 4).status == REPRODUCED and judged(CROSS, sharp, 4).reps is None
    late = crossing_rows(slope=0.2, sd=0.01, cross_at=20.5)
    result = judged(CROSS, late, 4)
    assert result.status == CONTRADICTED and result.reps is None
    deep = valley_rows(sd=0.001)
    result = judged({**LOWEST, "expected": [3, 19]}, deep, 10)
    assert result.status == REPRODUCED and result.reps is None


def test_exact_points_name_no_repetitions():
    coarse = [
        {"method": "ir", "k": k, "value": 0.6 if k > 12 else 0.4} for k in (2, 5, 10, 20, 45)
    ] + [{"method": "mdav", "value": 0.5}]
    result = judged({**CROSS, "method": "ir", "baseline": "mdav"}, coarse, reps=1)
    assert result.status == NOT_CHECKABLE and result.reps is None
    # exact and within noise of nothing: the grid alone leaves it open
    v = [{"method": "mdav", "k": k, "value": float((k - 8) ** 2)} for k in (2, 8, 20)]
    result = judged({**LOWEST, "method": "mdav", "expected": [7, 9]}, v, reps=1)
    assert result.status == NOT_CHECKABLE and result.reps is None


def test_a_coarse_grid_under_noise_names_none():
    # below at k = 5, above at k = 20 for sure: the crossing lies in [5, 19] however many
    # repetitions, against 10 ± 2
    rows = [
        {"method": "ir_laplace", "k": k, "value": v, "sd": 0.05}
        for k, v in {2: 0.3, 5: 0.4, 20: 0.6, 30: 0.7}.items()
    ] + [{"method": "laplace", "value": 0.5, "sd": 0.05}]
    result = judged(CROSS, rows, reps=4)
    assert result.status == WITHIN_NOISE and result.reps is None


def test_the_estimate_and_the_resampled_share_are_reproducible():
    for raw, rows, reps, what in (
        (CROSS, crossing_rows(), 4, "crossing in the window in "),
        (LOWEST, valley_rows(), 10, "min in the window in "),
    ):
        one = evaluate_claim(parse_claim(raw), ResultsTable(table(rows, reps)))
        two = evaluate_claim(parse_claim(raw), ResultsTable(table(rows, reps)))
        assert (one.ours, one.reps) == (two.ours, two.reps)
        assert what in one.ours and "% of 200 parametric resamples" in one.ours


def test_several_curves_count_the_curves_in_the_window():
    rows = [
        {**r, "epsilon": eps}
        for eps in (1.0, 10.0)
        for r in crossing_rows(cross_at=10.0 if eps == 1.0 else 10.5)
    ]
    result = judged(CROSS, rows, reps=4)
    assert result.status == WITHIN_NOISE and result.reps is not None
    assert "crossings (2 of 2 curves) in the window in " in result.ours
    assert judged(CROSS, rows, result.reps).status != WITHIN_NOISE
    assert judged(CROSS, rows, result.reps - 1).status == WITHIN_NOISE


def test_the_search_finds_the_threshold_by_doubling_and_bisection():
    for threshold in (5, 11, 12, 1000, 65_537, MAX_REPS):
        calls: list[int] = []

        def decides(n: int, t: int = threshold, seen: list[int] = calls) -> bool:
            seen.append(n)
            return n >= t

        assert fewest_reps(decides, 4) == threshold
        assert len(calls) <= 2 * MAX_REPS.bit_length()
    assert fewest_reps(lambda n: False, 4) is None
    assert fewest_reps(lambda n: True, None) is None


def test_shrunk_errors_and_the_light_judgement_agree_with_stats():
    rng = np.random.default_rng(3)
    se = rng.uniform(0.1, 1.0, 30)
    se[:4], se[4:6] = 0.0, np.nan  # exact points and unknown errors
    est = rng.normal(0.0, 1.5, 30)
    est[0] = 0.0
    q = Quantity.of(est, se, 9, 10)
    for tests in (1, 7, 30):
        full = judge(q, tests=tests)
        above, below = above_below(q, tests)
        assert np.array_equal(above, full.holds_adjusted)
        assert np.array_equal(below, full.opposite_adjusted)
    shrunk = with_reps(q, 40)
    assert np.allclose(shrunk.se[6:], se[6:] / 2) and np.all(shrunk.df[6:] == 39)
    assert np.all(shrunk.se[:4] == 0) and np.all(np.isnan(shrunk.se[4:6]))


def test_the_vectorised_crossing_is_the_crossing_of_each_row():
    xs = np.array([2.0, 5.0, 8.0, 10.0, 11.0])
    rows = list(itertools.product((0, 1, 2), repeat=len(xs)))
    above = np.array([[v == 1 for v in r] for r in rows])
    below = np.array([[v == 2 for v in r] for r in rows])
    for mode in ("stays", "first"):
        low, high = crossing_intervals(xs, above, below, mode)
        for i in range(len(rows)):
            assert (low[i], high[i]) == crossing_interval(xs, above[i], below[i], mode)


def test_the_estimate_is_cheap(monkeypatch):
    """What a within-noise crossover costs, counted rather than timed (a busy machine
    changes the seconds, not the count): the repetitions that decide it are found by
    doubling then bisection, a few looks where a scan would take one per count, and each
    curve takes one pass for the verdict, one per look and one over all the resamples."""
    rows = [
        {**r, "epsilon": eps}
        for eps in (0.5, 1.0, 2.0, 5.0, 10.0)
        for r in crossing_rows(cross_at=10.0 + eps / 10)
    ]
    data = ResultsTable(table(rows, 4))
    raw = parse_claim({**CROSS, "min_share": 0.6, "tolerance_note": "t"})
    looks: list[int] = []  # the repetitions each look rebuilds both curves at
    passes: list[int] = []  # the rows (resamples or one) of each pass over a curve
    rebuild, locate = crossover.with_reps, crossover.crossing_intervals

    def counted_look(q, reps):
        looks.append(reps)
        return rebuild(q, reps)

    def counted_pass(xs, above, below, mode, step=None):
        passes.append(len(above))
        return locate(xs, above, below, mode, step)

    monkeypatch.setattr(crossover, "with_reps", counted_look)
    monkeypatch.setattr(crossover, "crossing_intervals", counted_pass)
    found = evaluate_claim(raw, data)
    assert found.status == WITHIN_NOISE and found.reps == 40
    tried = sorted(set(looks))
    assert len(looks) == 2 * len(tried)  # each count looked at once, both curves
    bound = 2 * math.ceil(math.log2(found.reps))
    assert len(tried) <= bound < found.reps - 4  # a scan from today's 4 would pass it
    curves = 5
    assert len(passes) == curves * (2 + len(tried))
    assert sum(passes) == curves * (1 + len(tried) + RESAMPLES)
