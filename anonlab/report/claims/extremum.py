"""``extremum``: ``method``'s curve is smallest (``which: min``) or largest along ``x``
within ``expected: [lo, hi]``.

Picking the smallest of many noisy means is a selection, paid for: every point whose
simultaneous 95 % interval (Bonferroni over the claim's points) reaches below the smallest
upper bound may hold the true minimum, and the location is the span of those points,
widened to the neighbouring grid points (the true extremum may lie between them). On the
log scale (a run time, skewed repetitions) the intervals are of the mean logs: the
extremum of the geometric means.

A claim within noise names the fewest repetitions that would decide it were the observed
means and spreads the truth (the span located again on standard errors shrunk by √(n/n′),
:func:`~anonlab.report.claims.crossover.fewest_reps`), and the share of parametric
resamples of the means whose arg-extremum lies in the window.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from anonlab.report.claims.crossover import (
    RESAMPLES,
    decided,
    fewest_reps,
    grid_step,
    resampled_text,
    resamples,
    stack,
    today_reps,
    with_reps,
)
from anonlab.report.claims.data import (
    ResultsTable,
    group_label,
    groups,
    select,
    side,
)
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import Checker, Claim, examples, fmt, need_of, symbol
from anonlab.report.claims.stats import (
    NOT_CHECKABLE,
    WITHIN_NOISE,
    Quantity,
    combine,
    locate,
)

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


def candidates(lo_b: np.ndarray, hi_b: np.ndarray, which: str) -> tuple[int, int]:
    """The first and last point whose interval [``lo_b``, ``hi_b``] may hold the smallest
    (``which: min``) or largest mean."""
    if which == "min":
        found = np.flatnonzero(lo_b <= np.nanmin(hi_b))
    else:
        found = np.flatnonzero(hi_b >= np.nanmax(lo_b))
    return int(found.min()), int(found.max())


def span(xs: np.ndarray, first: int, last: int, step: float) -> tuple[float, float]:
    """Where the extremum may lie: candidates ``first``..``last`` widened to the
    neighbouring grid points (less the grid's ``step``)."""
    low = xs[first - 1] + step if first > 0 else xs[0]
    high = xs[last + 1] - step if last + 1 < len(xs) else xs[-1]
    return float(low), float(high)


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    points, scale = data.points_of(claim), data.scale_of(claim)
    frame, keys = select(points, p["method"], claim.where)
    x, (low, high), which = p["x"], p["expected"], p["which"]
    curves = list(groups(frame, keys, x))
    n_tests = sum(len(curve) for _, curve in curves)
    need = need_of(claim, len(curves))
    sign = 1.0 if which == "min" else -1.0
    verdicts, parts = [], []
    located: list[tuple[int, np.ndarray, Quantity, float, bool]] = []  # index, xs, q, step, exact
    for group, curve in curves:
        xs = curve[x].to_numpy(dtype=float)
        q = side(curve)
        if len(xs) < 2:
            verdicts.append(NOT_CHECKABLE)
            continue
        first, last = candidates(*q.interval(n_tests), which)
        best = int(np.nanargmin(sign * q.est))
        step, exact = grid_step(xs), bool(np.all(q.se == 0))
        located.append((len(verdicts), xs, q, step, exact))
        verdicts.append(locate(*span(xs, first, last, step), (low, high), exact))
        where = (
            f"{symbol(x)}={fmt(xs[best])}"
            if first == last
            else f"{symbol(x)}={fmt(xs[best])}, could be anywhere in "
            f"{fmt(xs[first])}..{fmt(xs[last])}"
        )
        label = group_label(group)
        parts.append(
            f"{label + ': ' if label else ''}{which} at {where} ({scale.plus_minus(q, best, fmt)})"
        )
    status = combine(verdicts, need)
    text = examples(parts, 4) + f" (paper: {symbol(x)} in {fmt(low)}..{fmt(high)})"
    text += scale.note  # on the log scale: the extremum of the geometric means
    if status != WITHIN_NOISE:
        return Evaluation(status, text, None)
    every, cuts = stack([q for _, _, q, _, _ in located])

    def decides(reps: int) -> bool:
        lo_b, hi_b = with_reps(every, reps).interval(n_tests)
        again = list(verdicts)
        for (i, xs, _, step, exact), cut in zip(located, cuts, strict=True):
            found = span(xs, *candidates(lo_b[cut], hi_b[cut], which), step)
            again[i] = locate(*found, (low, high), exact)
        return decided(combine(again, need))

    draws = resamples(every)
    if draws is not None:
        inside = np.zeros((RESAMPLES, len(verdicts)), dtype=bool)  # short curves: never
        for (i, xs, *_), cut in zip(located, cuts, strict=True):
            at = xs[np.argmin(sign * draws[:, cut], axis=1)]
            inside[:, i] = (low <= at) & (at <= high)
        text += "; " + resampled_text(inside, need, which)
    return Evaluation(status, text, fewest_reps(decides, today_reps(every)))


KIND = register_kind("extremum", fields=FIELDS, parse=parse, evaluate=evaluate)
