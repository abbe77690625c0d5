"""Claims of kind ``privacy``: a paper's privacy statement judged by the stored audit
table, exact losses before sampled bounds, and never "reproduced" by a lower bound
alone."""

from __future__ import annotations

import pandas as pd
import pytest

from anonlab.report.claims import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    WITHIN_NOISE,
    ClaimError,
    evaluate_claims,
    parse_claim,
)

BASE = {
    "id": "c",
    "paper": "DP-IR",
    "section": "§3.3",
    "quote": "ε-DP is satisfied",
    "kind": "privacy",
    "method": "ir_laplace",
}
RESULTS = pd.DataFrame({"method": ["x"], "metric": ["re"], "value": [0.0]})


def audit_rows(form: str, bounds: list[float], exact: list[str], lists: list[float]) -> list[dict]:
    return [
        {
            "method": "ir_laplace",
            "form": form,
            "epsilon": eps,
            "claimed_eps_total": eps,
            "eps_lower_released": bound,
            "eps_lower_centroids": bound / 10,
            "exact_released": text,
            "exact_list_own_scale": loss,
            "exact_list_fixed_scale": loss,
        }
        for eps, bound, text, loss in zip((0.5, 1.0, 2.0), bounds, exact, lists, strict=True)
    ]


@pytest.fixture
def tables(tmp_path):
    rows = audit_rows("records", [5.0, 5.5, 5.8], ["inf"] * 3, [0.49, 0.99, 1.98]) + audit_rows(
        "shuffled_columns", [0.1, 0.4, 0.9], ["≤ 0.49", "≤ 0.99", "≤ 1.98"], [0.49, 0.99, 1.98]
    )
    folder = tmp_path / "tables"
    folder.mkdir()
    pd.DataFrame(rows).to_csv(folder / "audited_epsilon.csv", index=False)
    return folder


def judge(tables, **fields):
    return evaluate_claims([{**BASE, **fields}], RESULTS, tables)[0]


def test_record_order_is_contradicted_by_its_infinite_exact_loss(tables):
    result = judge(tables, form="records")
    assert result.status == CONTRADICTED and "exact ∞" in result.ours


def test_the_lists_the_proof_covers_are_reproduced_by_their_exact_losses(tables):
    assert judge(tables, form="records", view="centroids").status == REPRODUCED
    shuffled = judge(tables, form="shuffled_columns")
    assert shuffled.status == REPRODUCED and "not a proof" in shuffled.ours


def test_an_exact_loss_above_the_claim_contradicts_it(tables):
    frame = pd.read_csv(tables / "audited_epsilon.csv")
    frame.loc[frame["form"] == "records", "exact_list_fixed_scale"] = [0.7, 1.45, 2.9]
    frame.to_csv(tables / "audited_epsilon.csv", index=False)
    result = judge(tables, form="records", view="centroids", scale="fixed")
    assert result.status == CONTRADICTED and "1.45" in result.ours


def test_sampled_bounds_alone_never_reproduce(tables):
    frame = pd.read_csv(tables / "audited_epsilon.csv").drop(
        columns=["exact_released", "exact_list_own_scale", "exact_list_fixed_scale"]
    )
    frame.to_csv(tables / "audited_epsilon.csv", index=False)
    assert judge(tables, form="shuffled_columns").status == WITHIN_NOISE
    assert judge(tables, form="records").status == CONTRADICTED  # above ε at every ε
    frame.loc[(frame["form"] == "records") & (frame["epsilon"] == 2.0), "eps_lower_released"] = 1.0
    frame.to_csv(tables / "audited_epsilon.csv", index=False)
    assert judge(tables, form="records").status == WITHIN_NOISE  # above at some ε only


def test_without_the_audit_table_or_its_row_the_claim_is_not_checkable(tmp_path, tables):
    assert evaluate_claims([BASE], RESULTS, tmp_path)[0].status == NOT_CHECKABLE
    assert judge(tables, form="shuffled_rows").status == NOT_CHECKABLE


def test_a_bad_field_names_the_claim_and_the_field():
    with pytest.raises(ClaimError, match="field 'view'"):
        parse_claim({**BASE, "view": "rows"})
    with pytest.raises(ClaimError, match="field 'form'"):
        parse_claim({**BASE, "form": "shuffled"})
