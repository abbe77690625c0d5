"""Insensitive multivariate microaggregation as DP-IR §2.4 and §3.1 describe it.

Records are sorted by a total order defined on the *domain* only, never on the data, and
cut into consecutive groups of k (the last group absorbing the n mod k remaining records),
so changing one record moves it within the order and shifts every cluster by at most one
record. The order: distance to the domain's lower corner in domain-normalised units
((x − low)/Δ per attribute, Euclidean), ties broken lexicographically by the normalised
values, then by record index. For one attribute it is the numerical order, so ``imdav``
coincides with individual ranking (DP-IR §4.4: "for m = 1, both types of microaggregation
are equivalent").
"""

from __future__ import annotations

import numpy as np

from anonlab.microaggregation.individual_ranking import ranking_labels


def domain_order(values: np.ndarray, low: np.ndarray, width: np.ndarray) -> np.ndarray:
    """Record indices sorted by the domain-defined total order (see module docstring)."""
    unit = (np.asarray(values, dtype=float) - low) / width
    radius = np.sqrt((unit**2).sum(axis=1))
    # np.lexsort sorts by the last key first; it is stable, so record index breaks ties
    return np.lexsort([*unit.T[::-1], radius])


def insensitive_labels(
    values: np.ndarray, low: np.ndarray, width: np.ndarray, k: int
) -> np.ndarray:
    """Cluster label of each record: groups of k consecutive records in the domain order,
    ⌊n/k⌋ clusters of size k except the last (k..2k−1)."""
    return labels_in_order(domain_order(values, low, width), k)


def labels_in_order(order: np.ndarray, k: int) -> np.ndarray:
    """Cluster label of each record given the records in ``order``: groups of k
    consecutive records, the last absorbing the n mod k remaining ones."""
    labels = np.empty(len(order), dtype=np.int64)
    labels[order] = ranking_labels(len(order), k)
    return labels
