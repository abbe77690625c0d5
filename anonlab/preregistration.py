"""The pre-registration: what was frozen before the confirmatory run, in one file.

``conf/preregistration.yaml`` declares

- ``claims_sha256``: the digest of every paper experiment's claims and readings as frozen
  (:func:`claims_digest`). Only what decides a verdict enters it: a claim's quote, kind,
  selections and tolerances, and each reading's text and overrides; the explanations
  added afterwards (``known_departure``, ``notes``, ``tolerance_note``, ``target``) do not;
- ``confirmatory_seed``: the master seed of the confirmatory run, never used before it
  (``anonlab run +experiment=… stage=confirmatory`` runs with it, into
  ``<results_dir>/confirmatory/``);
- ``earlier``: the registrations it replaced, kept on record (digest, seed, date, the
  commit whose ``conf/`` holds their claims, and why), each seed retired;
- ``plan``: the group-sequential plan for claims left within noise, the looks (multiples
  of each experiment's repetitions) and the share of α spent at each
  (:mod:`anonlab.report.claims.stats`).

The report shows the frozen digest beside today's, and flags each claim whose encoding
differs from the one its confirmatory run recorded (:func:`claim_digest`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from anonlab.config import (
    CONF_DIR,
    CONFIRMATORY,
    CONFIRMATORY_SEED_KEY,
    EXPLORATORY,
    OVERRIDES_KEY,
    PAPER_PROFILE,
    STAGES,
    load_yaml,
)
from anonlab.provenance import PAPER, custom_overrides, override_key, provenance
from anonlab.validation import ParameterError

FILE = "preregistration.yaml"
#: claim fields that explain a verdict without deciding it (left out of the digest)
EXPLANATIONS = frozenset({"known_departure", "notes", "tolerance_note", "target"})


@dataclass(frozen=True)
class Plan:
    """Looks at ``looks[j]`` × an experiment's repetitions, each at level ``spent[j]`` · α;
    the shares sum to at most 1, so the chance of a false verdict over all looks stays
    within α (Bonferroni across the looks)."""

    looks: tuple[int, ...]
    spent: tuple[float, ...]

    def reps(self, base: int) -> tuple[int, ...]:
        """The repetitions of each look for an experiment run ``base`` times."""
        return tuple(base * look for look in self.looks)


@dataclass(frozen=True)
class Preregistration:
    claims_sha256: str
    confirmatory_seed: int
    frozen_at: str
    plan: Plan


def _fail(problem: str) -> ParameterError:
    return ParameterError(f"conf/{FILE}: {problem}")


@cache
def load(conf_dir: Path = CONF_DIR) -> Preregistration:
    """The pre-registration in ``conf_dir`` (validated)."""
    path = Path(conf_dir) / FILE
    if not path.is_file():
        raise _fail("is missing")
    raw = load_yaml(path.read_text(encoding="utf-8")) or {}
    digest, seed = raw.get("claims_sha256"), raw.get("confirmatory_seed")
    if not isinstance(digest, str) or len(digest) != 64:
        raise _fail(f"claims_sha256 must be a SHA-256 hex digest, got {digest!r}")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise _fail(f"confirmatory_seed must be an integer >= 0, got {seed!r}")
    plan = raw.get("plan") or {}
    looks, spent = plan.get("looks"), plan.get("alpha_spent")
    if (
        not isinstance(looks, list)
        or not looks
        or looks[0] != 1
        or any(not isinstance(x, int) or x < 1 for x in looks)
        or looks != sorted(set(looks))
    ):
        raise _fail(f"plan.looks must be increasing integers starting at 1, got {looks!r}")
    if (
        not isinstance(spent, list)
        or len(spent) != len(looks)
        or any(not isinstance(s, int | float) or s <= 0 for s in spent)
        or sum(spent) > 1 + 1e-12
    ):
        raise _fail(
            f"plan.alpha_spent must give each look a share > 0, summing to at most 1, got {spent!r}"
        )
    for i, earlier in enumerate(raw.get("earlier") or ()):
        where = f"earlier[{i}]"
        if not isinstance(earlier, Mapping) or not isinstance(earlier.get("commit"), str):
            raise _fail(f"{where} must record the commit whose conf/ holds its claims")
        old = earlier.get("claims_sha256")
        if not isinstance(old, str) or len(old) != 64:
            raise _fail(f"{where}.claims_sha256 must be a SHA-256 hex digest, got {old!r}")
        if earlier.get("confirmatory_seed") == seed:
            raise _fail(f"{where}.confirmatory_seed is the current seed {seed}: draw a fresh one")
    return Preregistration(
        digest,
        seed,
        str(raw.get("frozen_at") or "?"),
        Plan(tuple(looks), tuple(float(s) for s in spent)),
    )


def staged(config: Mapping[str, Any], conf_dir: Path = CONF_DIR) -> dict[str, Any]:
    """``config`` ready for its ``stage``: unchanged when exploratory; when confirmatory,
    checked (no ``seed=`` override, no custom override: it confirms the paper's runs; the
    paper profile and its repetitions, :func:`_check_reps`) and given the pre-registered
    ``confirmatory_seed``, which the runner requires of a confirmatory config."""
    stage = str(config.get("stage") or EXPLORATORY)
    if stage != CONFIRMATORY:
        return dict(config)
    overrides = [str(o) for o in config.get(OVERRIDES_KEY) or ()]
    if any(override_key(o) == "seed" for o in overrides):
        raise ParameterError(
            "seed cannot be set with stage=confirmatory: the confirmatory "
            "run uses the pre-registered confirmatory_seed "
            "(conf/preregistration.yaml)"
        )
    if provenance(overrides) != PAPER:
        raise ParameterError(
            "stage=confirmatory confirms the paper's runs; these overrides "
            f"make the run custom: {custom_overrides(overrides)}"
        )
    _check_reps(config, overrides, conf_dir)
    seed = load(conf_dir).confirmatory_seed
    return {**config, "seed": seed, CONFIRMATORY_SEED_KEY: seed}


def _check_reps(config: Mapping[str, Any], overrides: Sequence[str], conf_dir: Path) -> None:
    """A confirmatory run takes its experiment's paper profile and repetitions, which the
    plan's looks multiply: one :class:`ParameterError` naming the parameter, its value and
    the repetitions pre-registered otherwise."""
    import anonlab.catalog as catalog

    name = str((config.get("experiment") or {}).get("name") or "?")
    entry = next((e for e in catalog.experiments(conf_dir) if e.name == name), None)
    paper_reps = entry.reps.get(PAPER_PROFILE) if entry is not None else None
    plan = f"(conf/{FILE} plan)"
    uses = (
        f"the pre-registered {paper_reps} repetitions of {name}"
        if paper_reps is not None
        else f"the repetitions {name} declares"
    )
    profile = str(config.get("profile") or PAPER_PROFILE)
    if profile != PAPER_PROFILE:
        raise ParameterError(
            f"profile={profile}: a confirmatory run uses the paper profile and {uses} {plan}"
        )
    reps = config.get("reps")
    given = any(override_key(o) == "reps" for o in overrides)
    if (paper_reps is not None and reps != paper_reps) or (paper_reps is None and given):
        raise ParameterError(f"reps={reps}: a confirmatory run uses {uses} {plan}")


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)


#: the package claim sources live in; a source enters the digest by its place inside it
#: (``tcm:compare``), so where the package is installed does not change a claim's digest
SOURCE_PACKAGES = ("anonlab.experiments.", "experiments.")


def _encoding(claim: Mapping[str, Any], source_prefix: str = "") -> dict[str, Any]:
    """What of ``claim`` decides its verdict: its fields without the explanations, its
    ``source`` named inside the experiments package (prefixed by ``source_prefix``)."""
    kept = {k: v for k, v in claim.items() if k not in EXPLANATIONS}
    source = kept.get("source")
    if isinstance(source, str):
        for package in SOURCE_PACKAGES:
            source = source.removeprefix(package)
        kept["source"] = source_prefix + source
    return kept


def claim_digest(claim: Mapping[str, Any], source_prefix: str = "") -> str:
    """The digest of one claim's encoding (:func:`_encoding`), 12 hex digits."""
    return hashlib.sha256(_canonical(_encoding(claim, source_prefix)).encode()).hexdigest()[:12]


def experiment_digest(
    claims: Sequence[Mapping[str, Any]],
    readings: Sequence[Mapping[str, Any]],
    source_prefix: str = "",
) -> dict[str, Any]:
    """What one experiment freezes: each claim's digest, and its readings."""
    return {
        "claims": {str(c.get("id")): claim_digest(c, source_prefix) for c in claims},
        "readings": [{k: r.get(k) for k in ("name", "primary", "text", "set")} for r in readings],
    }


def claims_digest(conf_dir: Path = CONF_DIR, source_prefix: str = "") -> str:
    """The SHA-256 of every paper experiment's claims and readings (their encodings);
    ``source_prefix`` names the claims' sources as they were written before they moved
    into ``anonlab`` (``"experiments."``), to recompute a digest frozen then."""
    import anonlab.catalog as catalog

    frozen = {}
    for entry in catalog.experiments(conf_dir):
        readings = [
            {"name": r.name, "primary": r.primary, "text": r.text, "set": dict(r.set)}
            for r in entry.readings
        ]
        frozen[entry.name] = experiment_digest(entry.claims, readings, source_prefix)
    return hashlib.sha256(_canonical(frozen).encode()).hexdigest()


__all__ = [
    "CONFIRMATORY",
    "EXPLORATORY",
    "STAGES",
    "Plan",
    "Preregistration",
    "claim_digest",
    "claims_digest",
    "experiment_digest",
    "load",
    "staged",
]
