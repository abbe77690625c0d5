"""A claim as data: its fields, the selection of results it reads, the field checks every
kind shares, and the verdict it gets (:class:`ClaimResult`)."""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from anonlab.plotting.names import AXIS_SYMBOLS
from anonlab.validation import ParameterError

COMMON_FIELDS = {
    "id",
    "paper",
    "section",
    "quote",
    "kind",
    "metric",
    "by_attribute",
    "magnitude",
    "where",
    "min_share",
    "min_count",
    "notes",
    "tolerance_note",
    "target",
    "known_departure",
    "sanity",
    # the phrase table's wordings the claim encodes, and those another claim encodes
    "phrases",
    "phrases_elsewhere",
}
# fields that state a tolerance: a claim using one must say why (``tolerance_note``)
TOLERANCE_FIELDS = (
    "tolerance",
    "factor",
    "rel_tol",
    "margin",
    "within",
    "min",
    "max",
    "abs",
    "min_count",
)
# causes of a contradiction a claim may declare, each with its evidence (``unexplained``:
# after an investigation, whose evidence says what was ruled out); a declared reading that
# reproduces the claim is found by the report, and a claim with none is "not investigated"
DEPARTURE_CAUSES = (
    "stand_in_data",
    "paper_inconsistency",
    "implementation",
    "reading",
    "unexplained",
)
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
        name = (
            "every method"
            if self.methods is None
            else self.methods[0]
            if len(self.methods) == 1
            else "/".join(self.methods)
        )
        extra = [axis_label(a, v) for a, v in self.fixed.items()]
        extra += [f"{symbol(a)} {filter_text(v)}" for a, v in self.limits.items()]
        return f"{name} ({', '.join(extra)})" if extra else name


@dataclass(frozen=True)
class Claim:
    """One validated claim; ``params`` holds the fields of its kind. ``paper`` is ``None``
    for a claim of an experiment with no paper (the arena's own, a custom experiment's)."""

    id: str
    paper: str | None
    section: str | None
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
    known_departure: Mapping[str, str] | None = None
    magnitude: bool = False
    #: why the statement holds by construction of the implementation (a sanity check of
    #: the code, not a finding about the paper), or ``None``
    sanity: str | None = None
    #: the phrase table's wordings the claim encodes: name → parameters
    phrases: Mapping[str, Any] = field(default_factory=dict)

    def selections(self) -> list[Selection]:
        """Every selection the claim reads."""
        found = [v for v in self.params.values() if isinstance(v, Selection)]
        for value in self.params.values():  # a list of selections (growth's ``others``)
            if isinstance(value, tuple) and value and all(isinstance(v, Selection) for v in value):
                found += list(value)
        for tier in self.params.get("tiers", ()):
            found += list(tier)
        return found


class Checker:
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

    def number(
        self,
        key: str,
        default: float | None = None,
        *,
        low: float | None = None,
        high: float | None = None,
        required: bool = False,
    ) -> float | None:
        value = self.raw.get(key)
        if value is None:
            if required:
                raise self.error(key, "is missing")
            return default
        if (
            isinstance(value, bool)
            or not isinstance(value, numbers.Real)
            or not math.isfinite(value)
        ):
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
            if not value or not all(is_scalar(v) for v in value):
                raise self.error(key, f"list must hold numbers or names, got {value!r}")
            return list(value)
        if not is_scalar(value):
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
            raise self.error(
                key, f"must be a method name, a list of names or a mapping, got {value!r}"
            )
        methods = value.get("method")
        if methods is None:
            names = None
        elif isinstance(methods, str):
            names = (methods,)
        elif (
            isinstance(methods, list | tuple)
            and methods
            and all(isinstance(m, str) for m in methods)
        ):
            names = tuple(methods)
        else:
            raise self.error(f"{key}.method", f"must be a name or a list of names, got {methods!r}")
        fixed, limits = {}, {}
        for axis, v in value.items():
            if axis == "method":
                continue
            parsed = self.filter(f"{key}.{axis}", v)
            (fixed if is_scalar(parsed) else limits)[str(axis)] = parsed
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
            tiers.append(
                tuple(
                    self.selection(key, m) if m is not None else self.selection(key)
                    for m in members
                )
            )
        return tuple(tiers)


def is_scalar(value: Any) -> bool:
    """A number or a name (not a boolean)."""
    return isinstance(value, str | numbers.Real) and not isinstance(value, bool)


@dataclass(frozen=True)
class ClaimResult:
    """The verdict of one claim on one results table.

    ``status`` is one of :data:`~anonlab.report.claims.stats.STATUSES`; ``ours`` states our
    numbers with their 95 % intervals; ``reps`` is, for a claim within noise, how many
    repetitions would decide it were the observed means and spreads the truth.
    """

    id: str
    paper: str | None
    section: str | None
    quote: str
    kind: str
    status: str
    ours: str
    notes: str | None = None
    target: str | None = None
    tolerance_note: str | None = None
    known_departure: Mapping[str, str] | None = None
    reps: int | None = None
    metric: str | None = None
    sanity: str | None = None
    #: the grid points the claim reads: its selections and filters
    slice: str | None = None
    #: the group-sequential look that gave the verdict (1-based), the repetitions it
    #: judged, and for a claim within noise the next look's repetitions (``None``: no look
    #: left, or none that the estimates say could decide it)
    look: int | None = None
    look_reps: int | None = None
    next_reps: int | None = None
    #: for a claim within noise with a look left, the chance that the next look decides it
    #: were the observed means and spreads the truth (:func:`~.stats.decide_chance`)
    decide_chance: float | None = None
    #: the repetitions of the plan's last look (what "beyond the plan" is measured against)
    last_look_reps: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return dict(vars(self))

    @property
    def needs_more_data(self) -> bool:
        """Within noise, and the plan's next look could decide it."""
        return self.status == "within noise" and self.next_reps is not None

    @classmethod
    def of(
        cls,
        claim: Claim,
        status: str,
        ours: str,
        reps: int | None = None,
        decide_chance: float | None = None,
    ) -> ClaimResult:
        return cls(
            claim.id,
            claim.paper or "",  # the report names no paper for a claim without one
            claim.section,
            claim.quote,
            claim.kind,
            status,
            ours,
            claim.notes,
            claim.target,
            claim.tolerance_note,
            claim.known_departure,
            reps,
            claim.metric,
            claim.sanity,
            slice_text(claim),
            decide_chance=decide_chance,
        )


def slice_text(claim: Claim) -> str:
    """The grid points a claim reads, in words: its selections (with their fixed axes and
    ranges) and its ``where`` filters."""
    parts = list(dict.fromkeys(s.label for s in claim.selections()))
    text = "; ".join(parts) if parts else "the run's stored tables"
    metric = (
        f"{claim.metric}{' per attribute' if claim.by_attribute else ''}: "
        if (claim.metric)
        else ""
    )
    return metric + text + (f" where {where_text(claim.where)}" if claim.where else "")


class NotCheckable(Exception):
    """The results lack what the claim needs."""


def symbol(axis: str) -> str:
    """The papers' symbol of a grid axis."""
    return AXIS_SYMBOLS.get(axis, axis)


def fmt(value: Any) -> str:
    """A number as the report prints it (3 significant digits, whole numbers as such)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        value = float(value)
        if math.isinf(value):
            return "∞" if value > 0 else "−∞"
        return f"{value:.0f}" if value.is_integer() and abs(value) < 1e6 else f"{value:.3g}"
    return str(value)


def axis_label(axis: str, value: Any) -> str:
    if axis in ("attribute", "dataset", "method"):
        return str(value)
    return f"{symbol(axis)}={fmt(value)}"


def filter_text(value: Filter) -> str:
    if isinstance(value, Mapping):
        parts = ([f">= {fmt(value['min'])}"] if "min" in value else []) + (
            [f"<= {fmt(value['max'])}"] if "max" in value else []
        )
        return " and ".join(parts)
    if isinstance(value, list):
        return "in {" + ", ".join(fmt(v) for v in value) + "}"
    return f"= {fmt(value)}"


def where_text(where: Mapping[str, Filter]) -> str:
    return ", ".join(f"{symbol(a)} {filter_text(v)}" for a, v in where.items())


def need_of(claim: Claim, n: int) -> int:
    """How many of ``n`` points (pairs, groups) must hold."""
    if claim.min_count is not None:
        return min(claim.min_count, n)
    return max(1, math.ceil(claim.min_share * n - 1e-9))


def need_text(claim: Claim) -> str:
    if claim.min_count is not None:
        return f"need {claim.min_count}"
    return "need all" if claim.min_share >= 1 else f"need {claim.min_share:.0%}"


def examples(items: Sequence[str], limit: int = 3) -> str:
    shown = "; ".join(items[:limit])
    return shown + (f"; … ({len(items) - limit} more)" if len(items) > limit else "")


def largest_first(deviation: np.ndarray) -> np.ndarray:
    """Indices of points by their ``deviation`` from the claim's band, largest first (the
    point most against the claim leads), ties in table order, NaN last."""
    deviation = np.asarray(deviation, dtype=float)
    return np.argsort(-np.nan_to_num(deviation, nan=-np.inf), kind="stable")


def relative_deviation(against: np.ndarray, *values: np.ndarray) -> np.ndarray:
    """A difference that goes ``against`` the claim by this much, relative to the points'
    ``values`` (the largest |value|; the plain difference where they are all 0)."""
    scale = np.max(np.abs(np.broadcast_arrays(*values)), axis=0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(scale > 0, np.asarray(against, dtype=float) / scale, against)
