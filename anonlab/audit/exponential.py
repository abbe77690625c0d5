"""The exponential mechanism's audit: which candidates each sampler can choose, and a
sampled lower bound on ε.

numpy's ``Generator.gumbel`` draws U = 1 − k·2^−53, k = 0 … 2^53 − 1 (``next_double``,
53-bit doubles), rejects U = 1 and returns ``loc − scale·log(−log(U))`` (numpy
random/src/distributions/distributions.c, ``random_gumbel``). Its draws are an
increasing function of U, so they lie in [G_lo, G_hi] = [−log(−log(2^−53)),
−log(−log(1 − 2^−53))] = [−3.604, 36.737], both ends taken (:data:`GUMBEL_LOW`,
:data:`GUMBEL_HIGH`, computed with the C library's log, as numpy's C code). Gumbel-max
picks the first index of the largest fl(ℓ_c + g_c), which grows with g_c, so candidate c
can be chosen iff it wins with g_c = G_hi and every other g = G_lo
(:func:`gumbel_reachable`, exact): a candidate more than G_hi − G_lo = 40.34 logits below
the best never is, and a neighbour that brings it within 40.34 logits makes it possible,
an unbounded privacy loss. The exact sampler
(:func:`~anonlab.mechanisms.exponential.exact_exponential`) gives every candidate a
probability of at least exp(−γ'_c)/K > 0: it never has such a candidate.

Design (:func:`exponential_audit`): on D, K candidates at logit gaps 0, h, 2h, …, L below
the best (L the utility range in logits, range·ε/(2Δq); h = ε/2); the event
S = {gap on D ≥ min(:data:`TAIL`, L)}, fixed before any draw; on the neighbour D′ the
qualities of S rise by Δq and the others fall by Δq (each moves by the sensitivity), so
each gap in S shrinks by ε. Many selections on each give ε ≥ ln(P_D′[S] / P_D[S]) with
Clopper–Pearson bounds (:func:`anonlab.audit.bounds.epsilon_lower_bound`).

``python -m anonlab.audit.exponential`` prints the table at L = 10, 40, 60, 200 for both
samplers; ``benchmarks/audits/exponential_audit.py`` adds each sampler's cost per selection.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from anonlab.audit.bounds import epsilon_estimate, epsilon_lower_bound
from anonlab.mechanisms import SAMPLERS
from anonlab.mechanisms.exponential import ExponentialMechanism
from anonlab.validation import ParameterError, check_choice, check_epsilon, check_int

#: numpy's smallest and largest Gumbel draws: U = 2^−53 and U = 1 − 2^−53
GUMBEL_LOW = -math.log(-math.log(2.0**-53))
GUMBEL_HIGH = -math.log(-math.log(1.0 - 2.0**-53))
#: utility ranges audited, in logits (range·ε/(2Δq))
RANGES = (10.0, 40.0, 60.0, 200.0)
#: the event S: the chosen candidate lies at least this many logits below the best on D
TAIL = 7.0
#: selections from each of D and D′ by default
SELECTIONS = 100_000
#: joint confidence of the bound (two one-sided Clopper–Pearson bounds)
CONFIDENCE = 0.95
#: the sensitivity Δq of the design (the bound depends on range·ε/(2Δq) only)
SENSITIVITY = 1.0
#: quality entries per call of the mechanism (selections are drawn in chunks of rows)
CHUNK = 2**21


def gumbel_reachable(logits: np.ndarray) -> np.ndarray:
    """Whether numpy's Gumbel-max (``argmax(logits + gumbel)``) can choose each candidate,
    exactly: c wins with g_c = :data:`GUMBEL_HIGH` and every other g = :data:`GUMBEL_LOW`
    (> every earlier sum, ≥ every later one: ``argmax`` keeps the first maximum).

    Parameters
    ----------
    logits : float array (candidates,), the log-weights Gumbel-max adds its draws to.

    Returns
    -------
    bool array (candidates,).
    """
    logits = np.asarray(logits, dtype=float)
    high = logits + GUMBEL_HIGH
    low = logits + GUMBEL_LOW
    before = np.concatenate([[-np.inf], np.maximum.accumulate(low)[:-1]])
    after = np.concatenate([np.maximum.accumulate(low[::-1])[::-1][1:], [-np.inf]])
    return (high > before) & (high >= after)


def reachable(sampler: str, logits: np.ndarray) -> np.ndarray:
    """Whether ``sampler`` can choose each candidate: :func:`gumbel_reachable` for
    ``numpy``; every candidate of finite logit for ``discrete`` (its probability is at
    least exp(−γ'_c)/K > 0)."""
    check_choice(sampler, "sampler", SAMPLERS)
    logits = np.asarray(logits, dtype=float)
    if sampler == "numpy":
        return gumbel_reachable(logits)
    return np.isfinite(logits)


def design(logit_range: float, epsilon: float, spacing: float | None = None) -> tuple:
    """The two data sets' qualities: ``(gaps, quality_d, quality_d2, in_event)``.

    ``gaps`` are the candidates' logit gaps to the best on D (0, h, …, L, h = ``spacing``,
    ε/2 by default), ``quality_d = −gap·2Δq/ε``; on D′ the candidates of the event (gap
    ≥ min(:data:`TAIL`, L)) gain Δq and the others lose Δq.
    """
    h = epsilon / 2 if spacing is None else float(spacing)
    if not (math.isfinite(logit_range) and logit_range > 0 and h > 0):
        raise ParameterError(f"the range must be > 0 and the spacing > 0, got {logit_range}")
    gaps = h * np.arange(int(math.floor(logit_range / h + 1e-9)) + 1)
    quality = -gaps * (2 * SENSITIVITY / epsilon)
    in_event = gaps >= min(TAIL, logit_range)
    moved = quality + np.where(in_event, SENSITIVITY, -SENSITIVITY)
    return gaps, quality, moved, in_event


@dataclass(frozen=True)
class ExponentialAudit:
    """One row of the table: ``sampler`` at utility range ``logit_range`` (logits).

    ``newly_reachable`` candidates have probability 0 on D and > 0 on D′ (an unbounded
    loss), ``p_newly`` their probability on D′ under the exact law (what sampling would
    need to see them); ``hits_d`` and ``hits_d2`` of ``selections`` on D and D′ fell in
    the event S, ``epsilon_lower`` the bound they give at ``confidence``,
    ``epsilon_estimate`` the plug-in, ``event_loss`` ln(P_D′[S]/P_D[S]) under the exact
    law (the most the bound can reach).
    """

    sampler: str
    logit_range: float
    epsilon: float
    candidates: int
    newly_reachable: int
    p_newly: float
    selections: int
    hits_d: int
    hits_d2: int
    epsilon_lower: float
    epsilon_estimate: float
    event_loss: float
    confidence: float = CONFIDENCE

    @property
    def loss(self) -> float:
        """The privacy loss the analysis gives: ∞ with a newly reachable candidate, else ε
        (the mechanism's proof; the exact sampler's Notes)."""
        return math.inf if self.newly_reachable else self.epsilon


def _selections(
    mechanism: ExponentialMechanism, quality: np.ndarray, runs: int, rng: np.random.Generator
) -> np.ndarray:
    """``runs`` selections from the row ``quality``, in chunks of :data:`CHUNK` entries."""
    rows = max(1, CHUNK // quality.size)
    chosen = [
        mechanism.select(np.broadcast_to(quality, (min(rows, runs - start), quality.size)), rng)
        for start in range(0, runs, rows)
    ]
    return np.concatenate(chosen)


def exponential_audit(
    sampler: str,
    logit_range: float,
    epsilon: float = 1.0,
    selections: int = SELECTIONS,
    seed: int = 0,
    *,
    spacing: float | None = None,
) -> ExponentialAudit:
    """Reachability and a sampled lower bound on ε for ``sampler`` at ``logit_range``.

    Parameters
    ----------
    sampler : one of :data:`~anonlab.mechanisms.SAMPLERS` (``numpy``: Gumbel-max;
        ``discrete``: the exact sampler).
    logit_range : L, the utility range on D in logits, range·ε/(2Δq).
    epsilon : ε of the mechanism.
    selections : selections from each of D and D′.
    seed : ``SeedSequence(seed)``'s children 0 and 1 draw those of D and D′.
    spacing : the candidates' logit spacing h (ε/2 by default: some candidate lies in
        every interval of ε logits, so a neighbour can bring one within reach).

    Returns
    -------
    :class:`ExponentialAudit`.
    """
    check_choice(sampler, "sampler", SAMPLERS)
    epsilon = check_epsilon(epsilon)
    selections = check_int(selections, "selections", 1)
    seed = check_int(seed, "seed", 0)
    _, quality, moved, in_event = design(logit_range, epsilon, spacing)
    mechanism = ExponentialMechanism(epsilon, SENSITIVITY, sampler)
    on_d = reachable(sampler, mechanism.log_weights(quality))
    on_d2 = reachable(sampler, mechanism.log_weights(moved))
    newly = on_d2 & ~on_d
    exact_d, exact_d2 = mechanism.probabilities(quality), mechanism.probabilities(moved)
    hits = []
    for data, stream in zip((quality, moved), np.random.SeedSequence(seed).spawn(2), strict=True):
        chosen = _selections(mechanism, data, selections, np.random.default_rng(stream))
        hits.append(int(np.count_nonzero(in_event[chosen])))
    beta = (1 - CONFIDENCE) / 2
    return ExponentialAudit(
        sampler=sampler,
        logit_range=float(logit_range),
        epsilon=epsilon,
        candidates=quality.size,
        newly_reachable=int(np.count_nonzero(newly)),
        p_newly=float(exact_d2[newly].sum()),
        selections=selections,
        hits_d=hits[0],
        hits_d2=hits[1],
        # ε ≥ ln(P_D′[S] / P_D[S]): D′ is the numerator
        epsilon_lower=float(epsilon_lower_bound(hits[1], selections, hits[0], selections, beta)),
        epsilon_estimate=epsilon_estimate(hits[1], selections, hits[0], selections),
        event_loss=float(np.log(exact_d2[in_event].sum() / exact_d[in_event].sum())),
    )


def audit_table(
    ranges: tuple[float, ...] = RANGES,
    epsilon: float = 1.0,
    selections: int = SELECTIONS,
    seed: int = 0,
) -> list[ExponentialAudit]:
    """:func:`exponential_audit` for the ``numpy`` sampler (before) and the ``discrete``
    one (after) at each range."""
    return [
        exponential_audit(sampler, logit_range, epsilon, selections, seed)
        for sampler in SAMPLERS
        for logit_range in ranges
    ]


def format_table(rows: list[ExponentialAudit]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| sampler | range (logits) | K | P=0 on D, >0 on D' | their P on D' | loss | "
        f"hits D / D' | ε ≥ ({CONFIDENCE:.0%}) | plug-in | event loss |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for row in rows:
        lines.append(
            f"| {row.sampler} | {row.logit_range:g} | {row.candidates} | "
            f"{row.newly_reachable} | {row.p_newly:.2g} | {row.loss:g} | "
            f"{row.hits_d} / {row.hits_d2} | {row.epsilon_lower:.3f} | "
            f"{row.epsilon_estimate:.3f} | {row.event_loss:.3f} |"
        )
    return "\n".join(lines)


def main() -> int:
    """Print the table (ε = 1, :data:`SELECTIONS` per data set)."""
    rows = audit_table()
    print(
        f"exponential mechanism, epsilon={rows[0].epsilon:g}, Gumbel draws in "
        f"[{GUMBEL_LOW:.4f}, {GUMBEL_HIGH:.4f}] (reach {GUMBEL_HIGH - GUMBEL_LOW:.4f} "
        f"logits); event S: gap on D >= {TAIL:g} logits; {rows[0].selections} selections "
        "from each of D and D'"
    )
    print(format_table(rows))
    return 0


__all__ = [
    "GUMBEL_HIGH",
    "GUMBEL_LOW",
    "ExponentialAudit",
    "audit_table",
    "exponential_audit",
    "format_table",
    "gumbel_reachable",
    "reachable",
]

if __name__ == "__main__":
    raise SystemExit(main())
