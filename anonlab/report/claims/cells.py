"""``cells``: a paper table's cells beside ours, from a function of the results table
(``source: module:function``), equal by its ``match`` column or within ``factor`` or
``abs`` of the paper's value.

A column ``<paper_column>_rounding`` (half a unit of the paper's last printed digit) widens
the band to what the printed value may stand for (a printed 0.00 is anything below 0.005).
Where the builder gives a standard error of our value (a column ``<ours_column>_se``, with
the repetitions in ``<ours_column>_n``), a cell holds when our 95 % interval lies inside the
tolerance band and is opposite when it lies wholly outside (Bonferroni over the cells,
:mod:`anonlab.report.claims.stats`); without one the values are exact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from anonlab.report.claims.data import ResultsTable, mask, point_label, varying
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import (
    Checker,
    Claim,
    ClaimError,
    NotCheckable,
    fmt,
    need_of,
    need_text,
)
from anonlab.report.claims.stats import (
    NOT_CHECKABLE,
    WITHIN_NOISE,
    Judgement,
    Quantity,
    confidence,
    judge,
    tally,
)
from anonlab.validation import ParameterError

FIELDS = {"source", "args", "match", "paper_column", "ours_column", "factor", "abs"}


def parse(c: Checker) -> dict[str, Any]:
    from anonlab.plotting.tables import load_builder

    source = c.text("source")
    if ":" not in source:
        raise c.error("source", f"must be 'module:function', got {source!r}")
    try:
        function = load_builder(source)
    except ParameterError as error:
        raise c.error("source", f"cannot be loaded: {error}") from error
    args = c.raw.get("args") or {}
    if not isinstance(args, dict):
        raise c.error("args", f"must be a mapping of keyword arguments, got {args!r}")
    match = c.text("match", required=False)
    paper, ours = c.text("paper_column", required=False), c.text("ours_column", required=False)
    factor, absolute = c.number("factor", low=1.0), c.number("abs", low=0.0)
    if match is not None:
        if paper or ours or factor is not None or absolute is not None:
            raise c.error("match", "cannot be given with paper_column/ours_column/factor/abs")
    elif not (paper and ours) or (factor is None) == (absolute is None):
        raise c.error(
            "match",
            "is missing: give 'match' (a boolean column), or "
            "'paper_column', 'ours_column' and one of 'factor' or 'abs'",
        )
    return {
        "function": function,
        "source": source,
        "args": dict(args),
        "match": match,
        "paper_column": paper,
        "ours_column": ours,
        "factor": factor,
        "abs": absolute,
    }


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    frame = p["function"](data.table, **p["args"])
    for axis, value in claim.where.items():
        if axis not in frame.columns:
            raise ClaimError(
                f"claim {claim.id!r}: field 'where' filters {axis!r}, not a "
                f"column of {p['source']} ({list(frame.columns)})"
            )
        frame = frame[mask(frame[axis], value, keep_missing=False)]
    if frame.empty:
        raise ClaimError(f"claim {claim.id!r}: field 'where' leaves no cell of {p['source']}")
    frame = frame.reset_index(drop=True)
    if p["match"] is not None:
        ours_columns = [c for c in frame.columns if str(c).startswith("ours")]
        absent = (
            frame[ours_columns].isna().any(axis=1)
            if ours_columns
            else pd.Series(False, index=frame.index)
        ).to_numpy()
        ok = frame[p["match"]].fillna(False).astype(bool).to_numpy() & ~absent
        judged = Judgement(
            ok, ~ok & ~absent, ok, ~ok & ~absent, np.full(len(ok), np.inf), np.full(len(ok), np.inf)
        )
        value_columns = [c for c in frame.columns if str(c).startswith(("ours", "paper"))]
        tolerance = "as the table marks a match"
        gap = np.zeros(len(frame))
    else:
        ours_col, paper_col = p["ours_column"], p["paper_column"]
        ours = frame[ours_col].astype(float).to_numpy()
        paper = frame[paper_col].astype(float).to_numpy()
        absent = np.isnan(ours)
        se = (
            frame[f"{ours_col}_se"].astype(float).to_numpy()
            if f"{ours_col}_se" in frame
            else np.zeros(len(frame))
        )
        n = (
            frame[f"{ours_col}_n"].astype(float).to_numpy()
            if f"{ours_col}_n" in frame
            else np.ones(len(frame))
        )
        q = Quantity.of(ours, se, np.where(se > 0, n - 1, np.inf), n)
        if p["factor"] is not None:
            lo, hi = paper / p["factor"], paper * p["factor"]
            tolerance = f"within ×{fmt(p['factor'])}"
            with np.errstate(divide="ignore", invalid="ignore"):
                gap = np.abs(np.log(ours / paper))
        else:
            lo, hi = paper - p["abs"], paper + p["abs"]
            tolerance = f"within ±{fmt(p['abs'])}"
            gap = np.abs(ours - paper)
        rounding = f"{paper_col}_rounding"  # half a unit of the paper's last printed digit
        if rounding in frame:
            half = frame[rounding].astype(float).to_numpy()
            lo, hi = np.minimum(lo, paper - half), np.maximum(hi, paper + half)
        judged = judge(q, np.minimum(lo, hi), np.maximum(lo, hi), closed=True)
        value_columns = [ours_col, paper_col]
    n_absent = int(absent.sum())
    if n_absent == len(frame):
        raise NotCheckable(f"none of the {len(frame)} cells is in the results")
    result = tally(judged, need_of(claim, len(frame)))
    status = result.status
    if status == WITHIN_NOISE and result.held + n_absent >= result.need and n_absent:
        status = NOT_CHECKABLE  # what is missing is cells not run, not repetitions
    text = (
        f"{result.held}/{len(frame)} cells {tolerance}"
        + (f" at {confidence()}" if p["match"] is None else "")
        + f", {result.opposite} outside"
        + (f", {n_absent} not run" if n_absent else "")
    )
    misses = np.flatnonzero(~result.holds_at & ~absent)
    if len(misses):
        misses = misses[np.argsort(-np.nan_to_num(gap[misses], nan=math.inf), kind="stable")]
        keys = [
            c
            for c in frame.columns
            if c not in value_columns
            and c != p["match"]
            and not str(c).startswith(("ratio", "ours", "paper"))
            and c != "table"
        ]
        keys = varying(frame, keys)
        examples = [
            f"{point_label(frame.iloc[i], keys)}: "
            + ", ".join(f"{c} {fmt(frame.iloc[i][c])}" for c in value_columns)
            for i in misses[:2]
        ]
        text += "; misses e.g. " + "; ".join(examples)
    return Evaluation(status, text + f" ({need_text(claim)})", result.reps, result.chance)


KIND = register_kind("cells", fields=FIELDS, parse=parse, evaluate=evaluate)
