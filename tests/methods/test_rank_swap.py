"""Rank swapping (Moore 1996) as sdcMicro's rankSwap with P: each value moves at most
p % of the ranks, every attribute keeps its multiset of values exactly, the compiled
swaps are sdcMicro's loop, p is checked."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from anonlab.datasets import build_dataset
from anonlab.guarantee import NONE
from anonlab.methods import make_method
from anonlab.methods.guarantees import guarantee
from anonlab.methods.rank_swap import RankSwap, rank_swap, swap_partners, window
from anonlab.validation import ParameterError


def reference_partners(n: int, width: int, uniforms: np.ndarray) -> np.ndarray:
    """sdcMicro's RankSwap loop as written (RankSwapping.h), a candidate list per rank:
    rank j not swapped yet takes a random one of the ranks j + 1 … j + width not swapped
    yet."""
    partner, free = list(range(n)), [True] * n
    for j in range(n):
        if not free[j]:
            continue
        free[j] = False
        candidates = [k for k in range(j + 1, min(n - 1, j + width) + 1) if free[k]]
        if candidates:
            k = candidates[min(int(uniforms[j] * len(candidates)), len(candidates) - 1)]
            partner[j], partner[k] = k, j
            free[k] = False
    return np.array(partner)


@pytest.mark.parametrize(("n", "width"), [(1, 0), (2, 1), (10, 3), (57, 7), (64, 5), (80, 80)])
def test_the_compiled_swaps_are_sdcmicros_loop(n, width):
    uniforms = np.random.default_rng(n + width).random(n)
    partner = swap_partners(n, width, uniforms)
    assert np.array_equal(partner, reference_partners(n, width, uniforms))
    assert np.array_equal(partner[partner], np.arange(n))  # swaps are pairs


@pytest.mark.parametrize("p", [1.0, 5.0, 20.0, 100.0])
def test_each_value_moves_at_most_p_percent_of_the_ranks(p):
    n = 500
    values = np.random.default_rng(3).permutation(np.arange(n) * 1.5 + 0.25)  # distinct
    released = rank_swap(values, p, np.random.default_rng(4))
    assert np.array_equal(np.sort(released), np.sort(values))  # the multiset, exactly
    rank_of = {v: r for r, v in enumerate(np.sort(values))}
    moved = np.array([abs(rank_of[a] - rank_of[b]) for a, b in zip(values, released, strict=True)])
    assert moved.max() <= p * n / 100
    assert (moved > 0).mean() > 0.9  # nearly every rank finds a partner


def test_a_release_keeps_each_attributes_values_and_swaps_them_independently():
    rng = np.random.default_rng(8)
    x = rng.normal(0, 1, 300).round(3)
    frame = pd.DataFrame({"a": rng.integers(0, 20, 300), "b": x, "c": x})
    domains = {"a": [0, 20], "b": [-9, 9], "c": [-9, 9]}
    data = build_dataset("swap", frame, ["a", "b", "c"], domains=domains)
    released = make_method("rank_swap", {"p": 10}).protect(data, np.random.default_rng(0)).values
    for j in range(3):  # ties included
        assert np.array_equal(np.sort(released[:, j]), np.sort(data.protected_values[:, j]))
    assert (released[:, 1] != x).mean() > 0.9
    # two equal attributes are swapped with draws of their own
    assert (released[:, 1] != released[:, 2]).mean() > 0.5


def test_a_window_below_one_rank_swaps_nothing():
    """p·n/100 < 1: no two ranks are eligible (sdcMicro's |i − j| ≤ P·N/100)."""
    assert window(5.0, 19) == 0 and window(5.0, 20) == 1
    values = np.arange(19.0)
    assert np.array_equal(rank_swap(values, 5.0, np.random.default_rng(0)), values)


def test_the_same_seed_swaps_alike_and_another_does_not():
    values = np.random.default_rng(1).normal(size=200)
    first, again = (rank_swap(values, 10, np.random.default_rng(7)) for _ in "12")
    assert np.array_equal(first, again)
    assert not np.array_equal(first, rank_swap(values, 10, np.random.default_rng(8)))


@pytest.mark.parametrize("bad", [0, 0.0, -1.0, 100.5, float("inf"), float("nan")])
def test_p_outside_0_100_is_one_error_naming_it(bad):
    with pytest.raises(ParameterError, match=r"p must be a number in \(0, 100\]") as error:
        make_method("rank_swap", {"p": bad})
    assert f"p={bad!r}" in str(error.value)
    assert make_method("rank_swap", {"p": 100}).p == 100.0


def test_the_guarantee_is_none_and_says_what_the_method_is():
    stated = guarantee(RankSwap(p=5.0), 2)
    assert stated.claimed == stated.notion == NONE
    assert "releases the data's own values" in stated.reason
    assert "no differential privacy" in stated.reason and "seed" in stated.caveat


def test_categorical_attributes_are_refused():
    frame = pd.DataFrame({"a": [1.0, 2.0, 3.0], "c": ["x", "y", "x"]})
    mixed = build_dataset("mixed", frame, ["a", "c"], categorical=["c"])
    with pytest.raises(ParameterError, match=r"numerical attributes only.*'c'"):
        make_method("rank_swap", {}).check(mixed)
