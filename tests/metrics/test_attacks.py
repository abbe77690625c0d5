"""Attack-based risks with a control baseline (anonlab.metrics.attacks)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import anonlab
from anonlab.datasets import Attribute, Dataset
from anonlab.metrics import attacks
from anonlab.runner.execute import run_job
from anonlab.runner.grid import Cell
from anonlab.validation import ParameterError

NUMBERS = tuple(Attribute(name, domain=(-1e3, 1e3)) for name in "abc")


def population(rng: np.random.Generator, n: int) -> np.ndarray:
    """Records of one population: three correlated normal attributes."""
    base = rng.normal(50.0, 10.0, n)
    return np.column_stack([base, 0.5 * base + rng.normal(0, 5, n), rng.normal(20, 4, n)])


def run_all(training: np.ndarray, control: np.ndarray, released: np.ndarray) -> dict:
    rng = np.random.default_rng(3)
    out = {
        "singling_out": attacks.singling_out_attack(
            training, control, released, NUMBERS, rng, "univariate", 200
        ),
        "linkability": attacks.linkability_attack(training, control, released, NUMBERS, rng, 200),
    }
    out["inference"] = attacks.inference_attack(
        training, control, released, NUMBERS, rng, secret=2, aux=[0, 1], n_attacks=200
    )
    return out


def test_the_control_baseline_tells_a_copy_from_a_resample():
    rng = np.random.default_rng(0)
    training, control = population(rng, 200), population(rng, 200)
    copied = run_all(training, control, training)
    for name, result in copied.items():
        assert result.low > 0.8, name  # a copy of the training records: at risk
    resampled = run_all(training, control, population(rng, 200))
    for name, result in resampled.items():
        assert result.low == 0.0 and result.high < 0.1, name  # no more than the population
    # the resample's guesses succeed often on training records; only the control
    # attack, as successful, brings the risk to 0
    assert resampled["inference"].main_rate.value > 0.1
    assert resampled["inference"].risk < 0.05


def test_ties_count_as_a_random_pick_among_the_nearest():
    rng = np.random.default_rng(1)
    released = rng.integers(0, 3, (40, 4)).astype(float)  # many identical records
    targets = rng.integers(0, 3, (15, 4)).astype(float)
    attributes = tuple(Attribute(c, domain=(0, 2)) for c in "abcd")

    def nearest(rows: np.ndarray, target: np.ndarray) -> set[int]:
        d = np.abs(rows - target).sum(axis=1)
        return set(np.flatnonzero(d == d.min()))

    linked = attacks.link_probabilities(released, targets, attributes, ([0, 1], [2, 3]))
    guessed = attacks.guess_probabilities(released, targets, attributes, [0, 1, 2], 3)
    for t, target in enumerate(targets):
        first = nearest(released[:, :2], target[:2])
        second = nearest(released[:, 2:], target[2:])
        assert linked[t] == pytest.approx(len(first & second) / (len(first) * len(second)))
        tied = sorted(nearest(released[:, :3], target[:3]))
        right = np.abs(released[tied, 3] - target[3]) <= 0.05 * np.abs(released[tied, 3])
        assert guessed[t] == pytest.approx(right.mean())


def test_risk_is_the_excess_over_control_with_wilson_rates():
    result = attacks.attack_result("x", 500, main=100, control=100)
    assert result.residual == 0.0 and result.low == 0.0 and result.high > 0.0
    z2 = 1.959963984540054**2
    r_main, r_control = (250 + z2 / 2) / (500 + z2), (50 + z2 / 2) / (500 + z2)
    result = attacks.attack_result("x", 500, main=250, control=50)
    assert result.residual == pytest.approx((r_main - r_control) / (1 - r_control))
    assert result.low < result.risk < result.high


def test_an_experiment_attacks_the_release_of_the_training_part():
    rng = np.random.default_rng(2)
    frame = pd.DataFrame(population(rng, 120), columns=list("abc"))
    view = Dataset("toy", frame, NUMBERS)
    rows = {}
    for method, params in (("original", ()), ("laplace", (("epsilon", 0.1),))):
        cell = Cell(method, params, "toy", id=7)
        job = (0, cell, 0)
        rows[method] = {
            r["metric"]: r["value"]
            for r in run_job(view, job, 5, ["linkability", "attribute_inference", "re"], [])
        }
    assert rows["original"]["re"] == 0.0  # the cell's full release is as without attacks
    assert rows["original"]["linkability"] > 0.9
    assert rows["laplace"]["linkability"] < 0.1
    laplace = Cell("laplace", (("epsilon", 0.1),), "toy", id=7)
    alone = run_job(view, (0, laplace, 0), 5, ["re"], [])  # no attack: no held-out release
    with_attacks = run_job(view, (0, laplace, 0), 5, ["re", "linkability"], [])
    assert alone[0]["value"] == with_attacks[0]["value"]
    again = run_job(view, (0, Cell("original", (), "toy", id=7), 0), 5, ["linkability"], [])
    assert again[0]["value"] == rows["original"]["linkability"]


def test_evaluate_needs_control_records_for_an_attack():
    rng = np.random.default_rng(4)
    original = pd.DataFrame(population(rng, 60), columns=list("abc"))
    synthetic = pd.DataFrame(population(rng, 60), columns=list("abc"))
    with pytest.raises(ParameterError, match="pass control=FRAME"):
        anonlab.evaluate(original, synthetic, ["linkability"])
    control = pd.DataFrame(population(rng, 60), columns=list("abc"))
    risk = anonlab.evaluate(original, synthetic, ["linkability"], control=control)
    assert 0.0 <= risk["linkability"] < 0.2
    with pytest.raises(ParameterError, match="control has no column 'c'"):
        anonlab.evaluate(original, synthetic, ["linkability"], control=control[["a", "b"]])


@pytest.mark.parametrize(("option", "value"), itertools.product(["n_attacks"], [7]))
def test_attack_options_are_checked(option, value):
    with pytest.raises(ParameterError, match=f"options.linkability.{option}"):
        anonlab.metrics.get_metric("linkability", {option: value})


def test_a_k_above_the_training_part_is_refused_before_work_or_skipped():
    """The attacks rerun the method on the training part: a k that fits the data but
    not that part is one error before any work, or, under inapplicable: skip (the arena
    on a small CSV), a pair left out."""
    view = Dataset("toy", pd.DataFrame(np.zeros((30, 3)), columns=list("abc")), NUMBERS)
    linkability = anonlab.metrics.get_metric("linkability")
    mdav = anonlab.methods.make_method("mdav", {"k": 20})
    assert linkability.undefined(view, mdav)
    with pytest.raises(ParameterError, match="the 15 training records of dataset 'toy'"):
        linkability.check(view, mdav)
    small = anonlab.methods.make_method("mdav", {"k": 15})
    assert not linkability.undefined(view, small)
