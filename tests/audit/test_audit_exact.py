"""Exact privacy losses (anonlab.audit.exact) and the audit of release forms: the Laplace
loss formula against a brute-force supremum, the papers' lists within ε where their
proofs hold, iDP-LS above ε under its own Proposition 1, record order infinite, the
sampled bound of a shuffled form within its claim where the record order's is not, and
the losses iDP-LS's and iDP-CBLS's guarantees state, recomputed from their own text."""

from __future__ import annotations

import math
import re

import numpy as np
import pytest

from anonlab.audit import Settings, audit
from anonlab.audit.command import parse
from anonlab.audit.core import audited_dataset
from anonlab.audit.exact import exact_losses, laplace_loss, one_way_loss, pair_losses
from anonlab.methods import make_method
from anonlab.methods.idp import IdpCbls, IdpLs

pytestmark = pytest.mark.integration  # runs the engine, a process or real data


def brute_force(mu, b, mu2, b2, low, high):
    """sup over a fine grid of releases (and the two atoms) of ln p_D / p_D'."""
    y = np.linspace(low, high, 200_001)[1:-1]
    total = 0.0
    for m1, s1, m2, s2 in zip(mu, b, mu2, b2, strict=True):
        dens = (-np.log(2 * s1) - np.abs(y - m1) / s1) - (-np.log(2 * s2) - np.abs(y - m2) / s2)

        def cdf(x, m, s):
            return 0.5 * math.exp((x - m) / s) if x < m else 1 - 0.5 * math.exp(-(x - m) / s)

        atoms = [
            math.log(cdf(low, m1, s1) / cdf(low, m2, s2)),
            math.log((1 - cdf(high, m1, s1)) / (1 - cdf(high, m2, s2))),
        ]
        total += max(dens.max(), *atoms)
    return total


@pytest.mark.parametrize("seed", range(4))
def test_laplace_loss_is_the_supremum_of_the_log_ratio(seed):
    rng = np.random.default_rng(seed)
    mu, mu2 = rng.uniform(0, 10, 3), rng.uniform(0, 10, 3)
    b, b2 = rng.uniform(0.5, 4, 3), rng.uniform(0.5, 4, 3)
    assert one_way_loss(mu, b, mu2, b2, 0.0, 10.0) == pytest.approx(
        brute_force(mu, b, mu2, b2, 0.0, 10.0), abs=1e-3
    )
    # one scale, a wide domain: the Laplace mechanism's Σ|μ − μ'|/b
    assert laplace_loss(mu, b, mu2, b, -1e4, 1e4) == pytest.approx(np.sum(np.abs(mu - mu2) / b))


def test_the_lists_the_proofs_cover_stay_within_epsilon_and_idp_ls_does_not():
    settings = Settings(n=30, k=3)
    dataset = audited_dataset(settings)[0]
    # the worst neighbour moves the outlier to the domain's end, one of 11 places
    found = {
        name: exact_losses(make_method(name, {"k": 3, "epsilon": 1.0}), dataset, positions=11)
        for name in ("laplace", "ir_laplace", "dp_um", "idp_ls")
    }
    for name in ("laplace", "ir_laplace", "dp_um"):
        assert found[name].fixed_scale <= 1.0 + 1e-9 and found[name].own_scale <= 1.0 + 1e-9
    assert found["laplace"].fixed_scale > 0.95  # nearly tight: the record moves 99 % of Δ
    # iDP Proposition 1's own reading (scale of D for both): above ε, as re-ranking moves
    # several centroids
    assert 1.3 < found["idp_ls"].fixed_scale < 1.6
    assert found["idp_ls"].own_scale > found["idp_ls"].fixed_scale
    # record order: a neighbour changes the partition, an infinite loss
    assert found["ir_laplace"].released("records") == math.inf
    assert found["ir_laplace"].released("shuffled_columns") <= 1.0 + 1e-9
    assert found["laplace"].released("records") == pytest.approx(found["laplace"].own_scale)


def test_a_shuffled_form_is_audited_within_its_claim_where_record_order_is_not():
    small = {"runs": 1200, "n": 12, "pairs": 2, "seed": 1}
    records = audit("ir_laplace", 1.0, **small)
    shuffled = audit("ir_laplace", 1.0, form="shuffled_columns", **small)
    assert records.epsilon_lower() > 2.0 and records.exceeds_claim == ["released"]
    assert shuffled.epsilon_lower() <= 1.0 and not shuffled.exceeds_claim
    assert shuffled.row()["form"] == "shuffled_columns"
    assert records.row()["notion"] == "none" and records.row()["claimed"] == "ε-DP"


def at_least(text: str, loss: float) -> bool:
    """Whether ``loss`` is at least the number ``text`` ("1,187", "7.56") and below it plus
    one unit of its last digit: the text states the loss rounded down."""
    digits = len(text.partition(".")[2])
    stated = float(text.replace(",", ""))
    return stated <= loss < stated + 10.0**-digits


@pytest.mark.parametrize("cls", [IdpLs, IdpCbls])
def test_the_reranking_reasons_state_the_loss_their_command_computes(cls):
    reason = cls.reranking
    (command,) = re.findall(r"python -m anonlab\.audit (exact [^)]*)\)", reason)
    _, values = parse(command.split())
    name, epsilon = values.pop("method"), values.pop("epsilon")
    settings = Settings(**values)
    design = re.search(r"at ε = ([\d.]+) is at least ([\d,.]+) on the audit's data set", reason)
    assert name == cls.name and float(design[1]) == epsilon
    assert f"n = {settings.n}," in reason and f"from seed {settings.seed} " in reason
    assert f"[{settings.low:g}, {settings.high:g}]" in reason and settings.m == 1
    neighbour = re.search(r"with k = (\d+), record (\d+) moved to ([\d.]+)", reason)
    assert int(neighbour[1]) == settings.k
    record, position = int(neighbour[2]), float(neighbour[3])
    dataset = audited_dataset(settings)[0]
    # the stated number, and any other k the text gives for the same neighbour
    for text, k in [(design[2], settings.k), *re.findall(r"and ([\d.]+) with k = (\d+)", reason)]:
        method = make_method(name, {"k": int(k), "epsilon": epsilon})
        losses = pair_losses(method, dataset, record, position)
        assert at_least(text, losses["own_scale"]), (text, k, losses)
    if cls is IdpLs:  # and the neighbour is the worst of those moving a record to an end
        method = make_method(name, {"k": settings.k, "epsilon": epsilon})
        found = exact_losses(method, dataset, positions=2)
        assert found.worst["own_scale"] == f"record {record} -> {position:g}"
