"""Investigations of tcm claims (see :mod:`anonlab.experiments.investigations`).

All runs are deterministic (TCM's Algorithms 1–3 draw no randomness); the only seeded step is
the decorrelation check of :func:`sse_orderings`, which permutes the confidential attribute
with ``numpy.random.default_rng(0)``.
"""

from __future__ import annotations

import itertools
from functools import cache

import numpy as np
import pandas as pd
import yaml

from anonlab.catalog import CONF_DIR
from anonlab.datasets import load_dataset
from anonlab.experiments.investigations import investigation
from anonlab.experiments.tcm import PAPER_TABLES
from anonlab.tcloseness.emd import OrderedEMD, proposition_1_bound
from anonlab.tcloseness.kfirst import tclose_kfirst
from anonlab.tcloseness.merge import tclose_merge
from anonlab.tcloseness.tfirst import tclose_tfirst, tfirst_cluster_size

#: our data set config → (the paper's label, confidential attribute)
CENSUS = {"census_mcd": ("MCD", "FEDTAX"), "census_hcd": ("HCD", "FICA")}
ALGORITHMS = {"alg1": tclose_merge, "alg2": tclose_kfirst, "alg3": tclose_tfirst}


@cache
def _census(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Quasi-identifiers (TAXINC, POTHVAL) and confidential attribute of ``name``."""
    with open(CONF_DIR / "dataset" / f"{name}.yaml", encoding="utf-8") as handle:
        frame = load_dataset(yaml.safe_load(handle)).frame
    qi = frame[["TAXINC", "POTHVAL"]].to_numpy(dtype=float)
    return qi, frame[CENSUS[name][1]].to_numpy(dtype=float)


def _sizes(labels: np.ndarray) -> tuple[int, float]:
    """Smallest and mean cluster size of a partition."""
    counts = np.bincount(labels)
    counts = counts[counts > 0]
    return int(counts.min()), len(labels) / len(counts)


def _sse(qi: np.ndarray, labels: np.ndarray) -> float:
    """TCM Eq. (5) as ``sse_tcm`` computes it: QIs replaced by cluster means, differences
    divided by the original standard deviation, squared, averaged over QIs and records."""
    sums = np.zeros((labels.max() + 1, qi.shape[1]))
    np.add.at(sums, labels, qi)
    means = sums / np.bincount(labels)[:, None]
    return float(np.mean(((qi - means[labels]) / qi.std(axis=0)) ** 2))


def _cell(size: tuple[int, float]) -> str:
    """A "min/avg" cell."""
    return f"{size[0]}/{size[1]:.1f}"


def _paper(table: int, label: str, k: int, t: float) -> str:
    """The paper's "min/avg" cell of Table ``table``."""
    low, mean = PAPER_TABLES[table][label][(k, t)]
    return f"{low}/{mean:.0f}"


# --- Tables 1 and 2: the merge step --------------------------------------------------------


@investigation("tcm_table1_cells", "tcm_table2_cells")
def merge_snowball() -> str:
    """Algorithm 1's merge loop on our Census: cells beside the paper's under both EMD
    grounds, the largest merged cluster, and the size a confidential-tail cluster needs."""
    n = 1080
    cells = []
    for name, (label, _) in CENSUS.items():
        qi, conf = _census(name)
        for k, t in itertools.product((2, 10), (0.05, 0.13, 0.25)):
            row = {"data": label, "k": k, "t": t}
            for number, alg in ((1, "alg1"), (2, "alg2")):
                row[f"T{number} paper"] = _paper(number, label, k, t)
                for ground in ("distinct", "rank"):
                    labels = ALGORITHMS[alg](qi, conf, k, t, ground=ground)
                    row[f"T{number} {ground}"] = _cell(_sizes(labels))
            cells.append(row)
    cells_frame = pd.DataFrame(cells)

    tails = []
    for name, (label, _) in CENSUS.items():
        qi, conf = _census(name)
        emd = OrderedEMD(conf)
        ranks = np.argsort(np.argsort(conf, kind="stable"), kind="stable")
        for t in (0.05, 0.13, 0.25):
            # smallest lower tail (by confidential rank) that is t-close
            need = next(
                m for m in range(1, n + 1) if emd.of_records(np.flatnonzero(ranks < m)) <= t
            )
            labels = tclose_merge(qi, conf, 2, t)
            counts = np.bincount(labels)
            big = labels == counts.argmax()
            span = ranks[big].max() - ranks[big].min() + 1
            low, mean = PAPER_TABLES[1][label][(2, t)]
            clusters = round(n / mean)
            tails.append(
                {
                    "data": label,
                    "t": t,
                    "(1-2t)n": round((1 - 2 * t) * n),
                    "t-close lower tail needs": need,
                    "ours k=2: largest cluster": int(counts.max()),
                    "its rank span": f"{ranks[big].min()}-{ranks[big].max()}",
                    "share of span": round(big.sum() / span, 2),
                    "paper k=2: clusters": clusters,
                    "paper k=2: largest ≤": n - (clusters - 1) * low,
                }
            )
    tails_frame = pd.DataFrame(tails)
    corr = {
        CENSUS[name][1]: np.corrcoef(_census(name)[0][:, 0], _census(name)[1])[0, 1]
        for name in CENSUS
    }
    return (
        "Our Algorithm 1 (T1) and Algorithm 2 + merging (T2) under the text's EMD ground "
        "(distinct values) and the rank ground, beside the paper's cells (min/avg):\n\n"
        + cells_frame.to_string(index=False)
        + "\n\nA cluster holding the lowest share f of the confidential ranks has EMD "
        "(1 - f)/2, so a merge that keeps growing a tail must reach about (1 - 2t)n "
        "records; our largest merged cluster vs. the largest the paper's k = 2 cells allow "
        "(n - (c - 1)·min, c = n/avg clusters):\n\n"
        + tails_frame.to_string(index=False)
        + f"\n\nPearson r with TAXINC: FEDTAX {corr['FEDTAX']:.3f}, FICA {corr['FICA']:.3f}."
        "\n\nConclusion: the merge loop as §5 states it (the cluster of greatest EMD absorbs "
        "its QI-nearest cluster) snowballs on our Census. On MCD, where FEDTAX follows TAXINC, "
        "the worst cluster sits at the low end of the confidential ranks and its QI "
        "neighbours extend that tail, which stays the worst cluster until it holds about "
        "(1 - 2t)n records (k = 2, t = 0.25: a cluster of 502 records, 78 % of ranks 0-639, "
        "EMD 0.249); for t <= 0.17 everything ends in one cluster. On HCD the loop collapses "
        "to one cluster for t <= 0.13 at k = 2. The "
        "paper's cells exclude such a tail (k = 2, t = 0.05 MCD: 9 clusters with min 56, so "
        "none above 632 records, where a t-close tail needs ~970). The rank ground does not "
        "change this (Table 1: 20 matches under both grounds, Table 2: 11 vs 13); in "
        "exploration, a value-based ground distance, unstandardised centroid distances, "
        "merging every non-t-close cluster once per pass, and swapping the MCD/HCD labels "
        "(19 and 9 matches) did not reproduce the paper's sizes either. Which merge rule or "
        "data produced the paper's Tables 1-2 remains unexplained."
    )


# --- Table 2 against Table 1 ---------------------------------------------------------------


@investigation("tcm_table2_smaller_than_alg1")
def table2_ties() -> str:
    """The four cells where Algorithm 2 is not below Algorithm 1: both end in one
    cluster; Proposition 1 says why the merge step decides them."""
    n = 1080
    s_min = next(s for s in range(1, n + 1) if proposition_1_bound(n, s) <= 0.01)
    rows = []
    for name, (label, _) in CENSUS.items():
        qi, conf = _census(name)
        for k in (2, 5, 10):
            rows.append(
                {
                    "data": label,
                    "k": k,
                    "t": 0.01,
                    "Prop. 1 min EMD of a k-cluster": round(proposition_1_bound(n, k), 4),
                    "alg1 ours": _cell(_sizes(tclose_merge(qi, conf, k, 0.01))),
                    "alg2 ours": _cell(_sizes(tclose_kfirst(qi, conf, k, 0.01))),
                    "alg1 paper": _paper(1, label, k, 0.01),
                    "alg2 paper": _paper(2, label, k, 0.01),
                }
            )
    return (
        pd.DataFrame(rows).to_string(index=False)
        + f"\n\nSmallest cluster that can be 0.01-close at all (Proposition 1): {s_min} "
        "records.\n\nConclusion: the 4 opposite cells are ties, not reversals: at t = 0.01 "
        "and k = 2 or 5 both our algorithms end with all 1,080 records in one cluster "
        "(1080/1080 = 1080/1080). No cluster of k <= 5 records can be 0.01-close (Proposition 1 "
        f"needs at least {s_min}), so Algorithm 2's swaps cannot reach t and the outcome is "
        "decided entirely by the merge loop of Algorithm 1, which Algorithm 2 uses (§6); on "
        "our data that loop snowballs into one cluster (see tcm_table1_cells). From k = 10 "
        "on it does not, and Algorithm 2 is below Algorithm 1 in every other cell (94 of 98). "
        "The paper's Algorithm 2 reaches 164/216 and 40/64 at these cells; why its merge "
        "did not snowball is the open question of tcm_table1_cells."
    )


# --- Table 2: HCD against MCD --------------------------------------------------------------


@investigation("tcm_table2_hcd_larger")
def table2_hcd_larger() -> str:
    """Algorithm 2's average cluster size on HCD over MCD across Table 2's (k, t) grid,
    under the text's EMD ground (distinct values) and the rank ground, beside the paper's."""
    ks, ts = (2, 5, 10, 15, 20, 25, 30), (0.01, 0.05, 0.09, 0.13, 0.17, 0.21, 0.25)
    rows = []
    for ground in ("distinct", "rank", "paper"):
        means = {}
        for name, (label, _) in CENSUS.items():
            if ground == "paper":
                cells = [PAPER_TABLES[2][label][(k, t)][1] for k in ks for t in ts]
            else:
                qi, conf = _census(name)
                cells = [
                    _sizes(tclose_kfirst(qi, conf, k, t, ground=ground))[1] for k in ks for t in ts
                ]
            means[label] = np.asarray(cells, dtype=float)
        rows.append(
            {
                "ground": ground,
                "mean avg size MCD": means["MCD"].mean(),
                "mean avg size HCD": means["HCD"].mean(),
                "HCD / MCD (claim >= 1)": means["HCD"].mean() / means["MCD"].mean(),
                "cells HCD > MCD": int((means["HCD"] > means["MCD"]).sum()),
                "cells HCD < MCD": int((means["HCD"] < means["MCD"]).sum()),
                "cells": len(means["MCD"]),
            }
        )
    frame = pd.DataFrame(rows)
    distinct, rank = frame.iloc[0], frame.iloc[1]
    return (
        "Algorithm 2 (k-anonymity first, then merging), average cluster size over the 49 "
        "(k, t) cells of Table 2, ours under both EMD ground distances and the paper's:\n\n"
        + frame.to_string(index=False, float_format="%.4g")
        + "\n\nConclusion (cause: reading): the claim is a statement about the whole table, "
        "and its verdict turns on the EMD ground distance, which §3 leaves open between the "
        "confidential attribute's distinct values (the text's reading) and the ranks of the "
        "n records (the proofs of Propositions 1-2, reading rank_ground). Under the "
        f"distinct-value ground HCD / MCD is {distinct['HCD / MCD (claim >= 1)']:.3g}; under "
        f"the rank ground it is {rank['HCD / MCD (claim >= 1)']:.3g}. Both grounds feed the "
        "merge loop of Algorithm 1 that Algorithm 2 ends with, whose snowballing on our "
        "Census (tcm_table1_cells) sets most of the mean; the paper's own Table 2 has HCD "
        "larger."
    )


# --- Table 3 against Table 2 ---------------------------------------------------------------


@investigation("tcm_table3_smaller_than_alg2")
def table3_ties() -> str:
    """Where Algorithm 3's average size cannot be strictly below Algorithm 2's, in the
    paper's own Tables 2-3 and in ours."""
    n = 1080
    paper = []
    for label in ("MCD", "HCD"):
        for (k, t), (low2, mean2) in sorted(PAPER_TABLES[2][label].items()):
            low3, mean3 = PAPER_TABLES[3][label][(k, t)]
            if mean3 >= mean2:
                size = tfirst_cluster_size(n, k, t)
                paper.append(
                    {
                        "data": label,
                        "k": k,
                        "t": t,
                        "paper T2": f"{low2}/{mean2:.0f}",
                        "paper T3": f"{low3}/{mean3:.0f}",
                        "alg3 exact avg": round(n / (n // size), 3),
                        "T2 avg >= min": low2,
                    }
                )
    paper_frame = pd.DataFrame(paper)
    ours = []
    for name, (label, _) in CENSUS.items():
        qi, conf = _census(name)
        for k, t in ((2, 0.17), (2, 0.21), (5, 0.25), (10, 0.25), (30, 0.25)):
            ours.append(
                {
                    "data": label,
                    "k": k,
                    "t": t,
                    "k'": tfirst_cluster_size(n, k, t),
                    "alg2 ours": _cell(_sizes(tclose_kfirst(qi, conf, k, t))),
                    "alg3 ours": _cell(_sizes(tclose_tfirst(qi, conf, k, t))),
                    "Prop. 1 min EMD of k": round(proposition_1_bound(n, k), 3),
                }
            )
    return (
        "Paper's own cells where Table 3's printed average is not below Table 2's (printed "
        "averages are integers; Table 2's true average is at least its minimum):\n\n"
        + paper_frame.to_string(index=False)
        + "\n\nOurs at some of the 21 opposite cells:\n\n"
        + pd.DataFrame(ours).to_string(index=False)
        + "\n\nConclusion: 'always smaller' cannot hold strictly wherever Algorithm 3's "
        "cluster size is k itself: every cluster of Algorithm 2 has at least k records, so its "
        "average is at least k. The paper's own tables show ties: HCD k = 5, t = 0.05 (Table 2 "
        "10/10, so its average is >= 10, against exactly 10) and HCD k = 2, t = 0.13 (4/4 "
        "against exactly 4) are ties or reversals, and 6 more cells print equal averages "
        "(k = 2, t = 0.05 MCD; t = 0.17, 0.21 both sets; HCD k = 20, t = 0.01: 40/49 against "
        "49/49). Table 3 prints k in 70 of 98 cells, where strict '<' needs "
        "Table 2 to merge somewhere in every such cell. Of our 21 opposite cells, 18 are "
        "such ties (both exactly k, or k = 25 with 43 clusters, 25.116); the other 3 are k = "
        "2 (MCD t = 0.21, HCD t = 0.17, 0.21), where Expression (3) forces k' = 3 although "
        "pairs can be t-close (Proposition 1: 0.125 <= t), so Algorithm 2 averages 2.4-2.6 < "
        "3; the paper prints 2/3 against 3/3 there too."
    )


# --- Figure 7: Algorithm 3 against k ---------------------------------------------------------


@investigation("tcm_fig7_alg3_rises_most")
def alg3_against_k() -> str:
    """Algorithm 3's SSE over k = 2..30 on MCD: the cluster size k' and remainder drive
    the non-monotone steps."""
    n = 1080
    qi, conf = _census("census_mcd")
    rows, summary = [], []
    for t in (0.04, 0.12, 0.25):
        sse = {}
        for k in range(2, 31):
            labels = tclose_tfirst(qi, conf, k, t)
            sse[k] = _sse(qi, labels)
            size = tfirst_cluster_size(n, k, t)
            rows.append(
                {
                    "t": t,
                    "k": k,
                    "k'": size,
                    "n mod k'": n % size,
                    "sizes": _cell(_sizes(labels)),
                    "sse": round(sse[k], 4),
                }
            )
        pairs = [(a, b) for a, b in itertools.combinations(range(2, 31), 2)]
        down = [(a, b) for a, b in pairs if sse[b] < sse[a]]
        adjacent = [(k, k + 1) for k in range(2, 30) if sse[k + 1] < sse[k]]
        summary.append(
            {
                "t": t,
                "pairs": len(pairs),
                "against": len(down),
                "tied (same k')": sum(sse[a] == sse[b] for a, b in pairs),
                "largest drop": round(max((sse[a] - sse[b] for a, b in down), default=0.0), 4),
                "k=2 -> k=30": f"{sse[2]:.3f} -> {sse[30]:.3f}",
                "adjacent drops (k -> k+1: n mod k', n mod k'+1)": ", ".join(
                    f"{a}->{b}: {n % tfirst_cluster_size(n, a, t)},"
                    f"{n % tfirst_cluster_size(n, b, t)}"
                    for a, b in adjacent
                ),
            }
        )
    detail = pd.DataFrame(rows)
    detail = detail[(detail["t"] == 0.04) & detail["k"].between(12, 20)]
    return (
        "Algorithm 3 on MCD, k = 2..30, three of the 13 t (0.04, 0.12, 0.25; 87 runs):\n\n"
        + pd.DataFrame(summary).to_string(index=False)
        + "\n\nDetail, t = 0.04:\n\n"
        + detail.to_string(index=False)
        + "\n\nConclusion: Algorithm 3's SSE rises with k as the paper says (k = 2 to 30 at "
        "every t), but not pair by pair. Its cluster size is k' = max(k, Expression (3)), "
        "then Expression (4) spreads the n mod k' remainder: when k' does not divide 1,080 "
        "some clusters take an extra record from a central subset, and a next k' with a "
        "smaller remainder (mostly a divisor of 1,080) gives a slightly lower SSE "
        "(t = 0.04: k = 14, remainder 2, 0.622 -> k = 15, remainder 0, 0.613). "
        "These small drops are arithmetic of n, k and t (the divisor effect the "
        "paper itself describes for the spikes of Algorithms 1 and 2), not noise; the algorithm "
        "is deterministic. The claim compares algorithms ('the one for which SSE increases "
        "the most as a result of the larger k'): it is judged on the rise from k = 2 to "
        "k = 30, which Algorithm 3 shows at every t."
    )


# --- Figures 6 and 7: the SSE orderings ----------------------------------------------------


@investigation(
    "tcm_fig6_order_hcd",
    "tcm_fig6_order_mcd",
    "tcm_fig7_alg1_above_alg3",
    "tcm_fig7_alg2_above_alg3",
)
def sse_orderings() -> str:
    """Where Algorithms 1-2 beat Algorithm 3 in SSE: cluster sizes, and Algorithm 3's SSE
    with the confidential attribute decorrelated (permutation, seed 0)."""
    rows = []
    rng = np.random.default_rng(0)
    for name, (label, _) in CENSUS.items():
        qi, conf = _census(name)
        shuffled = rng.permutation(conf)
        for k, t in (
            (2, 0.06),
            (2, 0.14),
            (2, 0.18),
            (2, 0.22),
            (2, 0.25),
            (10, 0.25),
            (20, 0.12),
            (30, 0.25),
        ):
            if label == "HCD" and k > 2:
                continue
            row: dict[str, object] = {"data": label, "k": k, "t": t}
            for alg, function in ALGORITHMS.items():
                labels = function(qi, conf, k, t)
                row[f"{alg} sse"] = round(_sse(qi, labels), 3)
                row[f"{alg} avg"] = round(_sizes(labels)[1], 1)
            row["alg3 sse, conf. permuted"] = round(_sse(qi, tclose_tfirst(qi, shuffled, k, t)), 3)
            rows.append(row)
    frame = pd.DataFrame(rows)
    corr = {
        CENSUS[name][0]: np.corrcoef(_census(name)[0][:, 0], _census(name)[1])[0, 1]
        for name in CENSUS
    }
    return (
        "SSE (TCM Eq. 5) and mean cluster size of Algorithms 1-3 at cells of Figures 6 "
        "(k = 2) and 7 (MCD); last column: Algorithm 3 with the confidential attribute "
        "randomly permuted (numpy default_rng(0)), i.e. with no QI correlation:\n\n"
        + frame.to_string(index=False)
        + f"\n\nPearson r of the confidential attribute with TAXINC: MCD {corr['MCD']:.3f}, "
        f"HCD {corr['HCD']:.3f}.\n\n"
        "Conclusion: the paper explains its ordering by cluster size: Algorithm 3's lower "
        "QI homogeneity is 'more than compensated by ... smaller clusters'. Where ours "
        "reverses, that compensation is absent. Algorithm 3 must take one record from each "
        "of k' confidential subsets, and on our Census the confidential attribute follows "
        "TAXINC, so its clusters span TAXINC: at k' = 2-3 its SSE is 0.27-0.54 (random "
        "pairs give about 0.5), and with the attribute permuted (no correlation) it falls "
        "to 0.01-0.03 at k = 2. Algorithms 1 "
        "and 2, meanwhile, need few merges at large t (and Algorithm 2 few swaps at large "
        "k), so they keep QI-homogeneous clusters. Where Algorithm 2 reverses above, its "
        "average size is at most 1.3x Algorithm 3's (on the stored run, within 1.42x in all "
        "189 reversed Figure 7 cells); it reaches exactly k where the paper's Table 2 "
        "still shows larger averages (k = 10, t = 0.25: 10.0 against 12). Algorithm 1 "
        "reverses at large t (HCD from t = 0.16; MCD k = "
        "2, t = 0.25, SSE 0.273 with 6 clusters of average 180 against 0.441). Figure 6's "
        "values are not in the text, and the paper's Census cluster sizes differ from ours "
        "(tcm_table1_cells, tcm_table2_cells). So we cannot tell whether the paper's data or "
        "its implementation avoids this. Cluster sizes and correlation are what we checked; "
        "the cause is unexplained."
    )
