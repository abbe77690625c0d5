"""Tables of the arena (conf/experiment/arena.yaml): the papers' methods against DP
synthetic data on utility and disclosure risk."""

from __future__ import annotations

import pandas as pd

from anonlab.plotting import point_values


def summary(table: pd.DataFrame) -> pd.DataFrame:
    """Every data-set-level metric per data set, method and ε: the mean over repetitions
    and its standard deviation (a blank where a metric is undefined for the method)."""
    rows = table[table["attribute"].isna()]
    parts = []
    for metric in rows["metric"].unique():
        stats = point_values(rows, metric).agg(["mean", "std", "count"]).reset_index()
        stats["metric"] = metric
        parts.append(stats)
    stats = pd.concat(parts, ignore_index=True)
    stats["cell"] = [
        f"{m:.4g} ± {s:.2g}" if pd.notna(s) else f"{m:.4g}"
        for m, s in zip(stats["mean"], stats["std"], strict=True)
    ]
    keys = [c for c in ("dataset", "method", "epsilon", "k", "t") if c in stats]
    # a method without an axis (t-closeness has no ε) shows a dash there
    stats[keys] = stats[keys].astype(object).where(stats[keys].notna(), "–")
    wide = stats.pivot_table(
        index=keys, columns="metric", values="cell", aggfunc="first", dropna=False
    )
    wide = wide.dropna(how="all").reset_index()
    wide.columns.name = None
    return wide


def audited_epsilon(table: pd.DataFrame) -> pd.DataFrame:
    """The empirical privacy audit of every randomised method claiming a pure ε, one row
    per release form it offers and ε ∈ {0.5, 1, 2} (:func:`anonlab.audit.audit_table`,
    its default settings and seed): the lower confidence bounds on the ε spent and the
    exact losses, beside the claims. The audit runs on its own small worst-case data sets,
    not on the arena's releases, so ``table`` is not read; it is deterministic, so redrawing
    the arena recomputes the same table."""
    from anonlab.audit import audit_table

    audited, _ = audit_table()
    return audited


def floating_point(table: pd.DataFrame) -> pd.DataFrame:
    """The floating-point test of the ``laplace`` method with numpy's and the discrete
    sampler at ε ∈ {0.5, 1, 2} (:func:`anonlab.audit.table.floating_table`); ``table`` is
    not read."""
    from anonlab.audit.table import floating_table

    return floating_table()


def attack(table: pd.DataFrame) -> pd.DataFrame:
    """The bracketing attack on Census (:func:`anonlab.audit.attack.bracketing_attack`,
    ``ir_laplace`` with k = 25 and all 13 attributes, FICA attacked) at ε ∈ {0.1, 1, 10},
    in record order and with shuffled columns; ``table`` is not read."""
    from anonlab.audit.attack import bracketing_attack

    return pd.concat(
        [bracketing_attack(form=form) for form in ("records", "shuffled_columns")],
        ignore_index=True,
    )
