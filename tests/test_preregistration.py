"""The pre-registration: the claims are the frozen ones (a change shows in the commit that
makes it), a confirmatory run uses the pre-registered seed in its own folder, and the
group-sequential plan keeps the false "reproduced" rate within 2.5 % over all its looks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
import yaml

from anonlab import catalog, preregistration
from anonlab.config import CONF_DIR
from anonlab.report.claims.stats import (
    CONTRADICTED,
    REPRODUCED,
    WITHIN_NOISE,
    Quantity,
    judge,
    sequential,
    spending,
    tally,
)
from anonlab.runner import build_experiment
from anonlab.validation import ParameterError

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def test_the_claims_are_the_frozen_ones():
    frozen = preregistration.load().claims_sha256
    assert preregistration.claims_digest() == frozen, (
        "a claim or reading changed after the freeze: put the new digest in "
        "conf/preregistration.yaml in the same commit; the report flags the claim against "
        "the encoding its confirmatory run recorded"
    )


def test_each_earlier_registration_is_on_record(tmp_path):
    """Every earlier registration's digest is its commit's claims (and each of its
    refreezes the same claims written the way they were then), its seed is retired."""
    raw = yaml.safe_load((CONF_DIR / preregistration.FILE).read_text(encoding="utf-8"))
    current = preregistration.load()
    assert raw["earlier"]
    for entry in raw["earlier"]:
        assert entry["confirmatory_seed"] not in (current.confirmatory_seed, 20161101)
        root = Path(__file__).resolve().parents[1]
        archive = subprocess.run(
            ["git", "archive", entry["commit"], "conf"], cwd=root, capture_output=True
        )
        if archive.returncode != 0:  # a checkout without history (an sdist, a shallow clone)
            pytest.skip(f"commit {entry['commit'][:10]} is not in this checkout")
        subprocess.run(["tar", "-x", "-C", str(tmp_path)], input=archive.stdout, check=True)
        conf = tmp_path / "conf"
        assert preregistration.claims_digest(conf) == entry["claims_sha256"]
        for refrozen in entry.get("refrozen") or ():
            digest = preregistration.claims_digest(conf, source_prefix=refrozen["source_prefix"])
            assert digest == refrozen["previous"]


def test_explanations_do_not_change_a_claims_digest_but_tolerances_do():
    raw = dict(catalog.experiment("census_ir").claims[0])
    digest = preregistration.claim_digest(raw)
    explained = {
        **raw,
        "known_departure": {"cause": "reading", "evidence": "e"},
        "notes": "#x",
        "tolerance_note": "why",
    }
    assert preregistration.claim_digest(explained) == digest
    assert preregistration.claim_digest({**raw, "min_share": 0.5}) != digest


def test_a_confirmatory_run_uses_the_preregistered_seed_in_its_own_folder(compose_config, tmp_path):
    config = compose_config(
        "+experiment=census_ir", "stage=confirmatory", f"results_dir={tmp_path}"
    )
    experiment = build_experiment(preregistration.staged(config))
    seed = preregistration.load().confirmatory_seed
    assert experiment.seed == seed != compose_config("+experiment=census_ir")["seed"]
    assert experiment.config["seed"] == seed  # run.json records it
    assert experiment.out_dir == tmp_path / "confirmatory" / "census_ir"
    assert experiment.provenance == "paper"


@pytest.mark.parametrize(
    "override, message",
    [
        ("seed=3", "seed cannot be set with stage=confirmatory"),
        ("grid.k=[2]", "stage=confirmatory confirms the paper's runs"),
    ],
)
def test_a_confirmatory_run_refuses_other_seeds_and_custom_grids(compose_config, override, message):
    config = compose_config("+experiment=census_ir", "stage=confirmatory", override)
    with pytest.raises(ParameterError, match=message):
        preregistration.staged(config)


@pytest.fixture(scope="module")
def stated_reps():
    """A confirmatory run stating the pre-registered 10 repetitions, staged (once for the
    module)."""
    from anonlab.config import compose_config

    return preregistration.staged(
        compose_config("+experiment=census_ir", "stage=confirmatory", "reps=10")
    )


@pytest.mark.parametrize(
    "override, message",
    [
        (
            "reps=1",
            "reps=1: a confirmatory run uses the pre-registered 10 repetitions of census_ir "
            "(conf/preregistration.yaml plan)",
        ),
        ("profile=quick", "profile=quick: a confirmatory run uses the paper profile and the"),
    ],
)
def test_a_confirmatory_run_refuses_fewer_repetitions_than_preregistered(
    compose_config, stated_reps, override, message
):
    config = compose_config("+experiment=census_ir", "stage=confirmatory", override)
    with pytest.raises(ParameterError, match=re.escape(message)):
        preregistration.staged(config)
    assert stated_reps["reps"] == 10  # the pre-registered number, stated, is accepted


def test_the_engine_refuses_a_confirmatory_run_not_on_the_preregistered_seed(compose_config):
    config = compose_config("+experiment=census_ir", "stage=confirmatory")
    with pytest.raises(ParameterError, match="pre-registered seed only"):
        build_experiment(config)


# --- the group-sequential plan ---------------------------------------------------------------

BASE = 10


def _walk(draws: np.ndarray, spent) -> np.ndarray:
    """The statuses the plan's looks (10, 20, 40 repetitions) give one-point claims "gap > 0",
    one claim per row of ``draws``, vectorised over the rows: the first look that decides is
    final (what :func:`sequential` does one claim at a time)."""
    looks = preregistration.load().plan.reps(BASE)
    status = np.full(len(draws), WITHIN_NOISE, dtype=object)
    for n, share in zip(looks, spent, strict=True):
        part = draws[:, :n]
        q = Quantity.of(part.mean(axis=1), part.std(axis=1, ddof=1) / np.sqrt(n), n - 1, n)
        with spending(share):
            judged = judge(q, 0.0, tests=1)
        open_ = status == WITHIN_NOISE
        status[open_ & judged.holds] = REPRODUCED
        status[open_ & judged.opposite & ~judged.holds] = CONTRADICTED
    return status


def _reproduced(spent, gap: float = 0.0, runs: int = 40_000, seed: int = 2026) -> float:
    draws = np.random.default_rng(seed).normal(gap, 1.0, size=(runs, 4 * BASE))
    return float(np.mean(_walk(draws, spent) == REPRODUCED))


def test_sequential_walks_the_looks_as_planned():
    plan = preregistration.load().plan
    looks = plan.reps(BASE)
    draws = np.random.default_rng(5).normal(0.3, 1.0, size=(200, looks[-1]))
    expected = _walk(draws, plan.spent)
    for row, want in zip(draws, expected, strict=True):

        def judge_at(n: int, row=row):
            q = Quantity.of(row[:n].mean(), row[:n].std(ddof=1) / np.sqrt(n), n - 1, n)
            return tally(judge(q, 0.0), 1)

        look = sequential(judge_at, lambda t: t.status, looks, plan.spent, looks[-1])
        assert look.result.status == want
        assert look.next_reps == (looks[look.index + 1] if look.index < 2 else None)


def test_the_plan_keeps_false_reproduced_within_its_level_over_all_looks():
    plan = preregistration.load().plan
    assert plan.looks == (1, 2, 4) and sum(plan.spent) <= 1
    rate = _reproduced(plan.spent)  # 40,000 claims at the boundary: se 0.0008
    assert rate <= 0.025, rate
    # topping up at the full level at every look is what the plan prevents
    assert _reproduced((1.0, 1.0, 1.0)) > 0.03


def test_later_looks_decide_what_the_first_leaves_within_noise():
    plan = preregistration.load().plan
    first_only = _reproduced((plan.spent[0], 1e-9, 1e-9), gap=0.5, runs=4000)
    planned = _reproduced(plan.spent, gap=0.5, runs=4000)
    assert planned > first_only + 0.1, (first_only, planned)


@pytest.mark.slow  # two looks of a run, end to end
def test_a_later_look_draws_the_first_looks_numbers(compose_config, tmp_path):
    """Looks judge the first n repetitions of one run: a run with more repetitions repeats
    a smaller run's draws exactly (streams per cell and repetition, not per run)."""
    import pandas as pd

    from anonlab.runner import run_experiment

    tables = []
    for reps in (2, 3):
        config = compose_config(
            "+experiment=census_ir",
            "grid.k=[5]",
            "grid.epsilon=[1.0]",
            "grid.m=[1]",
            f"reps={reps}",
            "n_jobs=1",
            f"results_dir={tmp_path / str(reps)}",
        )
        experiment = build_experiment(config)
        run_experiment(experiment, experiment.config, progress=False)
        tables.append(pd.read_parquet(experiment.results_path))
    small, large = tables
    key = ["method", "k", "epsilon", "rep", "metric"]
    merged = small.merge(large[large["rep"] < 2], on=key, suffixes=("", "_more"))
    assert len(merged) == len(small) and (merged["value"] == merged["value_more"]).all()


def test_a_confirmatory_run_of_all_runs_the_primary_readings_only(compose_config, tmp_path):
    """The report's confirmatory verdicts are the primary reading's: +experiment=all
    stage=confirmatory runs no other reading (the exploratory run runs each)."""
    from anonlab import cli

    base = ("+experiment=all", "experiments=[census_ir]", f"results_dir={tmp_path}")
    for stage, readings in (("exploratory", [None, "data_range_bins"]), ("confirmatory", [None])):
        overrides = (*base, f"stage={stage}")
        runs = cli.declared_runs(compose_config(*overrides), overrides, CONF_DIR)
        assert [run.config.get("reading") for run in runs] == readings
