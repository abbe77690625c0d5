"""The empirical privacy audit (anonlab.audit): its Clopper–Pearson bound, seeded
determinism, that it does not accuse plain Laplace and that it catches a Laplace whose
noise is halved, and the command's one-line errors."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from anonlab.audit import (
    Settings,
    audit,
    auditable_methods,
    clopper_pearson,
    epsilon_lower_bound,
    write_table,
)
from anonlab.audit.command import main
from anonlab.methods.laplace import Laplace

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

SMALL = {"runs": 3000, "n": 10, "pairs": 1, "seed": 3}


@dataclass(frozen=True)
class HalfNoiseLaplace(Laplace):
    """A deliberately broken ``laplace``: noise of half the scale, so it spends 2·ε while
    its name (and so its guarantee) claims ε."""

    name: ClassVar[str] = "laplace"

    def attribute_epsilon(self, m: int) -> float:
        return 2 * super().attribute_epsilon(m)


@pytest.mark.parametrize(
    ("hits", "trials"), [(0, 50), (1, 50), (17, 50), (49, 50), (50, 50), (300, 5000)]
)
def test_clopper_pearson_matches_scipy_and_the_binomial_tails(hits, trials):
    beta = 0.01
    lower, upper = clopper_pearson(hits, trials, beta)
    exact = stats.binomtest(hits, trials).proportion_ci(1 - 2 * beta, method="exact")
    assert lower == pytest.approx(exact.low, abs=1e-12)
    assert upper == pytest.approx(exact.high, abs=1e-12)
    if hits > 0:  # brute force: at the lower bound, seeing >= hits has probability beta
        assert stats.binom.sf(hits - 1, trials, lower) == pytest.approx(beta, rel=1e-6)
    if hits < trials:
        assert stats.binom.cdf(hits, trials, upper) == pytest.approx(beta, rel=1e-6)


def test_epsilon_bound_is_the_log_ratio_of_the_cp_bounds():
    low = clopper_pearson(400, 1000, 0.005)[0]
    high = clopper_pearson(100, 1000, 0.005)[1]
    assert epsilon_lower_bound(400, 1000, 100, 1000, 0.005) == pytest.approx(np.log(low / high))
    assert epsilon_lower_bound(0, 1000, 100, 1000, 0.005) == 0.0  # never negative
    assert epsilon_lower_bound(100, 1000, 400, 1000, 0.005) == 0.0


def test_same_seed_same_result_other_seed_other_draws():
    first = audit("ir_laplace", 1.0, runs=200, n=6, pairs=1, seed=5)
    again = audit("ir_laplace", 1.0, runs=200, n=6, pairs=1, seed=5)
    other = audit("ir_laplace", 1.0, runs=200, n=6, pairs=1, seed=6)
    assert first.results == again.results
    assert first.results != other.results


def test_laplace_stays_within_its_claim():
    result = audit("laplace", 1.0, **SMALL)
    assert result.claimed.epsilon_total == 1.0
    assert 0.3 < result.epsilon_lower() <= 1.0  # the test has power, and no false alarm
    assert not result.exceeds_claim


def test_halved_noise_is_caught():
    result = audit(HalfNoiseLaplace(epsilon=1.0), settings=Settings(**SMALL))
    assert result.claimed.epsilon_total == 1.0  # it claims what laplace claims
    assert result.epsilon_lower() > 1.0
    assert result.exceeds_claim == ["released"]


def test_table_finds_the_randomised_numeric_methods(tmp_path):
    names, skipped = auditable_methods(Settings(n=12))
    assert {"laplace", "ir_laplace", "imdav_laplace", "dp_um", "idp_ls", "idp_cbls"} <= set(names)
    assert skipped["ir"] == "deterministic" and "mdav" in skipped and "laplace" not in skipped
    table = pd.DataFrame([{"method": "laplace", "epsilon": 1.0, "eps_lower_released": 0.9}])
    paths = write_table(table, skipped, Settings(), tmp_path / "audit")
    assert [p.name for p in paths] == ["audit.csv", "audit.md"]
    assert pd.read_csv(paths[0]).equals(table)
    assert sorted(p.name for p in (tmp_path / "audit").iterdir()) == ["audit.csv", "audit.md"]


@pytest.mark.parametrize(
    ("argv", "named"),
    [
        (["method=nope"], "'nope'"),
        (["method=ir"], "method='ir'"),
        (["method=laplace", "epsilon=abc"], "epsilon"),
        (["method=laplace", "runs=5"], "runs"),
        (["method=laplace", "colour=red"], "'colour'"),
        (["table", "method=laplace"], "'method'"),
        (["method=idp_cbls", "k=2"], "k=2"),
        (["method=ir_laplace", "form=shuffled"], "form"),
        (["method=ir_laplace", "form=shuffled_rows", "m=2"], "needs one protected attribute"),
        (["method=mdav", "form=shuffled_columns"], "method='mdav'"),
        (["exact"], "method="),
        (["exact", "method=laplace", "epsilon=-1"], "epsilon"),
        (["floating", "sampler=exact"], "sampler"),
        (["floating", "method=laplace"], "'method'"),
    ],
)
def test_bad_input_is_one_error_line(argv, named, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("error: ") and named in err[0]


@pytest.mark.slow  # the audit's command line in a process
def test_command_line_error_has_no_traceback():
    done = subprocess.run(
        [sys.executable, "-m", "anonlab.audit", "method=laplace", "epsilon=0"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert done.stderr.strip() == "error: epsilon must be > 0 and finite, got 0.0"
