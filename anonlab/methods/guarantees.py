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
- its **samplers**: the noise mechanisms the method declares it draws with
  (:meth:`~anonlab.methods.base.Method.mechanisms`, their facts in
  :mod:`anonlab.mechanisms.measurements`); a privacy notion holds only if every one is
  declared and exact: numpy's floating-point Laplace leaks through the low bits of
  released values (Mironov 2012, CCS, "On significance of the least significant bits for
  differential privacy"), the ``discrete`` sampler does not; a method that declares no
  mechanism guarantees none;
- its **bounds**: the proofs assume public domains; a library release whose domain is
  read off the data (``domains="data"``) has none;
- its **schema**: rounding to whole numbers read off the data (``integer="data"``)
  discloses that every value is whole, so such a release has none either;
- its **randomness**: a seeded release is reproducible by anyone who knows the seed
  (``seeded``), private only while the seed is secret and was drawn at random.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import replace
from typing import TYPE_CHECKING

from anonlab.guarantee import (
    K_ANONYMITY,
    NONE,
    PRIVACY_NOTIONS,
    T_CLOSENESS,
    Guarantee,
    Mechanism,
)
from anonlab.mechanisms.measurements import (
    EXPONENTIAL_GUMBEL,
    GUMBEL_FLOAT,
    Measurement,
)
from anonlab.mechanisms.measurements import FLOATING_POINT as FLOATING_POINT  # the reason
from anonlab.partition import levels, smallest_cluster
from anonlab.validation import check_int

if TYPE_CHECKING:
    from anonlab.datasets import Dataset
    from anonlab.release import Release


RECORD_ORDER = (
    "in record order equal released values show which records share a cluster, "
    "which a neighbour changes: not ε-DP for any ε (the proof covers the noisy "
    "centroids, DP-IR Lemma 1, iDP §3; python -m anonlab.audit, and python -m "
    "anonlab.audit attack brackets a record's value from the others); "
    "form='shuffled_columns' releases what the proof covers"
)
DATA_BOUNDS = (
    "domains read off the data (domains='data'): the bounds themselves disclose "
    "the data, and the proofs assume public bounds"
)
EXPONENTIAL_FLOAT = (
    f"categorical values are chosen by {GUMBEL_FLOAT}; sampler='discrete' samples the "
    "mechanism exactly"
)
UNDECLARED = (
    "declares no noise mechanism: nothing states that its draws resist floating-point "
    "attacks; declare its mechanisms (anonlab.mechanisms)"
)
CATEGORICAL_UNDECLARED = (
    "categorical attributes protected with no declared mechanism: nothing states how "
    "their released values are drawn; declare them (categorical_mechanisms(), "
    "anonlab.mechanisms) or numeric_only"
)
INTEGER_FROM_DATA = (
    "whole numbers read off the data (integer='data'): the release rounds to them only "
    "when every value is whole, which tells a data set of whole numbers from a "
    "neighbour holding one fraction (an unbounded loss); declare the whole-number "
    "columns (integer=[...]) as public"
)
SEEDED = (
    "seeded: anyone who knows the seed reproduces the noise; private only while the "
    "seed is secret and was drawn at random"
)


def claim(method: Mechanism, m: int) -> Guarantee:
    """What the paper of ``method`` claims for its release of ``m`` attributes, with the k
    and t it targets: the method's own :meth:`~anonlab.methods.base.Method.claim`."""
    return method.claim(check_int(m, "m", 1))


def draw_reasons(drawn: tuple[Measurement, ...] | None) -> list[str]:
    """Why a privacy notion does not hold for draws from the measurements ``drawn``: the
    reason of each that is not exact, once each, or :data:`UNDECLARED` when none is
    declared (``None`` or an empty tuple: a release drawn from no declared sampler is
    deterministic as far as anything states, and no privacy notion is shown for it)."""
    if not drawn:
        return [UNDECLARED]
    return list(dict.fromkeys(m.reason for m in drawn if not m.exact and m.reason))


def _on_categorical(measurement: Measurement) -> str:
    """The reason of ``measurement``, said of the categorical values it chooses."""
    if measurement == EXPONENTIAL_GUMBEL:
        return EXPONENTIAL_FLOAT
    return f"categorical values are drawn by {measurement.name}: {measurement.reason}"


@functools.lru_cache(maxsize=4096)
def guarantee(method: Mechanism, m: int) -> Guarantee:
    """The guarantee of ``method``'s release of ``m`` attributes in its form and with its
    sampler: the paper's claim (:func:`claim`) and what holds for the release as
    returned, with the reasons they differ (computed once per method and m: a method
    holds only its parameters). The notion holds only if every measurement the method
    declares (:meth:`~anonlab.methods.base.Method.mechanisms`) is exact: one that is not
    gives ``none`` with its reason, and so does declaring none (``None`` or ``()``)."""
    stated = claim(method, m)
    sampler = method.sampler if getattr(method, "draws_laplace", False) else None
    stated = replace(
        stated, form=method.form, sampler=sampler, record_aligned=method.record_aligned
    )
    if stated.claimed not in PRIVACY_NOTIONS:
        return stated
    reasons = []
    if method.cluster_noise and method.form == "records":
        reasons.append(RECORD_ORDER)
    if method.reranking:
        reasons.append(method.reranking)
    reasons.extend(draw_reasons(method.mechanisms()))
    if reasons:
        return replace(stated, notion=NONE, reason="; ".join(reasons))
    return method.holds(stated, m)


def data_caveat(dataset: Dataset) -> str | None:
    """What the data set view's domains add to a noise-based guarantee: DP-IR's proofs
    (and iDP's sensitivities) assume public domains, and a domain read off the data is
    public only if what was read is."""
    attrs = dataset.protected_attributes
    parts = []
    # DP-IR §4.1: Dom(A) = [0, α·max] of the data (below 0 the same margin)
    if any(not a.categorical and a.alpha is not None for a in attrs):
        parts.append(
            "domains set to [0, α·max] of the data (DP-IR §4.1; [α·min, …] below 0) are "
            "public only if those bounds are"
        )
    if any(a.taxonomy is not None and a.taxonomy.from_data for a in attrs):
        parts.append(
            "domains read off the data (flat taxonomies, or a hierarchy's inner concepts "
            "that the data hold) are public only if those values are"
        )
    return "; ".join(parts) or None


def _join(*parts: str | None) -> str | None:
    return "; ".join(p for p in parts if p) or None


def of_release(
    method: Mechanism,
    release: Release,
    *,
    seeded: bool = True,
    strict_bounds: bool = False,
    generator: str | None = None,
) -> Guarantee:
    """The guarantee ``release`` carries: :func:`guarantee` for its m attributes, with the
    k, t and l it reaches (its smallest cluster, its largest cluster EMD, its fewest
    distinct confidential values; for t-closeness also ``levels``, k, t, distinct and
    entropy l per cluster and per released equivalence class) and what its data's domains
    (:func:`data_caveat`) and its randomness (``seeded``) add. ``strict_bounds`` (the library's
    :func:`anonlab.protect`): a domain read off the data voids a privacy notion instead of
    being stated as a caveat, as the experiments state the papers' rule. ``generator``:
    the bit generator a randomized release drew from (:func:`~anonlab.mechanisms.
    generators.generator_name`), recorded in the guarantee.

    A guarantee that no release value decides (every notion but k-anonymity and
    t-closeness) is the same for every release of the method on the view: computed once
    per view (:meth:`~anonlab.datasets.Dataset.computed_once`)."""
    view = release.dataset
    m, aligned = release.values.shape[1], release.record_aligned
    stated = view.computed_once(
        ("of_release", method, m, seeded, aligned, strict_bounds, generator),
        lambda: _before_values(method, view, m, seeded, aligned, strict_bounds, generator),
    )
    if stated.notion not in (K_ANONYMITY, T_CLOSENESS):
        return stated
    labels = release.cluster_labels
    if stated.notion == K_ANONYMITY:
        return replace(stated, k=smallest_cluster(labels))
    ground = getattr(method, "ground", "distinct")
    # the stated unit (cluster) under the method's ground first; the rank ground's t
    # depends on the order of tied records, so the tie-free distinct ground's beside it
    found = levels(view, labels, release.values, (ground, "distinct")[: 1 + (ground != "distinct")])
    cluster = found[0]
    reached_t = cluster.t
    reached = replace(stated, k=cluster.k, t=reached_t, l=cluster.l, levels=found)
    short = [
        f"{what} reached {got:g}, the target {want:g}"
        for what, got, want, worse in (
            ("k", reached.k, stated.k, reached.k < stated.k),
            ("t", reached_t, stated.t, reached_t > stated.t + 1e-12),
        )
        if worse
    ]
    return replace(reached, reason=_join(*short))


def _before_values(
    method: Mechanism,
    view: Dataset,
    m: int,
    seeded: bool,
    record_aligned: bool,
    strict_bounds: bool,
    generator: str | None,
) -> Guarantee:
    """:func:`of_release`'s guarantee before any release value: for k-anonymity and
    t-closeness the claim, which the release's clusters then fill in (their generator
    left as it is); for a notion with ε what holds as released (:func:`_as_released`)."""
    stated = replace(
        guarantee(method, m),
        seeded=seeded if method.randomized else None,
        record_aligned=record_aligned,
    )
    if stated.notion in (K_ANONYMITY, T_CLOSENESS):
        return stated if generator is None else replace(stated, generator=generator)
    if stated.claimed in PRIVACY_NOTIONS:
        stated = _as_released(method, view, stated, seeded, strict_bounds)
    return stated if generator is None else replace(stated, generator=generator)


def before_release(
    method: Mechanism, view: Dataset, *, seeded: bool = True, strict_bounds: bool = False
) -> Guarantee:
    """The privacy guarantee a release of ``view`` by ``method`` will carry, known
    before any draw: it depends on the method, its form and sampler, the view's schema
    and the randomness, never on the values drawn (:func:`of_release` for a notion with
    ε; k and t are reached only by a release)."""
    stated = replace(
        guarantee(method, len(view.protected)),
        seeded=seeded if method.randomized else None,
        record_aligned=method.record_aligned,
    )
    if stated.claimed in PRIVACY_NOTIONS:
        return _as_released(method, view, stated, seeded, strict_bounds)
    return stated


def _as_released(
    method: Mechanism, view: Dataset, stated: Guarantee, seeded: bool, strict_bounds: bool
) -> Guarantee:
    """What holds of the privacy claim ``stated`` for a release of ``view``: its caveats
    (bounds, sampler, seed), and ``none`` where bounds or whole numbers were read off the
    data (:func:`of_release`) or where the samplers categorical attributes add
    (:meth:`~anonlab.methods.base.Method.categorical_mechanisms`) are not exact (a caveat
    when the notion is ``none`` already) or not declared at all."""
    bounds = view.computed_once("data_caveat", lambda: data_caveat(view))
    categorical = [a.name for a in view.protected_attributes if a.categorical]
    drawn = method.categorical_mechanisms() if categorical else ()
    inexact = tuple(_on_categorical(m) for m in drawn if not m.exact)
    # a notion that holds so far, and categorical values drawn by nothing declared
    undeclared = bool(categorical) and not drawn and stated.notion != NONE
    caveat = _join(
        stated.caveat,
        None if strict_bounds else bounds,
        *(inexact if stated.notion == NONE else ()),
        SEEDED if seeded and method.randomized else None,
    )
    inferred = [a.name for a in view.protected_attributes if a.integer_from_data]
    voids = (
        *(inexact if stated.notion != NONE else ()),
        f"{CATEGORICAL_UNDECLARED} ({', '.join(map(repr, categorical))})" if undeclared else None,
        f"{DATA_BOUNDS} ({bounds})" if strict_bounds and bounds else None,
        f"{INTEGER_FROM_DATA} ({', '.join(map(repr, inferred))})"
        if inferred and method.round_integers
        else None,
    )
    if any(voids):
        return replace(
            stated,
            notion=NONE,
            notion_epsilon=None,
            caveat=caveat,
            reason=_join(stated.reason if stated.notion == NONE else None, *voids),
        )
    return replace(stated, caveat=caveat)


def stated(cls: type[Mechanism]) -> str:
    """The guarantee of method class ``cls`` in symbols, for listings: what its paper
    claims, e.g. ``claims ε-DP: ε/m per attribute, ε in total``, what holds in each form
    the method offers with the sampler a library release uses, and its caveat."""
    # the shared axes at values whose symbols read back (ε/m, m·ε); an axis of the
    # method's own at its default
    grid = {"k": 3, "epsilon": 1.0, "t": 0.5}
    grid |= {
        f.name: f.default
        for f in dataclasses.fields(cls)
        if f.name not in grid and f.default is not dataclasses.MISSING
    }
    unset = [axis for axis in cls.axes if axis not in grid]
    if unset:
        return f"stated for given values of {', '.join(unset)} (no default)"

    def made(options: dict) -> Mechanism:
        return cls(**{axis: grid[axis] for axis in cls.axes}, **options)

    options = {"sampler": "discrete"} if cls.draws_laplace else {}
    given = claim(made(options), 2)
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
    shown_alone = guarantee(made(options), 2).notion if cls.forms == ("records",) else None
    if given.claimed in PRIVACY_NOTIONS and shown_alone != given.claimed:
        holds = []
        for form in cls.forms:
            method = made({**options, "form": form})
            shown = guarantee(method, 1 if cls.rows_need_one_attribute else 2)
            eps = (
                f" ({symbol.get(shown.notion_epsilon, 'ε')})"
                if shown.notion_epsilon is not None
                else ""
            )
            one = " with m = 1" if form == "shuffled_rows" and cls.rows_need_one_attribute else ""
            holds.append(f"{form}{one}: {shown.notion}{eps}")
        text += "; as released: " + ", ".join(holds)
    return text + (f" (caveat: {given.caveat})" if given.caveat else "")
