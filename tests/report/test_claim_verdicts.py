"""Verdicts with uncertainty: every claim kind on small hand-made tables whose repetitions
have a known spread; identical distributions come out "within noise", a clear gap
"reproduced", a clear reversal "contradicted", and a pick of the best of many noisy means
does not pass by selection."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.report.claims import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    WITHIN_NOISE,
    evaluate_claim,
    parse_claim,
)
from anonlab.report.claims.stats import Quantity, judge, tally

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def table(rows: list[dict], reps: int = 4, spread: float = 0.01) -> pd.DataFrame:
    """Rows repeated ``reps`` times; each point's values have exactly the given mean and a
    sample standard deviation of ``spread`` × |mean| (deterministic: no random draw)."""
    pattern = np.linspace(-1.0, 1.0, reps) if reps > 1 else np.zeros(1)
    if reps > 1:
        pattern = pattern / pattern.std(ddof=1)
    out = []
    for row in rows:
        sd = row.get("sd", spread * abs(row["value"]))
        for rep in range(reps):
            out.append(
                {
                    "experiment": "x",
                    "dataset": row.get("dataset", "d"),
                    "method": row["method"],
                    "k": row.get("k"),
                    "epsilon": row.get("epsilon"),
                    "rep": rep,
                    "seed": 1,
                    "cell_id": 0,
                    "metric": row.get("metric", "re"),
                    "attribute": row.get("attribute"),
                    "value": row["value"] + sd * pattern[rep],
                }
            )
    frame = pd.DataFrame(out)
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def sampled(rows: list[dict], reps: int, seed: int) -> pd.DataFrame:
    """Rows with ``reps`` normal draws of mean ``value`` and sd ``sd``."""
    rng = np.random.default_rng(seed)
    out = []
    for row in rows:
        for rep in range(reps):
            out.append(
                {
                    "experiment": "x",
                    "dataset": "d",
                    "method": row["method"],
                    "k": row.get("k"),
                    "epsilon": row.get("epsilon"),
                    "rep": rep,
                    "seed": 1,
                    "cell_id": 0,
                    "metric": row.get("metric", "re"),
                    "attribute": None,
                    "value": rng.normal(row["value"], row["sd"]),
                }
            )
    frame = pd.DataFrame(out)
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def curve(method: str, values: dict[int, float], **axes) -> list[dict]:
    return [{"method": method, "k": k, "value": v, **axes} for k, v in values.items()]


def claim(kind: str, **fields) -> dict:
    return {
        "id": "c",
        "paper": "DP-IR",
        "section": "§4.3",
        "quote": "q",
        "kind": kind,
        "metric": "re",
        **fields,
    }


def status(raw: dict, frame: pd.DataFrame) -> str:
    return evaluate_claim(parse_claim(raw), frame).status


ORDER = claim("ordering", lower="ir_laplace", higher="laplace")


# --- the three properties every verdict must have ---------------------------------------------


@pytest.mark.slow  # a verdict's rate over hundreds of simulated runs
def test_same_distribution_is_within_noise_and_contradicts_at_most_at_the_stated_rate():
    # ir_laplace and laplace drawn from one distribution: a false contradiction needs one
    # of the 38 points beyond its Bonferroni bound, which happens with probability ≤ α/2
    rows = curve("ir_laplace", {k: 1.0 for k in range(2, 40)}, epsilon=1.0)
    rows = [{**r, "sd": 0.2} for r in rows] + [
        {"method": "laplace", "epsilon": 1.0, "value": 1.0, "sd": 0.2}
    ]
    verdicts = [status(ORDER, sampled(rows, reps=10, seed=s)) for s in range(100)]
    assert verdicts.count(WITHIN_NOISE) >= 94
    assert verdicts.count(REPRODUCED) == 0
    assert verdicts.count(CONTRADICTED) <= 6  # 2.5 % expected
    one = [
        {"method": "ir_laplace", "k": 2, "epsilon": 1.0, "value": 1.0, "sd": 0.2},
        {"method": "laplace", "epsilon": 1.0, "value": 1.0, "sd": 0.2},
    ]
    verdicts = [status(ORDER, sampled(one, reps=10, seed=s)) for s in range(100)]
    assert verdicts.count(CONTRADICTED) <= 6 and verdicts.count(REPRODUCED) <= 6


def test_a_gap_of_three_standard_errors_is_reproduced():
    # 10 repetitions each, sd 1: the standard error of the gap is √(2/10) ≈ 0.447
    gap = 3 * np.sqrt(2 / 10)
    frame = table(
        [
            {"method": "ir_laplace", "k": 2, "value": 5.0, "sd": 1.0},
            {"method": "laplace", "value": 5.0 + gap, "sd": 1.0},
        ],
        reps=10,
    )
    result = evaluate_claim(parse_claim(ORDER), frame)
    assert result.status == REPRODUCED, result.ours
    reversed_ = table(
        [
            {"method": "ir_laplace", "k": 2, "value": 5.0 + gap, "sd": 1.0},
            {"method": "laplace", "value": 5.0, "sd": 1.0},
        ],
        reps=10,
    )
    assert status(ORDER, reversed_) == CONTRADICTED
    small = table(
        [
            {"method": "ir_laplace", "k": 2, "value": 5.0, "sd": 1.0},
            {"method": "laplace", "value": 5.0 + gap / 3, "sd": 1.0},
        ],
        reps=10,
    )
    within = evaluate_claim(parse_claim(ORDER), small)
    assert within.status == WITHIN_NOISE
    assert within.reps == 41  # a gap of 1 standard error at 10 reps: 10 × t(0.975, 40)² ≈ 40.8


@pytest.mark.slow  # a verdict's rate over hundreds of simulated runs
def test_a_maximum_over_noisy_means_on_the_bound_does_not_pass():
    # 60 grid points whose true mean is exactly the bound: the largest noisy mean always
    # lies above it, but a claim "some point exceeds 1" pays for picking it and passes
    # only at the stated error rate (≤ α/2 = 2.5 %)
    rows = [{"method": "idp_ls", "k": k, "value": 1.0, "sd": 0.1} for k in range(3, 63)]
    reaches = claim(
        "bound", method="idp_ls", op=">", value=1.0, min_count=1, tolerance_note="the best k"
    )
    best = claim(
        "ratio",
        numerator="idp_ls",
        denominator={"method": "idp_ls", "k": 3},
        over=["k"],
        numerator_aggregate="max",
        min=1.0 + 1e-9,
        tolerance_note="the best k",
    )
    passed = {"bound": 0, "ratio": 0, "naive": 0}
    for seed in range(60):
        frame = sampled(rows, reps=10, seed=seed)
        passed["naive"] += frame.groupby("k")["value"].mean().max() > 1.0
        passed["bound"] += status(reaches, frame) == REPRODUCED
        passed["ratio"] += status(best, frame) == REPRODUCED
    assert passed["naive"] == 60
    assert passed["bound"] <= 4 and passed["ratio"] <= 4


def test_exact_values_keep_exact_comparisons():
    frame = table(curve("tclose_tfirst", {2: 2.0, 5: 5.0, 10: 12.0}, metric="cluster_mean"), reps=1)
    bound = claim(
        "bound",
        metric="cluster_mean",
        method="tclose_tfirst",
        op="==",
        value="k",
        min_share=0.6,
        tolerance_note="most",
    )
    assert status(bound, frame) == REPRODUCED
    assert status({**bound, "min_share": 1.0}, frame) == CONTRADICTED
    assert (
        status(
            claim(
                "bound",
                metric="cluster_mean",
                method="tclose_tfirst",
                op=">=",
                value=12,
                min_count=1,
                tolerance_note="worst case",
            ),
            frame,
        )
        == REPRODUCED
    )
    assert (
        status(
            claim(
                "bound",
                metric="cluster_mean",
                method="tclose_tfirst",
                op=">",
                value=12,
                min_count=1,
                tolerance_note="worst case",
            ),
            frame,
        )
        == CONTRADICTED
    )


def test_a_randomised_method_run_once_is_never_decided():
    frame = table(
        [{"method": "ir_laplace", "k": 2, "value": 1.0}, {"method": "laplace", "value": 2.0}],
        reps=1,
    )
    result = evaluate_claim(parse_claim(ORDER), frame)
    assert result.status == WITHIN_NOISE and "1 rep" in result.ours


# --- each kind -------------------------------------------------------------------------------

BELOW = table(
    curve("ir_laplace", {2: 0.5, 5: 0.3, 10: 0.2, 20: 0.25}, epsilon=1.0)
    + curve("ir_laplace", {2: 0.9, 5: 0.75, 10: 0.7, 20: 0.9}, epsilon=10.0)
    + [
        {"method": "laplace", "epsilon": 1.0, "value": 0.6},
        {"method": "laplace", "epsilon": 10.0, "value": 0.8},
    ]
)


def test_ordering_matches_a_baseline_without_k_on_the_other_axes():
    result = evaluate_claim(parse_claim(ORDER), BELOW)
    assert result.status == CONTRADICTED  # ε = 10: 0.9 > 0.8 at k = 2 and 20
    assert "6/8 comparisons hold" in result.ours and "k=" in result.ours
    assert status({**ORDER, "where": {"epsilon": 1.0}}, BELOW) == REPRODUCED
    assert status({**ORDER, "min_share": 0.75, "tolerance_note": "most"}, BELOW) == REPRODUCED
    assert (
        status({**ORDER, "where": {"epsilon": 1.0}, "factor": 2.0, "tolerance_note": "×2"}, BELOW)
        == CONTRADICTED
    )  # 0.5·2 > 0.6


def test_ordering_chain_and_fixed_axes():
    frame = table(curve("a", {2: 1, 5: 2}) + curve("b", {2: 2, 5: 3}) + curve("c", {2: 3, 5: 1}))
    assert status(claim("ordering", chain=["a", "b", "c"]), frame) == CONTRADICTED
    assert status(claim("ordering", chain=["a", "b", "c"], where={"k": 2}), frame) == REPRODUCED
    fixed = claim("ordering", lower={"method": "a", "k": 2}, higher={"method": "b", "k": 5})
    assert status(fixed, frame) == REPRODUCED
    assert (
        status(claim("ordering", lower=["a", "c"], higher="b", where={"k": 5}), frame) == REPRODUCED
    )


def test_ordering_per_attribute_and_method_lists():
    rows = []
    for method, base in (("ir_laplace", 1.0), ("imdav_laplace", 2.0)):
        for attribute, scale in (("A", 1.0), ("B", 3.0)):
            rows += curve(method, {2: base * scale, 5: base * scale / 2}, attribute=attribute)
    frame = table(rows)
    ordering = claim("ordering", by_attribute=True, lower="ir_laplace", higher="imdav_laplace")
    assert status(ordering, frame) == REPRODUCED
    across = claim(
        "ordering", by_attribute=True, lower={"attribute": "A"}, higher={"attribute": "B"}
    )
    assert status(across, frame) == REPRODUCED
    assert status({**ordering, "by_attribute": False}, frame) == NOT_CHECKABLE


def crossing_table(
    ks: list[int], cross_at: int, gap: float = 0.1, sd: float = 0.001
) -> pd.DataFrame:
    """ir_laplace above laplace (0.5) by ``gap`` for k > cross_at, below by ``gap`` before."""
    values = {k: (0.5 + gap if k > cross_at else 0.5 - gap) for k in ks}
    rows = [{**r, "sd": sd} for r in curve("ir_laplace", values, epsilon=10.0)]
    return table(rows + [{"method": "laplace", "epsilon": 10.0, "value": 0.5, "sd": sd}])


CROSS = claim(
    "crossover",
    method="ir_laplace",
    baseline="laplace",
    expected=10,
    tolerance=5,
    tolerance_note="read off a figure",
)


def test_crossover_interval_in_or_out_of_the_window():
    result = evaluate_claim(parse_claim(CROSS), crossing_table(list(range(2, 41)), 12))
    assert result.status == REPRODUCED and "crossing at k=12" in result.ours
    assert status(CROSS, crossing_table(list(range(2, 41)), 20)) == CONTRADICTED
    never = crossing_table(list(range(2, 41)), 100)
    assert status(CROSS, never) == CONTRADICTED
    assert "not above" in evaluate_claim(parse_claim(CROSS), never).ours


def test_crossover_within_noise_gives_the_interval():
    # the curves are within noise of each other from k = 9 to 16: the crossing may lie
    # anywhere there, which reaches outside 10 ± 5
    values = {k: 0.5 + 0.02 * (k - 12) for k in range(2, 41)}
    rows = [{**r, "sd": 0.02} for r in curve("ir_laplace", values, epsilon=10.0)]
    frame = table(
        rows + [{"method": "laplace", "epsilon": 10.0, "value": 0.5, "sd": 0.02}], reps=10
    )
    result = evaluate_claim(parse_claim({**CROSS, "tolerance": 2}), frame)
    assert result.status == WITHIN_NOISE and "crossing k in [" in result.ours
    assert status({**CROSS, "tolerance": 20, "expected": 20}, frame) == REPRODUCED


def test_crossover_on_a_coarse_exact_grid_is_not_checkable():
    coarse = table(
        curve("ir_laplace", {k: (0.6 if k > 12 else 0.4) for k in (2, 5, 10, 20, 45)}, epsilon=10.0)
        + [{"method": "laplace", "epsilon": 10.0, "value": 0.5}],
        reps=1,
    )
    coarse["method"] = coarse["method"].replace({"ir_laplace": "ir", "laplace": "mdav"})
    exact = {**CROSS, "method": "ir", "baseline": "mdav"}
    assert status(exact, coarse) == NOT_CHECKABLE  # crossing somewhere in 10..19


def test_crossover_stays_or_first():
    values = {2: 0.4, 5: 0.6, 8: 0.4, 10: 0.4, 11: 0.6, 12: 0.6}
    frame = table(curve("ir_laplace", values) + [{"method": "laplace", "value": 0.5}])
    base = {**CROSS, "tolerance": 0.5, "tolerance_note": "exact"}
    assert status(base, frame) == REPRODUCED
    assert status({**base, "mode": "first"}, frame) == CONTRADICTED


def test_monotone_judges_the_trend_over_all_pairs():
    frame = table(curve("ir_laplace", {k: k + (3 if k % 2 else 0) for k in range(2, 20)}))
    rising = claim(
        "monotone",
        method="ir_laplace",
        x="k",
        direction="increasing",
        min_share=0.75,
        tolerance_note="trend",
    )
    result = evaluate_claim(parse_claim(rising), frame)
    assert result.status == REPRODUCED and "pairs of k increasing" in result.ours


def test_monotone_share_and_relative_tolerance():
    frame = table(curve("ir", {2: 1.0, 5: 2.0, 10: 1.95, 20: 3.0, 50: 4.0}), reps=1)
    rising = claim("monotone", method="ir", x="k", direction="increasing")
    result = evaluate_claim(parse_claim(rising), frame)
    assert result.status == CONTRADICTED  # only 5 → 10 goes down
    assert "9/10 pairs of k increasing" in result.ours
    assert status({**rising, "min_share": 0.9, "tolerance_note": "trend"}, frame) == REPRODUCED
    assert status({**rising, "rel_tol": 0.05, "tolerance_note": "slack"}, frame) == REPRODUCED
    assert status({**rising, "direction": "decreasing"}, frame) == CONTRADICTED
    assert status({**rising, "where": {"k": 2}}, frame) == NOT_CHECKABLE  # one point


def test_extremum_location_pays_for_the_pick():
    values = {k: (k - 8) ** 2 + 1.0 for k in range(3, 30)}
    extremum = claim("extremum", method="idp_cbls", x="k", which="min", expected=[5, 15])
    assert status(extremum, table(curve("idp_cbls", values))) == REPRODUCED
    late = {k: (k - 25) ** 2 + 1.0 for k in range(3, 30)}
    assert status(extremum, table(curve("idp_cbls", late))) == CONTRADICTED
    flat = [
        {**r, "sd": 1.0}
        for r in curve("idp_cbls", {k: 1.0 + 0.001 * (k - 8) ** 2 for k in range(3, 30)})
    ]
    result = evaluate_claim(parse_claim(extremum), table(flat, reps=10))
    assert result.status == WITHIN_NOISE and "could be anywhere" in result.ours


def test_ratio_on_the_log_scale_with_aggregates():
    frame = table(
        curve("ir_laplace", {50: 3.0, 100: 5.0}, epsilon=0.1)
        + [
            {"method": "laplace", "epsilon": 1.0, "value": 2.5},
            {"method": "laplace", "epsilon": 10.0, "value": 0.1},
        ]
    )
    ratio = claim(
        "ratio",
        numerator={"method": "ir_laplace", "epsilon": 0.1, "k": 100},
        denominator={"method": "laplace", "epsilon": 1.0},
        within=2.2,
        tolerance_note="similar",
    )
    result = evaluate_claim(parse_claim(ratio), frame)
    assert result.status == REPRODUCED and result.ours.startswith("ratio 2 [")
    assert status({**ratio, "within": 2.0}, frame) == WITHIN_NOISE  # 2 ± 1.5 %: on the edge
    assert status({**ratio, "within": 1.5}, frame) == CONTRADICTED
    mean_over_k = {
        **ratio,
        "numerator": {"method": "ir_laplace", "epsilon": 0.1},
        "over": ["k"],
        "within": 1.5,
    }  # (3 + 5) / 2 = 4
    assert status(mean_over_k, frame) == CONTRADICTED
    best = {
        k: v
        for k, v in {
            **mean_over_k,
            "numerator_aggregate": "min",
            "within": None,
            "max": 1.25,
        }.items()
        if v is not None
    }
    assert status(best, frame) == REPRODUCED
    assert (
        status({**ratio, "denominator": {"method": "laplace", "epsilon": 0.5}}, frame)
        == NOT_CHECKABLE
    )


def dp_ir_table1_results(scale: float = 1.0, drop: float | None = None) -> pd.DataFrame:
    """Δσ² per attribute equal to DP-IR Table 1's printed cells (times ``scale``)."""
    from anonlab.experiments.dp_ir import METHODS, paper_values

    names = {
        "A1": "AFNLWGT",
        "A2": "AGI",
        "A3": "EMCONTRB",
        "A4": "FEDTAX",
        "A5": "PTOTVAL",
        "A6": "STATETAX",
        "A7": "TAXINC",
        "A8": "POTHVAL",
    }
    rows = [
        {
            "method": METHODS[row.method],
            "k": row.k,
            "epsilon": row.epsilon,
            "metric": "variance_change",
            "attribute": names[row.attribute],
            "value": row.paper * scale,
        }
        for row in paper_values().itertuples()
        if row.epsilon != drop
    ]
    return table(rows, reps=1)


def test_cells_compare_the_paper_table_through_its_builder():
    cells = claim(
        "cells",
        source="anonlab.experiments.dp_ir:compare",
        paper_column="paper",
        ours_column="ours",
        factor=2.0,
        where={"epsilon": 1.0},
        tolerance_note="read off a table",
    )
    del cells["metric"]
    assert status(cells, dp_ir_table1_results()) == REPRODUCED
    result = evaluate_claim(parse_claim(cells), dp_ir_table1_results(scale=3.0))
    assert result.status == CONTRADICTED and result.ours.startswith("0/64 cells within ×2")
    assert status({**cells, "factor": 4.0}, dp_ir_table1_results(scale=3.0)) == REPRODUCED
    assert status(cells, dp_ir_table1_results(drop=1.0)) == NOT_CHECKABLE


def test_missing_metric_or_method_is_not_checkable():
    result = evaluate_claim(parse_claim({**ORDER, "metric": "jsd"}), BELOW)
    assert result.status == NOT_CHECKABLE and "jsd" in result.ours
    assert status(claim("ordering", lower="ir", higher="laplace"), BELOW) == NOT_CHECKABLE


def test_the_rule_counts_a_share_with_simultaneous_intervals():
    # 20 points, each 2.5 standard errors in the claimed direction: every one holds at 95 %,
    # which proves "all"; a share of them must hold at 1 − 0.05/20 (z ≈ 3.0) and does not
    q = Quantity.of(np.full(20, 2.5), np.ones(20), np.full(20, np.inf), np.full(20, 10))
    assert tally(judge(q), need=20).status == REPRODUCED
    assert tally(judge(q), need=15).status == WITHIN_NOISE


def test_cells_allow_the_papers_printed_precision():
    # DP-IR Table 1 prints A4, k = 50, ε = 10, IR as 0.00: anything below 0.005
    frame = dp_ir_table1_results()
    cell = (
        (frame["attribute"] == "FEDTAX")
        & (frame["k"] == 50)
        & (frame["epsilon"] == 10.0)
        & (frame["method"] == "ir_laplace")
    )
    assert frame.loc[cell, "value"].tolist() == [0.0]
    cells = claim(
        "cells",
        source="anonlab.experiments.dp_ir:compare",
        paper_column="paper",
        ours_column="ours",
        factor=2.0,
        where={"epsilon": 10.0},
        tolerance_note="read off a table",
    )
    del cells["metric"]
    frame.loc[cell, "value"] = 0.004
    assert status(cells, frame) == REPRODUCED
    frame.loc[cell, "value"] = 0.03
    assert status(cells, frame) == CONTRADICTED


def test_a_ratio_whose_interval_overflows_is_within_noise_not_an_error():
    from anonlab.report.claims.stats import spending

    rows = [
        {"method": "a", "k": 2, "value": 0.5, "sd": 0.7071},
        {"method": "b", "k": 2, "value": 1.0, "sd": 1e-4},
    ]
    claim = parse_claim(
        {
            "id": "r",
            "paper": "P",
            "section": "s",
            "quote": "q",
            "kind": "ratio",
            "metric": "re",
            "numerator": "a",
            "denominator": "b",
            "max": 2.0,
            "tolerance_note": "t",
        }
    )
    with spending(0.01):  # a late look's level: the interval spans hundreds of e-folds
        result = evaluate_claim(claim, table(rows, reps=2))
    assert result.status == WITHIN_NOISE and "∞" in result.ours


# --- the points a verdict shows: the largest deviation first ---------------------------------


def test_the_worst_ordering_point_is_the_largest_reversal_exact_or_noisy():
    # k=2: a 3 % reversal, first in table order; k=5: ×2.39, the largest
    rows = curve("a", {2: 1.0, 5: 2.39, 8: 0.5}) + curve("b", {2: 0.97, 5: 1.0, 8: 1.0})
    exact = evaluate_claim(parse_claim(claim("ordering", lower="a", higher="b")), table(rows, 4, 0))
    assert exact.status == CONTRADICTED and "worst at k=5: 2.39 vs 1" in exact.ours
    # noisy: the small reversal is the most certain (smallest t), the large one still leads
    noisy = [{**r, "sd": 0.001 if r["k"] == 2 else 0.2} for r in rows]
    result = evaluate_claim(parse_claim(claim("ordering", lower="a", higher="b")), table(noisy, 10))
    assert result.status == CONTRADICTED and "worst at k=5" in result.ours
    # a factor ordering: lower · factor against higher on the log scale
    factor = claim("ordering", lower="b", higher="a", factor=2.0, tolerance_note="t")
    result = evaluate_claim(parse_claim(factor), table(rows, 4, 0))
    assert "worst at k=8" in result.ours


def test_ratio_and_monotone_show_the_largest_deviations_first():
    rows = curve("a", {2: 1.1, 5: 1.6, 8: 4.0}) + curve("b", {2: 1.0, 5: 1.0, 8: 1.0})
    raw = claim("ratio", numerator="a", denominator="b", within=1.2, tolerance_note="t")
    ours = evaluate_claim(parse_claim(raw), table(rows, 4, 0)).ours
    assert ours.index("k=8") < ours.index("k=5"), ours
    # two curves that fall: by 5 % first in table order, by half second
    rows = curve("m", {2: 1.0, 5: 0.95}, epsilon=1.0) + curve("m", {2: 1.0, 5: 0.5}, epsilon=2.0)
    raw = claim("monotone", method="m", direction="increasing")
    ours = evaluate_claim(parse_claim(raw), table(rows, 4, 0)).ours
    assert ours.index("ε=2") < ours.index("ε=1"), ours


def test_bound_shows_the_point_farthest_from_an_equality():
    rows = curve("m", {2: 0.5, 5: 1.0, 8: 2.5})
    raw = claim("bound", method="m", op="==", value=1.0)
    assert "worst at k=8" in evaluate_claim(parse_claim(raw), table(rows, 4, 0)).ours
