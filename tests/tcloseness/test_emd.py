"""Ordered EMD (TCM §2.2) and its incremental forms against the direct formula."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import direct_emd

from anonlab.tcloseness import OrderedEMD, proposition_1_bound, proposition_2_bound
from tests.properties import examples

SETTINGS = settings(max_examples=examples(80))


data = st.lists(st.integers(0, 6), min_size=3, max_size=25).map(np.array)


@SETTINGS
@given(data, st.data())
def test_emd_matches_the_formula(values, draw):
    emd = OrderedEMD(values)
    size = draw.draw(st.integers(1, len(values)))
    records = np.array(draw.draw(st.permutations(range(len(values)))))[:size]
    assert emd.of_records(records) == pytest.approx(direct_emd(values[records], values))
    labels = np.arange(len(values)) % 3
    np.testing.assert_allclose(
        emd.of_partition(labels), [direct_emd(values[labels == j], values) for j in range(3)]
    )


@SETTINGS
@given(data, st.data())
def test_swap_and_add_deltas_match_recomputation(values, draw):
    emd = OrderedEMD(values)
    size = draw.draw(st.integers(1, len(values) - 1))
    order = np.array(draw.draw(st.permutations(range(len(values)))))
    inside, outside = order[:size], order[size:]
    counts = emd.counts(inside)
    deltas = emd.swap_deltas(counts, emd.bins[outside], emd.bins[inside])
    base = emd.of_records(inside)
    for a, y in enumerate(outside):
        for r, z in enumerate(inside):
            swapped = np.append(inside[inside != z], y)
            assert base + deltas[a, r] == pytest.approx(emd.of_records(swapped), abs=1e-12)
    added = emd.add_emds(counts, emd.bins[outside])
    for a, y in enumerate(outside):
        assert added[a] == pytest.approx(emd.of_records(np.append(inside, y)), abs=1e-12)


def test_whole_data_set_has_zero_emd_and_bounds_are_ordered():
    values = np.arange(100.0)
    assert OrderedEMD(values).of_records(np.arange(100)) == pytest.approx(0.0)
    for k in (2, 5, 10):
        assert proposition_1_bound(100, k) <= proposition_2_bound(100, k)
    # k divides n: the medians of k equal subsets reach Proposition 1's bound
    medians = np.array([5, 15, 25, 35, 45, 55, 65, 75, 85, 95]) - 1
    assert OrderedEMD(values).of_records(medians) == pytest.approx(
        proposition_1_bound(100, 10), rel=0.02
    )
