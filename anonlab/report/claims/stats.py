"""The statistics behind every verdict: a mean and a confidence interval per grid point from
the repetitions, and one rule for claims over many points.

Each checked quantity ``q`` (a difference of two curves, a log ratio, a value against a
bound) has an estimate, a standard error over repetitions and Welch degrees of freedom. A
claim states that ``q`` lies in a band ``(lo, hi)`` at each of its ``N`` points, and that
``need`` of them do (all, a share, or at least ``min_count``).

The multiple-comparison rule (level α = 5 %, two-sided intervals):

* a point **holds** when its interval lies inside the band, and is **opposite** when its
  interval lies wholly outside;
* the claim is **reproduced** when at least ``need`` points hold, each judged at level
  1 − α/(N − need + 1): the partial-conjunction test of "at least ``need`` of N hold"
  (Benjamini & Heller 2008, the Bonferroni combination: the need-th smallest p-value
  times N − need + 1). For ``need = N`` (every point) that is 95 % at each point, an
  intersection-union test; for ``need = 1`` ("for some k") it is Bonferroni over the N
  points, so that picking the best of many noisy means is paid for, and a share in
  between pays only for the points it may leave out;
* it is **contradicted** when more than ``N − need`` points are opposite, that is at least
  ``N − need + 1`` of them, by the same test at level 1 − α/need: 95 % at each point when
  every point must go against it (``need = 1``), Bonferroni over N when one opposite point
  refutes an "every point" claim, so that one noisy point among hundreds does not;
* otherwise it is **within noise**, and :func:`reps_to_decide` says how many repetitions
  would decide it if the observed means and spreads were the truth.

A claim left within noise is not topped up at will: the pre-registered group-sequential
plan (:mod:`anonlab.preregistration`) fixes the looks (e.g. 10, 20 and 40 repetitions) and
the share of α each spends (:func:`spending`, :func:`sequential`); a verdict at one look is
final, and the false verdicts over all looks stay within α (Bonferroni across the looks).

A point whose standard error is zero (a deterministic method and metric) is compared
exactly; one with an unknown error (a randomised method run once) is never decided.

**The scale** (:class:`Scale`, decided once per (metric, by_attribute) table by
:meth:`~anonlab.report.claims.data.ResultsTable.scale`). The t-interval is off on skewed
repetitions (log-normal run times with unequal spreads: 5–16 % false verdicts one way at
10–40 repetitions), so a table's points are means of the **logs** of the repetitions
(geometric means, a Welch interval on the logs) when every repetition is positive and

* the metric is a run time (``measured``), whatever its repetitions look like, or
* the **skewness check** finds them right-skewed: each point with at least
  ``SKEW_MIN_REPS`` = 8 repetitions and a spread gives its sample skewness
  g₁ = m₃/m₂^{3/2} (its repetitions centred on its own mean and scaled by its own
  standard deviation), turned into a standard normal score z under normality by
  D'Agostino's (1970) transformation (:func:`skewness_z`, what :func:`scipy.stats.skewtest`
  computes); the P points' scores are pooled by Stouffer's Z = Σ z / √P, and the table is
  skewed when Z > 2.326, the one-sided ``SKEW_LEVEL`` = 1 % point of N(0, 1). Only a right
  skew is tested: a log deepens a left one. The pooled skewness shown beside it is the
  mean of g₁ over the points, weighted by their repetitions.

On the log scale a comparison ``higher > factor · lower`` is ``log higher − log lower >
log factor``, a ratio is a difference of mean logs, a relative slack is a factor and a
bound is compared by its log (:class:`Scale`'s methods, which every kind calls). A
skewed metric with a repetition ≤ 0 keeps the raw t-intervals, and its verdicts say so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field, replace
from functools import cache
from statistics import NormalDist

import numpy as np

ALPHA = 0.05
REPRODUCED = "reproduced"
CONTRADICTED = "contradicted"
WITHIN_NOISE = "within noise"
NOT_CHECKABLE = "not checkable"
STATUSES = (REPRODUCED, CONTRADICTED, WITHIN_NOISE, NOT_CHECKABLE)
MAX_REPS = 100_000  # beyond this, "more repetitions" is no answer: the curves agree
_LEVEL: ContextVar[float] = ContextVar("level", default=ALPHA)
SKEW_LEVEL = 0.01  # one-sided level of the skewness check (module docstring)
SKEW_MIN_REPS = 8  # D'Agostino's transformation holds from 8 repetitions on
SKEW_Z = NormalDist().inv_cdf(1 - SKEW_LEVEL)
_NEXT_LOOK: ContextVar[int | None] = ContextVar("next_look", default=None)


@contextmanager
def spending(share: float) -> Iterator[None]:
    """Judge at level ``share`` · α inside the block (a look of a group-sequential plan)."""
    token = _LEVEL.set(ALPHA * share)
    try:
        yield
    finally:
        _LEVEL.reset(token)


def level() -> float:
    """The two-sided level α the verdicts are judged at here (α · the look's share)."""
    return _LEVEL.get()


def confidence() -> str:
    """The confidence of one interval at the current level, e.g. ``95%`` or ``96%``."""
    return f"{100 * (1 - level()):.3g}%"


#: :func:`critical` computes at most this many Student-t quantiles exactly, and beyond
#: interpolates those of ``INTERPOLATE_FROM_DF`` or more degrees of freedom on
#: ``CRITICAL_GRID`` points of 1/df
EXACT_CRITICALS = 256
INTERPOLATE_FROM_DF = 4.0
CRITICAL_GRID = 4097


def critical(df: np.ndarray | float, tests: int = 1) -> np.ndarray:
    """Two-sided Student-t critical value at level α / ``tests`` (normal for df = ∞), α
    the current look's (:func:`spending`)."""
    from scipy import special  # here: 0.15 s to import, not needed to build a run

    # stdtrit and ndtri are what scipy.stats' t and norm ppf call
    df = np.asarray(df, dtype=float)
    q = 1 - _LEVEL.get() / (2 * max(int(tests), 1))
    out = np.full(df.shape, special.ndtri(q))
    finite = np.isfinite(df) & (df > 0)
    values = df[finite]
    steep = values < INTERPOLATE_FROM_DF
    if values.size - steep.sum() <= EXACT_CRITICALS:
        out[finite] = special.stdtrit(values, q)
        return out
    # thousands of Welch df (every pair of a long curve): the quantile is smooth in 1/df
    # above a few df, so it is interpolated on a fine grid of 1/df (error below 1e-6)
    grid, nodes = _critical_nodes(q)
    found = np.empty_like(values)
    found[steep] = special.stdtrit(values[steep], q)
    found[~steep] = np.interp(1.0 / values[~steep], grid, nodes)
    out[finite] = found
    return out


@cache
def _critical_nodes(q: float) -> tuple[np.ndarray, np.ndarray]:
    """The grid of 1/df :func:`critical` interpolates on, and the quantile ``q`` there."""
    from scipy import special

    grid = np.linspace(0.0, 1.0 / INTERPOLATE_FROM_DF, CRITICAL_GRID)
    nodes = np.empty_like(grid)
    nodes[0] = special.ndtri(q)
    nodes[1:] = special.stdtrit(1.0 / grid[1:], q)
    return grid, nodes


def welch_df(
    se_a: np.ndarray, df_a: np.ndarray, se_b: np.ndarray, df_b: np.ndarray, weight: float = 1.0
) -> np.ndarray:
    """Welch-Satterthwaite degrees of freedom of ``b − weight·a`` (∞ where exact)."""
    va, vb = (weight * np.asarray(se_a)) ** 2, np.asarray(se_b) ** 2
    with np.errstate(divide="ignore", invalid="ignore"):
        den = np.where(va > 0, va**2 / df_a, 0.0) + np.where(vb > 0, vb**2 / df_b, 0.0)
        out = np.where(den > 0, (va + vb) ** 2 / den, np.inf)
    return out


@dataclass(frozen=True)
class Quantity:
    """Estimates of one quantity at N points: ``est``, standard error ``se`` (0: exact,
    NaN: unknown), degrees of freedom ``df`` and repetitions ``n`` behind them."""

    est: np.ndarray
    se: np.ndarray
    df: np.ndarray
    n: np.ndarray

    @classmethod
    def of(cls, est, se, df, n) -> Quantity:
        arrays = [np.asarray(v, dtype=float).reshape(-1) for v in (est, se, df, n)]
        size = max(len(a) for a in arrays)
        return cls(*(np.broadcast_to(a, (size,)).copy() for a in arrays))

    def __len__(self) -> int:
        return len(self.est)

    def interval(self, tests: int = 1) -> tuple[np.ndarray, np.ndarray]:
        """The two-sided interval at level 1 − α/``tests`` (unbounded where se is unknown)."""
        half = critical(self.df, tests) * self.se
        half = np.where(np.isnan(self.se), np.inf, half)
        return self.est - half, self.est + half

    def difference(self, other: Quantity, weight: float = 1.0) -> Quantity:
        """``self − weight·other``, the two estimated independently."""
        se = np.sqrt(self.se**2 + (weight * other.se) ** 2)
        return Quantity(
            self.est - weight * other.est,
            se,
            welch_df(other.se, other.df, self.se, self.df, weight),
            np.maximum(self.n, other.n),
        )


@dataclass(frozen=True)
class Judgement:
    """Per point: holds / opposite at the unadjusted and the adjusted level, and how to
    judge them at any other level (``levels``: the number of tests → (holds, opposite),
    ``None`` for a judgement without intervals, which holds at every level)."""

    holds: np.ndarray
    opposite: np.ndarray
    holds_adjusted: np.ndarray
    opposite_adjusted: np.ndarray
    reps_hold: np.ndarray  # repetitions at which an undecided point would hold
    reps_opposite: np.ndarray  # … or be opposite (adjusted), if the estimates were true
    levels: Callable[[int], tuple[np.ndarray, np.ndarray]] | None = field(
        default=None, repr=False, compare=False
    )
    #: (tests for holding, tests for opposite) → ``(reps_hold, reps_opposite)`` at those
    #: levels; ``None``: the fields above, whatever the level
    rep_levels: Callable[[int, int], tuple[np.ndarray, np.ndarray]] | None = field(
        default=None, repr=False, compare=False
    )
    #: every level's number of tests is multiplied by this (an extremum of several means
    #: pays for the pick at every level)
    multiplier: int = 1

    def reps_at(self, hold_tests: int, opposite_tests: int) -> tuple[np.ndarray, np.ndarray]:
        """Repetitions at which each undecided point would hold, or be opposite, with
        intervals at those levels (times the multiplier), were the estimates true."""
        if self.rep_levels is None:
            return self.reps_hold, self.reps_opposite
        return self.rep_levels(
            max(hold_tests, 1) * self.multiplier, max(opposite_tests, 1) * self.multiplier
        )

    def at(self, tests: int) -> tuple[np.ndarray, np.ndarray]:
        """Holds / opposite with intervals at level 1 − α/(``tests`` · multiplier)."""
        if self.levels is None:
            return self.holds, self.opposite
        return self.levels(max(int(tests), 1) * self.multiplier)


def judge(
    q: Quantity,
    lo: float | np.ndarray = 0.0,
    hi: float | np.ndarray = math.inf,
    *,
    tests: int | None = None,
    closed: bool = False,
) -> Judgement:
    """Is ``q`` inside the band (lo, hi) at each point? ``tests`` (default N) sets the
    Bonferroni adjustment; ``closed`` makes an exact value on a band edge count as inside."""
    n_tests = len(q) if tests is None else tests
    lo = np.broadcast_to(np.asarray(lo, dtype=float), q.est.shape)
    hi = np.broadcast_to(np.asarray(hi, dtype=float), q.est.shape)
    exact = q.se == 0

    def at(level_tests: int) -> tuple[np.ndarray, np.ndarray]:
        low, high = q.interval(level_tests)
        if closed:
            inside_exact = (q.est >= lo) & (q.est <= hi)
        else:
            inside_exact = (q.est > lo) & (q.est < hi)
        holds = np.where(exact, inside_exact, (low > lo) & (high < hi))
        opposite = np.where(exact, ~inside_exact, (high < lo) | (low > hi))
        return holds & np.isfinite(q.est), opposite & np.isfinite(q.est)

    holds, opposite = at(1)
    holds_adj, opposite_adj = at(n_tests)
    levels = cache(at)
    inside = (q.est > lo) & (q.est < hi)
    with np.errstate(invalid="ignore"):
        edge = np.minimum(np.abs(q.est - lo), np.abs(hi - q.est))

    def reps_at(hold_tests: int, opposite_tests: int) -> tuple[np.ndarray, np.ndarray]:
        return (
            np.where(inside, _reps_needed(q, edge, hold_tests), np.inf),
            np.where(~inside, _reps_needed(q, edge, opposite_tests), np.inf),
        )

    need_hold, need_opp = reps_at(1, n_tests)
    return Judgement(holds, opposite, holds_adj, opposite_adj, need_hold, need_opp, levels, reps_at)


def _reps_needed(q: Quantity, edge: np.ndarray, tests: int) -> np.ndarray:
    """Repetitions n' at which the interval would clear the band edge ``edge`` away, were
    the estimate and the spread true: c·se·√(n/n') < edge, with c the Student-t critical
    value at n' − 1 degrees of freedom (a few fixed-point steps), and more than today's n."""
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (q.se / edge) ** 2
        need = q.n * critical(np.inf, tests).item() ** 2 * ratio
        for _ in range(4):
            df = np.where(np.isfinite(need), np.maximum(need - 1, 1), np.inf)
            need = q.n * critical(df, tests) ** 2 * ratio
    need = np.where(np.isfinite(need), np.maximum(np.ceil(need), q.n + 1), np.inf)
    return np.nan_to_num(need, nan=np.inf)


@dataclass(frozen=True)
class Tally:
    """How many of a claim's N points hold and are opposite under the stated rule, and
    which (``holds_at``, ``opposite_at``: per point, at the levels the rule used)."""

    n: int
    need: int
    held: int
    opposite: int
    status: str
    reps: int | None  # repetitions that would decide a claim within noise
    holds_at: np.ndarray | None = field(default=None, repr=False, compare=False)
    opposite_at: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: for a claim within noise inside :func:`next_look`, the chance that look decides it
    #: (:func:`decide_chance`)
    chance: float | None = None

    @property
    def undecided(self) -> int:
        return self.n - self.held - self.opposite


def tally(j: Judgement, need: int) -> Tally:
    """The verdict of a claim that ``need`` of its points hold (see the module docstring)."""
    n = len(j.holds)
    if n == 0:
        return Tally(0, need, 0, 0, NOT_CHECKABLE, None)
    need = min(max(need, 1), n)
    # partial conjunction (module docstring): "at least need hold" at α/(N − need + 1),
    # "at least N − need + 1 opposite" at α/need
    holds = j.at(n - need + 1)[0]
    opposite = j.at(need)[1]
    held, opp = int(holds.sum()), int((opposite & ~holds).sum())
    if held >= need:
        return Tally(n, need, held, opp, REPRODUCED, None, holds, opposite)
    if opp > n - need:
        return Tally(n, need, held, opp, CONTRADICTED, None, holds, opposite)
    next_reps = _NEXT_LOOK.get()
    chance = None if next_reps is None else decide_chance(j, holds, opposite, need, next_reps)
    reps = _reps(j, holds, opposite, need)
    return Tally(n, need, held, opp, WITHIN_NOISE, reps, holds, opposite, chance)


def _reps(j: Judgement, holds: np.ndarray, opposite: np.ndarray, need: int) -> int | None:
    """The fewest repetitions at which the claim would be decided, were the estimates true:
    the points still missing to hold, or to be opposite, whichever comes first, each at
    the level the tally judges it at (the partial-conjunction levels)."""
    n = len(holds)
    open_ = ~holds & ~opposite
    reps_hold, reps_opposite = j.reps_at(n - need + 1, need)
    to_hold = np.sort(reps_hold[open_])[: max(need - int(holds.sum()), 0)]
    to_oppose = np.sort(reps_opposite[open_])[: max(n - need + 1 - int(opposite.sum()), 0)]
    options = [float(x.max()) for x in (to_hold, to_oppose) if len(x) and np.all(np.isfinite(x))]
    if not options:
        return None
    best = min(options)
    return int(math.ceil(best)) if best <= MAX_REPS else None


@contextmanager
def next_look(reps: int) -> Iterator[None]:
    """Inside the block, a tally within noise states its chance to be decided by a look at
    ``reps`` repetitions judged at the current level (:func:`spending`)."""
    token = _NEXT_LOOK.set(int(reps))
    try:
        yield
    finally:
        _NEXT_LOOK.reset(token)


#: :func:`decide_chance` counts exactly up to this many undecided points, then by the
#: normal approximation (the exact count takes O(points²))
EXACT_COUNTS = 200


def decide_chance(
    j: Judgement, holds: np.ndarray, opposite: np.ndarray, need: int, reps: int
) -> float:
    """The chance that a look at ``reps`` repetitions decides the claim, were the observed
    means and spreads the truth (normal approximation, at the current level).

    An undecided point's interval clears its band edge there with chance
    Φ(|edge| / (se·√(n/reps)) − c), c the critical value at the level the tally judges it
    at (the partial-conjunction levels, as :func:`_reps`). Written through the repetitions
    N at which the point would just clear it (:func:`_reps_needed`), |edge| / se′ =
    c_N·√(reps/N): one half at reps = N. The points are taken as independent: the chance
    is that at least the missing number hold (for "every point", the product of their
    chances) plus that enough are opposite (the two cannot happen together). Points that
    share a mean (a chain's middle tier, the pairs of one curve) are not independent, and
    points decided at the last look are taken as staying so: for them it is an
    approximation.
    """
    n = len(holds)
    open_ = ~holds & ~opposite
    hold_tests, opposite_tests = n - need + 1, need
    reps_hold, reps_opposite = j.reps_at(hold_tests, opposite_tests)
    multiplier = j.multiplier if j.rep_levels is not None else 1

    def clears(needed: np.ndarray, tests: int) -> np.ndarray:
        from scipy.special import ndtr

        finite = np.isfinite(needed)
        at = np.where(finite, needed, reps)
        with np.errstate(invalid="ignore"):
            z = critical(np.maximum(at - 1, 1), tests * multiplier) * np.sqrt(reps / at)
        z -= critical(np.full(at.shape, max(reps - 1, 1)), tests * multiplier)
        return np.where(finite, ndtr(z), 0.0)

    def at_least(p: np.ndarray, k: int) -> float:
        """P(at least ``k`` of independent events with chances ``p``): the
        Poisson-binomial exactly up to ``EXACT_COUNTS`` events (O(len(p)²)), beyond by
        its normal approximation with a continuity correction (a claim over thousands
        of pairs of k)."""
        if k <= 0:
            return 1.0
        if k > len(p):
            return 0.0
        if len(p) > EXACT_COUNTS:
            from scipy.special import ndtr

            mean, var = float(p.sum()), float((p * (1 - p)).sum())
            if var == 0:
                return float(mean >= k)
            return float(ndtr((mean - (k - 0.5)) / math.sqrt(var)))
        counts = np.zeros(len(p) + 1)  # the chance of each count
        counts[0] = 1.0
        for p_i in p:
            counts[1:] = counts[1:] * (1 - p_i) + counts[:-1] * p_i
            counts[0] *= 1 - p_i
        return float(counts[k:].sum())

    to_hold = at_least(clears(reps_hold[open_], hold_tests), max(need - int(holds.sum()), 0))
    to_oppose = at_least(
        clears(reps_opposite[open_], opposite_tests), max(n - need + 1 - int(opposite.sum()), 0)
    )
    return min(to_hold + to_oppose, 1.0)


@dataclass(frozen=True)
class Look:
    """The verdict a group-sequential plan reached: at look ``index`` (0-based) of
    ``len(reps)``, each look judging the first ``reps[j]`` repetitions."""

    index: int
    reps: tuple[int, ...]
    result: object

    @property
    def next_reps(self) -> int | None:
        """The repetitions of the next look, ``None`` after the last."""
        return self.reps[self.index + 1] if self.index + 1 < len(self.reps) else None


def sequential(
    judge_at: Callable[[int], object],
    status: Callable[[object], str],
    reps: Sequence[int],
    spent: Sequence[float],
    available: int,
) -> Look:
    """Walk the plan's looks: ``judge_at(n)`` judges the first ``n`` repetitions (called
    inside :func:`spending` at the look's share); the first look that decides (anything but
    within noise) is final. Looks beyond the ``available`` repetitions are not taken; a run
    with fewer repetitions than the first look is judged once, at the first look's level."""
    reps = tuple(int(n) for n in reps)
    taken = [j for j, n in enumerate(reps) if n <= available] or [0]
    for j in taken:
        with spending(spent[j]):
            result = judge_at(min(reps[j], available))
        if status(result) != WITHIN_NOISE or j == taken[-1]:
            return Look(j, reps, result)
    raise AssertionError("unreachable")


def levels_text(result: Tally) -> str:
    """The levels a tally judged at, for the report: ``holding at 95%, opposite at 1 −
    α/N`` in words, e.g. ``holding at α/6, opposite at α/15``."""
    alpha = level()

    def level_(tests: int) -> str:
        if alpha == ALPHA:
            return "95%" if tests == 1 else f"1 − α/{tests}"
        return f"1 − {alpha:.3g}" + (f"/{tests}" if tests > 1 else "")

    return (
        f"holding judged at {level_(result.n - result.need + 1)}, opposite at {level_(result.need)}"
    )


def combine(verdicts: list[str], need: int) -> str:
    """The verdict of a claim over groups (curves), ``need`` of which must be reproduced."""
    decided = [v for v in verdicts if v != NOT_CHECKABLE]
    if not decided:
        return NOT_CHECKABLE
    n = len(verdicts)
    need = min(max(need, 1), n)
    if verdicts.count(REPRODUCED) >= need:
        return REPRODUCED
    if verdicts.count(CONTRADICTED) > n - need:
        return CONTRADICTED
    if verdicts.count(REPRODUCED) + verdicts.count(WITHIN_NOISE) < need:
        return NOT_CHECKABLE
    return WITHIN_NOISE


def locate(low: float, high: float, window: tuple[float, float], exact: bool) -> str:
    """The verdict of a location known to lie in [low, high] against the paper's window:
    inside it, outside it, or straddling it (noise, or for exact values a coarse grid)."""
    if window[0] <= low and high <= window[1]:
        return REPRODUCED
    if high < window[0] or low > window[1]:
        return CONTRADICTED
    return NOT_CHECKABLE if exact else WITHIN_NOISE


def plus_minus(q: Quantity, i: int, fmt) -> str:
    """``mean ± half-width`` of the 95 % interval of point ``i`` (just the mean if exact)."""
    est, se = q.est[i], q.se[i]
    if se == 0 or not np.isfinite(est):
        return fmt(est)
    if np.isnan(se):
        return f"{fmt(est)} (1 rep)"
    return f"{fmt(est)} ± {fmt(float(critical(q.df[i : i + 1])[0] * se))}"


def skewness_z(g1: np.ndarray, n: np.ndarray) -> np.ndarray:
    """D'Agostino's (1970) normal score of the sample skewness ``g1`` (m₃/m₂^{3/2}) of ``n``
    repetitions: about N(0, 1) under normality for n ≥ 8 (:func:`scipy.stats.skewtest`)."""
    g1, n = np.broadcast_arrays(np.asarray(g1, dtype=float), np.asarray(n, dtype=float))
    with np.errstate(divide="ignore", invalid="ignore"):
        y = g1 * np.sqrt((n + 1) * (n + 3) / (6 * (n - 2)))
        beta2 = (
            3 * (n**2 + 27 * n - 70) * (n + 1) * (n + 3) / ((n - 2) * (n + 5) * (n + 7) * (n + 9))
        )
        w2 = np.sqrt(2 * (beta2 - 1)) - 1
        delta, alpha = 1 / np.sqrt(0.5 * np.log(w2)), np.sqrt(2 / (w2 - 1))
        return delta * np.arcsinh(y / alpha)


def pooled_skewness(g1: np.ndarray, n: np.ndarray, axis: int = -1) -> tuple[np.ndarray, np.ndarray]:
    """The skewness check's numbers over the points on ``axis``: the pooled skewness (mean
    g₁ weighted by repetitions) and Stouffer's Z of the points' :func:`skewness_z`, both
    over the points with at least ``SKEW_MIN_REPS`` repetitions and a finite g₁ (NaN
    without any)."""
    g1, n = np.broadcast_arrays(np.asarray(g1, dtype=float), np.asarray(n, dtype=float))
    use = (n >= SKEW_MIN_REPS) & np.isfinite(g1)
    g1, n = np.where(use, g1, 0.0), np.where(use, n, SKEW_MIN_REPS)
    z = np.where(use, skewness_z(g1, n), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        pooled = (use * n * g1).sum(axis) / (use * n).sum(axis)
        score = z.sum(axis) / np.sqrt(use.sum(axis))
    return pooled, score


def log_scale(z: np.ndarray, *, positive: np.ndarray, measured: bool) -> np.ndarray:
    """The rule (module docstring): the log scale where every repetition is ``positive``
    and the metric is a run time or the check's Z exceeds ``SKEW_Z``."""
    with np.errstate(invalid="ignore"):
        return np.asarray(positive) & (measured | (np.asarray(z, dtype=float) > SKEW_Z))


@dataclass(frozen=True)
class Scale:
    """The scale a table's points are on: ``log`` (means of the logs of the repetitions) or
    raw, and ``reason`` a log scale is called for (empty when none is); its methods do the
    arithmetic of the kinds on either scale."""

    log: bool = False
    reason: str = ""

    @classmethod
    def decide(cls, g1: np.ndarray, n: np.ndarray, *, positive: bool, measured: bool) -> Scale:
        """The scale of a table whose points have sample skewness ``g1`` from ``n``
        repetitions (the rule of the module docstring)."""
        pooled, z = (float(v) for v in pooled_skewness(g1, n))
        skewed = bool(z > SKEW_Z)
        numbers = f"pooled skewness {pooled:.2g}, z = {z:.3g} > {SKEW_Z:.3g}"
        if measured:
            reason = "a run time" + (f", repetitions skewed ({numbers})" if skewed else "")
        else:
            reason = f"repetitions skewed ({numbers})" if skewed else ""
        return cls(bool(log_scale(z, positive=positive, measured=measured)), reason)

    @property
    def note(self) -> str:
        """What a verdict says of its scale (empty on an unremarkable raw scale)."""
        if self.log:
            return f"; judged on the log scale (geometric means): {self.reason}"
        return self.kept_raw("some repetitions are ≤ 0 (raw t-intervals, which skew may bias)")

    def kept_raw(self, why: str) -> str:
        """What a verdict judged on the raw scale says, ``why`` it is, if a log scale is
        called for (empty otherwise)."""
        return f"; judged on the raw scale although {self.reason}: {why}" if self.reason else ""

    def gap(self, higher: Quantity, lower: Quantity, factor: float = 1.0) -> Quantity:
        """Above zero where ``higher`` > ``factor`` · ``lower``: their difference (raw), or
        ``log higher − log lower − log factor`` (log)."""
        if not self.log:
            return higher.difference(lower, factor)
        out = higher.difference(lower)
        return replace(out, est=out.est - math.log(factor))

    def log_ratio(self, a: Quantity, b: Quantity) -> Quantity:
        """log(a / b): the difference of the mean logs (log), or the log of the ratio of the
        means by the delta method, se = √((se_a/a)² + (se_b/b)²), NaN unless both are > 0
        (raw)."""
        if self.log:
            return a.difference(b)
        with np.errstate(divide="ignore", invalid="ignore"):
            positive = (a.est > 0) & (b.est > 0)
            est = np.where(positive, np.log(a.est) - np.log(b.est), np.nan)
            rel_a, rel_b = a.se / np.abs(a.est), b.se / np.abs(b.est)
            se = np.sqrt(rel_a**2 + rel_b**2)
        return Quantity(est, se, welch_df(rel_a, a.df, rel_b, b.df), np.maximum(a.n, b.n))

    def moves(
        self,
        q: Quantity,
        i: np.ndarray,
        j: np.ndarray,
        sign: float,
        rel: float = 0.0,
        margin: float | None = None,
    ) -> Quantity:
        """Per pair of points (``i`` before ``j``): above zero where the curve moves the
        ``sign`` way, allowing a move the wrong way by ``rel`` of the earlier value, or
        (``margin``) by more than ``margin`` of it. Raw: sign·(v_j − v_i) + rel·|v_i|, or
        − margin·|v_i| with v_i weighted by |sign + margin·sgn v_i|; log: sign·(log v_j −
        log v_i) plus the factor's log (the slack and margin are multiplicative)."""
        step = sign * (q.est[j] - q.est[i])
        weight = np.ones_like(step)
        if not self.log:
            if margin is None:
                est = step + rel * np.abs(q.est[i])
            else:
                est = step - margin * np.abs(q.est[i])
                weight = np.abs(sign + margin * np.sign(q.est[i]))
        else:
            # v_j ≥ (1 − rel)·v_i rising, ≤ (1 + rel)·v_i falling; beyond the margin:
            # v_j > (1 + margin)·v_i rising, < (1 − margin)·v_i falling
            up, down = math.log1p, lambda x: -math.log1p(-min(x, 1 - 1e-12))
            if margin is None:
                est = step + (down(rel) if sign > 0 else up(rel))
            else:
                est = step - (up(margin) if sign > 0 else down(margin))
        se = np.sqrt((weight * q.se[i]) ** 2 + q.se[j] ** 2)
        df = welch_df(q.se[i], q.df[i], q.se[j], q.df[j], weight)
        return Quantity(est, se, df, np.maximum(q.n[i], q.n[j]))

    def bound(self, value: np.ndarray | float) -> np.ndarray:
        """A number in the metric's units on the points' scale: its log (−∞ at or below 0,
        which every positive mean exceeds)."""
        value = np.asarray(value, dtype=float)
        if not self.log:
            return value
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(value > 0, np.log(value), -np.inf)

    def shown(self, est: np.ndarray | float) -> np.ndarray:
        """Point estimates in the metric's units (the geometric means, on the log scale)."""
        if not self.log:
            return np.asarray(est, dtype=float)
        with np.errstate(over="ignore"):
            return np.exp(np.asarray(est, dtype=float))

    def plus_minus(self, q: Quantity, i: int, fmt) -> str:
        """:func:`plus_minus` in the metric's units: ``gm ×/÷ f`` on the log scale."""
        est, se = q.est[i], q.se[i]
        if not self.log:
            return plus_minus(q, i, fmt)
        if se == 0 or not np.isfinite(est):
            return fmt(float(self.shown(est)))
        if np.isnan(se):
            return f"{fmt(float(self.shown(est)))} (1 rep)"
        factor = self.shown(critical(q.df[i : i + 1])[0] * se)
        return f"{fmt(float(self.shown(est)))} ×/÷ {fmt(float(factor))}"


RAW = Scale()
