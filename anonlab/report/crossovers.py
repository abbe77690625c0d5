"""Where a method's curve crosses a baseline's, from the stored result table."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from anonlab.plotting import curve_means


def crossings(
    table: pd.DataFrame,
    metric: str,
    method: str,
    baseline: str,
    *,
    x: str = "k",
    by: Sequence[str] = ("epsilon", "m"),
) -> pd.DataFrame:
    """Per group of ``by``: the first ``x`` at which ``method``'s mean ``metric`` exceeds
    ``baseline``'s, and the ``x`` from which it stays above up to the last ``x``.

    The baseline may ignore ``x`` (a horizontal line); it is then matched on ``by`` only.
    Columns: the ``by`` values, ``baseline_value``, ``first_above``, ``stays_above_from``,
    ``n_above``, ``n_points`` (``None`` where the curve never rises above the baseline).
    """
    means = curve_means(table, metric)
    by = [b for b in by if b in means.columns]
    rows = []
    for key, curve in means[means["method"] == method].groupby(by, dropna=False):
        key = key if isinstance(key, tuple) else (key,)
        match = means["method"] == baseline
        for column, value in zip(by, key, strict=True):
            if means.loc[match, column].notna().any():
                match &= means[column] == value
        reference = means.loc[match]
        if reference[x].notna().any():
            reference = reference.set_index(x)["value"].reindex(curve[x]).to_numpy()
        else:
            reference = np.full(len(curve), reference["value"].mean())
        curve = curve.sort_values(x)
        xs = curve[x].to_numpy()
        above = curve["value"].to_numpy() > reference
        stays = None
        if above.any() and above[-1]:
            last_below = np.flatnonzero(~above)
            stays = xs[last_below[-1] + 1] if len(last_below) else xs[0]
        rows.append({**dict(zip(by, key, strict=True)),
                     "baseline_value": float(np.mean(reference)),
                     "first_above": xs[above][0] if above.any() else None,
                     "stays_above_from": stays,
                     "n_above": int(above.sum()), "n_points": len(xs)})
    return pd.DataFrame(rows)
