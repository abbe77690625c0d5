"""``ratio``: ``numerator`` / ``denominator`` (each aggregated ``over`` some axes: the
``mean``, or the ``min``/``max`` of the points) within a factor (``within``) or between
``min`` and ``max``.

The ratio is judged on the log scale (delta method: se = √((se_a/a)² + (se_b/b)²); where
the points are on the log scale, a run time or skewed repetitions, the difference of the
mean logs, the ratio of geometric means, with its Welch interval). An
aggregate that picks the largest or smallest of K noisy means pays for the pick: its
interval is Bonferroni-widened by K.

``within: w`` is an equivalence test (TOST): the 95 % two-sided interval of the log ratio
inside [−log w, log w] is two one-sided tests at 2.5 % each against the margins, so a
claim of sameness ("similar", "nearly constant", "not affected", "overlap") is reproduced
when the ratio is confidently equivalent within ×w, and contradicted when the interval lies
wholly outside (a confident difference beyond the margin). A one-sided ``min`` or ``max``
is a non-inferiority test against that bound. The margins of the papers' recurring
wordings are those of the phrase table (``conf/phrases.yaml``).
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.report.claims.data import (
    ResultsTable,
    join,
    point_label,
    pool,
    select,
    side,
    varying,
)
from anonlab.report.claims.kinds import Evaluation, register_kind
from anonlab.report.claims.model import (
    Checker,
    Claim,
    examples,
    fmt,
    largest_first,
    need_of,
    need_text,
)
from anonlab.report.claims.stats import confidence, critical, judge, tally

FIELDS = {
    "numerator",
    "denominator",
    "over",
    "numerator_aggregate",
    "denominator_aggregate",
    "within",
    "min",
    "max",
}
AGGREGATES = ("mean", "min", "max")


def parse(c: Checker) -> dict[str, Any]:
    over = c.raw.get("over") or []
    if isinstance(over, str):
        over = [over]
    if not isinstance(over, list | tuple) or not all(isinstance(a, str) for a in over):
        raise c.error("over", f"must be a list of axes, got {over!r}")
    within = c.number("within", low=1.0)
    low, high = c.number("min", low=0.0), c.number("max", low=0.0)
    if within is not None and (low is not None or high is not None):
        raise c.error("within", "cannot be given with 'min'/'max'")
    if within is None and low is None and high is None:
        raise c.error("within", "is missing: give 'within' (a factor) or 'min'/'max'")
    if within is not None:
        low, high = 1 / within, within
    if low is not None and high is not None and low > high:
        raise c.error("min", f"must be <= max ({high}), got {low}")
    return {
        "numerator": c.selection("numerator"),
        "denominator": c.selection("denominator"),
        "over": tuple(over),
        "bounds": (low, high),
        "numerator_aggregate": c.choice("numerator_aggregate", AGGREGATES, "mean"),
        "denominator_aggregate": c.choice("denominator_aggregate", AGGREGATES, "mean"),
    }


def _aggregate(
    frame: pd.DataFrame, keys: list[str], over: tuple[str, ...], how: str
) -> tuple[pd.DataFrame, list[str]]:
    """Points aggregated over ``over``; column ``picked`` counts the means a min/max chose
    from (1 for a mean)."""
    kept = [k for k in keys if k not in over]
    if len(kept) == len(keys):
        return frame.assign(picked=1), keys
    if how == "mean":
        return pool(frame, kept).assign(picked=1), kept
    ordered = frame.sort_values("value", ascending=how == "min", kind="stable")
    grouped = ordered.groupby(kept, dropna=False, sort=True) if kept else None
    if grouped is None:
        chosen = ordered.head(1).assign(picked=len(frame))
    else:
        chosen = grouped.head(1).merge(grouped.size().rename("picked").reset_index(), on=kept)
    return chosen[[*kept, "value", "se", "df", "reps", "picked"]].reset_index(drop=True), kept


def _exp(value: float) -> float:
    """e**value, ∞ where it overflows (an interval from very few repetitions)."""
    return math.exp(value) if value < 709 else math.inf


def evaluate(claim: Claim, data: ResultsTable) -> Evaluation:
    p = claim.params
    points, scale = data.points_of(claim), data.scale_of(claim)
    sides = []
    for name in ("numerator", "denominator"):
        frame, keys = select(points, p[name], claim.where)
        sides.append(_aggregate(frame, keys, p["over"], p[f"{name}_aggregate"]))
    merged, keys = join(sides)
    # in the metric's units (geometric means on the log scale)
    a, b = scale.shown(merged["v0"].to_numpy(float)), scale.shown(merged["v1"].to_numpy(float))
    # log(a/b): the difference of mean logs on the log scale, else the delta method
    q = scale.log_ratio(side(merged, 0), side(merged, 1))
    est = q.est
    picked = int(max(merged["picked0"].max(), merged["picked1"].max()))
    low, high = p["bounds"]
    log_low = math.log(low) if low else -math.inf
    log_high = math.log(high) if high is not None else math.inf
    judged = judge(q, log_low, log_high, tests=len(q) * picked, closed=True)
    if picked > 1:  # an extremum of several means: pay for the pick at every level
        judged = replace(
            judged,
            holds=judged.holds_adjusted,
            opposite=judged.opposite_adjusted,
            multiplier=picked,
        )
    result = tally(judged, need_of(claim, len(q)))
    if low is not None and high is not None and math.isclose(low * high, 1.0):
        bounds = f"equivalent within ×{fmt(high)}"
    elif low is not None and high is not None:
        bounds = f"in [{fmt(low)}, {fmt(high)}]"
    else:
        bounds = f">= {fmt(low)}" if low is not None else f"<= {fmt(high)}"
    half = critical(q.df, len(q) * picked if picked > 1 else 1) * q.se
    half = np.where(np.isnan(q.se), np.inf, half)
    parts = []
    shown = varying(merged, keys)
    for i, (_, row) in enumerate(merged.iterrows()):
        label = point_label(row, shown)
        ci = (
            f" [{fmt(_exp(est[i] - half[i]))}, {fmt(_exp(est[i] + half[i]))}]"
            if np.isfinite(est[i]) and half[i] > 0
            else ""
        )
        ratio = _exp(est[i]) if np.isfinite(est[i]) else a[i] / b[i] if b[i] else math.nan
        parts.append(f"{label + ': ' if label else ''}{fmt(ratio)}{ci} ({fmt(a[i])} / {fmt(b[i])})")
    if len(parts) == 1:
        text = f"ratio {parts[0]}"
    else:
        # the ratios outside the band first, the farthest (on the log scale) leading
        with np.errstate(invalid="ignore"):
            deviation = np.where(
                (a == 0) | (b == 0), math.inf, np.maximum(log_low - est, est - log_high)
            )
        failing = [parts[i] for i in largest_first(deviation) if not result.holds_at[i]]
        text = (
            f"{result.held}/{result.n} ratios {bounds} at {confidence()}, "
            f"{result.opposite} outside; " + examples(failing or parts, 3)
        )
        bounds += f"; {need_text(claim)}"
    if picked > 1:
        text += f" (an extremum of up to {picked} means, Bonferroni-widened)"
    return Evaluation(
        result.status, text + f" (claim: {bounds})" + scale.note, result.reps, result.chance
    )


KIND = register_kind("ratio", fields=FIELDS, parse=parse, evaluate=evaluate)
