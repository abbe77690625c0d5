"""Calibration of the verdicts on skewed repetitions: how often a claim whose truth sits
exactly on its boundary is decided, before (the plain t-interval on the raw scale, forced)
and after the log scale of :mod:`anonlab.report.claims.stats` (run times always, other
metrics when the skewness check finds their repetitions right-skewed).

    python benchmarks/audits/calibration_skew.py                        # 4000 draws per cell
    python benchmarks/audits/calibration_skew.py --draws 1000 --check 2  # quicker

Each simulated results table has the runner's shape: two methods, ``a`` (narrow) and ``b``
(wide), at K = 4 grid points k = 2..5, n repetitions each, every point alike; the claims
read k = 2 alone (``where: {k: 2}``), the other points only feed the table's skewness
check. Repetitions are normal (mean 10, sd 1 and r) or log-normal (log-sd σ for ``a``, and
for ``b`` the log-sd whose coefficient of variation is r times ``a``'s: the spread ratio r
is the ratio of the two standard deviations at equal means). The claims are ``ordering``
(a < b) and ``ratio`` (b / a >= 1). "Boundary" is the quantity the verdict judges: equal
means on the raw scale (before), equal geometric means (medians) on the log scale (after;
for the skew-checked metric too, so a draw the check leaves on the raw scale counts against
it). With b the wide side, the flipped claim (b < a) swaps the two columns, so both
directions are shown.

Each cell's draws are judged in bulk through :class:`ResultsTable` (point statistics of one
table holding every draw as a data set), :meth:`Scale.gap` / :meth:`Scale.log_ratio` and
:func:`judge` (for a one-point claim, :func:`tally` reproduces exactly when the interval
holds at 95 %, contradicts when it is opposite); the first ``--check`` draws of each cell
are judged again one table at a time by :func:`evaluate_claim`, and any disagreement exits 1.
Prints the command and the load average first, then rates in % ± one Monte-Carlo standard
error, and exits 1 if an "after" rate exceeds 2.5 % by more than 3 standard errors.
"""

from __future__ import annotations

import argparse
import math
import os
import shlex
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import numpy as np
import pandas as pd

from anonlab.report.claims import (  # noqa: E402
    CONTRADICTED,
    REPRODUCED,
    evaluate_claim,
    parse_claim,
)
from anonlab.report.claims.data import ResultsTable, join, select, side  # noqa: E402
from anonlab.report.claims.stats import (  # noqa: E402
    RAW,
    Scale,
    judge,
    log_scale,
    pooled_skewness,
)

K = (2, 3, 4, 5)  # grid points per method: the claim reads k = 2, the check reads them all
HALF_ALPHA = 0.025
_BASE = {"id": "c", "paper": "P", "section": "§0", "quote": "q", "where": {"k": 2}}
CLAIMS = {
    "ordering": {**_BASE, "kind": "ordering", "lower": "a", "higher": "b"},
    "ratio": {
        **_BASE,
        "kind": "ratio",
        "numerator": "b",
        "denominator": "a",
        "min": 1.0,
        "tolerance_note": "a boundary claim, for calibration",
    },
}
#: what each column judges: (metric, forced scale: False raw / None the rule, truth)
MODES = {
    "before": ("re", False, "mean"),
    "run time": ("runtime", None, "median"),
    "checked": ("re", None, "median"),
}


class RawScale(ResultsTable):
    """A results table judged by the plain t-interval on the raw scale (before)."""

    def scale(self, metric: str, by_attribute: bool) -> Scale:
        return RAW


def log_sds(sigma: float, ratio: float) -> tuple[float, float]:
    """Log-sds of ``a`` and ``b``: ``b``'s coefficient of variation ``ratio`` times ``a``'s."""
    cv = ratio * math.sqrt(math.expm1(sigma**2))
    return sigma, math.sqrt(math.log1p(cv**2))


def draw(
    rng: np.random.Generator,
    sigma: float | None,
    ratio: float,
    n: int,
    draws: int,
    truth: str,
    grid: int = len(K),
) -> np.ndarray:
    """Repetitions, shape (draws, 2 methods, ``grid`` points, n): normal (``sigma`` None,
    sd 1 and ``ratio``, mean 10) or log-normal, ``a`` and ``b`` equal in their ``truth``
    ("mean" or "median": the arithmetic or the geometric mean)."""
    z = rng.standard_normal((draws, 2, grid, n))
    if sigma is None:
        return 10.0 + z * np.array([1.0, ratio])[:, None, None]
    s = np.array(log_sds(sigma, ratio))[:, None, None]
    mu = -(s**2) / 2 if truth == "mean" else 0.0  # E exp(μ + sZ) = 1, or median 1
    return np.exp(mu + s * z)


def results_table(values: np.ndarray, metric: str) -> pd.DataFrame:
    """The runner's long table of ``values`` (draws, 2, K, n): one data set per draw."""
    draws, _, k, n = values.shape
    idx = np.indices(values.shape).reshape(4, -1)
    frame = pd.DataFrame(
        {
            "experiment": "x",
            "dataset": pd.Series([f"d{i:05d}" for i in range(draws)]).to_numpy()[idx[0]],
            "method": np.array(["a", "b"])[idx[1]],
            "k": pd.array(np.array(K)[idx[2]], dtype="Int64"),
            "rep": idx[3],
            "seed": 1,
            "cell_id": idx[2],
            "metric": metric,
            "attribute": pd.array([None] * idx.shape[1], dtype="string"),
            "value": values.reshape(-1),
        }
    )
    return frame


def judged(data: ResultsTable, name: str, metric: str, log: bool) -> tuple[np.ndarray, ...]:
    """Per draw (data set), in draw order: reproduced and contradicted, the one-point claim
    judged on the raw or the log scale by the kind's own arithmetic."""
    claim = parse_claim({**CLAIMS[name], "metric": metric})
    points = data.points(metric, False, log=log)
    scale = points.attrs["scale"]
    if name == "ordering":
        (lower,), (higher,) = claim.params["tiers"]
        merged, _ = join([select(points, s, claim.where) for s in (lower, higher)])
        j = judge(scale.gap(side(merged, 1), side(merged, 0), claim.params["factor"]))
    else:
        p = claim.params
        merged, _ = join([select(points, p[s], claim.where) for s in ("numerator", "denominator")])
        low = math.log(p["bounds"][0])
        j = judge(scale.log_ratio(side(merged, 0), side(merged, 1)), low, math.inf, closed=True)
    order = np.argsort(merged["dataset"].to_numpy())
    return j.holds[order], (j.opposite & ~j.holds)[order]


def on_log_scale(data: ResultsTable, values: np.ndarray, metric: str) -> np.ndarray:
    """Per draw: whether the rule puts its table on the log scale (the check per table)."""
    skew = data.point_skewness(metric, False).sort_values(["dataset", "method", "k"])
    shape = (values.shape[0], -1)
    _, z = pooled_skewness(
        skew["g1"].to_numpy().reshape(shape), skew["reps"].to_numpy().reshape(shape)
    )
    positive = (values > 0).reshape(shape).all(axis=1)
    return log_scale(z, positive=positive, measured=metric == "runtime")


def verdicts(values: np.ndarray, mode: str) -> dict[str, tuple[np.ndarray, ...]]:
    """Per claim kind: (reproduced, contradicted, on the log scale) per draw."""
    metric, forced, _ = MODES[mode]
    data = ResultsTable(results_table(values, metric))
    log = np.zeros(len(values), bool) if forced is False else on_log_scale(data, values, metric)
    out = {}
    for name in CLAIMS:
        raw = judged(data, name, metric, False)
        logged = judged(data, name, metric, True) if log.any() else raw
        out[name] = (*(np.where(log, b, a) for a, b in zip(raw, logged, strict=True)), log)
    return out


def cross_check(values: np.ndarray, mode: str, found: dict, count: int) -> list[str]:
    """The first ``count`` draws judged one table at a time by :func:`evaluate_claim`; the
    draws whose verdict differs from the bulk one."""
    metric, forced, _ = MODES[mode]
    table = RawScale if forced is False else ResultsTable
    wrong = []
    for i in range(min(count, len(values))):
        data = table(results_table(values[i : i + 1], metric))
        for name, raw in CLAIMS.items():
            got = evaluate_claim(parse_claim({**raw, "metric": metric}), data).status
            rep, con, _ = (v[i] for v in found[name])
            want = REPRODUCED if rep else CONTRADICTED if con else None
            if (got in (REPRODUCED, CONTRADICTED) or want) and got != want:
                wrong.append(f"{mode} {name} draw {i}: bulk {want}, evaluate_claim {got}")
    return wrong


def rate(hits: np.ndarray) -> tuple[float, float]:
    """The share of ``hits`` and its Monte-Carlo standard error."""
    p = float(np.mean(hits))
    return p, math.sqrt(max(p * (1 - p), 1e-12) / len(hits))


def cell(p: tuple[float, float]) -> str:
    return f"{100 * p[0]:4.1f} ± {100 * p[1]:.1f}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--draws", type=int, default=4000, help="simulated claims per cell")
    parser.add_argument("--check", type=int, default=3, help="draws per cell re-judged singly")
    parser.add_argument("--seed", type=int, default=20240611)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    print("$ " + shlex.join([sys.executable.rsplit("/", 1)[-1], *sys.argv]))
    print("load average (1, 5, 15 min): " + ", ".join(f"{v:.2f}" for v in os.getloadavg()))
    print(
        f"{args.draws} draws per cell; rates in % ± 1 Monte-Carlo se; wide method b as "
        "higher / numerator; rep = false reproduced, con = false contradicted; log % = "
        "share of draws the rule judged on the log scale\n"
    )
    head = (
        f"{'repetitions':<14}{'r':>2}{'n':>4}  {'claim':<9}| {'before rep':>11} {'before con':>11}"
        f" | {'run time rep':>12} {'run time con':>12} | {'checked rep':>11} {'checked con':>11}"
        f" {'log %':>6}"
    )
    print(head)
    print("-" * len(head))
    rng = np.random.default_rng(args.seed)
    worst, mismatches = [], []
    for sigma in (None, 0.5, 1.0):
        for ratio in (1, 2, 3):
            for n in (10, 20, 40):
                found = {}
                for mode, (_, _, truth) in MODES.items():
                    if sigma is None and mode == "run time":
                        continue  # a run time is log-normal-like; normal data are "re"
                    truth = "mean" if sigma is None else truth
                    values = draw(rng, sigma, ratio, n, args.draws, truth)
                    found[mode] = verdicts(values, mode)
                    mismatches += cross_check(values, mode, found[mode], args.check)
                label = "normal" if sigma is None else f"log-normal {sigma:g}"
                for name in CLAIMS:
                    cols = []
                    for mode in MODES:
                        if mode not in found:
                            cols += [f"{'–':>12}", f"{'–':>12}"]
                            continue
                        rep, con, log = found[mode][name]
                        pair = rate(rep), rate(con)
                        if mode != "before":
                            worst.append((max(p[0] - HALF_ALPHA - 3 * p[1] for p in pair), label))
                        width = 12 if mode == "run time" else 11
                        cols += [f"{cell(p):>{width}}" for p in pair]
                    log_share = 100 * float(np.mean(found["checked"][name][2]))
                    print(
                        f"{label:<14}{ratio:>2}{n:>4}  {name:<9}| {cols[0]} {cols[1]} | "
                        f"{cols[2]} {cols[3]} | {cols[4]} {cols[5]} {log_share:6.1f}"
                    )
    print()
    for line in mismatches:
        print("MISMATCH", line)
    print(
        f"cross-check: the first {args.check} draws of every cell and column re-judged by "
        f"evaluate_claim, {len(mismatches)} disagreements"
    )
    excess = max(w for w, _ in worst)
    print(
        f"largest 'after' excess over 2.5 % + 3 se: {100 * excess:+.2f} points "
        f"({'within' if excess <= 0 else 'BEYOND'} the stated rate)"
    )
    print(f"run time {time.perf_counter() - start:.0f} s")
    return 1 if mismatches or excess > 0 else 0


if __name__ == "__main__":
    sys.exit(main())
