"""The registry of claim kinds: each kind registers itself where it is defined.

A kind is one module of this package (or of a user's own) that ends with
``KIND = register_kind(name, fields=…, parse=…, evaluate=…)``: its fields beside the
common ones (:data:`~anonlab.report.claims.model.COMMON_FIELDS`), a parser from a
:class:`~anonlab.report.claims.model.Checker` to its parameters, and an evaluator from a
claim and the results (:class:`~anonlab.report.claims.data.ResultsTable`) to an
:class:`Evaluation`. :mod:`anonlab.report.claims` imports every module of the package, so a
new kind is one new file.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from anonlab.report.claims.model import COMMON_FIELDS, Checker, Claim

if TYPE_CHECKING:
    from anonlab.report.claims.data import ResultsTable


class Evaluation(NamedTuple):
    """What a kind's evaluator finds: the verdict, our numbers as text, the repetitions that
    would decide a claim within noise (``None``: none would, or it is decided), and, for the
    kinds that tally points, the chance that the next look decides it."""

    status: str
    ours: str
    reps: int | None = None
    chance: float | None = None


@dataclass(frozen=True)
class Kind:
    """One claim kind: its ``name`` (the config's ``kind:``), its own ``fields``, its
    ``parse`` and ``evaluate`` functions, and whether a claim of it within noise gets an
    estimate of the repetitions that would decide it (``estimates``)."""

    name: str
    fields: frozenset[str]
    parse: Callable[[Checker], dict[str, Any]]
    evaluate: Callable[[Claim, ResultsTable], Evaluation]
    estimates: bool = True


#: every registered kind by name, in registration order
KINDS: dict[str, Kind] = {}


def _origin(function: Callable[..., Any]) -> tuple[str, str]:
    return getattr(function, "__module__", ""), getattr(function, "__qualname__", "")


def register_kind(
    name: str,
    *,
    fields: Collection[str],
    parse: Callable[[Checker], dict[str, Any]],
    evaluate: Callable[[Claim, ResultsTable], Evaluation],
    estimates: bool = True,
) -> Kind:
    """Register claim kind ``name`` and return it.

    Raises
    ------
    TypeError
        ``name`` is taken by another kind, or a field shadows a common field.
    """
    kind = Kind(str(name), frozenset(fields), parse, evaluate, estimates)
    shadowed = sorted(kind.fields & COMMON_FIELDS)
    if shadowed:
        raise TypeError(f"claim kind {name!r}: field {shadowed[0]!r} is a common field")
    known = KINDS.get(kind.name)
    if known is not None and _origin(known.evaluate) != _origin(evaluate):  # not a re-import
        raise TypeError(f"claim kind {name!r} is already registered")
    KINDS[kind.name] = kind
    return kind
