"""The pre-registered plan's looks: a claim judged look by look (:func:`judge_in_looks`),
and the later looks taken by the run itself.

A paper run judges its claims at the plan's first look (its own repetitions). A claim left
within noise whose estimate says the next look could decide it ("needs more data",
:func:`judge_in_looks`) gets that look: the cells it reads
(:func:`claim_cells`) run the repetitions from the stored ones up to the look's, measured
by the metrics the look's claims read (and any randomized one, which decides the jobs)
(:class:`~anonlab.runner.experiment.Look`: repetition r of a cell draws the same
stream whenever it runs, so the stored repetitions are the look's prefix and none is
computed twice), and the claim is judged again, at the look's level; so on to the plan's
last look. No other claim is judged on the added repetitions: its verdict stays the one
of the look that gave it, as the plan says.

The added rows go to ``<run>/looks/results.parquet`` and the record of the looks to
``<run>/looks/looks.json``: per look its repetitions, the claims it judged, the cells
it ran, the commit and the time; the report reads them back (:func:`claim_tables`).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab import catalog, preregistration
from anonlab.config import PAPER_PROFILE
from anonlab.io import write_atomic
from anonlab.provenance import PAPER
from anonlab.report.claims import (
    KINDS,
    WITHIN_NOISE,
    Claim,
    ClaimError,
    ClaimResult,
    evaluate_claim,
    parse_claim,
)
from anonlab.report.claims.data import ResultsTable, mask
from anonlab.report.claims.stats import next_look, sequential, spending
from anonlab.runner.checkpoint import note
from anonlab.runner.experiment import Experiment, Look, run_grid
from anonlab.runner.store import git_commit, write_table
from anonlab.validation import ParameterError

LOOKS_DIR = "looks"
LOOKS_FILE = "looks.json"
RESULTS = "results.parquet"
#: config key: take the plan's later looks after a paper run (``later_looks=false``: not)
LATER_LOOKS_KEY = "later_looks"


@dataclass(frozen=True)
class LookRecord:
    """One later look: the plan's look ``look`` (1-based) at ``reps`` repetitions, for
    ``claims``, over ``cells`` cells."""

    look: int
    reps: int
    claims: tuple[str, ...]
    cells: int
    commit: str | None = None
    wall_time_s: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "look": self.look,
            "reps": self.reps,
            "claims": list(self.claims),
            "cells": self.cells,
            "commit": self.commit,
            "wall_time_s": self.wall_time_s,
        }


class RepsView:
    """A run's table judged on its first ``n`` repetitions (one :class:`ResultsTable` per
    ``n``, shared by the claims)."""

    def __init__(self, table: pd.DataFrame, tables_dir: Path | None) -> None:
        self.table, self.tables_dir = table, tables_dir
        self.available = int(table["rep"].max()) + 1 if "rep" in table and len(table) else 1
        self._cache: dict[int, ResultsTable] = {}

    def first(self, n: int) -> ResultsTable:
        n = min(n, self.available)
        if n not in self._cache:
            rows = self.table if n >= self.available else self.table[self.table["rep"] < n]
            self._cache[n] = ResultsTable(rows, self.tables_dir)
        return self._cache[n]


def judge_in_looks(
    claim: Claim, data: RepsView, looks: Sequence[int], spent: Sequence[float]
) -> ClaimResult:
    """A claim judged by the pre-registered group-sequential plan
    (:func:`~anonlab.report.claims.stats.sequential`): the first look that decides it is
    final; a claim still within noise at the run's last look says whether the plan's next
    look could decide it (the repetitions estimated at that look's level, no more than the
    plan's last look), how many repetitions that would take, and the chance that the next
    look decides it (:func:`~anonlab.report.claims.stats.decide_chance`)."""
    look = sequential(
        lambda n: evaluate_claim(claim, data.first(n)),
        lambda r: r.status,
        looks,
        spent,
        data.available,
    )
    result, judged = look.result, min(looks[look.index], data.available)
    next_reps = None
    if result.status == WITHIN_NOISE and look.next_reps is not None:
        if not KINDS[claim.kind].estimates:
            next_reps = look.next_reps  # no estimate: the next look may decide it
        else:
            with spending(spent[look.index + 1]), next_look(look.next_reps):
                estimated = evaluate_claim(claim, data.first(judged))
            if estimated.reps is not None and estimated.reps <= looks[-1]:
                next_reps = look.next_reps
            result = replace(result, reps=estimated.reps, decide_chance=estimated.decide_chance)
    return replace(
        result,
        look=look.index + 1,
        look_reps=judged,
        next_reps=next_reps,
        last_look_reps=int(looks[-1]),
    )


def plan_reps(
    entry: catalog.ExperimentEntry, profile: str, plan: preregistration.Plan
) -> tuple[int, ...]:
    """The repetitions of each look of ``plan`` for ``entry`` under ``profile``."""
    return plan.reps(entry.reps.get(profile, entry.reps.get(PAPER_PROFILE, 2)))


def claim_cells(claim: Claim, table: pd.DataFrame) -> set[int]:
    """The cells (``cell_id``) of ``table`` whose rows ``claim`` reads: its metric, and
    every selection's methods and axis filters with the claim's ``where`` (a method that
    lacks an axis passes a filter on it, as the claim's own selection does)."""
    if claim.metric is None or "cell_id" not in table:
        return set()
    rows = table[table["metric"] == claim.metric]
    found: set[int] = set()
    for selection in claim.selections():
        chosen = rows
        if selection.methods is not None:
            chosen = chosen[chosen["method"].isin(selection.methods)]
        for axis, value in {**claim.where, **selection.limits, **selection.fixed}.items():
            if axis in chosen.columns:
                chosen = chosen[mask(chosen[axis], value)]
        found |= {int(c) for c in chosen["cell_id"].unique()}
    return found


def _reps(table: pd.DataFrame) -> int:
    return int(table["rep"].max()) + 1 if len(table) else 0


def plan_of(experiment: Experiment) -> tuple[catalog.ExperimentEntry, tuple[int, ...]] | None:
    """The catalog entry of a paper experiment and its plan's repetitions per look, or
    ``None`` for an experiment the plan does not cover (no paper, no claims, a profile
    other than the paper's, a custom run, later looks turned off)."""
    config = experiment.config
    if not config.get(LATER_LOOKS_KEY, True) or not config.get("claims"):
        return None
    if experiment.provenance != PAPER:  # the report judges a custom run once, at level α
        return None
    if str(config.get("profile") or PAPER_PROFILE) != PAPER_PROFILE:
        return None
    try:
        entry = catalog.experiment(experiment.name)
    except ParameterError:
        return None
    if entry.paper is None:
        return None
    return entry, plan_reps(entry, PAPER_PROFILE, preregistration.load().plan)


def run_later_looks(experiment: Experiment, *, progress: bool = True) -> list[Path]:
    """Take the plan's later looks for the claims of ``experiment``'s stored run that
    need more data (module docstring); returns the files written (none when no claim
    needs a look, or the run's repetitions are not the plan's first look's)."""
    planned = plan_of(experiment)
    if planned is None:
        return []
    entry, looks = planned
    spent = preregistration.load().plan.spent
    table = pd.read_parquet(experiment.results_path)
    if _reps(table) != looks[0]:
        note(
            f"{experiment.label}: the plan's later looks are not taken: the run has "
            f"{_reps(table)} repetitions, the plan's first look {looks[0]}"
        )
        return []
    claims = []
    for i, raw in enumerate(entry.claims):
        try:
            claims.append(parse_claim(raw, i))
        except ClaimError:
            continue  # the report says why it is not checkable
    folder = experiment.out_dir / LOOKS_DIR
    added = pd.DataFrame()
    reached: dict[str, int] = {}
    records: list[LookRecord] = []
    pending = [c for c in claims if c.kind not in ("cells", "privacy")]
    checkout = functools.cache(git_commit)  # read when a look first runs, then kept
    for index in range(1, len(looks)):
        due = []
        # one view per table, shared by the claims judged on it (as the report shares
        # it): each metric's points are summarised once, not once per claim
        views: dict[int, RepsView] = {}
        for claim in pending:
            reps = reached.get(claim.id, looks[0])
            if reps not in views:
                views[reps] = RepsView(_claim_table(table, added, reps), None)
            try:
                result = judge_in_looks(claim, views[reps], looks, spent)
            except (ClaimError, KeyError, TypeError, ValueError, ArithmeticError):
                continue
            if result.needs_more_data and result.next_reps == looks[index]:
                due.append(claim)
        if not due:
            break
        cells = set().union(*(claim_cells(c, table) for c in due))
        note(
            f"{experiment.label}: look {index + 1} of {len(looks)} for {len(due)} claim(s) "
            f"within noise: repetitions {looks[index - 1]}-{looks[index] - 1} of "
            f"{len(cells)} cell(s) ({', '.join(c.id for c in due)})"
        )
        clock = time.perf_counter()
        # the metrics the due claims read: another one's rows would judge nothing
        read = frozenset(c.metric for c in due if c.metric is not None)
        look = Look(frozenset(cells), looks[index - 1], looks[index], folder, read)
        git = checkout()
        rows = run_grid(experiment, progress=progress, resume=True, look=look, git=git)
        added = pd.concat([added, rows], ignore_index=True) if len(added) else rows
        for claim in due:
            reached[claim.id] = looks[index]
        commit = (git or {}).get("commit")
        records.append(
            LookRecord(
                index + 1,
                looks[index],
                tuple(c.id for c in due),
                len(cells),
                commit,
                round(time.perf_counter() - clock, 3),
            )
        )
        pending = due
    if not records:
        return []
    path = folder / RESULTS
    write_table(added, path)
    record = {
        "experiment": experiment.name,
        "plan": list(looks),
        "looks": [r.as_dict() for r in records],
    }
    text = json.dumps(record, indent=2) + "\n"
    write_atomic(folder / LOOKS_FILE, lambda tmp: tmp.write_text(text, encoding="utf-8"))
    return [path, folder / LOOKS_FILE]


def _claim_table(table: pd.DataFrame, added: pd.DataFrame, reps: int) -> pd.DataFrame:
    """The run's rows with the added ones below ``reps`` repetitions."""
    if not len(added) or reps <= _reps(table):
        return table
    extra = added[added["rep"] < reps]
    return pd.concat([table, extra[table.columns]], ignore_index=True)


def read_looks(run_dir: Path, plan: Sequence[int] | None = None) -> list[LookRecord]:
    """The later looks recorded for the run in ``run_dir`` (none without a record); a
    record naming a look the plan does not have is one :class:`ParameterError`."""
    path = Path(run_dir) / LOOKS_DIR / LOOKS_FILE
    if not path.is_file():
        return []
    raw = json.loads(path.read_text(encoding="utf-8"))
    records = []
    for entry in raw.get("looks") or []:
        record = LookRecord(
            int(entry["look"]),
            int(entry["reps"]),
            tuple(entry.get("claims") or ()),
            int(entry.get("cells") or 0),
            entry.get("commit"),
            entry.get("wall_time_s"),
        )
        if plan is not None and (
            record.look > len(plan) or record.look < 2 or plan[record.look - 1] != record.reps
        ):
            raise ParameterError(
                f"{path}: field 'looks' records look {record.look} at {record.reps} "
                f"repetitions, beyond the pre-registered plan {list(plan)}"
            )
        records.append(record)
    return records


def claim_tables(
    run_dir: Path, table: pd.DataFrame, plan: Sequence[int] | None = None
) -> Callable[[str], pd.DataFrame]:
    """Claim id → the table the claim is judged on: the run's, with the repetitions its
    later looks added (:func:`run_later_looks`), none beyond the last look it was given."""
    records = read_looks(run_dir, plan)
    if not records:
        return lambda _: table
    added = pd.read_parquet(Path(run_dir) / LOOKS_DIR / RESULTS)
    reached: dict[str, int] = {}
    for record in records:
        for claim_id in record.claims:
            reached[claim_id] = max(reached.get(claim_id, 0), record.reps)
    cache: dict[int, pd.DataFrame] = {}

    def of(claim_id: str) -> pd.DataFrame:
        reps = reached.get(claim_id)
        if reps is None:
            return table
        if reps not in cache:
            cache[reps] = _claim_table(table, added, reps)
        return cache[reps]

    return of


def looks_summary(run_dir: Path) -> Mapping[str, Any] | None:
    """``looks.json`` of a run, as stored, or ``None``."""
    path = Path(run_dir) / LOOKS_DIR / LOOKS_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


__all__ = [
    "LATER_LOOKS_KEY",
    "LookRecord",
    "RepsView",
    "claim_cells",
    "claim_tables",
    "judge_in_looks",
    "looks_summary",
    "plan_reps",
    "read_looks",
    "run_later_looks",
]
