"""Attack-based disclosure risk of any release, record-aligned or synthetic: singling out,
linkability and attribute inference with a control baseline (Giomi, Boenisch, Wehmeyer &
Tasnádi 2023, "A Unified Framework for Quantifying Privacy Risk in Synthetic Data",
PoPETs 2023(2); the framework of the ``anonymeter`` library).

The original records are split into the TRAINING part, which the release is made from,
and a held-out CONTROL part of the same population, which it is not (``release.dataset``
and ``release.control``; the runner holds out a share ``control`` of every cell's data
and protects the rest for these metrics alone). Each attack is run against training
records (the main attack) and against control records (the control attack); what the
release teaches about the population, not about its own records, succeeds on both alike.
With Wilson estimates r_main and r_control of the two success rates, the risk is
(r_main − r_control) / (1 − r_control), with a 95 % confidence interval propagated from
the rates' Wilson intervals, both clipped to [0, 1], as anonymeter reports them.

* ``singling_out``: predicates built from the release that match exactly one released
  record; an attack succeeds when its predicate matches exactly one original record
  (``mode``: ``multivariate``, conjunctions of three attributes, or ``univariate``).
* ``linkability``: the protected attributes are split into two halves, as if held by two
  data sets; a target's halves are linked when both have the same nearest released
  record (Gower distance: L1 on range-scaled numbers, 0/1 on categories).
* ``attribute_inference``: the attacker knows the quasi-identifiers (every other attribute
  when no roles are declared) and guesses a confidential attribute as that of the nearest
  released record; right within 5 % (numbers) or exactly (categories). The metric is
  the mean over the secrets.

Ties. A k-anonymous release repeats each record k times; an attacker who picks at random
among the t released records nearest to a target succeeds with the share of them that
would succeed (linkability: |T₀ ∩ T₁| / (|T₀|·|T₁|), 1/k for a cluster of k), as
``record_linkage`` counts 1/t (:mod:`anonlab.metrics.risk`). Success counts are thus
expectations, not integers; the Wilson formulas take them as they are.

Departures from anonymeter 1.0.0, each to make a figure well defined: ties as above
(anonymeter takes the first of an unstable sort); singling out compares training and
control records of equal numbers, the larger deduplicated part subsampled to the
smaller's size (anonymeter fits a correction curve instead, which is undefined below
1,000 control records: all its subsample sizes are equal); multivariate predicates use
min(3, m) attributes; a numerical guess is right within 5 % of |guess| (anonymeter
divides by the signed guess, so every negative guess is right).

Baseline. anonymeter also reports a BASELINE attack, random guesses, beside the main and
control attacks: an attack whose success rate does not exceed the baseline's learns
nothing from the release ("Attack is as good or worse as baseline model"). The control
attack, not the baseline, enters the risk. Option ``report: rates`` makes each metric
return, instead of the risk alone, one value per part (the ``attribute`` column of a run's
results): ``risk``, and the Wilson rates ``attack_rate`` (main), ``control_rate`` and
``baseline_rate``, the last computed as anonymeter does, in expectation where a draw has
one (as ties above):

* singling out: ``n_attacks`` random predicates, each on min(3, m) attributes (one in
  ``univariate`` mode) drawn at random, each compared by a random operator (==, !=, <, >,
  <=, >= for a number; ==, != for a category) with a random one of the released
  attribute's distinct values; a success is a predicate matching exactly one of the same
  training records as the main attack. The predicates are drawn from a stream jumped
  from the metric's generator (:func:`~anonlab.metrics.base.side_stream`), so the risk
  and every other metric's draws are those of ``report: risk``;
* linkability: both halves pick a released record at random, linked with probability
  1/N for N released records, so n/N expected successes;
* inference: the secret of a released record drawn at random, right with the share of
  released records whose secret is right for the target, summed over the main attack's
  targets (anonymeter draws targets afresh: the same expectation).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from anonlab.cost import Cost
from anonlab.datasets import Attribute, Dataset
from anonlab.metrics.base import CONTROL_SHARES, ReleaseMetric, side_stream
from anonlab.release import Release
from anonlab.validation import ParameterError, check_choice, check_int

#: confidence level of the intervals (anonymeter's default)
CONFIDENCE = 0.95
#: ``n_attacks``: attacks per part (anonymeter's default 500 first); linkability and
#: inference attack at most as many records as the smaller part holds
N_ATTACKS: tuple[int, ...] = (500, 100, 200, 1000, 2000)
#: ``mode`` of singling out: predicates on three attributes, or on one
MODES: tuple[str, ...] = ("multivariate", "univariate")
#: attributes per multivariate predicate (anonymeter's ``n_cols`` default)
N_COLS = 3
#: candidate multivariate predicates drawn at most, in batches (anonymeter: 10⁷, one by
#: one); a release whose records are rarely unique yields fewer than ``n_attacks``
MAX_ATTEMPTS = 200_000
BATCH = 2_000
#: batches in a row that find no new predicate before the search stops (the release has
#: few to give: with m = 2, one per distinct record)
BARREN = 10
#: a numerical guess is right when |guess − secret| ≤ TOLERANCE · |guess|
TOLERANCE = 0.05
#: relative widening of a nearest distance that finds its exact ties (far above the
#: rounding of an L1 sum of a few range-scaled terms)
TIE_WIDENING = 1e-10
#: ``report``: the risk alone, or one value per part: the risk and the Wilson rates of the
#: main, control and baseline (random-guess) attacks
REPORTS: tuple[str, ...] = ("risk", "rates")
#: the jump of the metric generator's stream that the singling-out baseline draws from
#: (:func:`~anonlab.metrics.base.side_stream`)
BASELINE_STREAM = 1


@dataclass(frozen=True)
class Rate:
    """A success rate's Wilson estimate and the half-width of its interval."""

    value: float
    error: float


def success_rate(n_total: int, n_success: float, confidence: float = CONFIDENCE) -> Rate:
    """Wilson score estimate of a success rate and its interval's half-width (Giomi et al.
    2023, risk estimation; Wilson 1927): (s + z²/2)/(n + z²) ± z/(n + z²)·√(s(n−s)/n + z²/4)."""
    from scipy.special import ndtri  # here: 0.2 s to import, not needed to build a run

    z = float(ndtri(0.5 * (1.0 + confidence)))
    z2 = z * z
    variance = n_success * (n_total - n_success) / n_total
    denominator = n_total + z2
    # Wilson 1927 centre and half-width, as Giomi et al. 2023 estimate attack success
    return Rate(
        (n_success + 0.5 * z2) / denominator, z / denominator * np.sqrt(variance + 0.25 * z2)
    )


@dataclass(frozen=True)
class AttackResult:
    """One attack's outcome: ``n_attacks`` per part, the expected successes against
    training (``main``) and control records, the Wilson rates, and the risk with its
    interval (``risk``, ``low``, ``high``: clipped to [0, 1]; ``residual``: unclipped);
    when asked for, the random-guess ``baseline``'s expected successes and Wilson rate."""

    attack: str
    n_attacks: int
    main: float
    control: float
    main_rate: Rate
    control_rate: Rate
    residual: float
    error: float
    baseline: float | None = None
    baseline_rate: Rate | None = None

    @property
    def risk(self) -> float:
        return float(np.clip(self.residual, 0.0, 1.0))

    @property
    def low(self) -> float:
        return float(np.clip(self.residual - self.error, 0.0, 1.0))

    @property
    def high(self) -> float:
        return float(np.clip(self.residual + self.error, 0.0, 1.0))


def attack_result(
    attack: str,
    n_attacks: int,
    main: float,
    control: float,
    confidence: float = CONFIDENCE,
    baseline: float | None = None,
) -> AttackResult:
    """The risk of an attack with ``main`` and ``control`` expected successes out of
    ``n_attacks`` each: (r_main − r_control)/(1 − r_control), the error propagated to
    first order from both rates' half-widths (Giomi et al. 2023, risk estimation); with
    the ``baseline``'s expected successes, its Wilson rate too."""
    r_main = success_rate(n_attacks, main, confidence)
    r_control = success_rate(n_attacks, control, confidence)
    # Giomi et al. 2023: R = (r_train − r_control) / (1 − r_control)
    residual = (r_main.value - r_control.value) / (1.0 - r_control.value)
    d_main = 1.0 / abs(1.0 - r_control.value)
    d_control = (r_main.value - 1.0) / (1.0 - r_control.value) ** 2
    # first-order error propagation, as anonymeter's residual_success
    error = float(np.hypot(r_main.error * d_main, r_control.error * d_control))
    r_baseline = None if baseline is None else success_rate(n_attacks, baseline, confidence)
    return AttackResult(
        attack, n_attacks, main, control, r_main, r_control, residual, error, baseline, r_baseline
    )


# --- nearest released records, ties included --------------------------------------------


def gower_embedding(
    attributes: Sequence[Attribute], columns: Sequence[int], *blocks: np.ndarray
) -> list[np.ndarray]:
    """``blocks`` (arrays of the protected attributes) in a space whose L1 distance is
    anonymeter's Gower distance on ``columns``: a numerical column divided by its range over
    all blocks (1 if constant), a categorical one as a one-hot code times ½ (so two
    different categories are 1 apart)."""
    parts: list[list[np.ndarray]] = [[] for _ in blocks]
    for j in columns:
        stacked = np.concatenate([b[:, j] for b in blocks])
        if attributes[j].categorical:
            codes, inverse = np.unique(stacked, return_inverse=True)
            onehot = 0.5 * np.eye(len(codes))[inverse.reshape(-1)]
            splits = np.cumsum([len(b) for b in blocks])[:-1]
            for part, block in zip(parts, np.split(onehot, splits), strict=True):
                part.append(block)
        else:
            span = float(stacked.max() - stacked.min()) if len(stacked) else 0.0
            for part, block in zip(parts, blocks, strict=True):
                part.append((block[:, j] / (span if span > 0 else 1.0))[:, None])
    return [
        np.hstack(p) if p else np.empty((len(b), 0)) for p, b in zip(parts, blocks, strict=True)
    ]


def nearest_points(points: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (query, point) pair where ``points[point]`` (distinct rows) is one of the
    query's nearest in L1 distance, ties included, sorted by query (an exact k-d tree,
    scipy's cKDTree; ties within a relative :data:`TIE_WIDENING` of the nearest)."""
    from scipy.spatial import cKDTree

    tree = cKDTree(points)
    nearest, _ = tree.query(queries, k=1, p=1)
    found = tree.query_ball_point(queries, nearest * (1.0 + TIE_WIDENING) + 1e-300, p=1)
    sizes = np.fromiter(map(len, found), dtype=np.int64, count=len(queries))
    point = np.fromiter((p for f in found for p in f), dtype=np.int64, count=int(sizes.sum()))
    return np.repeat(np.arange(len(queries)), sizes), point


def _ranges(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The concatenated ranges ``starts[i] … starts[i] + lengths[i] − 1``."""
    offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
    return offsets + np.arange(int(lengths.sum()))


def nearest_records(candidates: np.ndarray, queries: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every (query, candidate row) pair where the candidate is one of the query's nearest
    in L1 distance, ties included, sorted by query: identical candidates are searched once
    (:func:`nearest_points`) and expanded back to their rows."""
    distinct, inverse = np.unique(candidates, axis=0, return_inverse=True)
    inverse = inverse.reshape(-1)
    query, point = nearest_points(distinct, queries)
    order = np.argsort(inverse, kind="stable")  # the rows of each distinct candidate
    counts = np.bincount(inverse, minlength=len(distinct))
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    return np.repeat(query, counts[point]), order[_ranges(starts[point], counts[point])]


# --- the three attacks -------------------------------------------------------------------


def _targets(records: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` records drawn without replacement (anonymeter's ``sample(n_attacks)``)."""
    return records[rng.choice(len(records), size=n, replace=False)]


def link_probabilities(
    released: np.ndarray,
    targets: np.ndarray,
    attributes: Sequence[Attribute],
    halves: tuple[Sequence[int], Sequence[int]],
) -> np.ndarray:
    """Per target, the probability that its two halves (``halves``: column positions) pick
    the same released record as nearest, each picking uniformly among its tied nearest
    records T₀, T₁: |T₀ ∩ T₁| / (|T₀|·|T₁|) (Giomi et al. 2023, linkability, n_neighbors =
    1). Counted on distinct released half-records: |T₀ ∩ T₁| sums the released records
    whose two halves are a tied pair."""
    n = len(targets)
    found, distinct = [], []
    for columns in halves:
        rel, tar = gower_embedding(attributes, columns, released, targets)
        points, inverse = np.unique(rel, axis=0, return_inverse=True)
        distinct.append((inverse.reshape(-1), np.bincount(inverse.reshape(-1))))
        found.append(nearest_points(points, tar))
    (q0, a), (q1, b) = found
    (inv0, mult0), (inv1, mult1) = distinct
    # released records per pair of distinct halves
    pairs, pair_counts = np.unique(inv0 * len(mult1) + inv1, return_counts=True)
    # every (tied half-0 point, tied half-1 point) of each target
    per1 = np.bincount(q1, minlength=n)
    start1 = np.concatenate([[0], np.cumsum(per1)[:-1]])
    left = np.repeat(np.arange(len(a)), per1[q0])
    right = _ranges(start1[q0], per1[q0])
    keys = a[left] * len(mult1) + b[right]
    at = np.minimum(np.searchsorted(pairs, keys), len(pairs) - 1)
    # Giomi et al. 2023, "Linkability": linked when both halves' nearest records coincide
    shared = np.bincount(
        q0[left], weights=np.where(pairs[at] == keys, pair_counts[at], 0), minlength=n
    )
    size0 = np.bincount(q0, weights=mult0[a], minlength=n)
    size1 = np.bincount(q1, weights=mult1[b], minlength=n)
    return shared / (size0 * size1)


def guess_probabilities(
    released: np.ndarray,
    targets: np.ndarray,
    attributes: Sequence[Attribute],
    aux: Sequence[int],
    secret: int,
) -> np.ndarray:
    """Per target, the probability that the ``secret`` attribute of a released record drawn
    among its nearest on the ``aux`` columns is right (Giomi et al. 2023, inference):
    equal for a category, within :data:`TOLERANCE` · |guess| for a number."""
    rel, tar = gower_embedding(attributes, aux, released, targets)
    query, rows = nearest_records(rel, tar)
    guess, truth = released[rows, secret], targets[query, secret]
    # Giomi et al. 2023, "Inference": the secret of the nearest released record, if right
    if attributes[secret].categorical:
        right = guess == truth
    else:
        # anonymeter's evaluate_inference_guesses, with |guess| in the denominator
        right = np.abs(guess - truth) <= TOLERANCE * np.abs(guess)
    return np.bincount(query, weights=right, minlength=len(targets)) / np.bincount(
        query, minlength=len(targets)
    )


def _halves(m: int) -> tuple[list[int], list[int]]:
    """The attacker's two data sets: the first ⌈m/2⌉ protected attributes and the rest."""
    cut = (m + 1) // 2
    return list(range(cut)), list(range(cut, m))


def secrets_and_aux(view: Dataset) -> list[tuple[int, list[int]]]:
    """``(secret, aux)`` column positions of the inference attacks: each confidential
    attribute from the quasi-identifiers when the data set declares both roles, else each
    attribute from all the others."""
    roles = [a.role for a in view.protected_attributes]
    qis = [j for j, r in enumerate(roles) if r == "quasi_identifier"]
    confidential = [j for j, r in enumerate(roles) if r == "confidential"]
    if qis and confidential:
        return [(s, qis) for s in confidential]
    m = len(roles)
    return [(s, [j for j in range(m) if j != s]) for s in range(m)]


def _parts(release: Release, metric: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Training, control and released values; a release without control records raises."""
    if release.control is None:
        raise ParameterError(
            f"metric {metric!r} compares an attack on the records the release was made from "
            "with one on held-out control records, and this release has none: give "
            "control records (anonlab.evaluate(..., control=FRAME)); an experiment holds "
            "them out itself"
        )
    return release.dataset.protected_values, release.control.protected_values, release.values


def _check_m(metric: str, m: int, least: int) -> None:
    if m < least:
        raise ParameterError(
            f"metric {metric!r} needs at least {least} protected attributes, got m={m}"
        )


def linkability_attack(
    training: np.ndarray,
    control: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    rng: np.random.Generator,
    n_attacks: int = N_ATTACKS[0],
    baseline: bool = False,
) -> AttackResult:
    """The linkability attack on ``n_attacks`` training and as many control records (at
    most the smaller part), halves split by :func:`_halves`; with ``baseline``, the
    random links' expected successes too: n / (released records)."""
    _check_m("linkability", training.shape[1], 2)
    n = min(check_int(n_attacks, "n_attacks", 1), len(training), len(control))
    halves = _halves(training.shape[1])
    main = link_probabilities(released, _targets(training, n, rng), attributes, halves)
    held = link_probabilities(released, _targets(control, n, rng), attributes, halves)
    # anonymeter's _random_links, n_neighbors = 1: two uniform picks coincide w.p. 1/N
    random = n / len(released) if baseline else None
    return attack_result("linkability", n, float(main.sum()), float(held.sum()), baseline=random)


def random_guess_probabilities(
    guesses: np.ndarray, secrets: np.ndarray, categorical: bool
) -> np.ndarray:
    """Per target secret, the probability that the secret of a released record drawn at
    random (``guesses``: the released secrets) is right, as :func:`guess_probabilities`
    judges a guess (anonymeter's baseline, ``naive=True``): the share of released records
    whose secret is equal (a category) or within :data:`TOLERANCE` · |guess| (a number).
    Distinct released secrets are compared once, with their counts."""
    values, counts = np.unique(guesses, return_counts=True)
    out = np.empty(len(secrets))
    chunk = max(1, (16 * 2**20) // max(1, 8 * len(values)))
    for start in range(0, len(secrets), chunk):
        truth = secrets[start : start + chunk, None]
        if categorical:
            right = values[None, :] == truth
        else:
            right = np.abs(values[None, :] - truth) <= TOLERANCE * np.abs(values[None, :])
        out[start : start + chunk] = right @ counts
    return out / len(guesses)


def inference_attack(
    training: np.ndarray,
    control: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    rng: np.random.Generator,
    secret: int,
    aux: Sequence[int],
    n_attacks: int = N_ATTACKS[0],
    baseline: bool = False,
) -> AttackResult:
    """The inference attack on attribute ``secret`` from the ``aux`` attributes, against
    ``n_attacks`` training and as many control records (at most the smaller part); with
    ``baseline``, the random guesses' expected successes on the same training targets
    (:func:`random_guess_probabilities`)."""
    n = min(check_int(n_attacks, "n_attacks", 1), len(training), len(control))
    targets = _targets(training, n, rng)
    main = guess_probabilities(released, targets, attributes, aux, secret)
    held = guess_probabilities(released, _targets(control, n, rng), attributes, aux, secret)
    random = None
    if baseline:
        categorical = attributes[secret].categorical
        guessed = random_guess_probabilities(released[:, secret], targets[:, secret], categorical)
        random = float(guessed.sum())
    return attack_result(
        "attribute_inference", n, float(main.sum()), float(held.sum()), baseline=random
    )


def _count_matches(data: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """How many rows of ``data`` each predicate (``low[b] ≤ row ≤ high[b]`` on every
    column) matches, in chunks of predicates so a chunk's mask stays near 16 MB."""
    counts = np.empty(len(low), dtype=np.int64)
    chunk = max(1, (16 * 2**20) // max(1, len(data)))
    for start in range(0, len(low), chunk):
        lo, hi = low[start : start + chunk], high[start : start + chunk]
        inside = np.ones((len(lo), len(data)), dtype=bool)
        for j in range(data.shape[1]):
            bounded = np.isfinite(lo[:, j]) | np.isfinite(hi[:, j])
            if bounded.any():
                column = data[:, j]
                rows = np.flatnonzero(bounded)
                inside[rows] &= (column >= lo[rows, j, None]) & (column <= hi[rows, j, None])
        counts[start : start + chunk] = inside.sum(axis=1)
    return counts


def univariate_predicates(
    released: np.ndarray, attributes: Sequence[Attribute], rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    """anonymeter's univariate predicates of the distinct released records, shuffled:
    per numerical column "≤ its minimum" and "≥ its maximum", and per column "= v" for
    each value v that one distinct record holds (Giomi et al. 2023, singling out)."""
    m = released.shape[1]
    low, high = [], []
    for j in range(m):
        column = released[:, j]
        bounds = []
        if not attributes[j].categorical and len(column):
            bounds += [(-np.inf, column.min()), (column.max(), np.inf)]
        values, counts = np.unique(column, return_counts=True)
        bounds += [(v, v) for v in values[counts == 1]]
        for lo, hi in bounds:
            row_lo, row_hi = np.full(m, -np.inf), np.full(m, np.inf)
            row_lo[j], row_hi[j] = lo, hi
            low.append(row_lo)
            high.append(row_hi)
    order = rng.permutation(len(low))
    shape = (0, m)
    return (
        np.array(low, dtype=float).reshape(-1, m)[order] if low else np.empty(shape),
        np.array(high, dtype=float).reshape(-1, m)[order] if high else np.empty(shape),
    )


def multivariate_predicates(
    released: np.ndarray,
    attributes: Sequence[Attribute],
    rng: np.random.Generator,
    n_predicates: int,
) -> tuple[np.ndarray, np.ndarray]:
    """anonymeter's multivariate predicates: a random distinct released record and min(3,
    m) random attributes; a number above the release's median gives "≥ value", else
    "≤ value", a category "= value". Kept when it matches exactly one distinct released
    record and is new, until ``n_predicates``, :data:`MAX_ATTEMPTS` candidates or
    :data:`BARREN` batches without a new one (Giomi et al. 2023, singling out)."""
    n, m = released.shape
    n_cols = min(N_COLS, m)
    median = np.median(released, axis=0)
    categorical = np.array([a.categorical for a in attributes])
    seen: set[bytes] = set()
    low, high = [], []
    attempts = barren = 0
    while len(low) < n_predicates and attempts < MAX_ATTEMPTS and barren < BARREN:
        batch = min(BATCH, MAX_ATTEMPTS - attempts)
        attempts += batch
        record = released[rng.integers(n, size=batch)]
        columns = np.argsort(rng.random((batch, m)), axis=1)[:, :n_cols]
        chosen = np.zeros((batch, m), dtype=bool)
        np.put_along_axis(chosen, columns, True, axis=1)
        above = (record > median) & ~categorical
        equal = categorical[None, :] & chosen
        lo = np.where(chosen & (above | equal), record, -np.inf)
        hi = np.where(chosen & (~above | equal), record, np.inf)
        unique = _count_matches(released, lo, hi) == 1
        before = len(low)
        for b in np.flatnonzero(unique):
            key = lo[b].tobytes() + hi[b].tobytes()
            if key not in seen and len(low) < n_predicates:
                seen.add(key)
                low.append(lo[b])
                high.append(hi[b])
        barren = barren + 1 if len(low) == before else 0
    if not low:
        return np.empty((0, m)), np.empty((0, m))
    return np.array(low), np.array(high)


#: the operators of random predicates: a number is compared by any, a category by the
#: first two (anonymeter's ``_random_operator``)
OPERATORS: tuple[str, ...] = ("==", "!=", ">", "<", ">=", "<=")


def random_predicates(
    released: np.ndarray,
    attributes: Sequence[Attribute],
    n_predicates: int,
    n_cols: int,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """anonymeter's baseline predicates (``_random_queries``): each on ``n_cols``
    attributes drawn without replacement, each attribute compared by a random operator
    (:data:`OPERATORS`; == or != for a category) with one of its distinct released
    values drawn uniformly. Returns the attributes, values and operator codes, each
    ``(n_predicates, n_cols)``."""
    m = released.shape[1]
    columns = np.argsort(rng.random((n_predicates, m)), axis=1)[:, :n_cols]
    distinct = [np.unique(released[:, j]) for j in range(m)]
    sizes = np.array([len(d) for d in distinct])
    picks = np.floor(rng.random(columns.shape) * sizes[columns]).astype(np.int64)
    values = np.empty(columns.shape)
    for j in range(m):
        chosen = columns == j
        values[chosen] = distinct[j][picks[chosen]]
    categorical = np.array([a.categorical for a in attributes])
    choices = np.where(categorical[columns], 2, len(OPERATORS))
    operators = np.floor(rng.random(columns.shape) * choices).astype(np.int64)
    return columns, values, operators


def count_random_matches(
    data: np.ndarray, columns: np.ndarray, values: np.ndarray, operators: np.ndarray
) -> np.ndarray:
    """How many rows of ``data`` each predicate of :func:`random_predicates` matches, in
    chunks of predicates so a chunk's masks stay near 16 MB."""
    counts = np.empty(len(columns), dtype=np.int64)
    chunk = max(1, (2 * 2**20) // max(1, len(data)))
    for start in range(0, len(columns), chunk):
        rows = slice(start, start + chunk)
        inside = np.ones((len(columns[rows]), len(data)), dtype=bool)
        for c in range(columns.shape[1]):
            column = data.T[columns[rows, c]]  # (predicates, records)
            value = values[rows, c, None]
            equal, above = column == value, column > value
            below = ~equal & ~above
            outcomes = np.stack([equal, ~equal, above, below, above | equal, below | equal])
            inside &= np.take_along_axis(outcomes, operators[None, rows, c, None], axis=0)[0]
        counts[rows] = inside.sum(axis=1)
    return counts


def singling_out_attack(
    training: np.ndarray,
    control: np.ndarray,
    released: np.ndarray,
    attributes: Sequence[Attribute],
    rng: np.random.Generator,
    mode: str = MODES[0],
    n_attacks: int = N_ATTACKS[0],
    baseline: bool = False,
) -> AttackResult:
    """The singling-out attack: up to ``n_attacks`` predicates that single out a distinct
    released record; successes are those matching exactly one distinct training record,
    and one distinct control record, the larger part subsampled to the smaller's size.
    Rates are out of ``n_attacks``, as anonymeter counts them. With ``baseline``, also
    ``n_attacks`` random predicates (:func:`random_predicates`, drawn from a stream of
    their own) matched against the same training records."""
    n_attacks = check_int(n_attacks, "n_attacks", 1)
    check_choice(mode, "mode", MODES)
    released = np.unique(released, axis=0)
    training, control = np.unique(training, axis=0), np.unique(control, axis=0)
    size = min(len(training), len(control))
    training = _targets(training, size, rng) if len(training) > size else training
    control = _targets(control, size, rng) if len(control) > size else control
    if mode == "univariate":
        low, high = univariate_predicates(released, attributes, rng)
        keep = np.flatnonzero(_count_matches(released, low, high) == 1)[:n_attacks]
        low, high = low[keep], high[keep]
    else:
        low, high = multivariate_predicates(released, attributes, rng, n_attacks)
    # Giomi et al. 2023, "Singling out": a predicate matching exactly one original record
    main = int(np.sum(_count_matches(training, low, high) == 1))
    held = int(np.sum(_count_matches(control, low, high) == 1))
    random = None
    if baseline:
        n_cols = 1 if mode == "univariate" else min(N_COLS, released.shape[1])
        stream = side_stream(rng, BASELINE_STREAM)
        drawn = random_predicates(released, attributes, n_attacks, n_cols, stream)
        random = float(np.sum(count_random_matches(training, *drawn) == 1))
    return attack_result(f"singling_out ({mode})", n_attacks, main, held, baseline=random)


# --- the metrics -------------------------------------------------------------------------


def reported(result: AttackResult, report: str, risk: float | None = None) -> float | dict:
    """What a metric returns under option ``report`` (:data:`REPORTS`): the clipped risk
    (``risk``, or the one given), or with ``rates`` one value per part: ``risk``,
    ``attack_rate``, ``control_rate`` and ``baseline_rate`` (Wilson estimates, as
    anonymeter's ``EvaluationResults``)."""
    risk = result.risk if risk is None else risk
    if report == "risk":
        return risk
    if result.baseline_rate is None:
        raise ValueError(f"{result.attack}: the attack was run without its baseline")
    return {
        "risk": risk,
        "attack_rate": result.main_rate.value,
        "control_rate": result.control_rate.value,
        "baseline_rate": result.baseline_rate.value,
    }


def singling_out(
    view: Dataset,
    release: Release,
    rng: np.random.Generator,
    mode: str = MODES[0],
    n_attacks: int = N_ATTACKS[0],
    control: float = CONTROL_SHARES[0],
    report: str = REPORTS[0],
) -> float | dict[str, float]:
    """Singling-out risk (:func:`singling_out_attack`) of ``release`` against its control
    records; ``control`` (the share held out) is read by whoever made the release;
    ``report`` as :func:`reported`."""
    training, held, released = _parts(release, "singling_out")
    attributes = view.protected_attributes
    result = singling_out_attack(
        training, held, released, attributes, rng, mode, n_attacks, report == "rates"
    )
    return reported(result, report)


def linkability(
    view: Dataset,
    release: Release,
    rng: np.random.Generator,
    n_attacks: int = N_ATTACKS[0],
    control: float = CONTROL_SHARES[0],
    report: str = REPORTS[0],
) -> float | dict[str, float]:
    """Linkability risk (:func:`linkability_attack`) of ``release``; ``report`` as
    :func:`reported`."""
    training, held, released = _parts(release, "linkability")
    result = linkability_attack(
        training, held, released, view.protected_attributes, rng, n_attacks, report == "rates"
    )
    return reported(result, report)


def inference_attacks(
    view: Dataset,
    release: Release,
    rng: np.random.Generator,
    n_attacks: int = N_ATTACKS[0],
    baseline: bool = False,
) -> list[AttackResult]:
    """One inference attack per secret (:func:`secrets_and_aux`), with its baseline if
    ``baseline``."""
    training, held, released = _parts(release, "attribute_inference")
    _check_m("attribute_inference", training.shape[1], 2)
    attributes = view.protected_attributes
    return [
        inference_attack(
            training, held, released, attributes, rng, secret, aux, n_attacks, baseline
        )
        for secret, aux in secrets_and_aux(view)
    ]


def mean_result(results: Sequence[AttackResult]) -> AttackResult:
    """The mean of several attacks' results; its error is the mean of their errors, an
    interval valid whatever their correlation (they share targets)."""
    if len(results) == 1:
        return results[0]
    first = results[0]
    return AttackResult(
        first.attack,
        first.n_attacks,
        float(np.mean([r.main for r in results])),
        float(np.mean([r.control for r in results])),
        Rate(*np.mean([(r.main_rate.value, r.main_rate.error) for r in results], axis=0)),
        Rate(*np.mean([(r.control_rate.value, r.control_rate.error) for r in results], axis=0)),
        float(np.mean([r.residual for r in results])),
        float(np.mean([r.error for r in results])),
        *_mean_baseline(results),
    )


def _mean_baseline(results: Sequence[AttackResult]) -> tuple[float | None, Rate | None]:
    """The mean baseline successes and rate of ``results``, ``None`` if one lacks them."""
    if any(r.baseline_rate is None for r in results):
        return None, None
    rates = np.mean([(r.baseline_rate.value, r.baseline_rate.error) for r in results], axis=0)
    return float(np.mean([r.baseline for r in results])), Rate(*rates)


def attribute_inference(
    view: Dataset,
    release: Release,
    rng: np.random.Generator,
    n_attacks: int = N_ATTACKS[0],
    control: float = CONTROL_SHARES[0],
    report: str = REPORTS[0],
) -> float | dict[str, float]:
    """Attribute-inference risk: the mean over secrets of each inference attack's
    clipped risk; ``report`` as :func:`reported`, the rates the means over secrets."""
    results = inference_attacks(view, release, rng, n_attacks, report == "rates")
    risk = float(np.mean([r.risk for r in results]))
    return reported(mean_result(results), report, risk)


_CONTROL_NOTE = (
    "; a share of the data (option control) is held out and the method rerun on the rest; "
    "option report: rates gives one row per part, the risk and the Wilson rates of the "
    "main, control and random-guess baseline attacks"
)
SINGLING_OUT = ReleaseMetric(
    "singling_out",
    singling_out,
    "singling-out risk (Giomi et al. 2023, anonymeter): predicates that isolate one "
    "released record, judged on training against control records, risk (r_main − "
    "r_control)/(1 − r_control) (option mode: multivariate | univariate)" + _CONTROL_NOTE,
    randomized=True,
    option_choices={
        "mode": MODES,
        "n_attacks": N_ATTACKS,
        "control": CONTROL_SHARES,
        "report": REPORTS,
    },
    requires=("control",),
    label="Singling-out risk (vs control)",
    cost=Cost("n", seconds=3.5e-5),  # each predicate matched against every record
)
LINKABILITY = ReleaseMetric(
    "linkability",
    linkability,
    "linkability risk (Giomi et al. 2023, anonymeter): a record's two halves of the "
    "attributes linked by the same nearest released record (Gower distance), training "
    "against control records" + _CONTROL_NOTE,
    randomized=True,
    option_choices={"n_attacks": N_ATTACKS, "control": CONTROL_SHARES, "report": REPORTS},
    requires=("control",),
    label="Linkability risk (vs control)",
    cost=Cost("n*m", seconds=6e-7),  # nearest released records of both halves
)
ATTRIBUTE_INFERENCE = ReleaseMetric(
    "attribute_inference",
    attribute_inference,
    "attribute-inference risk (Giomi et al. 2023, anonymeter): a confidential attribute "
    "guessed from the nearest released record on the quasi-identifiers (all others without "
    "roles), training against control records, mean over secrets" + _CONTROL_NOTE,
    randomized=True,
    option_choices={"n_attacks": N_ATTACKS, "control": CONTROL_SHARES, "report": REPORTS},
    requires=("control",),
    label="Attribute-inference risk (vs control)",
    cost=Cost("n*m^2", seconds=5e-7),  # one nearest-record search per secret
)
