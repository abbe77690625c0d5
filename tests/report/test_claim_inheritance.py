"""Claims inherit their experiment's paper (``experiment.paper``) and notes anchor
(``experiment.notes``) through one function, :func:`anonlab.catalog.resolved_claims`,
whether read from the catalog or from a run's recorded config; an experiment with no paper
may state claims too."""

from __future__ import annotations

import json

import pandas as pd
import yaml

from anonlab import catalog
from anonlab.report.claims import (
    REPRODUCED,
    check_against_config,
    evaluate_claims,
    parse_claims,
)
from anonlab.report.render import render_html
from anonlab.report.view import build_view, judge_claims

PAPERS = {p.short for p in catalog.papers() if p.kind == "paper"}

CLAIM = """
  - id: own_ir_below_laplace
    section: "arena"
    quote: "IR adds less noise than plain Laplace"
    kind: ordering
    metric: re
    lower: ir
    higher: laplace
"""


def experiment_yaml(name: str, paper: str, notes: str | None = None) -> str:
    return (
        "# @package _global_\n"
        "defaults:\n  - override /dataset: census\n\n"
        f"experiment:\n  name: {name}\n  paper: {paper}\n"
        + (f'  notes: "{notes}"\n' if notes else "")
        + '  targets:\n    - id: Figure 98\n      title: "A fixture target"\n\n'
        "methods: [laplace, ir]\ngrid:\n  k: [2, 5]\n  epsilon: [1.0]\n  m: [1]\n"
        "reps: 2\nmetrics: [re]\nclaims:" + CLAIM
    )


def results_table() -> pd.DataFrame:
    rows = [
        {"method": m, "k": k, "epsilon": 1.0, "rep": rep, "value": v + 0.001 * rep}
        for m, base in (("ir", 1.0), ("laplace", 5.0))
        for k in (2, 5)
        for rep, v in enumerate([base] * 3)
    ]
    frame = pd.DataFrame(
        {"experiment": "x", "dataset": "d", "seed": 1, "cell_id": 0, "metric": "re", **r}
        | {"attribute": None}
        for r in rows
    )
    frame["k"] = frame["k"].astype("Int64")
    frame["attribute"] = frame["attribute"].astype("string")
    return frame


def test_every_shipped_claim_resolves_with_its_experiments_paper():
    for entry in catalog.experiments():
        claims = parse_claims(entry.claims)
        raw = yaml.safe_load(entry.path.read_text(encoding="utf-8"))
        assert list(entry.claims) == catalog.resolved_claims(raw)
        for claim, resolved in zip(claims, entry.claims, strict=True):
            if entry.paper in PAPERS:
                assert claim.paper == entry.paper, claim.id
            else:  # the arena's claims judge a paper's own statement, and name it
                assert claim.paper in PAPERS, claim.id
            assert claim.notes is not None, claim.id  # each claim's, or its experiment's
            assert list(resolved)[:2] == ["id", "paper"]  # where claims wrote it


def test_a_claim_naming_its_paper_or_notes_keeps_them_and_a_recorded_one_is_unchanged():
    config = {
        "experiment": {"name": "x", "paper": "DP-IR", "notes": "#dp-ir-figure-1"},
        "claims": [
            {"id": "a", "section": "§1"},
            {"id": "b", "paper": "TCM", "section": "§2", "notes": "#tcm-figure-5"},
            {"id": "c", "notes": None},
            "not a claim",
        ],
    }
    a, b, c, other = catalog.resolved_claims(config)
    assert a == {"id": "a", "paper": "DP-IR", "section": "§1", "notes": "#dp-ir-figure-1"}
    assert b == config["claims"][1]
    assert c == {"id": "c", "paper": "DP-IR", "notes": None}
    assert other == "not a claim"
    # a run recorded before claims inherited wrote each claim in full: it resolves to
    # itself, and to what the claim written today resolves to
    recorded = {**config, "claims": [a, b]}
    assert catalog.resolved_claims(recorded) == [a, b]
    for entry in catalog.experiments():
        old = {"experiment": {"paper": entry.paper}, "claims": list(entry.claims)}
        assert catalog.resolved_claims(old) == list(entry.claims)
    assert catalog.resolved_claims({"claims": None}) == []


def test_an_experiment_with_no_paper_states_claims_judged_like_any_other(conf_copy, tmp_path):
    beyond = next(p.short for p in catalog.papers() if p.kind == "beyond")
    conf = conf_copy(
        "census_ir",
        "arena",
        own_claims=experiment_yaml("own_claims", beyond, "#privacy-findings"),
        no_paper=experiment_yaml("no_paper", "null"),
    )
    entry = catalog.experiment("own_claims", conf)
    assert entry.claims[0]["notes"] == "#privacy-findings" and "paper" not in entry.claims[0]
    assert "no_paper" not in catalog.experiment_names(conf)  # no paper: not in the catalog
    raw = yaml.safe_load((conf / "experiment" / "no_paper.yaml").read_text(encoding="utf-8"))
    for claims, config in ((entry.claims, raw), (catalog.resolved_claims(raw), raw)):
        parsed = parse_claims(claims)
        check_against_config(parsed, config)
        assert parsed[0].paper is None
        (result,) = evaluate_claims(parsed, results_table())
        assert result.status == REPRODUCED and result.paper == ""
        # as the report judges a run's recorded claims
        assert judge_claims(claims, results_table())[0].status == REPRODUCED
    # the report judges and shows it, naming no paper
    run = tmp_path / "results" / "own_claims"
    run.mkdir(parents=True)
    results_table().to_parquet(run / "results.parquet")
    (run / "run.json").write_text(
        json.dumps({"experiment": "own_claims", "provenance": "paper", "config": {}}),
        encoding="utf-8",
    )
    view = build_view(tmp_path / "results", conf)
    (target,) = [t for t in view.targets if t.entry.name == "own_claims"]
    assert [(c.result.id, c.result.status) for c in target.claims] == [
        ("own_ir_below_laplace", REPRODUCED)
    ]
    html = render_html(view)
    shown = html[html.index('id="claim-own_ir_below_laplace"') :]
    assert "None" not in shown[: shown.index("</blockquote>")]
