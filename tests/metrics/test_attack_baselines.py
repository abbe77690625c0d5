"""The random-guess baseline anonymeter reports beside each attack (anonlab.metrics.attacks,
option ``report: rates``): its expectations against loops over every guess, its random
predicates against a plain evaluation, and that asking for it changes no number drawn
without it (in a run: ``test_attack_baselines_run.py``)."""

from __future__ import annotations

import operator

import numpy as np
import pytest

from anonlab.datasets import Attribute
from anonlab.metrics import attacks

NUMBERS = tuple(Attribute(name, domain=(-1e3, 1e3)) for name in "abc")


def population(rng: np.random.Generator, n: int) -> np.ndarray:
    base = rng.normal(50.0, 10.0, n)
    return np.column_stack([base, 0.5 * base + rng.normal(0, 5, n), rng.normal(20, 4, n)])


def parts(seed: int = 0, n: int = 150):
    rng = np.random.default_rng(seed)
    training, control = population(rng, n), population(rng, n)
    return training, control, np.round(training + rng.normal(0, 3, training.shape))


def test_linkability_baseline_is_one_link_in_n_released_records():
    training, control, released = parts()
    result = attacks.linkability_attack(
        training, control, released, NUMBERS, np.random.default_rng(1), 100, baseline=True
    )
    assert result.baseline == pytest.approx(100 / len(released))
    assert result.baseline_rate == attacks.success_rate(100, 100 / len(released))


def test_inference_baseline_is_the_share_of_right_released_secrets_per_target():
    training, control, released = parts(1)
    released[::7, 2] = -released[::7, 2]  # negative guesses: within 5 % of |guess|
    rng = np.random.default_rng(2)
    result = attacks.inference_attack(
        training, control, released, NUMBERS, rng, 2, [0, 1], 60, baseline=True
    )
    # the main attack's targets: the generator's first draw
    targets = training[np.random.default_rng(2).choice(len(training), 60, replace=False), 2]
    expected = sum(
        np.mean(np.abs(released[:, 2] - secret) <= 0.05 * np.abs(released[:, 2]))
        for secret in targets
    )
    assert result.baseline == pytest.approx(expected)
    categories = np.array([0.0, 1.0, 1.0, 2.0])
    got = attacks.random_guess_probabilities(categories, np.array([1.0, 3.0]), True)
    np.testing.assert_allclose(got, [0.5, 0.0])


def test_random_predicates_as_a_plain_evaluation_counts_them():
    rng = np.random.default_rng(3)
    data = rng.integers(0, 4, (50, 4)).astype(float)
    attributes = (*NUMBERS, Attribute("d", kind="categorical"))
    columns, values, codes = attacks.random_predicates(data, attributes, 300, 3, rng)
    assert ((codes < 2) | (columns != 3)).all()  # a category: == or != only
    assert {int(c) for c in codes[columns != 3].ravel()} == set(range(6))
    compare = [operator.eq, operator.ne, operator.gt, operator.lt, operator.ge, operator.le]
    expected = [
        sum(all(compare[o](row[c], v) for c, v, o in zip(cs, vs, os, strict=True)) for row in data)
        for cs, vs, os in zip(columns, values, codes, strict=True)
    ]
    got = attacks.count_random_matches(data, columns, values, codes)
    np.testing.assert_array_equal(got, expected)
    assert (np.unique(columns, axis=None).size == 4) and all(len(set(c)) == 3 for c in columns)


def test_the_baseline_changes_no_number_of_the_attacks():
    """Main, control and residual are those without the baseline, and the generator ends
    where it did: other metrics draw the same numbers."""
    training, control, released = parts(4)
    for mode in ("multivariate", "univariate"):
        results, states = [], []
        for baseline in (False, True):
            rng = np.random.default_rng(5)
            results.append(
                attacks.singling_out_attack(
                    training, control, released, NUMBERS, rng, mode, 100, baseline
                )
            )
            states.append(rng.bit_generator.state)
        alone, with_baseline = results
        assert (alone.main, alone.control, alone.residual) == (
            with_baseline.main,
            with_baseline.control,
            with_baseline.residual,
        )
        assert states[0] == states[1]
        assert alone.baseline_rate is None and with_baseline.baseline_rate is not None


def test_a_copy_beats_the_baseline_and_a_resample_does_not():
    """On a copy of the training records each attack succeeds far above random guessing;
    a release of other records of the population does no better than its control."""
    rng = np.random.default_rng(6)
    training, control = population(rng, 300), population(rng, 300)
    for released, copied in ((training, True), (population(rng, 300), False)):
        result = attacks.linkability_attack(
            training, control, released, NUMBERS, np.random.default_rng(0), 200, baseline=True
        )
        if copied:
            assert result.main_rate.value > 0.9 > 0.05 > result.baseline_rate.value
        else:
            assert result.main_rate.value < 0.05
