"""The first stage of a run: its config and parameters, validated before any data is read,
any worker started or any kernel loaded.

:func:`validate` takes a composed config, the command line's or :func:`anonlab.study`'s,
and returns the run as declared (:class:`Declared`), or raises one error naming the real
cause in the command line's words (``grid.k``; :func:`anonlab.api.python_words` says it
in Python's). A run uses exactly what was declared: every grid key is an axis of a
chosen method or of the data view (:data:`~anonlab.datasets.axes.VIEW_AXES`), each value
checked by its axis's declaration (:class:`~anonlab.axes.Axis`), every chosen method finds
each axis it takes, and a single value is a one-value list (``grid.k=5``,
``grid={"k": 5}``).

What it knows of the methods, metrics and data-view axes (names, grid axes, options:
:class:`Components`) comes from their declarations once they are imported, else from a
cache of those facts keyed by the code's digest
(:func:`~anonlab.provenance.source_digest`), so that the command line validates without
importing them (NumPy, pandas and numba: more than a second).
"""

from __future__ import annotations

import difflib
import functools
import json
import math
import numbers
import socket
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from anonlab.axes import SHARED_AXES, Axis
from anonlab.config import (
    CONFIRMATORY,
    CONFIRMATORY_SEED_KEY,
    EXPLORATORY,
    OVERRIDES_KEY,
    PAPER_PROFILE,
    STAGES,
    apply_profile,
    experiment_name,
)
from anonlab.io import write_atomic
from anonlab.provenance import PACKAGE_DIR, override_key, run_folder, source_digest
from anonlab.readings import apply_reading
from anonlab.runner.artifacts import CACHE_KEY, check_cache_dir
from anonlab.validation import (
    MAX_SEED,
    ParameterError,
    cap_n_jobs,
    check_choice,
    check_int,
    check_options,
    check_results_dir,
)

#: ``figures: auto``: a study's figures are derived from what runs
AUTO = "auto"
#: config ``inapplicable``: a metric undefined for a cell is an error, or left out for it
INAPPLICABLE = ("error", "skip")
RUNNERS = ("local", "dask")
RESULTS_FILE = "results.parquet"
RUN_FILE = "run.json"  # beside it: the run's config, versions and code
#: config ``max_hours``: the longest a run may be estimated to take
#: (:mod:`anonlab.runner.plan`) before it is refused; a user raises it for a longer run
MAX_HOURS_KEY = "max_hours"
DEFAULT_MAX_HOURS = 24.0
#: ``<method>/<form>``: a method released in another form (as :mod:`anonlab.methods` reads
#: it, without importing it)
VARIANT_SEPARATOR = "/"


@dataclass(frozen=True)
class RunnerSpec:
    """Where batches run: ``local`` (a joblib pool of ``n_jobs`` workers) or ``dask`` (a
    Dask distributed scheduler at ``address``, or a local cluster of ``n_jobs`` workers
    when ``address`` is ``None``)."""

    name: str = "local"
    address: str | None = None


#: batches run here and in a local worker pool
LOCAL = RunnerSpec()


@dataclass(frozen=True)
class MethodFacts:
    """A registered method as validation sees it: its name, the grid axes it takes, its
    options (``{option: allowed values}``, the first the default) and the declaration of
    each axis (:class:`~anonlab.axes.Axis`; one with a check of its own that is not
    known here is checked when the method is built)."""

    name: str
    axes: tuple[str, ...]
    options: Mapping[str, tuple[Any, ...]]
    declared: Mapping[str, Axis] = field(default_factory=dict)
    #: the default of each axis that has one: a grid may leave such an axis out
    defaults: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Components:
    """What validation knows of the registered components: every method (by name, with
    its aliases and release forms), every metric with its options, which metrics are
    defined per attribute, the keys of a ``figures:`` entry and the axes of the data
    view, in the order their views are taken."""

    methods: Mapping[str, MethodFacts]
    aliases: Mapping[str, str]
    forms: tuple[str, ...]
    metrics: Mapping[str, Mapping[str, tuple[Any, ...]]]
    attribute_metrics: frozenset[str]
    figure_keys: frozenset[str]
    view_axes: Mapping[str, Axis] = field(default_factory=dict)

    def method(self, name: str) -> MethodFacts:
        """The method ``name`` (an alias, or a variant ``<method>/<form>``), as
        :func:`anonlab.methods.method_class` finds it and with its errors."""
        base, separator, form = str(name).partition(VARIANT_SEPARATOR)
        if separator and form not in self.forms:
            raise ParameterError(
                f"method {name!r}: {form!r} is not a release form; choose one of {list(self.forms)}"
            )
        base = self.aliases.get(base, base)
        return self.methods[check_choice(base, "method", list(self.methods))]

    def metric(self, name: str) -> Mapping[str, tuple[Any, ...]]:
        """The options of metric ``name``, with :func:`anonlab.metrics.get_metric`'s error."""
        return self.metrics[check_choice(name, "metric", list(self.metrics))]

    def axes(self) -> list[str]:
        """Every grid axis of a registered method, then of the data view."""
        return list(
            dict.fromkeys([*(a for m in self.methods.values() for a in m.axes), *self.view_axes])
        )

    def to_json(self) -> str:
        """The facts as JSON: each axis a method declares itself (``own``) and each axis
        of the data view by its :meth:`~anonlab.axes.Axis.facts` (a check of its own is a
        function: it runs where the axis is loaded); a shared axis by its name."""
        methods = {
            name: {
                "axes": list(m.axes),
                "options": {o: list(v) for o, v in m.options.items()},
                "own": {
                    a: axis.facts()
                    for a, axis in m.declared.items()
                    if axis is not SHARED_AXES.get(a)
                },
                "defaults": dict(m.defaults),
            }
            for name, m in self.methods.items()
        }
        return json.dumps(
            {
                "methods": methods,
                "aliases": dict(self.aliases),
                "forms": list(self.forms),
                "metrics": {n: {o: list(v) for o, v in c.items()} for n, c in self.metrics.items()},
                "attribute_metrics": sorted(self.attribute_metrics),
                "figure_keys": sorted(self.figure_keys),
                "view_axes": [axis.facts() for axis in self.view_axes.values()],
            }
        )

    @classmethod
    def from_json(cls, text: str) -> Components:
        """The facts :meth:`to_json` wrote."""
        data = json.loads(text)
        methods = {
            name: MethodFacts(
                name,
                tuple(m["axes"]),
                {o: tuple(v) for o, v in m["options"].items()},
                {
                    a: Axis.from_facts(m["own"][a]) if a in m["own"] else SHARED_AXES[a]
                    for a in m["axes"]
                },
                dict(m.get("defaults") or {}),
            )
            for name, m in data["methods"].items()
        }
        return cls(
            methods,
            dict(data["aliases"]),
            tuple(data["forms"]),
            {n: {o: tuple(v) for o, v in c.items()} for n, c in data["metrics"].items()},
            frozenset(data["attribute_metrics"]),
            frozenset(data["figure_keys"]),
            {f["name"]: Axis.from_facts(f) for f in data["view_axes"]},
        )


def live_components() -> Components:
    """The facts read off the registered classes and axes (importing them)."""
    from anonlab.datasets.axes import VIEW_AXES
    from anonlab.methods import ALIASES, METHODS
    from anonlab.metrics import METRICS, AttributeMetric
    from anonlab.plotting.spec import FigureSpec
    from anonlab.release import FORMS

    methods = {
        name: MethodFacts(
            cls.name,
            tuple(cls.axes),
            dict(cls.choices()),
            cls.declared_axes(),
            cls.axis_defaults(),
        )
        for name, cls in METHODS.items()
    }
    return Components(
        methods,
        dict(ALIASES),
        tuple(FORMS),
        {name: dict(metric.option_choices) for name, metric in METRICS.items()},
        frozenset(n for n, m in METRICS.items() if isinstance(m, AttributeMetric)),
        frozenset(FigureSpec.__dataclass_fields__),
        dict(VIEW_AXES),
    )


def cache_path(digest: str) -> Path:
    """Where the facts of the code with ``digest`` are cached (beside the package's
    compiled files)."""
    return PACKAGE_DIR / "__pycache__" / f"components-{digest[:16]}.json"


@functools.cache
def _cached_components(digest: str) -> Components:
    path = cache_path(digest)
    try:
        return Components.from_json(path.read_text(encoding="utf-8"))
    except (OSError, ValueError, KeyError, TypeError):
        pass
    facts = live_components()
    try:  # only a speed-up: a folder that cannot be written costs the imports each time
        path.parent.mkdir(exist_ok=True)
        write_atomic(path, lambda tmp: tmp.write_text(facts.to_json(), encoding="utf-8"))
        for old in path.parent.glob("components-*.json"):
            if old != path:
                old.unlink(missing_ok=True)
    except OSError:
        pass
    return facts


def components() -> Components:
    """The facts validation needs: from the classes when the registries are imported (a
    Python session, where a method, metric or data-view axis may have been registered
    since), else from the cache for this code (written from the classes when missing)."""
    if any(r in sys.modules for r in ("anonlab.methods", "anonlab.metrics", "anonlab.datasets")):
        return live_components()
    return _cached_components(source_digest())


@dataclass(frozen=True)
class Given:
    """What the user declared themselves, decided once, here, from the keys the overrides
    set (a study's arguments: every key), and recorded in ``run.json``: the policy the fit
    stage (:mod:`anonlab.runner.fit`) follows. What the user named is kept or refused with
    one error; what an experiment brings is fitted to the user's data with a note.

    ``keys`` are the config keys set (``grid.k``, ``methods``, ``dataset.path``);
    ``every_axis``: every grid axis is the user's (a Python call, or ``grid=`` itself
    set); ``study``: every method and metric is the user's (a study)."""

    keys: frozenset[str] = frozenset()
    every_axis: bool = False
    study: bool = False

    @classmethod
    def of(cls, overrides: Sequence[str], python: bool, study: bool) -> Given:
        """The policy of a run composed from ``overrides``."""
        keys = frozenset(override_key(o) for o in overrides)
        return cls(keys, python or "grid" in keys, study)

    def named(self, key: str) -> bool:
        """Whether the user set ``key`` themselves (``methods``, ``metrics``…): every
        method and metric key of a study is theirs."""
        return self.study or key in self.keys

    def replaced(self, root: str) -> bool:
        """Whether the user set ``root`` or a key under it (``dataset.path``)."""
        return any(k == root or k.startswith(f"{root}.") for k in self.keys)

    @property
    def own_data(self) -> bool:
        """Whether the run is on the user's data (``dataset…`` or ``datasets…`` set)."""
        return self.replaced("dataset") or self.replaced("datasets")

    def axes(self, grid: Mapping[str, Any]) -> set[str]:
        """The axes of ``grid`` the user gave; the others are the experiment's own."""
        if self.every_axis:
            return set(grid)
        return {k.split(".")[1] for k in self.keys if k.startswith("grid.")}

    def record(self) -> dict[str, Any]:
        """The policy as ``run.json`` records it."""
        return {"keys": sorted(self.keys), "every_axis": self.every_axis, "study": self.study}


@dataclass(frozen=True)
class Declared:
    """A run as declared, validated by :func:`validate`: nothing read, started or written.

    ``config`` is the resolved config (profile and reading applied) with the grid as it
    runs: each value a checked list, and an experiment's own axis that no chosen method
    takes left out (said in ``notes``)."""

    config: dict[str, Any]
    name: str
    overrides: tuple[str, ...]
    methods: tuple[str, ...]
    metrics: tuple[str, ...]
    metrics_by_attribute: tuple[str, ...]
    grid: dict[str, list[Any]]
    grid_by_method: dict[str, dict[str, list[Any]]]
    method_options: dict[str, dict[str, Any]]
    metric_options: dict[str, dict[str, Any]]
    reps: int
    seed: int
    stage: str
    n_jobs: int
    inapplicable: str
    study: bool  # figures: auto, derived from what runs
    out_dir: Path
    runner: RunnerSpec
    notes: tuple[str, ...] = ()
    max_hours: float = DEFAULT_MAX_HOURS  # the plan stage refuses a run estimated above
    given: Given = field(default_factory=Given)  # what the user declared (the fit policy)

    @property
    def results_path(self) -> Path:
        return self.out_dir / RESULTS_FILE


def names(value: Any, what: str) -> tuple[str, ...]:
    """``value`` (a list of names, or one name) as a tuple of names."""
    if value is None:
        return ()
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, Sequence):
        raise TypeError(f"{what} must be a list of names, got {value!r}")
    return tuple(str(v) for v in value)


def split_options(
    options: Any, parts: Components
) -> tuple[dict[str, dict[str, Any]], dict[str, dict[str, Any]]]:
    """The config's ``options`` (``{method or metric name: {option: value}}``) split into
    the methods' and the metrics', each validated against the options its method or
    metric declares; an unknown name, option or value raises a :class:`ParameterError`
    naming its key, e.g. ``options.jsd.bins``. Options of a registered method or metric
    the run does not use are checked and unused."""
    if options is None:
        return {}, {}
    if not isinstance(options, Mapping):
        raise ParameterError(
            f"options must be a mapping {{method or metric: {{option: value}}}}, got {options!r}"
        )
    methods: dict[str, dict[str, Any]] = {}
    metrics: dict[str, dict[str, Any]] = {}
    for name, given in options.items():
        if name in parts.methods:
            methods[name] = check_options(name, given, parts.methods[name].options)
        elif name in parts.metrics:
            metrics[name] = check_options(name, given, parts.metrics[name])
        else:
            raise ParameterError(
                f"options.{name}: {name!r} is not a registered method or "
                f"metric; choose among {sorted(parts.methods) + sorted(parts.metrics)}"
            )
    return methods, metrics


def check_same_ground(
    methods: Sequence[str],
    metrics: Sequence[str],
    method_options: Mapping[str, Mapping[str, Any]],
    metric_options: Mapping[str, Mapping[str, Any]],
    parts: Components,
) -> None:
    """Raise a :class:`ParameterError` unless every method with an EMD ground distance
    (the t-closeness methods) uses the one the ``max_emd`` metric reports with."""
    if "max_emd" not in metrics:
        return
    ground = metric_options.get("max_emd", {}).get("ground", parts.metrics["max_emd"]["ground"][0])
    for name in methods:
        method = parts.method(name)
        if "ground" not in method.options:
            continue
        chosen = method_options.get(method.name, {}).get("ground", method.options["ground"][0])
        if chosen != ground:
            raise ParameterError(
                f"options.{method.name}.ground={chosen!r} but options.max_emd.ground="
                f"{ground!r}: a run's t-closeness methods and its EMD metric must use the "
                "same ground distance; set both"
            )


def check_max_hours(value: Any) -> float:
    """``max_hours`` (hours a run may be estimated to take) as a float: a number > 0
    (``inf`` lifts the limit); else one :class:`ParameterError` naming it."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or math.isnan(value)
        or value <= 0
    ):
        raise ParameterError(
            f"{MAX_HOURS_KEY} must be a number of hours > 0 (the longest a run may be "
            f"estimated to take, e.g. {MAX_HOURS_KEY}=48), got {value!r}"
        )
    return float(value)


def check_dataset_alpha(value: Any, name: str) -> None:
    """A dataset config's ``alpha`` (domains [0, α·max] where none is declared): a finite
    number > 0."""
    if (
        isinstance(value, bool)
        or not isinstance(value, numbers.Real)
        or not (math.isfinite(value) and value > 0)
    ):
        raise ParameterError(f"{name} must be a finite number > 0, got {value!r}")


def listed(values: Any, key: str) -> list[Any]:
    """A grid value as a list: a single value is a one-value list; empty is an error."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        values = [values]
    if len(values) == 0:
        raise ParameterError(f"{key} is empty")
    return list(values)


def unknown_axis(key: str, axis: str, valid: Sequence[str], of: str) -> ParameterError:
    """The error for ``axis`` (config key ``key``), which is not in ``valid``: the nearest
    valid name, and every one."""
    close = difflib.get_close_matches(axis, valid, n=1)
    hint = f"did you mean {key.rsplit('.', 1)[0]}.{close[0]}? " if close else ""
    return ParameterError(f"{key} is not an axis of {of}; {hint}the axes are {', '.join(valid)}")


def check_values(key: str, values: Any, checks: Collection[Callable[[Any, str], Any]]) -> list[Any]:
    """The values of one axis (config key ``key``), listed, each passed through every
    check of the axis (the last one's value kept: checks also normalise types)."""
    out = []
    for value in listed(values, key):
        for check in checks:
            value = check(value, key)
        out.append(value)
    return out


def declared_grid(
    config: Mapping[str, Any],
    methods: Sequence[str],
    given: Given,
    parts: Components,
) -> tuple[dict[str, list[Any]], dict[str, dict[str, list[Any]]], list[str]]:
    """The grid and ``grid_by_method`` as they run, and a note for each experiment axis
    left out. A key the user gave must be an axis of a chosen method or of the data view,
    and so must every key of ``grid_by_method.<method>`` for its method; an experiment's
    own axis that no chosen method takes (its methods replaced by the user's) is left out
    with a note; a chosen method must find every axis it takes."""
    grid = config.get("grid") or {}
    if not isinstance(grid, Mapping):
        raise ParameterError(f"grid must map axes to values, e.g. grid.k=[2,5], got {grid!r}")
    by_method = config.get("grid_by_method") or {}
    if not isinstance(by_method, Mapping):
        raise ParameterError(f"grid_by_method must map methods to axes, got {by_method!r}")
    if given.named("methods") and not given.replaced("grid_by_method"):
        # the experiment's own k for methods the user's list no longer runs
        by_method = {m: axes for m, axes in by_method.items() if m in methods}
    unknown = [m for m in by_method if m not in methods]
    if unknown:
        raise ParameterError(
            f"grid_by_method.{unknown[0]}: {unknown[0]!r} is not one of methods {list(methods)}"
        )
    facts = {name: parts.method(name) for name in methods}
    views = parts.view_axes
    valid = list(dict.fromkeys([*(a for f in facts.values() for a in f.axes), *views]))
    given_axes = given.axes(grid)
    everywhere = parts.axes()
    of = f"methods {list(methods)} or of the data"
    kept, notes = {}, []
    for axis, values in grid.items():
        if axis in valid:
            kept[axis] = values
        elif axis in given_axes or axis not in everywhere:
            raise unknown_axis(f"grid.{axis}", str(axis), valid, of)
        else:
            notes.append(f"grid.{axis} left out: no method of this run ({list(methods)}) takes it")
    own: dict[str, Mapping[str, Any]] = {}
    for name, axes in by_method.items():
        if not isinstance(axes, Mapping):
            raise ParameterError(f"grid_by_method.{name} must map axes to values, got {axes!r}")
        mine = [*facts[name].axes, *views]
        for axis in axes:
            if axis not in mine:
                raise unknown_axis(
                    f"grid_by_method.{name}.{axis}", str(axis), mine, f"method {name!r}"
                )
        own[name] = axes
    for name, method in facts.items():
        missing = [
            a
            for a in method.axes
            if a not in kept and a not in own.get(name, {}) and a not in method.defaults
        ]
        if missing:
            raise ParameterError(f"method {method.name!r} needs grid axis grid.{missing[0]}")

    def checks(axis: str, chosen: Sequence[str]) -> list[Callable[[Any, str], Any]]:
        if axis in views:
            return [views[axis].check]
        declared = [facts[m].declared[axis] for m in chosen if axis in facts[m].axes]
        distinct = {id(d): d for d in declared}  # methods sharing one axis: one check
        return [d.check for d in distinct.values()]

    checked = {
        axis: check_values(f"grid.{axis}", v, checks(axis, methods)) for axis, v in kept.items()
    }
    checked_by_method = {
        name: {
            axis: check_values(f"grid_by_method.{name}.{axis}", v, checks(axis, [name]))
            for axis, v in axes.items()
        }
        for name, axes in own.items()
    }
    return checked, checked_by_method, notes


def dataset_configs(
    config: Mapping[str, Any], given: Given
) -> tuple[list[Mapping[str, Any]], str | None]:
    """The dataset configs an experiment runs on, and a note when they were replaced.

    ``datasets: {key: dataset config}`` (Hydra: ``- /dataset@datasets.key: name``) runs
    the grid on several data sets, e.g. TCM's MCD and HCD; otherwise the single
    ``dataset``. A ``dataset`` the user set (``dataset=csv``, ``dataset.path=…``) on an
    experiment with several data sets runs that one data set in their place, never the
    paper's data silently; ``datasets.<key>.…`` overrides change one of them."""
    several = dict(config.get("datasets") or {})
    single = dict(config.get("dataset") or {})
    if not several:
        return [single], None
    if not given.replaced("dataset"):
        return list(several.values()), None
    replaced = [str(c.get("name", key)) for key, c in several.items()]
    return [single], (
        f"dataset {single.get('name')!r} (set by the user) runs in place of this "
        f"experiment's data sets {replaced}"
    )


def figure_axes(
    grid: Mapping[str, Sequence[Any]], taken: Collection[str], x: str | None, datasets: int
) -> tuple[str, str | None, str | None, str | None]:
    """A study's figure axes ``(x, facet, row, series)``: ``x`` the named axis or the
    swept axis (more than one value, in ``taken``: the axes of the run's methods and of
    the data view) with the most values, each other swept axis a facet, a row of panels,
    then a marker series; the data sets first when there are several."""
    swept = [
        axis
        for axis, values in grid.items()
        if axis in taken
        and isinstance(values, Sequence)
        and not isinstance(values, str)
        and len(values) > 1
    ]
    if x is not None and x not in grid:
        raise ParameterError(f"figure_x={x!r} is not a grid axis {sorted(grid)}")
    if x is not None and x not in swept:  # one value: every curve a single point
        raise ParameterError(
            f"figure_x={x!r} has one value {list(grid[x])}: a figure needs an axis with "
            f"several (grid.{x}=[…]); the swept axes are {swept}"
        )
    if x is None:
        if not swept:
            raise ParameterError(
                "a study's figures need an axis to draw against: sweep one grid axis "
                "(e.g. grid.epsilon=[0.1,1,10]) or set figures=[]"
            )
        x = max(swept, key=lambda a: len(grid[a]))  # ties: the first in grid order
    others = [a for a in swept if a != x]
    if datasets > 1:
        others.insert(0, "dataset")
    if len(others) > 3:
        raise ParameterError(
            f"a study's figures draw x and three more axes; {others} vary: "
            "fix some (one value each) or set figures explicitly"
        )
    facet, row, series = (others + [None, None, None])[:3]
    return x, facet, row, series


def check_figures(figures: Any, keys: Collection[str]) -> bool:
    """Whether the figures are a study's (:data:`AUTO`); otherwise each must be a
    mapping of figure keys (:class:`~anonlab.plotting.spec.FigureSpec`'s fields)."""
    if figures == AUTO:
        return True
    if (
        not isinstance(figures, Sequence)
        or isinstance(figures, str)
        or not all(isinstance(f, Mapping) for f in figures)
    ):
        raise ParameterError(
            f"figures must be a list of figure mappings, [] or {AUTO!r}, got {figures!r}"
        )
    for figure in figures:
        unknown = set(figure) - set(keys)
        if unknown:
            raise ParameterError(f"figure {figure.get('name')!r}: unknown key(s) {sorted(unknown)}")
    return False


def check_fanout(config: Mapping[str, Any]) -> bool:
    """Whether the config fans its experiments out (``fanout: true``); raises a
    :class:`ParameterError` for a value other than true or false, or without
    ``runner=dask``."""
    fanout = config.get("fanout", False)
    if not isinstance(fanout, bool):
        raise ParameterError(f"fanout must be true or false, got {fanout!r}")
    runner = config.get("runner") or {}
    if fanout and runner.get("name", "local") != "dask":
        raise ParameterError(
            "fanout=true sends each experiment to a Dask cluster: add runner=dask "
            "(and runner.address=tcp://scheduler:8786 for a running cluster)"
        )
    return fanout


def runner_spec(config: Mapping[str, Any]) -> RunnerSpec:
    """The validated ``runner`` config group: ``local`` or ``dask`` (with ``address``). A
    scheduler at ``address`` must be reachable and each of its workers run this code and
    these library versions (:func:`~anonlab.runner.workers.check_cluster`)."""
    name = check_choice(str(config.get("name", "local")), "runner", RUNNERS)
    address = config.get("address")
    if name == "dask":
        try:
            import dask.distributed  # noqa: F401
        except ImportError as error:
            raise ParameterError(
                "runner=dask needs dask.distributed: pip install 'dask[distributed]'"
            ) from error
    if name == "dask" and address:
        from anonlab.runner.workers import check_cluster

        check_reachable(str(address))
        check_cluster(str(address))  # every worker runs this code, before any work
    return RunnerSpec(name=name, address=str(address) if address else None)


def check_reachable(address: str, timeout: float = 3.0) -> None:
    """Raise a :class:`ParameterError` unless a TCP connection to the Dask scheduler at
    ``address`` (``tcp://host:port``, ``tls://…`` or ``host:port``) opens within
    ``timeout`` seconds; other transports are left to Dask."""
    scheme, _, rest = address.rpartition("://")
    if scheme not in ("", "tcp", "tls"):
        return
    host, _, port = rest.rpartition(":")
    if not host or not port.isdigit():
        raise ParameterError(f"runner.address={address!r} must be tcp://host:port")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout).close()
    except OSError as error:
        raise ParameterError(
            f"runner.address={address!r}: cannot reach a Dask scheduler ({error.strerror or error})"
        ) from None


def validate(config: Mapping[str, Any]) -> Declared:
    """Validate a composed config (:func:`~anonlab.config.compose_config`, or the Python
    study's) into the run it declares, before any data, worker or kernel; raises a
    :class:`ParameterError` (a :class:`TypeError` for a wrong type) naming the first bad
    key. The config's ``profile`` (:func:`~anonlab.config.apply_profile`), then its
    ``reading`` (:func:`~anonlab.readings.apply_reading`) apply first; ``overrides``, the
    overrides it was composed from, tell the user's grid axes from the experiment's
    (:func:`declared_grid`) and place its results (:func:`~anonlab.provenance.run_folder`)."""
    overrides = tuple(str(o) for o in config.get(OVERRIDES_KEY) or ())
    # the one place that reads which keys the user set: the policy of every later stage
    # (whether every method and metric is theirs, a study, is known once figures are read)
    given = Given.of(overrides, config.get("interface") == "python", study=False)
    config = apply_reading(apply_profile(config, keep=sorted(given.keys)))
    name = experiment_name(config.get("experiment"))
    reps = check_int(config.get("reps", 1), "reps", 1)
    seed = check_int(config.get("seed", 0), "seed", 0, MAX_SEED)
    stage = check_choice(str(config.get("stage") or EXPLORATORY), "stage", STAGES)
    if stage == CONFIRMATORY and config.get(CONFIRMATORY_SEED_KEY) != seed:
        raise ParameterError(
            "stage=confirmatory runs on the pre-registered seed only; prepare the "
            "config with anonlab.preregistration.staged (anonlab run does)"
        )
    n_jobs = check_int(config.get("n_jobs", -1), "n_jobs", -(2**31))
    if n_jobs == 0:
        raise ParameterError(
            "n_jobs must be a positive number of workers or negative (all cores), got 0"
        )
    n_jobs, n_jobs_note = cap_n_jobs(n_jobs)
    max_hours = check_max_hours(config.get(MAX_HOURS_KEY, DEFAULT_MAX_HOURS))
    parts = components()
    metrics = names(config.get("metrics"), "metrics")
    by_attribute = names(config.get("metrics_by_attribute"), "metrics_by_attribute")
    for metric in (*metrics, *by_attribute):
        parts.metric(metric)
    for metric in by_attribute:
        if metric not in parts.attribute_metrics:
            raise ParameterError(
                f"metric {metric!r} is not defined per attribute; it cannot be in "
                "metrics_by_attribute"
            )
    if not metrics and not by_attribute:
        raise ParameterError("metrics is empty: name at least one metric")
    methods = names(config.get("methods"), "methods")
    if not methods:
        raise ParameterError("methods is empty: name at least one method")
    for method in methods:
        parts.method(method)
    method_options, metric_options = split_options(config.get("options"), parts)
    check_same_ground(methods, metrics, method_options, metric_options, parts)
    study = check_figures(config.get("figures") or (), parts.figure_keys)
    given = replace(given, study=study)
    grid, by_method, notes = declared_grid(config, methods, given, parts)
    several = config.get("datasets") or {}
    for key, dataset in [
        ("dataset", config.get("dataset")),
        *((f"datasets.{k}", c) for k, c in several.items()),
    ]:
        if isinstance(dataset, Mapping) and dataset.get("alpha") is not None:
            check_dataset_alpha(dataset["alpha"], f"{key}.alpha")
    if study:
        taken = {a for m in methods for a in parts.method(m).axes} | set(parts.view_axes)
        datasets = len(dataset_configs(config, given)[0])
        figure_axes(grid, taken, config.get("figure_x"), datasets)
    inapplicable = check_choice(
        str(config.get("inapplicable", INAPPLICABLE[0])), "inapplicable", INAPPLICABLE
    )
    for flag in ("plot_only", "later_looks"):
        if not isinstance(config.get(flag, False), bool):
            raise ParameterError(f"{flag} must be true or false, got {config[flag]!r}")
    check_cache_dir(config.get(CACHE_KEY))
    check_fanout(config)
    results_dir = config.get("results_dir", "results")
    if not isinstance(results_dir, str) or not results_dir.strip():
        raise ParameterError(f"results_dir must name a folder, got {results_dir!r}")
    out_dir = check_results_dir(Path(results_dir))
    profile = str(config.get("profile") or PAPER_PROFILE)
    reading = config.get("reading")
    folder = run_folder(name, reading=reading, overrides=overrides, run_name=config.get("run_name"))
    out_dir = out_dir if profile == PAPER_PROFILE else out_dir / profile
    out_dir = (out_dir / CONFIRMATORY if stage == CONFIRMATORY else out_dir) / folder
    runner = runner_spec(config.get("runner") or {})
    config = {**config, "grid": grid, "grid_by_method": by_method}
    return Declared(
        config=config,
        name=name,
        overrides=overrides,
        methods=methods,
        metrics=metrics,
        metrics_by_attribute=by_attribute,
        grid=grid,
        grid_by_method=by_method,
        method_options=method_options,
        metric_options=metric_options,
        reps=reps,
        seed=seed,
        stage=stage,
        n_jobs=n_jobs,
        inapplicable=inapplicable,
        study=study,
        out_dir=out_dir,
        runner=runner,
        notes=tuple(n for n in (n_jobs_note, *notes) if n),
        max_hours=max_hours,
        given=given,
    )
