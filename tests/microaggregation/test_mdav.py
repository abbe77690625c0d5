"""MDAV (TCM §2.3; Domingo-Ferrer & Torra 2005) against a straightforward reference."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.microaggregation import mdav, standardise
from tests.properties import examples

SETTINGS = settings(max_examples=examples(120))


def reference_mdav(values: np.ndarray, k: int) -> np.ndarray:
    """MDAV written as the textbook loop, one record at a time."""
    points = standardise(values)
    remaining = list(range(len(points)))
    labels = np.full(len(points), -1)

    def distance(i: int, point: np.ndarray) -> float:
        return float(np.sum((points[i] - point) ** 2))

    def farthest(point: np.ndarray) -> int:  # lowest index among ties
        return max(remaining, key=lambda i: (distance(i, point), -i))

    def group(seed: int, label: int) -> None:
        others = sorted(
            (i for i in remaining if i != seed), key=lambda i: (distance(i, points[seed]), i)
        )[: k - 1]
        for i in [seed, *others]:
            labels[i] = label
            remaining.remove(i)

    label = 0
    while len(remaining) >= 3 * k:
        r = farthest(points[remaining].mean(axis=0))
        group(r, label)
        s = farthest(points[r])
        group(s, label + 1)
        label += 2
    if len(remaining) >= 2 * k:
        group(farthest(points[remaining].mean(axis=0)), label)
        label += 1
    for i in list(remaining):
        labels[i] = label
        remaining.remove(i)
    return labels


small_data = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        arrays(
            float,
            st.tuples(st.just(n), st.integers(1, 4)),
            elements=st.sampled_from([0.0, 1.0, 2.0, 3.5, 7.0, 10.0, 25.0]),
        ),
        st.integers(1, n),
    )
)


@SETTINGS
@given(small_data)
def test_mdav_equals_the_reference_loop(case):
    values, k = case
    np.testing.assert_array_equal(mdav(values, k), reference_mdav(values, k))


@SETTINGS
@given(small_data)
def test_every_record_in_one_cluster_of_size_k_to_2k_minus_1(case):
    """All clusters have k records except the last, of k..2k−1; ⌊n/k⌋ clusters."""
    values, k = case
    labels = mdav(values, k)
    assert (labels >= 0).all()
    sizes = np.bincount(labels)
    assert len(sizes) == len(values) // k
    assert (sizes[:-1] == k).all() and k <= sizes[-1] <= 2 * k - 1


def test_mdav_separates_well_separated_groups():
    """Three tight groups of 3 far apart come out as the three clusters for k = 3."""
    rng = np.random.default_rng(0)
    centres = np.array([[0.0, 0.0], [100.0, 0.0], [0.0, 100.0]])
    values = np.repeat(centres, 3, axis=0) + rng.normal(0, 0.1, size=(9, 2))
    labels = mdav(values, 3)
    for g in range(3):
        assert len(set(labels[3 * g : 3 * g + 3])) == 1
    assert len(set(labels)) == 3


def test_standardise_handles_constant_columns():
    z = standardise(np.array([[1.0, 5.0], [3.0, 5.0]]))
    np.testing.assert_allclose(z, [[-1.0, 0.0], [1.0, 0.0]])
