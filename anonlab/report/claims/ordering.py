"""``ordering``: ``lower`` below ``higher`` (or a ``chain`` of tiers, lowest first) at every
matched grid point; ``factor`` asks for ``lower · factor < higher``.

Each adjacent pair of tiers at each point is one comparison of two independent means
(Welch); the verdict follows the rule of :mod:`anonlab.report.claims.stats`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from anonlab.report.claims.data import ResultsTable, join, point_label, select, side, varying
from anonlab.report.claims.model import Checker, Claim, fmt, need_of, need_text
from anonlab.report.claims.stats import Quantity, judge, levels_text, plus_minus, tally

FIELDS = {"lower", "higher", "chain", "factor"}


def parse(c: Checker) -> dict[str, Any]:
    return {"tiers": c.tiers(), "factor": c.number("factor", 1.0, low=1.0)}


def evaluate(claim: Claim, data: ResultsTable) -> tuple[str, str, int | None]:
    points = data.points_of(claim)
    tiers = claim.params["tiers"]
    flat = [(t, s) for t, tier in enumerate(tiers) for s in tier]
    merged, keys = join([select(points, s, claim.where) for _, s in flat])
    factor = claim.params["factor"]
    pairs = [
        (i, j) for i, (ti, _) in enumerate(flat) for j, (tj, _) in enumerate(flat) if tj == ti + 1
    ]
    # one comparison per (point, adjacent pair of tiers): higher − factor · lower > 0
    gaps = [side(merged, j).difference(side(merged, i), factor) for i, j in pairs]
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
    # the point closest to failing (largest lower·factor / higher), with its numbers
    with np.errstate(divide="ignore", invalid="ignore"):
        t_stat = np.where(q.se > 0, q.est / q.se, np.sign(q.est) * np.inf)
    worst = int(np.nanargmin(t_stat)) if len(t_stat) else 0
    row = merged.iloc[worst % n_points]
    shown = " vs ".join(
        plus_minus(side(merged, k), worst % n_points, fmt) for k in range(len(flat))
    )
    where = point_label(row, varying(merged, keys))
    label = "weakest" if result.opposite == 0 else "worst"
    text += f"; {label}{' at ' + where if where else ''}: {shown}"
    return result.status, text + f" ({need_text(claim)})", result.reps
