"""Investigations of idp claims (see :mod:`anonlab.experiments.investigations`).

The SSE investigations compute the *expected* mean SSE of Eq. (5) exactly, from the paper's
own formulas (individual ranking, the sensitivities of §3.1 and Propositions 2–3, budget
ε/m, Laplace noise clipped to [0, α·max] as §4 says), with the closed-form moments of a
clipped Laplace variable: no random draws, so no seed. A seeded simulation of two cells
with the library's methods checks the closed form. The F-measure investigations run the
library's methods and random forest with fixed seeds (stated in their output).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import cache

import numpy as np
import pandas as pd
import yaml

from anonlab.config import CONF_DIR
from anonlab.datasets import Dataset, build_dataset, load_dataset
from anonlab.experiments.investigations import investigation
from anonlab.methods import make_method
from anonlab.methods.idp import attribute_epsilon
from anonlab.metrics.classification import forest_f_measure, train_size
from anonlab.metrics.sse import idp_mean_sse
from anonlab.microaggregation import individual_ranking

SSE_METHODS = ("dp", "dp_um", "idp_ls", "idp_cbls")
EPSILONS = (0.01, 0.1, 1.0)
ALPHAS = (1.5, 3.0)
SEED = 20240501  # every seeded run below: rng = default_rng([SEED, rep]) for the release,
# default_rng([SEED, rep, 1]) for the forest


# ---------------------------------------------------------------------------------------
# helpers


@cache
def _base(name: str) -> Dataset:
    """The data set of ``conf/dataset/<name>.yaml`` (α = 1.5 domains)."""
    with open(CONF_DIR / "dataset" / f"{name}.yaml", encoding="utf-8") as handle:
        return load_dataset(yaml.safe_load(handle))


def _dataset(name: str, alpha: float) -> Dataset:
    """``name`` with domains [0, α·max]."""
    return _base(name).with_alpha(alpha)


def _bounds(ds: Dataset) -> tuple[np.ndarray, np.ndarray]:
    attrs = ds.protected_attributes
    return (
        np.array([a.domain[0] for a in attrs], dtype=float),
        np.array([a.domain[1] for a in attrs], dtype=float),
    )


def clipped_moments(
    c: np.ndarray, b: np.ndarray, low: np.ndarray, high: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """E[u] and E[u²] of u = clip(c + N, low, high) − c, N ~ Laplace(0, b) (b = 0: u = 0).

    With A = c − low and H = high − c: E[u] = (b/2)(e^{−A/b} − e^{−H/b}) and
    E[u²] = b²(2 − e^{−A/b} − e^{−H/b}) − b(A e^{−A/b} + H e^{−H/b}).
    """
    big_a = np.maximum(c - low, 0.0)
    big_h = np.maximum(high - c, 0.0)
    safe = np.where(b > 0, b, 1.0)
    ea, eh = np.exp(-big_a / safe), np.exp(-big_h / safe)
    m1 = 0.5 * safe * (ea - eh)
    m2 = safe**2 * (-np.expm1(-big_a / safe) - np.expm1(-big_h / safe)) - safe * (
        big_a * ea + big_h * eh
    )
    return np.where(b > 0, m1, 0.0), np.where(b > 0, m2, 0.0)


def release_law(
    ds: Dataset, method: str, k: int, epsilon: float, budget: str = "split"
) -> tuple[np.ndarray, np.ndarray]:
    """``(n, m)`` released centre (centroid, or the value for ``dp``) and Laplace scale of
    every record and attribute, from the paper's formulas as the library implements them."""
    x = ds.protected_values
    low, high = _bounds(ds)
    eps_a = attribute_epsilon(epsilon, x.shape[1], budget)
    if method == "dp":
        return x, np.broadcast_to((high - low) / eps_a, x.shape)
    ranking = individual_ranking(x, k, ds.sorted_protected)
    centroids, sensitivity = make_method(
        method, {"k": k, "epsilon": epsilon}
    ).centroids_and_sensitivity(ranking, low, high)
    labels = ranking.labels
    return (
        np.take_along_axis(centroids, labels, 0),
        np.take_along_axis(sensitivity / eps_a, labels, 0),
    )


def expected_errors(
    ds: Dataset, method: str, k: int, epsilon: float, *, clip: bool = True, budget: str = "split"
) -> np.ndarray:
    """``(n, m)`` expected squared error E[(y − x)²] of every released value."""
    x = ds.protected_values
    centre, scale = release_law(ds, method, k, epsilon, budget)
    if not clip:
        return 2 * scale**2 + (centre - x) ** 2
    low, high = _bounds(ds)
    m1, m2 = clipped_moments(centre, scale, low, high)
    return m2 + 2 * (centre - x) * m1 + (centre - x) ** 2


def weights(ds: Dataset, exponent: float = 1.0) -> np.ndarray:
    """Eq. (5)'s weight of each attribute's squared error, 1/(m²·σ_j^{4·exponent})."""
    m = ds.protected_values.shape[1]
    return 1.0 / (m**2 * ds.protected_variance ** (2 * exponent))


def expected_sse(
    ds: Dataset,
    method: str,
    k: int,
    epsilon: float,
    *,
    clip: bool = True,
    budget: str = "split",
    exponent: float = 1.0,
) -> float:
    """Expected mean SSE of Eq. (5) (σ² as printed; ``exponent=0.5``: σ)."""
    errors = expected_errors(ds, method, k, epsilon, clip=clip, budget=budget)
    return float(np.mean(errors @ weights(ds, exponent)))


def ceiling_sse(ds: Dataset) -> float:
    """Mean SSE of a release at a fair coin between the domain bounds (the limit of any
    clipped Laplace release as its scale grows)."""
    x = ds.protected_values
    low, high = _bounds(ds)
    errors = 0.5 * (x - low) ** 2 + 0.5 * (high - x) ** 2
    return float(np.mean(errors @ weights(ds)))


def _grid(
    name: str, ks: Sequence[int], *, exponent: float = 1.0, budget: str = "split"
) -> pd.DataFrame:
    """Expected SSE of the four methods: rows (ε, α, k), a column per method."""
    rows = []
    for alpha in ALPHAS:
        ds = _dataset(name, alpha)
        for eps in EPSILONS:
            dp = expected_sse(ds, "dp", 1, eps, exponent=exponent, budget=budget)
            for k in ks:
                row = {"epsilon": eps, "alpha": alpha, "k": k, "dp": dp}
                for method in SSE_METHODS[1:]:
                    row[method] = expected_sse(ds, method, k, eps, exponent=exponent, budget=budget)
                rows.append(row)
    return pd.DataFrame(rows).set_index(["epsilon", "alpha", "k"])


def _simulated_sse(
    name: str, method: str, k: int, epsilon: float, alpha: float, reps: int
) -> float:
    """Mean of ``reps`` seeded releases of the library's method (the engine's sampler)."""
    ds = _dataset(name, alpha)
    values = []
    for rep in range(reps):
        rng = np.random.default_rng([SEED, rep])
        values.append(
            idp_mean_sse(ds, make_method(method, {"k": k, "epsilon": epsilon}).protect(ds, rng))
        )
    return float(np.mean(values))


def _check_closed_form(
    name: str, cells: Sequence[tuple[str, int, float, float]], reps: int = 10
) -> pd.DataFrame:
    rows = []
    for method, k, eps, alpha in cells:
        rows.append(
            {
                "method": method,
                "k": k,
                "epsilon": eps,
                "alpha": alpha,
                "closed form": expected_sse(_dataset(name, alpha), method, k, eps),
                f"simulated ({reps} seeded reps)": _simulated_sse(
                    name, method, k, eps, alpha, reps
                ),
            }
        )
    return pd.DataFrame(rows)


def saturated_share(
    ds: Dataset, method: str, k: int, epsilon: float, level: float = 1.0
) -> tuple[float, float]:
    """Share of records and of the expected SSE held by values whose Laplace scale is at
    least ``level`` times the domain width (their release is nearly a coin between the
    bounds)."""
    low, high = _bounds(ds)
    _, scale = release_law(ds, method, k, epsilon)
    errors = expected_errors(ds, method, k, epsilon) * weights(ds)[None, :]
    wide = scale >= level * (high - low)[None, :]
    return float(wide.mean()), float(errors[wide].sum() / errors.sum())


def _timed(function: Callable[[], str]) -> Callable[[], str]:
    """Append the investigation's run time to its report."""

    def run() -> str:
        start = time.perf_counter()
        text = function()
        return f"{text}\n\n(run time {time.perf_counter() - start:.1f} s, one core)"

    run.__name__ = function.__name__
    run.__doc__ = function.__doc__
    return run


def _fmt(frame: pd.DataFrame) -> str:
    return frame.to_string(float_format=lambda v: f"{v:.3g}")


# ---------------------------------------------------------------------------------------
# Figure 3: iDP-CBLS "several orders of magnitude" below the others (Census)


@investigation("idp_fig3_cbls_orders_of_magnitude")
@_timed
def cbls_orders_of_magnitude() -> str:
    """Expected SSE from the paper's formulas on Census, k = 3..100: how far below DP, DP-UM
    and iDP-LS iDP-CBLS can be, against the ×100 of "several orders of magnitude"."""
    ks = range(3, 101)
    grid = _grid("census_idp", ks)
    ratio = grid[["dp", "dp_um", "idp_ls"]].min(axis=1) / grid["idp_cbls"]
    by = ratio.groupby(level=["epsilon", "alpha"])
    table = pd.DataFrame(
        {
            "min ratio": by.min(),
            "median ratio": by.median(),
            "max ratio": by.max(),
            "share of k >= 100": by.apply(lambda r: (r >= 100).mean()),
        }
    )
    ceil = {a: ceiling_sse(_dataset("census_idp", a)) for a in ALPHAS}
    table["DP / coin-flip ceiling"] = [grid.loc[(e, a, 3), "dp"] / ceil[a] for e, a in table.index]
    sat = []
    for eps, alpha in table.index:
        records, sse = saturated_share(
            _dataset("census_idp", alpha), "idp_cbls", 10, eps, level=0.1
        )
        sat.append(f"{records:.0%} / {sse:.0%}")
    table["CBLS k=10: values with scale >= width/10 / their SSE share"] = sat
    # ruled out: σ instead of σ², and ε on each attribute instead of ε/m
    sd = _grid("census_idp", (3, 10, 30, 100), exponent=0.5)
    per = _grid("census_idp", (3, 10, 30, 100), budget="per_attribute")
    others = pd.DataFrame(
        {
            "max ratio, Eq. (5) over σ": (
                sd[["dp", "dp_um", "idp_ls"]].min(axis=1) / sd["idp_cbls"]
            )
            .groupby(level=[0, 1])
            .max(),
            "max ratio, ε per attribute": (
                per[["dp", "dp_um", "idp_ls"]].min(axis=1) / per["idp_cbls"]
            )
            .groupby(level=[0, 1])
            .max(),
        }
    )
    wine = _grid("wine", (3, 10, 50, 100, 400))
    wine_ratio = (
        (wine[["dp", "dp_um", "idp_ls"]].min(axis=1) / wine["idp_cbls"])
        .groupby(level=[0, 1])
        .agg(["min", "max"])
    )
    check = _check_closed_form("census_idp", [("idp_cbls", 3, 0.01, 3.0), ("dp_um", 100, 1.0, 1.5)])
    return (
        "Census, expected mean SSE (Eq. (5) as printed) from the paper's formulas, k = 3..100."
        "\nratio = min(DP, DP-UM, iDP-LS) / iDP-CBLS at the same (ε, α, k):\n\n"
        f"{_fmt(table)}\n\nRuled out (k in 3, 10, 30, 100):\n\n{_fmt(others)}\n\n"
        f"Wine, same computation (k in 3, 10, 50, 100, 400), ratio min and max:\n\n"
        f"{_fmt(wine_ratio)}\n\nClosed form against a seeded simulation:\n\n{_fmt(check)}\n\n"
        "Conclusion: the ratio follows from the paper's own formulas on its Census. At "
        "ε = 0.01 the clipped releases of DP, DP-UM and iDP-LS are a coin between the "
        "domain bounds (DP at 99.9% of that ceiling), so their SSE cannot grow further. "
        "iDP-CBLS's scale, Expression (1)/|C| over ε/m = 0.0011, is at least a tenth of "
        "the domain width for about three quarters of its values (Census's nine attributes "
        "are continuous, with wide gaps in their skewed tails). A clipped Laplace value of "
        "scale >= width/10 has an expected squared error within about x12 of the coin's, "
        "so x100 is out of reach at ε = 0.01 for every k (x3-x10), and at ε = 0.1 it is "
        "reached only at α = 3 for 5% of k. Neither σ for σ² in Eq. (5) nor ε on each "
        "attribute (a 9 times smaller scale) reaches x100 at ε = 0.01 (at most x13 and x95). "
        "On Wine, a dense and heavily tied data set, the same formulas give x90 and more, "
        "so 'several orders of magnitude' holds on Wine and on Census at ε = 1 for some k. "
        "It cannot hold on the Census at ε = 0.01 under the paper's own formulas."
    )


# ---------------------------------------------------------------------------------------
# Figure 3: iDP-CBLS at ε = 0.01 "similar" to DP-UM and iDP-LS at ε = 1 for large k


@investigation("idp_fig3_cbls_strong_privacy_vs_dp_um", "idp_fig3_cbls_strong_privacy_vs_ls")
@_timed
def cbls_strong_privacy() -> str:
    """Expected SSE of iDP-CBLS at ε = 0.01 and of DP-UM and iDP-LS at ε = 1 on Census,
    k = 90..100, and the part of iDP-CBLS's SSE held by values whose noise saturates."""
    rows = []
    for alpha in ALPHAS:
        ds = _dataset("census_idp", alpha)
        for k in range(90, 101, 2):
            cbls = expected_sse(ds, "idp_cbls", k, 0.01)
            um = expected_sse(ds, "dp_um", k, 1.0)
            ls = expected_sse(ds, "idp_ls", k, 1.0)
            records, share = saturated_share(ds, "idp_cbls", k, 0.01, level=0.1)
            above = np.mean(
                release_law(ds, "idp_cbls", k, 0.01)[1] > release_law(ds, "dp_um", k, 1.0)[1]
            )
            rows.append(
                {
                    "alpha": alpha,
                    "k": k,
                    "CBLS ε=0.01": cbls,
                    "DP-UM ε=1": um,
                    "LS ε=1": ls,
                    "CBLS/DP-UM": cbls / um,
                    "CBLS/LS": cbls / ls,
                    "CBLS values: scale >= width/10": records,
                    "their share of CBLS SSE": share,
                    "CBLS scale > DP-UM's": above,
                }
            )
    table = pd.DataFrame(rows).set_index(["alpha", "k"])
    wine = []
    for alpha in ALPHAS:
        ds = _dataset("wine", alpha)
        for k in (360, 400):
            cbls = expected_sse(ds, "idp_cbls", k, 0.01)
            wine.append(
                {
                    "alpha": alpha,
                    "k": k,
                    "CBLS/DP-UM": cbls / expected_sse(ds, "dp_um", k, 1.0),
                    "CBLS/LS": cbls / expected_sse(ds, "idp_ls", k, 1.0),
                }
            )
    check = _check_closed_form("census_idp", [("idp_cbls", 90, 0.01, 1.5), ("dp_um", 90, 1.0, 1.5)])
    return (
        "Census, expected mean SSE (Eq. (5) as printed) from the paper's formulas:\n\n"
        f"{_fmt(table)}\n\nWine, same computation:\n\n{_fmt(pd.DataFrame(wine))}\n\n"
        f"Closed form against a seeded simulation:\n\n{_fmt(check)}\n\n"
        "Conclusion: the ratio follows from the paper's formulas on its Census. DP-UM's "
        "scale at ε = 1 is m·width/(|C|·ε) = width/10 at k = 90 (at most width/10 at "
        "k >= 90), the same for every value. iDP-CBLS's scale at ε = 0.01 is "
        "Expression (1)/|C| over ε/m = 0.0011. On Census's continuous, skewed attributes "
        "it is at least width/10 for 75-85% of the values, which hold 99% of its SSE, and "
        "larger than DP-UM's scale for most of them. So iDP-CBLS at ε = 0.01 has more "
        "noise than DP-UM at ε = 1 on most values: 4-9 times DP-UM's expected SSE and "
        "5-12 times iDP-LS's, not 'similar' (x4). On Wine, dense and heavily tied, the "
        "same computation gives ratios of 0.25-3, as the paper says."
    )


# ---------------------------------------------------------------------------------------
# Figures 3 and 4: iDP-CBLS "not affected by (large) domains"


def _alpha_effect(name: str, ks: Sequence[int]) -> pd.DataFrame:
    rows = []
    lo, hi = (_dataset(name, a) for a in ALPHAS)
    for eps in EPSILONS:
        clipped, free, scale_gap = [], [], 0.0
        for k in ks:
            clipped.append(
                expected_sse(hi, "idp_cbls", k, eps) / expected_sse(lo, "idp_cbls", k, eps)
            )
            free.append(
                expected_sse(hi, "idp_cbls", k, eps, clip=False)
                / expected_sse(lo, "idp_cbls", k, eps, clip=False)
            )
            scale_gap = max(
                scale_gap,
                float(
                    np.max(
                        np.abs(
                            release_law(hi, "idp_cbls", k, eps)[1]
                            - release_law(lo, "idp_cbls", k, eps)[1]
                        )
                    )
                ),
            )
        rows.append(
            {
                "epsilon": eps,
                "ratio min": min(clipped),
                "ratio median": float(np.median(clipped)),
                "ratio max": max(clipped),
                "share within x1.5": float(np.mean(np.array(clipped) <= 1.5)),
                "ratio without clipping (min..max)": f"{min(free):.4f}..{max(free):.4f}",
                "max |scale(α=3) − scale(α=1.5)|": scale_gap,
            }
        )
    return pd.DataFrame(rows).set_index("epsilon")


_ALPHA_CONCLUSION = (
    "Conclusion: iDP-CBLS's Laplace scale does not depend on α (difference 0: "
    "Proposition 3 uses only cluster values), and without the clipping the expected SSE "
    "ratio α = 3 / α = 1.5 is exactly 1. The α effect comes entirely from the clipping "
    "to [0, α·max] that the paper itself applies ('for consistency we bounded noise-added "
    "outputs to the domain ranges', §4): a value whose noise scale is comparable to the "
    "domain is released near a coin between 0 and α·max, so its squared error grows "
    "about as α², up to x4. At ε = 0.01 (ε/m ≈ 0.001) the clusters spanning wide gaps "
    "are in that regime, so the paper's formulas themselves predict the factor of ~2 at "
    "small ε, fading to ~1 at ε = 1. The statement follows the sensitivity alone and "
    "leaves out the clipping step the paper applies."
)


@investigation("idp_fig3_cbls_not_affected_by_alpha")
@_timed
def cbls_alpha_census() -> str:
    """Expected SSE of iDP-CBLS at α = 3 over α = 1.5 on Census, with and without the
    paper's clipping to the domain."""
    table = _alpha_effect("census_idp", range(3, 101))
    return (
        "Census, iDP-CBLS, expected mean SSE (Eq. (5) as printed), ratio α = 3 / α = 1.5 "
        f"over k = 3..100:\n\n{_fmt(table)}\n\n{_ALPHA_CONCLUSION}"
    )


@investigation("idp_fig4_cbls_not_affected_by_alpha")
@_timed
def cbls_alpha_wine() -> str:
    """Expected SSE of iDP-CBLS at α = 3 over α = 1.5 on Wine, with and without the
    paper's clipping to the domain."""
    ks = (3, 4, 5, 7, 10, 15, 20, 30, 50, 75, 100, 150, 200, 250, 300, 350, 400)
    table = _alpha_effect("wine", ks)
    check = _check_closed_form(
        "wine", [("idp_cbls", 3, 0.01, 1.5), ("idp_cbls", 3, 0.01, 3.0)], reps=20
    )
    return (
        "Wine, iDP-CBLS, expected mean SSE (Eq. (5) as printed), ratio α = 3 / α = 1.5 "
        f"over 17 values of k in 3..400:\n\n{_fmt(table)}\n\nClosed form against a "
        f"seeded simulation (ε = 0.01 is noisy: a few clipped draws dominate):\n\n"
        f"{_fmt(check)}\n\n{_ALPHA_CONCLUSION}"
    )


# ---------------------------------------------------------------------------------------
# Figure 5: iDP-CBLS "only 3% and 10% worse" at ε = 0.1 and 0.01 (Census)


def _f_measure(ds: Dataset, method: str, params: dict[str, float], rep: int) -> dict[str, float]:
    release = make_method(method, params).protect(ds, np.random.default_rng([SEED, rep]))
    return forest_f_measure(ds, release, np.random.default_rng([SEED, rep, 1]))


def _jittered_census(alpha: float) -> Dataset:
    """Census with every value moved up by U(0, 1) (one dollar at most; seed SEED): no
    ties left, the class and every threshold on it practically unchanged."""
    base = _base("census_idp")
    frame = base.frame.copy()
    rng = np.random.default_rng(SEED)
    for name in base.protected:
        frame[name] = frame[name].astype(float) + rng.uniform(0, 1, len(frame))
    # the class as the data set holds it (its source column is read once, at loading)
    frame["ERNVAL"] = np.where(base.target.to_numpy() == ">30K", 30001.0, 0.0)
    return build_dataset(
        "census_idp_jittered",
        frame,
        list(base.protected),
        alpha=alpha,
        target={"column": "ERNVAL", "threshold": 30000, "labels": ["<=30K", ">30K"]},
    )


@investigation("idp_fig5_cbls_gap_eps01", "idp_fig5_cbls_gap_eps001")
@_timed
def cbls_census_gap() -> str:
    """iDP-CBLS's best F-measure on Census against the bound at ε = 0.1 and 0.01: FICA
    alone separates the classes; its ties (zero-sensitivity clusters) ruled out by jitter."""
    ds = _dataset("census_idp", 1.5)
    x, y = ds.protected_values, ds.target.to_numpy()
    split = train_size(ds.n)
    fica = ds.protected.index("FICA")
    from sklearn.metrics import f1_score

    rule = np.where(x[split:, fica] > 2362, ">30K", "<=30K")
    lines = {
        "original, all 9 attributes (forest, rep 0)": forest_f_measure(
            ds,
            make_method("original", {}).protect(ds, np.random.default_rng(0)),
            np.random.default_rng([SEED, 0, 1]),
        ),
        "original, the rule FICA > 2362 alone": dict(
            zip(
                ["<=30K", ">30K"],
                f1_score(y[split:], rule, labels=["<=30K", ">30K"], average=None),
                strict=True,
            )
        ),
    }
    base_table = pd.DataFrame(lines).T
    low, high = _bounds(ds)
    ties = []
    for data, label in ((ds, "Census"), (_jittered_census(1.5), "Census + U(0,1) jitter")):
        for k in (3, 5, 10, 30):
            _, scale = release_law(data, "idp_cbls", k, 0.01)
            ties.append(
                {
                    "data": label,
                    "k": k,
                    "FICA distinct values": len(np.unique(data.protected_values[:, fica])),
                    "FICA values with zero noise (any ε)": float(np.mean(scale[:, fica] == 0)),
                }
            )
    reps = 3
    rows = []
    for data, label in ((ds, "Census"), (_jittered_census(1.5), "Census + U(0,1) jitter")):
        for eps in (0.01, 0.1):
            for k in (3, 10, 30):
                scores = pd.DataFrame(
                    [
                        _f_measure(data, "idp_cbls", {"k": k, "epsilon": eps}, rep)
                        for rep in range(reps)
                    ]
                ).mean()
                rows.append(
                    {
                        "data": label,
                        "epsilon": eps,
                        "k": k,
                        "<=30K": scores["<=30K"],
                        ">30K": scores[">30K"],
                    }
                )
    runs = pd.DataFrame(rows).set_index(["data", "epsilon", "k"])
    bound = base_table.iloc[0]
    runs["<=30K / bound"] = runs["<=30K"] / bound["<=30K"]
    runs[">30K / bound"] = runs[">30K"] / bound[">30K"]
    return (
        f"Census, α = 1.5. F-measure on the original data:\n\n{_fmt(base_table)}\n\n"
        f"iDP-CBLS (Proposition 3, ties counted as the paper's example does): FICA values "
        f"whose cluster has Expression (1) = 0:\n\n{_fmt(pd.DataFrame(ties))}\n\n"
        f"Random forest on iDP-CBLS releases ({reps} seeded reps each; seeds "
        f"[{SEED}, rep] and [{SEED}, rep, 1]):\n\n{_fmt(runs)}\n\n"
        "Conclusion (unexplained; what was checked): the Census class is in effect a "
        "threshold on FICA (the one rule FICA > 2362, near 7.65% of 30,000 = 2295, scores "
        "the forest's own F-measure), and a forest recovers that one split from an "
        "iDP-CBLS release at k = 3, where each value is released at its cluster's median "
        "with noise scale 900 × the largest gap between neighbours: within 1% of the bound "
        "at ε = 0.1 and at ε = 0.01, in line with our stored run. We first suspected "
        "FICA's ties (at k = 3, 55% of its values sit in clusters of equal values, "
        "released with no noise at any ε). Breaking every tie by less than a dollar "
        "ruled them out: the F-measures are unchanged. Other readings do not give the "
        "paper's 3% and 10% either. At large k the F-measure falls far more (k = 30 at "
        "ε = 0.01: 19-44% worse), so neither a typical k nor the mean over k matches. "
        "ε on each attribute only lowers the noise. The paper does not give its "
        "forest's settings or its per-k values, so the gap is not traced to a cause."
    )


# ---------------------------------------------------------------------------------------
# Figure 6 (Wine): the majority class "Not Excellent" and the trivial classifier


def _trivial_f(ds: Dataset, label: str) -> float:
    """F-measure of ``label`` when every test record is predicted ``label``: 2p/(1+p)."""
    test = ds.target.to_numpy()[train_size(ds.n) :]
    p = float(np.mean(test == label))
    return 2 * p / (1 + p)


def _wine_runs(cells: Sequence[tuple[str, float, int, float]], reps: int) -> pd.DataFrame:
    rows = []
    for method, eps, k, alpha in cells:
        ds = _dataset("wine", alpha)
        scores = pd.DataFrame(
            [_f_measure(ds, method, {"k": k, "epsilon": eps}, rep) for rep in range(reps)]
        ).mean()
        rows.append(
            {
                "method": method,
                "epsilon": eps,
                "k": k,
                "alpha": alpha,
                "Excellent": scores["Excellent"],
                "Not Excellent": scores["Not Excellent"],
            }
        )
    return pd.DataFrame(rows).set_index(["method", "epsilon", "k", "alpha"])


def _wine_floor_ceiling() -> pd.DataFrame:
    ds = _dataset("wine", 1.5)
    original = pd.DataFrame(
        [
            forest_f_measure(
                ds,
                make_method("original", {}).protect(ds, np.random.default_rng(0)),
                np.random.default_rng([SEED, rep, 1]),
            )
            for rep in range(2)
        ]
    ).mean()
    return pd.DataFrame(
        {
            "original data (forest, 2 reps)": original,
            "predict 'Not Excellent' always": {
                "Excellent": 0.0,
                "Not Excellent": _trivial_f(ds, "Not Excellent"),
            },
        }
    ).T


_WINE_FLOOR = (
    "The forest on the original data scores below the trivial classifier that predicts "
    "'Not Excellent' for every record (F = 2p/(1+p), p = 0.78 the class's share of the "
    "1,666 test records). So the majority class's F-measure is not monotone in data "
    "quality: the more a release degrades the forest toward always predicting the "
    "majority, the higher 'Not Excellent' scores, up to 0.878, while 'Excellent' falls "
    "toward 0. Only the minority class's F-measure, or both classes read together as "
    "Fig. 6 shows them, tracks the quality of the release."
)


@investigation("idp_fig6_ls_better_small_alpha")
@_timed
def wine_ls_alpha() -> str:
    """iDP-LS on Wine at ε = 1, α = 1.5 against 3: each class's F-measure against the
    trivial majority classifier."""
    reps = 3
    cells = [("idp_ls", 1.0, k, a) for k in (100, 400) for a in ALPHAS]
    runs = _wine_runs(cells, reps)
    return (
        f"Wine, floor and ceiling:\n\n{_fmt(_wine_floor_ceiling())}\n\n"
        f"iDP-LS, ε = 1 ({reps} seeded reps per cell; seeds [{SEED}, rep] and "
        f"[{SEED}, rep, 1]):\n\n{_fmt(runs)}\n\n{_WINE_FLOOR}\n\nConclusion: the paper's "
        "'better for narrower domains' holds on 'Excellent' (α = 1.5 above α = 3) and "
        "fails only on 'Not Excellent', where the worse release (α = 3) is nearer the "
        "trivial classifier and so scores higher. At ε = 0.1 iDP-LS is the trivial "
        "classifier at almost every k for both α ('Excellent' about 0, 'Not Excellent' "
        "0.878), so the two α tie; the claim, judged on 'Excellent', counts those exact "
        "ties (F = 0 for both α) against a strict 'better'. Read on the minority class "
        "where the release carries information, our results agree with the paper."
    )


@investigation("idp_fig6_cbls_degrades_large_k")
@_timed
def wine_cbls_large_k() -> str:
    """iDP-CBLS on Wine, small against large k: each class's F-measure against the
    trivial majority classifier."""
    reps = 3
    cells = [("idp_cbls", eps, k, 1.5) for eps in (0.01, 1.0) for k in (5, 300)]
    runs = _wine_runs(cells, reps)
    ratio = runs.xs(300, level="k").droplevel("alpha") / runs.xs(5, level="k").droplevel("alpha")
    return (
        f"Wine, floor and ceiling:\n\n{_fmt(_wine_floor_ceiling())}\n\n"
        f"iDP-CBLS, α = 1.5 ({reps} seeded reps per cell; seeds [{SEED}, rep] and "
        f"[{SEED}, rep, 1]):\n\n{_fmt(runs)}\n\nk = 300 / k = 5:\n\n{_fmt(ratio)}\n\n"
        f"{_WINE_FLOOR}\n\nConclusion: 'Excellent' degrades from small to large k at "
        "every ε (by 2-30% here; in the stored run to 0.2-0.3 at ε = 0.01). 'Not "
        "Excellent' is held between the forest's bound (0.854) and the trivial "
        "classifier's 0.878, above it. On it the curves are flat within a few thousandths "
        "to 2%, and the sign of the change depends on the seeds: the stored run has +1% "
        "at ε = 0.01 and +0.2% at ε = 1, this run -0.5% and 0.0%. Read on the minority class "
        "(or on both classes together), the paper's 'degrade for large k' is what we find. "
        "On the majority class the F-measure cannot show degradation, because a degraded "
        "forest drifts toward the trivial classifier, which scores higher."
    )
