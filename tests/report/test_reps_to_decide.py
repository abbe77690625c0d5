""" "About N repetitions would decide it" is computed at the levels the verdict uses
(partial conjunction for shares) and checked by prediction and rerun: claims within noise
at 4 repetitions, rerun at the number they name, are decided far more often than at 4,
and a share's estimate is not that of an "every point" claim."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

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


@pytest.mark.integration  # a simulation: claims drawn and rerun
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


# --- the chance that the next look decides it, and what would decide the undecidable ---------

LOOKS, SPENT = (10, 20, 40), (0.8, 0.1, 0.1)


def _ordering(gap: float, kind: str = "ordering", **fields) -> tuple[dict, object]:
    """A claim "a below b" on one point, b − a = ``gap`` with sd 0.2 over 10 repetitions."""
    from tests.report.test_claim_verdicts import claim, curve, table

    rows = curve("a", {2: 1.0}) + curve("b", {2: 1.0 + gap})
    frame = table([{**r, "sd": 0.2} for r in rows], reps=10)
    return claim(kind, lower="a", higher="b", **fields), frame


@pytest.mark.integration  # a simulation: 800 verdicts on fresh draws
def test_the_predicted_chance_to_decide_is_the_rate_at_which_the_next_look_does():
    from anonlab.report.claims.stats import next_look, spending

    rng = np.random.default_rng(7)
    draws = rng.normal(GAPS[:, None], 1.0, size=(len(GAPS), 4))
    q = Quantity.of(draws.mean(axis=1), draws.std(axis=1, ddof=1) / 2, 3, 4)
    for need in (len(GAPS), 4):
        with spending(0.1):  # a later look's level, at the repetitions the verdict names
            named = tally(judge(q, 0.0), need).reps
            with next_look(named):
                first = tally(judge(q, 0.0), need)
            # the observed means and spreads taken as the truth, drawn again at that look
            fresh = rng.normal(q.est[:, None], 2 * q.se[:, None], size=(400, len(GAPS), named))
            decided = np.mean(
                [
                    tally(judge(Quantity.of(d.mean(1), d.std(1, ddof=1) / np.sqrt(named),
                                            named - 1, named), 0.0), need).status
                    != WITHIN_NOISE
                    for d in fresh
                ]
            )  # fmt: skip
        assert first.status == WITHIN_NOISE and 0.1 < first.chance < 0.9, (need, first)
        assert abs(first.chance - decided) < 0.1, (need, first.chance, decided)


def test_a_next_look_states_its_chance_to_decide():
    from anonlab.report.claims import ClaimResult
    from anonlab.report.render import _verdict_line
    from anonlab.report.view import judge_claims

    raw, frame = _ordering(0.161)
    (result,) = judge_claims([raw], frame, looks=LOOKS, spent=SPENT)
    assert result.status == WITHIN_NOISE and result.next_reps == 20, result
    assert 0.2 < result.decide_chance < 0.5 and result.reps <= 40, result
    line = _verdict_line(result)
    percent = round(100 * result.decide_chance)
    assert (
        f"next look: 20 repetitions, about {percent} % chance to decide ({result.reps} would "
        "decide it were the estimates true" in line
    ), line
    sure = ClaimResult(
        "c", "P", "§", "q", "ordering", WITHIN_NOISE, "ours", reps=12, look=1, look_reps=10,
        next_reps=20, decide_chance=0.999,
    )  # fmt: skip
    assert "over 99 % chance to decide" in _verdict_line(sure)


def test_an_undecidable_claim_states_what_would_decide_it(monkeypatch):
    from anonlab.report.claims import KINDS, ClaimResult
    from anonlab.report.render import _verdict_line
    from anonlab.report.view import judge_claims

    raw, frame = _ordering(0.08)  # an estimate beyond the plan's last look
    (far,) = judge_claims([raw], frame, looks=LOOKS, spent=SPENT)
    assert far.status == WITHIN_NOISE and far.next_reps is None and far.reps > 40, far
    assert (
        f"what would: about {far.reps} repetitions, beyond the plan's last look (40)"
        in _verdict_line(far)
    )
    raw, frame = _ordering(0.0)  # the curves agree: no number of repetitions
    (same,) = judge_claims([raw], frame, looks=LOOKS, spent=SPENT)
    assert same.status == WITHIN_NOISE and same.reps is None, same
    assert (
        "no number of repetitions: the curves agree within noise at the boundary; a stated "
        "equivalence margin would" in _verdict_line(same)
    )
    # a kind without estimates, past the plan's last look
    no_estimate = ClaimResult(
        "c", "P", "§", "q", "crossover", WITHIN_NOISE, "ours", look=3, look_reps=40,
        last_look_reps=40,
    )  # fmt: skip
    assert "a finer grid of x there would" in _verdict_line(no_estimate)  # a location
    monkeypatch.setitem(KINDS, "crossover", replace(KINDS["crossover"], estimates=False))
    assert "this kind gives no estimate" in _verdict_line(no_estimate)


def test_many_welch_critical_values_are_the_student_quantiles():
    """Thousands of distinct Welch df (every pair of a long curve) are interpolated in
    1/df; the values stay Student's quantiles to 1e-6 at every level."""
    from scipy import special

    from anonlab.report.claims.stats import ALPHA, critical

    df = np.concatenate([np.linspace(1, 4, 300), np.geomspace(4, 1e7, 5000)])
    for tests in (1, 40, 10**6):
        exact = special.stdtrit(df, 1 - ALPHA / (2 * tests))
        assert np.allclose(critical(df, tests), exact, rtol=1e-6, atol=0)
