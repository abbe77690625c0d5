"""The bracketing attack on cluster-noise releases in record order.

``python -m anonlab.audit attack [key=value …]`` releases one data set with a method that
clusters each attribute on its own (individual ranking: ``ir_laplace`` by default), once
per ε and seed, and attacks each release as the usual DP adversary would, one who knows
every other record's true value. Records of one cluster share one released value, so the
release in record order shows which records were clustered together; the target's value
then lies between the values of the records ranked below its cluster and of those ranked
above it (:func:`brackets` proves it). The noise does not move this bracket: only
collisions of released values (clipping to the domain and rounding merge clusters) widen
it, so what one release shows depends on its draw: the table gives, per ε, the median and
the range (min–max) over the seeds of the share of records bracketed and of the median
width.

Keys (defaults in brackets): ``dataset`` (``census``, a data set config of
``conf/dataset``, built as the runner builds it), ``method`` (``ir_laplace``), ``k`` (25),
``m`` (every attribute, 13 on Census; the attacked attribute and the first m − 1 others
are protected),
``attribute`` (``FICA``), ``epsilon`` (``[0.1,1,10]``, or one number), ``seed`` (0, the
master seed), ``seeds`` (20 releases per ε, each from its own child stream of
``numpy.random.SeedSequence(seed)``, the same streams at every ε), ``form`` (the method's
release form; by default the papers' record order) and ``results_dir`` (none: print only;
otherwise also ``attack.csv`` and ``attack.md``, and every release's row in
``attack_releases.csv``, there). Every bad input ends in one ``error: …`` line on stderr
and exit status 2 before any release is drawn.

From Python::

    from anonlab.audit.attack import bracketing_attack, markdown, summarise
    print(markdown(summarise(bracketing_attack(epsilon=[0.1, 1, 10], seeds=20))))
"""

from __future__ import annotations

import functools
import math
import numbers
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.audit.arguments import key_values
from anonlab.datasets import Dataset
from anonlab.methods import METHODS, Method, make_method, method_class, split_variant
from anonlab.validation import (
    ParameterError,
    check_choice,
    check_epsilon,
    check_int,
    check_results_dir,
)

USAGE_ERROR = 2
DEFAULT_DATASET = "census"
DEFAULT_METHOD = "ir_laplace"
DEFAULT_K = 25
DEFAULT_ATTRIBUTE = "FICA"
DEFAULT_EPSILONS = (0.1, 1.0, 10.0)
#: releases per ε, each from its own child stream of the master seed
DEFAULT_SEEDS = 20
#: the release form in which record i is row i (the papers' release)
RECORDS = "records"
#: the attack's output files in ``results_dir``
CSV_NAME, MARKDOWN_NAME, RELEASES_NAME = "attack.csv", "attack.md", "attack_releases.csv"
#: bracket widths (in % of the domain) whose shares the table reports
THRESHOLDS = (1.0, 5.0)
USAGE = (
    "usage: python -m anonlab.audit attack [key=value ...]\n"
    f"keys: dataset ({DEFAULT_DATASET}), method ({DEFAULT_METHOD}), k ({DEFAULT_K}), "
    f"m (every attribute), attribute ({DEFAULT_ATTRIBUTE}), epsilon ([0.1,1,10] or one "
    f"number), seed (0), seeds ({DEFAULT_SEEDS}), form (the method's release form; "
    "default records), "
    "results_dir (none: print only)"
)


@dataclass(frozen=True)
class Brackets:
    """Each record's bracket on one attribute, from the other records' values.

    Attributes
    ----------
    low, high : ``(n,)`` bounds of the bracket; the domain's bounds where no other record
        bounds it.
    low_by_record, high_by_record : ``(n,)`` whether the bound is another record's value
        (not the domain's bound).
    grouped : ``(n,)`` whether the record shares its released value with another record
        (its set M of cluster-mates is not empty); a record without mates has the whole
        domain as its bracket.
    """

    low: np.ndarray
    high: np.ndarray
    low_by_record: np.ndarray
    high_by_record: np.ndarray
    grouped: np.ndarray

    @property
    def both_by_records(self) -> np.ndarray:
        """``(n,)`` whether other records' values bound the bracket on both sides."""
        return self.low_by_record & self.high_by_record

    @property
    def width(self) -> np.ndarray:
        """``(n,)`` width ``high − low`` of each bracket."""
        return self.high - self.low

    def violations(self, true: np.ndarray) -> int:
        """Number of records whose true value lies outside their bracket (0 by the proof
        of :func:`brackets`, when the domain holds the data)."""
        true = np.asarray(true, dtype=float)
        return int(np.count_nonzero(~((self.low <= true) & (true <= self.high))))


def brackets(true: np.ndarray, released: np.ndarray, domain: tuple[float, float]) -> Brackets:
    """Bracket each record's true value between other records' true values.

    The adversary knows every true value but the target's, ``true[j]`` for j ≠ i, and
    sees ``released``, one attribute's released values in record order. For target i, M is
    the set of records j ≠ i with ``released[j] == released[i]``; if M is empty there is no
    bracket (the domain). Otherwise, with t = min over M of ``true`` and T = max over M::

        lo = max{true[j] : j ∉ M ∪ {i}, true[j] < t}   (the domain's low bound if none)
        hi = min{true[j] : j ∉ M ∪ {i}, true[j] > T}   (the domain's high bound if none)

    Parameters
    ----------
    true : ``(n,)`` true values of the attribute.
    released : ``(n,)`` released values of the attribute, row i the release of record i.
    domain : ``(low, high)`` public bounds of the attribute.

    Returns
    -------
    :class:`Brackets`.

    Notes
    -----
    Claim: if the release comes from individual ranking with clusters of at least 2 records
    (k ≥ 2), every record's cluster sharing one released value, then
    lo ≤ ``true[i]`` ≤ hi for every record i whose true value lies in the domain.

    Proof. Individual ranking (DP-IR §3.2) sorts the n values of the attribute, ties in
    any order, cuts the sorted order into clusters of consecutive ranks of at least k
    records each, and releases for each record its cluster's noisy centroid; the
    post-processing (clipping, rounding) is a function of that one value. Let C be the
    cluster of i. (a) Every record of C has i's released value, so C \\ {i} ⊆ M, and
    C \\ {i} is not empty since |C| ≥ k ≥ 2. (b) Another cluster C' lies wholly below C
    in rank, and then ``true[j] <= true[c]`` for all j ∈ C', c ∈ C, or wholly above, and
    then ``true[j] >= true[c]``. Take j ∉ M ∪ {i} with ``true[j] < t``. By (a) j ∉ C. Were
    j's cluster above C, (b) would give ``true[j] >= true[c] >= t`` for any c ∈ C \\ {i}
    ⊆ M, a contradiction; so it lies below C and ``true[j] <= true[i]`` by (b). Hence
    lo ≤ ``true[i]``, and so is the domain's low bound; hi ≥ ``true[i]`` likewise.
    The proof uses neither the noise nor M = C \\ {i}: when released values of several
    clusters collide, M is their union (less i) and the bracket still holds, wider.

    The inequalities against t and T must be strict. With ``true[j] <= t``, a record
    outside M whose value equals t may sit in the cluster above C: for the values
    (1, 5, 5, 7) and k = 2 the clusters are {1, 5} and {5, 7}; for the target 1, M holds
    one 5, and the other 5 would give lo = 5 > 1.

    Computed in O(n log n): M's extremes without i are the first or second value of i's
    group sorted, and among the values below t only i's own can belong to i's group.
    """
    true = np.asarray(true, dtype=float)
    released = np.asarray(released)
    n = len(true)
    low, high = float(domain[0]), float(domain[1])
    _, group, counts = np.unique(released, return_inverse=True, return_counts=True)
    group = group.reshape(-1)
    grouped = counts[group] >= 2
    # each group's members sorted by true value: M's extremes without i are its group's
    # first and last, or the second and last-but-one where i is the first or the last
    order = np.lexsort((true, group))
    ends = np.cumsum(counts) - 1
    starts = ends - counts + 1
    first, last = order[starts][group], order[ends][group]
    second = order[np.minimum(starts + 1, ends)][group]
    before_last = order[np.maximum(ends - 1, starts)][group]
    rows = np.arange(n)
    least = np.where(rows == first, true[second], true[first])  # t = min over M
    most = np.where(rows == last, true[before_last], true[last])  # T = max over M
    ranked = np.sort(true)
    # lo: the largest value below t, less one copy of true[i] when it is below t (no other
    # member of i's group is below t)
    below = np.searchsorted(ranked, least, side="left")
    top = ranked[np.maximum(below - 1, 0)]
    lo_at = below - 1 - ((true < least) & (top == true))
    # hi: the smallest value above T, less one copy of true[i] when it is above T
    above = np.searchsorted(ranked, most, side="right")
    bottom = ranked[np.minimum(above, n - 1)]
    hi_at = above + ((true > most) & (bottom == true))
    low_by_record = grouped & (lo_at >= 0)
    high_by_record = grouped & (hi_at < n)
    lo = np.where(low_by_record, ranked[np.clip(lo_at, 0, n - 1)], low)
    hi = np.where(high_by_record, ranked[np.clip(hi_at, 0, n - 1)], high)
    return Brackets(lo, hi, low_by_record, high_by_record, grouped)


def attackable_methods() -> list[str]:
    """The registered methods the attack applies to: those that cluster each attribute on
    its own (``partition == "attribute"``: individual ranking, every cluster sharing one
    released value) and release record i at row i."""
    return [name for name, cls in METHODS.items() if cls.partition == "attribute"]


def _check_method(name: object, form: str | None) -> tuple[type[Method], str, str | None]:
    """The class of method ``name``, its label (the runner's: a variant
    ``<method>/<form>`` keeps its name) and the release form asked (``form``, or the
    variant's), after checking the attack applies to the method and that it takes option
    ``form`` (when one is asked)."""
    if not isinstance(name, str):
        raise TypeError(f"method must be a method name, got {name!r}")
    cls = method_class(name)
    eligible = attackable_methods()
    if cls.name not in eligible:
        raise ParameterError(
            f"method {cls.name!r} does not release per-attribute clusters in record order "
            f"(individual ranking, each cluster sharing one value), which the attack "
            f"brackets; choose one of {eligible}"
        )
    variant_form = split_variant(name)[1]
    if variant_form is not None:
        if form is not None and form != variant_form:
            raise ParameterError(
                f"method {name!r} names form {variant_form!r} and form={form!r} another; give one"
            )
        form = variant_form
    return cls, name if variant_form is not None else cls.name, form


def _epsilons(epsilon: float | Sequence[float]) -> list[float]:
    """``epsilon`` (one number or a list) as a checked list of distinct values."""
    values = [epsilon] if isinstance(epsilon, numbers.Real) else epsilon
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        raise TypeError(f"epsilon must be a number or a list of numbers, got {epsilon!r}")
    if not values:
        raise ParameterError("epsilon is an empty list; give at least one value")
    checked = [check_epsilon(value, "epsilon") for value in values]
    repeated = sorted({e for e in checked if checked.count(e) > 1})
    if repeated:
        raise ParameterError(f"epsilon lists {repeated[0]:g} twice")
    return checked


def load_named_dataset(name: object) -> Dataset:
    """The data set of config ``conf/dataset/<name>.yaml``, composed and built as the
    runner builds it (Hydra's ``dataset=<name>``, then
    :func:`~anonlab.datasets.load_dataset`), once per process."""
    from anonlab.config import CONF_DIR

    names = sorted(path.stem for path in (CONF_DIR / "dataset").glob("*.yaml"))
    return _built_dataset(check_choice(name, "dataset", names))


@functools.cache
def _built_dataset(name: str) -> Dataset:
    """:func:`load_named_dataset` of a known config ``name``."""
    from anonlab.config import compose_config
    from anonlab.datasets import load_dataset

    config = compose_config(f"dataset={name}")["dataset"]
    if config.get("loader") == "csv" and not config.get("path"):
        raise ParameterError(
            f"dataset {name!r} reads a user's CSV file (dataset.path), which "
            "the attack does not take; build a Dataset and call "
            "bracketing_attack(dataset=...) from Python"
        )
    return load_dataset(config)


def protected_view(data: Dataset, attribute: str, m: int) -> Dataset:
    """``data`` protecting m attributes: ``attribute`` and the first m − 1 others, in the
    data set's order, which are the first m (DP-IR §4.2) when ``attribute`` is among them.
    A method that clusters each attribute on its own releases ``attribute`` the same
    whichever the others are: m matters through the budget ε/m only."""
    m = check_int(m, "m", 1, len(data.attributes))
    names = [a.name for a in data.attributes]
    chosen = {attribute, *[name for name in names if name != attribute][: m - 1]}
    return replace(data, protected=tuple(name for name in names if name in chosen))


@dataclass(frozen=True)
class AttackPlan:
    """Everything the attack needs, checked (:func:`plan_attack`).

    Attributes
    ----------
    view : the data set view protected (its first m attributes).
    dataset_name : the data set's name, as the runner's cell ids hash it.
    method : the method's label, as the runner's cell ids hash it (a variant
        ``<method>/<form>`` keeps its name).
    form : the release form (``records``: the papers' record order).
    k, m : cluster size and number of protected attributes.
    attribute, column : the attacked attribute and its position in the view.
    seed : master seed of the releases.
    seeds : releases per ε (:func:`release_streams`).
    methods : ``(ε, method)`` of each release.
    """

    view: Dataset
    dataset_name: str
    method: str
    form: str
    k: int
    m: int
    attribute: str
    column: int
    seed: int
    seeds: int
    methods: tuple[tuple[float, Method], ...]


def plan_attack(
    dataset: str | Dataset = DEFAULT_DATASET,
    method: str = DEFAULT_METHOD,
    k: int = DEFAULT_K,
    epsilon: float | Sequence[float] = DEFAULT_EPSILONS,
    attribute: str = DEFAULT_ATTRIBUTE,
    m: int | None = None,
    seed: int = 0,
    form: str | None = None,
    seeds: int = DEFAULT_SEEDS,
) -> AttackPlan:
    """Check every input of :func:`bracketing_attack` and build its methods; no release is
    drawn. Raises a :class:`ParameterError` or :class:`TypeError` naming the input.

    Parameters
    ----------
    dataset : a data set config's name (``conf/dataset/<name>.yaml``) or a
        :class:`~anonlab.datasets.Dataset`.
    method : a registered method that clusters each attribute on its own and releases in
        record order (:func:`attackable_methods`).
    k : the method's cluster size, at least 2.
    epsilon : one ε or a list of them, one release each.
    attribute : the attacked attribute, numerical and among the first ``m``.
    m : the number of protected attributes (:func:`protected_view`: ``attribute`` and the
        first m − 1 others); ``None``: the data set's protected attributes as they are
        (every attribute of a named data set, 13 on Census).
    seed : master seed of the releases (:func:`release_streams`).
    form : the method's release form (its option ``form``); ``None``: the default, record
        order. A form that keeps no record's place gives rows marked not applicable.
    seeds : releases per ε, each from its own stream.
    """
    cls, label, form = _check_method(method, form)
    epsilons = _epsilons(epsilon)
    seed = check_int(seed, "seed", 0)
    seeds = check_int(seeds, "seeds", 1)
    data = dataset if isinstance(dataset, Dataset) else load_named_dataset(dataset)
    names = [a.name for a in data.attributes] if m is not None else list(data.protected)
    if not isinstance(attribute, str) or attribute not in names:
        raise ParameterError(
            f"attribute {attribute!r} is not among the "
            f"{'' if m is not None else 'protected '}attributes of {data.name!r}: {names}"
        )
    view = data if m is None else protected_view(data, attribute, m)
    column = view.protected.index(attribute)
    attr = view.protected_attributes[column]
    if attr.categorical or attr.domain is None:
        raise ParameterError(
            f"attribute {attribute!r} is categorical; the attack brackets "
            "a numerical attribute's values"
        )
    k = check_int(k, "k", 2, view.n)  # k = 1: no record has a cluster-mate (brackets)
    options = {} if form is None else {"form": form}
    methods = []
    for eps in epsilons:
        built = make_method(cls.name, {"k": k, "epsilon": eps}, options)
        built.check(view)
        methods.append((eps, built))
    return AttackPlan(
        view,
        data.name,
        label,
        RECORDS if form is None else form,
        k,
        len(view.protected),
        attribute,
        column,
        seed,
        seeds,
        tuple(methods),
    )


def release_streams(plan: AttackPlan) -> list[np.random.SeedSequence]:
    """The ``plan.seeds`` independent streams of the releases: the children of
    ``numpy.random.SeedSequence(plan.seed)``. Stream i serves release i at every ε (and
    every m and form of the same master seed), so rows differ only in what they vary."""
    return np.random.SeedSequence(plan.seed).spawn(plan.seeds)


def attack_row(
    plan: AttackPlan,
    epsilon: float,
    method: Method,
    stream: int = 0,
    source: np.random.SeedSequence | None = None,
) -> dict[str, Any]:
    """The attack on release ``stream`` of ``plan`` at ``epsilon`` (drawn from ``source``,
    by default that stream of :func:`release_streams`), as a table row."""
    view, attr = plan.view, plan.view.protected_attributes[plan.column]
    source = release_streams(plan)[stream] if source is None else source
    # the method's own release, laid out in its form (record order unless form= says)
    release = method.release(view, np.random.default_rng(source))
    true = view.protected_values[:, plan.column]
    row: dict[str, Any] = {
        "dataset": plan.dataset_name,
        "method": plan.method,
        "form": plan.form,
        "k": plan.k,
        "m": plan.m,
        "attribute": plan.attribute,
        "seed": plan.seed,
        "stream": stream,
        "epsilon": epsilon,
        "n": view.n,
    }
    if not release.record_aligned:
        reason = (
            f"form={plan.form}: the release keeps no record's place, so the target "
            "has no row to start from"
        )
        return {
            **row,
            "applicable": False,
            "reason": reason,
            "released_values": None,
            "grouped": 0,
            "bracketed": 0,
            "share_bracketed": 0.0,
            "median_width_pct": 100.0,
            "p90_width_pct": 100.0,
            **{_share_column(t): 0.0 for t in THRESHOLDS},
            "violations": 0,
        }
    released = np.asarray(release.values)[:, plan.column]
    # DP's adversary knows every record but the target's (Dwork & Roth 2014, §2.3)
    found = brackets(true, released, attr.domain)
    width = 100.0 * found.width / attr.width
    bracketed = int(np.count_nonzero(found.both_by_records))
    return {
        **row,
        "applicable": True,
        "reason": "",
        "released_values": len(np.unique(released)),
        "grouped": int(np.count_nonzero(found.grouped)),
        "bracketed": bracketed,
        "share_bracketed": bracketed / view.n,
        "median_width_pct": float(np.median(width)),
        "p90_width_pct": float(np.percentile(width, 90)),
        **{_share_column(t): float(np.mean(width < t)) for t in THRESHOLDS},
        "violations": found.violations(true),
    }


def _share_column(threshold: float) -> str:
    return f"share_width_below_{threshold:g}pct"


def bracketing_attack(*args: Any, **options: Any) -> pd.DataFrame:
    """Release a data set once per ε and seed and bracket every record's value from the
    others'.

    The arguments are :func:`plan_attack`'s, in its order: ``dataset``, ``method``, ``k``,
    ``epsilon``, ``attribute``, ``m``, ``seed``, ``form`` and ``seeds``, each with its
    default.

    Returns
    -------
    pandas.DataFrame
        One row per ε and stream (:func:`summarise` gives one per ε): the settings,
        ``stream``, ``n``, ``applicable`` and ``reason``,
        ``released_values`` (distinct released values of the attribute: the clusters
        the adversary sees), ``grouped`` (records with at least one cluster-mate),
        ``bracketed`` and ``share_bracketed`` (records bracketed on both sides by other
        records' values, not by the domain's bounds), ``median_width_pct`` and
        ``p90_width_pct`` (bracket widths in % of the domain width, a record without a
        bracket counting 100 %), ``share_width_below_1pct`` and ``share_width_below_5pct``,
        and ``violations`` (records whose true value is outside their bracket: 0). A row
        not applicable (a release without record order) brackets nothing: shares 0,
        widths 100 %.

    Raises
    ------
    ParameterError, TypeError : a bad input, before any release is drawn.
    """
    return attack_rows(plan_attack(*args, **options))


def attack_rows(plan: AttackPlan) -> pd.DataFrame:
    """:func:`bracketing_attack` of a checked ``plan``."""
    streams = release_streams(plan)
    return pd.DataFrame(
        [
            attack_row(plan, eps, built, i, stream)
            for eps, built in plan.methods
            for i, stream in enumerate(streams)
        ]
    )


#: the columns :func:`summarise` keeps as they are (equal over a row's releases)
SETTINGS = ("dataset", "method", "form", "k", "m", "attribute", "seed", "epsilon")
#: the columns :func:`summarise` reduces to their median, min and max over the releases
SPREAD = ("share_bracketed", "median_width_pct")


def summarise(rows: pd.DataFrame) -> pd.DataFrame:
    """One row per setting and ε of :func:`bracketing_attack`'s releases: ``seeds`` (how
    many), ``n``, ``applicable``, the median, min and max over the releases of
    ``share_bracketed`` and ``median_width_pct`` (``<column>_median``, ``_min``,
    ``_max``), ``violations`` summed over them, and ``reason``."""
    out = []
    for key, group in rows.groupby(list(SETTINGS), sort=False):
        row: dict[str, Any] = dict(zip(SETTINGS, key, strict=True))
        row.update(
            seeds=len(group), n=int(group["n"].iloc[0]), applicable=bool(group["applicable"].all())
        )
        for column in SPREAD:
            values = group[column].to_numpy(dtype=float)
            row.update(
                {
                    f"{column}_median": float(np.median(values)),
                    f"{column}_min": float(values.min()),
                    f"{column}_max": float(values.max()),
                }
            )
        row.update(violations=int(group["violations"].sum()), reason=group["reason"].iloc[0])
        out.append(row)
    return pd.DataFrame(out)


def _spread(row: pd.Series, column: str, digits: int) -> str:
    """``median (min–max)`` of ``column`` in a :func:`summarise` row."""
    low, mid, high = (row[f"{column}_{part}"] for part in ("min", "median", "max"))
    return f"{mid:.{digits}f} ({low:.{digits}f}–{high:.{digits}f})"


def markdown(table: pd.DataFrame) -> str:
    """The attack's summary (:func:`summarise`) as Markdown, with what it did and what its
    columns mean."""
    first = table.iloc[0]
    lines = [
        "# Bracketing attack",
        "",
        f"`{first['method']}` (k={first['k']}, m={first['m']}, form `{first['form']}`) on "
        f"`{first['dataset']}` (n={first['n']}), {first['seeds']} releases per ε (the child "
        f"streams of master seed {first['seed']}); attacked attribute `{first['attribute']}`. "
        "An adversary who knows every other record's true value reads off the target's "
        "cluster-mates (equal released values) and brackets the target's value between the "
        "records of the clusters below and above (`anonlab.audit.attack.brackets`). Each "
        "cell is the median over the releases with their range (min–max). `share "
        "bracketed`: records bounded on both sides by other records' values; `median "
        "width %`: the median bracket width in % of the attribute's domain, a record without "
        "cluster-mates counting 100 %; `violations`: brackets that miss the true value, over "
        "every release.",
        "",
    ]
    header = ["epsilon", "n", "seeds", "share bracketed", "median width %", "violations"]
    lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    notes = []
    for _, row in table.iterrows():
        start = [f"{row['epsilon']:g}", str(row["n"]), str(row["seeds"])]
        if not row["applicable"]:
            cells = [*start, "not applicable", "", ""]
            notes.append(f"ε = {row['epsilon']:g}: {row['reason']}")
        else:
            cells = [
                *start,
                _spread(row, "share_bracketed", 3),
                _spread(row, "median_width_pct", 2),
                str(row["violations"]),
            ]
        lines.append("| " + " | ".join(cells) + " |")
    if notes:
        lines += ["", "Not applicable:", ""] + [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def write_attack(rows: pd.DataFrame, folder: Path) -> list[Path]:
    """The summary of the releases ``rows`` (:func:`summarise`) as ``attack.csv`` and
    ``attack.md`` in ``folder``, and ``rows`` as ``attack_releases.csv``, each written
    atomically."""
    from anonlab.audit.table import _atomic_write

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    table = summarise(rows)
    paths = folder / CSV_NAME, folder / MARKDOWN_NAME, folder / RELEASES_NAME
    _atomic_write(paths[0], table.to_csv(index=False))
    _atomic_write(paths[1], markdown(table))
    _atomic_write(paths[2], rows.to_csv(index=False))
    return list(paths)


def parse_epsilons(text: str) -> list[float]:
    """``[0.1,1,10]``, ``0.1,1,10`` or ``1`` as a list of numbers (checked later)."""
    inner = text.strip()
    if inner.startswith("[") and inner.endswith("]"):
        inner = inner[1:-1]
    values = []
    for part in inner.split(","):
        try:
            value = float(part)
        except ValueError:
            raise ParameterError(
                f"epsilon must be a number or a list like [0.1,1,10], got {text!r}"
            ) from None
        if not math.isfinite(value):
            raise ParameterError(f"epsilon must be finite, got {text!r}")
        values.append(value)
    return values


#: the command's keys and how each value is read
KEYS = {
    "dataset": str,
    "method": str,
    "k": int,
    "m": int,
    "attribute": str,
    "epsilon": parse_epsilons,
    "seed": int,
    "seeds": int,
    "form": str,
    "results_dir": str,
}


def parse(argv: Sequence[str]) -> dict[str, Any]:
    """The command's ``key=value`` pairs, converted (a leading ``+`` is ignored)."""
    return key_values(argv, KEYS, "the attack")


def command(argv: Sequence[str]) -> int:
    """``python -m anonlab.audit attack [key=value …]``: print the attack's Markdown summary
    over the seeds (and write it with ``results_dir=``); returns the exit status."""
    args = list(argv)
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.split("\n\n")[0] + "\n\n" + USAGE)
        return 0
    try:
        values = parse(args)
        folder = values.pop("results_dir", None)
        if folder is not None:
            folder = check_results_dir(Path(folder))
        plan = plan_attack(**values)
    except (ParameterError, TypeError) as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    rows = attack_rows(plan)
    print(markdown(summarise(rows)), end="")
    if folder is not None:
        for path in write_attack(rows, folder):
            print(f"wrote {path}", file=sys.stderr)
    return 0
