"""``monotone``: ``method``'s curve increases or decreases along ``x``.

Judged on all pairs of points (x_i < x_j), not only neighbours, so that noise between
neighbouring x does not hide a trend: each pair is one comparison of two means, and a move
the wrong way by at most ``rel_tol`` of the earlier value still counts as in order (on
the log scale, a run time or skewed repetitions, a factor: down to (1 − rel_tol) times the
earlier value rising, up to (1 + rel_tol) times falling; a ``margin`` likewise). With
``min_share`` below 1 ("grows" as a trend), the share of pairs that hold is counted by
the partial-conjunction test of :mod:`anonlab.report.claims.stats`.

``margin`` (a relative change, 0 < margin < 1; not with ``rel_tol``) states a minimum
effect: a pair **holds** when the curve moves the stated way by more than
``margin`` · |v_i| with confidence, and is **opposite** when its move that way is
confidently less than ``margin`` · |v_i| (flat within the margin, or the wrong way). These
are two one-sided tests against the margin, so a curve flat within the margin contradicts
"decreases with k" instead of leaving it undecided for ever (the phrase table,
``conf/phrases.yaml``, gives a trend's margin).

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
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import (
    Checker,
    Claim,
    NotCheckable,
    examples,
    fmt,
    largest_first,
    need_of,
    need_text,
    relative_deviation,
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
)

FIELDS = {"method", "x", "direction", "rel_tol", "margin", "each_group"}


def parse(c: Checker) -> dict[str, Any]:
    each = c.raw.get("each_group", False)
    if not isinstance(each, bool):
        raise c.error("each_group", f"must be true or false, got {each!r}")
    return {
        "method": c.selection("method"),
        "x": c.text("x", required=False) or "k",
        "direction": c.choice("direction", ("increasing", "decreasing")),
        "rel_tol": c.number("rel_tol", 0.0, low=0.0),
        "margin": _margin(c),
        "each_group": each,
    }


def _margin(c: Checker) -> float | None:
    """The stated minimum relative change, in (0, 1), exclusive with ``rel_tol``."""
    if not c.has("margin"):
        return None
    if c.has("rel_tol"):
        raise c.error(
            "margin",
            "cannot be given with 'rel_tol' (a margin asks for a move, a slack forgives one)",
        )
    value = c.number("margin")
    if not 0 < value < 1:
        raise c.error("margin", f"must be a relative change in (0, 1) (0.05 is 5 %), got {value!r}")
    return value


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    points, scale = data.points_of(claim), data.scale_of(claim)
    frame, keys = select(points, p["method"], claim.where)
    x, rel, margin = p["x"], p["rel_tol"], p.get("margin")
    sign = 1.0 if p["direction"] == "increasing" else -1.0
    pieces = []
    for group, curve in groups(frame, keys, x):
        q = side(curve)
        if len(q) < 2:
            continue
        i, j = np.triu_indices(len(q), k=1)
        # sign · (v_j − v_i) + rel · |v_i| ≥ 0: in order, up to the stated slack; with a
        # margin, sign · (v_j − v_i) − margin · |v_i| > 0: a move beyond it (the factors'
        # logs on the log scale, Scale.moves)
        pair = scale.moves(q, i, j, sign, rel, margin)
        xs = curve[x].to_numpy(dtype=float)
        pieces.append((pair, i, j, xs, q, group_label(group)))
    if not pieces:
        raise NotCheckable(f"fewer than two values of {x!r}")
    if p["each_group"]:
        status, text, reps, chance = _each_group(claim, pieces)
        return Evaluation(status, text + scale.note, reps, chance)
    q_all = Quantity(
        *(
            np.concatenate([getattr(piece[0], f) for piece in pieces])
            for f in ("est", "se", "df", "n")
        )
    )
    judged = judge(q_all, 0.0, np.inf, closed=margin is None)
    result = tally(judged, need_of(claim, len(q_all)))
    against = result.opposite_at
    text = (
        f"{result.held}/{result.n} pairs of {symbol(x)} {_moving(p)}, "
        f"{result.opposite} confidently against ({levels_text(result)})"
    )
    offset = 0
    wrong = []
    for q_pair, i, j, xs, q, label in pieces:
        part = slice(offset, offset + len(q_pair))
        offset += len(q_pair)
        bad = against[part]
        if bad.any():  # each curve's largest move the wrong way, relative to its values
            deviation = (
                -q_pair.est  # already relative: a log ratio
                if scale.log
                else relative_deviation(-q_pair.est, q.est[i], q.est[j])
            )
            w = int(np.flatnonzero(bad)[largest_first(deviation[bad])[0]])
            wrong.append(
                (
                    deviation[w],
                    f"{label + ': ' if label else ''}{symbol(x)}={fmt(xs[i[w]])}→"
                    f"{fmt(xs[j[w]])} {fmt(float(scale.shown(q.est[i[w]])))}→"
                    f"{fmt(float(scale.shown(q.est[j[w]])))}",
                )
            )
    if wrong:
        order = largest_first(np.array([d for d, _ in wrong]))
        text += f"; against: {examples([wrong[k][1] for k in order], 2)}"
    text += f" ({need_text(claim)}){scale.note}"
    return Evaluation(result.status, text, result.reps, result.chance)


def _each_group(claim: Claim, pieces: list) -> tuple[str, str, int | None, float | None]:
    """The claim judged curve by curve (``each_group``): reproduced when every curve's
    share holds (an intersection: each curve at its own level), contradicted when one
    curve's share is refuted (a union over G curves: each refutation at level α/G). The
    chance to decide it is the product of its undecided curves' chances (each must be)."""
    p = claim.params
    curves = len(pieces)
    verdicts, worst, reps, chances = [], [], [], []
    for q_pair, _, _, _, _, label in pieces:
        judged = judge(q_pair, 0.0, np.inf, closed=p.get("margin") is None)
        need = need_of(claim, len(q_pair))
        result = tally(judged, need)
        if result.status != REPRODUCED:  # refuted only at the union's level
            refuted = tally(replace(judged, multiplier=curves), need)
            status = CONTRADICTED if refuted.status == CONTRADICTED else WITHIN_NOISE
            result = replace(result, status=status, opposite=refuted.opposite)
        verdicts.append(result.status)
        if result.status == WITHIN_NOISE:
            reps.append(result.reps)
            chances.append(result.chance)
        if result.status != REPRODUCED:
            worst.append(
                f"{label or 'the curve'}: {result.held}/{result.n} in order, "
                f"{result.opposite} against ({result.status})"
            )
    status = combine(verdicts, curves)
    text = (
        f"{verdicts.count(REPRODUCED)}/{curves} curves {_moving(p)} in "
        f"{symbol(p['x'])}, {verdicts.count(CONTRADICTED)} contradicted (each curve's "
        f"pairs by the partial-conjunction test, a refutation at α/{curves})"
    )
    if worst:
        text += f"; {examples(worst, 2)}"
    # every curve left within noise must be decided: the slowest curve's estimate
    estimate = max(reps) if reps and all(r is not None for r in reps) else None
    chance = float(np.prod(chances)) if chances and None not in chances else None
    return (
        status,
        text + f" ({need_text(claim)}, on each curve)",
        estimate if status == WITHIN_NOISE else None,
        chance if status == WITHIN_NOISE else None,
    )


def _moving(p: dict[str, Any]) -> str:
    """The stated direction, with its margin: ``decreasing`` or ``decreasing by > 5%``."""
    margin = p.get("margin")
    return p["direction"] + (f" by > {margin:.0%}" if margin else "")


KIND = register_kind("monotone", fields=FIELDS, parse=parse, evaluate=evaluate)
