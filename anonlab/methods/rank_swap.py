"""Rank swapping (Moore 1996), as sdcMicro's ``rankSwap`` with its rank range ``P``: each
attribute is sorted on its own, and each value is swapped with one chosen at random among
the values at most p % of the n ranks away that are not swapped yet. Every attribute keeps
its multiset of values exactly; records are disturbed. Not differentially private: a
release is a permutation of the data's own values.

References: R. A. Moore, "Controlled data-swapping techniques for masking public use
microdata sets", U.S. Bureau of the Census, Statistical Research Division Report RR 96-04,
1996; J. Domingo-Ferrer and V. Torra, "A quantitative comparison of disclosure control
methods for microdata", in *Confidentiality, Disclosure and Data Access*, 2001.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonlab.axes import Axis
from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import NONE, Guarantee
from anonlab.methods.base import Method, Release

#: sdcMicro's ``P``: two values may be swapped if their ranks differ by at most p % of n
P = Axis(
    "p",
    float,
    low=0,
    high=100,
    closed="right",
    default=5.0,
    symbol="p",
    label="p (% of the ranks a value may move)",
    why="a percentage of the n ranks (sdcMicro rankSwap's P)",
    test_value=20.0,
    bad_values=(0.0, -5.0, 100.5),
)


def window(p: float, n: int) -> int:
    """The largest rank distance of a swap: ⌊p·n/100⌋ (sdcMicro: |i − j| ≤ P·N/100)."""
    return math.floor(p * n / 100.0)


def __getattr__(name: str) -> Any:
    """:func:`~anonlab.methods.kernels.swap_partners`, compiled (numba imported) only when
    asked for."""
    if name == "swap_partners":
        from anonlab.methods.kernels import swap_partners

        return swap_partners
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def rank_swap(values: np.ndarray, p: float, rng: np.random.Generator) -> np.ndarray:
    """``values`` (one attribute) rank-swapped with range p %: sorted from the largest
    (sdcMicro's order; ties in record order), each rank swapped by
    :func:`~anonlab.methods.kernels.swap_partners` with n uniforms drawn from ``rng``
    whether used or not."""
    from anonlab.methods.kernels import swap_partners  # numba, on first use

    n = len(values)
    order = np.argsort(-values, kind="stable")
    ranked = values[order]
    partner = swap_partners(n, window(p, n), rng.random(n))
    released = np.empty_like(values)
    released[order] = ranked[partner]
    return released


@dataclass(frozen=True)
class RankSwap(Method):
    """Rank swapping (Moore 1996; sdcMicro rankSwap with P): each attribute on its
    own, each value swapped with a random one at most p % of the n ranks away, so every
    attribute keeps its values exactly; not DP."""

    p: float = 5.0
    name: ClassVar[str] = "rank_swap"
    label: ClassVar[str] = "Rank swapping"
    colour: ClassVar[str | None] = "#ddcc77"  # sand (Paul Tol)
    marker: ClassVar[str | tuple[int, int, float] | None] = (5, 1, 180)  # 5-point star, upside down
    axes: ClassVar[tuple[str, ...]] = ("p",)
    own_axes: ClassVar[tuple[Axis, ...]] = (P,)
    cost: ClassVar[Cost] = Cost("n*log(n)*m", seconds=5.5e-8)  # a sort and a Fenwick tree
    numeric_only: ClassVar[bool] = True

    def claim(self, m: int) -> Guarantee:
        return Guarantee(
            NONE,
            NONE,
            caveat=(
                "a seeded release is reproduced by anyone who knows the seed, who can "
                "then undo its swaps and recover the original values"
            ),
            reason=(
                "perturbative SDC (rank swapping, Moore 1996; sdcMicro rankSwap): each "
                "attribute releases the data's own values exactly, exchanged between "
                "records of near ranks; nothing bounds what one record changes, so no "
                "differential privacy"
            ),
        )

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        values = dataset.protected_values
        released = np.empty_like(values, dtype=float)
        for j in range(values.shape[1]):
            released[:, j] = rank_swap(values[:, j], self.p, rng)
        return Release(dataset, released)  # the data's own values: within every domain
