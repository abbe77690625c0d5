"""The audited data set and its neighbours: one record REPLACED, n public.

A small numeric data set drawn from a seed on a public domain [low, high] (the same
domain for every attribute), and its neighbours in which one record is moved to the
domain's low or high end in every attribute: the worst case of DP-IR §3.1 (a record that
changes in every attribute), and, for a record from the middle of the ranking, a change
that shifts it across every cluster boundary between its place and the end (the
re-ranking of experiments/idp_reranking_audit.py).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from anonlab.datasets import Dataset, build_dataset

ENDS = ("low", "high")
#: how the audited records are drawn (:func:`audit_dataset`), the default first
DESIGNS = ("outlier", "uniform")


def attribute_names(m: int) -> list[str]:
    """Column names of the audited attributes: ``a1`` … ``am``."""
    return [f"a{j + 1}" for j in range(m)]


def make_dataset(values: np.ndarray, low: float, high: float) -> Dataset:
    """The ``(n, m)`` ``values`` as a data set with the public domain [low, high] for
    every attribute."""
    names = attribute_names(values.shape[1])
    frame = pd.DataFrame(values, columns=names)
    return build_dataset("audit", frame, names, domains=dict.fromkeys(names, [low, high]))


def audit_dataset(
    n: int, m: int, low: float, high: float, seed: np.random.SeedSequence, design: str = DESIGNS[0]
) -> Dataset:
    """n records of m attributes drawn from ``seed`` on [low, high].

    ``uniform``: every record uniform on the domain. ``outlier``: n − 1 records uniform on
    the middle tenth of the domain and the last one at 1% of its width above ``low``:
    moving that record to ``high`` shifts it across every cluster, and the clusters of
    the middle get iDP-LS's smallest local sensitivities (about half of DP-UM's). With
    the defaults (n = 30, k = 3, [0, 100], seed 0) and ε = 1, that move gives iDP-LS's
    centroid list an exact loss of at least 2.88 as implemented (each data set's own
    scale) and 1.45 with the scale of D for both (iDP Proposition 1's reading); 1.80 and
    1.29 for ``uniform`` (``python -m anonlab.audit exact method=idp_ls [data=uniform]``;
    more designs: ``python -m anonlab.experiments.idp_reranking_audit --exact``). The
    values are not whole numbers, so no method rounds them.
    """
    rng = np.random.default_rng(seed)
    width = high - low
    if design == "uniform":
        values = rng.uniform(low, high, size=(n, m))
    else:
        values = rng.uniform(low + 0.45 * width, low + 0.55 * width, size=(n, m))
        values[-1] = low + 0.01 * width
    return make_dataset(values, low, high)


@dataclass(frozen=True)
class Neighbour:
    """D' = D with record ``record`` moved to the domain's ``end`` (``low``/``high``) in
    every attribute."""

    record: int
    end: str
    original: tuple[float, ...]
    dataset: Dataset

    @property
    def label(self) -> str:
        """E.g. ``record 7 (x=3.21) -> high``."""
        shown = ", ".join(f"{v:.4g}" for v in self.original)
        return f"record {self.record} (x={shown}) -> {self.end}"


def neighbour(dataset: Dataset, record: int, end: str) -> Neighbour:
    """The neighbour of ``dataset`` with ``record`` moved to ``end`` in every attribute."""
    low, high = dataset.protected_attributes[0].domain
    values = np.array(dataset.protected_values, copy=True)
    original = tuple(float(v) for v in values[record])
    values[record] = low if end == "low" else high
    return Neighbour(record, end, original, make_dataset(values, low, high))


def neighbours(dataset: Dataset) -> list[Neighbour]:
    """Every neighbour that moves one record to one end of the domain (2n of them)."""
    return [neighbour(dataset, record, end) for record in range(dataset.n) for end in ENDS]
