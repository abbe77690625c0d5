"""Release-level metrics of clustered releases: cluster sizes, EMD, TCM's normalised SSE,
run time (TCM §8)."""

from __future__ import annotations

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.metrics.base import ReleaseMetric
from anonlab.partition import UNITS, class_labels, largest_emd, smallest_cluster
from anonlab.release import Release
from anonlab.tcloseness import GROUNDS
from anonlab.validation import ParameterError


def _labels(release: Release, metric: str) -> np.ndarray:
    labels = release.cluster_labels
    if labels is None:
        raise ParameterError(
            f"metric {metric!r} needs a clustering method; the release has no clusters"
        )
    return labels


def _role(view: Dataset, role: str, metric: str) -> list[int]:
    columns = [j for j, a in enumerate(view.attributes) if a.role == role]
    if not columns:
        raise ParameterError(
            f"metric {metric!r} needs an attribute with role {role!r} in dataset {view.name!r}"
        )
    return columns


def cluster_min(view: Dataset, release: Release) -> float:
    """Size of the smallest cluster, over every protected attribute's partition: the
    k-anonymity level actually reached (TCM Tables 1–3, "min")."""
    return float(smallest_cluster(_labels(release, "cluster_min")))


def cluster_mean(view: Dataset, release: Release) -> float:
    """Mean cluster size n / #clusters (TCM Tables 1–3, "avg"), averaged over the
    protected attributes' partitions."""
    labels = _labels(release, "cluster_mean")
    return float(np.mean([len(labels) / (labels[:, j].max() + 1) for j in range(labels.shape[1])]))


def unit_groups(view: Dataset, release: Release, unit: str, metric: str) -> np.ndarray:
    """Group of every record on ``unit`` (:data:`~anonlab.partition.UNITS`): its cluster
    (a record-level partition, one cluster per record) or its released equivalence class
    (the records whose released quasi-identifiers are identical, TCM §2.1)."""
    if unit == "class":
        _role(view, "quasi_identifier", metric)
        return class_labels(view, release.values)
    labels = _labels(release, metric)
    if (labels != labels[:, :1]).any():
        raise ParameterError(
            f"metric {metric!r} with unit 'cluster' needs a record-level partition (one "
            "cluster per record, as microaggregation of the quasi-identifiers gives); "
            "unit 'class' needs none"
        )
    return labels[:, 0]


def max_emd(
    view: Dataset, release: Release, ground: str = "distinct", unit: str = "cluster"
) -> float:
    """Largest EMD between a group's confidential values and the whole data set's (TCM
    §2.2): the release is t-close iff this is ≤ t. ``ground``: bins over the distinct
    values (TCM §2.2) or the records' ranks (TCM Propositions 1–2),
    :class:`~anonlab.tcloseness.OrderedEMD`; a run's t-closeness methods use the same
    one. ``unit``: the clusters (record-level partitions only) or the released
    equivalence classes (:func:`unit_groups`)."""
    groups = unit_groups(view, release, unit, "max_emd")
    _role(view, "confidential", "max_emd")
    return largest_emd(view, groups[:, None], ground)


def normalised_sse(view: Dataset, release: Release) -> float:
    """TCM Eq. (5): (1/n) Σ_records (1/m) Σ_QIs NED(a, a')², m the number of
    quasi-identifiers and NED the difference divided by the attribute's standard deviation
    in the original data (the paper does not say what NED normalises by)."""
    qis = [a.name for a in view.attributes if a.role == "quasi_identifier"]
    _role(view, "quasi_identifier", "sse_tcm")
    positions = [view.protected.index(name) for name in qis if name in view.protected]
    original = view.protected_values[:, positions]
    released = release.values[:, positions]
    std = original.std(axis=0)
    ned = (original - released) / np.where(std > 0, std, 1.0)
    return float(np.mean(np.mean(ned**2, axis=1)))


def runtime(view: Dataset, release: Release) -> float:
    """Seconds the method's ``protect`` took (TCM Fig. 5); not reproducible to the byte."""
    if release.seconds is None:
        raise ParameterError("metric 'runtime' needs the runner's timing of the release")
    return release.seconds


CLUSTER_MIN = ReleaseMetric(
    "cluster_min",
    cluster_min,
    "smallest cluster size",
    requires=("clusters",),
    label="Smallest cluster size",
    cost=Cost("n", seconds=1e-8, fixed=5e-5),  # a count of the labels
)
CLUSTER_MEAN = ReleaseMetric(
    "cluster_mean",
    cluster_mean,
    "mean cluster size",
    requires=("clusters",),
    label="Mean cluster size",
    cost=Cost("n", seconds=1e-8, fixed=5e-5),  # a count of the labels
)
MAX_EMD = ReleaseMetric(
    "max_emd",
    max_emd,
    "largest EMD of a cluster, or of a released equivalence class (option unit) "
    "(t-closeness level)",
    option_choices={"ground": GROUNDS, "unit": UNITS},
    requires=("record_partition", "confidential"),
    # the released equivalence classes need no clusters, but the released quasi-identifiers
    option_requires={
        "unit": {
            "cluster": ("record_partition", "confidential"),
            "class": ("quasi_identifier", "confidential", "record_correspondence"),
        }
    },
    label="Largest cluster EMD (t reached)",
    cost=Cost("n*log(n)", seconds=4e-8),  # the clusters' sorted confidential values
)
SSE_TCM = ReleaseMetric(
    "sse_tcm",
    normalised_sse,
    "TCM Eq. 5 normalised SSE of the QIs",
    requires=("quasi_identifier", "record_correspondence"),
    label="Normalised SSE (TCM Eq. 5)",
)
RUNTIME = ReleaseMetric(
    "runtime", runtime, "seconds of the method's protect call", measured=True, label="Run time (s)"
)
