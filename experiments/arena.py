"""Tables of the arena (conf/experiment/arena.yaml): the papers' methods against DP
synthetic data on utility and disclosure risk."""

from __future__ import annotations

import pandas as pd

from anonlab.cost import Cost
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


def audited_epsilon(table: pd.DataFrame | None, n_jobs: int = -1) -> pd.DataFrame:
    """The empirical privacy audit of every randomised method claiming a pure ε, one row
    per release form it offers and ε ∈ {0.5, 1, 2} (:func:`anonlab.audit.audit_table`,
    its default settings and seed): the lower confidence bounds on the ε spent and the
    exact losses, beside the claims. The audit runs on its own small worst-case data sets,
    not on the arena's releases, so ``table`` is not read: it is computed once per code
    version and cached (:mod:`anonlab.runner.artifacts`)."""
    from anonlab.audit import audit_table

    audited, _ = audit_table(n_jobs=n_jobs)
    return audited


def floating_point(table: pd.DataFrame | None, n_jobs: int = -1) -> pd.DataFrame:
    """The floating-point test of the ``laplace`` method with numpy's and the discrete
    sampler at ε ∈ {0.5, 1, 2} (:func:`anonlab.audit.table.floating_table`); ``table`` is
    not read (cached as :func:`audited_epsilon`)."""
    from anonlab.audit.table import floating_table

    return floating_table(n_jobs=n_jobs)


#: the attack table's release forms and numbers of protected attributes
ATTACK_FORMS = ("records", "shuffled_columns")
ATTACK_MS = (1, 13)


def attack(table: pd.DataFrame | None, n_jobs: int = -1) -> pd.DataFrame:
    """The bracketing attack on Census (:mod:`anonlab.audit.attack`: ``ir_laplace`` with
    k = 25, FICA attacked, protected alone (m = 1) or with the 12 others (m = 13)) at
    ε ∈ {0.1, 1, 10}, in record order and with shuffled columns, over 20 releases per row
    (the child streams of master seed 0): the median and the range over them of the share
    of records bracketed and of the median bracket width; ``table`` is not read."""
    from anonlab.audit.attack import bracketing_attack, summarise

    return pd.concat(
        [summarise(bracketing_attack(form=form, m=m)) for form in ATTACK_FORMS for m in ATTACK_MS],
        ignore_index=True,
    )


attack.legend = (  # type: ignore[attr-defined]
    "Each row: `seeds` releases of the protected attributes, one per child stream of "
    "`numpy.random.SeedSequence(seed)` (the same streams in every row). "
    "`share_bracketed_*`: the share of records whose value other records' values bound on "
    "both sides; `median_width_pct_*`: the median bracket width in % of the domain; each "
    "as the median over the releases and its range (`_min`, `_max`). `violations`: "
    "brackets that miss the true value, over every release (0 by the proof of "
    "`anonlab.audit.attack.brackets`). `python -m anonlab.audit attack m=1` (or `m=13`, "
    "`form=shuffled_columns`) prints one block."
)


# none of the three reads the run's results: computed once per code version, cached
for _builder in (audited_epsilon, floating_point, attack):
    _builder.data_independent = True  # type: ignore[attr-defined]
# seconds of work on one core (benchmarks/timings/cost_model.py --tables), which the plan stage
# counts, and says as a table starts, while the cache holds no copy for this code version
audited_epsilon.cost = Cost("1", seconds=900.0)  # type: ignore[attr-defined]
floating_point.cost = Cost("1", seconds=110.0)  # type: ignore[attr-defined]
attack.cost = Cost("1", seconds=2.5)  # type: ignore[attr-defined]
