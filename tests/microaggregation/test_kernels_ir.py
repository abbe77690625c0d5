"""The compiled individual ranking (radix sort, cluster spreading) gives exactly what the
plain NumPy code it replaced gives (benchmarks/references/reference_ir.py): the same stable order,
ranks, sorted values, labels, centroids and releases, bit for bit, on data drawn from a
few values so that most values tie, and on continuous data; ``ir`` and ``ir_laplace``
releases equal the reference's for the same seed (same noise draws)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from anonlab.datasets import build_dataset
from anonlab.methods import make_method
from anonlab.microaggregation import REMAINDERS, individual_ranking, sort_columns
from benchmarks.references.reference_ir import (
    individual_ranking_numpy,
    ir_laplace_numpy,
    ir_numpy,
    sort_columns_numpy,
)
from tests.properties import examples

# NaN and opposite infinities in a cluster make NaN centroids, in both implementations
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")

SETTINGS = settings(max_examples=examples(100))
METHOD_SETTINGS = settings(max_examples=examples(40))

#: few values, so most tie; −0.0 ties with 0.0, NaNs sort last, infinities at the ends
TIED = [0.0, -0.0, 1.0, 2.0, 2.5, -1.5, 10.0, 1e300, -1e-300]
SPECIAL = [np.nan, np.inf, -np.inf]


def same_bits(ours: np.ndarray, theirs: np.ndarray) -> None:
    """Equal shapes and values, bit for bit (−0.0 and NaN included)."""
    assert ours.shape == theirs.shape
    np.testing.assert_array_equal(
        np.ascontiguousarray(ours).view(np.uint8), np.ascontiguousarray(theirs).view(np.uint8)
    )


def tied_matrix(max_n: int = 120, max_m: int = 4, special: bool = True):
    """``(n, m)`` matrices of a few values per column, with an occasional continuous
    column, and k in 1..n."""
    elements = st.sampled_from(TIED + SPECIAL if special else TIED)
    columns = st.one_of(elements, st.floats(-1e6, 1e6, allow_nan=False))
    return st.integers(1, max_n).flatmap(
        lambda n: st.tuples(
            st.integers(1, max_m).flatmap(
                lambda m: st.one_of(
                    arrays(float, (n, m), elements=elements),
                    arrays(float, (n, m), elements=columns),
                )
            ),
            st.integers(1, n),
            st.sampled_from(REMAINDERS),
        )
    )


@SETTINGS
@given(tied_matrix())
def test_sort_is_numpys_stable_argsort(case):
    values, _, _ = case
    ours, theirs = sort_columns(values), sort_columns_numpy(values)
    np.testing.assert_array_equal(ours.order, theirs.order)
    np.testing.assert_array_equal(ours.ranks, theirs.ranks)
    same_bits(ours.ordered, theirs.ordered)


@SETTINGS
@given(tied_matrix())
def test_ranking_labels_centroids_and_release_are_the_reference(case):
    values, k, remainder = case
    ours = individual_ranking(values, k, remainder=remainder)
    theirs = individual_ranking_numpy(values, k, remainder=remainder)
    np.testing.assert_array_equal(ours.labels, theirs.labels)
    assert ours.labels.dtype == np.int32  # half the memory of the reference int64 labels
    same_bits(ours.centroids, theirs.centroids)
    same_bits(ours.release(), theirs.release())
    same_bits(ours.sums, np.add.reduceat(theirs.ordered, theirs.starts, axis=0))
    same_bits(ours.smallest(0), theirs.ordered[theirs.starts])
    same_bits(ours.largest(0), theirs.ordered[theirs.starts + theirs.sizes - 1])


@SETTINGS
@given(tied_matrix(special=False), st.integers(0, 2**32 - 1))
def test_spread_writes_given_centroids_into_given_columns(case, seed):
    values, k, remainder = case
    ranking = individual_ranking(values, k, remainder=remainder)
    theirs = individual_ranking_numpy(values, k, remainder=remainder)
    n, m = values.shape
    centroids = np.random.default_rng(seed).normal(size=ranking.centroids.shape)
    columns = list(range(1, 2 * m, 2))  # every other column of a wider matrix
    out = np.full((n, 2 * m), -7.0)
    ranking.spread(centroids, values=out, columns=columns)
    same_bits(out[:, columns], np.take_along_axis(centroids, theirs.labels, axis=0))
    assert (out[:, 0::2] == -7.0).all()


def test_sort_on_larger_tied_and_continuous_columns():
    """Many radix passes (continuous and signed columns, 64-bit keys), skipped passes
    (integers, a constant column), −0.0 beside 0.0 and NaNs, one column at a time and
    together."""
    rng = np.random.default_rng(3)
    n = 20_000
    signed = rng.normal(size=n)
    signed[::50] = -0.0
    special = rng.integers(-2, 3, size=n).astype(float)
    special[::97] = np.nan
    columns = [
        rng.gamma(2.0, 10.0, n).round(1),
        rng.gamma(2.0, 10.0, n),
        signed,
        rng.integers(0, 100_000, n).astype(float),
        np.full(n, 3.0),
        special,
        rng.integers(0, 4, n) * 2.0**40,
        rng.random(n) * 1e-300,
    ]
    values = np.column_stack(columns)
    for matrix in (values, values[:, 2], values[::-1]):
        ours, theirs = sort_columns(matrix), sort_columns_numpy(matrix)
        np.testing.assert_array_equal(ours.order, theirs.order)
        same_bits(ours.ordered, theirs.ordered)
    for k in (1, 3, 7, 100):
        for remainder in REMAINDERS:
            ours = individual_ranking(values, k, remainder=remainder)
            theirs = individual_ranking_numpy(values, k, remainder=remainder)
            np.testing.assert_array_equal(ours.labels, theirs.labels)
            same_bits(ours.centroids, theirs.centroids)
            same_bits(ours.release(), theirs.release())


def test_columns_subset_and_layout():
    """``columns`` keeps the selected columns' sort (the whole sort, uncopied, for every
    column); ``order`` is 32-bit below 2³¹ records and each column is contiguous."""
    values = np.random.default_rng(4).integers(0, 5, size=(300, 4)).astype(float)
    sorted_columns = sort_columns(values)
    assert sorted_columns.columns([0, 1, 2, 3]) is sorted_columns
    subset, reference = sorted_columns.columns([3, 1]), sort_columns_numpy(values[:, [3, 1]])
    np.testing.assert_array_equal(subset.order, reference.order)
    np.testing.assert_array_equal(subset.ranks, reference.ranks)
    same_bits(subset.ordered, reference.ordered)
    assert sorted_columns.order.dtype == np.int32
    assert sorted_columns.order.T.flags.c_contiguous
    assert "ordered" not in sorted_columns.__dict__  # the sorted values only on demand
    same_bits(sorted_columns.column(2), reference_column := np.sort(values[:, 2]))
    assert "ordered" not in sorted_columns.__dict__
    assert sorted_columns.ordered.T.flags.c_contiguous
    same_bits(sorted_columns.column(2), reference_column)
    labels = individual_ranking(values, 3, sorted_columns).labels
    assert labels.dtype == np.int32


@st.composite
def protected_data(draw):
    """A small data set: numerical columns of few (tied) non-negative values, possibly a
    text column; k, remainder and a seed."""
    n = draw(st.integers(2, 60))
    m = draw(st.integers(1, 3))
    frame = pd.DataFrame(
        draw(arrays(float, (n, m), elements=st.sampled_from([0.0, 1.0, 2.0, 2.5, 7.0]))),
        columns=[f"a{j}" for j in range(m)],
    )
    frame += 1.0  # positive maxima, for the [0, 1.5·max] domains
    categorical = draw(st.booleans())
    if categorical:
        frame["city"] = draw(st.lists(st.sampled_from(["x", "y", "z"]), min_size=n, max_size=n))
    dataset = build_dataset(
        "tied", frame, list(frame.columns), categorical=["city"] if categorical else None
    )
    return (
        dataset,
        draw(st.integers(1, n)),
        draw(st.sampled_from(REMAINDERS)),
        draw(st.integers(0, 2**32 - 1)),
    )


def same_release(ours, theirs) -> None:
    same_bits(ours.values, theirs.values)
    assert ours.labels is None  # computed on demand: the release holds no (n, m) labels
    np.testing.assert_array_equal(ours.cluster_labels, theirs.labels)
    assert ours.cluster_labels.dtype == np.int32  # the reference keeps int64 labels
    if theirs.scale is None:
        assert ours.scale is None
    else:
        same_bits(ours.scale, theirs.scale)


@METHOD_SETTINGS
@given(protected_data())
def test_ir_and_ir_laplace_releases_are_the_reference(case):
    dataset, k, remainder, seed = case
    ir = make_method("ir", {"k": k}, {"remainder": remainder})
    same_release(ir.protect(dataset, np.random.default_rng(seed)), ir_numpy(dataset, k, remainder))
    laplace = make_method("ir_laplace", {"k": k, "epsilon": 0.7}, {"remainder": remainder})
    ours_rng, their_rng = np.random.default_rng(seed), np.random.default_rng(seed)
    same_release(
        laplace.protect(dataset, ours_rng), ir_laplace_numpy(dataset, k, 0.7, their_rng, remainder)
    )
    # the same draws, in the same order: both generators end in the same state
    assert ours_rng.bit_generator.state == their_rng.bit_generator.state


@pytest.mark.parametrize("k", [1, 2, 5, 50])
def test_ir_laplace_on_a_larger_data_set(k):
    rng = np.random.default_rng(k)
    n = 5_000
    frame = pd.DataFrame(
        {
            "a": rng.gamma(2.0, 10.0, n).round(1),
            "b": rng.integers(0, 90, n).astype(float),
            "c": rng.gamma(2.0, 1000.0, n),
        }
    )
    dataset = build_dataset("larger", frame, ["a", "b", "c"])
    for seed in (0, 1):
        ours = make_method("ir_laplace", {"k": k, "epsilon": 1.0}).protect(
            dataset, np.random.default_rng(seed)
        )
        same_release(ours, ir_laplace_numpy(dataset, k, 1.0, np.random.default_rng(seed)))


@SETTINGS
@given(tied_matrix(special=False))
def test_cluster_sums_are_the_same_gathered_or_from_the_kept_sorted_values(case):
    """The first ranking of a sort gathers columns one at a time; later ones keep and sum
    the sorted matrix: the same bits."""
    values, k, remainder = case
    sorted_columns = sort_columns(values)
    first = individual_ranking(values, k, sorted_columns, remainder)
    assert "ordered" not in sorted_columns.__dict__
    second = individual_ranking(values, k, sorted_columns, remainder)
    assert "ordered" in sorted_columns.__dict__
    same_bits(first.centroids, second.centroids)
    same_bits(second.centroids, individual_ranking_numpy(values, k, remainder=remainder).centroids)
