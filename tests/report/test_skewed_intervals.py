"""Skewed repetitions are judged on the log scale: run times always, other metrics when the
skewness check of :mod:`anonlab.report.claims.stats` finds them right-skewed. A boundary
claim on log-normal run times with unequal spreads is then falsely decided at most at the
stated α/2 each way (the t-interval on the raw scale: 5–16 %); normal data stay on the raw
scale; and a verdict says which scale it was judged on, and why."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from anonlab.report.claims import evaluate_claim, parse_claim
from anonlab.report.claims.data import ResultsTable
from anonlab.report.claims.stats import (
    SKEW_LEVEL,
    Quantity,
    Scale,
    judge,
    pooled_skewness,
    skewness_z,
)
from benchmarks.audits.calibration_skew import draw, on_log_scale, results_table, verdicts

DRAWS = 3000
LIMIT = 0.025 + 3 * math.sqrt(0.025 * 0.975 / DRAWS)  # α/2 + 3 Monte-Carlo se


def claim(kind: str, metric: str, **fields) -> dict:
    return {"id": "c", "paper": "P", "section": "§1", "quote": "q", "kind": kind, **fields} | {
        "metric": metric
    }


def two_methods(a: np.ndarray, b: np.ndarray, metric: str, k: int = 2) -> pd.DataFrame:
    """One point per method, the given repetitions, in the runner's shape."""
    return results_table(np.stack([a, b])[None, :, None, :], metric).assign(
        k=pd.array([k] * (len(a) + len(b)), dtype="Int64")
    )


@pytest.mark.integration  # a simulation: verdicts on 3,000 drawn tables
def test_boundary_run_times_are_falsely_decided_at_most_at_the_stated_rate():
    # σ = 1, spread ratio 3, 10 repetitions: equal medians, b's sd three times a's; the
    # raw t-interval contradicted "a < b" in 10 % and the ratio in 16 % of such draws
    values = draw(np.random.default_rng(11), 1.0, 3, 10, DRAWS, "median", grid=1)
    for name, (reproduced, contradicted, log) in verdicts(values, "run time").items():
        assert log.all(), name
        assert reproduced.mean() <= LIMIT, (name, reproduced.mean())
        assert contradicted.mean() <= LIMIT, (name, contradicted.mean())
    # the raw t-interval, forced, at its own boundary (equal means) fails the same bound
    values = draw(np.random.default_rng(12), 1.0, 3, 10, DRAWS, "mean", grid=1)
    for name, (_, contradicted, _) in verdicts(values, "before").items():
        assert contradicted.mean() > LIMIT, (name, contradicted.mean())  # 9.6 %, 15 %


def test_normal_repetitions_stay_on_the_raw_scale():
    values = draw(np.random.default_rng(12), None, 2, 10, 2000, "mean")
    data = ResultsTable(results_table(values, "re"))
    share = on_log_scale(data, values, "re").mean()
    assert share <= SKEW_LEVEL + 3 * math.sqrt(SKEW_LEVEL / 2000)  # measured: 1.0 %
    one = two_methods(values[0, 0, 0], values[0, 1, 0], "re")
    assert not ResultsTable(one).scale("re", False).log


def test_the_check_is_dagostinos_test_pooled():
    # scipy.stats.skew and skewtest of x² for x = 0..11, of e^x on 9 points of [−1, 1] and
    # of 39 zeros and a one
    g1, n = np.array([0.6706787852425976, 0.7144992321325049, 6.084869844593311]), [12, 9, 40]
    z = np.array([1.2380954284425794, 1.2248298241817028, 7.539966216444776])
    np.testing.assert_allclose(skewness_z(g1, n), z, rtol=1e-12)
    assert pooled_skewness(g1, n)[1] == pytest.approx(z.sum() / math.sqrt(3))
    assert pooled_skewness(g1, [12, 7, 40])[1] == pytest.approx((z[0] + z[2]) / math.sqrt(2))
    for i, log in [(0, False), (2, True)]:  # Z = 1.24 < 2.326 < 7.54
        assert Scale.decide(g1[i], n[i], positive=True, measured=False).log == log
    assert not Scale.decide(g1[2], n[2], positive=False, measured=False).log


def test_a_run_time_is_always_on_the_log_scale():
    rng = np.random.default_rng(14)
    symmetric = 1.0 + 0.01 * np.linspace(-1, 1, 10)  # no skew at all
    for reps in (symmetric, symmetric[:3], rng.normal(5.0, 0.1, 30)):
        data = ResultsTable(two_methods(reps, 2 * reps, "runtime"))
        assert data.scale("runtime", False).log
        assert data.points("runtime", False).attrs["scale"].log
    zero = ResultsTable(two_methods(np.r_[0.0, symmetric[1:]], symmetric, "runtime"))
    assert not zero.scale("runtime", False).log  # a log needs every repetition > 0
    assert "raw scale although a run time" in zero.scale("runtime", False).note


def test_the_log_scale_arithmetic():
    log = Scale(True, "test")
    a, b = Quantity.of(math.log(2.0), 0.1, 9, 10), Quantity.of(math.log(1.0), 0.1, 9, 10)
    # 2 > 1.5 · 1 and not > 3 · 1, on the log scale
    assert log.gap(a, b, 1.5).est[0] == pytest.approx(math.log(2 / 1.5))
    assert log.gap(a, b, 3.0).est[0] < 0
    assert log.log_ratio(a, b).est[0] == pytest.approx(math.log(2.0))
    assert log.bound(np.array([2.0, 0.0, -1.0])).tolist() == [math.log(2.0), -np.inf, -np.inf]
    # a 10 % slack: a rise may fall to 0.9 × the earlier value
    curve = Quantity.of(np.log([1.0, 0.91, 0.89]), 0.0, np.inf, 10)
    i, j = np.array([0, 0]), np.array([1, 2])
    moves = log.moves(curve, i, j, 1.0, rel=0.1)
    assert judge(moves, 0.0, np.inf, closed=True).holds.tolist() == [True, False]


@pytest.mark.parametrize("metric", ["runtime", "re"])
def test_a_verdict_says_it_was_judged_on_the_log_scale_and_why(metric):
    rng = np.random.default_rng(15)
    frame = two_methods(rng.lognormal(0.0, 1.0, 20), rng.lognormal(2.0, 1.0, 20), metric)
    why = "a run time" if metric == "runtime" else "repetitions skewed (pooled skewness"
    for kind, fields in [
        ("ordering", {"lower": "a", "higher": "b"}),
        ("ratio", {"numerator": "b", "denominator": "a", "min": 1.0, "tolerance_note": "t"}),
        ("bound", {"method": "b", "op": ">", "value": 1.0}),
    ]:
        result = evaluate_claim(parse_claim(claim(kind, metric, **fields)), frame)
        assert result.status == "reproduced", result.ours
        assert f"judged on the log scale (geometric means): {why}" in result.ours, result.ours


def test_normal_data_say_nothing_of_a_scale():
    rng = np.random.default_rng(16)
    frame = two_methods(rng.normal(10.0, 1.0, 20), rng.normal(12.0, 1.0, 20), "re")
    result = evaluate_claim(parse_claim(claim("ordering", "re", lower="a", higher="b")), frame)
    assert result.status == "reproduced" and "scale" not in result.ours, result.ours


def test_every_kind_on_points_says_its_scale():
    rng = np.random.default_rng(17)
    curves = [[rng.lognormal(g * k, 0.8, 12) for k in range(4)] for g in (0.1, 0.6)]
    frame = results_table(np.array(curves)[None], "runtime")  # a and b at k = 2..5
    log = "judged on the log scale (geometric means): a run time"
    for fields, says in [
        ({"kind": "monotone", "method": "b", "direction": "increasing"}, log),
        ({"kind": "extremum", "method": "b", "which": "min", "expected": [2, 3]}, log),
        (
            {"kind": "crossover", "method": "b", "baseline": "a", "expected": 3}
            | {"tolerance": 1, "tolerance_note": "t"},
            log,
        ),
        # a rise stays a difference in seconds, and says so
        (
            {"kind": "growth", "method": "b", "others": ["a"], "start": 2, "end": 5},
            "judged on the raw scale although a run time",
        ),
    ]:
        result = evaluate_claim(parse_claim(claim(metric="runtime", **fields)), frame)
        assert says in result.ours, result.ours
