"""``ratio``: ``numerator`` / ``denominator`` (each aggregated ``over`` some axes: the
``mean``, or the ``min``/``max`` of the points) within a factor (``within``) or between
``min`` and ``max``.

The ratio is judged on the log scale (delta method: se = √((se_a/a)² + (se_b/b)²)). An
aggregate that picks the largest or smallest of K noisy means pays for the pick: its
interval is Bonferroni-widened by K.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from anonlab.report.claims.data import ResultsTable, join, point_label, pool, select, varying
from anonlab.report.claims.model import (
    Checker,
    Claim,
    examples,
    fmt,
    need_of,
    need_text,
)
from anonlab.report.claims.stats import Quantity, confidence, critical, judge, tally, welch_df

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
    return chosen[[*kept, "value", "se", "df", "n", "picked"]].reset_index(drop=True), kept


def _exp(value: float) -> float:
    """e**value, ∞ where it overflows (an interval from very few repetitions)."""
    return math.exp(value) if value < 709 else math.inf


def evaluate(claim: Claim, data: ResultsTable) -> tuple[str, str, int | None]:
    p = claim.params
    points = data.points_of(claim)
    sides = []
    for name in ("numerator", "denominator"):
        frame, keys = select(points, p[name], claim.where)
        sides.append(_aggregate(frame, keys, p["over"], p[f"{name}_aggregate"]))
    merged, keys = join(sides)
    a, b = merged["v0"].to_numpy(float), merged["v1"].to_numpy(float)
    se_a, se_b = merged["se0"].to_numpy(float), merged["se1"].to_numpy(float)
    with np.errstate(divide="ignore", invalid="ignore"):
        positive = (a > 0) & (b > 0)
        est = np.where(positive, np.log(a) - np.log(b), np.nan)
        rel_a, rel_b = se_a / np.abs(a), se_b / np.abs(b)
        se = np.sqrt(rel_a**2 + rel_b**2)
    df = welch_df(rel_a, merged["df0"].to_numpy(float), rel_b, merged["df1"].to_numpy(float))
    picked = int(max(merged["picked0"].max(), merged["picked1"].max()))
    q = Quantity(est, se, df, np.maximum(merged["n0"], merged["n1"]).to_numpy(float))
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
        bounds = f"within ×{fmt(high)}"
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
        failing = [part for part, good in zip(parts, result.holds_at, strict=True) if not good]
        text = (
            f"{result.held}/{result.n} ratios {bounds} at {confidence()}, "
            f"{result.opposite} outside; " + examples(failing or parts, 3)
        )
        bounds += f"; {need_text(claim)}"
    if picked > 1:
        text += f" (an extremum of up to {picked} means, Bonferroni-widened)"
    return result.status, text + f" (claim: {bounds})", result.reps
