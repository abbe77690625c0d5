"""l-diversity of a release (Machanavajjhala, Kifer, Gehrke & Venkitasubramaniam 2007,
"l-diversity: privacy beyond k-anonymity", ACM TKDD 1(1)): how varied the confidential
values are within each group of records an intruder cannot tell apart.

The groups (option ``unit``) are the released equivalence classes, the records whose
released quasi-identifiers are identical (TCM §2.1; the default, defined for any release
that keeps each record's place), or the clusters of a record-level partition. The
confidential attributes are those with role ``confidential`` (TCM §2: the attributes
whose disclosure t-closeness limits), as released. With several, each is taken alone as
the only confidential attribute and the least l is reported, as pycanon does;
Machanavajjhala et al.'s §4.3 multi-attribute definition, which also treats the other
confidential attributes as quasi-identifiers, is stricter.
"""

from __future__ import annotations

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.metrics.base import ReleaseMetric
from anonlab.metrics.clusters import unit_groups
from anonlab.partition import distinct_l, entropy_l, role_columns
from anonlab.release import Release

#: the groups l is measured on (the first the default): released equivalence classes, or
#: the method's clusters
UNIT_CHOICES: tuple[str, ...] = ("class", "cluster")
REQUIRES = ("quasi_identifier", "confidential", "record_correspondence")


def l_distinct(view: Dataset, release: Release, unit: str = UNIT_CHOICES[0]) -> float:
    """Distinct l-diversity (Machanavajjhala et al. 2007, §4.1): the fewest distinct
    released confidential values in a group of ``unit``."""
    groups = unit_groups(view, release, unit, "l_distinct")
    return float(distinct_l(groups, role_columns(view, release.values, "confidential")))


def l_entropy(view: Dataset, release: Release, unit: str = UNIT_CHOICES[0]) -> float:
    """Entropy l-diversity (Machanavajjhala et al. 2007, Def. 4.1: every group's entropy
    of its confidential values ≥ log l): exp of the least entropy over the groups of
    ``unit``, the largest such l (1 for a group with one value, its size when all its
    values differ)."""
    groups = unit_groups(view, release, unit, "l_entropy")
    return entropy_l(groups, role_columns(view, release.values, "confidential"))


L_DISTINCT = ReleaseMetric(
    "l_distinct",
    l_distinct,
    "distinct l-diversity: fewest distinct confidential values in a released equivalence "
    "class or a cluster (option unit) (Machanavajjhala et al. 2007)",
    option_choices={"unit": UNIT_CHOICES},
    requires=REQUIRES,
    label="Distinct l-diversity",
    cost=Cost("n*log(n)*m", seconds=3e-8),  # released rows grouped into classes
)
L_ENTROPY = ReleaseMetric(
    "l_entropy",
    l_entropy,
    "entropy l-diversity: exp of the least entropy of the confidential values in a "
    "released equivalence class or a cluster (option unit) (Machanavajjhala et al. 2007)",
    option_choices={"unit": UNIT_CHOICES},
    requires=REQUIRES,
    label="Entropy l-diversity",
    cost=Cost("n*log(n)*m", seconds=3e-8),  # released rows grouped into classes
)
