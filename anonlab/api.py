"""The Python API: protect a DataFrame, as a function (:func:`protect`) or a scikit-learn
transformer (:class:`Protector`), and measure a release (:func:`evaluate`).

The same data set, method and metric validation as the command line: every bad input is
one :class:`~anonlab.validation.ParameterError` (a :class:`ValueError`) or
:class:`TypeError` naming the parameter, raised before any work.

The defaults are those of a release one publishes: a cryptographic generator (ChaCha20)
keyed with fresh OS entropy unless a ``seed`` is given, public bounds required by methods
that claim a privacy loss ε (``domains`` for numeric columns, ``hierarchies`` for text
columns, or ``domains="data"`` to read them off the data, which voids the notion), no
step that depends on the private values outside the mechanism (whole-number columns are
declared with ``integer``, never inferred), the ``discrete`` Laplace sampler and an exact
exponential mechanism, which resist floating-point attacks, and a budget that composes
when an ``accountant`` is given (:class:`~anonlab.accountant.BudgetAccountant`). The
research engine (``anonlab run``) keeps derived seeds and the papers' sampler for
byte-identical results, and its releases say so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from anonlab.accountant import BudgetAccountant, check_accountant
from anonlab.datasets import DATA_DOMAINS, Dataset, build_dataset
from anonlab.datasets.build import DEFAULT_ALPHA, observed_bounds
from anonlab.guarantee import PRIVACY_NOTIONS
from anonlab.mechanisms.generators import check_generator, make_generator
from anonlab.methods import Method, make_method, method_class
from anonlab.methods.guarantees import before_release, claim
from anonlab.metrics import get_metric
from anonlab.validation import MAX_SEED, ParameterError, check_int, check_options

#: ``released.attrs[GUARANTEE]``: the release's guarantee as a dict
#: (:class:`~anonlab.guarantee.Guarantee`)
GUARANTEE = "guarantee"
#: the sampler of a library release (the engine's default, ``numpy``, is the papers')
LIBRARY_SAMPLER = "discrete"

#: the command line's config keys and this interface's argument names, for messages
#: (the most specific first)
WORDS = (
    (r"dataset 'frame': ", ""),
    (
        r"set dataset\.target=\{column: NAME, threshold: NUMBER, labels: \[low, high\]\}",
        "pass target={'column': NAME, 'threshold': NUMBER, 'labels': [LOW, HIGH]}",
    ),
    (r"dataset\.domains=data", 'domains="data"'),
    (r"dataset\.domains", "domains"),
    (r"dataset\.hierarchies", "hierarchies"),
    (r"dataset\.roles", "roles"),
    (r"dataset\.target\.(\w+)", r"target['\1']"),
    (r"dataset\.target", "target"),
    (r"dataset\.alpha", "alpha"),
    (r"dataset\.integer", "integer"),
    (r"dataset\.(numeric|categorical|attributes)", "columns"),
    (r"\bgrid\.(\w+)", r"grid['\1']"),
    (r"\bfigure_x\b", "x"),
    (r"\bset figures=\[\]", "set figures=False"),
)


def python_words(message: str) -> str:
    """``message`` of the engine (in the command line's words) in this interface's."""
    for pattern, words in WORDS:
        message = re.sub(pattern, words, message)
    return message


def _method(method: str, params: Mapping[str, Any]) -> Method:
    """The method ``method`` with ``params`` (grid parameters and options), checked; a
    method that draws Laplace noise gets the ``discrete`` sampler unless one is given."""
    cls = method_class(method)
    choices = cls.choices()
    unknown = sorted(set(params) - {*cls.axes, *choices, "aggr"})
    if unknown:
        raise ParameterError(
            f"method {cls.name!r} takes {list(cls.axes)} and options "
            f"{sorted(choices)}, not {unknown}"
        )
    form = params.get("form", "records")
    if not isinstance(form, str) or form not in choices["form"]:
        raise ParameterError(f"form must be one of {list(choices['form'])}, got {form!r}")
    options = {p: v for p, v in params.items() if p in choices}
    if cls.draws_laplace:
        options.setdefault("sampler", LIBRARY_SAMPLER)
    try:
        return make_method(method, {p: v for p, v in params.items() if p not in choices}, options)
    except ParameterError as error:  # in this interface's words: form=…, not options.x.form
        raise ParameterError(str(error).replace(f"options.{cls.name}.", "")) from None


def _check_seed(seed: Any, generator: Any = None) -> str:
    """Check ``seed`` and ``generator``; the generator's name: by default ``chacha20``
    (a cryptographic generator, fresh OS entropy) without a seed, ``pcg64`` (numpy's,
    the research engine's) with one."""
    if seed is not None:
        check_int(seed, "seed", 0, MAX_SEED)
    if generator is None:
        return "chacha20" if seed is None else "pcg64"
    return check_generator(generator)


def _needs_public_bounds(method: Method, m: int) -> bool:
    """Whether ``method`` claims a privacy loss ε, whose proof assumes public bounds."""
    return claim(method, m).claimed in PRIVACY_NOTIONS


def _check_bounds(
    method: Method,
    frame: pd.DataFrame,
    columns: Sequence[str],
    domains: Any,
    hierarchies: Mapping[str, str] | None,
) -> None:
    """Check ``domains`` (a mapping, or ``"data"``: the bounds read off the data); unless
    it is ``"data"``, a method that claims a privacy loss refuses a protected column
    without public bounds (a numeric one without ``domains``, a text one without
    ``hierarchies``)."""
    if isinstance(domains, str):
        if domains != DATA_DOMAINS:
            raise ParameterError(
                f"domains must be a mapping {{column: [low, high]}} or "
                f"{DATA_DOMAINS!r}, got {domains!r}"
            )
        return
    if domains is not None and not isinstance(domains, Mapping):
        raise TypeError(
            f"domains must be a mapping {{column: [low, high]}} or "
            f"{DATA_DOMAINS!r}, got {type(domains).__name__}"
        )
    if not _needs_public_bounds(method, len(columns)):
        return
    present = [c for c in columns if c in frame.columns]  # the data set's check names others
    text = [c for c in present if not pd.api.types.is_numeric_dtype(frame[c])]
    numeric = [c for c in present if c not in text and c not in (domains or {})]
    text = [c for c in text if c not in (hierarchies or {})]
    if not numeric and not text:
        return
    suggested = []
    if numeric:  # observed ranges, rounded outward: a start, to widen into public bounds
        ranges = {c: observed_bounds(frame[c]) for c in numeric}
        suggested.append(f"domains={ranges}")
    if text:
        suggested.append(f"hierarchies={dict.fromkeys(text, 'FILE')}")
    raise ParameterError(
        f"method {method.name!r} claims {claim(method, 1).claimed}, whose proof assumes "
        f"public bounds, and columns {[*numeric, *text]} have none: give "
        f"{', '.join(suggested)} (the observed ranges are a start: widen them to bounds "
        "known without looking at the data; a hierarchy file lists every possible value), "
        "or domains='data' to read them off the data (the release then guarantees none)"
    )


def check_frame(frame: Any, name: str = "frame") -> None:
    """One clear error for a frame no method can take: not a DataFrame, no rows, a column
    name used twice, or a text column that holds numbers (convert it with
    ``pd.to_numeric``, as the command line reads them, or name it in ``hierarchies``)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{name} must be a pandas DataFrame, got {type(frame).__name__}")
    if len(frame) == 0:
        raise ParameterError(f"{name} has no rows")
    unnamed = [c for c in frame.columns if not isinstance(c, str)]
    if unnamed:
        raise ParameterError(
            f"{name}'s columns must be named by text, got {list(frame.columns)!r}; name "
            f"them, e.g. {name}.columns = {[f'x{i}' for i in range(min(len(frame.columns), 3))]}"
        )
    repeated = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    if repeated:
        raise ParameterError(f"{name} has two columns named {repeated[0]!r}; rename one")


def _numbers_as_text(frame: pd.DataFrame, column: str) -> bool:
    values = frame[column]
    if pd.api.types.is_numeric_dtype(values) or values.dtype == bool:
        return False
    parsed = pd.to_numeric(values.astype(str).str.strip(), errors="coerce")
    return bool(parsed.notna().all())


def _columns(
    frame: Any,
    columns: Sequence[str] | str | None,
    target: Mapping[str, Any] | None = None,
    hierarchies: Mapping[str, str] | None = None,
) -> list[str]:
    """The protected columns: ``columns``, by default every numeric column of ``frame``;
    a text column of numbers is refused unless ``hierarchies`` makes it a category."""
    check_frame(frame)
    if columns is not None and not (
        isinstance(columns, str)
        or (isinstance(columns, Sequence) and all(isinstance(c, str) for c in columns))
    ):
        raise ParameterError(f"columns must be a column name or a list of names, got {columns!r}")
    if columns is None:
        columns = [
            c
            for c in frame.columns
            if pd.api.types.is_numeric_dtype(frame[c])
            and not pd.api.types.is_bool_dtype(frame[c])
            and c != (target or {}).get("column")
        ]
        if not columns:
            raise ParameterError(
                "columns: the frame has no numeric column; name the columns to protect"
            )
    chosen = [columns] if isinstance(columns, str) else list(columns)
    for column in chosen:
        categories = column in (hierarchies or {})
        if column in frame.columns and not categories and _numbers_as_text(frame, column):
            raise ParameterError(
                f"columns: {column!r} holds numbers stored as text; convert it "
                f"(frame[{column!r}] = pd.to_numeric(frame[{column!r}])) to protect it as a "
                "number, or give its taxonomy in hierarchies to protect it as a category"
            )
    return chosen


#: the protected columns of a frame, checked (:func:`_columns`), for :mod:`anonlab.study`
protected_columns = _columns


def _check(method: Method, dataset: Dataset) -> None:
    """``method.check(dataset)``, its error in this interface's words (``roles=``)."""
    try:
        method.check(dataset)
    except ParameterError as error:
        raise ParameterError(python_words(str(error))) from None


def _dataset(
    frame: Any,
    columns: Sequence[str] | str | None,
    *,
    domains: Mapping[str, Sequence[float]] | None,
    hierarchies: Mapping[str, str] | None,
    roles: Mapping[str, str] | None,
    alpha: float,
    target: Mapping[str, Any] | None = None,
    integer: bool | Sequence[str] | str | None = None,
) -> Dataset:
    """The data set view of ``frame`` protecting ``columns`` (by default every numeric
    column; text columns are categorical attributes; ``integer`` the numeric ones
    declared whole-numbered)."""
    columns = _columns(frame, columns, target, hierarchies)
    if isinstance(domains, str):  # "data": the [0, alpha·max] rule for every column
        domains = None
    text = [
        c for c in columns if c in frame.columns and not pd.api.types.is_numeric_dtype(frame[c])
    ]
    try:
        return build_dataset(
            "frame",
            frame.reset_index(drop=True),
            columns,
            alpha=alpha,
            domains=domains,
            roles=roles,
            categorical=text,
            hierarchies=hierarchies,
            target=target,
            integer=integer,
        )
    except ParameterError as error:  # in this interface's words: integer=…
        raise ParameterError(python_words(str(error))) from None


def protect(
    frame: pd.DataFrame,
    method: str,
    columns: Sequence[str] | None = None,
    *,
    domains: Mapping[str, Sequence[float]] | str | None = None,
    hierarchies: Mapping[str, str] | None = None,
    roles: Mapping[str, str] | None = None,
    alpha: float = DEFAULT_ALPHA,
    integer: bool | Sequence[str] | str | None = None,
    seed: int | None = None,
    generator: str | None = None,
    accountant: BudgetAccountant | None = None,
    part: str | None = None,
    **params: Any,
) -> pd.DataFrame:
    """The release of ``frame`` by ``method``: every column, the protected ones replaced.

    Parameters
    ----------
    frame : the records; it is not modified.
    method : a registered method (``anonlab.list_methods()``), e.g. ``"ir_laplace"``.
    columns : the attributes to protect, in order; by default every numeric column.
        A text column is a categorical attribute (DP-IR §3.4), with a flat taxonomy unless
        ``hierarchies`` gives its file.
    domains : ``{column: [low, high]}`` public bounds, required for every numeric column
        by a method that claims a privacy loss ε (DP, iDP); or ``"data"`` to read them off
        the data by DP-IR's ``[0, alpha·max]`` rule, which voids the privacy notion (the
        bounds disclose the data). Methods without ε (k-anonymity, t-closeness) use the
        rule for columns without one.
    hierarchies : ``{column: file}`` taxonomies of text columns (``value,parent`` or ARX),
        required by the same methods unless ``domains="data"`` (a flat taxonomy of the
        values found is read off the data).
    roles : ``{column: role}`` (``quasi_identifier``, ``confidential``) for t-closeness.
    alpha : the domain rule's factor for numeric columns without a declared domain.
    integer : the numeric columns declared public to hold whole numbers (a list, or
        ``True`` for every protected numeric column), whose noisy values are rounded
        (DP-IR §4.3); a declared column holding a fraction is an error. ``None``
        (default): none, nothing is rounded. ``"data"`` reads them off the data, which
        voids the notion of a release that rounds (it would tell whole-number data
        from a neighbour holding one fraction).
    seed : ``None`` (default): fresh OS entropy, a new release every call. An integer
        makes the release reproducible, and its guarantee says that anyone who knows the
        seed can reproduce the noise.
    generator : the bit generator drawn from (``guarantee["generator"]``): ``chacha20``,
        a cryptographic generator, or ``pcg64``, numpy's default, which is not. By
        default ``chacha20`` without a seed and ``pcg64`` with one (the engine's
        streams, for research).
    accountant : a :class:`~anonlab.accountant.BudgetAccountant` the release is charged
        to: it adds the ε the release's guarantee holds for, states the ε spent on
        these data so far in ``guarantee["spent"]``, and refuses, before any noise is
        drawn, a release that would pass its total (or one whose guarantee bounds no ε).
    part : with ``accountant``: the name of the cell of a public partition ``frame``
        is (releases of disjoint parts compose in parallel); ``None``: all the data.
    **params : the method's parameters, e.g. ``k=5, epsilon=1.0`` (``t`` for t-closeness),
        and its options: ``form`` (``records``, the papers' release; ``shuffled_columns``
        or ``shuffled_rows`` where the method's proof covers them), ``sampler``
        (``discrete`` by default; ``numpy``, the papers' floating-point draws) and its
        readings (``remainder="first"``); any other name is an error.

    Returns
    -------
    pandas.DataFrame
        The released records, with the columns and index of ``frame`` (synthetic data,
        ``mst`` and ``aim``: the protected columns only, on a fresh index); what the release
        guarantees is ``released.attrs["guarantee"]``, a dict of the fields of
        :class:`~anonlab.guarantee.Guarantee` (what the paper claims, what holds
        for the release as returned and why, ε per attribute and in total, k and t
        reached, caveat). A shuffled form keeps no record's place: the release holds the
        protected columns only, on a fresh index.
    """
    generator = _check_seed(seed, generator)
    check_accountant(accountant)
    if part is not None and accountant is None:
        raise ParameterError("part names a part of the data for an accountant: give one")
    if part is not None and not isinstance(part, str):
        raise ParameterError(f"part must be a name (str) or None, got {part!r}")
    released_by = _method(method, params)
    chosen = _columns(frame, columns, hierarchies=hierarchies)
    _check_bounds(released_by, frame, chosen, domains, hierarchies)
    dataset = _dataset(
        frame,
        chosen,
        domains=domains,
        hierarchies=hierarchies,
        roles=roles,
        alpha=alpha,
        integer=integer,
    )
    _check(released_by, dataset)
    spent = None
    if accountant is not None:
        spent = _charge(accountant, released_by, dataset, frame, part, seeded=seed is not None)
    release = released_by.release(
        dataset, make_generator(generator, seed), seeded=seed is not None, strict_bounds=True
    )
    out = release.frame
    if release.record_aligned:  # synthetic records get a fresh index (Release.frame)
        out.index = frame.index
    stated = release.guarantee.as_dict()
    if accountant is not None:
        stated |= {"spent": spent, "budget": accountant.epsilon}
    out.attrs[GUARANTEE] = stated
    return out


def _charge(
    accountant: BudgetAccountant,
    method: Method,
    dataset: Dataset,
    frame: pd.DataFrame,
    part: str | None,
    *,
    seeded: bool,
) -> float:
    """Charge ``accountant`` with the ε and δ the release of ``dataset`` by ``method``
    will hold for (known before any draw); the ε spent with it. A release whose
    guarantee bounds no ε cannot be composed and is refused."""
    planned = before_release(method, dataset, seeded=seeded, strict_bounds=True)
    if planned.notion not in PRIVACY_NOTIONS or planned.notion_epsilon is None:
        why = f": {planned.reason}" if planned.reason else ""
        raise ParameterError(
            f"accountant: method {method.name!r} in form {method.form!r} guarantees "
            f"{planned.notion!r} for this release, no ε to compose{why}"
        )
    return accountant.charge(method.name, planned.notion_epsilon, planned.delta or 0.0, frame, part)


#: what a released frame cannot give a metric: its clusters and the protection's timing
NOT_IN_A_FRAME = ("clusters", "record_partition", "seconds")


def evaluate(
    original: pd.DataFrame,
    released: pd.DataFrame,
    metrics: Sequence[str] = ("re", "jsd"),
    columns: Sequence[str] | None = None,
    *,
    domains: Mapping[str, Sequence[float]] | None = None,
    hierarchies: Mapping[str, str] | None = None,
    roles: Mapping[str, str] | None = None,
    alpha: float = DEFAULT_ALPHA,
    target: Mapping[str, Any] | None = None,
    seed: int = 0,
    control: pd.DataFrame | None = None,
    record_aligned: bool | None = None,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> pd.Series:
    """The ``metrics`` of a release of ``original``, averaged over the protected ``columns``
    as in the papers (``anonlab.list_metrics()`` lists them).

    Parameters
    ----------
    original : the records that were protected.
    released : their release, e.g. :func:`protect`'s: row for row (the same index), or,
        when its ``attrs["guarantee"]`` says it keeps no record's place (synthetic data,
        shuffled forms), as many rows in any order; metrics that compare each record with
        its own release are then refused, and ``f_measure`` trains on the release's own
        class column (``target``'s column), which only synthetic data carry.
    metrics : registered metric names. Metrics of clusters (``cluster_min``,
        ``cluster_mean``, ``max_emd`` with its default ``unit: cluster``) and ``runtime``
        need what a run keeps beside the release and are refused; run them through an
        experiment.
    columns, domains, hierarchies, roles, alpha : the protected attributes, as given to
        :func:`protect`; the domains are those of ``original``.
    target : ``{column, threshold, labels}``, the class of ``f_measure`` (iDP §4.2).
    seed : seeds randomized metrics (``f_measure``'s random forest, the attacks).
    control : records of the same population that ``released`` was NOT made from (held
        out before protecting ``original``), with ``original``'s columns: the control
        baseline that the attack-based risks (``singling_out``, ``linkability``,
        ``attribute_inference``) need.
    record_aligned : whether row i of ``released`` is the protected version of row i of
        ``original``. By default what ``released.attrs["guarantee"]`` says; a frame
        without a guarantee (saved and read back, or made elsewhere) says nothing, and
        metrics that pair each released record with its original are refused unless this
        is ``True``. Contradicting the guarantee is an error.
    options : ``{metric: {option: value}}``, the metrics' options as a run's config
        ``options.<metric>.<option>`` takes them (``anonlab.list_metrics()`` lists them),
        e.g. ``{"max_emd": {"unit": "class"}}``, which measures the released equivalence
        classes and needs no clusters; each names a metric of ``metrics``.

    Returns
    -------
    pandas.Series
        One value per metric, indexed by name; a metric with one value per class
        (``f_measure``) gives ``name[class]`` entries.
    """
    seed = check_int(seed, "seed", 0)
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen = _metrics(metrics, options)
    for metric in chosen:
        needs = set(metric.requires) | ({"seconds"} if metric.name == "runtime" else set())
        if needs & set(NOT_IN_A_FRAME):
            raise ParameterError(
                f"metric {metric.name!r} needs the release's clusters or "
                "timing, which a released frame does not carry; run it in "
                "an experiment (anonlab run)"
            )
    aligned = _record_aligned(released, record_aligned)
    if aligned is None:  # nothing says whether released keeps each record's place
        unknown = SimpleNamespace(
            name="the given release",
            record_aligned=False,
            carries_class=target is not None
            and isinstance(released, pd.DataFrame)
            and target.get("column") in released.columns,
        )
        for metric in chosen:
            if metric.refuses(unknown):
                raise ParameterError(
                    f"metric {metric.name!r} pairs each released record with its original, "
                    "and released carries no guarantee (attrs['guarantee'], lost when a "
                    "release is saved and read back) saying whether it keeps each record's "
                    "place: pass record_aligned=True if row i of released is the protected "
                    "version of row i of original, record_aligned=False if not (synthetic "
                    "data, a shuffled form)"
                )
        aligned = False
    own_class = (
        not aligned
        and target is not None
        and isinstance(released, pd.DataFrame)
        and target.get("column") in released.columns
    )
    stand_in = SimpleNamespace(
        name="the given release", record_aligned=aligned, carries_class=own_class
    )
    for metric in chosen:
        if metric.refuses(stand_in):
            raise ParameterError(
                f"metric {metric.name!r} pairs each released record with its original, and "
                "released keeps no record's place (its guarantee: record_aligned false, "
                "form or synthetic data); use a metric of distributions (jsd, "
                "variance_change, correlation_difference, marginal_tvd)"
            )
    view = _dataset(
        original,
        columns,
        domains=domains,
        hierarchies=hierarchies,
        roles=roles,
        alpha=alpha,
        target=target,
    )
    values = _released_values(view, original, released, aligned)
    for metric in chosen:
        try:
            metric.check(view, None)
        except ParameterError as error:  # in this interface's words: target=…
            raise ParameterError(python_words(str(error))) from None
    held = _control(view, control, [m.name for m in chosen if "control" in m.requires])
    if held is not None:
        _check_held_out(original, control, view.protected)
    from anonlab.methods.base import Release

    release = Release(
        view,
        values,
        record_aligned=aligned,
        target=(released[target["column"]].to_numpy() if own_class else None),
        control=held,
    )
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out: dict[str, float] = {}
    for metric in chosen:
        value = metric.of_release(view, release, rng)
        if isinstance(value, dict):
            out.update({f"{metric.name}[{part}]": v for part, v in value.items()})
        else:
            out[metric.name] = value
    undefined = {name: v for name, v in out.items() if not np.isfinite(v)}
    if undefined:
        name, value = next(iter(undefined.items()))
        raise ParameterError(
            f"metric {name!r} is {value} on this release: it is undefined for these data "
            "(e.g. a class absent from the test records, an attribute without spread, or "
            "no attribute pair with a trend in original for pair_trends' pairs: strong)"
        )
    return pd.Series(out, name="value", dtype=float)


def _metrics(metrics: Sequence[str], options: Mapping[str, Mapping[str, Any]] | None) -> list[Any]:
    """The registered ``metrics``, each with its ``options`` (``{metric: {option: value}}``,
    checked as a run's config ``options.<metric>.<option>``); options of a metric not in
    ``metrics`` are refused (they would measure nothing)."""
    chosen = [get_metric(name) for name in metrics]
    if options is None:
        return chosen
    if not isinstance(options, Mapping):
        raise ParameterError(
            f"options must be a mapping {{metric: {{option: value}}}}, got {options!r}"
        )
    for name in options:
        if name not in metrics:
            raise ParameterError(
                f"options.{name}: {name!r} is not among metrics {list(metrics)}; "
                "add it to metrics or drop its options"
            )
    return [
        metric.with_options(
            **check_options(metric.name, options.get(metric.name), metric.option_choices)
        )
        for metric in chosen
    ]


def _record_aligned(released: Any, given: bool | None = None) -> bool | None:
    """Whether ``released`` keeps each record in its place: what its guarantee says
    (``attrs["guarantee"]["record_aligned"]``), else ``given`` (``None``: unknown); a
    ``given`` that contradicts the guarantee raises."""
    if not isinstance(released, pd.DataFrame):
        raise TypeError(f"released must be a pandas DataFrame, got {type(released).__name__}")
    if given is not None and not isinstance(given, bool):
        raise ParameterError(f"record_aligned must be True, False or None, got {given!r}")
    stated = released.attrs.get(GUARANTEE)
    if not isinstance(stated, Mapping):
        return given
    says = stated.get("record_aligned", True) is not False
    if given is not None and given != says:
        raise ParameterError(
            f"record_aligned={given}: released's guarantee says record_aligned={says}"
        )
    return says


def _control(view: Dataset, control: Any, needing: Sequence[str]) -> Dataset | None:
    """The data set view of the ``control`` records (``original``'s attributes, domains
    and taxonomies); refused when a metric in ``needing`` lacks it."""
    if control is None:
        if needing:
            raise ParameterError(
                f"metric {needing[0]!r} compares an attack on original's records with one on "
                "control records the release was not made from: pass control=FRAME, "
                "records of the same population held out before protecting original"
            )
        return None
    if not isinstance(control, pd.DataFrame):
        raise TypeError(f"control must be a pandas DataFrame, got {type(control).__name__}")
    if len(control) < 2:
        raise ParameterError(f"control: {len(control)} rows; an attack's baseline needs 2")
    missing = [c for c in view.protected if c not in control.columns]
    if missing:
        raise ParameterError(f"control has no column {missing[0]!r}")
    frame = control[list(view.protected)].reset_index(drop=True)
    try:
        _released_values(view, frame, frame)  # numbers, finite, known categories
    except ParameterError as error:
        raise ParameterError(str(error).replace("released", "control", 1)) from None
    return Dataset("control", frame, tuple(view.protected_attributes), view.protected)


def _check_held_out(original: pd.DataFrame, control: pd.DataFrame, columns: Sequence[str]) -> None:
    """Refuse ``control`` records that are ``original``'s (the same index label and the
    same protected values): an attack's baseline on the records the release was made
    from measures no risk (risk 0 against itself)."""
    shared = original.index.intersection(control.index)
    if shared.empty:
        return
    mine = original.loc[shared, list(columns)].astype(str)
    theirs = control.loc[shared, list(columns)].astype(str)
    same = (mine.to_numpy() == theirs.to_numpy()).all(axis=1)
    if same.any():
        raise ParameterError(
            f"control shares {int(same.sum())} of its {len(control)} records with original "
            f"(the same index and values, first at index {shared[same][0]!r}); control "
            "records must be held out before protecting original, e.g. "
            "train, control = frame.iloc[::2], frame.iloc[1::2]"
        )


def _released_values(
    view: Dataset, original: pd.DataFrame, released: Any, aligned: bool = True
) -> np.ndarray:
    """The ``(n, m)`` matrix of ``released``'s protected columns, aligned with ``original``
    when ``aligned`` (categorical values as taxonomy codes)."""
    if not aligned and len(released) != len(original):
        raise ParameterError(
            f"released: {len(released)} rows against {len(original)} in "
            "original; a release holds as many records as its data"
        )
    if aligned and not released.index.equals(original.index):
        raise ParameterError(
            "released: its rows must be original's, with the same index "
            f"({len(released)} rows against {len(original)})"
        )
    missing = [c for c in view.protected if c not in released.columns]
    if missing:
        raise ParameterError(f"released has no column {missing[0]!r}")
    columns = []
    for attr in view.protected_attributes:
        column = released[attr.name].to_numpy()
        if attr.categorical:
            columns.append(attr.taxonomy.encode(column).astype(float))
        elif not pd.api.types.is_numeric_dtype(released[attr.name]):
            raise ParameterError(f"released column {attr.name!r} is not numeric")
        else:
            columns.append(column.astype(float))
    values = np.column_stack(columns)
    bad = ~np.isfinite(values)
    if bad.any():
        row, j = map(int, np.argwhere(bad)[0])
        raise ParameterError(
            f"released column {view.protected[j]!r} holds {values[row, j]} at row {row}: "
            "a release holds a finite value for every protected attribute"
        )
    return values


class Protector(TransformerMixin, BaseEstimator):
    """:func:`protect` as a scikit-learn transformer, for pipelines.

    ``Protector("ir_laplace", k=5, epsilon=1.0).fit_transform(frame)`` is
    ``protect(frame, "ir_laplace", k=5, epsilon=1.0)``. ``get_params``/``set_params``
    cover the method's parameters too (``set_params(k=10)``), so ``sklearn.clone`` and grid
    searches work. ``fit`` checks the method, its parameters and the columns on ``X`` and
    learns nothing; ``transform`` protects the frame it is given (in a pipeline, each call
    protects its own data) and returns a DataFrame with every column. After
    ``transform``, ``guarantee_`` is the release's guarantee (a dict, as
    ``released.attrs["guarantee"]``). The constructor takes :func:`protect`'s arguments
    but the frame: ``method``, ``columns``, ``domains``, ``hierarchies``, ``roles``,
    ``alpha``, ``seed`` and the method's ``**params``. Without a ``seed`` every
    ``transform`` draws fresh OS entropy, so no two transforms share noise; with one,
    every ``transform`` reproduces the same draws (research use: two transforms of
    neighbouring data then show the difference), and the guarantee says it is seeded.

    ``accountant``: a total ε (a number) gives the Protector a
    :class:`~anonlab.accountant.BudgetAccountant` of its own (``accountant_``, made at
    the first ``fit`` or ``transform``; a clone gets a fresh one), or pass a
    ``BudgetAccountant`` to share one ledger (clones share it too). Every ``transform``
    is then charged: its guarantee states the ε spent so far (``spent``), and the
    ``transform`` that would pass the total is refused before any noise is drawn. An
    accountant keeps the budget of one data set: transforming other data is refused.
    """

    _OWN = (
        "method",
        "columns",
        "domains",
        "hierarchies",
        "roles",
        "alpha",
        "integer",
        "seed",
        "generator",
        "accountant",
    )

    def __init__(
        self,
        method: str,
        columns: Sequence[str] | None = None,
        *,
        domains: Mapping[str, Sequence[float]] | None = None,
        hierarchies: Mapping[str, str] | None = None,
        roles: Mapping[str, str] | None = None,
        alpha: float = DEFAULT_ALPHA,
        integer: bool | Sequence[str] | str | None = None,
        seed: int | None = None,
        generator: str | None = None,
        accountant: BudgetAccountant | float | None = None,
        **params: Any,
    ) -> None:
        self.method = method
        self.columns = columns
        self.domains = domains
        self.hierarchies = hierarchies
        self.roles = roles
        self.alpha = alpha
        self.integer = integer
        self.seed = seed
        self.generator = generator
        self.accountant = accountant
        self.params = params

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments, the method's parameters included."""
        return {**{name: getattr(self, name) for name in self._OWN}, **self.params}

    def set_params(self, **params: Any) -> Protector:
        """Set constructor arguments or method parameters (checked at ``fit``)."""
        for name, value in params.items():
            if name in self._OWN:
                setattr(self, name, value)
            else:
                self.params[name] = value
        return self

    def _options(self) -> dict[str, Any]:
        options = {name: getattr(self, name) for name in self._OWN if name != "method"}
        options["accountant"] = self._accountant()
        return options

    def _accountant(self) -> BudgetAccountant | None:
        """The accountant every ``transform`` is charged to: the one given, or one of
        its own with the total given (made once, kept as ``accountant_``)."""
        if self.accountant is None or isinstance(self.accountant, BudgetAccountant):
            return self.accountant
        try:
            total = BudgetAccountant(self.accountant).epsilon
        except ParameterError as error:  # in this interface's words
            message = f"accountant: {error}".replace("epsilon", "a total ε")
            raise ParameterError(message) from None
        if not isinstance(getattr(self, "accountant_", None), BudgetAccountant):
            self.accountant_ = BudgetAccountant(total)
        # set_params(accountant=…) changes the total of the same ledger: what was spent stays
        self.accountant_.epsilon = total
        return self.accountant_

    def fit(self, X: pd.DataFrame, y: Any = None) -> Protector:
        """Check the method, its parameters and the columns on ``X``; nothing is learnt."""
        _check_seed(self.seed, self.generator)
        released_by = _method(self.method, self.params)
        options = self._options()
        for name in ("seed", "generator", "accountant"):
            del options[name]
        chosen = _columns(X, options["columns"], hierarchies=options["hierarchies"])
        _check_bounds(released_by, X, chosen, options["domains"], options["hierarchies"])
        _check(released_by, _dataset(X, **options))
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = len(X.columns)
        return self

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """The release of ``X`` (:func:`protect`), charged to the accountant if any."""
        released = protect(X, self.method, **self._options(), **self.params)
        self.guarantee_ = released.attrs[GUARANTEE]
        return released

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The output's columns: the input's, all of them."""
        return np.asarray(
            self.feature_names_in_ if input_features is None else input_features, dtype=object
        )
