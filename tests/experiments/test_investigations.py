"""Every contradiction's cause has runnable evidence: each ``known_departure`` command
names a registered investigation, each investigation explains a claim that exists, and an
investigation runs without a stored run."""

from __future__ import annotations

import re

from anonlab import catalog
from anonlab.experiments.investigations import command, registry
from anonlab.experiments.investigations.__main__ import main
from anonlab.report.claims import parse_claim

COMMAND = re.compile(r"^python -m anonlab.experiments\.investigations ([a-z0-9_]+)$")


def _claims() -> dict[str, dict]:
    return {raw["id"]: raw for entry in catalog.experiments() for raw in entry.claims}


def test_every_declared_command_runs_a_registered_investigation_of_its_claim():
    found = registry()
    declared = 0
    for claim_id, raw in _claims().items():
        departure = parse_claim(raw).known_departure or {}
        if "command" not in departure:
            continue
        declared += 1
        if departure["command"].startswith("python -m anonlab.audit "):
            continue  # a privacy claim's evidence is the audit's (tests/test_audit*.py)
        match = COMMAND.match(departure["command"])
        assert match and match.group(1) == claim_id, (claim_id, departure["command"])
        assert claim_id in found, f"{claim_id}: no investigation registered"
        assert departure["command"] == command(claim_id)
    assert declared >= 30


def test_every_investigation_explains_a_claim_that_exists():
    assert set(registry()) <= set(_claims())


def test_an_investigation_runs_and_states_its_conclusion(capsys):
    assert main(["idp_fig3_cbls_strong_privacy_vs_dp_um"]) == 0
    out = capsys.readouterr().out
    assert "# idp_fig3_cbls_strong_privacy_vs_dp_um" in out and "Conclusion" in out


def test_an_unknown_claim_gets_one_clear_error(capsys):
    assert main(["no_such_claim"]) == 2
    assert "no investigation of claim 'no_such_claim'" in capsys.readouterr().err
