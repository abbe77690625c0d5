"""What a release's partition reaches: its smallest cluster (k), its largest cluster EMD
(t) and its fewest distinct confidential values (l), from its ``(n, m)`` cluster labels.

Shared by the guarantee a release carries (:mod:`anonlab.methods.guarantees`) and by the
cluster metrics (:mod:`anonlab.metrics.clusters`), which state their own errors.
"""

from __future__ import annotations

import numpy as np

from anonlab.datasets import Dataset
from anonlab.tcloseness import OrderedEMD


def smallest_cluster(labels: np.ndarray) -> int:
    """Size of the smallest cluster over every attribute's partition: the k-anonymity
    level reached (TCM Tables 1–3, "min")."""
    return int(min(np.bincount(labels[:, j]).min() for j in range(labels.shape[1])))


def confidential_column(view: Dataset) -> int | None:
    """Position in ``view.attributes`` of the first confidential attribute, if any."""
    return next((j for j, a in enumerate(view.attributes) if a.role == "confidential"), None)


def largest_emd(view: Dataset, labels: np.ndarray, ground: str = "distinct") -> float:
    """Largest EMD between a cluster's confidential values and the whole data set's (TCM
    §2.2) for a record-level partition (``labels[:, 0]``); the release is t-close iff this
    is ≤ t. ``ground``: :class:`~anonlab.tcloseness.OrderedEMD`'s."""
    j = confidential_column(view)
    if j is None:
        raise ValueError(f"dataset {view.name!r} has no confidential attribute")
    emd = OrderedEMD(view.frame[view.attributes[j].name].to_numpy(dtype=float), ground)
    return float(emd.of_partition(labels[:, 0]).max())


def fewest_distinct(view: Dataset, labels: np.ndarray) -> int | None:
    """The distinct l-diversity a record-level partition reaches: the fewest distinct
    values of the confidential attribute in one cluster (``None`` without one)."""
    j = confidential_column(view)
    if j is None:
        return None
    values = view.frame[view.attributes[j].name].to_numpy()
    clusters = np.asarray(labels)[:, 0]
    _, codes = np.unique(values, return_inverse=True)
    pairs = np.unique(np.stack([clusters, codes]), axis=1)
    return int(np.bincount(pairs[0]).min())


__all__ = ["confidential_column", "fewest_distinct", "largest_emd", "smallest_cluster"]
