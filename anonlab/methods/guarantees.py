"""What each release guarantees, as data: what its paper claims (``claimed``) beside what
holds for the release as returned (``notion``), with the reason when they differ.

The ε of a notion holds for neighbouring data sets that differ in one record; "ε-iDP"
(iDP §2) holds for neighbours of the actual data set only; "(ε, δ)-DP" (the synthetic-data
baselines ``mst`` and ``aim``) allows the ε bound to fail with probability δ.

What holds for a release as returned depends on more than the mechanism:

- its **form** (:data:`anonlab.methods.base.FORMS`): cluster-noise methods release every
  record with its cluster's noisy value, so in record order equal values show which
  records share a cluster, which a neighbour changes (python -m anonlab.audit); the
  papers' proofs cover each attribute's list of noisy centroids (DP-IR Lemma 1 and the
  step before Algorithm 1), that is its multiset (``shuffled_columns``), and whole rows
  only for a record-level partition or one attribute (``shuffled_rows``);
- its **sampler**: numpy's floating-point Laplace leaks through the low bits of released
  values (Mironov 2012, CCS, "On significance of the least significant bits for
  differential privacy"); the ``discrete`` sampler does not;
- its **bounds**: the proofs assume public domains; a library release whose domain is
  read off the data (``domains="data"``) has none;
- its **randomness**: a seeded release is reproducible by anyone who knows the seed
  (``seeded``), private only while the seed is secret and was drawn at random.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from anonlab.validation import check_int

if TYPE_CHECKING:  # the methods' base module carries a Guarantee on each Release
    from anonlab.datasets import Dataset
    from anonlab.methods.base import Method, Release

DP = "ε-DP"
APPROX_DP = "(ε, δ)-DP"
IDP = "ε-iDP"
K_ANONYMITY = "k-anonymity of the protected attributes"
T_CLOSENESS = "k-anonymity and t-closeness"
NONE = "none"
#: the notions that bound a privacy loss ε
PRIVACY_NOTIONS = (DP, APPROX_DP, IDP)


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
        clusters, is within it by the convexity of the EMD), and the l-diversity reached
        (fewest distinct confidential values in a cluster).
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


#: the fields in the result table's order (:meth:`Guarantee.as_columns`)
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

#: methods that add noise to cluster centroids and release every record with its
#: cluster's noisy value
CLUSTER_NOISE = (
    "ir_laplace",
    "imdav_laplace",
    "imdav_laplace_composed",
    "dp_um",
    "idp_ls",
    "idp_cbls",
)

RECORD_ORDER = (
    "in record order equal released values show which records share a cluster, "
    "which a neighbour changes: not ε-DP for any ε (the proof covers the noisy "
    "centroids, DP-IR Lemma 1, iDP §3; python -m anonlab.audit, and python -m "
    "anonlab.audit attack brackets a record's value from the others); "
    "form='shuffled_columns' releases what the proof covers"
)
RERANKING = {
    "idp_ls": "the local sensitivity holds with the clustering fixed; a neighbour that "
    "re-ranks records moves several centroids, an exact loss of about 1.45·ε per "
    "attribute under iDP's Proposition 1 (python -m anonlab.audit exact)",
    "idp_cbls": "the cluster-based local sensitivity holds with the clustering fixed; a "
    "neighbour that re-ranks records moves several centroids, an exact loss of "
    "several ε per attribute (python -m anonlab.audit exact)",
}
FLOATING_POINT = (
    "numpy's floating-point Laplace sampler: released values carry low-order "
    "bits that tell neighbours apart (Mironov 2012; python -m anonlab.audit "
    "floating); sampler='discrete' resists it"
)
DATA_BOUNDS = (
    "domains read off the data (domains='data'): the bounds themselves disclose "
    "the data, and the proofs assume public bounds"
)
IMDAV_REASON = (
    "the scale DP-IR states for [17], (n/k)·Δ/(k·ε), spends ε on every "
    "attribute: by DP-IR §3.1's worst case the record's loss is m·ε "
    "(imdav_laplace_composed is ε-DP)"
)
SYNTHETIC_CAVEAT = (
    "synthetic records, which correspond to no original record; ρ-zCDP "
    "converted to (ε, δ) by Canonne-Kamath-Steinke's bound, for neighbours "
    "that differ in one record replaced (n public); the Gaussian noise of "
    "the marginals is drawn in floating point and is not released itself"
)
TFIRST_CAVEAT = (
    "Algorithm 3 alone may exceed t with tied confidential values or when k' "
    "does not divide n (tclose_tfirst_merged does not)"
)
IR_CAVEAT = "individual ranking alone is not k-anonymous: each attribute is grouped on its own"
EXPONENTIAL_FLOAT = (
    "categorical values are chosen by the exponential mechanism from "
    "floating-point Gumbel draws: the choice is discrete, but its "
    "probabilities hold only to floating-point precision"
)
SEEDED = (
    "seeded: anyone who knows the seed reproduces the noise; private only while the "
    "seed is secret and was drawn at random"
)


def claim(method: Method, m: int) -> Guarantee:
    """What the paper of ``method`` claims for its release of ``m`` attributes, with the k
    and t it targets."""
    m = check_int(m, "m", 1)
    name = method.name
    epsilon = getattr(method, "epsilon", None)
    k = getattr(method, "k", None)
    if name in ("laplace", "ir_laplace", "imdav_laplace_composed"):
        # DP-IR §3.3 and Algorithm 1: budget ε/m per attribute, ε for the record
        return Guarantee(DP, DP, epsilon / m, epsilon)
    if name in ("dp", "dp_um", "idp_ls", "idp_cbls"):
        # iDP §3.1: ε = Σ_a ε_a; option budget=per_attribute spends ε on each
        per = epsilon / m if method.budget == "split" else epsilon
        notion = DP if name in ("dp", "dp_um") else IDP
        return Guarantee(notion, notion, per, per * m)
    if name in ("mst", "aim"):
        # MST, AIM: ρ-zCDP for ρ = zcdp_rho(ε, δ), the record synthesised as one unit
        return Guarantee(
            APPROX_DP, APPROX_DP, None, epsilon, delta=method.delta, caveat=SYNTHETIC_CAVEAT
        )
    if name == "imdav_laplace":
        # DP-IR §4.4 compares [17] at ε per attribute, as it states the method
        return Guarantee(DP, DP, epsilon, epsilon)
    if name in ("mdav", "imdav"):
        return Guarantee(K_ANONYMITY, K_ANONYMITY, k=k)
    if name.startswith("tclose_"):
        return Guarantee(
            T_CLOSENESS,
            T_CLOSENESS,
            k=k,
            t=method.t,
            ground=method.ground,
            t_unit="cluster",
            caveat=TFIRST_CAVEAT if name == "tclose_tfirst" else None,
        )
    if name in ("ir", "original"):
        return Guarantee(NONE, NONE, caveat=IR_CAVEAT if name == "ir" else None)
    raise KeyError(f"no guarantee is recorded for method {name!r}")


@functools.lru_cache(maxsize=4096)
def guarantee(method: Method, m: int) -> Guarantee:
    """The guarantee of ``method``'s release of ``m`` attributes in its form and with its
    sampler: the paper's claim (:func:`claim`) and what holds for the release as
    returned, with the reasons they differ (computed once per method and m: a method
    holds only its parameters)."""
    stated = claim(method, m)
    sampler = method.sampler if getattr(method, "draws_laplace", False) else None
    stated = replace(
        stated, form=method.form, sampler=sampler, record_aligned=method.record_aligned
    )
    if stated.claimed not in PRIVACY_NOTIONS:
        return stated
    reasons = []
    if method.name in CLUSTER_NOISE and method.form == "records":
        reasons.append(RECORD_ORDER)
    if method.name in RERANKING:
        reasons.append(RERANKING[method.name])
    if sampler == "numpy":
        reasons.append(FLOATING_POINT)
    if reasons:
        return replace(stated, notion=NONE, reason="; ".join(reasons))
    if method.name == "imdav_laplace":
        return replace(stated, notion_epsilon=stated.epsilon_total * m, reason=IMDAV_REASON)
    return replace(stated, notion_epsilon=stated.epsilon_total)


def data_caveat(dataset: Dataset) -> str | None:
    """What the data set view's domains add to a noise-based guarantee: DP-IR's proofs
    (and iDP's sensitivities) assume public domains, and a domain read off the data is
    public only if what was read is."""
    attrs = dataset.protected_attributes
    parts = []
    # DP-IR §4.1: Dom(A) = [0, α·max] of the data
    if any(not a.categorical and a.alpha is not None for a in attrs):
        parts.append(
            "domains set to [0, α·max] of the data (DP-IR §4.1) are public only if those bounds are"
        )
    if any(a.taxonomy is not None and a.taxonomy.from_data for a in attrs):
        parts.append(
            "domains read off the data (flat taxonomies) are public only if those values are"
        )
    return "; ".join(parts) or None


def _join(*parts: str | None) -> str | None:
    return "; ".join(p for p in parts if p) or None


def of_release(
    method: Method, release: Release, *, seeded: bool = True, strict_bounds: bool = False
) -> Guarantee:
    """The guarantee ``release`` carries: :func:`guarantee` for its m attributes, with the
    k, t and l it reaches (its smallest cluster, its largest cluster EMD, its fewest
    distinct confidential values) and what its data's domains (:func:`data_caveat`) and
    its randomness (``seeded``) add. ``strict_bounds`` (the library's
    :func:`anonlab.protect`): a domain read off the data voids a privacy notion instead of
    being stated as a caveat, as the experiments state the papers' rule."""
    from anonlab.metrics.clusters import cluster_min, max_emd

    view = release.dataset
    stated = replace(
        guarantee(method, release.values.shape[1]),
        seeded=seeded if method.randomized else None,
        record_aligned=release.record_aligned,
    )
    if stated.notion in (K_ANONYMITY, T_CLOSENESS):
        if stated.notion == K_ANONYMITY:
            return replace(stated, k=int(cluster_min(view, release)))
        reached_t = max_emd(view, release, getattr(method, "ground", "distinct"))
        reached = replace(
            stated, k=int(cluster_min(view, release)), t=reached_t, l=diversity(view, release)
        )
        short = [
            f"{what} reached {got:g}, the target {want:g}"
            for what, got, want, worse in (
                ("k", reached.k, stated.k, reached.k < stated.k),
                ("t", reached_t, stated.t, reached_t > stated.t + 1e-12),
            )
            if worse
        ]
        return replace(reached, reason=_join(*short))
    if stated.claimed in PRIVACY_NOTIONS:
        bounds = view.computed_once("data_caveat", lambda: data_caveat(view))
        categorical = any(a.categorical for a in view.protected_attributes)
        caveat = _join(
            stated.caveat,
            None if strict_bounds else bounds,
            EXPONENTIAL_FLOAT if categorical and method.draws_laplace else None,
            SEEDED if seeded and method.randomized else None,
        )
        if strict_bounds and bounds:
            return replace(
                stated,
                notion=NONE,
                notion_epsilon=None,
                caveat=caveat,
                reason=_join(
                    stated.reason if stated.notion == NONE else None, f"{DATA_BOUNDS} ({bounds})"
                ),
            )
        return replace(stated, caveat=caveat)
    return stated


def diversity(view: Dataset, release: Release) -> int | None:
    """The l-diversity a record-level partition reaches: the fewest distinct values of the
    confidential attribute in one cluster (``None`` without one or without clusters)."""
    import numpy as np

    confidential = [a.name for a in view.attributes if a.role == "confidential"]
    labels = release.cluster_labels
    if not confidential or labels is None:
        return None
    frame = view.frame
    values = frame[confidential[0]].to_numpy()
    clusters = np.asarray(labels)[:, 0]
    _, codes = np.unique(values, return_inverse=True)
    pairs = np.unique(np.stack([clusters, codes]), axis=1)
    return int(np.bincount(pairs[0]).min())


def stated(name: str) -> str:
    """The guarantee of method ``name`` in symbols, for listings: what its paper claims,
    e.g. ``claims ε-DP: ε/m per attribute, ε in total``, what holds in each form the
    method offers with the sampler a library release uses, and its caveat."""
    from anonlab.methods import make_method, method_class

    cls = method_class(name)
    options = {"sampler": "discrete"} if cls.draws_laplace else {}
    given = claim(make_method(name, {"k": 3, "epsilon": 1.0, "t": 0.5}, options), 2)
    symbol = {0.5: "ε/m", 1.0: "ε", 2.0: "m·ε"}
    text = f"claims {given.claimed}"
    if given.epsilon_per_attribute is not None:
        text += (
            f": {symbol[given.epsilon_per_attribute]} per attribute, "
            f"{symbol[given.epsilon_total]} in total"
        )
    elif given.epsilon_total is not None:
        text += f": {symbol[given.epsilon_total]} in total"
    if given.delta is not None:
        text += f", δ = {given.delta:g}"
    if given.claimed in PRIVACY_NOTIONS and cls.forms != ("records",):
        holds = []
        for form in cls.forms:
            made = make_method(name, {"k": 3, "epsilon": 1.0, "t": 0.5}, {**options, "form": form})
            shown = guarantee(made, 1 if cls.rows_need_one_attribute else 2)
            eps = (
                f" ({symbol.get(shown.notion_epsilon, 'ε')})"
                if shown.notion_epsilon is not None
                else ""
            )
            one = " with m = 1" if form == "shuffled_rows" and cls.rows_need_one_attribute else ""
            holds.append(f"{form}{one}: {shown.notion}{eps}")
        text += "; as released: " + ", ".join(holds)
    return text + (f" (caveat: {given.caveat})" if given.caveat else "")
