"""``ordering``: ``lower`` below ``higher`` (or a ``chain`` of tiers, lowest first) at every
matched grid point; ``factor`` asks for ``lower · factor < higher``.

Each adjacent pair of tiers at each point is one comparison of two independent means
(Welch); the verdict follows the rule of :mod:`anonlab.report.claims.stats`. On the log
scale (a run time, skewed repetitions) the comparison is of geometric means:
``log higher − log lower > log factor``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonlab.report.claims.data import ResultsTable, join, point_label, select, side, varying
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import (
    Checker,
    Claim,
    fmt,
    largest_first,
    need_of,
    need_text,
    relative_deviation,
)
from anonlab.report.claims.stats import Quantity, judge, levels_text, tally

FIELDS = {"lower", "higher", "chain", "factor"}


def parse(c: Checker) -> dict[str, Any]:
    return {"tiers": c.tiers(), "factor": c.number("factor", 1.0, low=1.0)}


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    points, scale = data.points_of(claim), data.scale_of(claim)
    tiers = claim.params["tiers"]
    flat = [(t, s) for t, tier in enumerate(tiers) for s in tier]
    merged, keys = join([select(points, s, claim.where) for _, s in flat])
    factor = claim.params["factor"]
    pairs = [
        (i, j) for i, (ti, _) in enumerate(flat) for j, (tj, _) in enumerate(flat) if tj == ti + 1
    ]
    # one comparison per (point, adjacent pair of tiers): higher − factor · lower > 0, or
    # log higher − log lower − log factor > 0 on the log scale
    gaps = [scale.gap(side(merged, j), side(merged, i), factor) for i, j in pairs]
    q = Quantity(*(np.concatenate([getattr(g, f) for g in gaps]) for f in ("est", "se", "df", "n")))
    judged = judge(q)
    n_points = len(merged)
    result = tally(judged, need_of(claim, len(q)))
    names = " < ".join("/".join(s.label for s in tier) for tier in tiers)
    text = (
        f"{names}"
        + (f" (×{factor:g})" if factor != 1 else "")
        + f": {result.held}/{result.n} comparisons hold, {result.opposite} opposite "
        f"({levels_text(result)})"
    )
    # the point shown: of the opposite comparisons (else of those that do not hold) the
    # largest reversal, lower·factor / higher on the log scale for a factor, else relative
    # to the values; when all hold, the one closest to failing
    low = np.concatenate([factor * scale.shown(side(merged, i).est) for i, _ in pairs])
    high = np.concatenate([scale.shown(side(merged, j).est) for _, j in pairs])
    with np.errstate(divide="ignore", invalid="ignore"):
        t_stat = np.where(q.se > 0, q.est / q.se, np.sign(q.est) * np.inf)
        deviation = np.where(
            (factor != 1) & (low > 0) & (high > 0),
            np.log(low / high),
            relative_deviation(low - high, low, high),
        )
    if result.holds_at is None:  # no comparison
        failing = np.zeros(len(q), dtype=bool)
    else:
        failing = result.opposite_at & ~result.holds_at if result.opposite else ~result.holds_at
    if failing.any():
        worst = int(np.flatnonzero(failing)[largest_first(deviation[failing])[0]])
    else:  # every comparison holds: the smallest t, exact ties by the smallest margin
        worst = int(np.lexsort((-deviation, t_stat))[0]) if len(t_stat) else 0
    row = merged.iloc[worst % n_points]
    shown = " vs ".join(
        scale.plus_minus(side(merged, k), worst % n_points, fmt) for k in range(len(flat))
    )
    where = point_label(row, varying(merged, keys))
    label = "weakest" if result.opposite == 0 else "worst"
    text += f"; {label}{' at ' + where if where else ''}: {shown}"
    return Evaluation(
        result.status, text + f" ({need_text(claim)})" + scale.note, result.reps, result.chance
    )


KIND = register_kind("ordering", fields=FIELDS, parse=parse, evaluate=evaluate)
