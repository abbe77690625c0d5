"""``crossover``: "``method`` is above ``baseline`` for x > ``expected``". The x from which
``method`` stays above (``mode: stays``) or first rises above (``mode: first``) must lie
within ``expected`` ± ``tolerance``; with ``by: true`` at or before ``expected`` +
``tolerance`` (a literal "for x > 100" says what happens above 100 and nothing of below).

With noise the crossing is an interval: each point is above, below or undecided with
simultaneous 95 % confidence (Bonferroni over every point of the claim), and the crossing
lies after the last point confidently below and no later than where the curve is
confidently above for good. The claim is reproduced when that interval lies in the window,
contradicted when it misses the window, within noise otherwise (not checkable when the
values are exact and only the grid is too coarse to tell).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from anonlab.report.claims.data import (
    ResultsTable,
    group_label,
    groups,
    integer_axis,
    join,
    select,
    side,
)
from anonlab.report.claims.model import Checker, Claim, examples, fmt, need_of, symbol
from anonlab.report.claims.stats import combine, confidence, judge, locate

#: this kind locates an interval and gives no estimate of the repetitions that would
#: decide it (the report then says only that the plan's next look may)
ESTIMATES = False
FIELDS = {"method", "baseline", "x", "expected", "tolerance", "mode", "by"}


def parse(c: Checker) -> dict[str, Any]:
    return {
        "method": c.selection("method"),
        "baseline": c.selection("baseline"),
        "x": c.text("x", required=False) or "k",
        "expected": c.number("expected", required=True),
        "tolerance": c.number("tolerance", 0.0, low=0.0),
        "mode": c.choice("mode", ("stays", "first"), "stays"),
        "by": _flag(c, "by"),
    }


def _flag(c: Checker, key: str) -> bool:
    value = c.raw.get(key, False)
    if not isinstance(value, bool):
        raise c.error(key, f"must be true or false, got {value!r}")
    return value


def crossing_interval(
    xs: np.ndarray, above: np.ndarray, below: np.ndarray, mode: str
) -> tuple[float, float]:
    """The thresholds T ("above for x > T") consistent with points confidently ``above``
    and ``below`` (the others undecided), as [low, high]."""
    step = 1.0 if integer_axis(xs) else 0.0
    if mode == "stays":
        last_below = np.flatnonzero(below)
        low = xs[last_below[-1]] if len(last_below) else -math.inf
        not_above = np.flatnonzero(~above)
        if len(not_above) and not_above[-1] + 1 == len(xs):
            return low, math.inf  # not above for good at the last x: maybe never
        start = int(not_above[-1]) + 1 if len(not_above) else 0
        return low, max(xs[start] - step, low)
    possible = np.flatnonzero(~below)
    if not len(possible):
        return xs[-1], math.inf  # below everywhere: T >= the last x
    low = xs[possible[0] - 1] if possible[0] > 0 else -math.inf
    sure = np.flatnonzero(above)
    high = xs[sure[0]] - step if len(sure) else math.inf
    return low, max(high, low)


def evaluate(claim: Claim, data: ResultsTable) -> tuple[str, str, int | None]:
    p = claim.params
    points = data.points_of(claim)
    merged, keys = join(
        [select(points, p["method"], claim.where), select(points, p["baseline"], claim.where)]
    )
    x, expected, tol = p["x"], p["expected"], p["tolerance"]
    window = (-math.inf if p["by"] else expected - tol, expected + tol)
    curves = list(groups(merged, keys, x))
    n_tests = sum(len(curve) for _, curve in curves)
    verdicts, parts = [], []
    for group, curve in curves:
        xs = curve[x].to_numpy(dtype=float)
        gap = judge(side(curve, 0).difference(side(curve, 1)), tests=n_tests)
        low, high = crossing_interval(xs, gap.holds_adjusted, gap.opposite_adjusted, p["mode"])
        exact = bool(np.all(side(curve, 0).se == 0) and np.all(side(curve, 1).se == 0))
        verdicts.append(locate(low, high, window, exact))
        s = symbol(x)
        if math.isinf(high):
            found = (
                f"not above for good up to {s}={fmt(xs[-1])}"
                if p["mode"] == "stays"
                else f"not above up to {s}={fmt(xs[-1])}"
            )
            if np.isfinite(low):
                found += f" (crossing, if any, after {s}={fmt(low)})"
        elif low == high:
            found = f"crossing at {s}={fmt(low)}"
        else:
            found = f"crossing {s} in [{fmt(low)}, {fmt(high)}]"
        label = group_label(group)
        parts.append(f"{label}: {found}" if label else found)
    status = combine(verdicts, need_of(claim, len(verdicts)))
    text = (
        f"{p['method'].label} over {p['baseline'].label}, {confidence()} simultaneous: "
        + examples(parts, 4)
        + (
            f" (paper: {symbol(x)} > {fmt(expected)}"
            + (f", crossing by {fmt(expected + tol)})" if p["by"] else f" ± {fmt(tol)})")
        )
    )
    return status, text, None
