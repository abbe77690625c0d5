"""A release's guarantee as data: what its paper claims (``claimed``) beside what holds for
the release as returned (``notion``), with the reason when they differ. Each method states
its own (:meth:`anonlab.methods.base.Method.claim`); :mod:`anonlab.methods.guarantees`
derives what holds from the release's form, sampler, bounds and randomness.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from anonlab.mechanisms.measurements import Measurement

DP = "ε-DP"
APPROX_DP = "(ε, δ)-DP"
IDP = "ε-iDP"
K_ANONYMITY = "k-anonymity of the protected attributes"
T_CLOSENESS = "k-anonymity and t-closeness"
NONE = "none"
#: the notions that bound a privacy loss ε
PRIVACY_NOTIONS = (DP, APPROX_DP, IDP)
#: every notion a guarantee may claim or hold
NOTIONS = (*PRIVACY_NOTIONS, K_ANONYMITY, T_CLOSENESS, NONE)


#: how an EMD ground treats tied confidential values (:attr:`Guarantee.ties`)
TIES = {"distinct": "shared_bin", "rank": "record_order"}


@dataclass(frozen=True)
class Levels:
    """The k-anonymity, t-closeness and l-diversity levels a release reaches on one unit
    and EMD ground.

    Attributes
    ----------
    unit : ``cluster`` (the method's clusters) or ``class`` (the released equivalence
        classes: records whose released quasi-identifiers are identical, TCM §2.1).
    ground : the EMD ground distance t is measured with (``distinct`` or ``rank``).
    k : the smallest group.
    t : the largest EMD between a group's confidential values and the data set's (TCM §2.2).
    l : distinct l-diversity, the fewest distinct confidential values in a group
        (Machanavajjhala et al. 2007, §4.1).
    entropy_l : entropy l-diversity, exp of the least entropy (natural log) of a group's
        confidential values (Machanavajjhala et al. 2007, Def. 4.1).
    """

    unit: str
    ground: str
    k: int
    t: float
    l: int  # noqa: E741 - l-diversity's own letter
    entropy_l: float


@dataclass(frozen=True)
class Guarantee:
    """The guarantee of one release.

    Attributes
    ----------
    notion : what holds for the release as returned: :data:`DP`, :data:`APPROX_DP`,
        :data:`IDP`, :data:`K_ANONYMITY`, :data:`T_CLOSENESS` or :data:`NONE`.
    claimed : what the method's paper claims for its mechanism (same vocabulary).
    epsilon_per_attribute, epsilon_total : the ε the claim spends on each protected
        attribute and on the record, by sequential composition over the m attributes
        (``None`` without noise; per attribute ``None`` for synthetic data).
    notion_epsilon : the ε in total for which ``notion`` holds (``None`` for a notion
        without ε); it can exceed ``epsilon_total`` (``imdav_laplace``).
    k, t : the k-anonymity and t-closeness levels: the targets for a method
        (:func:`guarantee`), the levels reached for a release (:func:`of_release`).
    caveat : conditions the notion rests on (public bounds, a seed), or ``None``.
    reason : why ``notion`` is weaker than ``claimed``, or ``None`` when it is not.
    delta : the δ of :data:`APPROX_DP`.
    form : the release form (records, shuffled_columns, shuffled_rows).
    sampler : the Laplace sampler (numpy, discrete), ``None`` without Laplace noise.
    seeded : whether the release's randomness came from a given seed (reproducible by
        anyone who knows it) rather than fresh OS entropy; ``None`` for a deterministic
        method and for a method's stated guarantee.
    record_aligned : whether released row i is a version of record i.
    ground, t_unit, l : t-closeness only: the EMD ground distance, the unit t is checked
        on (``cluster``: every cluster, so every released equivalence class, a union of
        clusters, is within it by the convexity of the EMD), and the distinct l-diversity
        reached on that unit (fewest distinct confidential values in a cluster).
    ties : t-closeness only: how the ground treats tied confidential values (:data:`TIES`):
        ``shared_bin`` (``distinct``: tied values are one bin, so t does not depend on the
        records' order) or ``record_order`` (``rank``: tied records take consecutive ranks
        in record order, so t depends on that order; ``levels`` then states t under the
        ``distinct`` ground too).
    levels : t-closeness of a release only: k, t, distinct and entropy l on each unit
        (``cluster``, and ``class``, the records with identical released
        quasi-identifiers) and ground, as :class:`Levels`; not a result-table column
        (the table keeps one row of guarantee columns per release).
    generator : the bit generator the release drew from (``chacha20``, a cryptographic
        generator; ``pcg64``, numpy's default, which is not), ``None`` for a
        deterministic method and a method's stated guarantee.
    spent, budget : a release charged to an accountant
        (:class:`~anonlab.accountant.BudgetAccountant`) only: the ε spent on its data by
        every release charged so far, this one included, by sequential composition
        (parallel over declared disjoint parts), and the accountant's total (``None``:
        no total).
    """

    notion: str
    claimed: str | None = None
    epsilon_per_attribute: float | None = None
    epsilon_total: float | None = None
    notion_epsilon: float | None = None
    k: int | None = None
    t: float | None = None
    caveat: str | None = None
    reason: str | None = None
    delta: float | None = None
    form: str = "records"
    sampler: str | None = None
    seeded: bool | None = None
    record_aligned: bool = True
    ground: str | None = None
    t_unit: str | None = None
    l: int | None = None  # noqa: E741 - l-diversity's own letter
    ties: str | None = None
    levels: tuple[Levels, ...] = ()
    generator: str | None = None
    spent: float | None = None
    budget: float | None = None

    def __post_init__(self) -> None:
        if self.claimed is None:
            object.__setattr__(self, "claimed", self.notion)

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (``DataFrame.attrs``, JSON)."""
        return asdict(self)

    def as_columns(self) -> dict[str, Any]:
        """The fields as result-table columns: ``guarantee`` (the notion as released) and
        ``guarantee_<field>`` (:data:`COLUMNS`)."""
        values = self.__dict__  # written per job: no asdict's deep copy
        return {
            "guarantee": self.notion,
            **{f"guarantee_{name}": values[name] for name in FIELDS[1:]},
        }


#: the fields in the result table's order (:meth:`Guarantee.as_columns`); ``ties``,
#: ``levels``, ``generator``, ``spent`` and ``budget`` are not among them: ``ties`` follows
#: from ``ground`` (:data:`TIES`), ``levels`` holds several values per release, a run's
#: generator is ``pcg64`` (its seeds are in the table) and a run charges no accountant
FIELDS = (
    "notion",
    "claimed",
    "epsilon_per_attribute",
    "epsilon_total",
    "notion_epsilon",
    "k",
    "t",
    "caveat",
    "reason",
    "delta",
    "form",
    "sampler",
    "seeded",
    "record_aligned",
    "ground",
    "t_unit",
    "l",
)
#: the result table's guarantee columns, in order
COLUMNS = ("guarantee", *(f"guarantee_{name}" for name in FIELDS[1:]))
#: their dtypes in the result table (the others are strings)
FLOAT_COLUMNS = (
    "guarantee_epsilon_per_attribute",
    "guarantee_epsilon_total",
    "guarantee_notion_epsilon",
    "guarantee_t",
    "guarantee_delta",
)
INT_COLUMNS = ("guarantee_k", "guarantee_l")
BOOL_COLUMNS = ("guarantee_seeded", "guarantee_record_aligned")
TEXT_COLUMNS = tuple(c for c in COLUMNS if c not in (*FLOAT_COLUMNS, *INT_COLUMNS, *BOOL_COLUMNS))


class Mechanism(Protocol):
    """What deriving a guarantee reads of a method: its privacy map (:meth:`claim`, and
    :meth:`holds` for what holds when nothing voids it) and what decides the release as
    returned (form, sampler, the noise mechanisms it declares, randomness, cluster noise,
    re-ranking). Every
    :class:`anonlab.methods.base.Method` is one."""

    name: ClassVar[str]
    axes: ClassVar[tuple[str, ...]]
    forms: ClassVar[tuple[str, ...]]
    rows_need_one_attribute: ClassVar[bool]
    draws_laplace: ClassVar[bool]
    round_integers: ClassVar[bool]
    randomized: ClassVar[bool]
    cluster_noise: ClassVar[bool]
    reranking: ClassVar[str | None]
    form: str
    sampler: str

    @property
    def record_aligned(self) -> bool: ...

    def claim(self, m: int) -> Guarantee: ...

    def holds(self, stated: Guarantee, m: int) -> Guarantee: ...

    def mechanisms(self) -> tuple[Measurement, ...] | None: ...

    def categorical_mechanisms(self) -> tuple[Measurement, ...]: ...


__all__ = [
    "APPROX_DP",
    "COLUMNS",
    "DP",
    "FIELDS",
    "IDP",
    "K_ANONYMITY",
    "NONE",
    "PRIVACY_NOTIONS",
    "TIES",
    "T_CLOSENESS",
    "Guarantee",
    "Levels",
    "Mechanism",
]
