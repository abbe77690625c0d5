"""``growth``: ``method``'s metric grows from ``x = start`` to ``x = end`` by more than each of
``others``' ("the one for which SSE increases the most as a result of the larger k").

Each method's rise is its mean at ``end`` minus its mean at ``start``, both pooled over the
``over`` axes (e.g. t); each comparison is the rise of ``method`` minus the rise of one other
method, four independent means (Welch), which must be above zero. The rise is on the metric's
own scale, as a figure with a linear axis shows it, even for a run time or skewed
repetitions (the log scale of :mod:`anonlab.report.claims.stats` would judge relative
growth, another claim: such a verdict says it kept the raw t-intervals). The comparisons
(one per other method and point of the free axes left) follow the rule of
:mod:`anonlab.report.claims.stats`.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.report.claims.data import ResultsTable, join, pool, select, side
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import (
    Checker,
    Claim,
    NotCheckable,
    Selection,
    fmt,
    need_of,
    need_text,
    symbol,
)
from anonlab.report.claims.stats import Quantity, judge, levels_text, tally

FIELDS = {"method", "others", "x", "start", "end", "over"}


def parse(c: Checker) -> dict[str, Any]:
    others = c.raw.get("others")
    if not isinstance(others, list | tuple) or not others:
        raise c.error("others", f"must list the methods compared with, got {others!r}")
    over = c.raw.get("over") or []
    over = [over] if isinstance(over, str) else over
    if not isinstance(over, list | tuple) or not all(isinstance(a, str) for a in over):
        raise c.error("over", f"must be a list of axes, got {over!r}")
    start = c.number("start", required=True)
    end = c.number("end", required=True)
    if end <= start:
        raise c.error("end", f"must be above start ({start:g}), got {end:g}")
    return {
        "method": c.selection("method"),
        "others": tuple(c.selection("others", o) for o in others),
        "x": c.text("x", required=False) or "k",
        "start": start,
        "end": end,
        "over": tuple(over),
    }


def _rise(points: pd.DataFrame, selection: Selection, claim: Claim) -> Quantity:
    """One method's mean at ``end`` minus its mean at ``start``, pooled over ``over``."""
    p = claim.params
    sides = []
    for value in (p["end"], p["start"]):
        at = replace(selection, fixed={**selection.fixed, p["x"]: value})
        frame, keys = select(points, at, claim.where)
        kept = [k for k in keys if k not in p["over"]]
        sides.append((pool(frame, kept), kept))
    merged, _ = join(sides)
    return side(merged, 0).difference(side(merged, 1))


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    # a rise is a difference of means in the metric's units (a log would judge relative
    # growth, another claim): always the raw scale, and the text says so where a log
    # scale is called for
    points = data.points_of(claim, raw=True)
    mine = _rise(points, p["method"], claim)
    gaps, labels = [], []
    for other in p["others"]:
        theirs = _rise(points, other, claim)
        if len(theirs) != len(mine):
            raise NotCheckable(f"{other.label} and {p['method'].label} do not share their points")
        gaps.append(mine.difference(theirs))
        labels.append(f"{other.label} {fmt(float(theirs.est.mean()))}")
    q = Quantity(*(np.concatenate([getattr(g, f) for g in gaps]) for f in ("est", "se", "df", "n")))
    result = tally(judge(q), need_of(claim, len(q)))
    x = symbol(p["x"])
    text = (
        f"rise of {p['method'].label} from {x}={fmt(p['start'])} to {x}={fmt(p['end'])}"
        + (f" (mean over {', '.join(symbol(a) for a in p['over'])})" if p["over"] else "")
        + f": {fmt(float(mine.est.mean()))}, against {'; '.join(labels)}; "
        f"{result.held}/{result.n} comparisons hold, {result.opposite} opposite "
        f"({levels_text(result)})"
    )
    text += f" ({need_text(claim)})" + data.scale_of(claim).kept_raw(
        "a rise is a difference in the metric's units (raw t-intervals, which skew may bias)"
    )
    return Evaluation(result.status, text, result.reps, result.chance)


KIND = register_kind("growth", fields=FIELDS, parse=parse, evaluate=evaluate)
