"""Claims as data: malformed claims are refused naming the claim and field, and the claims
of every experiment config are well-formed (tests/report/test_claim_verdicts.py judges them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from anonlab import catalog
from anonlab.report.claims import (
    ClaimError,
    check_against_config,
    parse_claim,
    parse_claims,
)
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[2]
EXPERIMENTS = catalog.experiment_names()  # every paper experiment, from the configs
BEYOND = {p.short for p in catalog.papers() if p.kind == "beyond"}  # no paper claims


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


# --- validation ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"id": None}, "claim #1: field 'id' is missing"),
        ({"id": "Bad id"}, "field 'id' must be lower-case"),
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
    ],
)
def test_bad_ordering_claims_name_the_claim_and_field(fields, message):
    raw = {
        k: v
        for k, v in {**claim("ordering", id="my_claim", lower="a", higher="b"), **fields}.items()
        if v is not None
    }
    with pytest.raises(ClaimError, match=re.escape(message)):
        parse_claim(raw)
    if "id" not in fields:
        with pytest.raises(ClaimError, match="claim 'my_claim'"):
            parse_claim(raw)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (claim("crossover", method="a", baseline="b"), "field 'expected' is missing"),
        (
            claim("crossover", method="a", baseline="b", expected=10, mode="last"),
            "field 'mode' must be one of",
        ),
        (claim("monotone", method="a", direction="up"), "field 'direction' must be one of"),
        (
            claim("extremum", method="a", which="min", expected=[15, 5]),
            "field 'expected' must be a range",
        ),
        (claim("ratio", numerator="a", denominator="b"), "field 'within' is missing"),
        (
            claim("ratio", numerator="a", denominator="b", within=0.5, tolerance_note="x"),
            "field 'within' must be >= 1",
        ),
        (
            claim("ratio", numerator="a", denominator="b", within=2, min=1, tolerance_note="x"),
            "field 'within' cannot be given with",
        ),
        (
            claim(
                "ratio",
                numerator="a",
                denominator="b",
                numerator_aggregate="median",
                within=2,
                tolerance_note="x",
            ),
            "field 'numerator_aggregate' must be one of",
        ),
        (
            {**claim("cells", source="anonlab.experiments.dp_ir:compare")},
            "field 'match' is missing",
        ),
        (
            {**claim("cells", source="anonlab.experiments.nowhere:compare", match="m")},
            "field 'source' cannot be loaded",
        ),
        (claim("bound", method="a", op="=", value=1), "field 'op' must be one of"),
        (
            claim("bound", method="a", op="<", value=1, min_count=0, tolerance_note="x"),
            "field 'min_count' must be an integer",
        ),
    ],
)
def test_bad_claims_of_each_kind(fields, message):
    with pytest.raises(ClaimError, match=re.escape(message)):
        parse_claim(fields)


def test_a_section_is_cited_only_with_a_paper():
    # a claim of a paper must say where in it; one of an experiment of one's own cannot
    with pytest.raises(ClaimError, match="field 'section' is missing"):
        parse_claim(claim("ordering", lower="a", higher="b", section=None))
    own = {k: v for k, v in claim("ordering", lower="a", higher="b").items()}
    del own["paper"], own["section"]
    parsed = parse_claim(own)
    assert parsed.paper is None and parsed.section is None


def test_duplicate_ids_and_non_list():
    one = claim("ordering", lower="a", higher="b")
    with pytest.raises(ClaimError, match="claim 'c': field 'id' is used twice"):
        parse_claims([one, one])
    with pytest.raises(ClaimError, match="claims must be a list"):
        parse_claims({"id": "c"})
    assert parse_claims(None) == []


def test_claims_must_name_what_the_experiment_runs():
    config = {"methods": ["a", "b"], "metrics": ["re"], "grid": {"k": [2], "epsilon": [1.0]}}
    check_against_config(
        parse_claims([claim("ordering", lower="a", higher="b", where={"epsilon": 1.0})]), config
    )
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
    paper_of = {entry.name: entry.paper for entry in catalog.experiments()}  # read once
    for name in EXPERIMENTS:
        config = yaml.safe_load(
            (ROOT / "conf" / "experiment" / f"{name}.yaml").read_text(encoding="utf-8")
        )
        claims = parse_claims(catalog.resolved_claims(config))
        beyond = paper_of[name] in BEYOND
        assert claims or beyond, f"{name} states no claims"
        check_against_config(claims, config)
        for c in claims:
            # a privacy claim of the arena judges a paper's own statement with the audit
            judged_elsewhere = beyond and c.kind == "privacy"
            assert c.paper == config["experiment"]["paper"] or judged_elsewhere, c.id
            assert c.notes is None or c.notes[1:] in anchors, (c.id, c.notes)
            papers.add(c.paper)
    assert papers == {paper.short for paper in catalog.papers() if paper.kind == "paper"}
    default = yaml.safe_load((ROOT / "conf" / "config.yaml").read_text(encoding="utf-8"))
    assert default["claims"] == []


def test_bad_claim_stops_the_experiment_before_any_work(compose_config):
    from anonlab.cli import checked_claims
    from anonlab.runner import build_experiment

    cfg = compose_config("+experiment=census_ir")
    cfg["claims"] = [
        {
            "id": "x",
            "paper": "DP-IR",
            "section": "§4.3",
            "quote": "q",
            "kind": "sideways",
            "metric": "re",
            "lower": "ir",
            "higher": "laplace",
        }
    ]
    with pytest.raises(ParameterError, match="claim 'x'"):
        checked_claims(build_experiment(cfg))
    # leaving out a method a claim names is the user's choice, not an error
    build_experiment(compose_config("+experiment=census_ir", "methods=[laplace]"))


def test_a_kind_registered_in_its_own_module_is_parsed_and_judged(monkeypatch):
    """A claim kind is one module calling ``register_kind``: its fields are checked, its
    parser and evaluator are used, and a taken name or a common field is refused."""
    import pandas as pd

    from anonlab.report.claims import KINDS, Evaluation, evaluate_claim, register_kind

    registry = dict(KINDS)  # the package's kinds, and the test's for this test only
    monkeypatch.setattr("anonlab.report.claims.kinds.KINDS", registry)
    monkeypatch.setattr("anonlab.report.claims.KINDS", registry)

    def parse(c):
        return {"level": c.number("level", 0.0)}

    def evaluate(found, data):
        return Evaluation("reproduced", f"level {found.params['level']}")

    register_kind("at_level", fields={"level"}, parse=parse, evaluate=evaluate)
    parsed = parse_claim(claim("at_level", level=2.0))
    assert parsed.params == {"level": 2.0}
    result = evaluate_claim(parsed, pd.DataFrame())
    assert (result.status, result.ours) == ("reproduced", "level 2.0")
    with pytest.raises(ClaimError, match="'levels' is not a field of kind 'at_level'"):
        parse_claim(claim("at_level", levels=2.0))
    with pytest.raises(TypeError, match="already registered"):
        register_kind("at_level", fields=(), parse=parse, evaluate=lambda c, d: None)
    with pytest.raises(TypeError, match="'metric' is a common field"):
        register_kind("other", fields={"metric"}, parse=parse, evaluate=evaluate)


def test_an_axis_named_n_is_an_axis_not_the_repetitions():
    """A grid axis may be called ``n`` (the first n records): claims filter and group on it
    like any axis; the repetitions' count has a name of its own."""
    import pandas as pd

    from anonlab.report.claims import evaluate_claim

    rows = [
        {"experiment": "e", "dataset": "d", "method": "a", "epsilon": eps, "n": n,
         "rep": rep, "seed": rep, "cell_id": 1, "metric": "share", "attribute": None,
         "value": eps * (1 + n / 1000) + 0.01 * rep}
        for eps in (1.0, 10.0, 100.0) for n in (100, 442) for rep in range(3)
    ]  # fmt: skip
    raw = claim("monotone", metric="share", method="a", x="epsilon", direction="increasing")
    only = evaluate_claim(parse_claim({**raw, "where": {"n": 442}}), pd.DataFrame(rows))
    assert only.status == "reproduced" and "3/3 pairs" in only.ours, only
    both = evaluate_claim(parse_claim(raw), pd.DataFrame(rows))
    assert "6/6 pairs" in both.ours, both  # one curve per n, not their average
