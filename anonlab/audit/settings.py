"""The audit's parameters, checked at the edge (:mod:`anonlab.validation`)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any

from anonlab.audit.data import DESIGNS
from anonlab.methods.base import FORMS, SAMPLERS
from anonlab.validation import ParameterError, check_choice, check_int

#: smallest number of releases per data set: each half needs enough for a threshold
MIN_RUNS = 200


def check_real(value: object, name: str) -> float:
    """``value`` as a finite float, or a :class:`ParameterError` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ParameterError(f"{name} must be a finite number, got {value!r}")
    return float(value)


@dataclass(frozen=True)
class Settings:
    """How one audit runs.

    Attributes
    ----------
    runs : releases per data set (D and each D'); the first half chooses the event, the
        second bounds it.
    seed : master seed of the data set and of every release (numpy ``SeedSequence``).
    n, m : records and attributes of the audited data set.
    k : cluster size of the methods that take one.
    low, high : the public domain of every attribute.
    pairs : neighbours D' sampled (chosen among the 2n that move a record to an end).
    confidence : joint confidence of every bound the audit reports (Bonferroni).
    data : how the records are drawn (:func:`anonlab.audit.data.audit_dataset`).
    form : the release form audited (:data:`anonlab.methods.base.FORMS`).
    sampler : the Laplace sampler of the audited releases (numpy's by default: every
        statistic here ignores low-order bits, and ``python -m anonlab.audit floating``
        audits the samplers themselves).
    """

    runs: int = 10_000
    seed: int = 0
    n: int = 30
    m: int = 1
    k: int = 3
    low: float = 0.0
    high: float = 100.0
    pairs: int = 4
    confidence: float = 0.95
    data: str = DESIGNS[0]
    form: str = FORMS[0]
    sampler: str = SAMPLERS[0]

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "runs", check_int(self.runs, "runs", MIN_RUNS))
        set_(self, "seed", check_int(self.seed, "seed", 0))
        set_(self, "n", check_int(self.n, "n", 2))
        set_(self, "m", check_int(self.m, "m", 1))
        set_(self, "k", check_int(self.k, "k", 1, self.n))
        set_(self, "pairs", check_int(self.pairs, "pairs", 1, 2 * self.n))
        set_(self, "low", check_real(self.low, "low"))
        set_(self, "high", check_real(self.high, "high"))
        if not self.low < self.high:
            raise ParameterError(f"high must be > low, got low={self.low!r} high={self.high!r}")
        confidence = check_real(self.confidence, "confidence")
        if not 0 < confidence < 1:
            raise ParameterError(f"confidence must be in (0, 1), got {self.confidence!r}")
        set_(self, "confidence", confidence)
        check_choice(self.data, "data", DESIGNS)
        check_choice(self.form, "form", FORMS)
        check_choice(self.sampler, "sampler", SAMPLERS)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)
