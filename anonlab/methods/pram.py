"""Post-randomisation (PRAM; Gouweleeuw, Kooiman, Willenborg & de Wolf 1998), as sdcMicro's
``pram`` draws it: each record's category of an attribute is replaced by a draw from the
row of a transition matrix for that category.

The categories are what the data set declares public, never what the data hold: a
categorical attribute's taxonomy labels (Dom(A)), or the whole numbers of a whole-numbered
attribute's domain. The matrix is, per attribute:

- ``invariant`` (sdcMicro's default): P with its diagonal drawn uniformly in [pd, 1] and
  each row's rest spread evenly, made invariant with the data's own category frequencies
  p (R = P·Q, Q[k, j] = P[j, k]·p_j / Σ_i p_i·P[i, k], so p·R = p) and mixed with the
  identity, α·R + (1 − α)·I: the matrix depends on the data;
- ``keep``: every category kept with probability pd, else replaced by one of the others
  uniformly: public and independent of the data, randomized response;
- a matrix given for the attribute (``matrices``), its rows and columns the attribute's
  categories in order.

Draws are exact: each row is rounded to integer thresholds out of 2^53 and one uniform
integer (``Generator.integers``) per record picks the released category, so the matrix as
sampled (:func:`as_sampled`) is known exactly.

References: J. M. Gouweleeuw, P. Kooiman, L. C. R. J. Willenborg and P.-P. de Wolf, "Post
randomisation for statistical disclosure control: theory and implementation", *Journal of
Official Statistics* 14(4), 463–478, 1998; M. Templ, A. Kowarik and B. Meindl,
"Statistical disclosure control for micro-data using the R package sdcMicro", *Journal of
Statistical Software* 67(4), 2015.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np

from anonlab.axes import Axis
from anonlab.cost import Cost
from anonlab.datasets import Attribute, Dataset
from anonlab.guarantee import NONE, Guarantee
from anonlab.methods.base import Method, Release
from anonlab.validation import ParameterError

#: sdcMicro's ``pd``: the least diagonal entry of P (``invariant``), the probability of
#: keeping a category (``keep``)
PD = Axis(
    "pd",
    float,
    low=0,
    high=1,
    default=0.8,
    symbol="pd",
    label="pd (least probability of keeping a category)",
    why="a probability",
    test_value=0.5,
    bad_values=(-0.1, 1.5),
)
#: sdcMicro's ``alpha``: how much of the invariant matrix R is mixed with the identity
PRAM_ALPHA = Axis(
    "pram_alpha",
    float,
    low=0,
    high=1,
    default=0.5,
    symbol="α (PRAM)",
    label="α (PRAM: 0 keeps every value, 1 draws from R)",
    why="the weight of R in α·R + (1 − α)·I",
    test_value=0.5,
    bad_values=(-0.5, 1.5),
)

#: the most categories an attribute may have: the matrix is dense, categories × categories
MAX_CATEGORIES = 1000
#: a row is sampled as integer thresholds out of this many (one uniform integer a record)
SCALE = 2**53
#: how far a given row's sum may be from 1
ROW_TOLERANCE = 1e-9

INVARIANT = (
    "post-randomisation (PRAM, Gouweleeuw et al. 1998) with sdcMicro's invariant matrix: "
    "P's diagonal drawn in [pd, 1], then R = P·Q with Q the backward transitions under "
    "the data's own category frequencies, mixed with the identity (α·R + (1 − α)·I): the "
    "matrix depends on every record, so neither local nor central differential privacy"
)
PUBLIC_MATRIX = (
    "post-randomisation (PRAM, Gouweleeuw et al. 1998) with a public matrix independent "
    "of the data (option matrix='keep': each category kept with probability pd, else "
    "replaced by another uniformly; or one given in matrices, if built without the data) "
    "is randomized response: a record's category x of attribute A is released as y with "
    "probability P̂[x, y], P̂ the matrix as sampled (rows rounded to multiples of 2^-53, "
    "exact integer draws), so each record's value of A is ε_A-LDP with ε_A = max_y "
    "log(max_x P̂[x, y] / min_x P̂[x, y]) (|log(pd·(L − 1)/(1 − pd))| for the keep matrix "
    "over L categories) and its values ε-LDP with ε = Σ_A ε_A (Pram.local_epsilon), "
    "provided every category set is declared public (a shipped or given hierarchy, a "
    "declared domain of whole numbers), not read off the data (a flat taxonomy of the "
    "values found, a domain [0, α·max], integer='data'); the notion stated stays none, that "
    "ε depending on each attribute's categories, which a method's stated guarantee does "
    "not see"
)
SEED_UNDOES_PRAM = (
    "a seeded release is reproduced by anyone who knows the seed, whose draws then "
    "largely reveal the original categories"
)


def categories(attribute: Attribute) -> np.ndarray:
    """The public categories of ``attribute`` as protected values hold them: a categorical
    attribute's label codes (Dom(A), in its taxonomy's label order), or the whole numbers
    of a whole-numbered attribute's domain, ascending.

    Raises
    ------
    ParameterError
        A numerical attribute not declared whole-numbered (no set of categories), or more
        than :data:`MAX_CATEGORIES` categories.
    """
    if attribute.categorical:
        found = np.asarray(attribute.taxonomy.label_codes, dtype=float)
    elif attribute.integer and attribute.domain is not None:
        low, high = math.ceil(attribute.domain[0]), math.floor(attribute.domain[1])
        if high - low + 1 > MAX_CATEGORIES:
            raise ParameterError(
                f"attribute {attribute.name!r} has {high - low + 1:,} whole numbers in its "
                f"domain [{low}, {high}], more than PRAM's {MAX_CATEGORIES:,} categories "
                "(its matrix is categories × categories); recode it into fewer categories"
            )
        found = np.arange(low, high + 1, dtype=float)
    else:
        raise ParameterError(
            f"method 'pram' draws among an attribute's public categories, and attribute "
            f"{attribute.name!r} is numerical without them: declare it categorical (a text "
            "column), or whole-numbered (integer) with a public domain"
        )
    if len(found) > MAX_CATEGORIES:
        raise ParameterError(
            f"attribute {attribute.name!r} has {len(found):,} categories, more than PRAM's "
            f"{MAX_CATEGORIES:,}"
        )
    return found


def category_names(attribute: Attribute, found: np.ndarray) -> list[str]:
    """The categories as a user names them: taxonomy labels, or the whole numbers."""
    if attribute.categorical:
        return [str(label) for label in attribute.taxonomy.decode(found)]
    return [f"{value:g}" for value in found]


def keep_matrix(pd: float, size: int) -> np.ndarray:
    """The ``keep`` matrix over ``size`` categories: pd on the diagonal, (1 − pd)/(size −
    1) elsewhere; [[1]] for one category."""
    if size == 1:
        return np.ones((1, 1))
    matrix = np.full((size, size), (1.0 - pd) / (size - 1))
    np.fill_diagonal(matrix, pd)
    return matrix


def invariant_matrix(diagonal: np.ndarray, alpha: float, frequencies: np.ndarray) -> np.ndarray:
    """sdcMicro's invariant matrix α·R + (1 − α)·I, R = P·Q (its ``calcTransitionMatrix``).

    Q[k, j] = P[j, k]·p_j / s_k with s_k = Σ_i p_i·P[i, k] (a category no record can
    reach, s_k = 0, keeps itself), so p·R = p: R leaves the expected frequencies as they
    are.

    Parameters
    ----------
    diagonal : P's diagonal, one entry per category (sdcMicro draws it in [pd, 1]); each
        row's rest is spread evenly, (1 − P[i, i])/(L − 1).
    alpha : the weight of R.
    frequencies : the share of the data in each category, p (summing to 1).
    """
    size = len(diagonal)
    if size == 1:
        return np.ones((1, 1))
    forward = np.repeat(((1.0 - diagonal) / (size - 1))[:, None], size, axis=1)
    np.fill_diagonal(forward, diagonal)
    reached = frequencies @ forward  # s_k
    backward = np.eye(size)
    some = reached > 0
    backward[some] = (forward.T * frequencies[None, :])[some] / reached[some, None]
    return alpha * (forward @ backward) + (1.0 - alpha) * np.eye(size)


def thresholds(matrix: np.ndarray) -> np.ndarray:
    """Each row of ``matrix`` as cumulative integer thresholds out of :data:`SCALE`, the
    last exactly :data:`SCALE`: a uniform integer u in [0, SCALE) releases the first
    category whose threshold exceeds u."""
    cumulative = np.cumsum(matrix, axis=1)
    cumulative /= cumulative[:, -1:]
    out = np.rint(cumulative * SCALE).astype(np.int64)
    out[:, -1] = SCALE
    return np.maximum.accumulate(out, axis=1)


def as_sampled(matrix: np.ndarray) -> np.ndarray:
    """The transition probabilities the draws of :func:`thresholds` have exactly."""
    cut = thresholds(np.asarray(matrix, dtype=float))
    return np.diff(cut, axis=1, prepend=0) / SCALE


def local_epsilon_of(matrix: np.ndarray) -> float:
    """ε of randomized response with ``matrix`` as sampled: the largest log ratio of two
    entries of one column, max_y log(max_x P̂[x, y] / min_x P̂[x, y]) over the categories
    y ever released (∞ when some category can release y and another cannot)."""
    sampled = as_sampled(matrix)
    high, low = sampled.max(axis=0), sampled.min(axis=0)
    released = high > 0
    if (low[released] == 0).any():
        return math.inf
    return float(np.max(np.log(high[released] / low[released]), initial=0.0))


def _frozen(given: Any) -> tuple[tuple[str, tuple[tuple[float, ...], ...]], ...] | None:
    """``matrices`` checked and frozen (hashable): ``((attribute, rows), …)``."""
    if given is None:
        return None
    if isinstance(given, Mapping):
        items = list(given.items())
    elif isinstance(given, tuple) and all(isinstance(i, tuple) and len(i) == 2 for i in given):
        items = list(given)  # already frozen
    else:
        raise ParameterError(
            f"matrices must be a mapping {{attribute: square matrix}}, got {type(given).__name__}"
        )
    frozen = []
    for name, matrix in items:
        key = f"matrices[{name!r}]"
        if not isinstance(name, str):
            raise ParameterError(f"{key}: matrices are keyed by attribute name (a str)")
        try:
            array = np.asarray(matrix, dtype=float)
        except (TypeError, ValueError):
            raise ParameterError(f"{key} is not a matrix of numbers") from None
        if array.ndim != 2 or array.shape[0] != array.shape[1] or array.size == 0:
            raise ParameterError(
                f"{key} has shape {array.shape}: a transition matrix is square, one row "
                "and one column per category of the attribute"
            )
        if not np.isfinite(array).all() or (array < 0).any():
            raise ParameterError(f"{key}: every entry must be a probability (finite, >= 0)")
        sums = array.sum(axis=1)
        off = np.flatnonzero(np.abs(sums - 1.0) > ROW_TOLERANCE)
        if off.size:
            raise ParameterError(
                f"{key}: row {off[0]} sums to {sums[off[0]]:.12g}, not 1; row x holds the "
                "probabilities of releasing each category for category x"
            )
        frozen.append((name, tuple(tuple(float(v) for v in row) for row in array)))
    return tuple(frozen)


@dataclass(frozen=True)
class Pram(Method):
    """PRAM (Gouweleeuw, Kooiman, Willenborg & de Wolf 1998; sdcMicro pram): each record's
    category of each attribute replaced by a draw from its row of a transition matrix over
    the attribute's declared categories, by default sdcMicro's invariant one (pd, α); not
    DP."""

    pd: float = 0.8
    pram_alpha: float = 0.5
    matrix: str = "invariant"
    #: a transition matrix of one's own per attribute, ``{attribute: rows}``: rows and
    #: columns the attribute's categories in order (:func:`categories`), each row summing
    #: to 1; it replaces the ``matrix`` option's for that attribute
    matrices: Any = None
    name: ClassVar[str] = "pram"
    label: ClassVar[str] = "PRAM"
    colour: ClassVar[str | None] = "#882255"  # wine (Paul Tol)
    marker: ClassVar[str | tuple[int, int, float] | None] = (4, 1, 22.5)  # 4-point star, tilted
    axes: ClassVar[tuple[str, ...]] = ("pd", "pram_alpha")
    own_axes: ClassVar[tuple[Axis, ...]] = (PD, PRAM_ALPHA)
    option_choices: ClassVar[dict[str, tuple[Any, ...]]] = {"matrix": ("invariant", "keep")}
    cost: ClassVar[Cost] = Cost("n*m", seconds=3.3e-7, fixed=0.005)  # one integer draw a value
    needs_categories: ClassVar[bool] = True
    test_params: ClassVar[tuple[dict[str, Any], ...]] = (
        {"pd": 0.5, "pram_alpha": 0.5},
        {"pd": 0.5, "matrix": "keep"},
    )

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "matrices", _frozen(self.matrices))

    def given(self) -> dict[str, np.ndarray]:
        """The matrices given, by attribute."""
        return {name: np.array(rows) for name, rows in self.matrices or ()}

    def claim(self, m: int) -> Guarantee:
        reason = PUBLIC_MATRIX if self.matrix == "keep" else INVARIANT
        if self.matrix == "invariant" and self.matrices:
            reason += " (the attributes given a matrix in matrices draw from it)"
        return Guarantee(NONE, NONE, caveat=SEED_UNDOES_PRAM, reason=reason)

    def check_dataset(self, dataset: Dataset) -> None:
        """Every protected attribute has public categories (:func:`categories`); each
        matrix given names an attribute of the data set and is square over its categories."""
        names = {a.name for a in dataset.attributes}
        given = self.given()
        for name in given:
            if name not in names:
                raise ParameterError(
                    f"matrices[{name!r}]: data set {dataset.name!r} has no attribute "
                    f"{name!r}; its attributes are {sorted(names)}"
                )
        for attribute in dataset.protected_attributes:
            found = categories(attribute)
            matrix = given.get(attribute.name)
            if matrix is not None and len(matrix) != len(found):
                raise ParameterError(
                    f"matrices[{attribute.name!r}] is {len(matrix)} × {len(matrix)}, but "
                    f"attribute {attribute.name!r} has {len(found)} declared categories; "
                    f"its rows and columns are, in order: {category_names(attribute, found)}"
                )

    def transition(
        self, attribute: Attribute, counts: np.ndarray, rng: np.random.Generator
    ) -> np.ndarray:
        """The transition matrix of ``attribute`` (rows: a record's category, columns: the
        released one), given the data's count in each category (read by ``invariant``
        only); ``invariant`` draws P's diagonal from ``rng``."""
        matrix = self.given().get(attribute.name)
        if matrix is not None:
            return matrix
        if self.matrix == "keep":
            return keep_matrix(self.pd, len(counts))
        diagonal = rng.uniform(self.pd, 1.0, len(counts))  # sdcMicro: runif(L, pd, 1)
        return invariant_matrix(diagonal, self.pram_alpha, counts / counts.sum())

    def local_epsilon(self, dataset: Dataset) -> np.ndarray:
        """ε_A of each protected attribute's randomized response (:func:`local_epsilon_of`
        of its matrix as sampled), read off the declared categories only; a record's
        values are ε-LDP with their sum, under the conditions the guarantee states.

        Raises
        ------
        ParameterError
            An attribute's matrix is ``invariant``, computed from the data: it bounds no ε.
        """
        self.check_dataset(dataset)
        given = self.given()
        out = []
        for attribute in dataset.protected_attributes:
            if attribute.name not in given and self.matrix != "keep":
                raise ParameterError(
                    f"attribute {attribute.name!r}: matrix='invariant' is computed from the "
                    "data's own frequencies and bounds no ε; matrix='keep' or a matrix "
                    "given in matrices does not depend on the data"
                )
            size = len(categories(attribute))
            out.append(local_epsilon_of(given.get(attribute.name, keep_matrix(self.pd, size))))
        return np.array(out)

    def protect(self, dataset: Dataset, rng: np.random.Generator) -> Release:
        self.check_dataset(dataset)
        values = dataset.protected_values
        released = np.empty_like(values, dtype=float)
        for j, attribute in enumerate(dataset.protected_attributes):
            found = categories(attribute)
            held = _positions(attribute, found, values[:, j])
            counts = np.bincount(held, minlength=len(found)).astype(float)
            cut = thresholds(self.transition(attribute, counts, rng))
            draws = rng.integers(0, SCALE, size=len(held), dtype=np.int64)
            drawn = np.empty_like(held)
            # the records of one category share a row: sorted by category, a slice each
            order = np.argsort(held, kind="stable")
            ends = np.searchsorted(held[order], np.arange(len(found) + 1))
            for category in np.flatnonzero(np.diff(ends)):
                records = order[ends[category] : ends[category + 1]]
                drawn[records] = np.searchsorted(cut[category], draws[records], side="right")
            released[:, j] = found[drawn]
        return Release(dataset, released)  # categories of the declared domains


def _positions(attribute: Attribute, found: np.ndarray, column: np.ndarray) -> np.ndarray:
    """The position in ``found`` of each value of ``column``; a value outside them is an
    error naming the attribute."""
    order = np.argsort(found, kind="stable")
    ranked = found[order]
    at = np.clip(np.searchsorted(ranked, column), 0, len(ranked) - 1)
    outside = ranked[at] != column
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        shown = category_names(attribute, column[row : row + 1])[0]
        raise ParameterError(
            f"attribute {attribute.name!r} holds {shown!r} at row {row}, which is none of "
            "its declared categories"
        )
    return order[at]
