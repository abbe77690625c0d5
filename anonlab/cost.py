"""What one call costs before it is spent: a method's release, a metric's value, a table.

Each method class and each metric declares its cost (``cost = Cost("n^2/k*(m+20)",
seconds=…)``): how its time grows with the sizes of one call, as a formula in

* ``n``, the records of the data set view;
* ``m``, its protected attributes;
* ``k``, ``t`` and ``epsilon``, the grid parameters of the method (a metric sees the
  method's too);

and the seconds one unit of the formula takes, measured on this machine kind
(``benchmarks/timings/cost_model.py`` fits them and prints the prediction error), plus ``fixed``
seconds a call takes whatever the sizes. The plan stage (:mod:`anonlab.runner.plan`) adds
them up over a run's jobs before any job runs.

A formula is arithmetic (``+ - * /``, ``^`` or ``**`` for powers) on numbers, the variables
above and the functions ``log`` (natural logarithm, at least 1), ``sqrt``, ``max`` and
``min``; it is checked when the class or metric is defined.
"""

from __future__ import annotations

import ast
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from types import CodeType
from typing import Any

#: the sizes a formula may name
VARIABLES: tuple[str, ...] = ("n", "m", "k", "t", "epsilon")
#: the functions a formula may call
FUNCTIONS: dict[str, Callable[..., float]] = {
    "log": lambda x: math.log(max(x, math.e)),
    "sqrt": math.sqrt,
    "max": max,
    "min": min,
}
#: the operators a formula may use: + - * / and powers
_OPERATORS = (ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow)


def _checked(node: ast.AST, formula: str) -> None:
    """Raise a :class:`ValueError` unless ``node`` is arithmetic on numbers, the
    :data:`VARIABLES` and the :data:`FUNCTIONS`."""
    for part in ast.walk(node):
        if isinstance(part, ast.Name) and part.id not in VARIABLES and part.id not in FUNCTIONS:
            raise ValueError(
                f"cost formula {formula!r}: unknown name {part.id!r}; the sizes are "
                f"{list(VARIABLES)}, the functions {list(FUNCTIONS)}"
            )
        if isinstance(part, ast.Call) and (
            not isinstance(part.func, ast.Name) or part.func.id not in FUNCTIONS or part.keywords
        ):
            raise ValueError(f"cost formula {formula!r}: only {list(FUNCTIONS)} may be called")
        if isinstance(part, ast.BinOp) and not isinstance(part.op, _OPERATORS):
            raise ValueError(f"cost formula {formula!r}: only + - * / ^ are allowed")
        allowed = (
            ast.Expression,
            ast.BinOp,
            ast.UnaryOp,
            ast.USub,
            ast.Call,
            ast.Name,
            ast.Load,
            ast.Constant,
            ast.operator,
        )
        if not isinstance(part, allowed) or (
            isinstance(part, ast.Constant) and not isinstance(part.value, int | float)
        ):
            raise ValueError(f"cost formula {formula!r}: {ast.dump(part)} is not arithmetic")


@dataclass(frozen=True)
class Cost:
    """Seconds of one call: ``fixed + seconds × formula(n, m, k, t, ε)``.

    Parameters
    ----------
    formula : str
        How the time grows with the sizes of the call, e.g. ``"n^2/k*(m+20)"`` (MDAV) or
        ``"n*m"`` (linear); see the module docstring for what it may contain.
    seconds : float
        Seconds one unit of the formula takes on this machine kind (fitted by
        ``benchmarks/timings/cost_model.py``).
    fixed : float
        Seconds a call takes whatever its sizes (a model fit's compilation, a forest's
        trees).
    """

    formula: str
    seconds: float
    fixed: float = 0.0
    _code: CodeType = field(init=False, repr=False, compare=False)
    _names: frozenset[str] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        try:
            tree = ast.parse(self.formula.replace("^", "**"), mode="eval")
        except SyntaxError as error:
            raise ValueError(f"cost formula {self.formula!r} is not a formula: {error}") from None
        _checked(tree, self.formula)
        for name, value in (("seconds", self.seconds), ("fixed", self.fixed)):
            if isinstance(value, bool) or not isinstance(value, int | float) or not value >= 0:
                raise ValueError(f"cost {self.formula!r}: {name} must be a number >= 0")
        # checked to be arithmetic on the sizes and FUNCTIONS only: compiled once
        object.__setattr__(self, "_code", compile(tree, f"<cost {self.formula}>", "eval"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in VARIABLES}
        object.__setattr__(self, "_names", frozenset(names))

    @property
    def names(self) -> frozenset[str]:
        """The sizes the formula names."""
        return self._names

    def units(self, **sizes: Any) -> float:
        """The formula at ``sizes`` (``n=…, m=…, k=…``); a size it names must be given."""
        missing = sorted(n for n in self._names if sizes.get(n) is None)
        if missing:
            raise KeyError(f"cost formula {self.formula!r} needs {missing}")
        scope = {"__builtins__": {}, **FUNCTIONS}
        return float(eval(self._code, scope, {n: float(sizes[n]) for n in self._names}))

    def of(self, **sizes: Any) -> float:
        """Seconds of one call at ``sizes``: ``fixed + seconds × units``."""
        return self.fixed + self.seconds * self.units(**sizes)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its declaration (the compiled formula is made again)."""
        return (type(self), (self.formula, self.seconds, self.fixed))

    def __str__(self) -> str:
        fixed = f" + {self.fixed:.3g} s" if self.fixed else ""
        return f"{self.seconds:.3g} s × {self.formula}{fixed}"


#: what a component that declares no cost is taken to cost: linear in the values
LINEAR = Cost("n*m", seconds=1e-8, fixed=5e-5)


def duration(seconds: float) -> str:
    """``seconds`` as a person reads a duration: ``<1 s``, ``40 s``, ``12 min``, ``3.5 h``,
    ``41 days``."""
    if seconds < 0.5:
        return "<1 s"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    if seconds < 72 * 3600:
        hours = seconds / 3600
        return f"{hours:.1f} h" if hours < 10 else f"{hours:.0f} h"
    return f"{seconds / 86400:,.0f} days"


__all__ = ["FUNCTIONS", "LINEAR", "VARIABLES", "Cost", "duration"]
