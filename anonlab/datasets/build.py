"""Turn a raw frame and a dataset config into a validated :class:`Dataset`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.datasets.base import ROLES, Attribute, Dataset
from anonlab.semantics.taxonomy import Taxonomy, leaves, read_hierarchy, shipped_taxonomies
from anonlab.validation import ParameterError

DEFAULT_ALPHA = 1.5  # DP-IR §4.1: Dom(A) = [0, 1.5 · max]
#: the largest bound a domain may have: a span below 2^481 squares to below 2^962, and a
#: sum of such squares over fewer than 2^61 records stays finite (sse, variance, noise)
MAX_BOUND = 2.0**480
#: ``integer="data"``: whole-number attributes read off the private values (every
#: numerical attribute whose values are all whole), by choice; a release that rounds to
#: them guarantees nothing (:data:`anonlab.methods.guarantees.INTEGER_FROM_DATA`)
INTEGER_FROM_DATA = "data"


def whole_numbers(values: np.ndarray) -> bool:
    """Whether every value is a whole number."""
    return bool(np.all(values == np.round(values)))


def integer_columns(
    integer: bool | Sequence[str] | str | None, numeric: Sequence[str], name: str
) -> tuple[frozenset[str], bool]:
    """The numerical attributes declared whole-numbered by ``integer`` (``True``: all
    of ``numeric``; ``None``/``False``: none; a list: those), and whether they are to be
    read off the data instead (``integer="data"``)."""
    if integer is None or integer is False:
        return frozenset(), False
    if integer is True:
        return frozenset(numeric), False
    if isinstance(integer, str):
        if integer == INTEGER_FROM_DATA:
            return frozenset(), True
        integer = [integer]  # dataset.integer=age: one column
    if not isinstance(integer, Sequence) or not all(isinstance(c, str) for c in integer):
        raise ParameterError(
            f"dataset {name!r}: dataset.integer must be a list of column names, true, "
            f"false or {INTEGER_FROM_DATA!r} (read off the data), got {integer!r}"
        )
    for column in integer:
        if column not in numeric:
            raise ParameterError(
                f"dataset {name!r}: dataset.integer: column {column!r} is not a numerical "
                f"attribute {list(numeric)}"
            )
    return frozenset(integer), False


def numeric_column(frame: pd.DataFrame, name: str, source: str) -> np.ndarray:
    """Column ``name`` as floats, or a :class:`ParameterError` naming the bad value."""
    if name not in frame.columns:
        raise ParameterError(
            f"{source}: column {name!r} is not in the data; columns are {list(frame.columns)}"
        )
    column = frame[name]
    missing = int(column.isna().sum())
    if missing:
        row = int(np.flatnonzero(column.isna().to_numpy())[0])
        raise ParameterError(
            f"{source}: numeric column {name!r} has {missing} missing value(s), first at row {row}"
        )
    values = pd.to_numeric(column, errors="coerce")
    bad = values.isna().to_numpy()
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ParameterError(
            f"{source}: column {name!r} is declared numeric but holds {column.iloc[row]!r} "
            f"at row {row}"
        )
    array = values.to_numpy(dtype=float)
    if not np.isfinite(array).all():
        raise ParameterError(f"{source}: numeric column {name!r} holds an infinite value")
    return array


def text_column(frame: pd.DataFrame, name: str, source: str) -> np.ndarray:
    """Column ``name`` as stripped strings, or a :class:`ParameterError` naming the column,
    the number of missing (or blank) values and the first row holding one."""
    values = frame[name].astype("string").str.strip()
    missing = (values.isna() | (values == "")).to_numpy(dtype=bool)
    if missing.any():
        row = int(np.flatnonzero(missing)[0])
        every = " (every value)" if missing.all() else ""
        raise ParameterError(
            f"{source}: categorical column {name!r} has {int(missing.sum())} missing or empty "
            f"value(s){every}, first at row {row}"
        )
    return values.to_numpy(dtype=object)


def categorical_column(
    frame: pd.DataFrame, name: str, taxonomy: Taxonomy, source: str
) -> np.ndarray:
    """Column ``name`` as labels of ``taxonomy``, or a :class:`ParameterError` naming the
    first value outside its domain."""
    if name not in frame.columns:
        raise ParameterError(
            f"{source}: column {name!r} is not in the data; columns are {list(frame.columns)}"
        )
    values = text_column(frame, name, source)
    unknown = ~np.isin(values, list(taxonomy.labels))
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise ParameterError(
            f"{source}: categorical column {name!r} holds {frame[name].iloc[row]!r} at row {row},"
            f" which is not a label of taxonomy {taxonomy.name!r}"
        )
    return values


def hierarchy_column(
    frame: pd.DataFrame, name: str, path: str, source: str
) -> tuple[Taxonomy, np.ndarray]:
    """The taxonomy of a hierarchy file (:func:`~anonlab.semantics.taxonomy.read_hierarchy`)
    and column ``name`` as its labels; ``source`` names the parameter that gave the file.

    Dom(A) is the hierarchy's leaves, plus any inner concept the data holds (values recorded
    at a coarser level): such a domain, and the order and sensitivities derived from it,
    is read off the data (``Taxonomy.from_data``). A value the hierarchy does not list is a
    :class:`ParameterError` naming it and its row.
    """
    values = text_column(frame, name, source)
    parent = read_hierarchy(path, source)
    unknown = ~np.isin(values, list(parent))
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise ParameterError(
            f"{source}: column {name!r} holds {values[row]!r} at row {row}, which the "
            f"hierarchy does not list ({int(unknown.sum())} value(s) of the column are not in it)"
        )
    inner = set(np.unique(values)) & set(parent.values())
    taxonomy = Taxonomy.tree(str(path), parent, [*leaves(parent), *inner])
    return replace(taxonomy, from_data=bool(inner)), values


def column_taxonomy(
    frame: pd.DataFrame, name: str, spec: str | None, hierarchy: str | None, source: str
) -> tuple[Taxonomy, np.ndarray]:
    """Taxonomy τ(A) of categorical column ``name`` and its values as labels (DP-IR §3.4).

    ``hierarchy`` (``dataset.hierarchies``) is a hierarchy file; ``spec``
    (``dataset.categorical`` as a mapping) a shipped taxonomy's name or a hierarchy file;
    neither gives the flat taxonomy of the column's distinct values.
    """
    if hierarchy is not None:
        return hierarchy_column(
            frame, name, hierarchy, f"dataset.hierarchies.{name}={str(hierarchy)!r}"
        )
    if spec is None:
        values = text_column(frame, name, source)
        return Taxonomy.flat(f"{name} (flat)", np.unique(values).tolist()), values
    spec = str(spec)
    if spec in shipped_taxonomies():
        taxonomy = Taxonomy.load(spec)
        return taxonomy, categorical_column(frame, name, taxonomy, source)
    where = f"dataset.categorical.{name}={spec!r}"
    if not Path(spec).expanduser().exists():
        raise ParameterError(
            f"{where} is neither a shipped taxonomy {shipped_taxonomies()} "
            "nor a hierarchy file (no such file)"
        )
    return hierarchy_column(frame, name, spec, where)


def numeric_domain(
    name: str, values: np.ndarray, alpha: float, declared: Sequence[float] | None
) -> tuple[float, float]:
    """Declared ``(low, high)``, or DP-IR's rule ``[0, α·max]`` (§4.1), which for data with
    negative values extends below 0 the same way (``[α·min, max(0, α·max)]``); must contain
    the data.
    A domain by the rule is read off the data: :func:`unbounded` lists it."""
    if declared is not None:
        if (
            isinstance(declared, (str, bytes))
            or not isinstance(declared, Sequence)
            or len(declared) != 2
        ):
            raise ParameterError(f"dataset.domains.{name} must be [low, high], got {declared!r}")
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in declared):
            raise ParameterError(
                f"dataset.domains.{name} must be two numbers [low, high], got {declared!r}"
            )
        low, high = float(declared[0]), float(declared[1])
        source = f"dataset.domains.{name}={[low, high]}"
    else:
        if not (np.isfinite(alpha) and alpha > 0):
            raise ParameterError(f"dataset.alpha must be a finite number > 0, got {alpha!r}")
        # DP-IR §4.1, iDP §4.1: [0, α·max]; below 0 the same margin on that side
        with np.errstate(over="ignore"):  # an overflow is refused below, as infinite
            low = min(0.0, float(alpha * values.min()))
            high = max(0.0, float(alpha * values.max()))
        source = f"domain [{low:g}, {high:g}] of {name!r} by the alpha rule (dataset.alpha={alpha})"
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ParameterError(f"{source}: bounds must be finite")
    if max(abs(low), abs(high)) > MAX_BOUND:
        raise ParameterError(
            f"{source}: bounds beyond ±2^480 (about {MAX_BOUND:.3g}) overflow the squared "
            "errors and noise scales the methods and metrics compute; rescale the column "
            "(e.g. to thousands) or declare tighter bounds"
        )
    if not high > low:
        raise ParameterError(f"{source}: high must exceed low")
    if values.min() < low or values.max() > high:
        raise ParameterError(
            f"{source} does not contain the data (min {values.min():g}, max {values.max():g});"
            f" declare it, e.g. 'dataset.domains={{{name}: [low, high]}}'"
        )
    return low, high


def class_labels(frame: pd.DataFrame, target: Mapping[str, Any], source: str) -> pd.Series:
    """Two classes from a numerical column: ``labels[1]`` where the value exceeds
    ``threshold``, else ``labels[0]`` (iDP §4.2: ERNVAL > 30,000, QUALITY > 6)."""
    unknown = set(target) - {"column", "threshold", "labels"}
    if unknown:
        raise ParameterError(
            f"{source}: dataset.target has unknown key(s) {sorted(unknown)}; "
            "expected column, threshold, labels"
        )
    column = target.get("column")
    threshold = target.get("threshold")
    labels = list(target.get("labels") or ())
    if not isinstance(column, str):
        raise ParameterError(f"{source}: dataset.target.column must name a column, got {column!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ParameterError(
            f"{source}: dataset.target.threshold must be a number, got {threshold!r}"
        )
    if len(labels) != 2 or len(set(map(str, labels))) != 2:
        raise ParameterError(
            f"{source}: dataset.target.labels must be two distinct names, got {labels!r}"
        )
    values = numeric_column(frame, column, source)
    names = np.array([str(labels[0]), str(labels[1])], dtype=object)
    return pd.Series(
        names[(values > float(threshold)).astype(int)], name=column, index=pd.RangeIndex(len(frame))
    )


def column_list(value: Any) -> list[Any]:
    """Columns named by a config value: a list, a mapping's keys, or one name."""
    if value is None or isinstance(value, bool):
        return []
    if isinstance(value, str):
        return [value]
    return list(value)


def check_columns(
    name: str,
    frame: pd.DataFrame,
    attributes: Sequence[str],
    named: Mapping[str, Sequence[Any]],
    attributes_key: str,
) -> None:
    """Every column a dataset key names is in the data, and every one named by ``named``
    (but ``hierarchies``, checked against ``categorical``) is an analysed attribute; else
    one :class:`ParameterError` naming the key and the column."""
    for key, columns in {**named, attributes_key: attributes}.items():
        for column in columns:
            if column not in frame.columns:
                raise ParameterError(
                    f"dataset {name!r}: dataset.{key}: column {column!r} is not in the data; "
                    f"the data's columns are {list(frame.columns)}"
                )
    where = (
        "dataset.numeric or dataset.categorical"
        if attributes_key == "numeric"
        else f"dataset.{attributes_key}"
    )
    for key, columns in named.items():
        for column in columns:
            if column not in attributes and key != "hierarchies":
                raise ParameterError(
                    f"dataset {name!r}: dataset.{key}: column {column!r} is not an analysed "
                    f"attribute {list(attributes)}; add it to {where}"
                )


def build_dataset(
    name: str,
    frame: pd.DataFrame,
    attributes: Sequence[str],
    *,
    alpha: float = DEFAULT_ALPHA,
    domains: Mapping[str, Sequence[float]] | None = None,
    roles: Mapping[str, str] | None = None,
    discrete: bool | Sequence[str] = False,
    categorical: Mapping[str, str | None] | Sequence[str] | None = None,
    hierarchies: Mapping[str, str] | None = None,
    target: Mapping[str, Any] | None = None,
    attributes_key: str = "attributes",
    integer: bool | Sequence[str] | str | None = None,
) -> Dataset:
    """Validate the ``attributes`` of ``frame`` and build a :class:`Dataset`.

    Parameters
    ----------
    name : data set name, carried into every result row.
    frame : raw records; every column is kept in :attr:`Dataset.frame`, the analysed ones
        validated, the others unchanged.
    attributes : analysed columns, in order (the first m are protected); numerical unless
        listed in ``categorical``.
    alpha : domain rule ``[0, alpha · max]`` for attributes without a declared domain.
    domains : declared ``{column: [low, high]}`` public bounds.
    roles : ``{column: role}``; unlisted columns get role ``"other"``.
    discrete : ``True``/``False`` for all attributes, or the list of discrete ones
        (one histogram bin per value in JSD); categorical attributes are always discrete.
    categorical : the categorical attributes (DP-IR §3.4): a list of text columns, or
        ``{column: taxonomy}`` with a shipped taxonomy's name, a hierarchy file's path or
        ``None``. A column without a taxonomy gets its ``hierarchies`` file, else the flat
        taxonomy of its distinct values (:meth:`~anonlab.semantics.Taxonomy.flat`).
    hierarchies : ``{column: path}`` of hierarchy files (``value,parent`` rows or ARX;
        :func:`~anonlab.semantics.taxonomy.read_hierarchy`) of categorical columns.
    target : ``{column, threshold, labels}``: the class of each record for classification
        metrics, ``labels[1]`` where ``column > threshold`` (see :func:`class_labels`).
    attributes_key : the config key that listed ``attributes`` (``attributes``, or
        ``numeric`` when ``load_dataset`` joined numeric and categorical), for messages.
    integer : the numerical attributes declared to hold whole numbers (a list, or
        ``True`` for all), whose noisy releases are rounded (DP-IR §4.3); a declared
        column holding another value is an error. ``None`` (default): none.
        ``"data"`` reads them off the private values, which voids a privacy notion of a
        release that rounds (:data:`INTEGER_FROM_DATA`).
    """
    domains = dict(domains or {})
    roles = dict(roles or {})
    hierarchies = dict(hierarchies or {})
    specs_of = (
        dict(categorical)
        if isinstance(categorical, Mapping)
        else dict.fromkeys(column_list(categorical))
    )
    if not attributes:
        raise ParameterError(f"dataset {name!r}: dataset.attributes is empty")
    if len(set(attributes)) != len(attributes):
        raise ParameterError(f"dataset {name!r}: dataset.{attributes_key} repeats a column")
    check_columns(
        name,
        frame,
        attributes,
        {
            "categorical": list(specs_of),
            "hierarchies": list(hierarchies),
            "discrete": column_list(discrete),
            "domains": list(domains),
            "roles": list(roles),
        },
        attributes_key,
    )
    for column in hierarchies:
        if column not in specs_of:
            raise ParameterError(
                f"dataset.hierarchies.{column}: column {column!r} is not in "
                f"dataset.categorical {list(specs_of)}; list it there"
            )
        if specs_of[column] is not None:
            raise ParameterError(
                f"dataset.categorical.{column}={specs_of[column]!r} and "
                f"dataset.hierarchies.{column} both give its taxonomy; keep one"
            )
    discrete_set = set(attributes) if discrete is True else set(column_list(discrete))
    declared, from_data = integer_columns(
        integer, [c for c in attributes if c not in specs_of], name
    )
    columns: dict[str, np.ndarray] = {}
    specs: list[Attribute] = []
    for column in attributes:
        role = roles.get(column, "other")
        if role not in ROLES:
            raise ParameterError(f"dataset.roles.{column} must be one of {ROLES}, got {role!r}")
        if column in specs_of:
            if column in domains:
                raise ParameterError(
                    f"dataset.domains.{column}: a categorical attribute's domain is its taxonomy"
                )
            taxonomy, columns[column] = column_taxonomy(
                frame, column, specs_of[column], hierarchies.get(column), f"dataset {name!r}"
            )
            specs.append(
                Attribute(
                    name=column,
                    kind="categorical",
                    role=role,  # type: ignore[arg-type]
                    discrete=True,
                    taxonomy=taxonomy,
                )
            )
            continue
        values = numeric_column(frame, column, f"dataset {name!r}")
        whole = whole_numbers(values)
        if column in declared and not whole:
            row = int(np.flatnonzero(values != np.round(values))[0])
            raise ParameterError(
                f"dataset {name!r}: dataset.integer: column {column!r} is declared to hold "
                f"whole numbers but holds {float(values[row])!r} at row {row}"
            )
        domain = numeric_domain(column, values, alpha, domains.get(column))
        if column in declared and np.ceil(domain[0]) > np.floor(domain[1]):
            raise ParameterError(
                f"dataset {name!r}: dataset.integer: column {column!r} is declared to hold "
                f"whole numbers, and its domain {list(domain)} holds none"
            )
        specs.append(
            Attribute(
                name=column,
                kind="numerical",
                role=role,  # type: ignore[arg-type]
                domain=domain,
                integer=column in declared or (from_data and whole),
                discrete=column in discrete_set,
                alpha=None if column in domains else float(alpha),
                integer_from_data=from_data and whole,
            )
        )
        columns[column] = values
    classes = class_labels(frame, target, f"dataset {name!r}") if target else None
    hidden = {classes.name} - set(attributes) if classes is not None else set()
    return Dataset(
        name=name, frame=full_frame(frame, columns, hidden), attributes=tuple(specs), target=classes
    )


def full_frame(
    frame: pd.DataFrame, analysed: Mapping[str, np.ndarray], hidden: set[Any]
) -> pd.DataFrame:
    """Every column of ``frame`` but ``hidden`` (the class column of ``dataset.target``,
    never released; iDP §4.2) in its order, on a fresh ``RangeIndex``: the ``analysed``
    ones as validated, the others as they are (same dtype, memory shared under
    copy-on-write)."""
    raw = frame.reset_index(drop=True)
    columns = {
        column: analysed[column] if column in analysed else raw[column]
        for column in raw.columns
        if column not in hidden
    }
    return pd.DataFrame(columns, index=pd.RangeIndex(len(frame)), copy=False)


def unbounded(dataset: Dataset) -> list[Attribute]:
    """The protected attributes of ``dataset`` whose bounds were read off the data: a
    numeric one whose domain follows the alpha rule (no declared domain), a categorical
    one whose taxonomy is the flat one of the values present (no hierarchy). A method
    whose proof assumes public bounds needs them declared."""
    return [
        a
        for a in dataset.protected_attributes
        if (a.categorical and a.taxonomy.from_data) or (not a.categorical and a.alpha is not None)
    ]


def observed_bounds(column: pd.Series) -> list[float]:
    """``[low, high]`` of a numeric ``column``, rounded outward to three significant
    digits: a starting point for declared bounds, to be widened to public ones."""
    values = column.to_numpy(dtype=float)

    def rounded(value: float, up: bool) -> float:
        if value == 0:
            return 0.0
        step = 10 ** (np.floor(np.log10(abs(value))) - 2)
        return float((np.ceil if up else np.floor)(value / step) * step)

    return [rounded(float(values.min()), False), rounded(float(values.max()), True)]
