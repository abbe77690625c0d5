"""The compiled JSD (anonlab.metrics.kernels) gives exactly what the NumPy code it
replaced gives (benchmarks/references/reference_metrics.py), bit for bit, on releases with ties,
values outside the bins and constant columns; its rel_entr is scipy's (the pairwise sum
it shares with the EMDs is checked in tests/tcloseness/test_kernels_tcloseness.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.datasets import Attribute
from anonlab.metrics.jsd import jsd_against, jsd_reference
from anonlab.metrics.kernels import rel_entr
from benchmarks.references.reference_metrics import jsd_continuous_numpy
from tests.properties import examples

SETTINGS = settings(max_examples=examples(100))


@st.composite
def original_and_release(draw):
    """An original of n × m whole numbers in [0, 100] (many ties) and a release drawn
    from a few values, some outside the domain [0, 100] (rounded, clipped or not)."""
    n = draw(st.integers(1, 60))
    m = draw(st.integers(1, 5))
    original = draw(arrays(np.float64, (n, m), elements=st.integers(0, 100).map(float)))
    pool = st.sampled_from([-7.5, -0.5, 0.0, 0.25, 33.0, 50.0, 99.99, 100.0, 100.5, 1e9])
    released = draw(
        arrays(
            np.float64, (n, m), elements=st.one_of(pool, st.floats(-50.0, 150.0, allow_nan=False))
        )
    )
    return original, released


def attributes_of(m: int, discrete: tuple[int, ...] = ()) -> list[Attribute]:
    return [Attribute(f"a{j}", domain=(0.0, 100.0), discrete=j in discrete) for j in range(m)]


@SETTINGS
@given(data=original_and_release(), bins=st.sampled_from(["domain", "data_range"]))
def test_jsd_equals_numpy_to_the_bit(data, bins):
    original, released = data
    reference = jsd_reference(original, attributes_of(original.shape[1]), bins)
    np.testing.assert_array_equal(
        jsd_against(reference, released), jsd_continuous_numpy(reference, released)
    )


def test_jsd_of_mixed_attributes_keeps_each_kind_in_place():
    rng = np.random.default_rng(3)
    original = rng.integers(0, 100, size=(200, 4)).astype(float)
    released = original + rng.laplace(0.0, 5.0, size=original.shape)
    reference = jsd_reference(original, attributes_of(4, discrete=(1,)))
    out = jsd_against(reference, released)
    np.testing.assert_array_equal(out[[0, 2, 3]], jsd_continuous_numpy(reference, released))
    assert 0.0 <= out[1] <= 1.0 + 1e-12  # the discrete branch: one bin per value


@pytest.mark.filterwarnings("ignore:invalid value encountered in cast:RuntimeWarning")
def test_jsd_counts_nan_and_infinities_in_the_edge_bins():
    original = np.array([[0.0], [50.0], [100.0]])
    reference = jsd_reference(original, attributes_of(1))
    edges = np.array([[np.nan], [-np.inf], [np.inf]])
    inside = np.array([[0.0], [0.0], [100.0]])  # the same counts: 2 in bin 0, 1 in bin 99
    assert jsd_against(reference, edges) == jsd_against(reference, inside)
    np.testing.assert_array_equal(
        jsd_against(reference, edges), jsd_continuous_numpy(reference, edges)
    )


@SETTINGS
@given(x=st.floats(0.0, 1e300), y=st.floats(0.0, 1e300))
def test_rel_entr_is_scipys(x, y):
    from scipy.special import rel_entr as scipy_rel_entr

    assert rel_entr(x, y) == scipy_rel_entr(x, y)


def test_rel_entr_is_scipys_near_one_and_at_the_extremes():
    from scipy.special import rel_entr as scipy_rel_entr

    rng = np.random.default_rng(0)
    x = rng.random(2000)
    for y in (
        x * (1 + rng.standard_normal(2000) * 1e-3),
        rng.random(2000) * 1e-300,
        rng.random(2000) * 1e300,
        np.zeros(2000),
    ):
        ours = np.array([rel_entr(a, b) for a, b in zip(x, y, strict=True)])
        np.testing.assert_array_equal(ours, scipy_rel_entr(x, y))
    assert rel_entr(0.0, 0.0) == 0.0 and rel_entr(-1.0, 1.0) == np.inf
