"""Claims as data: the papers' own statements, declared in each experiment's config
(``claims:``) and checked against its stored results table.

A claim names its paper, section and quote, a ``kind`` and the numbers it is about. Kinds:

``ordering``
    ``lower`` below ``higher`` (or a ``chain`` of tiers, lowest first) at every matched
    grid point; ``factor`` asks for ``lower · factor < higher``.
``crossover``
    "``method`` is above ``baseline`` for x > ``expected``": the x from which ``method``
    stays above (``mode: stays``) or first rises above (``mode: first``) equals
    ``expected`` ± ``tolerance``.
``monotone``
    ``method``'s curve increases or decreases along ``x``: the share of all pairs of points
    (x_i < x_j) in that direction, so that noise between neighbouring x does not hide a
    trend; a move the wrong way by at most ``rel_tol`` of the earlier value still counts.
``extremum``
    ``method``'s curve is smallest (``which: min``) or largest along ``x`` within
    ``expected: [lo, hi]``.
``ratio``
    ``numerator`` / ``denominator`` (each aggregated ``over`` some axes) within a factor
    (``within``) or between ``min`` and ``max``.
``cells``
    a paper table's cells beside ours, from a function of the results table
    (``source: module:function``), equal by its ``match`` column or within ``factor`` or
    ``abs`` of the paper's value.
``bound``
    ``method``'s values compared (``op``) with a number or a grid column (``value: k``).

A selection (``lower``, ``method``, ``numerator``, …) is a method name or a mapping
``{method: name | [names], <axis>: filter}``: a scalar fixes the axis (so both sides of a
comparison may fix different values, e.g. α = 1.5 against α = 3.0), a list or a
``{min, max}`` range restricts it. ``where`` filters every selection; a method that does
not use an axis (plain Laplace has no k) passes every filter on it and is matched on the
other axes alone. The points of a claim are the matched rows of the mean over repetitions
(:func:`anonlab.plotting.curve_means`); its groups, for the kinds that look along ``x``, are
the other axes left free. ``min_share`` (default 1) of the points, pairs or groups must hold,
or ``min_count`` of them.

Each result is ``reproduced``, ``not reproduced`` or ``not checkable``: the grid lacks the
points, or is too coarse to tell whether a crossover or an extremum lies in the stated
window.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonlab.plotting import curve_means
from anonlab.validation import ParameterError

PAPERS = ("DP-IR", "DP-UNI", "TCM", "iDP")
REPRODUCED = "reproduced"
NOT_REPRODUCED = "not reproduced"
NOT_CHECKABLE = "not checkable"
STATUSES = (REPRODUCED, NOT_REPRODUCED, NOT_CHECKABLE)

COMMON_FIELDS = {"id", "paper", "section", "quote", "kind", "metric", "by_attribute", "where",
                 "min_share", "min_count", "notes", "tolerance_note", "target"}
KIND_FIELDS: dict[str, set[str]] = {
    "ordering": {"lower", "higher", "chain", "factor"},
    "crossover": {"method", "baseline", "x", "expected", "tolerance", "mode"},
    "monotone": {"method", "x", "direction", "rel_tol"},
    "extremum": {"method", "x", "which", "expected"},
    "ratio": {"numerator", "denominator", "over", "numerator_aggregate",
              "denominator_aggregate", "within", "min", "max"},
    "cells": {"source", "args", "match", "paper_column", "ours_column", "factor", "abs"},
    "bound": {"method", "op", "value", "rel_tol"},
}
KINDS = tuple(KIND_FIELDS)
# fields that state a tolerance: a claim using one must say why (``tolerance_note``)
TOLERANCE_FIELDS = ("tolerance", "factor", "rel_tol", "within", "min", "max", "abs",
                    "min_count")
AGGREGATES: dict[str, Callable[[pd.Series], float]] = {
    "mean": pd.Series.mean, "min": pd.Series.min, "max": pd.Series.max}
OPS: dict[str, Callable[[Any, Any], Any]] = {
    "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal, "==": None}
NON_AXES = {"experiment", "method", "value"}
SYMBOLS = {"epsilon": "ε", "alpha": "α"}
_ID = re.compile(r"^[a-z0-9_]+$")


class ClaimError(ParameterError):
    """A claim is malformed: the message names the claim and the field."""


# --- parsing and validation -----------------------------------------------------------------

Filter = Any  # a scalar, a list of scalars, or {"min": x, "max": y}


@dataclass(frozen=True)
class Selection:
    """Rows of one or several methods, with axes fixed (scalars) or restricted."""

    methods: tuple[str, ...] | None  # None: every method
    fixed: Mapping[str, Any] = field(default_factory=dict)
    limits: Mapping[str, Filter] = field(default_factory=dict)

    @property
    def label(self) -> str:
        name = ("every method" if self.methods is None
                else self.methods[0] if len(self.methods) == 1 else "/".join(self.methods))
        extra = [_axis_label(a, v) for a, v in self.fixed.items()]
        extra += [f"{_symbol(a)} {_filter_text(v)}" for a, v in self.limits.items()]
        return f"{name} ({', '.join(extra)})" if extra else name


@dataclass(frozen=True)
class Claim:
    """One validated claim; ``params`` holds the fields of its kind."""

    id: str
    paper: str
    section: str
    quote: str
    kind: str
    metric: str | None
    by_attribute: bool
    where: Mapping[str, Filter]
    min_share: float
    min_count: int | None
    notes: str | None
    tolerance_note: str | None
    target: str | None
    params: Mapping[str, Any]

    def selections(self) -> list[Selection]:
        """Every selection the claim reads."""
        found = [v for v in self.params.values() if isinstance(v, Selection)]
        for tier in self.params.get("tiers", ()):
            found += list(tier)
        return found


class _Checker:
    """Field checks for one raw claim, each error naming the claim and the field."""

    def __init__(self, raw: Mapping[str, Any], position: int) -> None:
        self.raw = raw
        name = raw.get("id") if isinstance(raw.get("id"), str) and raw.get("id") else None
        self.name = f"claim {name!r}" if name else f"claim #{position + 1}"

    def error(self, field_name: str, problem: str) -> ClaimError:
        return ClaimError(f"{self.name}: field {field_name!r} {problem}")

    def has(self, key: str) -> bool:
        return self.raw.get(key) is not None

    def text(self, key: str, required: bool = True) -> str | None:
        value = self.raw.get(key)
        if value is None:
            if required:
                raise self.error(key, "is missing")
            return None
        if not isinstance(value, str) or not value.strip():
            raise self.error(key, f"must be a non-empty string, got {value!r}")
        return value

    def choice(self, key: str, options: Sequence[str], default: str | None = None) -> str:
        value = self.raw.get(key, default)
        if value is None:
            raise self.error(key, f"is missing (one of {list(options)})")
        if value not in options:
            raise self.error(key, f"must be one of {list(options)}, got {value!r}")
        return value

    def number(self, key: str, default: float | None = None, *, low: float | None = None,
               high: float | None = None, required: bool = False) -> float | None:
        value = self.raw.get(key)
        if value is None:
            if required:
                raise self.error(key, "is missing")
            return default
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(
                value):
            raise self.error(key, f"must be a finite number, got {value!r}")
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"in [{low}, {high}]" if high is not None else f">= {low}"
            raise self.error(key, f"must be {span}, got {value!r}")
        return float(value)

    def filter(self, key: str, value: Any) -> Filter:
        """A scalar, a list of scalars or a ``{min, max}`` range."""
        if isinstance(value, Mapping):
            unknown = set(value) - {"min", "max"}
            if unknown or not value:
                raise self.error(key, f"range must have keys 'min' and/or 'max', got {value!r}")
            for bound in value.values():
                if isinstance(bound, bool) or not isinstance(bound, numbers.Real):
                    raise self.error(key, f"range bounds must be numbers, got {value!r}")
            return dict(value)
        if isinstance(value, list | tuple):
            if not value or not all(_is_scalar(v) for v in value):
                raise self.error(key, f"list must hold numbers or names, got {value!r}")
            return list(value)
        if not _is_scalar(value):
            raise self.error(key, f"must be a number, a name, a list or a range, got {value!r}")
        return value

    def where(self, key: str = "where") -> dict[str, Filter]:
        value = self.raw.get(key) or {}
        if not isinstance(value, Mapping):
            raise self.error(key, f"must be a mapping of axis to filter, got {value!r}")
        return {str(axis): self.filter(f"{key}.{axis}", v) for axis, v in value.items()}

    def selection(self, key: str, value: Any = None) -> Selection:
        value = self.raw.get(key) if value is None else value
        if value is None:
            raise self.error(key, "is missing")
        if isinstance(value, str):
            return Selection((value,))
        if isinstance(value, list | tuple):  # several methods, matched method by method
            value = {"method": value}
        if not isinstance(value, Mapping):
            raise self.error(key, f"must be a method name, a list of names or a mapping, "
                                  f"got {value!r}")
        methods = value.get("method")
        if methods is None:
            names = None
        elif isinstance(methods, str):
            names = (methods,)
        elif isinstance(methods, list | tuple) and methods and all(
                isinstance(m, str) for m in methods):
            names = tuple(methods)
        else:
            raise self.error(f"{key}.method", f"must be a name or a list of names, got {methods!r}")
        fixed, limits = {}, {}
        for axis, v in value.items():
            if axis == "method":
                continue
            parsed = self.filter(f"{key}.{axis}", v)
            (fixed if _is_scalar(parsed) else limits)[str(axis)] = parsed
        return Selection(names, fixed, limits)

    def tiers(self) -> tuple[tuple[Selection, ...], ...]:
        if self.has("chain"):
            if self.has("lower") or self.has("higher"):
                raise self.error("chain", "cannot be given with 'lower'/'higher'")
            chain = self.raw["chain"]
            if not isinstance(chain, list | tuple) or len(chain) < 2:
                raise self.error("chain", f"must list at least two tiers, got {chain!r}")
            entries = [(f"chain[{i}]", tier) for i, tier in enumerate(chain)]
        else:
            entries = [("lower", self.raw.get("lower")), ("higher", self.raw.get("higher"))]
        tiers = []
        for key, tier in entries:
            members = tier if isinstance(tier, list | tuple) else [tier]
            if not members:
                raise self.error(key, "is empty")
            tiers.append(tuple(self.selection(key, m) if m is not None else self.selection(key)
                               for m in members))
        return tuple(tiers)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, str | numbers.Real) and not isinstance(value, bool)


def parse_claim(raw: Mapping[str, Any], position: int = 0) -> Claim:
    """Validate one claim (a mapping from the config); :class:`ClaimError` names the claim
    and the bad field."""
    if not isinstance(raw, Mapping):
        raise ClaimError(f"claim #{position + 1}: must be a mapping, got {raw!r}")
    c = _Checker(raw, position)
    claim_id = c.text("id")
    if not _ID.match(claim_id):
        raise c.error("id", f"must be lower-case letters, digits and '_', got {claim_id!r}")
    paper = c.choice("paper", PAPERS)
    section, quote = c.text("section"), c.text("quote")
    kind = c.choice("kind", KINDS)
    unknown = set(raw) - COMMON_FIELDS - KIND_FIELDS[kind]
    if unknown:
        raise c.error(sorted(unknown)[0], f"is not a field of kind {kind!r} (fields: "
                      f"{sorted(KIND_FIELDS[kind])} and {sorted(COMMON_FIELDS)})")
    metric = c.text("metric", required=kind != "cells")
    by_attribute = raw.get("by_attribute", False)
    if not isinstance(by_attribute, bool):
        raise c.error("by_attribute", f"must be true or false, got {by_attribute!r}")
    min_share = c.number("min_share", 1.0, low=0.0, high=1.0)
    if min_share == 0:
        raise c.error("min_share", "must be > 0")
    min_count = raw.get("min_count")
    if min_count is not None:
        if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
            raise c.error("min_count", f"must be an integer >= 1, got {min_count!r}")
        if "min_share" in raw:
            raise c.error("min_count", "cannot be given with 'min_share'")
    notes = c.text("notes", required=False)
    if notes is not None and not re.match(r"^#[a-z0-9-]+$", notes):
        raise c.error("notes", f"must be an anchor such as '#dp-ir-figure-1', got {notes!r}")
    tolerance_note = c.text("tolerance_note", required=False)
    if tolerance_note is None and (min_share < 1 or any(k in raw for k in TOLERANCE_FIELDS)):
        used = [k for k in TOLERANCE_FIELDS if k in raw] or ["min_share"]
        raise c.error("tolerance_note", f"is missing: say why the tolerance ({used[0]}) is "
                                        "what the paper's wording supports")
    params = _KIND_PARSERS[kind](c)
    return Claim(claim_id, paper, section, quote, kind, metric, by_attribute, c.where(),
                 min_share, min_count, notes, tolerance_note, c.text("target", required=False),
                 params)


def _parse_ordering(c: _Checker) -> dict[str, Any]:
    return {"tiers": c.tiers(), "factor": c.number("factor", 1.0, low=1.0)}


def _parse_crossover(c: _Checker) -> dict[str, Any]:
    return {"method": c.selection("method"), "baseline": c.selection("baseline"),
            "x": c.text("x", required=False) or "k",
            "expected": c.number("expected", required=True),
            "tolerance": c.number("tolerance", 0.0, low=0.0),
            "mode": c.choice("mode", ("stays", "first"), "stays")}


def _parse_monotone(c: _Checker) -> dict[str, Any]:
    return {"method": c.selection("method"), "x": c.text("x", required=False) or "k",
            "direction": c.choice("direction", ("increasing", "decreasing")),
            "rel_tol": c.number("rel_tol", 0.0, low=0.0)}


def _parse_extremum(c: _Checker) -> dict[str, Any]:
    expected = c.raw.get("expected")
    if (not isinstance(expected, list | tuple) or len(expected) != 2
            or not all(isinstance(v, numbers.Real) and not isinstance(v, bool) for v in expected)
            or expected[0] > expected[1]):
        raise c.error("expected", f"must be a range [lo, hi] with lo <= hi, got {expected!r}")
    return {"method": c.selection("method"), "x": c.text("x", required=False) or "k",
            "which": c.choice("which", ("min", "max")),
            "expected": (float(expected[0]), float(expected[1]))}


def _parse_ratio(c: _Checker) -> dict[str, Any]:
    over = c.raw.get("over") or []
    if isinstance(over, str):
        over = [over]
    if not isinstance(over, list | tuple) or not all(isinstance(a, str) for a in over):
        raise c.error("over", f"must be a list of axes, got {over!r}")
    within = c.number("within", low=1.0)
    low, high = c.number("min", low=0.0), c.number("max", low=0.0)
    if within is not None and (low is not None or high is not None):
        raise c.error("within", "cannot be given with 'min'/'max'")
    if within is None and low is None and high is None:
        raise c.error("within", "is missing: give 'within' (a factor) or 'min'/'max'")
    if within is not None:
        low, high = 1 / within, within
    if low is not None and high is not None and low > high:
        raise c.error("min", f"must be <= max ({high}), got {low}")
    return {"numerator": c.selection("numerator"), "denominator": c.selection("denominator"),
            "over": tuple(over), "bounds": (low, high),
            "numerator_aggregate": c.choice("numerator_aggregate", tuple(AGGREGATES), "mean"),
            "denominator_aggregate": c.choice("denominator_aggregate", tuple(AGGREGATES),
                                              "mean")}


def _parse_cells(c: _Checker) -> dict[str, Any]:
    from anonlab.report.tables import load_builder

    source = c.text("source")
    if ":" not in source:
        raise c.error("source", f"must be 'module:function', got {source!r}")
    try:
        function = load_builder(source)
    except ParameterError as error:
        raise c.error("source", f"cannot be loaded: {error}") from error
    args = c.raw.get("args") or {}
    if not isinstance(args, Mapping):
        raise c.error("args", f"must be a mapping of keyword arguments, got {args!r}")
    match = c.text("match", required=False)
    paper, ours = c.text("paper_column", required=False), c.text("ours_column", required=False)
    factor, absolute = c.number("factor", low=1.0), c.number("abs", low=0.0)
    if match is not None:
        if paper or ours or factor is not None or absolute is not None:
            raise c.error("match", "cannot be given with paper_column/ours_column/factor/abs")
    elif not (paper and ours) or (factor is None) == (absolute is None):
        raise c.error("match", "is missing: give 'match' (a boolean column), or "
                               "'paper_column', 'ours_column' and one of 'factor' or 'abs'")
    return {"function": function, "source": source, "args": dict(args), "match": match,
            "paper_column": paper, "ours_column": ours, "factor": factor, "abs": absolute}


def _parse_bound(c: _Checker) -> dict[str, Any]:
    value = c.raw.get("value")
    if not _is_scalar(value):
        raise c.error("value", f"must be a number or a grid column, got {value!r}")
    return {"method": c.selection("method"), "op": c.choice("op", tuple(OPS)), "value": value,
            "rel_tol": c.number("rel_tol", 0.0, low=0.0)}


_KIND_PARSERS: dict[str, Callable[[_Checker], dict[str, Any]]] = {
    "ordering": _parse_ordering, "crossover": _parse_crossover, "monotone": _parse_monotone,
    "extremum": _parse_extremum, "ratio": _parse_ratio, "cells": _parse_cells,
    "bound": _parse_bound}


def parse_claims(raw: Sequence[Mapping[str, Any]] | None) -> list[Claim]:
    """Validate a config's ``claims`` list; ids must be distinct."""
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise ClaimError(f"claims must be a list, got {raw!r}")
    claims = [parse_claim(item, i) for i, item in enumerate(raw)]
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise ClaimError(f"claim {claim.id!r}: field 'id' is used twice")
        seen.add(claim.id)
    return claims


def check_against_config(claims: Sequence[Claim], config: Mapping[str, Any]) -> None:
    """Every method, metric and axis a claim names is one the experiment runs."""
    methods = set(config.get("methods") or ())
    grid_axes = set(config.get("grid") or ()) | {"dataset", "attribute"}
    for claim in claims:
        name = f"claim {claim.id!r}"
        if claim.metric is not None:
            pool = list(config.get("metrics") or ())  # f_measure has a row per class too
            if claim.by_attribute:
                pool += list(config.get("metrics_by_attribute") or ())
            if claim.metric not in pool:
                how = "per attribute " if claim.by_attribute else ""
                raise ClaimError(f"{name}: field 'metric' names {claim.metric!r}, which the "
                                 f"experiment does not compute {how}({list(pool)})")
        if claim.kind != "cells":
            for axis in claim.where:
                if axis not in grid_axes:
                    raise ClaimError(f"{name}: field 'where' filters {axis!r}, not a grid axis "
                                     f"({sorted(grid_axes)})")
        for selection in claim.selections():
            for method in selection.methods or ():
                if method not in methods:
                    raise ClaimError(f"{name}: names method {method!r}, which the experiment "
                                     f"does not run ({sorted(methods)})")
            for axis in [*selection.fixed, *selection.limits]:
                if axis not in grid_axes:
                    raise ClaimError(f"{name}: a selection filters {axis!r}, not a grid axis "
                                     f"({sorted(grid_axes)})")
        axis = claim.params.get("x")
        if axis is not None and axis not in grid_axes:
            raise ClaimError(f"{name}: field 'x' is {axis!r}, not a grid axis")


# --- evaluation -----------------------------------------------------------------------------


@dataclass(frozen=True)
class ClaimResult:
    """The outcome of one claim against one results table."""

    id: str
    paper: str
    section: str
    quote: str
    kind: str
    status: str
    ours: str
    notes: str | None = None
    target: str | None = None
    tolerance_note: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))


class _NotCheckable(Exception):
    """The table lacks what the claim needs."""


def _symbol(axis: str) -> str:
    return SYMBOLS.get(axis, axis)


def _fmt(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        return f"{value:.0f}" if value.is_integer() and abs(value) < 1e6 else f"{value:.3g}"
    return str(value)


def _axis_label(axis: str, value: Any) -> str:
    if axis in ("attribute", "dataset", "method"):
        return str(value)
    return f"{_symbol(axis)}={_fmt(value)}"


def _filter_text(value: Filter) -> str:
    if isinstance(value, Mapping):
        parts = ([f">= {_fmt(value['min'])}"] if "min" in value else []) + (
            [f"<= {_fmt(value['max'])}"] if "max" in value else [])
        return " and ".join(parts)
    if isinstance(value, list):
        return "in {" + ", ".join(_fmt(v) for v in value) + "}"
    return f"= {_fmt(value)}"


def _point_label(row: Mapping[str, Any], keys: Sequence[str]) -> str:
    return ", ".join(_axis_label(k, row[k]) for k in keys if not _missing(row[k]))


def _varying(frame: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    """The keys that take more than one value in ``frame`` (the others go without saying)."""
    return [k for k in keys if k in frame.columns and frame[k].nunique(dropna=False) > 1]


def _missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _mask(column: pd.Series, value: Filter, *, keep_missing: bool = True) -> pd.Series:
    """Rows whose ``column`` passes the filter (missing values pass when ``keep_missing``)."""
    present = column.notna()
    if isinstance(value, Mapping):
        numeric = pd.to_numeric(column, errors="coerce")
        ok = pd.Series(True, index=column.index)
        if "min" in value:
            ok &= numeric >= value["min"] - 1e-12 * abs(value["min"])
        if "max" in value:
            ok &= numeric <= value["max"] + 1e-12 * abs(value["max"])
    else:
        values = value if isinstance(value, list) else [value]
        ok = pd.Series(False, index=column.index)
        for v in values:
            if isinstance(v, str):
                ok |= column.astype("string") == v
            else:
                numeric = pd.to_numeric(column, errors="coerce").astype(float)
                ok |= np.isclose(numeric, float(v), rtol=1e-9, atol=0.0)
    ok = ok.fillna(False).astype(bool) & present
    return ok | ~present if keep_missing else ok


class ResultsTable:
    """Means over repetitions of one results table, cached per (metric, by_attribute)."""

    def __init__(self, table: pd.DataFrame) -> None:
        self.table = table
        self._means: dict[tuple[str, bool], pd.DataFrame] = {}

    def means(self, metric: str, by_attribute: bool) -> pd.DataFrame:
        key = (metric, by_attribute)
        if key not in self._means:
            if not (self.table["metric"] == metric).any():
                raise _NotCheckable(f"metric {metric!r} is not in the results")
            means = curve_means(self.table, metric, by_attribute)
            if means.empty:
                raise _NotCheckable(f"no {'per-attribute ' if by_attribute else ''}rows of "
                                    f"metric {metric!r}")
            self._means[key] = means
        return self._means[key]


def _select(means: pd.DataFrame, selection: Selection, where: Mapping[str, Filter]
            ) -> tuple[pd.DataFrame, list[str]]:
    """The selection's mean values (column ``value``) and its free axes (the key columns)."""
    rows = means
    if selection.methods is not None:
        unknown = set(selection.methods) - set(means["method"])
        if unknown:
            raise _NotCheckable(f"no rows of method {sorted(unknown)[0]!r}")
        rows = rows[rows["method"].isin(selection.methods)]
    filters = {**where, **selection.limits, **selection.fixed}
    for axis, value in filters.items():
        if axis not in rows.columns:
            if axis in selection.fixed:
                continue  # an axis this table lacks (a method that ignores it)
            raise _NotCheckable(f"the results have no axis {axis!r}")
        rows = rows[_mask(rows[axis], value)]
    if rows.empty:
        raise _NotCheckable(f"no points for {selection.label}"
                            + (f" where {_where_text(where)}" if where else ""))
    axes = [c for c in means.columns if c not in NON_AXES]
    keys = [a for a in axes if a not in selection.fixed and rows[a].notna().any()]
    if selection.methods is None or len(selection.methods) > 1:
        keys.append("method")
    frame = rows.groupby(keys, dropna=False, sort=True)["value"].mean().reset_index()
    return frame, keys


def _where_text(where: Mapping[str, Filter]) -> str:
    return ", ".join(f"{_symbol(a)} {_filter_text(v)}" for a, v in where.items())


def _join(frames: Sequence[tuple[pd.DataFrame, list[str]]]) -> tuple[pd.DataFrame, list[str]]:
    """Merge selections on their common free axes; values in columns v0, v1, …"""
    merged, keys = None, []
    for i, (frame, frame_keys) in enumerate(frames):
        frame = frame.rename(columns={"value": f"v{i}"})
        if merged is None:
            merged, keys = frame, list(frame_keys)
            continue
        common = [k for k in frame_keys if k in keys]
        merged = (merged.merge(frame, on=common, how="inner") if common
                  else merged.merge(frame, how="cross"))
        keys += [k for k in frame_keys if k not in keys]
    assert merged is not None
    if merged.empty:
        raise _NotCheckable("the selections share no grid point")
    return merged, keys


def _decide(n_pass: int, n_fail: int, n_open: int, claim: Claim) -> str:
    n = n_pass + n_fail + n_open
    if n == 0:
        return NOT_CHECKABLE

    def holds(count: int) -> bool:
        if claim.min_count is not None:
            return count >= claim.min_count
        return count >= claim.min_share * n - 1e-9

    if n_open == 0 or holds(n_pass):
        return REPRODUCED if holds(n_pass) else NOT_REPRODUCED
    return NOT_CHECKABLE if holds(n_pass + n_open) else NOT_REPRODUCED


def _need(claim: Claim) -> str:
    if claim.min_count is not None:
        return f"need {claim.min_count}"
    return "need all" if claim.min_share >= 1 else f"need {claim.min_share:.0%}"


def _examples(items: Sequence[str], limit: int = 3) -> str:
    shown = "; ".join(items[:limit])
    return shown + (f"; … ({len(items) - limit} more)" if len(items) > limit else "")


def _eval_ordering(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    means = data.means(claim.metric, claim.by_attribute)
    tiers = claim.params["tiers"]
    flat = [(t, s) for t, tier in enumerate(tiers) for s in tier]
    merged, keys = _join([_select(means, s, claim.where) for _, s in flat])
    factor = claim.params["factor"]
    ok = pd.Series(True, index=merged.index)
    worst_ratio = pd.Series(0.0, index=merged.index)
    for i, (ti, _) in enumerate(flat):
        for j, (tj, _) in enumerate(flat):
            if tj == ti + 1:
                low, high = merged[f"v{i}"] * factor, merged[f"v{j}"]
                ok &= low < high
                with np.errstate(divide="ignore", invalid="ignore"):
                    worst_ratio = np.maximum(worst_ratio, (low / high).fillna(np.inf))
    n_ok, n = int(ok.sum()), len(merged)
    names = " < ".join("/".join(s.label for s in tier) for tier in tiers)
    text = f"{n_ok}/{n} points with {names}" + (f" (×{factor:g})" if factor != 1 else "")
    failing = merged[~ok]
    if len(failing):
        row = failing.loc[worst_ratio[~ok].idxmax()]
        values = " vs ".join(_fmt(row[f"v{i}"]) for i in range(len(flat)))
        where = _point_label(row, _varying(merged, keys))
        text += f"; fails e.g. at {where}: {values}" if where else f"; values {values}"
    elif n == 1:
        text += ": " + " vs ".join(_fmt(merged[f"v{i}"].iloc[0]) for i in range(len(flat)))
    return _decide(n_ok, n - n_ok, 0, claim), text + f" ({_need(claim)})"


def _groups(frame: pd.DataFrame, keys: Sequence[str], x: str):
    """(group, curve sorted along x) for each combination of the other free axes; the group
    holds only the axes that vary between groups."""
    others = [k for k in keys if k != x]
    if x not in keys:
        raise _NotCheckable(f"the selection does not vary along {x!r}")
    if not others:
        yield {}, frame.sort_values(x)
        return
    varying = set(_varying(frame, others))
    for key, part in frame.groupby(others, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        group = {k: v for k, v in zip(others, key, strict=True) if k in varying}
        yield group, part.sort_values(x)


def _integer_axis(values: np.ndarray) -> bool:
    return bool(np.all(np.isclose(values, np.round(values))))


def _eval_crossover(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    p = claim.params
    means = data.means(claim.metric, claim.by_attribute)
    merged, keys = _join([_select(means, p["method"], claim.where),
                          _select(means, p["baseline"], claim.where)])
    x, expected, tol = p["x"], p["expected"], p["tolerance"]
    window = (expected - tol, expected + tol)
    n_pass = n_fail = n_open = 0
    parts = []
    for group, curve in _groups(merged, keys, x):
        xs = curve[x].to_numpy(dtype=float)
        above = (curve["v0"] > curve["v1"]).to_numpy()
        step = 1.0 if _integer_axis(xs) else 0.0
        if p["mode"] == "first":
            hits = np.flatnonzero(above)
            start = int(hits[0]) if len(hits) else None
        else:
            below = np.flatnonzero(~above)
            start = (0 if not len(below) else int(below[-1]) + 1 if below[-1] + 1 < len(xs)
                     else None)
        if start is None:  # never above (for good) up to the last x: threshold >= x_max
            lo, hi = xs[-1], math.inf
            found = f"not above{' for good' if p['mode'] == 'stays' else ''} up to " \
                    f"{_symbol(x)}={_fmt(xs[-1])}"
        else:
            lo = xs[start - 1] if start > 0 else -math.inf
            hi = xs[start] - step
            found = f"above {'from' if p['mode'] == 'stays' else 'first at'} " \
                    f"{_symbol(x)}={_fmt(xs[start])}"
            if start > 0 and xs[start] - xs[start - 1] > step + 1e-9:
                found += f" (crossing in {_symbol(x)} {_fmt(xs[start - 1])}..{_fmt(xs[start])})"
        if window[0] <= lo and hi <= window[1]:
            n_pass += 1
        elif hi < window[0] or lo > window[1]:
            n_fail += 1
        else:
            n_open += 1
        label = ", ".join(_axis_label(k, v) for k, v in group.items() if not _missing(v))
        parts.append(f"{label}: {found}" if label else found)
    text = (f"{p['method'].label} over {p['baseline'].label}: " + _examples(parts, 4)
            + f" (paper: {_symbol(x)} > {_fmt(expected)} ± {_fmt(tol)})")
    return _decide(n_pass, n_fail, n_open, claim), text


def _eval_monotone(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    """Every pair of points along x (not only neighbours) in the stated direction: a trend
    through noise is judged on the whole curve, not on the noise between neighbouring x."""
    p = claim.params
    means = data.means(claim.metric, claim.by_attribute)
    frame, keys = _select(means, p["method"], claim.where)
    x, rel = p["x"], p["rel_tol"]
    sign = 1.0 if p["direction"] == "increasing" else -1.0
    n_ok = n_pairs = steps_ok = n_steps = 0
    wrong = []
    for group, curve in _groups(frame, keys, x):
        xs, values = curve[x].to_numpy(dtype=float), curve["value"].to_numpy(dtype=float)
        if len(values) < 2:
            continue
        i, j = np.triu_indices(len(values), k=1)
        move = sign * (values[j] - values[i])
        ok = move >= -rel * np.abs(values[i])
        n_ok, n_pairs = n_ok + int(ok.sum()), n_pairs + len(ok)
        step = j == i + 1
        steps_ok, n_steps = steps_ok + int(ok[step].sum()), n_steps + int(step.sum())
        if not ok.all():
            with np.errstate(divide="ignore", invalid="ignore"):
                size = np.where(ok, -np.inf, -move / np.abs(values[i]))
            w = int(np.nanargmax(size))
            label = ", ".join(_axis_label(k, v) for k, v in group.items() if not _missing(v))
            wrong.append((float(size[w]), f"{label + ': ' if label else ''}{_symbol(x)}="
                                          f"{_fmt(xs[i[w]])}→{_fmt(xs[j[w]])} "
                                          f"{_fmt(values[i[w]])}→{_fmt(values[j[w]])}"))
    if n_pairs == 0:
        raise _NotCheckable(f"fewer than two values of {x!r}")
    text = (f"{n_ok}/{n_pairs} pairs of {_symbol(x)} {p['direction']} ({n_ok / n_pairs:.0%}; "
            f"neighbouring steps {steps_ok}/{n_steps})")
    if wrong:  # the largest move the wrong way, per group, largest first
        text += f"; against: {_examples([w for _, w in sorted(wrong, reverse=True)], 2)}"
    return _decide(n_ok, n_pairs - n_ok, 0, claim), text + f" ({_need(claim)})"


def _eval_extremum(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    p = claim.params
    means = data.means(claim.metric, claim.by_attribute)
    frame, keys = _select(means, p["method"], claim.where)
    x, (low, high) = p["x"], p["expected"]
    n_pass = n_fail = n_open = 0
    parts = []
    for group, curve in _groups(frame, keys, x):
        xs, values = curve[x].to_numpy(dtype=float), curve["value"].to_numpy(dtype=float)
        if len(xs) < 2:
            n_open += 1
            continue
        i = int(np.argmin(values) if p["which"] == "min" else np.argmax(values))
        step = 1.0 if _integer_axis(xs) else 0.0
        lo = xs[i - 1] + step if i > 0 else xs[0]
        hi = xs[i + 1] - step if i + 1 < len(xs) else xs[-1]
        if low <= lo and hi <= high:
            n_pass += 1
        elif hi < low or lo > high:
            n_fail += 1
        else:
            n_open += 1
        label = ", ".join(_axis_label(k, v) for k, v in group.items() if not _missing(v))
        parts.append(f"{label + ': ' if label else ''}{p['which']} at {_symbol(x)}={_fmt(xs[i])}"
                     f" ({_fmt(values[i])})")
    text = _examples(parts, 4) + f" (paper: {_symbol(x)} in {_fmt(low)}..{_fmt(high)})"
    return _decide(n_pass, n_fail, n_open, claim), text


def _aggregate(frame: pd.DataFrame, keys: list[str], over: Sequence[str], how: str
               ) -> tuple[pd.DataFrame, list[str]]:
    kept = [k for k in keys if k not in over]
    if len(kept) == len(keys):
        return frame, keys
    if not kept:
        return pd.DataFrame({"value": [AGGREGATES[how](frame["value"])]}), []
    grouped = frame.groupby(kept, dropna=False, sort=True)["value"].agg(how).reset_index()
    return grouped, kept


def _eval_ratio(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    p = claim.params
    means = data.means(claim.metric, claim.by_attribute)
    sides = []
    for name in ("numerator", "denominator"):
        frame, keys = _select(means, p[name], claim.where)
        sides.append(_aggregate(frame, keys, p["over"], p[f"{name}_aggregate"]))
    merged, keys = _join(sides)
    low, high = p["bounds"]
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (merged["v0"] / merged["v1"]).to_numpy(dtype=float)
    ok = np.isfinite(ratio)
    if low is not None:
        ok &= ratio >= low * (1 - 1e-9)
    if high is not None:
        ok &= ratio <= high * (1 + 1e-9)
    parts = []
    shown = _varying(merged, keys)
    for (_, row), r in zip(merged.iterrows(), ratio, strict=True):
        label = _point_label(row, shown)
        parts.append(f"{label + ': ' if label else ''}{r:.4g} ({_fmt(row['v0'])} / "
                     f"{_fmt(row['v1'])})")
    failing = [part for part, good in zip(parts, ok, strict=True) if not good]
    if low is not None and high is not None and math.isclose(low * high, 1.0):
        bounds = f"within ×{_fmt(high)}"
    elif low is not None and high is not None:
        bounds = f"in [{_fmt(low)}, {_fmt(high)}]"
    else:
        bounds = f">= {_fmt(low)}" if low is not None else f"<= {_fmt(high)}"
    if len(parts) == 1:
        text = f"ratio {parts[0]}"
    else:
        text = f"{int(ok.sum())}/{len(ok)} ratios {bounds}; " + _examples(failing or parts, 3)
        bounds += f"; {_need(claim)}"
    text += f" (claim: {bounds})"
    return _decide(int(ok.sum()), int((~ok).sum()), 0, claim), text


def _eval_cells(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    p = claim.params
    frame = p["function"](data.table, **p["args"])
    for axis, value in claim.where.items():
        if axis not in frame.columns:
            raise ClaimError(f"claim {claim.id!r}: field 'where' filters {axis!r}, not a "
                             f"column of {p['source']} ({list(frame.columns)})")
        frame = frame[_mask(frame[axis], value, keep_missing=False)]
    if frame.empty:
        raise ClaimError(f"claim {claim.id!r}: field 'where' leaves no cell of {p['source']}")
    if p["match"] is not None:
        ours = [c for c in frame.columns if str(c).startswith("ours")]
        missing = frame[ours].isna().any(axis=1) if ours else pd.Series(False, frame.index)
        ok = frame[p["match"]].fillna(False).astype(bool)
        value_columns = [c for c in frame.columns if str(c).startswith(("ours", "paper"))]
    else:
        paper, ours_col = frame[p["paper_column"]], frame[p["ours_column"]]
        missing = ours_col.isna()
        if p["factor"] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                r = np.abs(np.log(ours_col.astype(float) / paper.astype(float)))
            ok = (r <= math.log(p["factor"]) + 1e-12) | (ours_col == paper)  # 0.00 and 0
        else:
            ok = (ours_col - paper).abs() <= p["abs"] + 1e-12
        ok = ok.fillna(False).astype(bool)
        value_columns = [p["ours_column"], p["paper_column"]]
    n_missing = int(missing.sum())
    n = len(frame)
    if n_missing == n:
        raise _NotCheckable(f"none of the {n} cells is in the results")
    ok &= ~missing
    n_ok = int(ok.sum())
    tolerance = ("as the table marks a match" if p["match"] else
                 f"within ×{_fmt(p['factor'])}" if p["factor"] else f"within ±{_fmt(p['abs'])}")
    text = f"{n_ok}/{n} cells {tolerance}"
    if n_missing:
        text += f", {n_missing} not run"
    keys = [c for c in frame.columns if c not in value_columns and c != p["match"]
            and not str(c).startswith("ratio") and c != "table"]
    misses = frame[~ok & ~missing]
    if p["match"] is None and len(misses):  # the largest departures first
        gap = (misses[p["ours_column"]].astype(float) - misses[p["paper_column"]]).abs()
        if p["factor"] is not None:
            with np.errstate(divide="ignore", invalid="ignore"):
                gap = np.abs(np.log(misses[p["ours_column"]].astype(float)
                                    / misses[p["paper_column"]].astype(float)))
        misses = misses.loc[gap.sort_values(ascending=False).index]
    if len(misses):
        keys = _varying(frame, keys)
        examples = [f"{_point_label(row, keys)}: " + ", ".join(
            f"{c} {_fmt(row[c])}" for c in value_columns) for _, row in misses.head(2).iterrows()]
        text += "; misses e.g. " + "; ".join(examples)
    status = _decide(n_ok, n - n_ok - n_missing, n_missing, claim)
    return status, text + f" ({_need(claim)})"


def _eval_bound(claim: Claim, data: ResultsTable) -> tuple[str, str]:
    p = claim.params
    means = data.means(claim.metric, claim.by_attribute)
    selection = p["method"]
    frame, keys = _select(means, selection, claim.where)
    target = p["value"]
    if isinstance(target, str):
        if target in frame.columns:
            reference = frame[target].astype(float)
        elif target in selection.fixed:
            reference = pd.Series(float(selection.fixed[target]), index=frame.index)
        else:
            raise _NotCheckable(f"no column {target!r} to compare with")
    else:
        reference = pd.Series(float(target), index=frame.index)
    values = frame["value"].astype(float)
    if p["op"] == "==":
        ok = np.isclose(values, reference, rtol=p["rel_tol"], atol=1e-12)
    else:
        slack = p["rel_tol"] * reference.abs()
        shifted = reference + slack if p["op"] in ("<", "<=") else reference - slack
        ok = OPS[p["op"]](values, shifted).to_numpy()
    n_ok, n = int(np.sum(ok)), len(frame)
    text = f"{n_ok}/{n} points with {claim.metric} {p['op']} {_fmt(target)}"
    failing = frame[~np.asarray(ok)]
    hits = frame[np.asarray(ok)]
    shown = failing if claim.min_count is None else hits
    if len(shown):
        row = shown.iloc[0]
        text += (f"; {'e.g.' if claim.min_count else 'fails e.g. at'} "
                 f"{_point_label(row, _varying(frame, keys))}: {_fmt(row['value'])}")
    return _decide(n_ok, n - n_ok, 0, claim), text + f" ({_need(claim)})"


_EVALUATORS: dict[str, Callable[[Claim, ResultsTable], tuple[str, str]]] = {
    "ordering": _eval_ordering, "crossover": _eval_crossover, "monotone": _eval_monotone,
    "extremum": _eval_extremum, "ratio": _eval_ratio, "cells": _eval_cells,
    "bound": _eval_bound}


def evaluate_claim(claim: Claim, table: pd.DataFrame | ResultsTable) -> ClaimResult:
    """Check one claim against a results table."""
    data = table if isinstance(table, ResultsTable) else ResultsTable(table)
    try:
        status, ours = _EVALUATORS[claim.kind](claim, data)
    except _NotCheckable as reason:
        status, ours = NOT_CHECKABLE, str(reason)
    return ClaimResult(claim.id, claim.paper, claim.section, claim.quote, claim.kind, status,
                       ours, claim.notes, claim.target, claim.tolerance_note)


def evaluate_claims(claims: Sequence[Claim | Mapping[str, Any]], table: pd.DataFrame
                    ) -> list[ClaimResult]:
    """Check every claim (parsed, or raw mappings from a config) against ``table``."""
    parsed = [c if isinstance(c, Claim) else parse_claim(c, i) for i, c in enumerate(claims)]
    data = ResultsTable(table)
    return [evaluate_claim(claim, data) for claim in parsed]
