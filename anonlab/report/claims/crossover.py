"""``crossover``: "``method`` is above ``baseline`` for x > ``expected``". The x from which
``method`` stays above (``mode: stays``) or first rises above (``mode: first``) must lie
within ``expected`` ± ``tolerance``; with ``by: true`` at or before ``expected`` +
``tolerance`` (a literal "for x > 100" says what happens above 100 and nothing of below).

With noise the crossing is an interval: each point is above, below or undecided with
simultaneous 95 % confidence (Bonferroni over every point of the claim), and the crossing
lies after the last point confidently below and no later than where the curve is
confidently above for good. The claim is reproduced when that interval lies in the window,
contradicted when it misses the window, within noise otherwise (not checkable when the
values are exact and only the grid is too coarse to tell). On the log scale (a run time,
skewed repetitions) each gap is a difference of mean logs, so "above" is in geometric means.

A claim within noise names the fewest repetitions that would decide it were the observed
means and spreads the truth (:func:`fewest_reps` over :func:`with_reps`: the same interval,
located again on standard errors shrunk by √(n/n′)), and the share of parametric resamples
of the means (:data:`RESAMPLES`, fixed seed) whose crossing lies in the window.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
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
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import Checker, Claim, examples, fmt, need_of, symbol
from anonlab.report.claims.stats import (
    CONTRADICTED,
    MAX_REPS,
    REPRODUCED,
    WITHIN_NOISE,
    Quantity,
    combine,
    confidence,
    judge,
    locate,
)

#: parametric resamples of the means behind the share "in the window", and their seed (a
#: fixed one: the report is reproducible)
RESAMPLES = 200
SEED = 0
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
    xs: np.ndarray, above: np.ndarray, below: np.ndarray, mode: str, step: float | None = None
) -> tuple[float, float]:
    """The thresholds T ("above for x > T") consistent with points confidently ``above``
    and ``below`` (the others undecided), as [low, high]; ``step``: the grid's (1 on an
    integer axis, else 0), found from ``xs`` when not given."""
    low, high = crossing_intervals(xs, above[None, :], below[None, :], mode, step)
    return float(low[0]), float(high[0])


def crossing_intervals(
    xs: np.ndarray, above: np.ndarray, below: np.ndarray, mode: str, step: float | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`crossing_interval` of each row of ``above`` and ``below`` (resamples × points),
    as arrays of low and high."""
    xs = np.asarray(xs, dtype=float)
    above, below = np.asarray(above, dtype=bool), np.asarray(below, dtype=bool)
    last = len(xs) - 1
    if step is None:
        step = grid_step(xs)
    if mode == "stays":
        has_below = below.any(axis=1)
        low = np.where(has_below, xs[last - np.argmax(below[:, ::-1], axis=1)], -math.inf)
        not_above = ~above
        has_not_above = not_above.any(axis=1)
        end = last - np.argmax(not_above[:, ::-1], axis=1)  # the last point not above
        start = np.where(has_not_above, np.minimum(end + 1, last), 0)
        high = np.maximum(xs[start] - step, low)
        # not above for good at the last x: maybe never
        return low, np.where(has_not_above & (end == last), math.inf, high)
    possible = ~below
    has_possible = possible.any(axis=1)
    first = np.argmax(possible, axis=1)
    low = np.where(first > 0, xs[np.maximum(first - 1, 0)], -math.inf)
    sure = above.any(axis=1)
    high = np.maximum(np.where(sure, xs[np.argmax(above, axis=1)] - step, math.inf), low)
    # below everywhere: T >= the last x
    return np.where(has_possible, low, xs[last]), np.where(has_possible, high, math.inf)


def grid_step(xs: np.ndarray) -> float:
    """The grid's step between a point and the next value: 1 on an integer axis, else 0."""
    return 1.0 if integer_axis(xs) else 0.0


def above_below(diff: Quantity, tests: int) -> tuple[np.ndarray, np.ndarray]:
    """Points confidently above and below zero at level 1 − α/``tests``: the adjusted
    judgement of ``stats.judge(diff, tests=tests)`` without its estimates (exact points
    by their value, unknown errors never)."""
    low, high = diff.interval(tests)
    exact, finite = diff.se == 0, np.isfinite(diff.est)
    above = np.where(exact, diff.est > 0, low > 0) & finite
    below = np.where(exact, diff.est <= 0, high < 0) & finite
    return above, below


def with_reps(q: Quantity, reps: int) -> Quantity:
    """``q`` were each point measured over ``reps`` repetitions with the same means and
    spreads: standard errors times √(n/reps) and reps − 1 degrees of freedom (an exact or
    an unknown error stays so)."""
    with np.errstate(invalid="ignore"):
        se = q.se * np.sqrt(q.n / reps)
    df = np.where(q.se > 0, reps - 1.0, q.df)
    return Quantity(q.est, se, df, np.maximum(q.n, reps))


def today_reps(*qs: Quantity) -> int | None:
    """The repetitions behind the points with a known, non-zero error (``None``: none has
    one, and more repetitions would change nothing)."""
    ns = [q.n[(q.se > 0) & np.isfinite(q.se)] for q in qs]
    ns = [n for n in ns if len(n)]
    return int(max(n.max() for n in ns)) if ns else None


def fewest_reps(decides: Callable[[int], bool], today: int | None) -> int | None:
    """The fewest repetitions n′ in (``today``, ``MAX_REPS``] at which ``decides(n′)``,
    found by doubling then bisection (exact when the decision is monotone in n′, as it is
    for fixed means: every interval narrows as n′ grows); ``None`` beyond ``MAX_REPS``."""
    if today is None or today >= MAX_REPS:
        return None
    low, high = today, min(2 * today, MAX_REPS)
    while not decides(high):
        if high >= MAX_REPS:
            return None
        low, high = high, min(2 * high, MAX_REPS)
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if decides(mid) else (mid, high)
    return high


def decided(status: str) -> bool:
    """Whether a verdict settles the claim (reproduced or contradicted)."""
    return status in (REPRODUCED, CONTRADICTED)


def resamples(q: Quantity) -> np.ndarray | None:
    """:data:`RESAMPLES` parametric draws of every point's mean, Normal(mean, se), from
    :data:`SEED` (resamples × points); ``None`` when an error is unknown."""
    if not (np.all(np.isfinite(q.est)) and np.all(np.isfinite(q.se))):
        return None
    rng = np.random.default_rng(SEED)
    return q.est + q.se * rng.standard_normal((RESAMPLES, len(q)))


def resampled_text(inside: np.ndarray, need: int, what: str) -> str:
    """The share of resamples in which ``need`` groups lie in the window, as "``what`` in
    the window in N % of the resamples" (``inside``: resamples × groups)."""
    n_groups = inside.shape[1]
    need = min(max(need, 1), n_groups)
    share = float(np.mean(inside.sum(axis=1) >= need))
    count = f"{what}s ({need} of {n_groups} curves)" if n_groups > 1 else what
    return f"{count} in the window in {100 * share:.0f} % of {RESAMPLES} parametric resamples"


def stack(qs: Sequence[Quantity]) -> tuple[Quantity, list[slice]]:
    """The points of several curves as one quantity, and each curve's slice of it."""
    ends = np.cumsum([0, *(len(q) for q in qs)])
    every = Quantity(
        *(np.concatenate([getattr(q, f) for q in qs]) for f in ("est", "se", "df", "n"))
    )
    return every, [slice(int(a), int(b)) for a, b in zip(ends[:-1], ends[1:], strict=True)]


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    points = data.points_of(claim)
    merged, keys = join(
        [select(points, p["method"], claim.where), select(points, p["baseline"], claim.where)]
    )
    x, expected, tol, mode = p["x"], p["expected"], p["tolerance"], p["mode"]
    window = (-math.inf if p["by"] else expected - tol, expected + tol)
    curves = list(groups(merged, keys, x))
    n_tests = sum(len(curve) for _, curve in curves)
    need = need_of(claim, len(curves))
    xss, exacts, verdicts, parts = [], [], [], []
    sides: tuple[list[Quantity], list[Quantity]] = ([], [])
    for group, curve in curves:
        xs = curve[x].to_numpy(dtype=float)
        method, baseline = side(curve, 0), side(curve, 1)
        gap = judge(method.difference(baseline), tests=n_tests)
        low, high = crossing_interval(xs, gap.holds_adjusted, gap.opposite_adjusted, mode)
        exact = bool(np.all(method.se == 0) and np.all(baseline.se == 0))
        verdicts.append(locate(low, high, window, exact))
        xss.append(xs)
        exacts.append(exact)
        sides[0].append(method)
        sides[1].append(baseline)
        s = symbol(x)
        if math.isinf(high):
            found = (
                f"not above for good up to {s}={fmt(xs[-1])}"
                if mode == "stays"
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
    status = combine(verdicts, need)
    text = (
        f"{p['method'].label} over {p['baseline'].label}, {confidence()} simultaneous: "
        + examples(parts, 4)
        + (
            f" (paper: {symbol(x)} > {fmt(expected)}"
            + (f", crossing by {fmt(expected + tol)})" if p["by"] else f" ± {fmt(tol)})")
        )
    )
    # on the log scale every gap is a difference of mean logs: above in geometric means
    text += data.scale_of(claim).note
    if status != WITHIN_NOISE:
        return Evaluation(status, text, None)
    (method, cuts), (baseline, _) = stack(sides[0]), stack(sides[1])
    curves_ = list(zip(xss, cuts, [grid_step(xs) for xs in xss], exacts, strict=True))

    def decides(reps: int) -> bool:
        diff = with_reps(method, reps).difference(with_reps(baseline, reps))
        above, below = above_below(diff, n_tests)
        located = [
            locate(*crossing_interval(xs, above[cut], below[cut], mode, step), window, exact)
            for xs, cut, step, exact in curves_
        ]
        return decided(combine(located, need))

    draws = resamples(method.difference(baseline))
    if draws is not None:
        inside = np.empty((RESAMPLES, len(xss)), dtype=bool)
        for j, (xs, cut, step, _) in enumerate(curves_):
            above = draws[:, cut] > 0
            low, high = crossing_intervals(xs, above, ~above, mode, step)
            inside[:, j] = (window[0] <= low) & (high <= window[1])
        text += "; " + resampled_text(inside, need, "crossing")
    return Evaluation(status, text, fewest_reps(decides, today_reps(method, baseline)))


KIND = register_kind("crossover", fields=FIELDS, parse=parse, evaluate=evaluate)
