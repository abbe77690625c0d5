"""What each method's release guarantees, as data: the privacy notion, the ε it spends per
attribute and in total, and where the harness knows the guarantee is weaker than the name
suggests (the ``caveat``).

The ε of a notion holds for neighbouring data sets that differ in one record; "ε-iDP"
(iDP §2) holds for neighbours of the actual data set only, with the clustering held fixed;
"(ε, δ)-DP" (the synthetic-data baselines ``mst`` and ``aim``) allows the ε bound to fail
with probability δ.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import TYPE_CHECKING, Any

from anonlab.validation import check_int

if TYPE_CHECKING:  # the methods' base module carries a Guarantee on each Release
    from anonlab.datasets import Dataset
    from anonlab.methods.base import Method, Release

DP = "ε-DP"
APPROX_DP = "(ε, δ)-DP"
IDP = "ε-iDP (clustering held fixed)"
K_ANONYMITY = "k-anonymity of the protected attributes"
T_CLOSENESS = "k-anonymity and t-closeness"
NONE = "none"


@dataclass(frozen=True)
class Guarantee:
    """The guarantee of one release.

    Attributes
    ----------
    notion : :data:`DP`, :data:`APPROX_DP`, :data:`IDP`, :data:`K_ANONYMITY`,
        :data:`T_CLOSENESS` or :data:`NONE`.
    epsilon_per_attribute : ε spent on each protected attribute (``None`` without noise,
        and for synthetic data, whose budget is spent on the record as one unit).
    epsilon_total : ε of the whole record, by sequential composition over the m
        attributes (``None`` without noise).
    k, t : the k-anonymity and t-closeness levels: the targets for a method
        (:func:`guarantee`), the levels reached for a release (:func:`of_release`: its
        smallest cluster and its largest cluster EMD); ``None`` for other notions.
    caveat : what the harness knows weakens the stated notion, or ``None``.
    delta : the δ of :data:`APPROX_DP` (``None`` for the other notions).
    """

    notion: str
    epsilon_per_attribute: float | None = None
    epsilon_total: float | None = None
    k: int | None = None
    t: float | None = None
    caveat: str | None = None
    delta: float | None = None

    def as_dict(self) -> dict[str, Any]:
        """The fields as a plain dict (``DataFrame.attrs``, JSON)."""
        return asdict(self)

    def as_columns(self) -> dict[str, Any]:
        """The fields as result-table columns: ``guarantee`` (the notion) and
        ``guarantee_<field>`` (:data:`COLUMNS`)."""
        return {"guarantee": self.notion,  # written per job: no asdict's deep copy
                "guarantee_epsilon_per_attribute": self.epsilon_per_attribute,
                "guarantee_epsilon_total": self.epsilon_total, "guarantee_k": self.k,
                "guarantee_t": self.t, "guarantee_caveat": self.caveat,
                "guarantee_delta": self.delta}


#: the result table's guarantee columns, in order (:meth:`Guarantee.as_columns`)
COLUMNS = ("guarantee", "guarantee_epsilon_per_attribute", "guarantee_epsilon_total",
           "guarantee_k", "guarantee_t", "guarantee_caveat", "guarantee_delta")

IMDAV_CAVEAT = ("DP-IR states the scale of [17] as (n/k)·Δ/(k·ε) for every attribute; by "
                "DP-IR §3.1's own worst case the record's loss is m·ε (use "
                "imdav_laplace_composed for ε-DP)")
RERANKING_CAVEAT = {
    "idp_ls": "individual ranking re-sorts a neighbouring data set; measured on Census "
              "(python -m experiments.idp_reranking_audit) the loss per attribute reaches "
              "about 1.5·ε",
    "idp_cbls": "individual ranking re-sorts a neighbouring data set; measured on Census "
                "(python -m experiments.idp_reranking_audit) the loss is about ε per cluster "
                "a change moves",
}
#: methods that add noise to cluster centroids and release every record with its
#: cluster's noisy value, in record order
CLUSTER_NOISE = ("ir_laplace", "imdav_laplace", "imdav_laplace_composed", "dp_um", "idp_ls",
                 "idp_cbls")
RECORD_ORDER_CAVEAT = ("the proof covers the noisy centroids (DP-IR Lemma 1, iDP §3); the "
                       "release in record order also shows which records share a cluster "
                       "(equal values), which a neighbour changes: python -m anonlab.audit "
                       "tells neighbours apart from one release (bound far above ε)")
SYNTHETIC_CAVEAT = ("synthetic records, which correspond to no original record; ρ-zCDP "
                    "converted to (ε, δ) by Canonne-Kamath-Steinke's bound, for neighbours "
                    "that differ in one record replaced (n public)")
TFIRST_CAVEAT = ("Algorithm 3 alone may exceed t with tied confidential values or when k' "
                 "does not divide n (tclose_tfirst_merged does not)")


def guarantee(method: Method, m: int) -> Guarantee:
    """The guarantee of ``method``'s release when it protects ``m`` attributes, with the k
    and t it targets."""
    stated = _guarantee(method, m)
    if method.name in CLUSTER_NOISE:
        caveats = [c for c in (RECORD_ORDER_CAVEAT, stated.caveat) if c]
        stated = replace(stated, caveat="; ".join(caveats))
    return stated


def _guarantee(method: Method, m: int) -> Guarantee:
    m = check_int(m, "m", 1)
    name = method.name
    epsilon = getattr(method, "epsilon", None)
    k = getattr(method, "k", None)
    if name in ("laplace", "ir_laplace", "imdav_laplace_composed"):
        # DP-IR §3.3 and Algorithm 1: budget ε/m per attribute, ε for the record
        return Guarantee(DP, epsilon / m, epsilon)
    if name in ("dp", "dp_um", "idp_ls", "idp_cbls"):
        # iDP §3.1: ε = Σ_a ε_a; option budget=per_attribute spends ε on each
        per = epsilon / m if method.budget == "split" else epsilon
        notion = DP if name in ("dp", "dp_um") else IDP
        return Guarantee(notion, per, per * m, caveat=RERANKING_CAVEAT.get(name))
    if name in ("mst", "aim"):
        # MST, AIM: ρ-zCDP for ρ = zcdp_rho(ε, δ), the record synthesised as one unit
        return Guarantee(APPROX_DP, None, epsilon, delta=method.delta, caveat=SYNTHETIC_CAVEAT)
    if name == "imdav_laplace":
        return Guarantee(DP, epsilon, epsilon * m, caveat=IMDAV_CAVEAT)
    if name in ("mdav", "imdav"):
        return Guarantee(K_ANONYMITY, k=k)
    if name.startswith("tclose_"):
        return Guarantee(T_CLOSENESS, k=k, t=method.t,
                         caveat=TFIRST_CAVEAT if name == "tclose_tfirst" else None)
    if name in ("ir", "original"):
        return Guarantee(NONE, caveat="individual ranking alone is not k-anonymous: each "
                         "attribute is grouped on its own" if name == "ir" else None)
    raise KeyError(f"no guarantee is recorded for method {name!r}")


def data_caveat(dataset: Dataset) -> str | None:
    """What the data set view's domains add to a noise-based guarantee: DP-IR's proofs
    (and iDP's sensitivities) assume public domains, and a domain read off the data is
    public only if what was read is."""
    attrs = dataset.protected_attributes
    parts = []
    # DP-IR §4.1: Dom(A) = [0, α·max] of the data
    if any(not a.categorical and a.alpha is not None for a in attrs):
        parts.append("domains set to [0, α·max] of the data (DP-IR §4.1) are public only if "
                     "those bounds are")
    if any(a.taxonomy is not None and a.taxonomy.from_data for a in attrs):
        parts.append("domains read off the data (flat taxonomies) are public only if those "
                     "values are")
    return "; ".join(parts) or None


def of_release(method: Method, release: Release) -> Guarantee:
    """The guarantee ``release`` carries: :func:`guarantee` for its m attributes, with the
    k and t it reaches (its smallest cluster, its largest cluster EMD, as the
    ``cluster_min`` and ``max_emd`` metrics measure them) and the caveats of its data's
    domains (:func:`data_caveat`) added."""
    from anonlab.metrics.clusters import cluster_min, max_emd

    view = release.dataset
    stated = guarantee(method, release.values.shape[1])
    if stated.notion in (K_ANONYMITY, T_CLOSENESS):
        reached_t = (max_emd(view, release, getattr(method, "ground", "distinct"))
                     if stated.notion == T_CLOSENESS else None)
        return replace(stated, k=int(cluster_min(view, release)), t=reached_t)
    if stated.notion in (DP, APPROX_DP, IDP):
        caveats = [c for c in (stated.caveat,
                               view.computed_once("data_caveat", lambda: data_caveat(view)))
                   if c]
        return replace(stated, caveat="; ".join(caveats) or None)
    return stated


def stated(name: str) -> str:
    """The guarantee of method ``name`` in symbols, for listings: e.g. ``ε-DP: ε/m per
    attribute, ε in total`` (``(ε, δ)-DP: ε in total, δ = 1e-09`` for synthetic data),
    with its caveat."""
    from anonlab.methods import make_method

    given = guarantee(make_method(name, {"k": 3, "epsilon": 1.0, "t": 0.5}), 2)
    symbol = {0.5: "ε/m", 1.0: "ε", 2.0: "m·ε"}
    text = given.notion
    if given.epsilon_per_attribute is not None:
        text += (f": {symbol[given.epsilon_per_attribute]} per attribute, "
                 f"{symbol[given.epsilon_total]} in total")
    elif given.epsilon_total is not None:
        text += f": {symbol[given.epsilon_total]} in total"
    if given.delta is not None:
        text += f", δ = {given.delta:g}"
    return text + (f" (caveat: {given.caveat})" if given.caveat else "")
