"""The compiled TCM Algorithm 2 (anonlab/tcloseness/kfirst.py) gives the partitions of the
NumPy loop it replaced (benchmarks/references/reference_kfirst.py), ties included: random data drawn
from a few values, so distances and confidential values tie exactly, under both EMD
grounds; and the compiled EMD arithmetic is OrderedEMD's to the bit."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.tcloseness import kfirst
from anonlab.tcloseness.emd import OrderedEMD, counts_emd
from anonlab.tcloseness.kfirst import k_anonymity_first
from benchmarks.references.reference_kfirst import k_anonymity_first_numpy
from tests.properties import examples

SETTINGS = settings(max_examples=examples(100))


@st.composite
def tied_cases(draw):
    n = draw(st.integers(1, 70))
    d = draw(st.integers(1, 4))
    qi = draw(arrays(float, (n, d), elements=st.sampled_from([0.0, 1.0, 2.0, 3.5, -1.5])))
    confidential = draw(
        arrays(
            float,
            n,
            elements=st.sampled_from(
                [0.0, 1.0, 2.0, 5.0, 8.0] if draw(st.booleans()) else [0.0, 1.0]
            ),
        )
    )
    k = draw(st.integers(1, min(n, 4)) if draw(st.booleans()) else st.integers(1, n))
    t = draw(st.floats(0.005, 1.0))
    return qi, confidential, k, t, draw(st.sampled_from(["distinct", "rank"]))


@SETTINGS
@given(tied_cases(), st.sampled_from([kfirst._PREFIX, 0, 1, 3, 200]))
def test_compiled_algorithm_2_is_the_numpy_loop(case, prefix):
    """Also with other numbers of sorted candidates, so the searches beyond them (by bin
    and over the whole pool) and the sorting of many candidates run on small data."""
    qi, confidential, k, t, ground = case
    with mock.patch.object(kfirst, "_PREFIX", prefix):
        labels = k_anonymity_first(qi, confidential, k, t, ground)
    np.testing.assert_array_equal(labels, k_anonymity_first_numpy(qi, confidential, k, t, ground))


@pytest.mark.parametrize(
    ("k", "t", "ground", "seed"),
    [
        (2, 0.05, "distinct", 1),  # many swaps per cluster, searches over the whole pool
        (3, 0.2, "distinct", 2),
        (2, 0.3, "rank", 3),
    ],
)
def test_compiled_algorithm_2_on_larger_tied_data(k, t, ground, seed):
    rng = np.random.default_rng(seed)
    n = 1500
    qi = np.column_stack(
        [rng.integers(0, 6, n), rng.integers(0, 2, n), rng.gamma(2.0, 3.0, n).round()]
    ).astype(float)
    confidential = np.minimum(rng.geometric(0.15, n), 40).astype(float)  # ~35 values
    np.testing.assert_array_equal(
        k_anonymity_first(qi, confidential, k, t, ground),
        k_anonymity_first_numpy(qi, confidential, k, t, ground),
    )


def test_the_emd_arithmetic_is_ordered_emds():
    """The cluster EMD (NumPy's pairwise sum) and the swap changes, bit for bit, over bin
    counts long enough for the pairwise sum to split (m > 128), the prefix sums also
    recomputed from the lower bin of a swap only; the improving bins are those of the
    whole table of changes."""
    rng = np.random.default_rng(0)
    tolerance = 1e-13
    for m in (1, 5, 77, 129, 300, 1031):
        emd = OrderedEMD(rng.integers(0, m, 4 * m).astype(float) if m > 1 else np.zeros(3))
        norm = float(max(emd.m - 1, 1))
        cum, up, down = (np.full(length, np.nan) for length in (emd.m, emd.m + 1, emd.m + 1))
        counts = rng.integers(0, 3, emd.m).astype(float)
        counts[rng.integers(emd.m)] += 1.0
        size = counts.sum()
        kfirst._swap_prefixes(counts, size, emd.global_cdf, cum, up, down, 0)
        for _ in range(5):
            work = np.empty(emd.m)
            assert counts_emd(counts, emd.global_cdf, norm, work) == emd.of_counts(counts)
            add, remove = rng.integers(0, emd.m, 20), rng.integers(0, emd.m, 20)
            table = emd.swap_deltas(counts, add, remove)
            for i, a in enumerate(add):
                for j, r in enumerate(remove):
                    assert kfirst._delta(up, down, a, r, norm) == table[i, j]
            members = np.repeat(np.arange(emd.m), counts.astype(int))
            available = rng.integers(0, 2, emd.m)
            improving = np.empty(emd.m, dtype=bool)
            found = kfirst._improving_bins(
                up,
                down,
                members,
                available,
                norm,
                tolerance,
                improving,
                np.empty(int(size) + 1),
                np.empty(int(size)),
            )
            full = emd.swap_deltas(counts, np.arange(emd.m), members)
            expected = (full.min(axis=1) < -tolerance) & (available > 0)
            np.testing.assert_array_equal(improving, expected)
            assert found == expected.any()
            gone = int(rng.choice(members))  # a swap: one record of bin gone leaves
            come = int(rng.integers(emd.m))
            counts[gone] -= 1.0
            counts[come] += 1.0
            kfirst._swap_prefixes(counts, size, emd.global_cdf, cum, up, down, min(gone, come))
