"""Cross-check anonlab's sdcMicro measures and methods against sdcMicro itself, run in R.

Usage: ``python benchmarks/crosschecks/crosscheck_sdcmicro.py [--repeats 200] [--seed 0]``

Needs ``Rscript`` with sdcMicro (and jsonlite, which sdcMicro imports) installed: in R's
default libraries, or in the library folder named by the environment variable
``ANONLAB_SDCMICRO_RLIB`` (``ANONLAB_RSCRIPT`` names another ``Rscript``). Without them the
script says what is missing and exits with status 2; it exits with 1 when a comparison
fails, 0 when all agree. sdcMicro is an R package, installed by hand (Debian has R and
most of its imports as ``r-cran-*``, not sdcMicro itself), so no environment is built for
it as for the Python libraries (:mod:`crosscheck_env`).

anonlab writes its inputs (CSV) to a folder, R reads them with sdcMicro, writes what it
measured as JSON (and its releases as CSV), and this script compares, on vendored data:

* ``measure_risk`` (individual risk per record, f_k, F_k, global risk as a count and a
  share) on Adult's 30,162 records with eight key variables, without weights and with the
  file's own weights (``fnlwgt``), and on Census's ``mdav`` (k = 5) release of the arena's
  eight quasi-identifiers: must agree to 1e-12;
* ``suda2`` scores against anonlab's SUDA at ``max_size = all`` (suda2 searches every
  size) on Adult with eight and with four key variables: scores and the number of records
  scored above 0 must agree exactly, and the DIS-SUDA scores (``disScore``, DisFraction
  0.01) to 1e-6: sdcMicro computes DIS in single precision;
* ``addNoise`` (``additive`` and ``correlated``, noise = 150) on Census's nine arena
  attributes: the noise's standard deviations (noise/100 · sd) and covariance
  (noise/100 · Σ) exactly, then the empirical moments of ``--repeats`` releases of each
  side against them, as z-scores (Gaussian noise: Var(e_i e_j) = Σ_ii Σ_jj + Σ_ij²);
  anonlab's ``draw`` is compared, before the release's clipping to the declared domains
  and rounding, which sdcMicro does not do;
* ``rankSwap`` (``TopPercent = BottomPercent = 0``; sdcMicro top- and bottom-codes 5 % of
  each column by default, anonlab never does) with p = 5 on Census's columns: each
  column's multiset of values kept, and the largest rank distance of a swap (bounded
  below through ties) against ⌊p·n/100⌋; then, on the ranks of Census's first column
  (distinct values), the exact largest distance and, with sdcMicro's window set to
  anonlab's, the mean displacement, mean squared displacement and share of records moved
  over ``--repeats`` releases of each;
* ``pram`` (pd = 0.8, α = 0.5) on Adult's occupation (14 categories) and native country
  (41): anonlab's invariant matrix built from the diagonal sdcMicro drew (R's ``runif``
  replayed from the same seed) against the matrix sdcMicro returns, exactly; then the
  transition counts of anonlab's draws with sdcMicro's matrix (``matrices``), and of
  sdcMicro's own releases (each with the matrix it drew and returned), over ``--repeats``
  / 10 releases each, as z-scores of the cells expecting at least 20 draws.

The sampling tests hold at a family-wise level of 0.001 (Bonferroni over each test's
z-scores); the deterministic ones when max |a − b| / max(1, |b|) ≤ 1e-12, the number the
table shows for them.

Two differences between sdcMicro's documentation and its code, which the table shows:
rankSwap's ``P`` is used as a fraction of n (``P = 5`` swaps across the whole column;
``P = 0.05`` is the documented 5 %), and its C++ swaps ranks less than P·n apart,
where its documentation, and anonlab, allow |i − j| ≤ P·n: one rank less.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from statistics import NormalDist

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

#: Adult's key variables for measure_risk and suda2 (the loader's columns, "-" as "_")
KEYS8 = [
    *("age", "workclass", "education", "marital_status"),
    *("occupation", "race", "sex", "native_country"),
]
KEYS4 = ["age", "hours_per_week", "occupation", "native_country"]
NOISE = 150.0
SWAP_P = 5.0
PD, ALPHA = 0.8, 0.5
PRAM_ATTRIBUTES = ("occupation", "native-country")
EXACT = 1e-12  # tolerance of max |a − b| / max(1, |b|), the deterministic comparisons
SINGLE = 1e-6  # the same for DIS-SUDA, which sdcMicro computes partly in single precision
FAMILY = 0.001  # family-wise level of the sampling tests (Bonferroni)
LEAST = 20  # the fewest expected draws of a PRAM cell tested

R_SIDE = r"""
folder <- commandArgs(trailingOnly = TRUE)[1]
suppressPackageStartupMessages(library(sdcMicro))
library(jsonlite)
m <- fromJSON(file.path(folder, "manifest.json"))
out <- list(version = as.character(packageVersion("sdcMicro")))
adult <- read.csv(file.path(folder, "adult.csv"), stringsAsFactors = FALSE)
census <- read.csv(file.path(folder, "census.csv"))
mdav <- read.csv(file.path(folder, "census_mdav.csv"))
risk <- function(d, keys, w = NULL) {
  r <- measure_risk(d, keyVars = keys, w = w)
  list(risk = r$Res[, 1], fk = r$Res[, 2], Fk = r$Res[, 3],
       global_risk = r$global_risk, global_risk_ER = r$global_risk_ER)
}
out$risk <- list(
  adult = risk(adult, m$keys8),
  adult_weighted = risk(adult, m$keys8, "fnlwgt"),
  census_mdav = risk(mdav, m$qi))
factors <- as.data.frame(lapply(adult, function(x) if (is.character(x)) factor(x) else x))
sudas <- list()
for (name in c("keys8", "keys4")) {
  s <- suppressWarnings(suda2(factors, variables = m[[name]]))
  sudas[[name]] <- list(score = s$score, dis = s$disScore)
}
out$suda <- sudas
x <- as.matrix(census)
noise <- list(sd = m$noise / 100 * apply(x, 2, sd), cov = m$noise / 100 * cov(x))
for (method in c("additive", "correlated")) {
  s <- matrix(0, ncol(x), ncol(x))
  for (r in seq_len(m$repeats)) {
    set.seed(r)
    e <- as.matrix(addNoise(census, noise = m$noise, method = method)$xm) - x
    s <- s + crossprod(e)
  }
  noise[[method]] <- s / (m$repeats * nrow(x))
}
out$noise <- noise
swapped <- lapply(seq_len(m$swap_runs), function(r)
  as.matrix(rankSwap(census, P = m$swap_p / 100, TopPercent = 0, BottomPercent = 0,
                     seed = r)))
write.csv(do.call(rbind, swapped), file.path(folder, "swapped.csv"), row.names = FALSE)
ranks <- data.frame(rank = m$ranks)
rank_runs <- function(P) sapply(seq_len(m$repeats), function(r)
  rankSwap(ranks, P = P, TopPercent = 0, BottomPercent = 0, seed = r)$rank)
write.csv(rank_runs(m$swap_p / 100), file.path(folder, "ranks_documented.csv"), row.names = FALSE)
write.csv(rank_runs(m$swap_matched), file.path(folder, "ranks_matched.csv"), row.names = FALSE)
pr <- list()
for (v in names(m$pram)) {
  levs <- as.character(seq_len(m$pram[[v]]$size) - 1)
  d <- data.frame(x = factor(as.character(m$pram[[v]]$codes), levels = levs))
  set.seed(1)
  diagonal <- runif(length(levs), min = m$pd, max = 1)
  counts <- matrix(0, length(levs), length(levs))
  expected <- counts
  variance <- counts
  for (r in seq_len(m$pram_runs)) {
    set.seed(r)
    res <- pram(d, variables = "x", pd = m$pd, alpha = m$alpha)
    Rs <- unclass(attr(res, "pram_params")$x$Rs)
    if (r == 1) first <- Rs
    counts <- counts + unclass(table(factor(res$x, levels = levs),
                                     factor(res$x_pram, levels = levs)))
    rows <- as.numeric(table(d$x))
    expected <- expected + rows * Rs
    variance <- variance + rows * Rs * (1 - Rs)
  }
  pr[[v]] <- list(diagonal = diagonal, Rs = first, counts = counts, expected = expected,
                  variance = variance)
}
out$pram <- pr
write_json(out, file.path(folder, "sdcmicro.json"), digits = NA, auto_unbox = TRUE,
           matrix = "rowmajor")
"""


class Missing(Exception):
    """R or sdcMicro is not available."""


def rscript() -> tuple[str, dict[str, str]]:
    """The ``Rscript`` to run and its environment; :class:`Missing` when R or sdcMicro
    is not there."""
    found = os.environ.get("ANONLAB_RSCRIPT") or shutil.which("Rscript")
    if not found:
        raise Missing("Rscript is not on PATH (set ANONLAB_RSCRIPT to an Rscript)")
    env = dict(os.environ)
    library = os.environ.get("ANONLAB_SDCMICRO_RLIB")
    if library:
        env["R_LIBS"] = os.pathsep.join(p for p in (library, env.get("R_LIBS")) if p)
    probe = (
        "suppressPackageStartupMessages(library(sdcMicro)); library(jsonlite); "
        'cat(as.character(packageVersion("sdcMicro")))'
    )
    try:
        result = subprocess.run(
            [found, "-e", probe], capture_output=True, text=True, env=env, check=False
        )
    except OSError as error:
        raise Missing(f"cannot run {found}: {error.strerror}") from None
    if result.returncode != 0:
        lines = result.stderr.strip().splitlines() or [""]
        cause = next((line for line in lines if line.startswith("Error")), lines[-1])
        raise Missing(
            f"{found} cannot load sdcMicro and jsonlite (R_LIBS={env.get('R_LIBS', '')!r}; "
            f"set ANONLAB_SDCMICRO_RLIB to the library holding them): {cause}"
        )
    return found, env


def load(name: str, *overrides: str):
    """Data set ``name`` (a ``conf/dataset`` config), with Hydra ``overrides``."""
    from anonlab.config import compose_config
    from anonlab.datasets import load_dataset

    return load_dataset(compose_config(f"dataset={name}", *overrides)["dataset"])


def bonferroni(tests: int) -> float:
    """The two-sided z beyond which one of ``tests`` z-scores is significant at
    :data:`FAMILY`."""
    return NormalDist().inv_cdf(1 - FAMILY / (2 * max(tests, 1)))


def moment_z(second, sigma, draws: int):
    """z-scores of the empirical second moments ``second`` of ``draws`` Gaussian noise
    vectors against their covariance ``sigma``: (Ŝ_ij − Σ_ij) / √((Σ_ii Σ_jj + Σ_ij²)/N)."""
    import numpy as np

    d = np.sqrt(np.diag(sigma))
    return (second - sigma) / np.sqrt((np.outer(d, d) ** 2 + sigma**2) / draws)


def rank_bounds(values):
    """Per value of a column sorted from the largest: the first and last 0-based rank its
    ties occupy (``lo``, ``hi``), as functions of a value."""
    import numpy as np

    descending = np.sort(values)[::-1]
    ascending = descending[::-1]

    def lo(v):
        return len(values) - np.searchsorted(ascending, v, side="right")

    def hi(v):
        return len(values) - np.searchsorted(ascending, v, side="left") - 1

    return lo, hi


def rank_distance_bound(original, released):
    """The least rank distance each record's value can have moved, whatever order ties
    take (0 for a value kept)."""
    import numpy as np

    lo, hi = rank_bounds(original)
    down = released < original  # moved to a larger rank (sorted from the largest)
    bound = np.zeros(len(original), dtype=np.int64)
    bound[down] = lo(released[down]) - hi(original[down])
    up = released > original
    bound[up] = lo(original[up]) - hi(released[up])
    return bound


def cell_z(observed, expected, variance):
    """z-scores of transition counts ``observed`` against ``expected`` with ``variance``
    (Σ over releases of n_x·P[x, y]·(1 − P[x, y])), in the cells expecting at least
    :data:`LEAST` draws, where the normal approximation holds."""
    import numpy as np

    keep = expected >= LEAST
    return (observed[keep] - expected[keep]) / np.sqrt(variance[keep])


def anonlab_side(repeats: int, seed: int) -> int:  # noqa: PLR0915 (one table, in order)
    """Write the inputs, run sdcMicro, compare; the number of comparisons that fail."""
    import numpy as np
    import pandas as pd

    from anonlab.methods import make_method
    from anonlab.methods.noise import AdditiveNoise, CorrelatedNoise
    from anonlab.methods.pram import Pram, categories, invariant_matrix
    from anonlab.methods.rank_swap import rank_swap, window
    from anonlab.metrics import get_metric
    from anonlab.metrics.disclosure import measure_risk
    from anonlab.metrics.suda import DIS_FRACTION, dis_suda, suda

    program, env = rscript()
    rng = np.random.default_rng(seed)
    adult = load("adult")
    frame = adult.frame.copy()
    frame.columns = [str(c).replace("-", "_") for c in frame.columns]
    frame["fnlwgt"] = frame["fnlwgt"].astype(float)
    frame = frame[sorted(set(KEYS8 + KEYS4)) + ["fnlwgt"]]
    census = load("census_arena")
    qi = [a.name for a in census.protected_attributes if a.role == "quasi_identifier"]
    mdav = make_method("mdav", {"k": 5}).release(census, np.random.default_rng(0))
    values = census.protected_values
    n = census.n
    width = window(SWAP_P, n)
    ranks = np.empty(n, dtype=np.int64)  # Census's first column ranked, ties in record order
    ranks[np.argsort(values[:, 0], kind="stable")] = np.arange(1, n + 1)
    pram_view = load("adult", f"dataset.attributes=[{','.join(PRAM_ATTRIBUTES)}]")
    pram_runs = max(repeats // 10, 2)
    codes = {
        a.name: pram_view.protected_values[:, j]
        for j, a in enumerate(pram_view.protected_attributes)
    }
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        frame.to_csv(folder / "adult.csv", index=False)
        pd.DataFrame(values, columns=list(census.protected)).to_csv(
            folder / "census.csv", index=False, float_format="%.17g"
        )
        mdav.frame[qi].to_csv(folder / "census_mdav.csv", index=False, float_format="%.17g")
        manifest = {
            "keys8": KEYS8,
            "keys4": KEYS4,
            "qi": qi,
            "noise": NOISE,
            "repeats": repeats,
            "swap_runs": 20,
            "swap_p": SWAP_P,
            "swap_matched": (width + 1.5) / n,  # sdcMicro swaps ranks < ⌊(w + 1.5)⌋ = w + 1 apart
            "ranks": ranks.tolist(),
            "pd": PD,
            "alpha": ALPHA,
            "pram_runs": pram_runs,
            "pram": {
                name: {
                    "size": len(categories(pram_view.attribute(name))),
                    "codes": c.astype(int).tolist(),
                }
                for name, c in codes.items()
            },
        }
        (folder / "manifest.json").write_text(json.dumps(manifest))
        script = folder / "sdcmicro_side.R"
        script.write_text(R_SIDE)
        subprocess.run([program, str(script), str(folder)], check=True, env=env)
        theirs = json.loads((folder / "sdcmicro.json").read_text())
        swapped = pd.read_csv(folder / "swapped.csv").to_numpy(dtype=float)
        documented = pd.read_csv(folder / "ranks_documented.csv").to_numpy(dtype=float)
        matched = pd.read_csv(folder / "ranks_matched.csv").to_numpy(dtype=float)

    rows: list[tuple[str, str, str, bool]] = []  # measure, largest difference, verdict, ok

    def exact(label: str, mine, other, tolerance: float = EXACT) -> None:
        mine, other = np.asarray(mine, dtype=float), np.asarray(other, dtype=float)
        if mine.shape != other.shape:
            rows.append((label, f"shapes {mine.shape} ≠ {other.shape}", "DIFFER", False))
            return
        gap = float(np.max(np.abs(mine - other) / np.maximum(1.0, np.abs(other))))
        ok = gap <= tolerance
        rows.append((label, f"{gap:.2g}", "agree" if ok else "DIFFER", ok))

    def sampled(label: str, z, tests: int) -> None:
        worst = float(np.max(np.abs(z)))
        bound = bonferroni(tests)
        ok = worst <= bound
        verdict = f"within sampling error (|z| ≤ {bound:.2f})" if ok else f"|z| > {bound:.2f}"
        rows.append((label, f"|z| = {worst:.2f}", verdict, ok))

    # measure_risk
    cases = {
        "adult": (frame, KEYS8, None),
        "adult_weighted": (frame, KEYS8, "fnlwgt"),
        "census_mdav": (mdav.frame[qi], qi, None),
    }
    for name, (data, keys, weights) in cases.items():
        ours, other = measure_risk(data, keys, weights), theirs["risk"][name]
        tag = f"measure_risk {name}"
        exact(f"{tag}: risk per record", ours.risk, other["risk"])
        exact(f"{tag}: f_k, F_k", np.r_[ours.fk, ours.Fk], np.r_[other["fk"], other["Fk"]])
        exact(
            f"{tag}: global risk (count, share)",
            [ours.global_risk_ER, ours.global_risk],
            [other["global_risk_ER"], other["global_risk"]],
        )
    exact(
        "individual_risk, global_risk metrics (census mdav)",
        [
            get_metric("individual_risk").of_release(census, mdav),
            get_metric("global_risk").of_release(census, mdav),
        ],
        [max(theirs["risk"]["census_mdav"]["risk"]), theirs["risk"]["census_mdav"]["global_risk"]],
    )

    # suda2
    for name, keys in (("keys8", KEYS8), ("keys4", KEYS4)):
        ours, other = suda(frame, keys, "all"), theirs["suda"][name]
        score = np.asarray(other["score"], dtype=float)
        exact(f"suda2 adult {len(keys)} keys: score per record", ours.score, score)
        exact(
            f"suda2 adult {len(keys)} keys: records scored > 0",
            ours.special_unique.sum(),
            (score > 0).sum(),
        )
        exact(
            f"suda2 adult {len(keys)} keys: DIS > 0 ⇔ score > 0",
            (np.asarray(other["dis"]) > 0).sum(),
            (score > 0).sum(),
        )
        exact(
            f"suda2 adult {len(keys)} keys: DIS-SUDA score per record (DisFraction 0.01)",
            dis_suda(ours, DIS_FRACTION),
            np.asarray(other["dis"], dtype=float),
            SINGLE,
        )

    # addNoise
    noise = theirs["noise"]
    additive, correlated = AdditiveNoise(noise=NOISE), CorrelatedNoise(noise=NOISE)
    exact("addNoise additive: noise sd = noise/100 · sd", additive.sigma(census), noise["sd"])
    exact(
        "addNoise correlated: noise cov = noise/100 · Σ",
        correlated.covariance(census),
        noise["cov"],
    )
    draws = repeats * n
    m = values.shape[1]
    for method, target in (
        (additive, np.diag(additive.sigma(census) ** 2)),
        (correlated, correlated.covariance(census)),
    ):
        kind = "additive" if method is additive else "correlated"
        second = np.zeros((m, m))
        for _ in range(repeats):
            e = method.draw(census, rng)
            second += e.T @ e
        mine = moment_z(second / draws, target, draws)
        other = moment_z(np.asarray(noise[kind]), target, draws)
        cells = m * (m + 1) // 2
        upper = np.triu_indices(m)
        sampled(f"addNoise {kind}: anonlab's noise moments", mine[upper], cells)
        sampled(f"addNoise {kind}: sdcMicro's noise moments", other[upper], cells)

    # rankSwap on Census's values
    runs = len(swapped) // n
    ours_bound = other_bound = 0
    kept = True
    for r in range(runs):
        released = swapped[r * n : (r + 1) * n]
        mine = np.column_stack([rank_swap(values[:, j], SWAP_P, rng) for j in range(m)])
        for j in range(m):
            kept &= np.array_equal(np.sort(mine[:, j]), np.sort(values[:, j]))
            kept &= np.array_equal(np.sort(released[:, j]), np.sort(values[:, j]))
            ours_bound = max(ours_bound, rank_distance_bound(values[:, j], mine[:, j]).max())
            other_bound = max(other_bound, rank_distance_bound(values[:, j], released[:, j]).max())
    rows.append(
        (
            f"rankSwap census: multiset per column ({runs} runs each)",
            "0 columns changed" if kept else "some changed",
            "agree" if kept else "DIFFER",
            kept,
        )
    )
    ok = ours_bound <= width and other_bound <= width
    rows.append(
        (
            f"rankSwap census: largest rank distance, bounded through ties (w = {width})",
            f"anonlab {ours_bound}, sdcMicro {other_bound}",
            "both ≤ w" if ok else "beyond w",
            ok,
        )
    )
    # on ranks: exact distances
    mine = np.column_stack([rank_swap(ranks.astype(float), SWAP_P, rng) for _ in range(repeats)])
    ours_max = int(np.abs(mine - ranks[:, None]).max())
    other_max = int(np.abs(documented - ranks[:, None]).max())
    ok = ours_max == width and other_max == width - 1
    rows.append(
        (
            f"rankSwap ranks P = {SWAP_P / 100:g}: largest distance",
            f"anonlab {ours_max} (≤ w), sdcMicro {other_max} (< w)",
            "known: sdcMicro's C++ keeps |i − j| < P·n" if ok else "unexpected",
            ok,
        )
    )
    # on ranks, sdcMicro's window set to anonlab's: displacement distribution
    other_max = int(np.abs(matched - ranks[:, None]).max())
    rows.append(
        (
            "rankSwap ranks, matched window: largest distance",
            f"anonlab {ours_max}, sdcMicro {other_max}",
            "agree" if ours_max == other_max else "DIFFER",
            ours_max == other_max,
        )
    )
    stats = {
        "mean |Δrank|": lambda d: np.abs(d).mean(axis=0),
        "mean Δrank²": lambda d: (d**2).mean(axis=0),
        "share moved": lambda d: (d != 0).mean(axis=0),
    }
    for label, stat in stats.items():
        a, b = stat(mine - ranks[:, None]), stat(matched - ranks[:, None])
        spread = math.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b))
        z = (
            (a.mean() - b.mean()) / spread
            if spread
            else (0.0 if a.mean() == b.mean() else math.inf)
        )
        sampled(
            f"rankSwap ranks, matched window: {label} ({a.mean():.4g} vs {b.mean():.4g})",
            np.array([z]),
            len(stats),
        )

    # pram
    for name in PRAM_ATTRIBUTES:
        other = theirs["pram"][name]
        attribute = pram_view.attribute(name)
        size = len(categories(attribute))
        counts = np.bincount(codes[name].astype(int), minlength=size).astype(float)
        rs = np.asarray(other["Rs"], dtype=float)
        built = invariant_matrix(
            np.asarray(other["diagonal"], dtype=float), ALPHA, counts / counts.sum()
        )
        exact(f"pram {name}: invariant matrix from sdcMicro's diagonal", built, rs)
        method = Pram(
            pd=PD,
            pram_alpha=ALPHA,
            matrices={
                n_: rs if n_ == name else np.eye(len(categories(pram_view.attribute(n_))))
                for n_ in PRAM_ATTRIBUTES
            },
        )
        column = list(pram_view.protected).index(name)
        table = np.zeros((size, size))
        for _ in range(pram_runs):
            released = method.release(pram_view, rng).values[:, column].astype(int)
            np.add.at(table, (codes[name].astype(int), released), 1)
        expected = pram_runs * counts[:, None] * rs
        variance = pram_runs * counts[:, None] * rs * (1 - rs)
        for who, observed, wanted, spread in (
            ("anonlab's", table, expected, variance),
            (
                "sdcMicro's",
                *(np.asarray(other[k], dtype=float) for k in ("counts", "expected", "variance")),
            ),
        ):
            z = cell_z(observed, wanted, spread)
            seen = wanted.sum(axis=1)
            busy = seen >= 1000
            gap = np.abs(observed[busy] - wanted[busy]) / seen[busy, None]
            bound = bonferroni(len(z))
            ok = float(np.abs(z).max()) <= bound
            rows.append(
                (
                    f"pram {name}: {who} draws ({pram_runs} runs) vs matrix",
                    f"{gap.max():.2g} (rows ≥ 1000 draws); |z| = {np.abs(z).max():.2f}",
                    f"within sampling error (|z| ≤ {bound:.2f}, {len(z)} cells)"
                    if ok
                    else f"|z| > {bound:.2f}",
                    ok,
                )
            )

    print(
        f"sdcMicro {theirs['version']} (R) against anonlab, on Adult (30,162 records) "
        f"and Census's arena attributes (1,080)"
    )
    width_label = max(len(r[0]) for r in rows)
    width_gap = max(len(r[1]) for r in rows)
    print(f"{'measure':<{width_label}}  {'largest difference':<{width_gap}}  verdict")
    for label, gap, verdict, _ in rows:
        print(f"{label:<{width_label}}  {gap:<{width_gap}}  {verdict}")
    failed = sum(not ok for *_, ok in rows)
    print(f"{failed} of {len(rows)} comparisons fail")
    return failed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=200, help="releases per sampling test")
    parser.add_argument("--seed", type=int, default=0, help="anonlab's generator")
    args = parser.parse_args()
    try:
        failed = anonlab_side(args.repeats, args.seed)
    except Missing as missing:
        print(f"crosscheck_sdcmicro: not run: {missing}", file=sys.stderr)
        sys.exit(2)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
