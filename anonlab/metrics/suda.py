"""SUDA: special uniques of a released file's key variables (Elliot, Manning & Ford 2002,
"A computational algorithm for handling the special uniques problem", IJUFKS 10(5);
Elliot, Manning, Mayes, Gurd & Bane 2005, "SUDA: a program for detecting special
uniques"; sdcMicro's ``suda2``, Manning, Haglin & Keane 2008).

A set S of key attributes is a minimal sample unique (MSU) of a record when the record is
the only one with its values on S and on no proper subset of S. The fewer attributes an
MSU needs, and the more MSUs a record has, the more it stands out. MSUs are searched up to
``max_size`` attributes; sdcMicro's ``suda2`` searches them all.

Score, as sdcMicro's ``suda2`` (``original_scores = TRUE``, Elliot et al.'s weights): with
A key attributes, an MSU of size k adds (A − k)! to its record's SUDA score. Elliot et al.
weight it ∏_{i=k}^{M} (A − i) for the largest size searched M < A: (A − k)!/(A − M − 1)!,
the same scores up to one factor, so the same ranking and the same records scored above 0.
sdcMicro pads fewer than three key variables with constant columns (so A = 3 there, with
a warning that the result "might be wrong"); here A is the number of key attributes.

A record is **special-unique** here when its SUDA score is above 0: it has at least one
MSU of at most ``max_size`` attributes (the records sdcMicro's guidelines flag as at risk).
Elliot et al. reserve "special unique" for a sample unique that is likely a population
unique, which SUDA approximates by small MSUs.

**DIS-SUDA** (:func:`dis_suda`; Skinner & Elliot 2002's DIS measure, as sdcMicro's
``suda2`` spreads it over the records): with U the records unique on all A key attributes,
P those in a class of exactly two, and f the sampling fraction the file is assumed to be
drawn with (``DisFraction``, sdcMicro's default 0.01), DIS = U·f / (U·f + P·(1 − f)) is
the chance that a unique record matches its population twin correctly; each record with a
SUDA score s > 0 gets 1 / (1 + (U / DIS − U) / (s^Q · Σ_j s_j^−Q)), Q = 1 + (8 − A)/20,
the sum over the records scored above 0, and every other record 0. These are sdcMicro's
formulas (``Suda2.h``, which computes DIS in single precision: its scores agree with these
to about 1e−7), with its scores at ``max_size: all``; with fewer sizes searched, the
scores, and so the spread, are this module's.

As for :mod:`anonlab.metrics.disclosure`, released values are matched exactly: a
perturbative or synthetic release may have many MSUs that no one can be matched to.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

import numpy as np
import pandas as pd

from anonlab.cost import Cost
from anonlab.datasets import Dataset
from anonlab.metrics.base import ReleaseMetric
from anonlab.metrics.disclosure import check_keys
from anonlab.metrics.risk import KNOWN, known_columns
from anonlab.release import Release
from anonlab.validation import ParameterError

#: sdcMicro's ``suda2`` default ``DisFraction``: the sampling fraction DIS assumes
DIS_FRACTION = 0.01
#: option ``fraction`` of ``dis_suda_score``: the sampling fractions offered (first the
#: default); a file that is the whole population has none (DIS is then 1 for a unique)
DIS_FRACTIONS: tuple[float, ...] = (DIS_FRACTION, 0.001, 0.05, 0.1, 0.5)

#: ``max_size``, the most attributes an MSU may have: ``auto`` (the default) is
#: min(:data:`DEFAULT_MAX_SIZE`, the number of key attributes), ``all`` every size
#: (sdcMicro's ``suda2``); a number above the key attributes is refused
MAX_SIZES: tuple[str | int, ...] = ("auto", 1, 2, 3, 4, 5, 6, "all")
DEFAULT_MAX_SIZE = 3


def check_max_size(max_size: object, n_keys: int, name: str = "max_size") -> int:
    """The largest MSU size searched among ``n_keys`` key attributes (see
    :data:`MAX_SIZES`); a size below 1 or above ``n_keys`` raises a
    :class:`~anonlab.validation.ParameterError` naming ``name``."""
    if max_size is None or max_size == "auto":
        return min(DEFAULT_MAX_SIZE, n_keys)
    if max_size == "all":
        return n_keys
    if isinstance(max_size, bool) or not isinstance(max_size, int | np.integer):
        raise ParameterError(f"{name}: need a whole number, 'auto' or 'all', got {max_size!r}")
    if not 1 <= int(max_size) <= n_keys:
        raise ParameterError(
            f"{name}={max_size}: an MSU is a set of 1 to {n_keys} key attributes (there are "
            f"{n_keys}); choose at most {n_keys}, or 'auto' or 'all'"
        )
    return int(max_size)


def column_codes(keys: np.ndarray) -> np.ndarray:
    """Each column of ``keys`` (records × attributes) as codes 0..c−1 of its distinct
    values."""
    keys = np.asarray(keys)
    codes = np.empty(keys.shape, dtype=np.int64)
    for j in range(keys.shape[1]):
        codes[:, j] = np.unique(keys[:, j], return_inverse=True)[1].reshape(-1)
    return codes


def minimal_sample_uniques(codes: np.ndarray, max_size: int) -> np.ndarray:
    """``(n, max_size)`` counts: how many MSUs of each size 1..``max_size`` each record
    has, over the attributes (columns) of ``codes`` (:func:`column_codes`).

    Subsets are visited by size; a subset's classes extend its prefix's (the subset
    without its last attribute), and a record unique on S is an MSU there when it is
    unique on none of the subsets of S one attribute smaller (uniqueness is kept by
    supersets, so these suffice)."""
    n, n_keys = codes.shape
    cards = codes.max(axis=0) + 1 if n else np.ones(n_keys, dtype=np.int64)
    counts = np.zeros((n, max_size), dtype=np.int64)
    # the empty set: one class of all records, unique only when n = 1
    level: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {
        (): (np.zeros(n, dtype=np.int64), np.full(n, n == 1))
    }
    for size in range(1, max_size + 1):
        following: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray]] = {}
        for subset in combinations(range(n_keys), size):
            groups, _ = level[subset[:-1]]
            combined = groups * cards[subset[-1]] + codes[:, subset[-1]]
            _, classes, sizes = np.unique(combined, return_inverse=True, return_counts=True)
            classes = classes.reshape(-1)
            unique = sizes[classes] == 1
            minimal = unique.copy()
            for drop in range(size):  # Elliot et al.: minimal, no smaller subset unique
                minimal &= ~level[subset[:drop] + subset[drop + 1 :]][1]
            counts[:, size - 1] += minimal
            following[subset] = (classes, unique)
        level = following
    return counts


def suda_weights(n_keys: int, max_size: int) -> np.ndarray:
    """The score of one MSU of each size k = 1..``max_size``: (A − k)! for A = ``n_keys``
    key attributes (sdcMicro's ``suda2``, ``original_scores``)."""
    return np.array([math.factorial(n_keys - k) for k in range(1, max_size + 1)], dtype=float)


@dataclass(frozen=True)
class Suda:
    """SUDA of a file: per record its MSU counts by size (``msu``: n × ``max_size``) and
    its SUDA ``score``, among ``n_keys`` key attributes; ``uniques`` and ``pairs``: the
    records alone, and those in a class of exactly two, on all key attributes (DIS)."""

    msu: np.ndarray
    score: np.ndarray
    n_keys: int
    max_size: int
    uniques: int = 0
    pairs: int = 0

    @property
    def special_unique(self) -> np.ndarray:
        """Whether each record has an MSU of at most :attr:`max_size` attributes (score
        above 0)."""
        return self.score > 0

    @property
    def special_unique_share(self) -> float:
        """The share of records that are special-unique."""
        return float(self.special_unique.mean())


def suda_of(keys: np.ndarray, max_size: object = "auto") -> Suda:
    """:class:`Suda` of the rows of ``keys`` (records × key attributes); ``max_size`` as
    :func:`check_max_size`."""
    keys = np.asarray(keys)
    if keys.ndim != 2 or keys.shape[0] == 0 or keys.shape[1] == 0:
        raise ParameterError(f"keys: need a non-empty (records × keys) array, got {keys.shape}")
    size = check_max_size(max_size, keys.shape[1])
    codes = column_codes(keys)
    msu = minimal_sample_uniques(codes, size)
    _, counts = np.unique(codes, axis=0, return_counts=True)  # classes on all the keys
    return Suda(
        msu,
        msu @ suda_weights(keys.shape[1], size),
        keys.shape[1],
        size,
        uniques=int((counts == 1).sum()),
        pairs=int(2 * (counts == 2).sum()),
    )


def dis_suda(found: Suda, fraction: float = DIS_FRACTION) -> np.ndarray:
    """Each record's DIS-SUDA score (module docstring: sdcMicro's ``suda2`` ``disScore``)
    for a file drawn with sampling fraction ``fraction`` in (0, 1]."""
    if (
        isinstance(fraction, bool)
        or not isinstance(fraction, int | float | np.integer | np.floating)
        or not 0 < float(fraction) <= 1
    ):
        raise ParameterError(f"fraction={fraction!r}: a sampling fraction must be in (0, 1]")
    u, f = found.uniques, float(fraction)
    out = np.zeros(len(found.score))
    scored = found.score > 0
    if not scored.any():
        return out
    dis = u * f / (u * f + found.pairs * (1 - f))  # Skinner & Elliot's DIS
    q = 1 + (8 - found.n_keys) / 20  # sdcMicro's exponent
    weight = found.score[scored] ** q
    # sdcMicro's spread of DIS over the scored records
    out[scored] = 1 / (1 + (u / dis - u) / (weight * np.sum(1 / weight)))
    return out


def suda(data: pd.DataFrame, keys: Sequence[str], max_size: int | str = "auto") -> Suda:
    """SUDA of ``data`` on the key variables ``keys`` (numbers, text or categories; a
    missing value is a value of its own): MSUs of at most ``max_size`` attributes
    (``auto``: min(3, len(keys)); ``all``: every size, as sdcMicro's ``suda2``).

    Raises
    ------
    ParameterError
        Naming ``keys`` for a key variable not in the data, ``max_size`` for a size
        below 1 or above the number of keys.
    """
    keys = check_keys(data, keys)
    check_max_size(max_size, len(keys))
    codes = np.column_stack(
        [data[k].astype(object).factorize(use_na_sentinel=False)[0] for k in keys]
    )
    return suda_of(codes, max_size)


# --- the metrics -------------------------------------------------------------------------


def _released_suda(view: Dataset, release: Release, known: str, max_size: object) -> Suda:
    """SUDA of ``release``'s key variables, searched once for the three SUDA metrics."""
    columns = tuple(known_columns(view, known))
    return release.computed_once(
        ("suda", columns, max_size), lambda: suda_of(release.values[:, list(columns)], max_size)
    )


def suda_score(
    view: Dataset, release: Release, known: str = KNOWN[0], max_size: int | str = "auto"
) -> float:
    """The mean SUDA score of the released records."""
    return float(_released_suda(view, release, known, max_size).score.mean())


def special_uniques(
    view: Dataset, release: Release, known: str = KNOWN[0], max_size: int | str = "auto"
) -> float:
    """The share of released records with an MSU of at most ``max_size`` attributes."""
    return _released_suda(view, release, known, max_size).special_unique_share


def dis_suda_score(
    view: Dataset,
    release: Release,
    known: str = KNOWN[0],
    max_size: int | str = "auto",
    fraction: float = DIS_FRACTION,
) -> float:
    """The mean DIS-SUDA score of the released records."""
    return float(dis_suda(_released_suda(view, release, known, max_size), fraction).mean())


@dataclass(frozen=True)
class SudaMetric(ReleaseMetric):
    """A SUDA metric: a ``max_size`` above the data set's key attributes is refused when
    the experiment is built, naming ``options.<metric>.max_size``."""

    def check(self, view: Dataset, method: Any) -> None:
        """:meth:`ReleaseMetric.check`, and ``max_size`` at most the key attributes."""
        super().check(view, method)
        options = dict(self.options)
        keys = known_columns(view, options.get("known", KNOWN[0]))
        names = [view.protected[j] for j in keys]
        try:
            check_max_size(options.get("max_size", "auto"), len(keys))
        except ParameterError as error:
            raise ParameterError(
                f"options.{self.name}.{error} (key attributes of dataset {view.name!r}: {names})"
            ) from None


_KEYS = (
    "; key variables: the quasi-identifiers if declared, else every protected attribute "
    "(option known), matched exactly as released; MSUs of at most max_size attributes "
    "(option max_size: auto = min(3, keys), a number, or all)"
)
#: the option sets the conformance checks use: its data set has two quasi-identifiers of
#: three protected attributes
_TEST_PARAMS = (
    {},
    {"max_size": 1},
    {"max_size": 2},
    {"max_size": "all"},
    {"known": "protected", "max_size": 3},
)
# Σ_{k ≤ 3} C(A, k) subsets, one sort of n records each
_COST = Cost("n*log(n)*(m+m^2/2+m^3/6)", seconds=1e-7)

SUDA_SCORE = SudaMetric(
    "suda_score",
    suda_score,
    "mean SUDA score of the released records (Elliot et al. 2002; sdcMicro's suda2): an "
    "MSU of k of the A key attributes adds (A − k)!" + _KEYS,
    option_choices={"known": KNOWN, "max_size": MAX_SIZES},
    test_params=_TEST_PARAMS,
    label="Mean SUDA score",
    cost=_COST,
)
SPECIAL_UNIQUES = SudaMetric(
    "special_uniques",
    special_uniques,
    "share of released records that are special-unique: with a minimal sample unique "
    "(SUDA, Elliot et al. 2002), i.e. a SUDA score above 0" + _KEYS,
    option_choices={"known": KNOWN, "max_size": MAX_SIZES},
    test_params=_TEST_PARAMS,
    label="Special uniques (SUDA, share of records)",
    cost=_COST,
)
DIS_SUDA_SCORE = SudaMetric(
    "dis_suda_score",
    dis_suda_score,
    "mean DIS-SUDA score of the released records (Skinner & Elliot 2002's DIS spread over "
    "the SUDA scores as sdcMicro's suda2 does; option fraction: the sampling fraction, "
    "0.01 by default)" + _KEYS,
    option_choices={"known": KNOWN, "max_size": MAX_SIZES, "fraction": DIS_FRACTIONS},
    test_params=(*_TEST_PARAMS, {"fraction": 0.5}),
    label="Mean DIS-SUDA score",
    cost=_COST,
)
