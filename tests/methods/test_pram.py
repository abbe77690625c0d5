"""PRAM (Gouweleeuw et al. 1998) as sdcMicro's pram: transitions drawn as the matrix says,
sdcMicro's invariant matrix, the categories the data set declares (never the values
found), a given matrix checked, the local ε stated only for a data-independent matrix."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset
from anonlab.guarantee import NONE
from anonlab.methods import make_method
from anonlab.methods.guarantees import guarantee
from anonlab.methods.pram import (
    SCALE,
    Pram,
    as_sampled,
    invariant_matrix,
    keep_matrix,
    local_epsilon_of,
    thresholds,
)
from anonlab.validation import ParameterError

#  Europe
#  ├── Italy: Rome, Milan
#  └── Norway: Oslo          (the data hold no Oslo)
CITIES = "value,parent\nRome,Italy\nMilan,Italy\nItaly,Europe\nOslo,Norway\nNorway,Europe\n"
N = 30_000


@pytest.fixture(scope="module")
def hierarchy(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("pram") / "cities.csv"
    path.write_text(CITIES, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def cities(hierarchy):
    """N records of a declared hierarchy's leaves (Milan, Oslo, Rome; no Oslo held) and a
    whole number of the declared domain [0, 5] (only 1 and 2 held)."""
    rng = np.random.default_rng(11)
    frame = pd.DataFrame(
        {"city": rng.choice(["Rome", "Milan"], N, p=[0.7, 0.3]), "kids": rng.integers(1, 3, N)}
    )
    return build_dataset(
        "cities",
        frame,
        ["city", "kids"],
        categorical=["city"],
        hierarchies={"city": str(hierarchy)},
        domains={"kids": [0, 5]},
        integer=["kids"],
    )


def transitions(method, dataset, j: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The empirical transition frequencies of attribute ``j`` (rows: the categories held,
    in declared order) and the categories' positions held."""
    from anonlab.methods.pram import _positions, categories

    attribute = dataset.protected_attributes[j]
    found = categories(attribute)
    released = method.protect(dataset, np.random.default_rng(seed)).values[:, j]
    before = _positions(attribute, found, dataset.protected_values[:, j])
    after = _positions(attribute, found, released)
    counts = np.zeros((len(found), len(found)))
    np.add.at(counts, (before, after), 1)
    held = counts.sum(axis=1) > 0
    return counts[held] / counts[held].sum(axis=1, keepdims=True), np.flatnonzero(held)


def within(observed: np.ndarray, expected: np.ndarray, rows: int) -> bool:
    """Each frequency within 5 standard errors of its probability over ``rows`` draws."""
    error = np.sqrt(np.maximum(expected * (1 - expected), 1e-12) / rows)
    return bool((np.abs(observed - expected) <= 5 * error + 1e-12).all())


def test_the_keep_matrix_is_drawn_as_it_says_over_the_declared_categories(cities):
    method = make_method("pram", {"pd": 0.6}, {"matrix": "keep"})
    for j, size in ((0, 3), (1, 6)):  # Milan, Oslo, Rome; the whole numbers 0 … 5
        observed, held = transitions(method, cities, j)
        expected = keep_matrix(0.6, size)[held]
        assert within(observed, expected, rows=int(0.3 * N))
        assert (observed > 0).all()  # Oslo and 0, 3, 4, 5: declared, never held, drawn


def test_a_given_matrix_is_drawn_as_it_says(cities):
    given = [[0.5, 0.25, 0.25], [0.0, 1.0, 0.0], [0.1, 0.0, 0.9]]  # Milan, Oslo, Rome
    method = Pram(matrices={"city": given, "kids": np.eye(6)})
    observed, held = transitions(method, cities.protect_first(2), 0)
    assert held.tolist() == [0, 2]
    assert within(observed, np.array(given)[held], rows=int(0.3 * N))
    assert observed[1, 1] == 0.0 and observed[0, 1] > 0  # Rome never becomes Oslo
    kids = method.protect(cities, np.random.default_rng(1)).values[:, 1]
    assert np.array_equal(kids, cities.protected_values[:, 1])  # the identity keeps them


def sdcmicro_invariant(diagonal, alpha, p):
    """sdcMicro's calcTransitionMatrix, loop for loop (R/pram.R)."""
    size = len(diagonal)
    forward = np.empty((size, size))
    for i in range(size):
        forward[i, :] = (1 - diagonal[i]) / (size - 1)
    np.fill_diagonal(forward, diagonal)
    backward = forward.copy()
    for k in range(size):
        s = sum(p * forward[:, k])
        for j in range(size):
            backward[k, j] = forward[j, k] * p[j] / s
    return alpha * forward @ backward + (1 - alpha) * np.eye(size)


def test_the_invariant_matrix_is_sdcmicros_and_keeps_the_frequencies():
    rng = np.random.default_rng(4)
    diagonal, p = rng.uniform(0.8, 1.0, 5), rng.dirichlet(np.ones(5))
    matrix = invariant_matrix(diagonal, 0.5, p)
    assert matrix == pytest.approx(sdcmicro_invariant(diagonal, 0.5, p), abs=1e-12)
    assert matrix.sum(axis=1) == pytest.approx(np.ones(5)) and (matrix >= 0).all()
    assert p @ matrix == pytest.approx(p, abs=1e-12)  # invariant: p·R = p
    # a category no record holds and no other can reach keeps the matrix stochastic
    absent = invariant_matrix(np.ones(3), 1.0, np.array([0.5, 0.5, 0.0]))
    assert np.array_equal(absent, np.eye(3))


def test_the_invariant_release_keeps_the_frequencies_in_expectation(cities):
    method = make_method("pram", {"pd": 0.5, "pram_alpha": 1.0})
    original = cities.protected_values[:, 0]
    released = method.protect(cities, np.random.default_rng(3)).values[:, 0]
    assert (released != original).mean() > 0.05
    for code in np.unique(original):
        share = (original == code).mean()
        assert abs((released == code).mean() - share) < 5 * math.sqrt(2 * share / N)


@pytest.mark.parametrize("params", [{"pd": 1.0}, {"pd": 0.3, "pram_alpha": 0.0}])
def test_an_identity_matrix_keeps_every_value(cities, params):
    released = make_method("pram", params).protect(cities, np.random.default_rng(0)).values
    assert np.array_equal(released, cities.protected_values)


def test_draws_are_exact_integer_thresholds():
    matrix = np.array([[0.2, 0.8, 0.0], [1 / 3, 1 / 3, 1 / 3], [0.0, 0.0, 1.0]])
    cut = thresholds(matrix)
    assert cut.dtype == np.int64 and (cut[:, -1] == SCALE).all()
    assert (np.diff(cut, axis=1) >= 0).all()
    sampled = as_sampled(matrix)
    assert sampled == pytest.approx(matrix, abs=2.0**-52)
    assert sampled[0, 2] == 0.0 and sampled[2, 0] == 0.0  # an impossible draw stays so
    assert (np.diff(cut, axis=1, prepend=0).sum(axis=1) == SCALE).all()


@pytest.mark.parametrize(("pd", "size"), [(0.8, 3), (0.5, 6), (0.9, 2)])
def test_the_keep_matrix_is_randomized_response_with_its_epsilon(cities, pd, size):
    expected = abs(math.log(pd * (size - 1) / (1 - pd)))
    assert local_epsilon_of(keep_matrix(pd, size)) == pytest.approx(expected, rel=1e-9)


def test_local_epsilon_is_stated_for_data_independent_matrices_only(cities):
    keep = make_method("pram", {"pd": 0.8}, {"matrix": "keep"})
    eps = keep.local_epsilon(cities)
    assert eps == pytest.approx([math.log(0.8 * 2 / 0.2), math.log(0.8 * 5 / 0.2)])
    assert local_epsilon_of(keep_matrix(1.0, 3)) == math.inf  # a category never left
    assert local_epsilon_of(keep_matrix(1 / 3, 3)) == pytest.approx(0.0, abs=1e-12)
    assert local_epsilon_of(np.ones((1, 1))) == 0.0
    with pytest.raises(ParameterError, match="matrix='invariant' is computed from the data"):
        make_method("pram", {}).local_epsilon(cities)


def test_the_guarantee_claims_local_dp_only_for_a_public_matrix():
    invariant = guarantee(make_method("pram", {}), 2)
    assert invariant.claimed == invariant.notion == NONE
    assert "depends on every record" in invariant.reason and "LDP" not in invariant.reason
    keep = guarantee(make_method("pram", {}, {"matrix": "keep"}), 2)
    assert keep.notion == NONE and "randomized response" in keep.reason
    assert "ε_A-LDP" in keep.reason and "declared public" in keep.reason
    assert "seed" in keep.caveat and keep.epsilon_total is None


def test_a_numerical_attribute_without_categories_is_refused():
    frame = pd.DataFrame({"x": [0.5, 1.25, 2.0], "n": [1, 2, 3]})
    data = build_dataset("t", frame, ["x", "n"], domains={"x": [0, 3], "n": [0, 3]})
    with pytest.raises(ParameterError, match="attribute 'x' is numerical without them"):
        make_method("pram", {}).check(data)
    wide = build_dataset("t", frame, ["n"], domains={"n": [0, 5000]}, integer=True)
    with pytest.raises(ParameterError, match="5,001 whole numbers"):
        make_method("pram", {}).check(wide)
    assert "needs-categories" in Pram.tags()


@pytest.mark.parametrize(
    ("matrices", "message"),
    [
        ({"city": [[0.5, 0.5, 0.0], [0, 1, 0], [0.2, 0.2, 0.5]]}, r"row 2 sums to 0\.9, not 1"),
        ({"city": [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]}, r"has shape \(3, 2\): .* square"),
        ({"city": [[1.5, -0.5], [0.0, 1.0]]}, "every entry must be a probability"),
        ({"city": "identity"}, "is not a matrix of numbers"),
        ([[1.0]], "matrices must be a mapping"),
    ],
)
def test_a_bad_matrix_is_one_error_naming_it(matrices, message):
    with pytest.raises(ParameterError, match=message) as error:
        Pram(matrices=matrices)
    assert "matrices" in str(error.value)


def test_a_matrix_must_span_the_declared_categories(cities):
    with pytest.raises(ParameterError) as error:
        Pram(matrices={"city": np.eye(2)}).check(cities)
    assert str(error.value) == (
        "matrices['city'] is 2 × 2, but attribute 'city' has 3 declared categories; its "
        "rows and columns are, in order: ['Milan', 'Oslo', 'Rome']"
    )
    with pytest.raises(ParameterError, match=r"matrices\['town'\]: data set 'cities' has no"):
        Pram(matrices={"town": np.eye(2)}).check(cities)


def test_the_same_seed_draws_alike_and_a_frozen_matrix_is_hashable(cities):
    method = Pram(pd=0.5, matrices={"kids": keep_matrix(0.5, 6)})
    assert hash(method) == hash(Pram(pd=0.5, matrices=dict(method.matrices)))
    first, again = (method.protect(cities, np.random.default_rng(9)).values for _ in "12")
    assert np.array_equal(first, again)
