"""Reference formulas the tests check the vectorised code against, and stand-ins they
share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from anonlab.guarantee import NONE, Guarantee
from anonlab.methods.base import Method, Release


@dataclass(frozen=True)
class SyntheticStandIn(Method):
    """A stand-in synthetic-data method: the records shuffled (with their classes), so
    they correspond to no one."""

    name: ClassVar[str] = "synthetic_stand_in"
    axes: ClassVar[tuple[str, ...]] = ()
    record_aligned: ClassVar[bool] = False
    carries_class: ClassVar[bool] = True

    def claim(self, m):
        return Guarantee(NONE, NONE)

    def protect(self, dataset, rng):
        order = rng.permutation(dataset.n)
        target = None if dataset.target is None else dataset.target.to_numpy()[order]
        return Release(dataset, dataset.protected_values[order], target=target)


def direct_emd(cluster: np.ndarray, whole: np.ndarray) -> float:
    """TCM §2.2: 1/(m − 1) Σ_i |Σ_{j≤i} (p_j − q_j)| over the m distinct values."""
    values = np.unique(whole)
    p = (cluster[:, None] == values).mean(axis=0)  # p_j: the share of the cluster at value j
    q = (whole[:, None] == values).mean(axis=0)
    return float(np.abs(np.cumsum(p - q)).sum() / max(len(values) - 1, 1))


#: a census_ir run of 8 jobs (ir is deterministic: one repetition), one worker
SMALL_RUN = (
    "+experiment=census_ir",
    "grid.k=[2,10]",
    "grid.epsilon=[1.0]",
    "grid.m=[1]",
    "reps=2",
    "n_jobs=1",
)
