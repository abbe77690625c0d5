"""``privacy``: a paper's privacy statement about ``method``'s release (ε-DP, ε-iDP),
judged by the empirical audit and the exact losses of the run's ``audited_epsilon``
table (:func:`anonlab.audit.audit_table`), at every ε it audits.

Fields: ``method``; ``form`` (the release form the statement is read for: ``records``,
the papers' release, by default); ``view`` (``released``: the release as returned, the
default; ``centroids``: the rank-ordered list of noisy centroids the proofs calibrate);
``scale`` (for the exact loss of the centroid list: ``own``, each data set's own noise
scale, the default; ``fixed``, the scale of D for both, iDP Proposition 1's reading).

The verdict:

- **contradicted** when an exact loss (a computation, no sampling error) exceeds the
  claimed ε at some audited ε, or when the sampled lower bound exceeds it at every
  audited ε (each bound holds at 95 %, so all of them together at 95 % too);
- **reproduced** when the exact loss (or an exact upper bound on it: a shuffled form is
  post-processing of the list) is at most ε at every audited ε and no sampled bound
  exceeds it: the statement holds on the audit's data set and every neighbour searched,
  which is evidence, not a proof for every data set;
- **within noise** otherwise: a lower bound at or below ε cannot confirm a claim, and
  one that exceeds it at some ε only is not enough to refute it at the stated confidence.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from anonlab.report.claims.data import ResultsTable
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import Checker, Claim, NotCheckable, fmt
from anonlab.report.claims.stats import CONTRADICTED, REPRODUCED, WITHIN_NOISE

FIELDS = {"method", "form", "view", "scale"}
TABLE = "audited_epsilon"
VIEWS = ("released", "centroids")
SCALES = ("own", "fixed")
FORMS = ("records", "shuffled_columns", "shuffled_rows")
#: relative slack of an exact loss against the claim (floating-point sums)
EXACT_SLACK = 1e-6


def parse(c: Checker) -> dict[str, Any]:
    return {
        "method": c.text("method"),
        "form": c.choice("form", FORMS, "records"),
        "view": c.choice("view", VIEWS, "released"),
        "scale": c.choice("scale", SCALES, "own"),
    }


def _exact(row: pd.Series, view: str, scale: str) -> tuple[float, bool] | None:
    """The exact loss the row gives for ``view`` (``inf`` for a record-order release whose
    partition a neighbour changes) and whether it is an upper bound only."""
    if view == "centroids":
        value = row.get(f"exact_list_{scale}_scale")
        return None if pd.isna(value) else (float(value), False)
    text = row.get("exact_released")
    if text is None or pd.isna(text):
        return None
    text = str(text).strip()
    if text == "inf":
        return math.inf, False
    bound = text.startswith("≤")
    return float(text.lstrip("≤ ")), bound


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    audited = data.stored(TABLE)
    if audited is None:
        raise NotCheckable(f"the run has no {TABLE} table (the audit)")
    rows = audited[
        (audited["method"] == p["method"])
        & (audited.get("form", pd.Series("records", index=audited.index)) == p["form"])
    ]
    if rows.empty:
        raise NotCheckable(f"the audit has no row of {p['method']} in form {p['form']}")
    bound_column = f"eps_lower_{p['view']}"
    if bound_column not in rows or rows[bound_column].isna().all():
        raise NotCheckable(f"the audit has no {p['view']} view of {p['method']}")
    claims = rows["claimed_eps_total"].astype(float)
    bounds = rows[bound_column].astype(float)
    exceeds = bounds > claims
    exact = [_exact(row, p["view"], p["scale"]) for _, row in rows.iterrows()]
    parts = [f"ε={eps:g}: bound {b:.3g}" for eps, b in zip(claims, bounds, strict=True)]
    if all(e is not None for e in exact):
        over = [e[0] > c * (1 + EXACT_SLACK) for e, c in zip(exact, claims, strict=True)]
        parts = [
            f"{part}, exact {'≤ ' if e[1] else ''}{fmt(e[0])}"
            for part, e in zip(parts, exact, strict=True)
        ]
        text = "; ".join(parts)
        if any(over):
            return Evaluation(CONTRADICTED, f"exact loss above the claim: {text}", None)
        if not exceeds.any():
            return Evaluation(
                REPRODUCED,
                (
                    f"exact loss within the claim on the audit's data set and its "
                    f"neighbours (not a proof for every data set): {text}"
                ),
                None,
            )
    text = "; ".join(parts)
    if exceeds.all():
        return Evaluation(CONTRADICTED, f"sampled lower bound above the claim at every ε: {text}")
    return Evaluation(
        WITHIN_NOISE,
        (
            f"{text}: a lower bound at or below ε cannot confirm the claim"
            if not exceeds.any()
            else f"{text}: above the claim at some ε only"
        ),
        None,
    )


KIND = register_kind("privacy", fields=FIELDS, parse=parse, evaluate=evaluate)
