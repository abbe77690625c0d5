"""``extremum``: ``method``'s curve is smallest (``which: min``) or largest along ``x``
within ``expected: [lo, hi]``.

Picking the smallest of many noisy means is a selection, paid for: every point whose
simultaneous 95 % interval (Bonferroni over the claim's points) reaches below the smallest
upper bound may hold the true minimum, and the location is the span of those points,
widened to the neighbouring grid points (the true extremum may lie between them).
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from anonlab.report.claims.data import (
    ResultsTable,
    group_label,
    groups,
    integer_axis,
    select,
    side,
)
from anonlab.report.claims.model import Checker, Claim, examples, fmt, need_of, symbol
from anonlab.report.claims.stats import NOT_CHECKABLE, combine, locate, plus_minus

#: this kind locates an interval and gives no estimate of the repetitions that would
#: decide it (the report then says only that the plan's next look may)
ESTIMATES = False
FIELDS = {"method", "x", "which", "expected"}


def parse(c: Checker) -> dict[str, Any]:
    expected = c.raw.get("expected")
    if (
        not isinstance(expected, list | tuple)
        or len(expected) != 2
        or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in expected)
        or expected[0] > expected[1]
    ):
        raise c.error("expected", f"must be a range [lo, hi] with lo <= hi, got {expected!r}")
    return {
        "method": c.selection("method"),
        "x": c.text("x", required=False) or "k",
        "which": c.choice("which", ("min", "max")),
        "expected": (float(expected[0]), float(expected[1])),
    }


def evaluate(claim: Claim, data: ResultsTable) -> tuple[str, str, int | None]:
    p = claim.params
    points = data.points_of(claim)
    frame, keys = select(points, p["method"], claim.where)
    x, (low, high) = p["x"], p["expected"]
    curves = list(groups(frame, keys, x))
    n_tests = sum(len(curve) for _, curve in curves)
    verdicts, parts = [], []
    for group, curve in curves:
        xs = curve[x].to_numpy(dtype=float)
        q = side(curve)
        if len(xs) < 2:
            verdicts.append(NOT_CHECKABLE)
            continue
        sign = 1.0 if p["which"] == "min" else -1.0
        lo_b, hi_b = q.interval(n_tests)
        if sign > 0:
            candidates = np.flatnonzero(lo_b <= np.nanmin(hi_b))
        else:
            candidates = np.flatnonzero(hi_b >= np.nanmax(lo_b))
        best = int(np.nanargmin(sign * q.est))
        first, last = int(candidates.min()), int(candidates.max())
        step = 1.0 if integer_axis(xs) else 0.0
        span_lo = xs[first - 1] + step if first > 0 else xs[0]
        span_hi = xs[last + 1] - step if last + 1 < len(xs) else xs[-1]
        exact = bool(np.all(q.se == 0))
        verdicts.append(locate(span_lo, span_hi, (low, high), exact))
        where = (
            f"{symbol(x)}={fmt(xs[best])}"
            if first == last
            else f"{symbol(x)}={fmt(xs[best])}, could be anywhere in "
            f"{fmt(xs[first])}..{fmt(xs[last])}"
        )
        label = group_label(group)
        parts.append(
            f"{label + ': ' if label else ''}{p['which']} at {where} ({plus_minus(q, best, fmt)})"
        )
    status = combine(verdicts, need_of(claim, len(verdicts)))
    text = examples(parts, 4) + f" (paper: {symbol(x)} in {fmt(low)}..{fmt(high)})"
    return status, text, None
