"""The Python API: protect a DataFrame, as a function (:func:`protect`) or a scikit-learn
transformer (:class:`Protector`), and measure a release (:func:`evaluate`).

The same data set, method and metric validation as the command line: every bad input is
one :class:`~anonlab.validation.ParameterError` (a :class:`ValueError`) or
:class:`TypeError` naming the parameter, raised before any work.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, TransformerMixin

from anonlab.datasets import Dataset, build_dataset
from anonlab.datasets.build import DEFAULT_ALPHA
from anonlab.methods import Method, make_method, method_class
from anonlab.metrics import get_metric
from anonlab.validation import ParameterError, check_int

#: ``released.attrs[GUARANTEE]``: the release's guarantee as a dict
#: (:class:`~anonlab.methods.guarantees.Guarantee`)
GUARANTEE = "guarantee"


def _method(method: str, params: Mapping[str, Any]) -> Method:
    """The method ``method`` with ``params`` (grid parameters and options), checked."""
    cls = method_class(method)
    unknown = sorted(set(params) - {*cls.axes, *cls.option_choices, "aggr"})
    if unknown:
        raise ParameterError(f"method {cls.name!r} takes {list(cls.axes)} and options "
                             f"{sorted(cls.option_choices)}, not {unknown}")
    return make_method(method, {p: v for p, v in params.items() if p not in cls.option_choices},
                       {p: v for p, v in params.items() if p in cls.option_choices})


def _dataset(frame: Any, columns: Sequence[str] | str | None, *,
             domains: Mapping[str, Sequence[float]] | None,
             hierarchies: Mapping[str, str] | None, roles: Mapping[str, str] | None,
             alpha: float, target: Mapping[str, Any] | None = None) -> Dataset:
    """The data set view of ``frame`` protecting ``columns`` (by default every numeric
    column; text columns are categorical attributes)."""
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}")
    if columns is None:
        columns = [c for c in frame.columns if pd.api.types.is_numeric_dtype(frame[c])
                   and not pd.api.types.is_bool_dtype(frame[c])
                   and c != (target or {}).get("column")]
        if not columns:
            raise ParameterError("columns: the frame has no numeric column; name the "
                                 "columns to protect")
    columns = [columns] if isinstance(columns, str) else list(columns)
    text = [c for c in columns if c in frame.columns
            and not pd.api.types.is_numeric_dtype(frame[c])]
    return build_dataset("frame", frame.reset_index(drop=True), columns, alpha=alpha,
                         domains=domains, roles=roles, categorical=text,
                         hierarchies=hierarchies, target=target)


def protect(frame: pd.DataFrame, method: str, columns: Sequence[str] | None = None, *,
            domains: Mapping[str, Sequence[float]] | None = None,
            hierarchies: Mapping[str, str] | None = None,
            roles: Mapping[str, str] | None = None,
            alpha: float = DEFAULT_ALPHA, seed: int = 0, **params: Any) -> pd.DataFrame:
    """The release of ``frame`` by ``method``: every column, the protected ones replaced.

    Parameters
    ----------
    frame : the records; it is not modified.
    method : a registered method (``anonlab.methods()``), e.g. ``"ir_laplace"``.
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
        The released records, with the columns and index of ``frame`` (synthetic data,
        ``mst`` and ``aim``: the protected columns only, on a fresh index); what the release
        guarantees is ``released.attrs["guarantee"]``, a dict of the fields of
        :class:`~anonlab.methods.guarantees.Guarantee` (notion, ε per attribute and in
        total, k and t reached, caveat).
    """
    seed = check_int(seed, "seed", 0)
    released_by = _method(method, params)
    dataset = _dataset(frame, columns, domains=domains, hierarchies=hierarchies, roles=roles,
                       alpha=alpha)
    released_by.check_dataset(dataset)
    release = released_by.release(dataset, np.random.default_rng(np.random.SeedSequence(seed)))
    out = release.frame
    if release.record_aligned:  # synthetic records get a fresh index (Release.frame)
        out.index = frame.index
    out.attrs[GUARANTEE] = release.guarantee.as_dict()
    return out


#: what a released frame cannot give a metric: its clusters and the protection's timing
NOT_IN_A_FRAME = ("clusters", "record_partition", "seconds")


def evaluate(original: pd.DataFrame, released: pd.DataFrame,
             metrics: Sequence[str] = ("re", "jsd"), columns: Sequence[str] | None = None, *,
             domains: Mapping[str, Sequence[float]] | None = None,
             hierarchies: Mapping[str, str] | None = None,
             roles: Mapping[str, str] | None = None, alpha: float = DEFAULT_ALPHA,
             target: Mapping[str, Any] | None = None, seed: int = 0) -> pd.Series:
    """The ``metrics`` of a release of ``original``, averaged over the protected ``columns``
    as in the papers (``anonlab.metrics()`` lists them).

    Parameters
    ----------
    original : the records that were protected.
    released : their release, row for row (the same index), e.g. :func:`protect`'s.
    metrics : registered metric names. Metrics of clusters (``cluster_min``,
        ``max_emd``, …) and ``runtime`` need what a run keeps beside the release and are
        refused; run them through an experiment.
    columns, domains, hierarchies, roles, alpha : the protected attributes, as given to
        :func:`protect`; the domains are those of ``original``.
    target : ``{column, threshold, labels}``, the class of ``f_measure`` (iDP §4.2).
    seed : seeds randomized metrics (``f_measure``'s random forest).

    Returns
    -------
    pandas.Series
        One value per metric, indexed by name; a metric with one value per class
        (``f_measure``) gives ``name[class]`` entries.
    """
    seed = check_int(seed, "seed", 0)
    if isinstance(metrics, str):
        metrics = [metrics]
    chosen = [get_metric(name) for name in metrics]
    for metric in chosen:
        needs = set(metric.requires) | ({"seconds"} if metric.name == "runtime" else set())
        if needs & set(NOT_IN_A_FRAME):
            raise ParameterError(f"metric {metric.name!r} needs the release's clusters or "
                                 "timing, which a released frame does not carry; run it in "
                                 "an experiment (anonlab run)")
    view = _dataset(original, columns, domains=domains, hierarchies=hierarchies, roles=roles,
                    alpha=alpha, target=target)
    values = _released_values(view, original, released)
    for metric in chosen:
        metric.check(view, None)
    from anonlab.methods.base import Release

    release = Release(view, values)
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    out: dict[str, float] = {}
    for metric in chosen:
        value = metric.of_release(view, release, rng)
        if isinstance(value, dict):
            out.update({f"{metric.name}[{part}]": v for part, v in value.items()})
        else:
            out[metric.name] = value
    return pd.Series(out, name="value", dtype=float)


def _released_values(view: Dataset, original: pd.DataFrame, released: Any) -> np.ndarray:
    """The ``(n, m)`` matrix of ``released``'s protected columns, aligned with ``original``
    (categorical values as taxonomy codes)."""
    if not isinstance(released, pd.DataFrame):
        raise TypeError(f"released must be a pandas DataFrame, got {type(released).__name__}")
    if not released.index.equals(original.index):
        raise ParameterError("released: its rows must be original's, with the same index "
                             f"({len(released)} rows against {len(original)})")
    missing = [c for c in view.protected if c not in released.columns]
    if missing:
        raise ParameterError(f"released has no column {missing[0]!r}")
    columns = []
    for attr in view.protected_attributes:
        column = released[attr.name].to_numpy()
        if attr.categorical:
            columns.append(attr.taxonomy.encode(column).astype(float))
        elif not pd.api.types.is_numeric_dtype(released[attr.name]):
            raise ParameterError(f"released column {attr.name!r} is not numeric")
        else:
            columns.append(column.astype(float))
    return np.column_stack(columns)


class Protector(TransformerMixin, BaseEstimator):
    """:func:`protect` as a scikit-learn transformer, for pipelines.

    ``Protector("ir_laplace", k=5, epsilon=1.0).fit_transform(frame)`` is
    ``protect(frame, "ir_laplace", k=5, epsilon=1.0)``. ``get_params``/``set_params``
    cover the method's parameters too (``set_params(k=10)``), so ``sklearn.clone`` and grid
    searches work. ``fit`` checks the method, its parameters and the columns on ``X`` and
    learns nothing; ``transform`` protects the frame it is given (in a pipeline, each call
    protects its own data) and returns a DataFrame with every column. After
    ``transform``, ``guarantee_`` is the release's guarantee (a dict, as
    ``released.attrs["guarantee"]``). The constructor takes :func:`protect`'s arguments
    but the frame: ``method``, ``columns``, ``domains``, ``hierarchies``, ``roles``,
    ``alpha``, ``seed`` and the method's ``**params``.
    """

    _OWN = ("method", "columns", "domains", "hierarchies", "roles", "alpha", "seed")

    def __init__(self, method: str, columns: Sequence[str] | None = None, *,
                 domains: Mapping[str, Sequence[float]] | None = None,
                 hierarchies: Mapping[str, str] | None = None,
                 roles: Mapping[str, str] | None = None, alpha: float = DEFAULT_ALPHA,
                 seed: int = 0, **params: Any) -> None:
        self.method = method
        self.columns = columns
        self.domains = domains
        self.hierarchies = hierarchies
        self.roles = roles
        self.alpha = alpha
        self.seed = seed
        self.params = params

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        """The constructor's arguments, the method's parameters included."""
        return {**{name: getattr(self, name) for name in self._OWN}, **self.params}

    def set_params(self, **params: Any) -> Protector:
        """Set constructor arguments or method parameters (checked at ``fit``)."""
        for name, value in params.items():
            if name in self._OWN:
                setattr(self, name, value)
            else:
                self.params[name] = value
        return self

    def _options(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self._OWN if name != "method"}

    def fit(self, X: pd.DataFrame, y: Any = None) -> Protector:
        """Check the method, its parameters and the columns on ``X``; nothing is learnt."""
        check_int(self.seed, "seed", 0)
        released_by = _method(self.method, self.params)
        options = self._options()
        del options["seed"]
        released_by.check_dataset(_dataset(X, **options))
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = len(X.columns)
        return self

    def transform(self, X: pd.DataFrame) -> pd.DataFrame:
        """The release of ``X`` (:func:`protect`)."""
        released = protect(X, self.method, **self._options(), **self.params)
        self.guarantee_ = released.attrs[GUARANTEE]
        return released

    def get_feature_names_out(self, input_features: Any = None) -> np.ndarray:
        """The output's columns: the input's, all of them."""
        return np.asarray(self.feature_names_in_ if input_features is None else input_features,
                          dtype=object)
