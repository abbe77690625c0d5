"""The results a claim reads: per grid point, the mean over repetitions with its standard
error, selected, joined and grouped along an axis; on the log scale (the means of the logs
of the repetitions) for a run time or right-skewed repetitions, by the rule of
:mod:`anonlab.report.claims.stats`."""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from anonlab.plotting import point_values
from anonlab.report.claims.model import (
    Claim,
    Filter,
    NotCheckable,
    Selection,
    axis_label,
    where_text,
)
from anonlab.report.claims.stats import Quantity, Scale
from anonlab.validation import ParameterError

NON_AXES = {"experiment", "method", "value", "se", "df", "reps"}


@cache
def _exact_when_run_once(method: str, metric: str) -> bool:
    """Whether one run of ``method`` scored by ``metric`` is the whole story: both
    deterministic (the runner then runs them once), and the metric not a measurement of
    the machine (a run time is never exact, however deterministic the method)."""
    from anonlab.methods import method_class
    from anonlab.metrics import get_metric

    try:
        randomized = method_class(method).randomized
    except ParameterError:
        return False
    try:
        scored_by = get_metric(metric)
        randomized = randomized or scored_by.randomized or scored_by.measured
    except ParameterError:
        pass
    return not randomized


@cache
def _measured(metric: str) -> bool:
    """Whether ``metric`` is a measurement of the machine (a run time)."""
    from anonlab.metrics import get_metric

    try:
        return bool(get_metric(metric).measured)
    except ParameterError:
        return False


class ResultsTable:
    """Point statistics of one results table, cached per (metric, by_attribute).

    :meth:`points` has, per method and parameters, the mean over repetitions (``value``),
    its standard error ``se`` (0 for a deterministic method and metric run once; NaN for a
    randomised one run once), degrees of freedom ``df`` and repetitions ``n``: of the
    repetitions' logs where :meth:`scale` says the table is on the log scale.
    """

    def __init__(self, table: pd.DataFrame, tables_dir: Path | None = None) -> None:
        self.table = table
        self.tables_dir = tables_dir
        self._points: dict[tuple[str, bool, bool], pd.DataFrame] = {}
        self._summaries: dict[tuple[str, bool, bool], pd.DataFrame] = {}
        self._scales: dict[tuple[str, bool], Scale] = {}
        self._stored: dict[str, pd.DataFrame | None] = {}

    def stored(self, name: str) -> pd.DataFrame | None:
        """The run's table ``tables/<name>.csv`` (written by a table builder), or
        ``None`` without it."""
        if name not in self._stored:
            path = None if self.tables_dir is None else Path(self.tables_dir) / f"{name}.csv"
            self._stored[name] = pd.read_csv(path) if path is not None and path.is_file() else None
        return self._stored[name]

    def points_of(self, claim: Claim, *, raw: bool = False) -> pd.DataFrame:
        """The points a claim reads: its metric, per attribute or not, on the table's scale
        (``raw``: the raw scale whatever it is), and as the size |mean| of a signed metric
        when the claim says ``magnitude: true`` (a log-scale metric is positive)."""
        points = self.points(claim.metric, claim.by_attribute, log=False if raw else None)
        if claim.magnitude and not points.attrs["scale"].log:
            points = points.assign(value=points["value"].abs())
        return points

    def scale_of(self, claim: Claim) -> Scale:
        """The scale of the claim's metric's table (:meth:`scale`)."""
        return self.scale(claim.metric, claim.by_attribute)

    def scale(self, metric: str, by_attribute: bool) -> Scale:
        """The scale the table's points are judged on, by the rule of
        :mod:`anonlab.report.claims.stats` over all its points: log where every repetition
        is positive and the metric is a run time or its repetitions are right-skewed."""
        key = (metric, by_attribute)
        if key not in self._scales:
            summary = self._summary(metric, by_attribute, False)
            skew = self.point_skewness(metric, by_attribute)
            minimum = summary["min"].dropna()
            self._scales[key] = Scale.decide(
                skew["g1"].to_numpy(dtype=float),
                skew["reps"].to_numpy(dtype=float),
                positive=bool(len(minimum) and (minimum > 0).all()),
                measured=_measured(metric),
            )
        return self._scales[key]

    def point_skewness(self, metric: str, by_attribute: bool) -> pd.DataFrame:
        """Per point (method and parameters): the sample skewness ``g1`` = m₃/m₂^{3/2} of its
        repetitions and their number ``reps`` (``g1`` NaN below 3 or without a spread)."""
        summary = self._summary(metric, by_attribute, False)
        n = summary["count"].to_numpy(dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            # pandas' skew is the adjusted G₁ = g₁ √(n(n − 1)) / (n − 2)
            g1 = summary["skew"].to_numpy(dtype=float) * (n - 2) / np.sqrt(n * (n - 1))
        g1[~(summary["std"].to_numpy(dtype=float) > 0)] = np.nan
        keys = [c for c in summary.columns if c not in ("mean", "std", "count", "min", "skew")]
        return summary[keys].assign(g1=g1, reps=n)

    def _summary(self, metric: str, by_attribute: bool, log: bool) -> pd.DataFrame:
        """Per point: mean, std, count, min and skew of the repetitions (or of their logs)."""
        key = (metric, by_attribute, log)
        if key not in self._summaries:
            table = self.table
            if not (table["metric"] == metric).any():
                raise NotCheckable(f"metric {metric!r} is not in the results")
            if log:
                table = table[table["metric"] == metric]
                with np.errstate(divide="ignore", invalid="ignore"):
                    table = table.assign(value=np.log(table["value"].where(table["value"] > 0)))
            summary = (
                point_values(table, metric, by_attribute)
                .agg(["mean", "std", "count", "min", "skew"])
                .reset_index()
            )
            if summary.empty:
                raise NotCheckable(
                    f"no {'per-attribute ' if by_attribute else ''}rows of metric {metric!r}"
                )
            self._summaries[key] = summary
        return self._summaries[key]

    def points(self, metric: str, by_attribute: bool, *, log: bool | None = None) -> pd.DataFrame:
        """The points of a metric on the table's :meth:`scale` (``log``: True or False forces
        one, as a calibration does); ``attrs["scale"]`` holds the :class:`Scale`."""
        scale = self.scale(metric, by_attribute)
        if log is not None and log != scale.log:
            scale = Scale(True, "forced") if log else Scale()
        key = (metric, by_attribute, scale.log)
        if key not in self._points:
            points = self._summary(metric, by_attribute, scale.log)
            n = points["count"].to_numpy(dtype=float)
            se = points["std"].to_numpy(dtype=float) / np.sqrt(n)
            once = n == 1
            exact = np.array(
                [_exact_when_run_once(str(m), metric) for m in points.loc[once, "method"]],
                dtype=bool,
            )
            se[np.flatnonzero(once)] = np.where(exact, 0.0, np.nan)
            se[~once & (points["std"].to_numpy(dtype=float) == 0)] = 0.0
            points = points.drop(columns=["std", "count", "min", "skew"]).rename(
                columns={"mean": "value"}
            )
            points["se"], points["df"], points["reps"] = se, np.where(se == 0, np.inf, n - 1), n
            self._points[key] = points
        points = self._points[key].copy(deep=False)  # the cached frame keeps no forced scale
        points.attrs["scale"] = scale
        return points


def missing(value: Any) -> bool:
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def mask(column: pd.Series, value: Filter, *, keep_missing: bool = True) -> pd.Series:
    """Rows whose ``column`` passes the filter (missing values pass when ``keep_missing``)."""
    present = column.notna()
    if isinstance(value, Mapping):
        numeric = pd.to_numeric(column, errors="coerce")
        ok = pd.Series(True, index=column.index)
        if "min" in value:
            ok &= numeric >= value["min"] - 1e-12 * abs(value["min"])
        if "max" in value:
            ok &= numeric <= value["max"] + 1e-12 * abs(value["max"])
    else:
        values = value if isinstance(value, list) else [value]
        ok = pd.Series(False, index=column.index)
        for v in values:
            if isinstance(v, str):
                ok |= column.astype("string") == v
            else:
                numeric = pd.to_numeric(column, errors="coerce").astype(float)
                ok |= np.isclose(numeric, float(v), rtol=1e-9, atol=0.0)
    ok = ok.fillna(False).astype(bool) & present
    return ok | ~present if keep_missing else ok


def pool(frame: pd.DataFrame, keys: list[str]) -> pd.DataFrame:
    """Points sharing ``keys`` merged into one: the mean of their means, with the standard
    error of that mean (independent estimates)."""
    present = [k for k in keys if k in frame.columns]
    if present and not frame.duplicated(present).any():
        return (
            frame[[*present, "value", "se", "df", "reps"]]
            .sort_values(present)
            .reset_index(drop=True)
        )
    frame = frame.assign(_all=0, _var=frame["se"] ** 2)
    keys = present or ["_all"]
    grouped = frame.groupby(keys, dropna=False, sort=True)
    out = grouped.agg(
        value=("value", "mean"),
        count=("value", "size"),
        df=("df", "min"),
        reps=("reps", "max"),
        var=("_var", lambda v: float(np.sum(v.to_numpy()))),
    )
    out["se"] = np.sqrt(out["var"]) / out["count"]
    out = out.drop(columns=["count", "var"]).reset_index()
    return out.drop(columns="_all") if "_all" in out.columns else out


def select(
    points: pd.DataFrame, selection: Selection, where: Mapping[str, Filter]
) -> tuple[pd.DataFrame, list[str]]:
    """The selection's points (columns value, se, df, n) and its free axes (the keys)."""
    rows = points
    if selection.methods is not None:
        unknown = set(selection.methods) - set(points["method"])
        if unknown:
            raise NotCheckable(f"no rows of method {sorted(unknown)[0]!r}")
        rows = rows[rows["method"].isin(selection.methods)]
    filters = {**where, **selection.limits, **selection.fixed}
    for axis, value in filters.items():
        if axis not in rows.columns:
            if axis in selection.fixed:
                continue  # an axis this table lacks (a method that ignores it)
            raise NotCheckable(f"the results have no axis {axis!r}")
        rows = rows[mask(rows[axis], value)]
    if rows.empty:
        raise NotCheckable(
            f"no points for {selection.label}" + (f" where {where_text(where)}" if where else "")
        )
    axes = [c for c in points.columns if c not in NON_AXES]
    keys = [a for a in axes if a not in selection.fixed and rows[a].notna().any()]
    if selection.methods is None or len(selection.methods) > 1:
        keys.append("method")
    return pool(rows, keys), keys


def join(frames: Sequence[tuple[pd.DataFrame, list[str]]]) -> tuple[pd.DataFrame, list[str]]:
    """Merge selections on their common free axes; side i's statistics go to columns
    ``v{i}``, ``se{i}``, ``df{i}``, ``reps{i}`` (and any other column ``c`` to ``c{i}``)."""
    merged, keys = None, []
    for i, (frame, frame_keys) in enumerate(frames):
        frame = frame.rename(
            columns={
                c: f"{c if c != 'value' else 'v'}{i}" for c in frame.columns if c not in frame_keys
            }
        )
        if merged is None:
            merged, keys = frame, list(frame_keys)
            continue
        common = [k for k in frame_keys if k in keys]
        merged = (
            merged.merge(frame, on=common, how="inner")
            if common
            else merged.merge(frame, how="cross")
        )
        keys += [k for k in frame_keys if k not in keys]
    assert merged is not None
    if merged.empty:
        raise NotCheckable("the selections share no grid point")
    return merged.reset_index(drop=True), keys


def side(frame: pd.DataFrame, i: int | None = None) -> Quantity:
    """The statistics of side ``i`` of a joined frame (or of a selection's own columns)."""
    suffix = "" if i is None else str(i)
    value = "value" if i is None else f"v{i}"
    return Quantity.of(
        frame[value], frame[f"se{suffix}"], frame[f"df{suffix}"], frame[f"reps{suffix}"]
    )


def varying(frame: pd.DataFrame, keys: Sequence[str]) -> list[str]:
    """The keys that take more than one value in ``frame`` (the others go without saying)."""
    return [k for k in keys if k in frame.columns and frame[k].nunique(dropna=False) > 1]


def point_label(row: Mapping[str, Any], keys: Sequence[str]) -> str:
    return ", ".join(axis_label(k, row[k]) for k in keys if not missing(row[k]))


def groups(
    frame: pd.DataFrame, keys: Sequence[str], x: str
) -> Iterator[tuple[dict[str, Any], pd.DataFrame]]:
    """(group, curve sorted along x) for each combination of the other free axes; the group
    holds only the axes that vary between groups."""
    others = [k for k in keys if k != x]
    if x not in keys:
        raise NotCheckable(f"the selection does not vary along {x!r}")
    if not others:
        yield {}, frame.sort_values(x).reset_index(drop=True)
        return
    moving = set(varying(frame, others))
    for key, part in frame.groupby(others, dropna=False, sort=True):
        key = key if isinstance(key, tuple) else (key,)
        group = {k: v for k, v in zip(others, key, strict=True) if k in moving}
        yield group, part.sort_values(x).reset_index(drop=True)


def group_label(group: Mapping[str, Any]) -> str:
    return ", ".join(axis_label(k, v) for k, v in group.items() if not missing(v))


def integer_axis(values: np.ndarray) -> bool:
    return bool(np.all(np.isclose(values, np.round(values))))
