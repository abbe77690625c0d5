""" "About N repetitions would decide it" is computed at the levels the verdict uses
(partial conjunction for shares) and checked by prediction and rerun: claims within noise
at 4 repetitions, rerun at the number they name, are decided far more often than at 4,
and a share's estimate is not that of an "every point" claim."""

from __future__ import annotations

import numpy as np

from anonlab.report.claims.stats import WITHIN_NOISE, Quantity, judge, tally

GAPS = np.array([0.6, 0.8, 1.0, 1.2, 1.5, 2.0])  # true gaps, in units of one draw's sd


def verdict(n: int, need: int, rng: np.random.Generator):
    draws = rng.normal(GAPS[:, None], 1.0, size=(len(GAPS), n))
    q = Quantity.of(draws.mean(axis=1), draws.std(axis=1, ddof=1) / np.sqrt(n), n - 1, n)
    return tally(judge(q, 0.0), need)


def decided_share(n_of: callable, need: int, seed: int, runs: int = 60) -> tuple[float, float]:
    """Of the claims within noise at 4 repetitions, the share decided at 4 (fresh draws)
    and at the repetitions the first verdict named."""
    rng = np.random.default_rng(seed)
    at_four, at_named, count = 0, 0, 0
    for _ in range(runs):
        first = verdict(4, need, rng)
        if first.status != WITHIN_NOISE or first.reps is None or first.reps > 200:
            continue
        count += 1
        at_four += verdict(4, need, rng).status != WITHIN_NOISE
        at_named += verdict(n_of(first), need, rng).status != WITHIN_NOISE
    return at_four / max(count, 1), at_named / max(count, 1)


def test_rerunning_at_the_named_repetitions_decides_more_often():
    for need in (len(GAPS), 4):
        at_four, at_named = decided_share(lambda first: first.reps, need, seed=need)
        assert at_named >= at_four + 0.2 and at_named >= 0.4, (need, at_four, at_named)


def test_a_share_names_its_own_repetitions():
    rng = np.random.default_rng(9)
    draws = rng.normal(GAPS[:, None], 1.0, size=(len(GAPS), 4))
    q = Quantity.of(draws.mean(axis=1), draws.std(axis=1, ddof=1) / 2, 3, 4)
    every, share = tally(judge(q, 0.0), len(GAPS)), tally(judge(q, 0.0), 4)
    assert every.reps is not None and share.reps is not None and every.reps != share.reps


def test_within_noise_says_whether_more_data_could_decide_it():
    from anonlab.report.claims import ClaimResult
    from anonlab.report.render import _verdict_line

    more = ClaimResult("c", "DP-IR", "§", "q", "ordering", WITHIN_NOISE, "ours", reps=12)
    stuck = ClaimResult("c", "DP-IR", "§", "q", "ordering", WITHIN_NOISE, "ours", reps=None)
    assert "needs more data: about 12 repetitions" in _verdict_line(more)
    assert "undecidable as encoded" in _verdict_line(stuck)
