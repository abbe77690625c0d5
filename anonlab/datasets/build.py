"""Turn a raw frame and a dataset config into a validated :class:`Dataset`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.datasets.base import ROLES, Attribute, Dataset
from anonlab.semantics import Taxonomy
from anonlab.validation import ParameterError

DEFAULT_ALPHA = 1.5  # DP-IR §4.1: Dom(A) = [0, 1.5 · max]


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


def categorical_column(frame: pd.DataFrame, name: str, taxonomy: Taxonomy,
                       source: str) -> np.ndarray:
    """Column ``name`` as labels of ``taxonomy``, or a :class:`ParameterError` naming the
    first value outside its domain."""
    if name not in frame.columns:
        raise ParameterError(
            f"{source}: column {name!r} is not in the data; columns are {list(frame.columns)}"
        )
    values = frame[name].astype("string").str.strip()
    unknown = ~values.isin(list(taxonomy.labels)).to_numpy(dtype=bool)
    if unknown.any():
        row = int(np.flatnonzero(unknown)[0])
        raise ParameterError(
            f"{source}: categorical column {name!r} holds {frame[name].iloc[row]!r} at row {row},"
            f" which is not a label of taxonomy {taxonomy.name!r}"
        )
    return values.to_numpy(dtype=object)


def numeric_domain(
    name: str, values: np.ndarray, alpha: float, declared: Sequence[float] | None
) -> tuple[float, float]:
    """Declared ``(low, high)``, or DP-IR's rule ``[0, α·max]``; must contain the data."""
    if declared is not None:
        if len(declared) != 2:
            raise ParameterError(f"dataset.domains.{name} must be [low, high], got {declared!r}")
        low, high = float(declared[0]), float(declared[1])
        source = f"dataset.domains.{name}={[low, high]}"
    else:
        if alpha <= 0:
            raise ParameterError(f"dataset.alpha must be > 0, got {alpha}")
        low, high = 0.0, float(alpha * values.max())  # DP-IR §4.1, iDP §4.1
        source = f"domain [0, alpha*max] = [0, {high:g}] of {name!r} (dataset.alpha={alpha})"
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ParameterError(f"{source}: bounds must be finite")
    if not high > low:
        raise ParameterError(f"{source}: high must exceed low")
    if values.min() < low or values.max() > high:
        raise ParameterError(
            f"{source} does not contain the data (min {values.min():g}, max {values.max():g});"
            f" declare dataset.domains.{name}=[low,high]"
        )
    return low, high


def class_labels(frame: pd.DataFrame, target: Mapping[str, Any], source: str) -> pd.Series:
    """Two classes from a numerical column: ``labels[1]`` where the value exceeds
    ``threshold``, else ``labels[0]`` (iDP §4.2: ERNVAL > 30,000, QUALITY > 6)."""
    unknown = set(target) - {"column", "threshold", "labels"}
    if unknown:
        raise ParameterError(f"{source}: dataset.target has unknown key(s) {sorted(unknown)}; "
                             "expected column, threshold, labels")
    column = target.get("column")
    threshold = target.get("threshold")
    labels = list(target.get("labels") or ())
    if not isinstance(column, str):
        raise ParameterError(f"{source}: dataset.target.column must name a column, got {column!r}")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)):
        raise ParameterError(f"{source}: dataset.target.threshold must be a number, "
                             f"got {threshold!r}")
    if len(labels) != 2 or len(set(map(str, labels))) != 2:
        raise ParameterError(f"{source}: dataset.target.labels must be two distinct names, "
                             f"got {labels!r}")
    values = numeric_column(frame, column, source)
    names = np.array([str(labels[0]), str(labels[1])], dtype=object)
    return pd.Series(names[(values > float(threshold)).astype(int)], name=column,
                     index=pd.RangeIndex(len(frame)))


def build_dataset(
    name: str,
    frame: pd.DataFrame,
    attributes: Sequence[str],
    *,
    alpha: float = DEFAULT_ALPHA,
    domains: Mapping[str, Sequence[float]] | None = None,
    roles: Mapping[str, str] | None = None,
    discrete: bool | Sequence[str] = False,
    categorical: Mapping[str, str] | None = None,
    target: Mapping[str, Any] | None = None,
) -> Dataset:
    """Validate the ``attributes`` of ``frame`` and build a :class:`Dataset`.

    Parameters
    ----------
    name : data set name, carried into every result row.
    frame : raw records.
    attributes : analysed columns, in order (the first m are protected); numerical unless
        listed in ``categorical``.
    alpha : domain rule ``[0, alpha · max]`` for attributes without a declared domain.
    domains : declared ``{column: [low, high]}`` public bounds.
    roles : ``{column: role}``; unlisted columns get role ``"other"``.
    discrete : ``True``/``False`` for all attributes, or the list of discrete ones
        (one histogram bin per value in JSD); categorical attributes are always discrete.
    categorical : ``{column: taxonomy name}`` of the categorical attributes (DP-IR §3.4).
    target : ``{column, threshold, labels}``: the class of each record for classification
        metrics, ``labels[1]`` where ``column > threshold`` (see :func:`class_labels`).
    """
    domains = dict(domains or {})
    roles = dict(roles or {})
    if not attributes:
        raise ParameterError(f"dataset {name!r}: dataset.attributes is empty")
    if len(set(attributes)) != len(attributes):
        raise ParameterError(f"dataset {name!r}: dataset.attributes repeats a column")
    categorical = dict(categorical or {})
    for column in list(domains) + list(roles) + list(categorical):
        if column not in attributes:
            raise ParameterError(
                f"dataset {name!r}: {column!r} has a domain, role or taxonomy but is not in "
                f"dataset.attributes {list(attributes)}"
            )
    discrete_set = set(attributes) if discrete is True else set(discrete or ())
    columns: dict[str, np.ndarray] = {}
    specs: list[Attribute] = []
    for column in attributes:
        role = roles.get(column, "other")
        if role not in ROLES:
            raise ParameterError(f"dataset.roles.{column} must be one of {ROLES}, got {role!r}")
        if column in categorical:
            if column in domains:
                raise ParameterError(f"dataset.domains.{column}: a categorical attribute's "
                                     "domain is its taxonomy")
            taxonomy = Taxonomy.load(categorical[column])
            columns[column] = categorical_column(frame, column, taxonomy, f"dataset {name!r}")
            specs.append(Attribute(name=column, kind="categorical", role=role,  # type: ignore[arg-type]
                                   discrete=True, taxonomy=taxonomy))
            continue
        values = numeric_column(frame, column, f"dataset {name!r}")
        specs.append(
            Attribute(
                name=column,
                kind="numerical",
                role=role,  # type: ignore[arg-type]
                domain=numeric_domain(column, values, alpha, domains.get(column)),
                integer=bool(np.all(values == np.round(values))),
                discrete=column in discrete_set,
                alpha=None if column in domains else float(alpha),
            )
        )
        columns[column] = values
    clean = pd.DataFrame(columns, index=pd.RangeIndex(len(frame)))
    classes = class_labels(frame, target, f"dataset {name!r}") if target else None
    return Dataset(name=name, frame=clean, attributes=tuple(specs), target=classes)
