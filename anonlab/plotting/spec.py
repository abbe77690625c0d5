"""What a figure draws, read from the stored result table: the :class:`FigureSpec` of an
experiment's ``figures:`` entry and the means over repetitions it plots. No matplotlib:
building and checking an experiment does not import it (drawing does,
:mod:`anonlab.plotting.curves`, :mod:`anonlab.plotting.maps`)."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from anonlab.guarantee import COLUMNS as GUARANTEE_COLUMNS
from anonlab.validation import ParameterError


@dataclass(frozen=True)
class FigureSpec:
    """One figure: ``metric`` against ``x``, a panel per ``facet`` value (and a row of panels
    per ``row`` value), a marker fill and size per ``series`` value. ``facet``, ``row`` or
    ``series`` may be ``"attribute"``: the per-attribute (or per-class, for ``f_measure``)
    rows of the metric.

    ``title`` replaces the default one (metric against x); ``styles`` maps a method to line
    properties overriding its defaults (``label`` among them: its legend name).
    ``x_metric`` makes it a risk–utility map instead (:mod:`anonlab.plotting.maps`):
    ``metric`` against ``x_metric``, a line per method through its ``series`` values.
    ``sharey``: every panel of the figure has the same y range, so that panels compare
    (the default); ``False`` gives each panel its own range."""

    name: str
    metric: str
    x: str = "k"
    facet: str | None = None
    row: str | None = None
    series: str | None = "epsilon"
    methods: Sequence[str] | None = None
    logy: bool = True
    title: str = ""
    styles: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    x_metric: str | None = None
    sharey: bool = True

    @classmethod
    def from_config(cls, config: Mapping[str, Any]) -> FigureSpec:
        """The spec of one ``figures:`` entry of an experiment config; an unknown key raises
        a :class:`~anonlab.validation.ParameterError`."""
        known = set(cls.__dataclass_fields__)
        unknown = set(config) - known
        if unknown:
            raise ParameterError(f"figure {config.get('name')!r}: unknown key(s) {sorted(unknown)}")
        return cls(**dict(config))


#: the columns of a results row that are no parameter of its release: which repetition,
#: which cell, which measurement and its value, and the release's guarantee
ROW_COLUMNS: tuple[str, ...] = (
    "rep",
    "seed",
    "cell_id",
    "metric",
    "attribute",
    "value",
    *GUARANTEE_COLUMNS,
)


def point_values(
    table: pd.DataFrame, metric: str, by_attribute: bool = False
) -> pd.core.groupby.SeriesGroupBy:
    """The repetitions' values of the data-set-level ``metric`` (or of its per-attribute,
    per-class rows if ``by_attribute``), grouped by method and parameters: one group per
    point of a curve."""
    rows = table[(table["metric"] == metric) & (table["attribute"].notna() == by_attribute)]
    kept = ("attribute",) if by_attribute else ()  # a per-attribute row's own key
    params = [c for c in rows.columns if c not in ROW_COLUMNS or c in kept]
    return rows.groupby(params, dropna=False, sort=True)["value"]


def curve_means(table: pd.DataFrame, metric: str, by_attribute: bool = False) -> pd.DataFrame:
    """Mean over repetitions of the data-set-level ``metric`` per method and parameters,
    or of its per-attribute (per-class) rows if ``by_attribute``."""
    return point_values(table, metric, by_attribute).mean().reset_index()


#: the confidence level of the bands around the curves
BAND_LEVEL = 0.95


#: :func:`t_quantile` at :data:`BAND_LEVEL` for 1, 2, … degrees of freedom, as SciPy's
#: :func:`scipy.special.stdtrit` gives it (``tests/plotting/test_band_quantiles.py``
#: checks every one): the repetitions' bands read them here, without importing SciPy's
#: ``special`` (0.2–0.4 s in each process that draws)
# fmt: off
BAND_QUANTILES = (
    12.706204736174694, 4.302652729749462, 3.1824463052837078, 2.7764451051977934,
    2.5705818356363146, 2.4469118511449786, 2.364624251592784, 2.306004135204166,
    2.262157162798205, 2.228138851986274, 2.200985160091639, 2.1788128296672284,
    2.1603686564627913, 2.144786687917804, 2.131449545559776, 2.1199052992212546,
    2.1098155778333156, 2.1009220402410382, 2.0930240544083087, 2.085963447265864,
    2.0796138447276795, 2.0738730679040254, 2.0686576104190486, 2.0638985616280245,
    2.0595385527532972, 2.0555294386428735, 2.0518305164802846, 2.0484071417952454,
    2.045229642132703, 2.0422724563012378, 2.039513446396408, 2.0369333434601016,
    2.0345152974493383, 2.0322445093177186, 2.030107928250343, 2.0280940009804502,
    2.0261924630291093, 2.0243941639119694, 2.022690920036761, 2.021075390306273,
    2.019540970441376, 2.0180817028184443, 2.016692199227824, 2.0153675744437636,
    2.014103388880846, 2.012895598919429, 2.0117405137297655, 2.010634757624232,
    2.0095752371292392, 2.008559112100761, 2.007583770315836, 2.006646805061688,
    2.0057459953178687, 2.0048792881880564, 2.0040447832891455, 2.003240718847872,
    2.002465459291007, 2.0017174841452356, 2.000995378088267, 2.0002978220142604,
    1.999623584994939, 1.9989715170333788, 1.998340542520741, 1.997729654317693,
)
# fmt: on


@functools.cache
def t_quantile(df: float, level: float = BAND_LEVEL) -> float:
    """The two-sided ``level`` quantile of Student's t with ``df`` degrees of freedom,
    ``t_{(1+level)/2, df}``: SciPy's :func:`scipy.special.stdtrit`, the function
    ``scipy.stats.t.ppf`` evaluates (imported here, when a band is drawn), read from
    :data:`BAND_QUANTILES` for a whole ``df`` it holds at the bands' level."""
    if level == BAND_LEVEL and float(df).is_integer() and 1 <= df <= len(BAND_QUANTILES):
        return BAND_QUANTILES[int(df) - 1]
    from scipy.special import stdtrit

    return float(stdtrit(df, 0.5 + level / 2))


def t_half_width(
    sd: np.ndarray, n: np.ndarray, df: np.ndarray | None = None, level: float = BAND_LEVEL
) -> np.ndarray:
    """Half widths of two-sided Student-t intervals of means, elementwise:
    ``t_{(1+level)/2, df} · sd / √n`` (``df = n − 1`` unless given); NaN where there is
    no spread to estimate (``df < 1``). One quantile per distinct ``df``
    (:func:`t_quantile`), not per point."""
    sd, n = np.asarray(sd, dtype=float), np.asarray(n, dtype=float)
    df = n - 1 if df is None else np.asarray(df, dtype=float)
    usable = df >= 1
    t = np.full(np.shape(df), np.nan)
    if usable.any():
        distinct, which = np.unique(df[usable], return_inverse=True)
        t[usable] = np.array([t_quantile(float(d), level) for d in distinct])[which]
    with np.errstate(invalid="ignore", divide="ignore"):
        return t * sd / np.sqrt(n)


def curve_bands(
    table: pd.DataFrame, metric: str, by_attribute: bool = False, level: float = BAND_LEVEL
) -> pd.DataFrame:
    """:func:`curve_means` with the spread of each point over its repetitions: per method
    and parameters the mean (``value``), the standard deviation (``value_sd``), the number
    of repetitions (``value_n``) and the ``level`` Student-t interval of the mean,
    ``value_low`` and ``value_high`` = ``value`` ∓ ``value_half``, with
    ``value_half = t_{(1+level)/2, n−1} · sd / √n`` (NaN for a single repetition).
    Computed for every point at once (one grouping, array arithmetic)."""
    stats = point_values(table, metric, by_attribute).agg(["mean", "std", "count"])
    value, sd, n = (stats[c].to_numpy(float) for c in ("mean", "std", "count"))
    half = t_half_width(sd, n, level=level)
    columns = {
        "value": value,
        "value_sd": sd,
        "value_n": n.astype(int),
        "value_half": half,
        "value_low": value - half,
        "value_high": value + half,
    }
    return stats.drop(columns=["mean", "std", "count"]).assign(**columns).reset_index()


def pooled_bands(
    points: pd.DataFrame, by: str | None = None, level: float = BAND_LEVEL
) -> pd.DataFrame:
    """Rows of :func:`curve_bands` merged per value of the numeric column ``by`` (all into
    one if None): the mean of their means (what a curve through them draws) and its
    interval, with the standard error ``√(Σ sd²/n) / G`` of the mean of ``G`` independent
    means and ``Σ (n − 1)`` degrees of freedom; a single row keeps its own interval, a row
    of one repetition leaves none (NaN). Sorted by ``by``; columns ``by`` (if given),
    ``value``, ``value_half``, ``value_low``, ``value_high``. Array arithmetic throughout,
    however many points."""
    value = points["value"].to_numpy(float)
    n = points["value_n"].to_numpy(float)
    var = points["value_sd"].to_numpy(float) ** 2 / n
    if by is None:
        keys, inverse = None, np.zeros(len(points), dtype=int)
    else:
        keys, inverse = np.unique(points[by].to_numpy(float), return_inverse=True)
    size = 1 if keys is None else len(keys)

    def total(weights: np.ndarray) -> np.ndarray:
        return np.bincount(inverse, weights=weights, minlength=size)

    count = total(np.ones(len(points)))
    mean = total(value) / count
    se = np.where(total(np.isnan(var)) > 0, np.nan, np.sqrt(total(np.nan_to_num(var)))) / count
    half = t_half_width(se, np.ones(size), df=total(n - 1), level=level)
    columns = {} if keys is None else {by: keys}
    columns.update(value=mean, value_half=half, value_low=mean - half, value_high=mean + half)
    return pd.DataFrame(columns)
