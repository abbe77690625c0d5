"""Grid axes as declared constraints: each parameter a grid sweeps is one :class:`Axis`.

An axis is declared once, as one object: its value type and range (or a check of its own),
its default, its symbol and label (figures, claims, ``anonlab list``), the values the
conformance kit builds and probes with (:mod:`anonlab.conformance`), an upper limit read
off the data (k ≤ records, m ≤ attributes) and, for an axis of the data view, the view of
the data set it selects. Validation (:mod:`anonlab.runner.validate`), the grid
(:mod:`anonlab.runner.grid`) and the figures read these declarations, never the axis's name.

Where each is declared: the axes the methods share (ε, k, t) here, in
:data:`SHARED_AXES`; the data view's (m, α) with the data sets
(:data:`anonlab.datasets.axes.VIEW_AXES`); an axis of one method's own with the method
(:attr:`anonlab.methods.base.Method.own_axes`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from anonlab.validation import ParameterError

#: which ends of ``[low, high]`` an axis's values may take (scikit-learn's ``closed``)
CLOSED = ("both", "left", "right", "neither")
#: the value types an axis takes
KINDS: dict[str, type] = {"int": int, "float": float}


def checked_later(value: Any, name: str) -> Any:
    """The stand-in for an axis's own check where only its declared facts are known (the
    cached facts of :mod:`anonlab.runner.validate`): ``value`` unchanged; the check itself
    runs where the axis is loaded (its method built, its view taken)."""
    return value


def _number(value: float) -> str:
    """A bound as an error message writes it: ``0``, ``1.5``, ``inf``."""
    return f"{value:g}" if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class Axis:
    """One grid axis: a parameter a run sweeps, declared with everything that reads it.

    Parameters
    ----------
    name : the grid key (``grid.<name>``) and parameter name, e.g. ``"epsilon"``.
    kind : ``int`` or ``float``: the type its values are checked and stored as.
    low, high : the range's ends (``None``: unbounded); ``high=math.inf`` with an open
        right end means "finite".
    closed : which ends belong to the range: ``"both"``, ``"left"``, ``"right"`` or
        ``"neither"``.
    rule : a check of its own, ``rule(value, name) -> value`` raising a
        :class:`~anonlab.validation.ParameterError`; it replaces ``kind`` and the range.
    default : the value a grid that leaves the axis out runs at (recorded in its cells);
        a method's axis takes it from its dataclass field (the two must agree).
    symbol : its short name in panel titles, legends and claims (``"ε"``); the name if
        empty.
    label : its axis label in figures (``"k (cluster size)"``); the symbol if empty.
    why : the reason for the range, said in the error (``"so that [0, α·max] holds the
        data"``).
    test_value : a small, safe value the conformance kit builds with.
    bad_values : values the axis must refuse (checked by the conformance kit).
    limit : ``limit(dataset)``: the largest value the data set takes (``k ≤ n``).
    limit_unit : what the limit counts, in messages (``"records"``).
    view : for an axis of the data view, ``view(dataset, value)``: the data set as the
        value selects it (the first ``m`` attributes).
    """

    name: str
    kind: type[int] | type[float] = float
    low: float | None = None
    high: float | None = None
    closed: str = "both"
    rule: Callable[[Any, str], Any] | None = None
    default: Any = None
    symbol: str = ""
    label: str = ""
    why: str = ""
    test_value: Any = None
    bad_values: tuple[Any, ...] = ()
    limit: Callable[[Any], float] | None = None
    limit_unit: str = ""
    view: Callable[[Any, Any], Any] | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.isidentifier():
            raise TypeError(f"an axis's name must be an identifier, got {self.name!r}")
        if self.kind not in KINDS.values():
            raise TypeError(f"axis {self.name!r}: kind must be int or float, got {self.kind!r}")
        if self.closed not in CLOSED:
            raise TypeError(f"axis {self.name!r}: closed must be one of {CLOSED}")
        object.__setattr__(self, "symbol", self.symbol or self.name)
        object.__setattr__(self, "label", self.label or self.symbol)
        object.__setattr__(self, "bad_values", tuple(self.bad_values))

    def bounds(self, limit: float | None = None) -> str:
        """The range in words, as errors say it: ``>= 1``, ``in 1..13``, ``in (0, 1]``,
        ``> 0 and finite``; ``limit`` (a value the data takes at most) lowers the top."""
        if self.kind is int:
            low, high = self._int_range(limit)
            if low is not None and high is not None:
                return f"in {low}..{high}"
            return f">= {low}" if low is not None else f"<= {high}" if high is not None else ""
        low, high, low_in, high_in = self._float_range(limit)
        if low is not None and high is not None and math.isfinite(high):
            left, right = "[" if low_in else "(", "]" if high_in else ")"
            return f"in {left}{_number(low)}, {_number(high)}{right}"
        finite = " and finite" if high == math.inf and not high_in else ""
        if low is not None:
            return f"{'>=' if low_in else '>'} {_number(low)}{finite}"
        if high is not None and math.isfinite(high):
            return f"{'<=' if high_in else '<'} {_number(high)}"
        return "finite" if finite else ""

    def check(self, value: Any, name: str | None = None, limit: float | None = None) -> Any:
        """``value`` checked and as the axis's ``kind``, or one error naming the
        parameter ``name`` (the axis's name by default), the value and the cause.

        Parameters
        ----------
        value : a value of the axis.
        name : how the error names the parameter, e.g. ``"grid.k"``.
        limit : the largest value the data takes (the axis's :attr:`limit` of a data set).

        Raises
        ------
        TypeError
            ``value`` is not a number of the axis's kind.
        ParameterError
            ``value`` is outside the axis's range or above ``limit``.
        """
        name = name or self.name
        if self.rule is not None:
            value = self.rule(value, name)
            if limit is not None and value > limit:
                raise ParameterError(
                    f"{name}={value!r} exceeds the data's {_number(limit)} {self.limit_unit}; "
                    f"{self.name} must be <= {_number(limit)}"
                )
            return value
        if self.kind is int:
            if isinstance(value, float) and value.is_integer():
                value = int(value)
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"{name} must be an integer, got {value!r}")
            number: int | float = int(value)
            low, high = self._int_range(limit)
            holds = (low is None or number >= low) and (high is None or number <= high)
        else:
            if isinstance(value, bool) or not isinstance(value, numbers.Real):
                raise TypeError(f"{name} must be a real number, got {value!r}")
            number = float(value)
            holds = self._holds(number, limit)
        if holds:
            return number
        shown = number if self.kind is int else value
        bounds = self.bounds(limit) or "finite"
        if self.why:
            raise ParameterError(
                f"{name}={shown!r}: {self.name} must be a number {bounds}, {self.why}"
            )
        raise ParameterError(f"{name} must be {bounds}, got {shown!r}")

    def _int_range(self, limit: float | None) -> tuple[int | None, int | None]:
        """The closed integer range ``[low, high]`` of an int axis (``None``: unbounded),
        its top lowered to ``limit``."""
        low = high = None
        if self.low is not None:
            low = math.floor(self.low) + (self.closed in ("right", "neither"))
        if self.high is not None and math.isfinite(self.high):
            high = math.ceil(self.high) - (self.closed in ("left", "neither"))
        if limit is not None:
            high = int(limit) if high is None else min(high, int(limit))
        return low, high

    def _float_range(self, limit: float | None) -> tuple[float | None, float | None, bool, bool]:
        """``(low, high, low included, high included)`` of a float axis, its top lowered
        to ``limit`` (included)."""
        low_in, high_in = self.closed in ("both", "left"), self.closed in ("both", "right")
        high = self.high
        if limit is not None and (high is None or limit < high or (limit == high and high_in)):
            high, high_in = float(limit), True
        return self.low, high, low_in, high_in

    def _holds(self, number: float, limit: float | None) -> bool:
        """Whether the float ``number`` lies in the range (and at most ``limit``)."""
        low, high, low_in, high_in = self._float_range(limit)
        if math.isnan(number):
            return False
        if low is not None and not (number >= low if low_in else number > low):
            return False
        return high is None or (number <= high if high_in else number < high)

    def facts(self) -> dict[str, Any]:
        """What validation needs of the axis, as JSON values: name, kind, range and
        reason; an axis with a ``rule`` of its own is marked ``rule: true`` (its check is
        a function, run where the axis is loaded)."""
        return {
            "name": self.name,
            "kind": self.kind.__name__,
            "low": self.low,
            "high": self.high,
            "closed": self.closed,
            "why": self.why,
            "rule": self.rule is not None,
        }

    @classmethod
    def from_facts(cls, facts: dict[str, Any]) -> Axis:
        """The axis :meth:`facts` describes (its own rule, if any, stood in for by
        :func:`checked_later`)."""
        return cls(
            name=facts["name"],
            kind=KINDS[facts["kind"]],
            low=facts["low"],
            high=facts["high"],
            closed=facts["closed"],
            why=facts["why"],
            rule=checked_later if facts["rule"] else None,
        )


def records(dataset: Any) -> int:
    """The number of records of ``dataset`` (a :class:`~anonlab.datasets.Dataset`)."""
    return int(dataset.n)


#: the privacy budget ε of the differentially private methods (DP-IR §3, iDP §3)
EPSILON = Axis(
    "epsilon",
    float,
    low=0,
    high=math.inf,
    closed="neither",
    symbol="ε",
    test_value=1.0,
    bad_values=(0.0, -1.0, math.inf),
)
#: the cluster size k of microaggregation (k-anonymity): at most the records
K = Axis(
    "k",
    int,
    low=1,
    label="k (cluster size)",
    test_value=3,
    bad_values=(0, -2),
    limit=records,
    limit_unit="records",
)
#: the t-closeness level t: EMD with the ordered distance lies in [0, 1] (TCM §2.2)
T = Axis("t", float, low=0, high=1, closed="right", test_value=0.5, bad_values=(0.0, 1.5))

#: the grid axes the methods share, by name; a method takes one by naming it in ``axes``
SHARED_AXES: dict[str, Axis] = {axis.name: axis for axis in (EPSILON, K, T)}
