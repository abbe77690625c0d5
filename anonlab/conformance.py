"""Conformance checks of registered components: what every method, metric, grid axis and
data set must do, as small checks run over the registries.

In the style of scikit-learn's ``check_estimator``: :func:`check_method`,
:func:`check_metric`, :func:`check_axis` and :func:`check_dataset` each yield
``(check_name, check)`` pairs, ``check()`` raising an :class:`AssertionError` (or the
component's own error) when the component fails it; :func:`run_checks` runs a battery and
raises one :class:`AssertionError` naming the component and every failed check. Methods
are built from the parameters they declare
(:meth:`~anonlab.methods.base.Method.test_parameters`), metrics with the options they
declare (``test_params``, else each choice), both on a tiny data set (:func:`tiny_dataset`);
an axis is checked with the test and bad values it declares; data sets (their sources and
their configs) are loaded from the vendored files, never downloaded.
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from functools import cache
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd

import anonlab.data_fetch as data_fetch
from anonlab.axes import Axis
from anonlab.config import CONF_DIR, load_yaml
from anonlab.datasets import SOURCES, Dataset, build_dataset, load_dataset
from anonlab.guarantee import NOTIONS, PRIVACY_NOTIONS, Guarantee
from anonlab.mechanisms.measurements import Measurement
from anonlab.methods import METHODS, grid_axes, make_method
from anonlab.methods.base import Method
from anonlab.methods.guarantees import guarantee
from anonlab.metrics import METRICS
from anonlab.metrics.base import CONTROL_SHARES, REQUIREMENTS, control_split
from anonlab.release import Release
from anonlab.validation import ParameterError

__all__ = [
    "Check",
    "axis_names",
    "check_axis",
    "check_dataset",
    "check_method",
    "check_metric",
    "run_checks",
    "tiny_dataset",
]

#: one check: its name and a callable that raises when the component fails it
Check = tuple[str, Callable[[], None]]

#: values probed for an axis of a method's own, one of which it must refuse
PROBES: tuple[Any, ...] = (-1, -1.0, math.nan, math.inf, 10**9)


@cache
def tiny_dataset(n: int = 30) -> Dataset:
    """``n`` records of three whole-numbered attributes with public domains: two
    quasi-identifiers and a confidential attribute, and a two-class target."""
    rng = np.random.default_rng(20240601)
    frame = pd.DataFrame(
        {
            "q1": rng.integers(0, 50, n),
            "q2": rng.integers(0, 50, n),
            "c": rng.integers(0, 8, n),
            "y": np.arange(n) % 2,
        }
    )
    return build_dataset(
        "conformance",
        frame,
        ["q1", "q2", "c"],
        domains={"q1": [0, 60], "q2": [0, 60], "c": [0, 10]},
        roles={"q1": "quasi_identifier", "q2": "quasi_identifier", "c": "confidential"},
        integer=True,
        target={"column": "y", "threshold": 0.5, "labels": ["no", "yes"]},
    )


def run_checks(checks: Iterable[Check], component: str) -> list[str]:
    """Run every check of ``checks``; return the names of those run.

    Raises
    ------
    AssertionError
        Naming ``component`` and each failed check with its error.
    """
    ran, failed = [], []
    for name, check in checks:
        ran.append(name)
        try:
            check()
        except Exception as error:  # noqa: BLE001 - every failure is reported
            failed.append(f"{name}: {type(error).__name__}: {error}")
    if failed:
        raise AssertionError(f"{component} fails conformance check(s):\n  " + "\n  ".join(failed))
    return ran


# --- methods -----------------------------------------------------------------------------


def _split(cls: type[Method], params: Mapping[str, Any]) -> tuple[dict, dict]:
    """A test parameter set as ``(axes, options)`` of ``make_method``."""
    choices = cls.choices()
    unknown = set(params) - set(cls.axes) - set(choices)
    assert not unknown, f"test_params {dict(params)} name no axis or option: {sorted(unknown)}"
    axes = {k: v for k, v in params.items() if k in cls.axes}
    return axes, {k: v for k, v in params.items() if k in choices}


def _built(name: str) -> list[Method]:
    cls = METHODS[name]
    return [make_method(name, *_split(cls, params)) for params in cls.test_parameters()]


@cache
def _release(method: Method, seed: int) -> Release:
    """``method``'s release of :func:`tiny_dataset` drawn with ``seed`` (made once: the
    checks compare releases, never change them)."""
    data = tiny_dataset()
    method.check(data)
    return method.release(data, np.random.default_rng(seed))


def check_method(name: str) -> Iterator[Check]:
    """The checks of registered method ``name``, built from its test parameters on
    :func:`tiny_dataset`."""
    cls = METHODS[name]
    data = tiny_dataset()

    def builds_from_test_params() -> None:
        made = _built(name)
        assert made, "test_parameters() gives no parameter set"
        for method, params in zip(made, cls.test_parameters(), strict=True):
            assert isinstance(method, cls) and method.name == name
            assert method == make_method(name, *_split(cls, params)), "building twice differs"

    def axes_with_defaults_may_be_omitted() -> None:
        defaults = cls.axis_defaults()
        axes = _split(cls, cls.test_parameters()[0])[0]
        bare = make_method(name, {a: v for a, v in axes.items() if a not in defaults})
        for axis, default in defaults.items():
            assert getattr(bare, axis) == default, f"axis {axis!r} omitted is not its default"

    def releases_keep_shape_and_columns() -> None:
        for method in _built(name):
            release = _release(method, 0)
            values = np.asarray(release.values)
            m = len(data.protected)
            assert values.ndim == 2 and values.shape[1] == m, f"values of shape {values.shape}"
            assert np.issubdtype(values.dtype, np.number) and np.isfinite(values).all()
            for j, attribute in enumerate(data.protected_attributes):
                low, high = attribute.domain
                column = values[:, j]
                assert low <= column.min() and column.max() <= high, (
                    f"released column {j} leaves the domain of {attribute.name!r}"
                )
            frame = release.frame
            if release.record_aligned:
                assert values.shape[0] == data.n, f"{values.shape[0]} rows of {data.n}"
                assert list(frame.columns) == list(data.frame.columns), list(frame.columns)
            else:
                assert list(frame.columns)[:m] == list(data.protected), list(frame.columns)
            if cls.partition is not None and method.form == "records":
                labels = release.cluster_labels
                assert labels is not None and len(labels) == data.n, "no cluster labels"

    def reproducible_with_its_seed() -> None:
        method = _built(name)[0]
        # seed 0's release is the other checks' (made once); a fresh one must match it
        first = _release(method, 0).values
        again = method.release(data, np.random.default_rng(0)).values
        assert np.array_equal(first, again), "the same seed gives another release"
        other = _release(method, 1).values
        if cls.randomized:
            assert not np.array_equal(first, other), "another seed gives the same release"
        else:
            assert np.array_equal(first, other), "a deterministic method depends on the seed"

    def guarantee_uses_known_notions() -> None:
        for method in _built(name):
            m = len(data.protected)
            for stated in (method.claim(m), guarantee(method, m), _release(method, 0).guarantee):
                assert isinstance(stated, Guarantee), f"{stated!r} is not a Guarantee"
                assert stated.claimed in NOTIONS, f"claimed {stated.claimed!r}"
                assert stated.notion in NOTIONS, f"notion {stated.notion!r}"

    def privacy_claims_declare_mechanisms() -> None:
        for sampler in cls.choices().get("sampler", (None,)):
            axes, options = _split(cls, cls.test_parameters()[0])
            chosen = {**options, **({"sampler": sampler} if sampler else {})}
            method = make_method(name, axes, chosen)
            m = len(data.protected)
            if method.claim(m).claimed not in PRIVACY_NOTIONS:
                continue
            drawn = method.mechanisms()
            assert drawn, f"claims {method.claim(m).claimed} and declares no mechanism"
            assert all(isinstance(d, Measurement) for d in drawn)
            assert all(isinstance(d, Measurement) for d in method.categorical_mechanisms())
            stated = guarantee(method, m)
            if not all(d.exact for d in drawn):
                assert stated.notion == "none", f"an inexact mechanism keeps {stated.notion!r}"
                assert all(d.reason in (stated.reason or "") for d in drawn if not d.exact)

    def options_each_build() -> None:
        axes = _split(cls, cls.test_parameters()[0])[0]
        plain = make_method(name, axes)
        defaults = {option: choices[0] for option, choices in cls.choices().items()}
        assert plain == make_method(name, axes, {}) == make_method(name, axes, None)
        assert plain == make_method(name, axes, defaults) and plain.options == defaults
        for option, choices in cls.choices().items():
            for value in choices:
                if option == "form" and value not in cls.forms:
                    try:
                        make_method(name, axes, {"form": value})
                    except ParameterError as error:
                        assert "form" in str(error), str(error)
                    else:
                        raise AssertionError(f"form {value!r} is not in forms yet builds")
                    continue
                assert getattr(make_method(name, axes, {option: value}), option) == value

    def bad_axis_values_refused() -> None:
        axes = _split(cls, cls.test_parameters()[0])[0]
        for axis in cls.axes:
            declared = cls.axis(axis).bad_values  # each must be refused; else a probe
            refused = False
            for value in declared or PROBES:
                try:
                    make_method(name, {**axes, axis: value})
                except (ParameterError, TypeError) as error:
                    assert axis in str(error), f"{axis}={value!r}: error names no axis: {error}"
                    refused = refused or isinstance(error, ParameterError)
                else:
                    assert not declared, f"{axis}={value!r} is accepted"
            assert refused, f"axis {axis!r} refuses none of {list(PROBES)} by a ParameterError"

    yield from (
        (check.__name__, check)
        for check in (
            builds_from_test_params,
            axes_with_defaults_may_be_omitted,
            releases_keep_shape_and_columns,
            reproducible_with_its_seed,
            guarantee_uses_known_notions,
            privacy_claims_declare_mechanisms,
            options_each_build,
            bad_axis_values_refused,
        )
    )


# --- metrics -----------------------------------------------------------------------------

#: what the identity release stands in for in a metric's checks: every record its own
#: cluster, in record order
IDENTITY = SimpleNamespace(
    name="identity", partition="record", record_aligned=True, carries_class=False, k=1
)


def _finite(value: float | Mapping[str, float], what: str) -> None:
    values = list(value.values()) if isinstance(value, Mapping) else [value]
    assert values, f"{what}: no value"
    for v in values:
        assert isinstance(v, float) and math.isfinite(v), f"{what}: {value!r} is not finite"


def _measure(metric: Any, method: Any, view: Dataset, release: Release, seed: int = 0) -> Any:
    """The metric of ``release`` as a run computes it (a metric of control records on the
    release of the training part, the rest held out)."""
    if "control" in metric.requires:
        share = dict(metric.options).get("control", CONTROL_SHARES[0])
        training, control = control_split(view.n, share, np.random.default_rng(seed))
        if method is IDENTITY:
            part = view.rows(training)
            release = _identity(part)
        else:
            release = method.release(view.rows(training), np.random.default_rng(seed))
        release = replace(release, control=view.rows(control))
    return metric.of_release(view, release, np.random.default_rng(seed))


def _identity(view: Dataset) -> Release:
    n, m = view.n, len(view.protected)
    labels = np.tile(np.arange(n)[:, None], (1, m))
    return Release(view, np.array(view.protected_values, dtype=float), labels=labels, seconds=0.0)


def _givers(metric: Any, view: Dataset) -> Iterator[Method]:
    """The registered methods (built from their test parameters) whose release of
    ``view`` the metric accepts (:meth:`check`, :meth:`undefined`), in registry order."""
    for name in METHODS:
        try:
            method = _built(name)[0]
            method.check(view)
            metric.check(view, method)
        except (ParameterError, TypeError):
            continue
        if not metric.undefined(view, method):
            yield method


def _on_a_release(metric: Any, view: Dataset, seed: int = 0) -> tuple[str, Any]:
    """``(method, value)``: the metric of the first accepted method's release it is
    defined on (a requirement of one option only, such as ``unit: cluster``, is not in
    ``requires``: a release it refuses when computed is passed over)."""
    refused = []
    for method in _givers(metric, view):
        try:
            return method.name, _measure(metric, method, view, _release(method, 0), seed)
        except ParameterError as error:
            refused.append(f"{method.name}: {error}")
    raise AssertionError("no registered method gives a release it measures; " + "; ".join(refused))


def check_metric(name: str) -> Iterator[Check]:
    """The checks of registered metric ``name`` on :func:`tiny_dataset`, under each of its
    test options."""
    metric = METRICS[name]
    data = tiny_dataset()

    def requires_known_needs() -> None:
        unknown = [need for need in metric.requires if need not in REQUIREMENTS]
        assert not unknown, f"requires {unknown}; the vocabulary is {list(REQUIREMENTS)}"
        assert len(set(metric.requires)) == len(metric.requires), "a need is listed twice"

    def options_each_set() -> None:
        for option, choices in metric.option_choices.items():
            assert len(choices) >= 2, f"option {option!r} offers {list(choices)}"
            for value in choices:
                assert dict(metric.with_options(**{option: value}).options)[option] == value
        for options in metric.test_options():
            metric.with_options(**options)

    def finite_on_identity() -> None:
        for options in metric.test_options():
            chosen = metric.with_options(**options)
            chosen.check(data, IDENTITY)
            _finite(_measure(chosen, IDENTITY, data, _identity(data)), f"options {options}")

    def finite_on_a_methods_release() -> None:
        for options in metric.test_options():
            method, value = _on_a_release(metric.with_options(**options), data)
            _finite(value, f"{method}'s release, options {options}")

    def reproducible_with_its_seed() -> None:
        if metric.measured:
            return  # a run time: no two measurements agree
        method, first = _on_a_release(metric, data, seed=3)
        again = _on_a_release(metric, data, seed=3)
        assert (method, first) == again, f"the same seed differs on {method}'s release"

    yield from (
        (check.__name__, check)
        for check in (
            requires_known_needs,
            options_each_set,
            finite_on_identity,
            finite_on_a_methods_release,
            reproducible_with_its_seed,
        )
    )


# --- grid axes ---------------------------------------------------------------------------


@cache
def _rule_dataset() -> Dataset:
    """:func:`tiny_dataset`'s records with every domain set by the rule [0, α·max]: a data
    set every view can be taken of (α cannot change declared domains)."""
    data = tiny_dataset()
    roles = {a.name: a.role for a in data.attributes}
    return build_dataset("conformance_rule", data.frame, list(roles), roles=roles, integer=True)


def axis_names() -> list[str]:
    """Every grid axis (:func:`~anonlab.methods.grid_axes`: shared, the methods' own and
    the data view's), by name."""
    return list(grid_axes())


def check_axis(axis: str | Axis) -> Iterator[Check]:
    """The checks of a grid axis (its name, or the :class:`~anonlab.axes.Axis` itself) as
    it is declared: labelled; its test value accepted; each of its bad values (else of
    :data:`PROBES`, one at least) refused by an error naming it; above its limit on a data
    set, refused; an axis of the data view selects a view of a tiny data set at its test
    value."""
    axis = axis if isinstance(axis, Axis) else grid_axes()[axis]
    key = f"grid.{axis.name}"

    def is_labelled() -> None:
        assert axis.label and axis.symbol, "declares no label or symbol"

    def test_value_accepted() -> None:
        axis.check(axis.test_value, key)

    def bad_values_refused() -> None:
        values = axis.bad_values or PROBES
        refused = False
        for value in values:
            try:
                axis.check(value, key)
            except (ParameterError, TypeError) as error:
                assert key in str(error), f"{value!r}: the error names no {key}: {error}"
                refused = refused or isinstance(error, ParameterError)
            else:
                assert not axis.bad_values, f"{key}={value!r} is accepted"
        assert refused, f"refuses none of {list(values)} by a ParameterError"

    def limit_refused_above() -> None:
        data = _rule_dataset()
        limit = axis.limit(data)
        assert axis.limit_unit, "declares no limit_unit (what its limit counts)"
        axis.check(limit, key, limit)
        try:
            axis.check(limit + 1, key, limit)
        except ParameterError as error:
            assert key in str(error), f"the error names no {key}: {error}"
        else:
            raise AssertionError(f"{key}={limit + 1!r} above the data's {limit} is accepted")

    def views_a_data_set() -> None:
        assert axis.test_value is not None, "declares no test_value to take a view at"
        data = _rule_dataset()
        value = axis.check(axis.test_value, key, axis.limit(data) if axis.limit else None)
        view = axis.view(data, value)
        assert isinstance(view, Dataset), f"view gives {type(view).__name__}, not a Dataset"
        again = axis.view(data, value)
        assert (view.n, view.protected) == (again.n, again.protected), "views differ"
        assert list(view.frame.columns) == list(data.frame.columns), "columns changed"

    checks: list[Callable[[], None]] = [is_labelled, bad_values_refused]
    if axis.test_value is not None:
        checks.append(test_value_accepted)
    if axis.limit is not None:
        checks.append(limit_refused_above)
    if axis.view is not None:
        checks.append(views_a_data_set)
    yield from ((check.__name__, check) for check in checks)


# --- data sets ---------------------------------------------------------------------------


def _listed(value: Any) -> list[str]:
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, str):
        return [value]
    return [str(v) for v in value]


def check_dataset(name: str, conf_dir: Path = CONF_DIR) -> Iterator[Check]:
    """The checks of data set ``name``: of its config ``conf/dataset/<name>.yaml`` if there
    is one (loaded from the vendored files, never downloaded; its declared schema; a
    config that reads a user's file, ``path: null``, is left to its source's checks), and
    of the registered source (``dataset.loader``) of that name if there is one
    (:func:`check_source`)."""
    path = Path(conf_dir) / "dataset" / f"{name}.yaml"
    if not path.is_file() and name not in SOURCES:
        raise KeyError(f"no data set config {str(path)!r} and no data source {name!r}")
    if path.is_file():
        yield from _check_config(path)
    if name in SOURCES:
        yield from check_source(name)


def _check_config(path: Path) -> Iterator[Check]:
    """The checks of one data set config file."""
    config = load_yaml(path.read_text("utf-8"))
    loader = config.get("loader")
    loaded: list[Dataset] = []

    def dataset() -> Dataset:
        if not loaded:
            loaded.append(load_dataset(config))
        return loaded[0]

    def declares_a_known_loader() -> None:
        assert loader in SOURCES, f"loader {loader!r} is not one of {list(SOURCES)}"

    def loads() -> None:
        view = dataset()
        assert isinstance(view, Dataset) and view.n > 0, "no records"
        assert view.name == config.get("name", loader), view.name

    def schema_is_the_declared_one() -> None:
        view = dataset()
        categorical = _listed(config.get("categorical"))
        declared = _listed(config.get("attributes")) or [
            *_listed(config.get("numeric")),
            *categorical,
        ]
        assert [a.name for a in view.attributes] == declared, [a.name for a in view.attributes]
        integer = config.get("integer")
        for attribute in view.attributes:
            values = view.frame[attribute.name]
            if attribute.name in categorical:
                assert attribute.categorical and attribute.taxonomy is not None, attribute.name
                continue
            assert not attribute.categorical, f"{attribute.name} is not declared categorical"
            whole = integer is True or attribute.name in _listed(integer)
            assert attribute.integer == whole, f"{attribute.name}: integer={attribute.integer}"
            numbers = values.to_numpy(dtype=float)
            if whole:
                assert np.array_equal(numbers, np.round(numbers)), f"{attribute.name} not whole"
            low, high = attribute.domain
            assert low <= numbers.min() and numbers.max() <= high, f"{attribute.name} domain"
        for column, role in (config.get("roles") or {}).items():
            assert view.attribute(column).role == role, f"{column}: role {role!r}"
        if config.get("target"):
            assert view.target is not None and view.target.nunique() == 2, "target classes"

    checks: list[Callable[[], None]] = [declares_a_known_loader]
    source = SOURCES.get(loader)
    if source is not None and not (source.needs_file and not config.get("path")):
        checks += [loads, schema_is_the_declared_one]
    yield from ((check.__name__, check) for check in checks)


def check_source(name: str) -> Iterator[Check]:
    """The checks of the registered data source ``name``
    (:class:`~anonlab.datasets.sources.Source`): it describes itself, its options are
    keywords of its reader, its data-view axes have views, its vendored files match their
    checksums, and it reads a table of records (a source of a user's file refuses a
    missing ``dataset.path`` instead)."""
    source = SOURCES[name]

    def describes_itself() -> None:
        assert source.description.strip(), "declares no description"
        assert "\n" not in source.description, "the description is not one line"

    def options_are_reader_keywords() -> None:
        parameters = inspect.signature(source.reader).parameters
        variadic = any(p.kind is p.VAR_KEYWORD for p in parameters.values())
        unknown = [o for o in source.options if o not in parameters and not variadic]
        assert not unknown, f"options {unknown} are no keywords of its reader"

    def axes_have_views() -> None:
        for axis in source.axes:
            assert axis.view is not None, f"axis {axis.name!r} selects no view"
            assert grid_axes().get(axis.name) is axis, f"axis {axis.name!r} is not registered"

    def checksums_verified() -> None:
        known = data_fetch.manifest()
        for file in source.files:
            assert file in known, f"{file} is not in data_fetch/sources.toml"
            data_fetch.verify(data_fetch.raw_dir() / file, known[file]["sha256"])

    def refuses_a_missing_path() -> None:
        try:
            source.read({"path": None})
        except ParameterError as error:
            assert "dataset.path" in str(error), str(error)
        else:
            raise AssertionError("reads without a path")

    def reads_a_table() -> None:
        frame = source.read({})
        assert isinstance(frame, pd.DataFrame), f"reads a {type(frame).__name__}"
        assert len(frame) > 0 and len(frame.columns) > 0, f"reads a {frame.shape} table"
        assert frame.columns.is_unique, "column names repeat"

    checks: list[Callable[[], None]] = [describes_itself, options_are_reader_keywords]
    if source.axes:
        checks.append(axes_have_views)
    if source.files:
        checks.append(checksums_verified)
    checks.append(refuses_a_missing_path if source.needs_file else reads_a_table)
    yield from ((check.__name__, check) for check in checks)


def dataset_names(conf_dir: Path = CONF_DIR) -> list[str]:
    """Every data set: each config (``dataset=NAME``) and each registered source
    (``dataset.loader=NAME``), by name."""
    configs = {path.stem for path in (Path(conf_dir) / "dataset").glob("*.yaml")}
    return sorted(configs | set(SOURCES))
