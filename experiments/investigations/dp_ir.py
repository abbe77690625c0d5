"""Investigations of dp_ir claims (see :mod:`anonlab.experiments.investigations`).

DP-IR (Sánchez et al., Information Fusion 2016) and DP-UNI (PSD 2014). Each function runs a
reduced grid of the claim's experiment with the library (single-threaded, the master seed
of the paper profile, 20161101, unless it says otherwise) or computes from the paper's own
formulas and Table 1 (transcribed in :mod:`anonlab.experiments.dp_ir`), and returns a table and its
conclusion.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager

import numpy as np
import pandas as pd

import anonlab.methods.multivariate as multivariate
from anonlab.catalog import experiments
from anonlab.config import compose_config
from anonlab.experiments.dp_ir import EPSILONS, KS, PAPER_TABLE_1, compare
from anonlab.experiments.investigations import investigation
from anonlab.report.claims import evaluate_claim, parse_claim
from anonlab.report.claims.stats import Quantity, judge, tally
from anonlab.runner.experiment import build_experiment, run_grid

_POSTPROCESS = multivariate.postprocess

# --- the insensitive-MDAV stand-in, varied -----------------------------------------------------


def _rounded(dataset: object, values: np.ndarray, noisy: bool) -> np.ndarray:
    """IMDAV's centroids rounded like noisy values."""
    return _POSTPROCESS(dataset, values, noisy=True)


def _lexicographic(values: np.ndarray, low: np.ndarray, width: np.ndarray) -> np.ndarray:
    """An equally insensitive order: lexicographic over the attributes, first to last."""
    return np.lexsort(((np.asarray(values, dtype=float) - low) / width).T[::-1])


#: variants of our stand-in for [17]: name → replacements in anonlab.methods.multivariate
STAND_IN_VARIANTS = {
    "centroids rounded": {"postprocess": _rounded},
    "lexicographic order": {"domain_order": _lexicographic},
    "both": {"postprocess": _rounded, "domain_order": _lexicographic},
}


@contextmanager
def _stand_in(replacements: dict[str, object]) -> Iterator[None]:
    """Run with parts of the insensitive-MDAV stand-in replaced, restored afterwards (the
    library's files are not changed)."""
    saved = {name: getattr(multivariate, name) for name in replacements}
    for name, value in replacements.items():
        setattr(multivariate, name, value)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(multivariate, name, value)


#: the master seed of every run here (the paper profile's)
SEED = 20161101
#: DP-IR §4.1: Census has n = 1,080 records; Table 1 protects m = 8 attributes
CENSUS_N, TABLE1_M = 1080, 8
#: how far a Table 1 row's two bounds may cross before it counts as inconsistent: each
#: printed cell is one mean of 10 noisy runs, so saturated cells scatter by a few percent
SLACK = 1.5


def _run(experiment: str, overrides: Sequence[str]) -> tuple[pd.DataFrame, object]:
    """The results table of ``experiment`` with ``overrides`` (one core, no figures, nothing
    written) and its built experiment."""
    config = compose_config(
        f"+experiment={experiment}",
        "n_jobs=1",
        "figures=[]",
        "tables=[]",
        f"seed={SEED}",
        *overrides,
    )
    built = build_experiment(config)
    return run_grid(built, progress=False), built


def _claim(claim_id: str) -> dict:
    """The raw claim ``claim_id`` from the experiment configs."""
    for entry in experiments():
        for raw in entry.claims or ():
            if raw["id"] == claim_id:
                return dict(raw)
    raise KeyError(claim_id)


def _means(table: pd.DataFrame, by: Sequence[str]) -> pd.DataFrame:
    """Mean over repetitions of the overall (not per-attribute) rows, per ``by``."""
    rows = table[table["attribute"].isna()]
    return rows.groupby(list(by))["value"].mean().unstack("method")


def _elapsed(start: float) -> str:
    return f"(runtime {time.perf_counter() - start:.0f} s)"


# --------------------------------------------------------------------------------------
# DP-IR Figure 1, RE at ε = 10 against IR alone
# --------------------------------------------------------------------------------------


@investigation("dp_ir_fig1_re_near_ir_large_k")
def fig1_re_near_ir() -> str:
    """RE of IR + Laplace over IR alone at ε = 10, k ≥ 50, per m, beside the noise scale
    m/(k·ε) in units of Δ (the sanity bound of RE is Δ/100)."""
    start = time.perf_counter()
    ks = [50, 60, 70, 80, 90, 100]
    table, _ = _run(
        "census_ir",
        [
            f"grid.k={ks}",
            "grid.epsilon=[10.0]",
            "grid.m=[1,8,13]",
            "reps=3",
            "metrics=[re]",
            "methods=[ir,ir_laplace]",
        ],
    )
    means = _means(table, ["m", "k", "method"])
    per_m = means.groupby(level="m").mean()
    per_m["ratio (claim <= 1.5)"] = per_m["ir_laplace"] / per_m["ir"]
    per_m["noise scale / Δ (mean over k)"] = [
        np.mean([m / (k * 10.0) for k in ks]) for m in per_m.index
    ]
    per_m["scale / sanity bound Δ/100"] = per_m["noise scale / Δ (mean over k)"] * 100
    return (
        f"Census, ε = 10, k ∈ {ks}, 3 repetitions, seed {SEED} {_elapsed(start)}; "
        "mean RE over k:\n\n" + per_m.to_string(float_format="%.4g") + "\n\n"
        "Cause: reading. The ratio is 1.0 for m = 1 and grows with m (2.4 for m = 8, 3.2 "
        "for m = 13 on this grid; 2.2 and 3.2 on the full run) because DP-IR's own "
        "budget split gives each attribute the scale "
        "m·Δ/(k·ε): at m = 13 the mean |noise| is 1.3 to 2.6 sanity bounds, as large "
        "as IR's own error, so the RE cannot come down to IR's. The paper's next "
        "sentence restricts the statement: 'This is especially noticeable when only one "
        "attribute is protected … with a single attribute, we do not need to apply "
        "sequential composition (that would require more noise to be added)'. Read as "
        "a statement about the single-attribute curve (the one the paragraph goes on to "
        "describe), our RE is within ×1.5 of IR's; for m = 8 and 13 the paper itself "
        "says more noise is added."
    )


# --------------------------------------------------------------------------------------
# DP-IR Figure 1, JSD crossovers at ε = 10 for m = 8 and m = 13
# --------------------------------------------------------------------------------------


def _first_above_for_good(curve: pd.Series, baseline: float) -> float:
    """The first k from which ``curve`` stays above ``baseline`` (NaN if never)."""
    above = (curve > baseline).to_numpy()
    if not above[-1]:
        return float("nan")
    last_below = np.flatnonzero(~above)
    return float(curve.index[last_below[-1] + 1] if len(last_below) else curve.index[0])


@investigation("dp_ir_fig1_jsd_crossover_m8", "dp_ir_fig1_jsd_crossover_m13")
def fig1_jsd_crossovers() -> str:
    """First k from which IR + Laplace's JSD stays above plain Laplace's (ε = 10), per m,
    with the JSD bins over the domain (the text) and over the data's range (the reading);
    then the claims judged on both runs."""
    start = time.perf_counter()
    ks = list(range(30, 101, 2))
    base = [
        f"grid.k={ks}",
        "grid.epsilon=[10.0]",
        "grid.m=[8,13]",
        "reps=10",
        "metrics=[jsd]",
        "methods=[laplace,ir,ir_laplace]",
    ]
    rows, verdicts = [], []
    for bins, extra in (("domain (text)", []), ("data range", ["+options.jsd.bins=data_range"])):
        table, _ = _run("census_ir", base + extra)
        means = _means(table, ["m", "k", "method"])
        lap = table[(table["method"] == "laplace") & table["attribute"].isna()]
        for m in (8, 13):
            curve = means.loc[m, "ir_laplace"].dropna()
            laplace = float(lap[lap["m"] == m]["value"].mean())
            rows.append(
                {
                    "bins": bins,
                    "m": m,
                    "plain Laplace JSD": laplace,
                    "IR+L JSD k=46": curve.loc[46],
                    "IR+L JSD k=100": curve.loc[100],
                    "IR alone k=100": means.loc[m, "ir"].loc[100],
                    "above for good from k": _first_above_for_good(curve, laplace),
                }
            )
        for claim_id in ("dp_ir_fig1_jsd_crossover_m8", "dp_ir_fig1_jsd_crossover_m13"):
            result = evaluate_claim(parse_claim(_claim(claim_id)), table)
            verdicts.append(f"- {bins}: {claim_id}: {result.status}: {result.ours}")
    scales = pd.DataFrame(
        {
            "m": [8, 13],
            "IR+L scale/Δ at k=46": [8 / 460, 13 / 460],
            "k where it equals m=8's scale at k=46": [46, 46 * 13 / 8],
        }
    )
    return (
        f"Census, ε = 10, k = 30..100 step 2, 10 repetitions (the paper's), seed {SEED} "
        f"{_elapsed(start)}:\n\n"
        + pd.DataFrame(rows).to_string(index=False, float_format="%.4g")
        + "\n\n"
        + "\n".join(verdicts)
        + "\n\nNoise scale m/(k·ε) per attribute (DP-IR §4.2):\n\n"
        + scales.to_string(index=False, float_format="%.4g")
        + "\n\n"
        "m = 8, cause: reading. With the bins over the domain [0, 1.5·max] (the text's "
        "'1/100th of the attribute domain') the crossing is near k = 78; with the same 100 "
        "bins over the data's [min, max] it is near the paper's k > 45 and the claim is "
        "no longer contradicted (within noise at these repetitions and on the full run). "
        "m = 13, cause: unexplained. Under both bin readings the m = 13 crossing is far "
        "later than 45 (data range: about 80; domain: not before k = 100). Ruled out: the "
        "bins (both readings tried); the choice of attributes (m = 13 protects all of "
        "Census, so no attribute choice of ours enters); rounding (integer rounding is "
        "far below a bin's width). The paper's own mechanism predicts a later crossing "
        "for m = 13 than for m = 8: 'this is clearer when the number of attributes is "
        "small, because so is the noise', and m = 13 has the noise of m = 8 only at "
        "k = 13/8 times larger. Our crossings order as m = 1 < 8 < 13, as that sentence "
        "says, but a single 'k > 45 (for multiple attributes)' for m = 13 is not "
        "reproduced and we cannot show why."
    )


# --------------------------------------------------------------------------------------
# DP-IR Figure 2, RE at ε = 10 from k = 100 to k = 200 (Adult)
# --------------------------------------------------------------------------------------


@investigation("dp_ir_fig2_re_nearly_constant_large_k")
def fig2_re_nearly_constant() -> str:
    """RE per attribute of IR and IR + noise at ε = 10, k = 100 and 200 on Adult, beside
    DP-IR's noise scale m·Δ/(k·ε) of the numerical attributes."""
    start = time.perf_counter()
    table, built = _run(
        "adult_ir",
        [
            "grid.k=[100,200]",
            "grid.epsilon=[10.0]",
            "reps=3",
            "metrics=[re]",
            "metrics_by_attribute=[re]",
            "methods=[ir,ir_laplace]",
        ],
    )
    rows = table.assign(attribute=table["attribute"].fillna("all (the claim)"))
    means = rows.groupby(["attribute", "method", "k"])["value"].mean().unstack(["method", "k"])
    out = pd.DataFrame(
        {
            "IR k=100": means[("ir", 100)],
            "IR k=200": means[("ir", 200)],
            "IR+noise k=100": means[("ir_laplace", 100)],
            "IR+noise k=200": means[("ir_laplace", 200)],
        }
    )
    out["IR+noise 200/100 (claim: within ×1.5)"] = out["IR+noise k=200"] / out["IR+noise k=100"]
    dataset = built.datasets[0]
    m = len(dataset.protected_attributes)
    scale = {
        a.name: m * a.width / (100 * 10.0)
        for a in dataset.protected_attributes
        if not a.categorical
    }
    numeric = means.loc[list(scale)].mean()
    out.loc["age and hours only"] = [
        numeric[("ir", 100)],
        numeric[("ir", 200)],
        numeric[("ir_laplace", 100)],
        numeric[("ir_laplace", 200)],
        numeric[("ir_laplace", 200)] / numeric[("ir_laplace", 100)],
    ]
    out["numeric: noise scale m·Δ/(kε) at k=100"] = pd.Series(scale)
    return (
        f"Adult (m = 4), ε = 10, 3 repetitions, seed {SEED} {_elapsed(start)}:\n\n"
        + out.to_string(float_format="%.4g")
        + "\n\n"
        "Cause: paper_inconsistency. By DP-IR's own scale m·Δ/(k·ε) the Laplace noise of "
        "AGE and HOURS-PER-WEEK at k = 100 is about 0.5 years/hours per record, several "
        "times IR's own error (IR's RE is 5 to 10 times below IR + noise), so the RE is "
        "noise-dominated and halves with the scale from k = 100 to k = 200: the two "
        "numerical attributes alone give 0.55 (AGE 0.42, HOURS 0.66), outside ×1.5. "
        "'Nearly constant' needs IR's error to dominate, which the paper's formula "
        "excludes on Adult (the paper's own data, 30,162 records); the paper itself "
        "says Adult's RE stays "
        "further from IR's 'because of the need to discretize'. The categorical "
        "attributes fall further (NATIVE-COUNTRY ×0.25) because their exponential "
        "mechanism uses our path-length sensitivity of the quality function, which the "
        "paper does not state (docs/reproduction-notes.md, 'Categorical attributes'); "
        "that only deepens a decline the numerical attributes already show."
    )


# --------------------------------------------------------------------------------------
# DP-IR Figure 3, [17] below IR + Laplace for k > 83 at ε = 0.1 and 1 (m = 13)
# --------------------------------------------------------------------------------------


@investigation(
    "dp_ir_fig3_prior_below_small_eps_re_m13", "dp_ir_fig3_prior_below_small_eps_jsd_m13"
)
def fig3_prior_below_small_eps() -> str:
    """DP-IR's two noise scales for m = 13, k ≥ 84, and the RE and the JSD of both methods
    (and of their microaggregations alone) at ε = 0.1 and 1."""
    start = time.perf_counter()
    ks = list(range(84, 101))
    ratio = [(CENSUS_N / k) / 13 for k in ks]
    formula = pd.DataFrame(
        {
            "k": [84, 92, 100, "mean 84..100"],
            "[17] scale / ours = n/(k·m)": [
                CENSUS_N / (84 * 13),
                CENSUS_N / (92 * 13),
                CENSUS_N / (100 * 13),
                np.mean(ratio),
            ],
            "ours/Δ at ε=0.1": [
                13 / (84 * 0.1),
                13 / (92 * 0.1),
                13 / (100 * 0.1),
                np.mean([13 / (k * 0.1) for k in ks]),
            ],
            "ours/Δ at ε=1": [13 / 84, 13 / 92, 13 / 100, np.mean([13 / k for k in ks])],
        }
    )
    table, _ = _run(
        "census_ir_vs_mdav",
        [
            "grid.k=[84,88,92,96,100]",
            "grid.epsilon=[0.1,1.0]",
            "grid.m=[13]",
            "reps=10",
            "metrics=[re,jsd]",
            "methods=[ir,imdav,ir_laplace,imdav_laplace]",
        ],
    )
    blocks = []
    for metric in ("re", "jsd"):
        rows = table[table["metric"] == metric]
        means = _means(rows[rows["epsilon"].notna()], ["epsilon", "method"])
        means["ours / [17] (claim >= 1.1)"] = means["ir_laplace"] / means["imdav_laplace"]
        alone = _means(rows[rows["epsilon"].isna()], ["k", "method"]).mean()
        means["IR alone"], means["IMDAV alone"] = alone["ir"], alone["imdav"]
        blocks.append(f"{metric.upper()}:\n" + means.to_string(float_format="%.4g"))
    return (
        "DP-IR's scales (§4.4), Census n = 1,080, m = 13:\n\n"
        + formula.to_string(index=False, float_format="%.3g")
        + "\n\n"
        f"RE and JSD, mean over k ∈ {{84, 88, 92, 96, 100}}, 10 repetitions, seed {SEED} "
        f"{_elapsed(start)}:\n\n" + "\n\n".join(blocks) + "\n\n"
        "Cause: paper_inconsistency. The paper's own scales leave [17] at most 17 % less "
        "noise than IR + Laplace over k = 84..100 (9 % on average, none at k = 84). At "
        "ε = 0.1 both scales exceed the domain width (1.3-1.5 Δ ours), so with the "
        "clipping to the domain that DP-IR §4.1 prescribes both releases pile at the "
        "domain's ends and their RE is the same (ratio 1.00). At ε = 1 a mean 9 % noise "
        "edge is smaller than the extra error of multivariate microaggregation, which "
        "the paper itself calls 'substantial … for large m' (IMDAV alone has several "
        "times IR's RE here), so [17] stays behind in RE (ratio about 0.9). A "
        "'noticeable reduction of information loss' by [17] at ε = 0.1 and 1 does not "
        "follow from the paper's formula and clipping. In JSD (the twin claim) the same "
        "noise edge acting on the histograms leaves ours / [17] at about 1.01 at ε = 0.1 "
        "(both saturated) and 1.04 at ε = 1: [17] is lower, by less than the 10 % a "
        "'noticeable' reduction asks. The size of the ε = 1 gaps depends "
        "on our insensitive-MDAV order (a stand-in for [17]'s, docs/reproduction-notes.md "
        "#insensitive-microaggregation)."
    )


# --------------------------------------------------------------------------------------
# DP-IR Figure 4, IR + noise below insensitive MDAV alone on Adult
# --------------------------------------------------------------------------------------


@investigation("dp_ir_fig4_beats_imdav_re", "dp_ir_fig4_beats_imdav_jsd")
def fig4_beats_imdav() -> str:
    """Where IR + noise (ε = 1, 10) passes below IMDAV alone on Adult, with our IMDAV and
    with two variants of the stand-in: its centroids rounded like noisy values, and an
    equally insensitive lexicographic domain order (AGE, then HOURS, …) in place of the
    distance to the domain's corner."""
    start = time.perf_counter()
    ks = [20, 30, 40, 60, 80, 100, 120, 150, 200]
    overrides = [f"grid.k={ks}", "grid.epsilon=[1.0,10.0]", "reps=2"]
    table, _ = _run("adult_ir_vs_mdav", overrides + ["methods=[imdav,ir_laplace]"])
    lap = table[(table["method"] == "ir_laplace") & table["attribute"].isna()]
    lap = lap.groupby(["metric", "epsilon", "k"])["value"].mean()
    variants = {"ours (corner distance)": table}
    for name, replacements in STAND_IN_VARIANTS.items():
        with _stand_in(replacements):
            # IMDAV alone takes no ε: the run's grid is the axes its methods take
            alone = [o for o in overrides if not o.startswith("grid.epsilon")]
            variants[name], _ = _run("adult_ir_vs_mdav", alone + ["methods=[imdav]"])
    rows = []
    for name, frame in variants.items():
        alone = frame[(frame["method"] == "imdav") & frame["attribute"].isna()]
        alone = alone.groupby(["metric", "k"])["value"].mean()
        for metric in ("re", "jsd"):
            row = {"IMDAV alone": name, "metric": metric, "at k=100": alone.loc[(metric, 100)]}
            for epsilon in (1.0, 10.0):
                below = [k for k in ks if lap.loc[(metric, epsilon, k)] < alone.loc[(metric, k)]]
                stays = [k for k in below if all(j in below for j in ks if j >= k)]
                row[f"IR+noise ε={epsilon:g} below from k"] = stays[0] if stays else "never"
            rows.append(row)
    levels = pd.DataFrame(
        {
            f"IR+noise ε={e:g} at k=100": [lap.loc[("re", e, 100)], lap.loc[("jsd", e, 100)]]
            for e in (1.0, 10.0)
        },
        index=["re", "jsd"],
    )
    return (
        f"Adult (m = 4), k ∈ {ks}, 2 repetitions, seed {SEED} {_elapsed(start)}:\n\n"
        + pd.DataFrame(rows).to_string(index=False, float_format="%.4g")
        + "\n\n"
        + levels.to_string(float_format="%.4g")
        + "\n\n"
        "Cause: stand_in_data. The crossing is where IR + noise, falling with k as its "
        "scale m·Δ/(k·ε), meets IMDAV alone, nearly flat in k, so it moves with IMDAV's "
        "level. Our IMDAV is a stand-in for [17]'s insensitive MDAV, whose total order is "
        "in a paper we do not have (docs/reproduction-notes.md"
        "#insensitive-microaggregation), released with unrounded centroids "
        "(#adult-rounding-jsd). Changing either moves the crossing: rounding IMDAV's "
        "centroids halves its JSD (AGE and HOURS otherwise each land in bins of their "
        "own; JSD crossing at ε = 10 from k = 30 to 80), the lexicographic order, "
        "equally insensitive, lowers its RE by 38 % (RE crossing from 40 to 60), and "
        "both together put the ε = 10 JSD crossing at k = 100, the paper's value (RE: "
        "60). At ε = 1 IR + noise stays above every variant in RE. So the crossing is set "
        "by the stand-in's order and rounding, which we cannot check against [17]; a "
        "better insensitive order than ours would move the RE crossing further."
    )


# --------------------------------------------------------------------------------------
# DP-IR Table 1: the A3 row against the paper's own noise scales
# --------------------------------------------------------------------------------------


def _clipped_variance(scale: float, grid: int = 4001) -> float:
    """min over x ∈ [0, 1] of Var(clip(x + Laplace(scale), 0, 1)), in units of Δ²."""
    y = np.linspace(0.0, 1.0, grid)
    dy = y[1] - y[0]
    best = np.inf
    for x in np.linspace(0.0, 1.0, 201):
        p0, p1 = 0.5 * np.exp(-x / scale), 0.5 * np.exp(-(1 - x) / scale)
        density = np.exp(-np.abs(y - x) / scale) / (2 * scale)
        inner = np.trapezoid(density, dx=dy)
        mass = p0 + p1 + inner
        mean = (p1 + np.trapezoid(y * density, dx=dy)) / mass
        second = (p1 + np.trapezoid(y * y * density, dx=dy)) / mass
        best = min(best, second - mean**2)
    return float(best)


def _noise_scale(method: str, k: int, epsilon: float) -> float:
    """DP-IR's Laplace scale in units of Δ: m/(k·ε) for IR (§3.3), (n/k)/(k·ε) for [17]
    (§2.4, §4.4)."""
    return TABLE1_M / (k * epsilon) if method == "IR" else (CENSUS_N / k) / (k * epsilon)


def table1_row_bounds() -> pd.DataFrame:
    """Per attribute row of DP-IR Table 1, the range of R = Δ²/σ² (domain width over the
    attribute's variance) its cells allow under the paper's own noise scales.

    Every released value lies in the domain, so σ'² ≤ Δ²/4 and a cell D > 1 needs
    R ≥ 4(D + 1). In expectation σ'² ≤ σ² + 2b² (centroids do not add variance; clipping
    and shared cluster draws do not add either), so D ≤ 2 + 2(b/Δ)²R. And σ'² ≥
    (1 − (2k − 1)/n)·v(b)·Δ², v(b) the least variance of a clipped Laplace(b) draw, so
    R ≤ (1 + D)/((1 − (2k − 1)/n)·v(b)).
    """
    variance = {}
    rows = []
    for attribute, by_k in PAPER_TABLE_1.items():
        lows, highs = [], []
        for k, cells in zip(KS, by_k, strict=True):
            for j, value in enumerate(cells):
                method, epsilon = ("IR", "MV")[j % 2], EPSILONS[j // 2]
                b = _noise_scale(method, k, epsilon)
                cell = f"ε={epsilon:g} k={k} {method} ({value:g})"
                if value > 1:
                    lows.append((4 * (value + 1), cell))
                lows.append(((value - 2) / (2 * b * b), cell))
                if b not in variance:
                    variance[b] = _clipped_variance(b)
                v = (1 - (2 * k - 1) / CENSUS_N) * variance[b]
                highs.append(((1 + value) / v, cell))
        low, high = max(lows), min(highs)
        rows.append(
            {
                "row": attribute,
                "R at least": low[0],
                "because of": low[1],
                "R at most": high[0],
                "because of ": high[1],
                "at least / at most": low[0] / high[0],
                "consistent (≤ ×1.5)": low[0] <= SLACK * high[0],
            }
        )
    return pd.DataFrame(rows)


@investigation("dp_ir_table1_cells_eps01", "dp_ir_table1_cells_eps1", "dp_ir_table1_cells_eps10")
def table1_cells() -> str:
    """The paper's Table 1 rows checked against the paper's own noise scales, then our
    cells outside ×2 of the paper's (a run of census_variance, 10 repetitions)."""
    start = time.perf_counter()
    bounds = table1_row_bounds()
    table, _ = _run("census_variance", ["reps=10"])
    judged = []
    for claim_id in (
        "dp_ir_table1_cells_eps01",
        "dp_ir_table1_cells_eps1",
        "dp_ir_table1_cells_eps10",
    ):
        result = evaluate_claim(parse_claim(_claim(claim_id)), table)
        judged.append(f"- {claim_id}: {result.status}: {result.ours}")
    cells = compare(table)
    outside = []
    for epsilon in EPSILONS:  # as anonlab.report.claims.cells judges them
        frame = cells[cells["epsilon"] == epsilon].reset_index(drop=True)
        q = Quantity.of(
            frame["ours"].to_numpy(),
            frame["ours_se"].to_numpy(),
            frame["ours_n"].to_numpy() - 1,
            frame["ours_n"].to_numpy(),
        )
        paper, half = frame["paper"].to_numpy(), frame["paper_rounding"].to_numpy()
        band = judge(
            q, np.minimum(paper / 2, paper - half), np.maximum(paper * 2, paper + half), closed=True
        )
        opposite = tally(band, len(frame)).opposite_at
        outside.append(
            frame[opposite][["epsilon", "attribute", "k", "method", "paper", "ours", "ours_se"]]
        )
    per_row = pd.concat(outside)
    a3 = cells[cells["attribute"] == "A3"].pivot_table(
        index="k", columns=["epsilon", "method"], values=["paper", "ours"]
    )
    return (
        "R = Δ²/σ² allowed by each row of the paper's Table 1 under its own scales "
        "(m = 8, n = 1,080; no data used):\n\n"
        + bounds.to_string(index=False, float_format="%.4g")
        + "\n\n"
        f"Our run (census_variance, 10 repetitions, seed {SEED}) {_elapsed(start)}:\n"
        + "\n".join(judged)
        + "\n\nThe cells outside ×2 with confidence (Bonferroni over "
        "each ε's 64 cells, as the claims judge them):\n\n"
        + per_row.to_string(index=False, float_format="%.3g")
        + "\n\nRow A3, paper and "
        "ours:\n\n" + a3.to_string(float_format="%.3g") + "\n\n"
        "Cause: paper_inconsistency. Every cell outside the ×2 band with confidence is in "
        "row A3, and row A3 cannot come from one attribute under the paper's own noise "
        "scales: its saturated ε = 0.1 cells (≈ 25) need Δ²/σ² ≥ 104, while its ε = 10, "
        "k = 2, IR cell (0.47) allows at most about 20 (a clipped Laplace draw of scale "
        "0.4·Δ keeps a variance of at least v(0.4)·Δ²), and its ε = 1 and ε = 10 MV "
        "cells at k = 50 and 100 (22.6, 22.3, 8.10, 6.84) need Δ²/σ² in the hundreds to "
        "tens of thousands, since [17]'s scale there is only 0.01-0.4·Δ: its bounds "
        "cross by a factor of about 1,100. The other seven rows' bounds meet within "
        "×1.03-1.11, the scatter of their saturated cells over 10 runs. Our A3 "
        "(EMCONTRB, the third Census attribute in file order) follows the paper's "
        "formulas; no Census attribute reproduces the printed "
        "row (docs/reproduction-notes.md#dp-ir-table-1-a3). The paper's A4, k = 50, "
        "ε = 10, IR cell printed 0.00 is a near miss, not a cell outside with confidence."
    )


# --------------------------------------------------------------------------------------
# DP-UNI Figure 1, SSE at ε = 10 against IR alone
# --------------------------------------------------------------------------------------


@investigation("dp_uni_fig1_eps10_near_ir_large_k")
def uni_fig1_near_ir() -> str:
    """SSE/m of IR and IR + Laplace at ε = 10, k ≥ 50, beside what DP-UNI's own scale
    predicts: SSE_IR + n·mean_i(2·b_i²), b_i = m·Δ(A_i)/(k·ε), plus integer rounding."""
    start = time.perf_counter()
    ks = [50, 60, 70, 80, 90, 100]
    table, built = _run(
        "adult_uni_sse",
        [f"grid.k={ks}", "grid.epsilon=[10.0]", "reps=3", "methods=[ir,ir_laplace]"],
    )
    means = _means(table, ["k", "method"])
    dataset = built.datasets[0]
    m, n = len(dataset.protected_attributes), dataset.n
    widths = [a.width for a in dataset.protected_attributes]
    noise = pd.Series({k: n * np.mean([2 * (m * w / (k * 10.0)) ** 2 for w in widths]) for k in ks})
    means["predicted SSE/m (formula)"] = means["ir"] + noise + n / 12
    means["noise term n·mean(2b²)"] = noise
    means["ratio IR+L / IR (claim <= 1.5)"] = means["ir_laplace"] / means["ir"]
    means.loc["mean k>=50"] = means.mean()
    overall = means.loc["mean k>=50"]  # the claim's ratio is of the means over k
    means.loc["mean k>=50", "ratio IR+L / IR (claim <= 1.5)"] = (
        overall["ir_laplace"] / overall["ir"]
    )
    return (
        f"Adult AGE + HOURS-PER-WEEK (m = 2, n = {n}, Δ = {widths}), ε = 10, 3 "
        f"repetitions, seed {SEED} {_elapsed(start)}:\n\n"
        + means.to_string(float_format="%.4g")
        + "\n\n"
        "Cause: paper_inconsistency. DP-UNI's own scale Δ(A_i)/(k·(ε/m)) adds, per record "
        "and attribute, a noise variance 2b² of about 0.64 (k = 50) to 0.16 (k = 100) in "
        "squared years/hours, plus about 1/12 for the rounding the paper prescribes; "
        "over 30,162 records that is 1.0e4 on average over k = 50..100, three times IR's "
        "own SSE/m (3.4e3), so SSE_IR+L ≈ SSE_IR + n·2b² is predicted at 4.7 times "
        "SSE_IR and measured at 4.5 (clipping removes a little). 'Almost as "
        "low as the SSE achieved by the individual ranking alone' does not follow from "
        "the paper's formula on its own data set (the same 30,162 records)."
    )


# --------------------------------------------------------------------------------------
# DP-IR Figure 3, IR + Laplace below IMDAV alone in JSD for k > 30 (m = 13, ε = 10)
# --------------------------------------------------------------------------------------

#: the seeds of the seed-to-seed checks below: the exploratory and confirmatory master
#: seeds, then six more
SEEDS = (20161101, 20261126, 1, 2, 3, 4, 5, 6)


def _run_seeded(experiment: str, seed: int, overrides: Sequence[str]) -> pd.DataFrame:
    """As :func:`_run` with master seed ``seed``; the results table only."""
    config = compose_config(
        f"+experiment={experiment}",
        "n_jobs=1",
        "figures=[]",
        "tables=[]",
        f"seed={seed}",
        *overrides,
    )
    return run_grid(build_experiment(config), progress=False)


def _crossing(result_text: str) -> str:
    """The crossing part of a crossover claim's ``ours`` text."""
    return result_text.split("simultaneous: ", 1)[-1].split(" (paper", 1)[0]


@investigation("dp_ir_fig3_beats_imdav_jsd_m13")
def fig3_beats_imdav_jsd_m13() -> str:
    """Census, m = 13, ε = 10, JSD: where IMDAV alone passes above IR + Laplace, per seed,
    judged as the claim does ('stays above') and as the first crossing from below; the
    pooled curves (80 repetitions) at the k where IMDAV dips below; and the crossing with
    two variants of the IMDAV stand-in (rounded centroids, a lexicographic order)."""
    start = time.perf_counter()
    ks = list(range(20, 101))
    overrides = [f"grid.k={ks}", "grid.epsilon=[10.0]", "grid.m=[13]", "reps=10", "metrics=[jsd]"]
    raw = _claim("dp_ir_fig3_beats_imdav_jsd_m13")
    stays, first = parse_claim(raw), parse_claim({**raw, "mode": "first"})
    tables, rows = [], []
    for seed in SEEDS:
        table = _run_seeded(
            "census_ir_vs_mdav", seed, overrides + ["methods=[ir,imdav,ir_laplace]"]
        )
        tables.append(table)
        judged_stays, judged_first = evaluate_claim(stays, table), evaluate_claim(first, table)
        rows.append(
            {
                "seed": seed,
                "claim (stays above)": judged_stays.status,
                "stays: ours": _crossing(judged_stays.ours),
                "first crossing from below": judged_first.status,
                "first: ours": _crossing(judged_first.ours),
            }
        )
    pooled = pd.concat(tables)
    judged_stays, judged_first = evaluate_claim(stays, pooled), evaluate_claim(first, pooled)
    rows.append(
        {
            "seed": "all 8 pooled (80 reps)",
            "claim (stays above)": judged_stays.status,
            "stays: ours": _crossing(judged_stays.ours),
            "first crossing from below": judged_first.status,
            "first: ours": _crossing(judged_first.ours),
        }
    )
    pooled = pooled[pooled["attribute"].isna()].groupby(["method", "k"])["value"]
    mean, sem = pooled.mean().unstack("method"), pooled.sem().unstack("method")
    gap = mean["imdav"] - mean["ir_laplace"]  # IMDAV alone is deterministic
    z = gap / sem["ir_laplace"]
    dips = [k for k in ks if k > 30 and z.loc[k] < -3.5]
    curve = pd.DataFrame(
        {
            "IR alone": mean["ir"],
            "IMDAV alone": mean["imdav"],
            "IR+L (80 reps)": mean["ir_laplace"],
            "IMDAV − IR+L": gap,
            "z": z,
        }
    ).loc[[20, 25, 28, 29, 30, 31, 35] + dips + [84, 100]]
    summary = pd.Series(
        {
            "mean IMDAV − IR+L, k = 31..100": gap.loc[31:].mean(),
            "mean |IMDAV − IR+L| / IMDAV, k = 31..100": (gap.abs() / mean["imdav"]).loc[31:].mean(),
            "share of k = 31..100 with IMDAV above": (gap.loc[31:] > 0).mean(),
            "IR+L scale in bins (100·m/(k·ε)) at k = 30, 100": f"{130 / 30:.2f}, {130 / 100:.2f}",
        }
    )
    noisy = tables[0][tables[0]["method"] == "ir_laplace"]
    variants = [
        {
            "IMDAV alone": "ours (corner distance)",
            "JSD k=30": mean["imdav"].loc[30],
            "JSD k=100": mean["imdav"].loc[100],
            "claim": rows[0]["claim (stays above)"],
            "ours": rows[0]["stays: ours"],
        }
    ]
    for name, replacements in STAND_IN_VARIANTS.items():
        with _stand_in(replacements):
            no_epsilon = [o for o in overrides if not o.startswith("grid.epsilon")]
            alone = _run_seeded("census_ir_vs_mdav", SEEDS[0], no_epsilon + ["methods=[imdav]"])
        judged = evaluate_claim(stays, pd.concat([alone, noisy]))
        level = alone[alone["attribute"].isna()].groupby("k")["value"].mean()
        variants.append(
            {
                "IMDAV alone": name,
                "JSD k=30": level.loc[30],
                "JSD k=100": level.loc[100],
                "claim": judged.status,
                "ours": _crossing(judged.ours),
            }
        )
    return (
        f"Census, m = 13, ε = 10, JSD (bins over the domain), k = 20..100, 10 "
        f"repetitions per seed {_elapsed(start)}. Per seed, the claim as encoded "
        "('stays above', ±5 around k = 30) and the first crossing from below:\n\n"
        + pd.DataFrame(rows).to_string(index=False)
        + "\n\n"
        "The 8 seeds pooled (80 repetitions of IR + Laplace; IMDAV and IR alone are "
        f"deterministic), at k ≤ 35, at the k > 30 where IMDAV is below with z < −3.5 "
        f"({dips}), and at 84 and 100:\n\n"
        + curve.to_string(float_format="%.4g")
        + "\n\n"
        + summary.to_string()
        + "\n\n"
        f"Variants of the IMDAV stand-in (seed {SEEDS[0]}, monkeypatched and restored):\n\n"
        + pd.DataFrame(variants).to_string(index=False, float_format="%.4g")
        + "\n\n"
        "Cause: reading. From k = 30 on the two curves nearly coincide: IMDAV alone "
        "is on average 0.007 (about 2 %) above IR + Laplace, and above it at 79 % of the "
        "k. But IMDAV's curve is deterministic and jagged in k (groups of k in one fixed "
        "order; e.g. k = 55: 0.452, k = 56: 0.414). At eight isolated k between 37 and "
        "83 it is truly below, by up to 0.016 (z down to −12 with 80 repetitions). So "
        "IMDAV 'stays above' only from k = 84, and the encoding finds a crossing near 84 "
        "once the repetitions resolve those dips: 10 repetitions resolve some of them on "
        "6 of 8 seeds (the confirmatory seed among them), 80 pooled give [83, 92]. The "
        "exploratory seed's 'within noise' was too few repetitions, not agreement. Read "
        "as where the two curves cross on the figure (the first crossing from below), "
        "the interval holds k = 30 on every seed and the 80 pooled repetitions put it "
        "in [27, 30], the paper's 'k > 30'. The crossing also depends on the stand-in. "
        "Rounding the centroids changes nothing on Census. An equally insensitive "
        "lexicographic order raises IMDAV's JSD at k = 30 from 0.32 to 0.51, and IMDAV "
        "is then above from before k = 20. So how jagged IMDAV's curve is, and where it "
        "crosses, is a property of [17]'s order, which we cannot check "
        "(docs/reproduction-notes.md#insensitive-microaggregation)."
    )


# --------------------------------------------------------------------------------------
# DP-IR Table 1, variations increasing from k = 50 to 100 at ε = 10 (attributes 2, 4, 5, 8)
# --------------------------------------------------------------------------------------

#: the claim's attributes (DP-IR's "attributes 2, 4, 5 and 8") and A6 for comparison
TABLE1_ROWS = ("A2", "A4", "A5", "A6", "A8")


def _paper_steps() -> pd.DataFrame:
    """DP-IR Table 1 at ε = 10: each row's cells at k = 50 and 100 and whether both of its
    methods rise (ε = 10 is the last pair of columns; k = 50, 100 the last two rows)."""
    rows = []
    for attribute, by_k in PAPER_TABLE_1.items():
        ir50, mv50 = by_k[KS.index(50)][4:6]
        ir100, mv100 = by_k[KS.index(100)][4:6]
        rows.append(
            {
                "row": attribute,
                "IR k=50": ir50,
                "IR k=100": ir100,
                "MV k=50": mv50,
                "MV k=100": mv100,
                "both rise": ir100 > ir50 and mv100 > mv50,
                "listed in §4.4": attribute in ("A2", "A4", "A5", "A8"),
            }
        )
    return pd.DataFrame(rows)


@investigation("dp_ir_table1_increase_at_k100_eps10")
def table1_increase_at_k100() -> str:
    """The paper's own ε = 10 cells at k = 50 and 100 (which rows rise), the attribute
    mapping A1..A8 (saturated ε = 0.1 cells), and our Δσ² from k = 50 to 100 at ε = 10 over
    10 seeds of 10 repetitions: its expectation (100 pooled), the noise of one 10-run
    table, and how often a 10-run table shows a rise."""
    start = time.perf_counter()
    paper = _paper_steps()
    saturated = _run_seeded(
        "census_variance",
        SEED,
        ["grid.k=[2]", "grid.epsilon=[0.1]", "reps=3", "methods=[ir_laplace]"],
    )
    cells = compare(saturated)
    cells = cells[cells["k"] == 2].dropna(subset=["ours"]).set_index("attribute")
    names = saturated.loc[saturated["attribute"].notna(), "attribute"].unique()
    mapping = pd.DataFrame(
        {
            "Census attribute": names,
            "paper ε=0.1 k=2 IR": cells["paper"],
            "ours (3 reps)": cells["ours"],
        },
        index=cells.index,
    )
    mapping["ours / paper"] = mapping["ours (3 reps)"] / mapping["paper ε=0.1 k=2 IR"]
    seeds = (*SEEDS, 7, 8)
    claim = parse_claim(_claim("dp_ir_table1_increase_at_k100_eps10"))
    steps, verdicts, tables = [], [], []
    for seed in seeds:
        table = _run_seeded(
            "census_variance", seed, ["grid.k=[50,100]", "grid.epsilon=[10.0]", "reps=10"]
        )
        tables.append(table)
        verdicts.append(evaluate_claim(claim, table).status)
        wide = compare(table).pivot_table(index=["attribute", "method"], columns="k", values="ours")
        steps.append(wide[100] - wide[50])
    rises = (pd.concat(steps, axis=1) > 0).sum(axis=1)
    pooled = compare(pd.concat(tables))  # 100 repetitions per cell
    pooled = pooled[pooled["epsilon"] == 10.0].pivot_table(
        index=["attribute", "method"], columns="k", values=["paper", "ours", "ours_se"]
    )
    ours = pd.DataFrame(
        {
            "paper 50→100": pooled[("paper", 50)].map("{:.2f}".format)
            + "→"
            + pooled[("paper", 100)].map("{:.2f}".format),
            "paper step": pooled[("paper", 100)] - pooled[("paper", 50)],
            "ours 50 (100 reps)": pooled[("ours", 50)],
            "ours 100": pooled[("ours", 100)],
            "ours step": pooled[("ours", 100)] - pooled[("ours", 50)],
            "its SE": np.hypot(pooled[("ours_se", 50)], pooled[("ours_se", 100)]),
            f"10-run tables rising (of {len(seeds)})": rises,
        }
    )
    ours["SE of a 10-run step"] = ours["its SE"] * np.sqrt(10)
    ours["paper step / that SE"] = ours["paper step"] / ours["SE of a 10-run step"]
    ours = ours.loc[list(TABLE1_ROWS)]
    counts = pd.Series(verdicts).value_counts().to_dict()
    return (
        "DP-IR Table 1 at ε = 10, k = 50 → 100 (the paper's own numbers):\n\n"
        + paper.to_string(index=False, float_format="%.2f")
        + "\n\n"
        f"Mapping A1..A8 (first 8 Census attributes in file order), ε = 0.1, k = 2, IR, "
        f"seed {SEED}:\n\n" + mapping.to_string(float_format="%.3g") + "\n\n"
        f"Ours at ε = 10 (m = 8), seeds {list(seeds)}, 10 repetitions each "
        f"{_elapsed(start)}:\n\n" + ours.to_string(float_format="%.3f") + "\n\n"
        f"The claim on each seed's 10-run table: {counts}\n\n"
        "Cause: paper_inconsistency. The list 'attributes 2, 4, 5 and 8' is not what "
        "the paper's own Table 1 shows: at ε = 10 from k = 50 to 100, A6 rises in both "
        "methods (IR 0.03→0.04, MV 0.15→0.44) exactly as A2 does (0.04→0.05, "
        "0.12→0.18), yet A6 is not listed. The listed rises are also at the level of "
        "one 10-run table's noise: A2's IR step is one unit of the last printed digit "
        "(0.01, 0.7 SE of a 10-run step by our spread), and those of A2 MV, A4 IR and "
        "A5 IR are under 2 such SE. The mapping is not the issue: with A1..A8 the first "
        "eight Census attributes, the saturated ε = 0.1 cells of every row but A3 are "
        "0.89-0.98 of the paper's. Our AGI (A2) falls in expectation with both methods "
        "(100 pooled repetitions: IR −0.017 ± 0.004, MV −0.041 ± 0.010), and a single "
        "10-run table shows a rise on 1 of 10 seeds for each method. So the claim is "
        "contradicted whenever a seed's table resolves that fall (the confirmatory "
        "seed: IR 0.072→0.024; here 2 of 10 seeds). The paper's A2 steps sit about 2 "
        "(IR) and 3 (MV, our insensitive-MDAV stand-in) SE of a 10-run step above our "
        "expected fall, a difference we cannot ascribe further. But the paper's list "
        "does not follow its own table, so it does not give a reliable expected "
        "direction per attribute. Our STATETAX (A6), like the paper's A6, rises with "
        "both methods; so does our POTHVAL (A8), the one listed rise that is large in "
        "the paper too."
    )
