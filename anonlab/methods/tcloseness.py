"""k-anonymous t-closeness through microaggregation, TCM Algorithms 1–3, as methods: the
quasi-identifiers are replaced by their cluster centroids and the confidential attribute
is released unchanged (TCM §4).

Option ``ground`` (all four): the EMD's ground distance, ``distinct`` (default: bins are the
confidential attribute's distinct values, TCM §2.2) or ``rank`` (bins are the records' ranks,
as the proofs of TCM Propositions 1–2 count them); they differ only with tied confidential
values (:mod:`anonlab.tcloseness.emd`). The metric ``max_emd`` must use the same one in a
run (checked when the experiment is built).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from typing import ClassVar

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.guarantee import T_CLOSENESS, TIES, Guarantee
from anonlab.methods.base import Method, Release, postprocess
from anonlab.microaggregation import cluster_means
from anonlab.tcloseness import GROUNDS
from anonlab.validation import ParameterError, check_int

Algorithm = Callable[..., np.ndarray]  # (qi, confidential, k, t[, ground]) -> labels


def roles(dataset: Dataset) -> tuple[list[int], str]:
    """Positions (among the protected attributes) of the numerical quasi-identifiers, and
    the name of the single confidential attribute."""
    qis = [j for j, a in enumerate(dataset.protected_attributes) if a.role == "quasi_identifier"]
    confidential = [a.name for a in dataset.attributes if a.role == "confidential"]
    if not qis or len(confidential) != 1:
        raise ParameterError(
            f"dataset {dataset.name!r} needs quasi-identifiers and exactly "
            "one confidential attribute (dataset.roles) for t-closeness"
        )
    if any(dataset.protected_attributes[j].categorical for j in qis):
        raise ParameterError("t-closeness methods handle numerical quasi-identifiers only")
    return qis, confidential[0]


@dataclass(frozen=True)
class TCloseness(Method):
    """A t-closeness microaggregation algorithm on the quasi-identifiers (TCM §5–7)."""

    k: int
    t: float
    ground: str = GROUNDS[0]
    axes: ClassVar[tuple[str, ...]] = ("k", "t")
    randomized: ClassVar[bool] = False
    partition: ClassVar[str | None] = "record"
    option_choices: ClassVar[dict[str, tuple[str, ...]]] = {"ground": GROUNDS}
    #: the algorithm, ``"<module of anonlab.tcloseness>:<function>"``, imported (with its
    #: compiled loops and numba) when a release is made, not when the method registry is
    algorithm: ClassVar[str]
    numeric_only: ClassVar[bool] = True
    needs_roles: ClassVar[tuple[str, ...]] = ("quasi_identifier", "confidential")
    computes_emd: ClassVar[bool] = True  # whether the algorithm takes the ground distance
    # MDAV-like clustering, n²/k distances (as :class:`~anonlab.methods.multivariate.Mdav`),
    # then the EMD checks and merges or swaps
    cost: ClassVar[Cost] = Cost("n^2/k*(m+20)", seconds=2.5e-10)

    #: what the algorithm's claim rests on (``None``: nothing beyond TCM's proofs)
    caveat: ClassVar[str | None] = None

    def claim(self, m: int) -> Guarantee:
        # TCM §5–7: k-anonymity and t-closeness, t checked on every cluster
        return Guarantee(
            T_CLOSENESS,
            T_CLOSENESS,
            k=self.k,
            t=self.t,
            ground=self.ground,
            t_unit="cluster",
            ties=TIES[self.ground],
            caveat=self.caveat,
        )

    def check_dataset(self, dataset: Dataset) -> None:
        """Numerical quasi-identifiers and one numerical confidential attribute: MDAV means
        of the quasi-identifiers (TCM §4) and the ordered EMD of the confidential
        attribute (TCM §2.2) are defined on numbers only."""
        for attr in dataset.attributes:
            used = attr.role == "confidential" or (
                attr.role == "quasi_identifier" and attr.name in dataset.protected
            )
            if attr.categorical and used:
                raise ParameterError(
                    f"method {self.name!r} handles numerical attributes only; the "
                    f"{attr.role.replace('_', '-')} {attr.name!r} is categorical"
                )
        roles(dataset)

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        qis, confidential = roles(dataset)
        values = dataset.protected_values
        qi = values[:, qis]
        ground = {"ground": self.ground} if type(self).computes_emd else {}
        module, _, function = type(self).algorithm.partition(":")
        algorithm: Algorithm = getattr(import_module(f"anonlab.tcloseness.{module}"), function)
        labels = algorithm(
            qi,
            dataset.frame[confidential].to_numpy(dtype=float),
            check_int(self.k, "k", 1, dataset.n),
            self.t,
            **ground,
        )
        released = np.array(values, copy=True)
        released[:, qis] = cluster_means(qi, labels)[labels]  # centroids replace the QIs
        return Release(
            dataset,
            postprocess(dataset, released, noisy=False),
            labels=np.repeat(labels[:, None], values.shape[1], axis=1),
        )


@dataclass(frozen=True)
class TCloseMerge(TCloseness):
    """TCM Algorithm 1: MDAV, then merge the cluster farthest from t-closeness with its
    nearest cluster until every cluster is t-close (§5)."""

    name: ClassVar[str] = "tclose_merge"
    label: ClassVar[str] = "Alg. 1 (merge)"
    colour: ClassVar[str | None] = "#bbcc33"  # pear
    marker: ClassVar[str | tuple[int, int, float] | None] = "8"  # octagon
    algorithm: ClassVar[str] = "merge:tclose_merge"


@dataclass(frozen=True)
class TCloseKFirst(TCloseness):
    """TCM Algorithm 2 (k-anonymity first, record swaps) as the microaggregation of
    Algorithm 1, so the output is always t-close (§6)."""

    name: ClassVar[str] = "tclose_kfirst"
    label: ClassVar[str] = "Alg. 2 (k-anonymity first)"
    colour: ClassVar[str | None] = "#cab2d6"  # lavender
    marker: ClassVar[str | tuple[int, int, float] | None] = (4, 1, 45)  # 4-point star, 45°
    algorithm: ClassVar[str] = "kfirst:tclose_kfirst"
    cost: ClassVar[Cost] = Cost("n^2/k*(m+20)", seconds=3e-10)  # and its record swaps


@dataclass(frozen=True)
class TCloseTFirst(TCloseness):
    """TCM Algorithm 3 (t-closeness first): cluster size from Expressions (3)–(4), one
    record per confidential-attribute subset (§7). It computes no EMD (§7: "there is no
    need to compute any EMD distance"), so ``ground`` leaves its partition unchanged; it
    only has to agree with the ``max_emd`` metric's."""

    name: ClassVar[str] = "tclose_tfirst"
    caveat: ClassVar[str | None] = (
        "Algorithm 3 alone may exceed t with tied confidential values or when k' "
        "does not divide n (tclose_tfirst_merged does not)"
    )
    label: ClassVar[str] = "Alg. 3 (t-closeness first)"
    colour: ClassVar[str | None] = "#e31a1c"  # red
    marker: ClassVar[str | tuple[int, int, float] | None] = (6, 1, 0)  # 6-point star
    algorithm: ClassVar[str] = "tfirst:tclose_tfirst"
    computes_emd: ClassVar[bool] = False
    # clusters of k' = max(k, ⌈n/(2(n − 1)t + 1)⌉) ≈ max(k, 1/(2t)) records (Expression 3)
    cost: ClassVar[Cost] = Cost("n^2/max(k,1/(2*t))*(m+20)", seconds=1e-10)


@dataclass(frozen=True)
class TCloseTFirstMerged(TCloseness):
    """TCM Algorithm 3 followed by Algorithm 1's merging: t-close even with tied
    confidential values or k' not dividing n, where Algorithm 3 alone may exceed t."""

    name: ClassVar[str] = "tclose_tfirst_merged"
    label: ClassVar[str] = "Alg. 3 + merging"
    colour: ClassVar[str | None] = "#663333"  # dark red
    marker: ClassVar[str | tuple[int, int, float] | None] = ">"  # triangle right
    algorithm: ClassVar[str] = "tfirst:tclose_tfirst_merged"
    cost: ClassVar[Cost] = Cost("n^2/max(k,1/(2*t))*(m+20)", seconds=1.2e-10)
