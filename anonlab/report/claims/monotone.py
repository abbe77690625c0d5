"""``monotone``: ``method``'s curve increases or decreases along ``x``.

Judged on all pairs of points (x_i < x_j), not only neighbours, so that noise between
neighbouring x does not hide a trend: each pair is one comparison of two means, and a move
the wrong way by at most ``rel_tol`` of the earlier value still counts as in order. With
``min_share`` below 1 ("grows" as a trend), the share of pairs that hold is counted by
the partial-conjunction test of :mod:`anonlab.report.claims.stats`.

The pairs of every curve the selection leaves (each combination of the free axes other
than ``x``: method, ε, α, class, …) are pooled into one share, unless ``each_group:
true``: then the share must hold on each curve, as a claim "per method, ε and α" says,
and one curve that goes the wrong way contradicts it whatever the others do. The claim is
reproduced when every curve is (an intersection over the curves needs no correction) and
contradicted when one curve is refuted at level α/G over its G curves (a union does).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from anonlab.report.claims.data import ResultsTable, group_label, groups, select, side
from anonlab.report.claims.model import (
    Checker,
    Claim,
    NotCheckable,
    examples,
    fmt,
    need_of,
    need_text,
    symbol,
)
from anonlab.report.claims.stats import (
    CONTRADICTED,
    REPRODUCED,
    WITHIN_NOISE,
    Quantity,
    combine,
    judge,
    levels_text,
    tally,
    welch_df,
)

FIELDS = {"method", "x", "direction", "rel_tol", "each_group"}


def parse(c: Checker) -> dict[str, Any]:
    each = c.raw.get("each_group", False)
    if not isinstance(each, bool):
        raise c.error("each_group", f"must be true or false, got {each!r}")
    return {
        "method": c.selection("method"),
        "x": c.text("x", required=False) or "k",
        "direction": c.choice("direction", ("increasing", "decreasing")),
        "rel_tol": c.number("rel_tol", 0.0, low=0.0),
        "each_group": each,
    }


def evaluate(claim: Claim, data: ResultsTable) -> tuple[str, str, int | None]:
    p = claim.params
    points = data.points_of(claim)
    frame, keys = select(points, p["method"], claim.where)
    x, rel = p["x"], p["rel_tol"]
    sign = 1.0 if p["direction"] == "increasing" else -1.0
    pieces = []
    for group, curve in groups(frame, keys, x):
        q = side(curve)
        if len(q) < 2:
            continue
        i, j = np.triu_indices(len(q), k=1)
        # sign · (v_j − v_i) + rel · |v_i| ≥ 0: in order, up to the stated slack
        est = sign * (q.est[j] - q.est[i]) + rel * np.abs(q.est[i])
        se = np.sqrt(q.se[i] ** 2 + q.se[j] ** 2)
        df = welch_df(q.se[i], q.df[i], q.se[j], q.df[j])
        xs = curve[x].to_numpy(dtype=float)
        pieces.append(
            (Quantity(est, se, df, np.maximum(q.n[i], q.n[j])), i, j, xs, q, group_label(group))
        )
    if not pieces:
        raise NotCheckable(f"fewer than two values of {x!r}")
    if p["each_group"]:
        return _each_group(claim, pieces)
    q_all = Quantity(
        *(
            np.concatenate([getattr(piece[0], f) for piece in pieces])
            for f in ("est", "se", "df", "n")
        )
    )
    judged = judge(q_all, 0.0, np.inf, closed=True)
    result = tally(judged, need_of(claim, len(q_all)))
    against = result.opposite_at
    text = (
        f"{result.held}/{result.n} pairs of {symbol(x)} {p['direction']}, "
        f"{result.opposite} confidently against ({levels_text(result)})"
    )
    offset = 0
    wrong = []
    for q_pair, i, j, xs, q, label in pieces:
        part = slice(offset, offset + len(q_pair))
        offset += len(q_pair)
        bad = against[part]
        if bad.any():
            w = int(np.flatnonzero(bad)[np.argmin(q_pair.est[bad])])
            wrong.append(
                f"{label + ': ' if label else ''}{symbol(x)}={fmt(xs[i[w]])}→"
                f"{fmt(xs[j[w]])} {fmt(q.est[i[w]])}→{fmt(q.est[j[w]])}"
            )
    if wrong:
        text += f"; against: {examples(wrong, 2)}"
    return result.status, text + f" ({need_text(claim)})", result.reps


def _each_group(claim: Claim, pieces: list) -> tuple[str, str, int | None]:
    """The claim judged curve by curve (``each_group``): reproduced when every curve's
    share holds (an intersection: each curve at its own level), contradicted when one
    curve's share is refuted (a union over G curves: each refutation at level α/G)."""
    p = claim.params
    curves = len(pieces)
    verdicts, worst, reps = [], [], []
    for q_pair, _, _, _, _, label in pieces:
        judged = judge(q_pair, 0.0, np.inf, closed=True)
        need = need_of(claim, len(q_pair))
        result = tally(judged, need)
        if result.status != REPRODUCED:  # refuted only at the union's level
            refuted = tally(replace(judged, multiplier=curves), need)
            status = CONTRADICTED if refuted.status == CONTRADICTED else WITHIN_NOISE
            result = replace(result, status=status, opposite=refuted.opposite)
        verdicts.append(result.status)
        if result.status == WITHIN_NOISE:
            reps.append(result.reps)
        if result.status != REPRODUCED:
            worst.append(
                f"{label or 'the curve'}: {result.held}/{result.n} in order, "
                f"{result.opposite} against ({result.status})"
            )
    status = combine(verdicts, curves)
    text = (
        f"{verdicts.count(REPRODUCED)}/{curves} curves {p['direction']} in "
        f"{symbol(p['x'])}, {verdicts.count(CONTRADICTED)} contradicted (each curve's "
        f"pairs by the partial-conjunction test, a refutation at α/{curves})"
    )
    if worst:
        text += f"; {examples(worst, 2)}"
    # every curve left within noise must be decided: the slowest curve's estimate
    estimate = max(reps) if reps and all(r is not None for r in reps) else None
    return (
        status,
        text + f" ({need_text(claim)}, on each curve)",
        estimate if status == WITHIN_NOISE else None,
    )
