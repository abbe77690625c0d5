"""What a release's partition reaches: its smallest group (k), its largest group EMD (t)
and its l-diversity (distinct and entropy l), from its ``(n, m)`` cluster labels or from
its released quasi-identifiers.

Two units of grouping (:data:`UNITS`): the **cluster** a method formed (TCM §4), and the
**released equivalence class**, the records whose released quasi-identifiers are identical
(TCM §2.1: "a set of records that share the quasi-identifier values"). Clusters whose
centroids coincide form one class, so a class is a union of clusters: its k is at least
theirs, its EMD at most their largest (the EMD to a fixed distribution is convex), its
distinct l at least theirs and its entropy at least their least (entropy is concave).

Shared by the guarantee a release carries (:mod:`anonlab.methods.guarantees`) and by the
cluster and diversity metrics (:mod:`anonlab.metrics`), which state their own errors.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anonlab.datasets import Dataset
from anonlab.guarantee import Levels
from anonlab.tcloseness import OrderedEMD

#: the groups k, t and l are measured on: the method's clusters, or the released
#: equivalence classes (records with identical released quasi-identifiers)
UNITS: tuple[str, ...] = ("cluster", "class")


def smallest_cluster(labels: np.ndarray) -> int:
    """Size of the smallest cluster over every attribute's partition: the k-anonymity
    level reached (TCM Tables 1–3, "min")."""
    return int(min(np.bincount(labels[:, j]).min() for j in range(labels.shape[1])))


def confidential_column(view: Dataset) -> int | None:
    """Position in ``view.attributes`` of the first confidential attribute, if any."""
    return next((j for j, a in enumerate(view.attributes) if a.role == "confidential"), None)


def role_columns(view: Dataset, values: np.ndarray | None, role: str) -> list[np.ndarray]:
    """The columns of the attributes with ``role``, as released: a protected attribute's
    from ``values`` (the release's ``(n, m)`` matrix; ``None``: the original's), another
    one's from the data, which the release copies (categorical labels as codes)."""
    columns = []
    for attribute in view.attributes:
        if attribute.role != role:
            continue
        if values is not None and attribute.name in view.protected:
            columns.append(np.asarray(values[:, view.protected.index(attribute.name)]))
        elif attribute.categorical:
            columns.append(np.unique(view.frame[attribute.name].to_numpy(), return_inverse=True)[1])
        else:
            columns.append(view.frame[attribute.name].to_numpy(dtype=float))
    return columns


def class_labels(view: Dataset, values: np.ndarray) -> np.ndarray:
    """Labels 0..c−1 of the released equivalence classes: records whose released
    quasi-identifiers (TCM §2.1) are identical share one."""
    columns = role_columns(view, values, "quasi_identifier")
    if not columns:
        raise ValueError(f"dataset {view.name!r} has no quasi-identifier")
    return np.unique(np.column_stack(columns), axis=0, return_inverse=True)[1].ravel()


def _pairs(groups: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (group, value) pairs: each pair's group, its count, and each group's
    size."""
    _, codes = np.unique(values, return_inverse=True)
    groups = np.asarray(groups, dtype=np.int64).ravel()
    key = groups * (int(codes.max(initial=0)) + 1) + codes.ravel()
    pairs, counts = np.unique(key, return_counts=True)
    return pairs // (int(codes.max(initial=0)) + 1), counts, np.bincount(groups)


def distinct_l(groups: np.ndarray, confidential: Sequence[np.ndarray]) -> int:
    """Distinct l-diversity (Machanavajjhala et al. 2007, §4.1 "distinct l-diversity"): the
    fewest distinct confidential values in a group, the least over the confidential
    attributes, each taken alone."""
    least = []
    for values in confidential:
        pair_group, _, sizes = _pairs(groups, values)
        least.append(np.bincount(pair_group, minlength=len(sizes))[sizes > 0].min())
    return int(min(least))


def entropy_l(groups: np.ndarray, confidential: Sequence[np.ndarray]) -> float:
    """Entropy l-diversity (Machanavajjhala et al. 2007, Def. 4.1: −Σ_s p(q, s) log p(q, s)
    ≥ log l in every group q): exp of the least entropy of a group's confidential values,
    the least over the confidential attributes, each taken alone."""
    least = []
    for values in confidential:
        pair_group, counts, sizes = _pairs(groups, values)
        share = counts / sizes[pair_group]
        # H(q) = −Σ_s p log p, over the values s present in group q (Def. 4.1)
        entropy = np.bincount(pair_group, -share * np.log(share), minlength=len(sizes))
        least.append(entropy[sizes > 0].min())
    return float(np.exp(min(least)))


def largest_emd(
    view: Dataset,
    labels: np.ndarray,
    ground: str = "distinct",
    unit_labels: np.ndarray | None = None,
) -> float:
    """Largest EMD between a group's confidential values and the whole data set's (TCM
    §2.2) for a record-level partition (``labels[:, 0]``, or the groups ``unit_labels``);
    the release is t-close iff this is ≤ t. ``ground``:
    :class:`~anonlab.tcloseness.OrderedEMD`'s."""
    j = confidential_column(view)
    if j is None:
        raise ValueError(f"dataset {view.name!r} has no confidential attribute")
    emd = OrderedEMD(view.frame[view.attributes[j].name].to_numpy(dtype=float), ground)
    groups = labels[:, 0] if unit_labels is None else unit_labels
    return float(emd.of_partition(np.asarray(groups, dtype=np.int64)).max())


def fewest_distinct(view: Dataset, labels: np.ndarray) -> int | None:
    """The distinct l-diversity a record-level partition reaches: the fewest distinct
    values of the confidential attribute(s) in one cluster (``None`` without one)."""
    confidential = role_columns(view, None, "confidential")
    if not confidential:
        return None
    return distinct_l(np.asarray(labels)[:, 0], confidential)


def levels(
    view: Dataset, labels: np.ndarray, values: np.ndarray, grounds: Sequence[str]
) -> tuple[Levels, ...]:
    """k, t and l of a record-level partition (``labels``) on each unit (:data:`UNITS`)
    and EMD ground: the clusters, and the equivalence classes of the released
    quasi-identifiers ``values``; l and t on the original confidential values, which the
    t-closeness methods release unchanged (TCM §4)."""
    confidential = role_columns(view, None, "confidential")
    out = []
    for unit in UNITS:
        groups = np.asarray(labels)[:, 0] if unit == "cluster" else class_labels(view, values)
        k = int(np.bincount(groups).min())
        l_distinct, l_entropy = distinct_l(groups, confidential), entropy_l(groups, confidential)
        for ground in grounds:
            t = largest_emd(view, labels, ground, unit_labels=groups)
            out.append(Levels(unit, ground, k, t, l_distinct, l_entropy))
    return tuple(out)


__all__ = [
    "UNITS",
    "class_labels",
    "confidential_column",
    "distinct_l",
    "entropy_l",
    "fewest_distinct",
    "largest_emd",
    "levels",
    "role_columns",
    "smallest_cluster",
]
