"""Claims as data: the papers' own statements, declared in each experiment's config
(``claims:``) and judged against its stored results with the uncertainty of our own
numbers.

A claim names its paper, section and quote, a ``kind`` and the numbers it is about; it is
parsed as :func:`anonlab.catalog.resolved_claims` gives it, its ``paper`` and ``notes``
inherited from its experiment (a claim of an experiment with no paper has none). Each
kind is one module with its fields, its parser and its evaluator, registered there
(:func:`~.kinds.register_kind`; a new kind is one new module): :mod:`.ordering`,
:mod:`.crossover`, :mod:`.monotone`, :mod:`.growth`, :mod:`.extremum`, :mod:`.ratio`, :mod:`.cells`,
:mod:`.bound`, and :mod:`.privacy` (a paper's privacy statement judged by the audit);
their docstrings define them.

A selection (``lower``, ``method``, ``numerator``, …) is a method name or a mapping
``{method: name | [names], <axis>: filter}``: a scalar fixes the axis (so both sides of a
comparison may fix different values, e.g. α = 1.5 against α = 3.0), a list or a
``{min, max}`` range restricts it. ``where`` filters every selection; a method that does
not use an axis (plain Laplace has no k) passes every filter on it and is matched on the
other axes alone. The points of a claim are the matched grid points, each with its mean
over repetitions and standard error; its groups, for the kinds that look along ``x``, are
the other axes left free. ``min_share`` (default 1) of the points, pairs or groups must
hold, or ``min_count`` of them. ``magnitude: true`` judges the size |mean| of a signed
metric (a variance change averaged signed over the repetitions, as one reading of DP-IR
Table 1 has it).

Each verdict is ``reproduced``, ``contradicted``, ``within noise`` (with the repetitions
that would decide it, and inside :func:`.stats.next_look` the chance that look decides it)
or ``not checkable``, by the rule of :mod:`.stats`. A kind's ``evaluate`` returns an
:class:`~.kinds.Evaluation`: the verdict, our numbers, the repetitions, and where it tallies
points that chance. A claim may
declare a ``known_departure`` (``cause``: one of
:data:`~anonlab.report.claims.model.DEPARTURE_CAUSES`, its ``evidence`` and the ``command``
that shows it), which the report shows beside a contradiction, and ``sanity``: why the
statement holds by construction of the implementation (e.g. two methods that are one at
m = 1); the report lists such checks apart and counts them as no finding about the paper.

``phrases`` names the recurring wordings of the quote the claim encodes, from the phrase
table ``conf/phrases.yaml`` (:mod:`.phrases`: one encoding per wording, e.g. "for k > N"
as every k >= N + 1, "similar" as equivalence within ×2 for an error), a list of names or a
mapping name → parameter (``{for_k_above: 20}``); ``phrases_elsewhere`` those that belong
to another part of the sentence, encoded by another claim. A declared wording whose
encoding the claim's fields contradict is a :class:`ClaimError` naming the field.
Claims of sameness are equivalence tests that can be contradicted: ``ratio`` with
``within`` (TOST) and ``monotone`` with ``margin`` (a move beyond a stated minimum).
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from anonlab.report.claims import phrases
from anonlab.report.claims.data import ResultsTable
from anonlab.report.claims.kinds import KINDS, Evaluation, Kind, register_kind
from anonlab.report.claims.model import (
    COMMON_FIELDS,
    DEPARTURE_CAUSES,
    TOLERANCE_FIELDS,
    Checker,
    Claim,
    ClaimError,
    ClaimResult,
    NotCheckable,
)
from anonlab.report.claims.stats import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    STATUSES,
    WITHIN_NOISE,
)

#: the package's kinds first, in this order (the order of listings); any other module of
#: the package that registers a kind follows, by name
FAMILIES = (
    "ordering",
    "crossover",
    "monotone",
    "extremum",
    "growth",
    "ratio",
    "cells",
    "bound",
    "privacy",
)


def _discover() -> None:
    """Import every module of this package, so each kind registers itself (:mod:`.kinds`)."""
    modules = sorted(m.name for m in pkgutil.iter_modules(__path__))
    for name in [*FAMILIES, *(m for m in modules if m not in FAMILIES)]:
        importlib.import_module(f"{__name__}.{name}")


_discover()
_ID = re.compile(r"^[a-z0-9_]+$")

__all__ = [
    "CONTRADICTED",
    "KINDS",
    "Evaluation",
    "Kind",
    "NOT_CHECKABLE",
    "REPRODUCED",
    "STATUSES",
    "WITHIN_NOISE",
    "Claim",
    "ClaimError",
    "ClaimResult",
    "ResultsTable",
    "check_against_config",
    "evaluate_claim",
    "evaluate_claims",
    "parse_claim",
    "parse_claims",
    "register_kind",
]


def _departure(c: Checker) -> dict[str, str] | None:
    raw = c.raw.get("known_departure")
    if raw is None:
        return None
    if not isinstance(raw, Mapping) or not {"cause", "evidence"} <= set(raw) <= {
        "cause",
        "evidence",
        "command",
    }:
        raise c.error("known_departure", f"must be {{cause, evidence[, command]}}, got {raw!r}")
    if raw["cause"] not in DEPARTURE_CAUSES:
        raise c.error(
            "known_departure.cause",
            f"must be one of {list(DEPARTURE_CAUSES)}, got {raw['cause']!r}",
        )
    if not isinstance(raw["evidence"], str) or not raw["evidence"].strip():
        raise c.error("known_departure.evidence", "must be a non-empty string")
    command = raw.get("command")
    if command is not None and (not isinstance(command, str) or not command.strip()):
        raise c.error("known_departure.command", "must be the command that shows the evidence")
    return {
        "cause": str(raw["cause"]),
        "evidence": str(raw["evidence"]),
        **({"command": command} if command else {}),
    }


def parse_claim(raw: Mapping[str, Any], position: int = 0) -> Claim:
    """Validate one claim (a mapping from the config); :class:`ClaimError` names the claim
    and the bad field."""
    if not isinstance(raw, Mapping):
        raise ClaimError(f"claim #{position + 1}: must be a mapping, got {raw!r}")
    c = Checker(raw, position)
    claim_id = c.text("id")
    if not _ID.match(claim_id):
        raise c.error("id", f"must be lower-case letters, digits and '_', got {claim_id!r}")
    paper = c.text("paper", required=False)  # none: a claim of an experiment with no paper
    # an experiment of one's own has no paper, so no section to cite either
    section, quote = c.text("section", required=paper is not None), c.text("quote")
    kind = c.choice("kind", tuple(KINDS))
    fields = KINDS[kind].fields
    unknown = set(raw) - COMMON_FIELDS - fields
    if unknown:
        raise c.error(
            sorted(unknown)[0],
            f"is not a field of kind {kind!r} (fields: "
            f"{sorted(fields)} and {sorted(COMMON_FIELDS)})",
        )
    metric = c.text("metric", required=kind not in ("cells", "privacy"))
    by_attribute = raw.get("by_attribute", False)
    if not isinstance(by_attribute, bool):
        raise c.error("by_attribute", f"must be true or false, got {by_attribute!r}")
    magnitude = raw.get("magnitude", False)
    if not isinstance(magnitude, bool):
        raise c.error("magnitude", f"must be true or false, got {magnitude!r}")
    min_share = c.number("min_share", 1.0, low=0.0, high=1.0)
    if min_share == 0:
        raise c.error("min_share", "must be > 0")
    min_count = raw.get("min_count")
    if min_count is not None:
        if isinstance(min_count, bool) or not isinstance(min_count, int) or min_count < 1:
            raise c.error("min_count", f"must be an integer >= 1, got {min_count!r}")
        if "min_share" in raw:
            raise c.error("min_count", "cannot be given with 'min_share'")
    notes = c.text("notes", required=False)
    if notes is not None and not re.match(r"^#[a-z0-9-]+$", notes):
        raise c.error("notes", f"must be an anchor such as '#dp-ir-figure-1', got {notes!r}")
    tolerance_note = c.text("tolerance_note", required=False)
    if tolerance_note is None and (min_share < 1 or any(k in raw for k in TOLERANCE_FIELDS)):
        used = [k for k in TOLERANCE_FIELDS if k in raw] or ["min_share"]
        raise c.error(
            "tolerance_note",
            f"is missing: say why the tolerance ({used[0]}) is what the paper's wording supports",
        )
    params = KINDS[kind].parse(c)
    claim = Claim(
        claim_id,
        paper,
        section,
        quote,
        kind,
        metric,
        by_attribute,
        c.where(),
        min_share,
        min_count,
        notes,
        tolerance_note,
        c.text("target", required=False),
        params,
        _departure(c),
        magnitude,
        c.text("sanity", required=False),
    )
    return replace(claim, phrases=phrases.check(c, claim))


def parse_claims(raw: Sequence[Mapping[str, Any]] | None) -> list[Claim]:
    """Validate a config's ``claims`` list; ids must be distinct."""
    if raw is None:
        return []
    if not isinstance(raw, Sequence) or isinstance(raw, str):
        raise ClaimError(f"claims must be a list, got {raw!r}")
    claims = [parse_claim(item, i) for i, item in enumerate(raw)]
    seen: set[str] = set()
    for claim in claims:
        if claim.id in seen:
            raise ClaimError(f"claim {claim.id!r}: field 'id' is used twice")
        seen.add(claim.id)
    return claims


def check_against_config(claims: Sequence[Claim], config: Mapping[str, Any]) -> None:
    """Every method, metric and axis a claim names is one the experiment runs."""
    methods = set(config.get("methods") or ())
    grid_axes = set(config.get("grid") or ()) | {"dataset", "attribute"}
    for claim in claims:
        name = f"claim {claim.id!r}"
        if claim.metric is not None:
            pool = list(config.get("metrics") or ())  # f_measure has a row per class too
            if claim.by_attribute:
                pool += list(config.get("metrics_by_attribute") or ())
            if claim.metric not in pool:
                how = "per attribute " if claim.by_attribute else ""
                raise ClaimError(
                    f"{name}: field 'metric' names {claim.metric!r}, which the "
                    f"experiment does not compute {how}({list(pool)})"
                )
        if claim.kind != "cells":
            for axis in claim.where:
                if axis not in grid_axes:
                    raise ClaimError(
                        f"{name}: field 'where' filters {axis!r}, not a grid axis "
                        f"({sorted(grid_axes)})"
                    )
        for selection in claim.selections():
            for method in selection.methods or ():
                if method not in methods:
                    raise ClaimError(
                        f"{name}: names method {method!r}, which the experiment "
                        f"does not run ({sorted(methods)})"
                    )
            for axis in [*selection.fixed, *selection.limits]:
                if axis not in grid_axes:
                    raise ClaimError(
                        f"{name}: a selection filters {axis!r}, not a grid axis "
                        f"({sorted(grid_axes)})"
                    )
        axis = claim.params.get("x")
        if axis is not None and axis not in grid_axes:
            raise ClaimError(f"{name}: field 'x' is {axis!r}, not a grid axis")


def evaluate_claim(claim: Claim, table: pd.DataFrame | ResultsTable) -> ClaimResult:
    """Judge one claim against a results table."""
    data = table if isinstance(table, ResultsTable) else ResultsTable(table)
    try:
        found = KINDS[claim.kind].evaluate(claim, data)
    except NotCheckable as reason:
        found = Evaluation(NOT_CHECKABLE, str(reason))
    return ClaimResult.of(claim, *found)


def evaluate_claims(
    claims: Sequence[Claim | Mapping[str, Any]], table: pd.DataFrame, tables_dir: Any = None
) -> list[ClaimResult]:
    """Judge every claim (parsed, or raw mappings from a config) against ``table`` (and
    the run's stored tables in ``tables_dir``, which ``privacy`` claims read)."""
    parsed = [c if isinstance(c, Claim) else parse_claim(c, i) for i, c in enumerate(claims)]
    data = ResultsTable(table, tables_dir)
    return [evaluate_claim(claim, data) for claim in parsed]
