"""Protect a DataFrame from Python: ``anonlab.protect(frame, "ir_laplace", k=5, epsilon=1)``.

The same data set and method validation as the command line: every bad input is one
:class:`~anonlab.validation.ParameterError` (a :class:`ValueError`) or :class:`TypeError`
naming the parameter, raised before any work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from anonlab.datasets import build_dataset
from anonlab.datasets.build import DEFAULT_ALPHA
from anonlab.methods import make_method, method_class
from anonlab.validation import ParameterError, check_int


def protect(frame: pd.DataFrame, method: str, columns: Sequence[str] | None = None, *,
            domains: Mapping[str, Sequence[float]] | None = None,
            hierarchies: Mapping[str, str] | None = None,
            roles: Mapping[str, str] | None = None,
            alpha: float = DEFAULT_ALPHA, seed: int = 0, **params: Any) -> pd.DataFrame:
    """The release of ``frame`` by ``method``: every column, the protected ones replaced.

    Parameters
    ----------
    frame : the records; it is not modified.
    method : a registered method (``anonlab list``), e.g. ``"ir_laplace"``.
    columns : the attributes to protect, in order; by default every numeric column.
        A text column is a categorical attribute (DP-IR §3.4), with a flat taxonomy unless
        ``hierarchies`` gives its file.
    domains : ``{column: [low, high]}`` public bounds; otherwise DP-IR's ``[0, alpha·max]``.
    hierarchies : ``{column: file}`` taxonomies of text columns (``value,parent`` or ARX).
    roles : ``{column: role}`` (``quasi_identifier``, ``confidential``) for t-closeness.
    alpha : the domain rule's factor for numeric columns without a declared domain.
    seed : seeds the method's random numbers; the same seed gives the same release.
    **params : the method's parameters, e.g. ``k=5, epsilon=1.0`` (``t`` for t-closeness),
        and its options (``remainder="first"``); any other name is an error.

    Returns
    -------
    pandas.DataFrame
        The released records, with the columns and index of ``frame``.
    """
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    seed = check_int(seed, "seed", 0)
    cls = method_class(method)
    unknown = sorted(set(params) - {*cls.axes, *cls.option_choices, "aggr"})
    if unknown:
        raise ParameterError(f"method {cls.name!r} takes {list(cls.axes)} and options "
                             f"{sorted(cls.option_choices)}, not {unknown}")
    released_by = make_method(method, {p: v for p, v in params.items()
                                       if p not in cls.option_choices},
                              {p: v for p, v in params.items() if p in cls.option_choices})
    if columns is None:
        columns = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
                   and not pd.api.types.is_bool_dtype(frame[c])]
        if not columns:
            raise ParameterError("columns: the frame has no numeric column; name the "
                                 "columns to protect")
    columns = [columns] if isinstance(columns, str) else list(columns)
    text = [c for c in columns if c in frame.columns
            and not pd.api.types.is_numeric_dtype(frame[c])]
    dataset = build_dataset("frame", frame.reset_index(drop=True), columns, alpha=alpha,
                            domains=domains, roles=roles, categorical=text,
                            hierarchies=hierarchies)
    released_by.check_dataset(dataset)
    release = released_by.protect(dataset, np.random.default_rng(np.random.SeedSequence(seed)))
    out = release.frame
    out.index = frame.index
    return out
