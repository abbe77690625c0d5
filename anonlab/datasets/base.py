"""The :class:`Dataset` type: a frame plus each attribute's kind, role and domain."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from typing import Any, Literal

import numpy as np
import pandas as pd

from anonlab.microaggregation import SortedColumns, sort_columns
from anonlab.semantics import Taxonomy
from anonlab.validation import ParameterError, check_int

Kind = Literal["numerical", "categorical"]
Role = Literal["quasi_identifier", "confidential", "class", "other"]
ROLES: tuple[str, ...] = ("quasi_identifier", "confidential", "class", "other")


@dataclass(frozen=True)
class Attribute:
    """One column of a data set as the papers describe it.

    Parameters
    ----------
    name : column name in the frame.
    kind : ``"numerical"`` or ``"categorical"``.
    role : quasi-identifier, confidential, class or other.
    domain : ``(low, high)`` public bounds of a numerical attribute; the sensitivity
        Δ(A) is ``high - low`` (DP-IR §4.1).
    taxonomy : the taxonomy τ(A) of a categorical attribute; its labels are Dom(A)
        (DP-IR §3.4).
    integer : the attribute holds whole numbers; released noisy values are rounded to
        them. Declared public (``dataset.integer``, :func:`anonlab.protect`'s
        ``integer``), or read off the data when ``integer_from_data``.
    discrete : histograms use one bin per value instead of 100 equal bins (DP-IR §4.2).
    alpha : the α of a domain set by the rule [0, α·max] (DP-IR §4.1, iDP §4.1); ``None``
        for a declared domain.
    integer_from_data : ``integer`` was read off the private values (``integer="data"``),
        not declared: a release that rounds to it discloses whether every value is whole.
    """

    name: str
    kind: Kind = "numerical"
    role: Role = "other"
    domain: tuple[float, float] | None = None
    integer: bool = False
    discrete: bool = False
    taxonomy: Taxonomy | None = None
    alpha: float | None = None
    integer_from_data: bool = False

    @property
    def categorical(self) -> bool:
        """Whether the attribute is categorical (values are taxonomy concepts)."""
        return self.kind == "categorical"

    @property
    def width(self) -> float:
        """Domain width Δ(A) = high − low of a numerical attribute."""
        if self.domain is None:
            raise ParameterError(f"attribute {self.name!r} has no numerical domain")
        return float(self.domain[1] - self.domain[0])


class ComputedOnce:
    """What an immutable object computes of itself once and keeps (:meth:`computed_once`)."""

    def computed_once(self, key: Hashable, compute: Callable[[], Any]) -> Any:
        """``compute()`` the first time ``key`` is asked of this object, then the stored
        value."""
        store = self.__dict__.setdefault("_computed", {})
        if key not in store:
            store[key] = compute()
        return store[key]


@dataclass(frozen=True)
class Dataset(ComputedOnce):
    """A data set ready for protection.

    ``frame`` holds every column of the raw data, in its order: the analysed attributes
    validated (numerical ones as floats, categorical ones as stripped labels of their
    taxonomy), the other columns unchanged, so that a release keeps all of them; only the
    class column of ``dataset.target`` is left out. ``attributes`` lists the analysed
    attributes in order; ``protected`` names those a method protects (by default all of
    them). Metrics are computed on ``protected`` only; the other attributes and columns
    are released unchanged. ``target`` holds the class label of each record for
    classification metrics (iDP §4.2); it is never released or protected.
    """

    name: str
    frame: pd.DataFrame
    attributes: tuple[Attribute, ...]
    protected: tuple[str, ...] = field(default=())
    target: pd.Series | None = None

    def __post_init__(self) -> None:
        if not self.protected:
            object.__setattr__(self, "protected", tuple(a.name for a in self.attributes))

    def __getstate__(self) -> dict[str, Any]:
        """The fields only: a pickled view (a task for a worker) carries none of the
        caches, which the receiving process computes for itself, and pickling never reads
        them while this process fills them in."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @property
    def n(self) -> int:
        """Number of records."""
        return len(self.frame)

    def attribute(self, name: str) -> Attribute:
        """The :class:`Attribute` called ``name``."""
        for attr in self.attributes:
            if attr.name == name:
                return attr
        raise KeyError(name)

    @cached_property
    def protected_attributes(self) -> tuple[Attribute, ...]:
        """The protected :class:`Attribute` objects, in order (looked up once per view)."""
        return tuple(self.attribute(name) for name in self.protected)

    def protect_first(self, m: int) -> Dataset:
        """A view protecting the first ``m`` attributes (DP-IR §4.2: m ∈ {1, 8, 13})."""
        m = check_int(m, "m", 1, len(self.attributes))
        return replace(self, protected=tuple(a.name for a in self.attributes[:m]))

    def with_alpha(self, alpha: float) -> Dataset:
        """The data set with every rule-based domain set to [0, α·max] (iDP §4.1:
        α ∈ {1.5, 3.0}); declared domains are kept."""
        if isinstance(alpha, bool) or not isinstance(alpha, (int, float)) or not alpha >= 1:
            raise ParameterError(
                f"alpha must be a number >= 1 so that [0, alpha*max] holds the data, got {alpha!r}"
            )
        if not any(a.alpha is not None for a in self.attributes):
            raise ParameterError(
                f"data set {self.name!r} declares every domain "
                "(dataset.domains), so alpha cannot change them"
            )
        alpha = float(alpha)
        attributes = tuple(
            replace(
                a,
                alpha=alpha,
                domain=(0.0, alpha * float(self.frame[a.name].to_numpy(dtype=float).max())),
            )
            if a.alpha is not None
            else a
            for a in self.attributes
        )
        return replace(self, attributes=attributes)

    def rows(self, positions: np.ndarray) -> Dataset:
        """A view of the records at ``positions`` (in that order), with the same attributes,
        domains and protected columns: a part of the data set (an attack's training or
        control records), whose public bounds are the whole data set's."""
        positions = np.asarray(positions, dtype=np.int64)
        target = None if self.target is None else self.target.iloc[positions]
        return replace(self, frame=self.frame.iloc[positions], target=target)

    @cached_property
    def protected_values(self) -> np.ndarray:
        """Read-only float matrix (n × m) of the protected columns, computed once; a
        categorical column holds the codes of its taxonomy concepts."""
        columns = [
            attr.taxonomy.encode(self.frame[attr.name].to_numpy()).astype(float)
            if attr.categorical
            else self.frame[attr.name].to_numpy(dtype=float)
            for attr in self.protected_attributes
        ]
        values = np.column_stack(columns) if columns else np.empty((self.n, 0))
        values.setflags(write=False)
        return values

    @cached_property
    def sorted_protected(self) -> SortedColumns:
        """:attr:`protected_values` sorted per column, computed once: individual ranking
        at every k and repetition reuses it."""
        return sort_columns(self.protected_values)

    @cached_property
    def protected_variance(self) -> np.ndarray:
        """Sample variance (ddof = 1) of each protected attribute, computed once."""
        variance = self.protected_values.var(axis=0, ddof=1)
        variance.setflags(write=False)
        return variance
