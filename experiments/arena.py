"""Tables of the arena (conf/experiment/arena.yaml): the papers' methods against DP
synthetic data on utility and disclosure risk; and of its disclosure table at matched
utility (conf/experiment/arena_disclosure.yaml)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from anonlab.cost import Cost
from anonlab.plotting import ROW_COLUMNS, point_values
from anonlab.plotting.names import value_label
from anonlab.validation import ParameterError


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


# --- disclosure risk at matched utility (arena_disclosure, Table 3) ---------------------------

#: the utility the methods are matched on: the arena's risk-utility axis, 2-way marginal TVD
#: (lower is better), defined for every release
MATCH_UTILITY = "marginal_tvd"
#: the data-set-level disclosure measures of the table, in its column order
DISCLOSURE_METRICS = (
    "record_linkage",
    "individual_risk",
    "global_risk",
    "prosecutor_risk",
    "journalist_risk",
    "marketer_risk",
    "suda_score",
    "special_uniques",
    "dis_suda_score",
    "dcr",
    "dcr_baseline_protection",
)
#: the attacks, and the parts of each shown (option ``report: rates``; a run without it
#: gives the risk alone)
ATTACKS = ("singling_out", "linkability", "attribute_inference")
ATTACK_PARTS = ("risk", "attack_rate", "baseline_rate")
#: result columns that are no parameter of a release
_NOT_AXES = ("experiment", "dataset", "method", *ROW_COLUMNS)


def _axes(table: pd.DataFrame) -> list[str]:
    """The parameter columns of ``table`` (ε, k, t, noise, p, …), in its column order."""
    return [c for c in table.columns if c not in _NOT_AXES]


def utility_target(points: pd.DataFrame, utility: str = MATCH_UTILITY) -> pd.Series:
    """The utility target of each data set: the median over the methods of each method's
    median ``utility`` over its settings, so that every method counts once however many
    settings it has. ``points``: one row per data set, method and setting with the mean
    ``utility`` (:func:`matched_utility`'s first step)."""
    per_method = points.groupby(["dataset", "method"], sort=False)[utility].median()
    return per_method.groupby(level="dataset", sort=False).median()


def matched_utility(
    table: pd.DataFrame,
    utility: str = MATCH_UTILITY,
    target: float | Mapping[str, float] | None = None,
) -> pd.DataFrame:
    """Each method at the setting whose utility is closest to a common target, per data set.

    Parameters
    ----------
    table : pandas.DataFrame
        A results table (one row per cell, repetition and metric).
    utility : str
        The data-set-level metric matched on; its mean over repetitions is a setting's
        utility.
    target : float, mapping of data set to float, or None
        The utility to match; ``None``: :func:`utility_target` of each data set.

    Returns
    -------
    pandas.DataFrame
        One row per data set and method, in the order of the table: ``dataset``,
        ``method``, the parameter columns of the setting chosen, ``utility`` (the mean it
        reached), ``target`` and ``cell_id``. Of two settings equally close the one of lower
        ``utility`` is chosen (the better one for a distance such as the TVD).
    """
    rows = table[(table["metric"] == utility) & table["attribute"].isna()]
    if rows.empty:
        raise ParameterError(
            f"utility={utility!r}: the results hold no data-set-level value of it; "
            f"choose one of {sorted(table.loc[table['attribute'].isna(), 'metric'].unique())}"
        )
    keys = ["dataset", "method", *_axes(table)]
    points = (
        rows.groupby([*keys, "cell_id"], sort=False, dropna=False)["value"]
        .mean()
        .rename(utility)
        .reset_index()
    )
    if target is None:
        goals = utility_target(points, utility)
    elif isinstance(target, Mapping):
        missing = sorted(set(points["dataset"]) - set(target))
        if missing:
            raise ParameterError(f"target={dict(target)!r} names no target for data sets {missing}")
        goals = pd.Series(dict(target), dtype=float)
    else:
        goals = pd.Series(float(target), index=points["dataset"].unique())
    points["target"] = points["dataset"].map(goals).astype(float)
    points["distance"] = (points[utility] - points["target"]).abs()
    ranked = points.reset_index(names="order").sort_values(
        ["distance", utility, "order"], kind="stable"
    )
    chosen = ranked.groupby(["dataset", "method"], sort=False).head(1).sort_values("order")
    chosen = chosen.rename(columns={utility: "utility"})
    return chosen[[*keys, "utility", "target", "cell_id"]].reset_index(drop=True)


def _means(table: pd.DataFrame, cells: Sequence[int]) -> pd.DataFrame:
    """The mean over repetitions of every disclosure measure of ``cells``, one row per cell
    id, one column per measure (an attack's parts as ``<attack> <part>``)."""
    rows = table[table["cell_id"].isin(cells)]
    level = rows["attribute"].isna()
    columns: dict[str, pd.Series] = {}
    for metric in DISCLOSURE_METRICS:
        part = rows[level & (rows["metric"] == metric)]
        if not part.empty:
            columns[metric] = part.groupby("cell_id")["value"].mean()
    for attack in ATTACKS:
        for name in ATTACK_PARTS:
            # the risk is the data-set-level row of a run without report: rates
            alone = level if name == "risk" else False
            named = rows["attribute"].eq(name).fillna(False).astype(bool)
            part = rows[(rows["metric"] == attack) & (named | alone)]
            if not part.empty:
                columns[f"{attack} {name}"] = part.groupby("cell_id")["value"].mean()
    return pd.DataFrame(columns, index=pd.Index(list(cells), name="cell_id"))


def _setting(row: pd.Series, axes: Sequence[str]) -> str:
    """``"k = 25, ε = 1"``: the parameters of one release, its missing axes left out."""
    return ", ".join(value_label(a, row[a]) for a in axes if pd.notna(row[a])) or "–"


def disclosure(table: pd.DataFrame) -> pd.DataFrame:
    """Every method of each data set at matched utility (:func:`matched_utility` on the 2-way
    marginal TVD, the target the median over methods), with its disclosure measures: record
    linkage, sdcMicro's individual and global risks, ARX's prosecutor, journalist and
    marketer risks, SUDA's mean score and special-uniques share, the distance to closest
    record and its baseline protection, and each attack's risk with its main and
    random-guess baseline success rates: means over repetitions, three significant digits,
    blank where a measure is undefined for the release (record linkage of synthetic
    records)."""
    chosen = matched_utility(table)
    axes = _axes(table)
    means = _means(table, list(chosen["cell_id"]))
    guarantee = (
        table[table["cell_id"].isin(chosen["cell_id"])].groupby("cell_id")["guarantee"].first()
        if "guarantee" in table
        else pd.Series(dtype=object)
    )
    out = pd.DataFrame(
        {
            "dataset": chosen["dataset"],
            "method": chosen["method"],
            "setting": [_setting(row, axes) for _, row in chosen.iterrows()],
            "guarantee": chosen["cell_id"].map(guarantee),
            MATCH_UTILITY: chosen["utility"],
            "target": chosen["target"],
        }
    )
    for column in means.columns:
        out[column] = chosen["cell_id"].map(means[column]).to_numpy()
    numbers = [c for c in out.columns if c not in ("dataset", "method", "setting", "guarantee")]
    out[numbers] = out[numbers].astype(object)
    for column in numbers:
        out[column] = [f"{v:.3g}" if pd.notna(v) else float("nan") for v in out[column]]
    return out


disclosure.legend = (  # type: ignore[attr-defined]
    "Each row: a method at the setting (`setting`) whose mean 2-way marginal TVD "
    "(`marginal_tvd`; 0: the original's marginals) is closest to `target`, the median over "
    "the methods of each method's median TVD over its settings on that data set; the gap "
    "between the two says how well the utility is matched. Settings: ε for the DP, iDP and "
    "synthetic-data methods; noise (% of σ) and p (% of the ranks) for sdcMicro's classic "
    "methods, which ignore ε; t-closeness has one. `guarantee`: what the release "
    "guarantees as released; none of the classic methods nor t-closeness is DP. "
    "Key-variable risks (the quasi-identifiers, matched exactly): `individual_risk` the "
    "highest (1 / the smallest class), `global_risk` the share of expected "
    "re-identifications, `prosecutor_risk` and `journalist_risk` the share of records above "
    "ARX's 0.2 threshold (equal without a population table), `marketer_risk` equal to "
    "`global_risk` without sampling weights; `suda_score` the mean SUDA score, "
    "`special_uniques` the share of records with a minimal sample unique of at most 3 keys, "
    "`dis_suda_score` the mean DIS-SUDA score (sdcMicro's, sampling fraction 0.01). "
    "`dcr`: median distance to the closest original record (0: a copy); "
    "`dcr_baseline_protection` that over random data's (1: no closer than random). Attacks: "
    "`risk` (main against control attack), `attack_rate` (main) and `baseline_rate` (random "
    "guess); an attack rate at or below its baseline says nothing of the release. Blank: "
    "undefined for the release (record linkage of synthetic records or shuffled columns)."
)
