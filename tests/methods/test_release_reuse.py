"""What a view keeps between the releases of a run changes no release: DP-IR Algorithm 1's
kept ranking and mechanism (the repetitions and the ε of one k cut the same clusters), the
guarantee computed once per method and view, and the rounding of every whole-numbered
column in one call."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import Dataset, build_dataset
from anonlab.methods import make_method, postprocess
from anonlab.methods.guarantees import of_release

pytestmark = pytest.mark.integration  # releases through the compiled kernels

RNG = np.random.default_rng(7)
COLUMNS = {
    "a": RNG.integers(0, 100, 60).astype(float),
    "b": RNG.normal(50, 10, 60).round(),
    "c": RNG.integers(0, 30, 60).astype(float),
}
DOMAINS = {"a": [0, 100], "b": [0, 100], "c": [0, 30]}


def view(integer: bool | list[str] = True) -> Dataset:
    return build_dataset(
        "t", pd.DataFrame(COLUMNS), list(COLUMNS), domains=DOMAINS, integer=integer
    )


def released(data: Dataset, k: int, epsilon: float, seed: int) -> np.ndarray:
    method = make_method("ir_laplace", {"k": k, "epsilon": epsilon})
    return np.asarray(method.release(data, np.random.default_rng(seed)).values)


def test_a_kept_ranking_gives_the_releases_of_fresh_views():
    shared = view()
    order = [(3, 1.0, 0), (3, 1.0, 1), (3, 0.1, 0), (5, 1.0, 0), (3, 1.0, 0), (5, 10.0, 2)]
    for k, epsilon, seed in order:  # one view, k changing back and forth
        np.testing.assert_array_equal(
            released(shared, k, epsilon, seed), released(view(), k, epsilon, seed)
        )


def test_a_release_leaves_the_kept_centroids_as_they_were():
    from anonlab.methods.individual_ranking import _numeric_ranking

    data = view()
    kept = _numeric_ranking(data, [0, 1, 2], 4, "last", keep=True)
    before = kept.centroids.copy()
    released(data, 4, 0.5, 3)
    assert _numeric_ranking(data, [0, 1, 2], 4, "last", keep=True) is kept
    np.testing.assert_array_equal(kept.centroids, before)


def test_the_guarantee_kept_by_a_view_is_the_one_computed_afresh():
    data = view()
    method = make_method("ir_laplace", {"k": 3, "epsilon": 1.0})
    release = method.protect(data, np.random.default_rng(0))
    first = of_release(method, release, generator="PCG64")
    again = of_release(method, method.protect(data, np.random.default_rng(1)), generator="PCG64")
    fresh_data = view()
    fresh = of_release(
        method, method.protect(fresh_data, np.random.default_rng(0)), generator="PCG64"
    )
    assert first is again and first == fresh
    assert first.generator == "PCG64"
    other = of_release(method, release, seeded=False, generator="Philox")
    assert other.generator == "Philox" and other.seeded is False and other != first


@pytest.mark.parametrize("integer", [True, ["a", "c"]])
def test_whole_numbers_are_rounded_as_column_by_column(integer):
    data = view(integer)
    values = np.random.default_rng(5).uniform(-10, 110, (60, 3))
    expected = values.copy()
    whole = [j for j, a in enumerate(data.protected_attributes) if a.integer]
    for j in whole:
        expected[:, j] = np.round(expected[:, j])
    low = np.array(
        [np.ceil(DOMAINS[n][0]) if j in whole else DOMAINS[n][0] for j, n in enumerate(COLUMNS)]
    )
    high = np.array(
        [np.floor(DOMAINS[n][1]) if j in whole else DOMAINS[n][1] for j, n in enumerate(COLUMNS)]
    )
    expected = np.minimum(np.maximum(expected, low), high)
    np.testing.assert_array_equal(postprocess(data, values, noisy=True), expected)
