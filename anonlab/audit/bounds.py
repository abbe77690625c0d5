"""Clopper–Pearson bounds and the ε lower bound one event gives.

For a pure ε-DP mechanism M, neighbours D, D' and any event S,
P[M(D) ∈ S] ≤ e^ε · P[M(D') ∈ S] (Dwork & Roth 2014, Def. 2.4), so
ε ≥ ln(P_D[S] / P_D'[S]). Replacing the two probabilities by a lower and an upper
Clopper–Pearson bound gives a lower confidence bound on ε, as in the DP auditing
literature (Jagielski, Ullman & Oprea 2020, "Auditing differentially private machine
learning", §3; Nasr et al. 2021; Ding et al. 2018, "Detecting violations of differential
privacy").
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike


def clopper_pearson(
    successes: ArrayLike, trials: ArrayLike, beta: float
) -> tuple[np.ndarray, np.ndarray]:
    """One-sided Clopper–Pearson bounds on a binomial proportion (Clopper & Pearson 1934).

    Parameters
    ----------
    successes, trials : counts (broadcast together).
    beta : error of each bound: the lower bound holds with probability ≥ 1 − beta, and so
        does the upper bound (together, two-sided, ≥ 1 − 2·beta).

    Returns
    -------
    lower, upper : arrays; ``lower`` is 0 for no success, ``upper`` 1 for all successes.
    """
    from scipy import stats  # imported where used: about a second, for the audits only

    x = np.asarray(successes, dtype=float)
    n = np.asarray(trials, dtype=float)
    # the guards keep both Beta parameters > 0; np.where then sets the edge cases
    # lower: the p with P[Bin(n, p) ≥ x] = beta, the beta quantile of Beta(x, n − x + 1)
    lower = np.where(x > 0, stats.beta.ppf(beta, np.maximum(x, 1), n - x + 1), 0.0)
    # upper: the p with P[Bin(n, p) ≤ x] = beta, the 1 − beta quantile of Beta(x + 1, n − x)
    upper = np.where(x < n, stats.beta.ppf(1 - beta, x + 1, np.maximum(n - x, 1)), 1.0)
    return lower, upper


def epsilon_lower_bound(
    hits_num: ArrayLike,
    trials_num: ArrayLike,
    hits_den: ArrayLike,
    trials_den: ArrayLike,
    beta: float,
) -> np.ndarray:
    """Lower confidence bound on ε from the event counts of two samples, clipped at 0.

    ``hits_num`` of ``trials_num`` releases of the numerator data set fell in the event,
    ``hits_den`` of ``trials_den`` of the denominator one. Each Clopper–Pearson bound has
    error ``beta``, so the bound holds with probability ≥ 1 − 2·beta.
    """
    low_num = clopper_pearson(hits_num, trials_num, beta)[0]
    high_den = clopper_pearson(hits_den, trials_den, beta)[1]
    with np.errstate(divide="ignore"):
        # ε ≥ ln(P_num[S] / P_den[S]) ≥ ln(lower CP bound of P_num / upper CP bound of P_den)
        bound = np.log(low_num) - np.log(high_den)
    return np.maximum(bound, 0.0)


def epsilon_estimate(hits_num: int, trials_num: int, hits_den: int, trials_den: int) -> float:
    """The plug-in ln(p̂_num / p̂_den) (``inf`` when no denominator release hit); for
    reading beside the bound, never a bound itself."""
    if hits_num == 0:
        return 0.0
    if hits_den == 0:
        return float("inf")
    return float(np.log((hits_num / trials_num) / (hits_den / trials_den)))
