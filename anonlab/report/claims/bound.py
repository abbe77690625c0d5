"""``bound``: ``method``'s values compared (``op``) with a number or a grid column
(``value: k``), with a relative slack ``rel_tol``; ``min_count`` turns "at every point"
into "at ``min_count`` points at least", which pays for picking the best of many noisy
points (Bonferroni, :mod:`anonlab.report.claims.stats`). On the log scale (a run time,
skewed repetitions) the mean of the logs is compared with the log of the bound, the slack
a factor (1 ± ``rel_tol``); a bound ≤ 0 is below every positive value."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from anonlab.report.claims.data import (
    ResultsTable,
    point_label,
    select,
    side,
    varying,
)
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import (
    Checker,
    Claim,
    NotCheckable,
    fmt,
    is_scalar,
    largest_first,
    need_of,
    need_text,
    relative_deviation,
)
from anonlab.report.claims.stats import judge, levels_text, tally

FIELDS = {"method", "op", "value", "rel_tol"}
OPS = ("<", "<=", ">", ">=", "==")


def parse(c: Checker) -> dict[str, Any]:
    value = c.raw.get("value")
    if not is_scalar(value):
        raise c.error("value", f"must be a number or a grid column, got {value!r}")
    return {
        "method": c.selection("method"),
        "op": c.choice("op", OPS),
        "value": value,
        "rel_tol": c.number("rel_tol", 0.0, low=0.0),
    }


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    points, scale = data.points_of(claim), data.scale_of(claim)
    selection = p["method"]
    frame, keys = select(points, selection, claim.where)
    target = p["value"]
    if isinstance(target, str):
        if target in frame.columns:
            reference = frame[target].astype(float)
        elif target in selection.fixed:
            reference = pd.Series(float(selection.fixed[target]), index=frame.index)
        else:
            raise NotCheckable(f"no column {target!r} to compare with")
    else:
        reference = pd.Series(float(target), index=frame.index)
    ref = reference.to_numpy(dtype=float)
    slack = p["rel_tol"] * np.abs(ref)
    q = side(frame)
    # the bounds on the points' scale: their logs on the log scale (Scale.bound)
    if p["op"] == "==":
        edges = scale.bound(ref - slack - 1e-12), scale.bound(ref + slack + 1e-12)
        judged = judge(q, *edges, closed=True)
    elif p["op"] in ("<", "<="):
        judged = judge(q, -math.inf, scale.bound(ref + slack), closed=p["op"] == "<=")
    else:
        judged = judge(q, scale.bound(ref - slack), math.inf, closed=p["op"] == ">=")
    result = tally(judged, need_of(claim, len(q)))
    text = (
        f"{result.held}/{result.n} points with {claim.metric} {p['op']} {fmt(target)}, "
        f"{result.opposite} opposite ({levels_text(result)})"
    )
    # the point farthest past the bound (relative to the values) first, or for a
    # ``min_count`` claim the one farthest inside it
    est = scale.shown(q.est)  # in the metric's units
    if p["op"] == "==":
        beyond = np.abs(est - ref) - slack
    elif p["op"] in ("<", "<="):
        beyond = est - (ref + slack)
    else:
        beyond = (ref - slack) - est
    deviation = relative_deviation(beyond, est, ref)
    order = largest_first(-deviation if claim.min_count is not None else deviation)
    if len(order):
        i = int(order[0])
        where = point_label(frame.iloc[i], varying(frame, keys))
        text += (
            f"; {'best' if claim.min_count else 'worst'}"
            f"{' at ' + where if where else ''}: {scale.plus_minus(q, i, fmt)}"
        )
    text += f" ({need_text(claim)}){scale.note}"
    return Evaluation(result.status, text, result.reps, result.chance)


KIND = register_kind("bound", fields=FIELDS, parse=parse, evaluate=evaluate)
