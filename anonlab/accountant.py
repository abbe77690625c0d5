"""A privacy budget that composes: every release of the same data spends its ε.

:class:`BudgetAccountant` keeps the ledger of one data set. Each release charged to it
adds the ε (and δ) for which its guarantee holds as returned: sequential composition
(Dwork & Roth 2014, Theorem 3.16: k mechanisms of ε_i-DP on the same data are
(Σ ε_i)-DP; with δ_i, (Σ ε_i, Σ δ_i)-DP). Releases of declared disjoint parts of the data
compose in parallel (McSherry 2009, "Privacy integrated queries", Theorem 4: mechanisms
on disjoint subsets cost the largest of their ε), which holds where the partition is
public, so it is declared (``part=``) rather than found. A declared total refuses the
release that would pass it, before any noise is drawn. The design follows diffprivlib's
``BudgetAccountant`` and OpenDP's sequential compositors, without a global default: an
accountant is an object a :class:`~anonlab.api.Protector` owns or a caller passes.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from anonlab.validation import ParameterError

#: the ledger's name for a release of the whole data (``part=None``)
WHOLE = None


@dataclass(frozen=True)
class Charge:
    """One release charged to an accountant: its method, the ε and δ its guarantee holds
    for as returned, and the part of the data it protected (``None``: all of it)."""

    method: str
    epsilon: float
    delta: float
    part: str | None


def _check_total(value: Any, name: str, upper: float | None = None) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
        raise ParameterError(f"{name} must be a number > 0 or None, got {value!r}")
    if not value > 0 or (upper is not None and not value < upper):
        bound = f" and < {upper:g}" if upper is not None else ""
        raise ParameterError(f"{name} must be > 0{bound}, got {value!r}")
    return float(value)


def _row_hashes(frame: pd.DataFrame) -> np.ndarray:
    """One 64-bit hash per row, of its index label and values (pandas'
    ``hash_pandas_object``), sorted: the rows a release was made from."""
    return np.sort(pd.util.hash_pandas_object(frame, index=True).to_numpy())


def _fingerprint(frame: pd.DataFrame, rows: np.ndarray) -> str:
    names = "\x1f".join(map(str, frame.columns)).encode()
    return hashlib.sha256(names + rows.tobytes()).hexdigest()


class BudgetAccountant:
    """The privacy ledger of one data set.

    Parameters
    ----------
    epsilon : the total ε the data's releases may spend; ``None``: no total (the ledger
        still adds up what was spent).
    delta : the total δ; ``None``: no total. A release with δ > 0 (``mst``, ``aim``)
        needs a total that covers it when one is given.

    Notes
    -----
    The first release charged binds the accountant to its data (its columns and the
    hash of every row, index included); a later release of other data is refused, as
    sharing one ledger across data sets would compose what does not compose. A release
    with ``part=NAME`` protects one cell of a public partition of those data: parts must
    be disjoint, and the ε spent is that of the whole data's releases plus the largest
    sum over any one part. Copies of an accountant (``copy.deepcopy``, as
    ``sklearn.clone`` makes of a parameter) are the same ledger: a budget is never
    duplicated by copying.
    """

    def __init__(self, epsilon: float | None = None, delta: float | None = None) -> None:
        self.epsilon = _check_total(epsilon, "epsilon")
        self.delta = _check_total(delta, "delta", 1.0)
        self.charges: list[Charge] = []
        self._bound: dict[str | None, str] = {}
        self._rows: dict[str | None, np.ndarray] = {}

    def __copy__(self) -> BudgetAccountant:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> BudgetAccountant:
        return self

    def __repr__(self) -> str:
        return (
            f"BudgetAccountant(epsilon={self.epsilon}, delta={self.delta}; "
            f"spent {self.spent:g}, {len(self.charges)} release(s))"
        )

    def _total(self, charges: list[Charge], field: str) -> float:
        whole = sum(getattr(c, field) for c in charges if c.part is WHOLE)
        parts: dict[str, float] = {}
        for c in charges:
            if c.part is not WHOLE:
                parts[c.part] = parts.get(c.part, 0.0) + getattr(c, field)
        return whole + max(parts.values(), default=0.0)

    @property
    def spent(self) -> float:
        """The ε spent so far (sequential over the whole data, parallel over parts)."""
        return self._total(self.charges, "epsilon")

    @property
    def spent_delta(self) -> float:
        """The δ spent so far, composed as ε is."""
        return self._total(self.charges, "delta")

    @property
    def remaining(self) -> float | None:
        """The ε left of the total (``None`` without one)."""
        return None if self.epsilon is None else max(self.epsilon - self.spent, 0.0)

    def _check_data(self, frame: pd.DataFrame, part: str | None) -> tuple[str, np.ndarray]:
        rows = _row_hashes(frame)
        fingerprint = _fingerprint(frame, rows)
        bound = self._bound.get(part)
        where = "the whole data" if part is WHOLE else f"part {part!r}"
        if bound is not None and bound != fingerprint:
            raise ParameterError(
                f"accountant: its ledger of {where} was opened on other data; an "
                "accountant keeps the budget of one data set: use one per data set"
            )
        if bound is None:
            for other, held in self._rows.items():
                if part is not WHOLE and other is not WHOLE:
                    if np.intersect1d(rows, held, assume_unique=False).size:
                        raise ParameterError(
                            f"part={part!r} shares records with part {other!r}: parallel "
                            "composition needs disjoint parts of a public partition"
                        )
                else:
                    inside = np.isin(rows, held) if other is WHOLE else np.isin(held, rows)
                    if not inside.all():
                        raise ParameterError(
                            f"accountant: {where} holds records outside the data its "
                            "ledger was opened on; an accountant keeps the budget of one "
                            "data set: use one per data set"
                        )
        return fingerprint, rows

    def charge(
        self, method: str, epsilon: float, delta: float, frame: pd.DataFrame, part: str | None
    ) -> float:
        """Charge a release of ``frame`` (``part`` of the data, or all of it) that spends
        ``epsilon`` and ``delta``; returns the ε spent with it. Raises before anything is
        recorded when the data are not this accountant's, or the release would pass a
        total."""
        if part is not WHOLE and not isinstance(part, str):
            raise ParameterError(f"part must be a name (str) or None, got {part!r}")
        fingerprint, rows = self._check_data(frame, part)
        charge = Charge(method, float(epsilon), float(delta), part)
        after = [*self.charges, charge]
        spent, spent_delta = self._total(after, "epsilon"), self._total(after, "delta")
        if self.epsilon is not None and spent > self.epsilon * (1 + 1e-12):
            raise ParameterError(
                f"accountant: method {method!r} at ε = {epsilon:g} would bring the ε spent "
                f"on these data to {spent:g}, over the total epsilon={self.epsilon:g} "
                f"({self.spent:g} spent in {len(self.charges)} release(s)); refused "
                "before any noise was drawn"
            )
        if delta > 0 and self.delta is not None and spent_delta > self.delta * (1 + 1e-12):
            raise ParameterError(
                f"accountant: method {method!r} at δ = {delta:g} would bring the δ spent "
                f"to {spent_delta:g}, over the total delta={self.delta:g}; refused before "
                "any noise was drawn"
            )
        self._bound[part] = fingerprint
        self._rows[part] = rows
        self.charges.append(charge)
        return spent


def check_accountant(value: Any, name: str = "accountant") -> BudgetAccountant | None:
    """``value`` if it is a :class:`BudgetAccountant` or ``None``, else a
    :class:`TypeError` naming ``name``."""
    if value is None or isinstance(value, BudgetAccountant):
        return value
    raise TypeError(f"{name} must be a BudgetAccountant or None, got {type(value).__name__}")


__all__ = ["BudgetAccountant", "Charge", "check_accountant"]
