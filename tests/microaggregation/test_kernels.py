"""The compiled kernels give the partitions of the NumPy loops they replace
(benchmarks/references/reference.py), ties included: random data drawn from a few values, so many
distances tie exactly."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.microaggregation import mdav
from anonlab.microaggregation.kernels import SMALL_K, centroid, sq_distances
from benchmarks.references.reference import mdav_numpy
from tests.properties import examples

SETTINGS = settings(max_examples=examples(150))

tied = st.integers(1, 80).flatmap(
    lambda n: st.tuples(
        arrays(
            float,
            st.tuples(st.just(n), st.integers(1, 5)),
            elements=st.sampled_from([0.0, 1.0, 2.0, 3.0, -1.5, 10.0]),
        ),
        st.integers(1, n),
    )
)


@SETTINGS
@given(tied)
def test_mdav_kernel_is_the_numpy_loop(case):
    values, k = case
    np.testing.assert_array_equal(mdav(values, k), mdav_numpy(values, k))


@pytest.mark.parametrize("k", [1, 2, 3, 7, SMALL_K, SMALL_K + 1, 40])
@pytest.mark.parametrize("m", [1, 3, 7])
def test_mdav_kernel_on_larger_tied_and_continuous_data(k, m):
    rng = np.random.default_rng(1000 * k + m)
    tied_values = rng.integers(0, 5, size=(1500, m)).astype(float)
    continuous = rng.gamma(2.0, 10.0, size=(1500, m)).round(1)
    for values in (tied_values, continuous):
        np.testing.assert_array_equal(mdav(values, k), mdav_numpy(values, k))


def test_the_arithmetic_is_the_sequential_sum():
    """Distances summed in attribute order and centroids in record order, bit for bit,
    whatever the layout (einsum and mean(axis=0) differ in the last bit)."""
    rng = np.random.default_rng(0)
    points, point = rng.normal(size=(500, 7)), rng.normal(size=7)
    expected = np.zeros(500)
    for j in range(7):
        expected = (
            expected + (points[:, j] - point[j]) ** 2 if j else (points[:, 0] - point[0]) ** 2
        )
    assert np.array_equal(sq_distances(points, point), expected)
    column = rng.normal(size=(1001, 1))
    total = 0.0
    for value in column[:, 0]:
        total += value
    assert centroid(column)[0] == total / 1001
