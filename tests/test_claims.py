"""Claims as data: every kind passes and fails when it should on small hand-made tables,
coarse grids are "not checkable", malformed claims are refused naming the claim and field,
and the claims of every experiment config are well-formed."""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd
import pytest
import yaml

from anonlab.report.claims import (
    NOT_CHECKABLE,
    NOT_REPRODUCED,
    REPRODUCED,
    ClaimError,
    check_against_config,
    evaluate_claim,
    parse_claim,
    parse_claims,
)
from anonlab.validation import ParameterError

ROOT = Path(__file__).resolve().parents[1]
EXPERIMENTS = ["census_ir", "adult_ir", "census_ir_vs_mdav", "adult_ir_vs_mdav",
               "census_variance", "adult_uni_sse", "tclose_sizes", "tclose_runtime",
               "tclose_sse", "tclose_sse_kt", "census_idp_sse", "wine_idp_sse",
               "census_idp_rf", "wine_idp_rf"]


def table(rows: list[dict], reps: int = 2) -> pd.DataFrame:
    """A tidy results table from (method, axes…, metric, value) rows; each value is
    repeated ``reps`` times with ±1% noise, so the means are the given values."""
    out = []
    for row in rows:
        for rep in range(reps):
            noise = 1 + 0.01 * (rep - (reps - 1) / 2) * (1 if reps > 1 else 0)
            out.append({"experiment": "x", "dataset": row.get("dataset", "d"),
                        "method": row["method"], "k": row.get("k"),
                        "epsilon": row.get("epsilon"), "rep": rep, "seed": 1, "cell_id": 0,
                        "metric": row.get("metric", "re"), "attribute": row.get("attribute"),
                        "value": row["value"] * noise})
    frame = pd.DataFrame(out)
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def curve(method: str, values: dict[int, float], **axes) -> list[dict]:
    return [{"method": method, "k": k, "value": v, **axes} for k, v in values.items()]


def claim(kind: str, **fields) -> dict:
    return {"id": "c", "paper": "DP-IR", "section": "§4.3", "quote": "q", "kind": kind,
            "metric": "re", **fields}


def status(raw: dict, frame: pd.DataFrame) -> str:
    return evaluate_claim(parse_claim(raw), frame).status


# --- ordering ----------------------------------------------------------------------------

KS = [2, 5, 10, 20]
BELOW = table(curve("ir_laplace", {2: 0.5, 5: 0.3, 10: 0.2, 20: 0.25}, epsilon=1.0)
              + curve("ir_laplace", {2: 0.9, 5: 0.75, 10: 0.7, 20: 0.9}, epsilon=10.0)
              + [{"method": "laplace", "epsilon": 1.0, "value": 0.6},
                 {"method": "laplace", "epsilon": 10.0, "value": 0.8}])


def test_ordering_matches_a_baseline_without_k_on_the_other_axes():
    ordering = claim("ordering", lower="ir_laplace", higher="laplace")
    result = evaluate_claim(parse_claim(ordering), BELOW)
    assert result.status == NOT_REPRODUCED  # ε = 10: 0.9 > 0.8 at k = 2 and 20
    assert "6/8 points" in result.ours and "k=2" in result.ours
    assert status({**ordering, "where": {"epsilon": 1.0}}, BELOW) == REPRODUCED
    assert status({**ordering, "min_share": 0.75, "tolerance_note": "most"}, BELOW) == REPRODUCED
    assert status({**ordering, "where": {"epsilon": 1.0}, "factor": 2.0,
                   "tolerance_note": "×2"}, BELOW) == NOT_REPRODUCED  # 0.5·2 > 0.6


def test_ordering_chain_and_fixed_axes():
    frame = table(curve("a", {2: 1, 5: 2}) + curve("b", {2: 2, 5: 3}) + curve("c", {2: 3, 5: 1}))
    assert status(claim("ordering", chain=["a", "b", "c"]), frame) == NOT_REPRODUCED
    assert status(claim("ordering", chain=["a", "b", "c"], where={"k": 2}), frame) == REPRODUCED
    # a scalar in a selection fixes that axis: k = 2 of "a" against k = 5 of "b"
    fixed = claim("ordering", lower={"method": "a", "k": 2}, higher={"method": "b", "k": 5})
    assert status(fixed, frame) == REPRODUCED
    # a tier of several methods: every one below
    assert status(claim("ordering", lower=["a", "c"], higher="b", where={"k": 5}),
                  frame) == REPRODUCED


def test_ordering_per_attribute_and_method_lists():
    rows = []
    for method, base in (("ir_laplace", 1.0), ("imdav_laplace", 2.0)):
        for attribute, scale in (("A", 1.0), ("B", 3.0)):
            rows += curve(method, {2: base * scale, 5: base * scale / 2}, attribute=attribute)
    frame = table(rows)
    ordering = claim("ordering", by_attribute=True, lower="ir_laplace", higher="imdav_laplace")
    assert status(ordering, frame) == REPRODUCED
    across = claim("ordering", by_attribute=True, lower={"attribute": "A"},
                   higher={"attribute": "B"})  # every method, matched method by method
    assert status(across, frame) == REPRODUCED
    assert status({**ordering, "by_attribute": False}, frame) == NOT_CHECKABLE


# --- crossover ---------------------------------------------------------------------------

def crossing_table(ks: list[int], cross_at: int) -> pd.DataFrame:
    """ir_laplace above laplace (0.5) for k > cross_at."""
    values = {k: (0.6 if k > cross_at else 0.4) for k in ks}
    return table(curve("ir_laplace", values, epsilon=10.0)
                 + [{"method": "laplace", "epsilon": 10.0, "value": 0.5}])


def test_crossover_within_tolerance_passes_and_outside_fails():
    crossover = claim("crossover", method="ir_laplace", baseline="laplace", expected=10,
                      tolerance=5, tolerance_note="read off a figure")
    fine = crossing_table(list(range(2, 41)), cross_at=12)
    result = evaluate_claim(parse_claim(crossover), fine)
    assert result.status == REPRODUCED and "from k=13" in result.ours
    assert status(crossover, crossing_table(list(range(2, 41)), cross_at=20)) == NOT_REPRODUCED
    never = crossing_table(list(range(2, 41)), cross_at=100)
    assert status(crossover, never) == NOT_REPRODUCED
    assert "not above" in evaluate_claim(parse_claim(crossover), never).ours


def test_crossover_on_a_coarse_grid_is_not_checkable():
    crossover = claim("crossover", method="ir_laplace", baseline="laplace", expected=10,
                      tolerance=5, tolerance_note="read off a figure")
    coarse = crossing_table([2, 5, 10, 20, 45], cross_at=12)  # crossing somewhere in 10..19
    assert status(crossover, coarse) == NOT_CHECKABLE
    assert status(crossover, crossing_table([2, 5, 10, 20, 45], cross_at=30)) == NOT_REPRODUCED


def test_crossover_stays_or_first():
    values = {2: 0.4, 5: 0.6, 8: 0.4, 10: 0.4, 11: 0.6, 12: 0.6}
    frame = table(curve("ir_laplace", values) + [{"method": "laplace", "value": 0.5}])
    base = claim("crossover", method="ir_laplace", baseline="laplace", expected=10,
                 tolerance=0.5, tolerance_note="exact")
    assert status(base, frame) == REPRODUCED
    assert status({**base, "mode": "first"}, frame) == NOT_REPRODUCED


# --- monotone and extremum -------------------------------------------------------------------

def test_monotone_judges_the_trend_over_all_pairs():
    # a noisy rise: most neighbouring steps go down, yet the curve clearly grows
    frame = table(curve("ir_laplace", {k: k + (3 if k % 2 else 0) for k in range(2, 20)}))
    rising = claim("monotone", method="ir_laplace", x="k", direction="increasing",
                   min_share=0.75, tolerance_note="trend")
    result = evaluate_claim(parse_claim(rising), frame)
    assert result.status == REPRODUCED and "steps 9/17" in result.ours


def test_monotone_share_and_relative_tolerance():
    frame = table(curve("ir", {2: 1.0, 5: 2.0, 10: 1.95, 20: 3.0, 50: 4.0}))
    rising = claim("monotone", method="ir", x="k", direction="increasing")
    result = evaluate_claim(parse_claim(rising), frame)
    assert result.status == NOT_REPRODUCED  # only 5 → 10 goes down
    assert "9/10 pairs of k increasing" in result.ours and "steps 3/4" in result.ours
    assert status({**rising, "min_share": 0.9, "tolerance_note": "trend"}, frame) == REPRODUCED
    assert status({**rising, "rel_tol": 0.05, "tolerance_note": "noise"}, frame) == REPRODUCED
    assert status({**rising, "direction": "decreasing"}, frame) == NOT_REPRODUCED
    assert status({**rising, "where": {"k": 2}}, frame) == NOT_CHECKABLE  # one point


def test_extremum_location():
    values = {k: (k - 8) ** 2 + 1.0 for k in range(3, 30)}
    extremum = claim("extremum", method="idp_cbls", x="k", which="min", expected=[5, 15])
    assert status(extremum, table(curve("idp_cbls", values))) == REPRODUCED
    late = {k: (k - 25) ** 2 + 1.0 for k in range(3, 30)}
    assert status(extremum, table(curve("idp_cbls", late))) == NOT_REPRODUCED
    coarse = {k: values[k] for k in (3, 10, 28)}  # best somewhere in 4..27
    assert status(extremum, table(curve("idp_cbls", coarse))) == NOT_CHECKABLE


# --- ratio, bound, cells ---------------------------------------------------------------------

def test_ratio_within_a_factor_over_aggregated_axes():
    frame = table(curve("ir_laplace", {50: 3.0, 100: 5.0}, epsilon=0.1)
                  + [{"method": "laplace", "epsilon": 1.0, "value": 2.5},
                     {"method": "laplace", "epsilon": 10.0, "value": 0.1}])
    ratio = claim("ratio", numerator={"method": "ir_laplace", "epsilon": 0.1, "k": 100},
                  denominator={"method": "laplace", "epsilon": 1.0}, within=2.0,
                  tolerance_note="similar")
    result = evaluate_claim(parse_claim(ratio), frame)
    assert result.status == REPRODUCED and result.ours.startswith("ratio 2 ")
    assert status({**ratio, "within": 1.5}, frame) == NOT_REPRODUCED
    mean_over_k = {**ratio, "numerator": {"method": "ir_laplace", "epsilon": 0.1},
                   "over": ["k"], "within": 1.5}  # (3 + 5) / 2 = 4
    assert status(mean_over_k, frame) == NOT_REPRODUCED
    best = {**mean_over_k, "numerator_aggregate": "min", "within": None, "max": 1.25}
    assert status({k: v for k, v in best.items() if v is not None}, frame) == REPRODUCED
    missing = {**ratio, "denominator": {"method": "laplace", "epsilon": 0.5}}
    assert status(missing, frame) == NOT_CHECKABLE


def test_bound_against_a_number_or_a_grid_column():
    frame = table(curve("tclose_tfirst", {2: 2.0, 5: 5.0, 10: 12.0}, metric="cluster_mean"),
                  reps=1)
    bound = claim("bound", metric="cluster_mean", method="tclose_tfirst", op="==", value="k",
                  min_share=0.6, tolerance_note="most")
    assert status(bound, frame) == REPRODUCED
    assert status({**bound, "min_share": 1.0}, frame) == NOT_REPRODUCED
    assert status(claim("bound", metric="cluster_mean", method="tclose_tfirst", op=">=",
                        value=12, min_count=1, tolerance_note="worst case"), frame) == REPRODUCED
    assert status(claim("bound", metric="cluster_mean", method="tclose_tfirst", op=">",
                        value=12, min_count=1, tolerance_note="worst case"),
                  frame) == NOT_REPRODUCED


def dp_ir_table1_results(scale: float = 1.0, drop: float | None = None) -> pd.DataFrame:
    """Δσ² per attribute equal to DP-IR Table 1's printed cells (times ``scale``)."""
    from experiments.dp_ir_table1 import METHODS, paper_values

    cells = paper_values()
    names = {"A1": "AFNLWGT", "A2": "AGI", "A3": "EMCONTRB", "A4": "FEDTAX", "A5": "PTOTVAL",
             "A6": "STATETAX", "A7": "TAXINC", "A8": "POTHVAL"}
    rows = [{"method": METHODS[row.method], "k": row.k, "epsilon": row.epsilon,
             "metric": "variance_change", "attribute": names[row.attribute],
             "value": row.paper * scale}
            for row in cells.itertuples() if row.epsilon != drop]
    return table(rows, reps=1)  # attributes in file order: the builder names them A1..A8


def test_cells_compare_the_paper_table_through_its_builder():
    cells = claim("cells", source="experiments.dp_ir_table1:compare", paper_column="paper",
                  ours_column="ours", factor=2.0, where={"epsilon": 1.0},
                  tolerance_note="noise")
    del cells["metric"]
    assert status(cells, dp_ir_table1_results()) == REPRODUCED
    result = evaluate_claim(parse_claim(cells), dp_ir_table1_results(scale=3.0))
    assert result.status == NOT_REPRODUCED and result.ours.startswith("0/64 cells within ×2")
    assert status({**cells, "factor": 4.0}, dp_ir_table1_results(scale=3.0)) == REPRODUCED
    assert status(cells, dp_ir_table1_results(drop=1.0)) == NOT_CHECKABLE


def test_missing_metric_or_method_is_not_checkable():
    result = evaluate_claim(parse_claim(claim("ordering", metric="jsd", lower="ir_laplace",
                                              higher="laplace")), BELOW)
    assert result.status == NOT_CHECKABLE and "jsd" in result.ours
    assert status(claim("ordering", lower="ir", higher="laplace"), BELOW) == NOT_CHECKABLE


# --- validation ------------------------------------------------------------------------------

@pytest.mark.parametrize(("fields", "message"), [
    ({"id": None}, "claim #1: field 'id' is missing"),
    ({"id": "Bad id"}, "field 'id' must be lower-case"),
    ({"paper": "DPIR"}, "field 'paper' must be one of"),
    ({"kind": "trend"}, "field 'kind' must be one of"),
    ({"quote": ""}, "field 'quote' must be a non-empty string"),
    ({"colour": "red"}, "field 'colour' is not a field of kind 'ordering'"),
    ({"metric": None}, "field 'metric' is missing"),
    ({"min_share": 1.5, "tolerance_note": "x"}, "field 'min_share' must be in"),
    ({"min_share": 0.5}, "field 'tolerance_note' is missing"),
    ({"factor": 2.0}, "field 'tolerance_note' is missing"),
    ({"where": {"k": {"above": 3}}}, "field 'where.k' range must have keys"),
    ({"where": [1]}, "field 'where' must be a mapping"),
    ({"lower": None}, "field 'lower' is missing"),
    ({"lower": {"method": 3}}, "field 'lower.method' must be a name"),
    ({"chain": ["a", "b"]}, "field 'chain' cannot be given with"),
    ({"notes": "dp-ir"}, "field 'notes' must be an anchor"),
])
def test_bad_ordering_claims_name_the_claim_and_field(fields, message):
    raw = {k: v for k, v in {**claim("ordering", id="my_claim", lower="a", higher="b"),
                             **fields}.items() if v is not None}
    with pytest.raises(ClaimError, match=re.escape(message)):
        parse_claim(raw)
    if "id" not in fields:
        with pytest.raises(ClaimError, match="claim 'my_claim'"):
            parse_claim(raw)


@pytest.mark.parametrize(("fields", "message"), [
    (claim("crossover", method="a", baseline="b"), "field 'expected' is missing"),
    (claim("crossover", method="a", baseline="b", expected=10, mode="last"),
     "field 'mode' must be one of"),
    (claim("monotone", method="a", direction="up"), "field 'direction' must be one of"),
    (claim("extremum", method="a", which="min", expected=[15, 5]),
     "field 'expected' must be a range"),
    (claim("ratio", numerator="a", denominator="b"), "field 'within' is missing"),
    (claim("ratio", numerator="a", denominator="b", within=0.5, tolerance_note="x"),
     "field 'within' must be >= 1"),
    (claim("ratio", numerator="a", denominator="b", within=2, min=1, tolerance_note="x"),
     "field 'within' cannot be given with"),
    (claim("ratio", numerator="a", denominator="b", numerator_aggregate="median", within=2,
           tolerance_note="x"), "field 'numerator_aggregate' must be one of"),
    ({**claim("cells", source="experiments.dp_ir_table1:compare")},
     "field 'match' is missing"),
    ({**claim("cells", source="experiments.nowhere:compare", match="m")},
     "field 'source' cannot be loaded"),
    (claim("bound", method="a", op="=", value=1), "field 'op' must be one of"),
    (claim("bound", method="a", op="<", value=1, min_count=0, tolerance_note="x"),
     "field 'min_count' must be an integer"),
])
def test_bad_claims_of_each_kind(fields, message):
    with pytest.raises(ClaimError, match=re.escape(message)):
        parse_claim(fields)


def test_duplicate_ids_and_non_list():
    one = claim("ordering", lower="a", higher="b")
    with pytest.raises(ClaimError, match="claim 'c': field 'id' is used twice"):
        parse_claims([one, one])
    with pytest.raises(ClaimError, match="claims must be a list"):
        parse_claims({"id": "c"})
    assert parse_claims(None) == []


def test_claims_must_name_what_the_experiment_runs():
    config = {"methods": ["a", "b"], "metrics": ["re"], "grid": {"k": [2], "epsilon": [1.0]}}
    check_against_config(parse_claims([claim("ordering", lower="a", higher="b",
                                             where={"epsilon": 1.0})]), config)
    for raw, message in [
        (claim("ordering", lower="a", higher="z"), "names method 'z'"),
        (claim("ordering", metric="jsd", lower="a", higher="b"), "names 'jsd'"),
        (claim("ordering", lower="a", higher="b", where={"m": 1}), "filters 'm'"),
        (claim("monotone", method="a", x="t", direction="increasing"), "field 'x' is 't'"),
    ]:
        with pytest.raises(ClaimError, match=re.escape(message)):
            check_against_config(parse_claims([raw]), config)


# --- the experiment configs --------------------------------------------------------------------

def test_every_experiment_states_well_formed_claims_with_notes_anchors():
    notes = (ROOT / "docs" / "reproduction-notes.md").read_text(encoding="utf-8")
    anchors = set(re.findall(r'<a id="([a-z0-9-]+)"></a>', notes))
    papers = set()
    for name in EXPERIMENTS:
        config = yaml.safe_load((ROOT / "conf" / "experiment" / f"{name}.yaml").read_text(
            encoding="utf-8"))
        claims = parse_claims(config.get("claims"))
        assert claims, f"{name} states no claims"
        check_against_config(claims, config)
        for c in claims:
            assert c.paper == config["experiment"]["paper"], c.id
            assert c.notes is None or c.notes[1:] in anchors, (c.id, c.notes)
            papers.add(c.paper)
    assert papers == {"DP-IR", "DP-UNI", "TCM", "iDP"}
    default = yaml.safe_load((ROOT / "conf" / "config.yaml").read_text(encoding="utf-8"))
    assert default["claims"] == []


def test_bad_claim_stops_the_experiment_before_any_work(compose_config):
    from anonlab.runner import build_experiment

    cfg = compose_config("+experiment=census_ir")
    cfg["claims"] = [{"id": "x", "paper": "DP-IR", "section": "§4.3", "quote": "q",
                      "kind": "sideways", "metric": "re", "lower": "ir", "higher": "laplace"}]
    with pytest.raises(ParameterError, match="claim 'x'"):
        build_experiment(cfg)
    # leaving out a method a claim names is the user's choice, not an error
    build_experiment(compose_config("+experiment=census_ir", "methods=[laplace]"))
