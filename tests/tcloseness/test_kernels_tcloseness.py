"""The compiled loops of TCM Algorithm 3 (tclose_tfirst) and of Algorithm 1's merging
(merge_until_t_close) give the partitions of the NumPy loops they replace
(benchmarks/references/reference_tcloseness.py), ties included: random data drawn from a few values,
so that many distances, EMDs and confidential values tie exactly, with both EMD grounds
and both roundings of Expression (4)."""

from __future__ import annotations

from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.microaggregation import mdav, standardise
from anonlab.microaggregation.kernels import pairwise_sum
from anonlab.tcloseness import GROUNDS, OrderedEMD, tfirst
from anonlab.tcloseness.merge import merge_until_t_close
from anonlab.tcloseness.tfirst import ROUNDINGS, tclose_tfirst, tclose_tfirst_merged
from anonlab.validation import ParameterError
from benchmarks.references.reference_tcloseness import (
    merge_until_t_close_numpy,
    tclose_tfirst_numpy,
)
from tests.properties import examples

SETTINGS = settings(max_examples=examples(100))

FEW = [0.0, 1.0, 2.0, 3.0, -1.5, 10.0]


def outcome(function, *args):
    """The labels, or the type of the exception raised."""
    try:
        return function(*args)
    except Exception as error:  # noqa: BLE001 - both loops must fail alike
        return type(error)


def assert_same(compiled, reference):
    if isinstance(reference, type):
        assert compiled is reference
    else:
        np.testing.assert_array_equal(compiled, reference)


@st.composite
def tied_data(draw, max_n: int = 40):
    """Quasi-identifiers (1 to 9 attributes: one and two padded distance blocks) and a
    confidential attribute drawn from a few values, and k, t."""
    n = draw(st.integers(1, max_n))
    d = draw(st.integers(1, 9))
    qi = draw(arrays(float, (n, d), elements=st.sampled_from(FEW)))
    confidential = draw(arrays(float, n, elements=st.sampled_from([0.0, 1.0, 2.0, 5.0, 7.5])))
    k = draw(st.integers(1, n))
    t = draw(st.one_of(st.sampled_from([0.02, 0.1, 0.25, 1.0]), st.floats(0.005, 1.0)))
    return qi, confidential, k, t


@SETTINGS
@given(tied_data(), st.sampled_from(ROUNDINGS), st.sampled_from([1, 2, 3, 256]))
def test_tfirst_kernel_is_the_numpy_loop(case, rounding, far_list):
    """Short candidate lists (``far_list``) make the search for the farthest record fall
    back on full passes, and stop at the end of the list, on small data too."""
    qi, confidential, k, t = case
    with mock.patch.object(tfirst, "_FAR_LIST", far_list):
        compiled = outcome(tclose_tfirst, qi, confidential, k, t, rounding)
    assert_same(compiled, outcome(tclose_tfirst_numpy, qi, confidential, k, t, rounding))


@st.composite
def partitions(draw, max_n: int = 40):
    """Tied data with MDAV's partition, or an arbitrary one (labels with gaps, in any
    order), and a ground."""
    qi, confidential, k, t = draw(tied_data(max_n))
    if draw(st.booleans()):
        labels = mdav(qi, k)
    else:
        labels = (
            np.array(draw(st.lists(st.integers(0, 12), min_size=len(qi), max_size=len(qi)))) * 3
        )
    if draw(st.booleans()):  # distinct confidential values too
        confidential = confidential + np.arange(len(qi)) * 1e-3
    return standardise(qi), labels, confidential, t, draw(st.sampled_from(GROUNDS))


@SETTINGS
@given(partitions())
def test_merge_kernel_is_the_numpy_loop(case):
    points, labels, confidential, t, ground = case
    emd = OrderedEMD(confidential, ground)
    assert_same(
        outcome(merge_until_t_close, points, labels, emd, t),
        outcome(merge_until_t_close_numpy, points, labels, emd, t),
    )


def larger(seed: int, m: int, tied: bool, n: int = 1500) -> tuple[np.ndarray, np.ndarray]:
    """n records: integer codes (many ties) or skewed one-decimal values, and a
    confidential attribute with 40 values or (almost) all distinct."""
    rng = np.random.default_rng(seed)
    if tied:
        qi = rng.integers(0, 5, size=(n, m)).astype(float)
        confidential = rng.integers(0, 40, size=n).astype(float)
    else:
        qi = rng.gamma(2.0, 10.0, size=(n, m)).round(1)
        confidential = rng.lognormal(3.0, 1.0, size=n).round(2)
    return qi, confidential


@pytest.mark.parametrize(
    ("k", "t", "rounding"),
    [
        (2, 0.25, "floor"),  # k' = 2: the longest loop, the list of far records renewed often
        (2, 0.03, "ceil"),  # k' = 18, 7 clusters with a second record from a central subset
        (7, 0.3, "ceil"),  # k' = 8, 5 such clusters
        (20, 0.3, "floor"),
    ],
)  # k' = 20
@pytest.mark.parametrize("tied", [True, False])
def test_tfirst_kernel_on_larger_data(k, t, rounding, tied):
    qi, confidential = larger(100 * k + int(100 * t), 7, tied, n=1501)
    np.testing.assert_array_equal(
        tclose_tfirst(qi, confidential, k, t, rounding),
        tclose_tfirst_numpy(qi, confidential, k, t, rounding),
    )


@pytest.mark.parametrize("ground", GROUNDS)
@pytest.mark.parametrize(("k", "t"), [(2, 0.02), (3, 0.1)])
@pytest.mark.parametrize("tied", [True, False])
def test_merge_kernel_on_larger_data(ground, k, t, tied):
    qi, confidential = larger(10 * k + int(100 * t), 7, tied)
    points, labels = standardise(qi), mdav(qi, k)
    emd = OrderedEMD(confidential, ground)
    np.testing.assert_array_equal(
        merge_until_t_close(points, labels, emd, t),
        merge_until_t_close_numpy(points, labels, emd, t),
    )


@pytest.mark.parametrize("ground", GROUNDS)
def test_tfirst_then_merging_on_larger_data(ground):
    qi, confidential = larger(7, 3, True)
    labels = tclose_tfirst_numpy(qi, confidential, 2, 0.05)
    expected = merge_until_t_close_numpy(
        standardise(qi), labels, OrderedEMD(confidential, ground), 0.05
    )
    np.testing.assert_array_equal(tclose_tfirst_merged(qi, confidential, 2, 0.05, ground), expected)


def test_pairwise_sum_is_numpys_sum():
    """Below 8 values, up to 128 and beyond (where NumPy splits the run in two)."""
    rng = np.random.default_rng(0)
    for n in [*range(1, 300), 1000, 1025, 4097, 23_435]:
        values = rng.lognormal(0.0, 3.0, size=n)
        start = int(rng.integers(0, n))
        assert pairwise_sum(values, 0, n) == values.sum()
        assert pairwise_sum(values, start, n - start) == values[start:].sum()


def test_non_finite_or_no_quasi_identifiers_are_refused():
    qi = np.array([[0.0], [np.nan], [1.0], [2.0]])
    with pytest.raises(ParameterError, match="finite"):
        tclose_tfirst(qi, np.arange(4.0), 2, 0.5)
    with pytest.raises(ValueError):  # the NumPy loop fails too
        tclose_tfirst_numpy(qi, np.arange(4.0), 2, 0.5)
    with pytest.raises(ParameterError, match="finite"):
        merge_until_t_close(qi, np.array([0, 0, 1, 1]), OrderedEMD(np.arange(4.0)), 0.1)
    with pytest.raises(ParameterError, match="at least one attribute"):
        tclose_tfirst(np.empty((4, 0)), np.arange(4.0), 2, 0.5)
    with pytest.raises(ParameterError, match="at least one attribute"):
        merge_until_t_close(
            np.empty((4, 0)), np.array([0, 0, 1, 1]), OrderedEMD(np.arange(4.0)), 0.1
        )
