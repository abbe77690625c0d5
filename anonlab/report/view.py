"""What the reproduction report says, as data: the stored runs, each paper claim judged on
every reading's run, the cause of each contradiction, and the summaries. The HTML and
Markdown pages (:mod:`anonlab.report.render`) only lay this out.

Runs are the ``<results_dir>/*/run.json`` folders. A run whose data and parameters are the
paper's (``provenance: paper``, :mod:`anonlab.provenance`) is judged against its
experiment's claims, which come from the experiment's config as it is now
(:mod:`anonlab.catalog`: one source of paper knowledge); any other run is listed as a custom
configuration with its overrides, its claims not checked.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab import catalog
from anonlab.config import CONF_DIR, PAPER_PROFILE
from anonlab.provenance import CUSTOM, PAPER
from anonlab.report.claims import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    STATUSES,
    WITHIN_NOISE,
    ClaimError,
    ClaimResult,
    ResultsTable,
    evaluate_claim,
    parse_claim,
)

REPORT_DIR = "report"
# the causes a contradiction is put down to, in the summary's order
CAUSES = {"stand_in_data": "our stand-in data", "paper_inconsistency": "the paper's own "
          "inconsistency", "reading": "a reading of the paper", "unexplained": "unexplained"}


@dataclass
class Run:
    """One stored run: its folder, ``run.json`` and (lazily) its results table."""

    directory: Path
    info: Mapping[str, Any]

    @property
    def folder(self) -> str:
        return self.directory.name

    @property
    def experiment(self) -> str:
        return str(self.info.get("experiment") or self.folder)

    @property
    def reading(self) -> str | None:
        return self.info.get("reading")

    @property
    def provenance(self) -> str:
        """``paper`` or ``custom``; a run that did not record it counts as custom."""
        return str(self.info.get("provenance") or CUSTOM)

    @property
    def overrides(self) -> list[str]:
        return [str(o) for o in self.info.get("overrides") or ()]

    @property
    def config(self) -> Mapping[str, Any]:
        return self.info.get("config") or {}

    @property
    def profile(self) -> str:
        return str(self.config.get("profile") or PAPER_PROFILE)

    def table(self) -> pd.DataFrame | None:
        path = self.directory / "results.parquet"
        return pd.read_parquet(path) if path.is_file() else None

    def _pick(self, found: list[Path], names: Sequence[str] | None, key: str) -> list[Path]:
        if names is not None:
            return [p for name in names for p in found if p.stem == name]
        declared = [str(item.get("name")) for item in self.config.get(key) or ()
                    if isinstance(item, Mapping)]
        order = {name: i for i, name in enumerate(declared)}
        return sorted(found, key=lambda p: (order.get(p.stem, len(order)), p.stem))

    def figures(self, names: Sequence[str] | None = None) -> list[Path]:
        return self._pick(sorted((self.directory / "figures").glob("*.png")), names, "figures")

    def tables(self, names: Sequence[str] | None = None) -> list[Path]:
        """Table stems (``tables/<name>``, written as .csv and .md)."""
        found = sorted({p.with_suffix("") for suffix in ("csv", "md")
                        for p in (self.directory / "tables").glob(f"*.{suffix}")})
        return self._pick(found, names, "tables")

    def meta(self) -> list[str]:
        """One line of facts: profile, reps, cells, seed, time, commit."""
        info, config = self.info, self.config
        git = info.get("git") or {}
        commit = (git.get("commit") or "")[:10]
        return [f"folder {self.folder}", f"profile {self.profile}",
                f"{config.get('reps', '?')} reps", f"{info.get('n_cells', '?')} cells",
                f"seed {config.get('seed', '?')}",
                f"run {str(info.get('started_at', '?'))[:19]}",
                f"{info.get('wall_time_s', '?')} s",
                f"commit {commit}{' (dirty)' if git.get('dirty') else ''}"]


def load_runs(results_dir: Path) -> list[Run]:
    """Every run stored under ``results_dir`` (``<folder>/run.json``)."""
    runs = []
    for path in sorted(Path(results_dir).glob("*/run.json")):
        if path.parent.name != REPORT_DIR:
            runs.append(Run(path.parent, json.loads(path.read_text(encoding="utf-8"))))
    return runs


def judge_claims(raw_claims: Sequence[Any], table: pd.DataFrame | None,
                 default_paper: str | None = None,
                 tables_dir: Path | None = None) -> list[ClaimResult]:
    """Each claim judged on its own, so one malformed claim does not hide the others;
    ``tables_dir`` holds the run's stored tables (``privacy`` claims read the audit's)."""
    data = ResultsTable(table, tables_dir) if table is not None else None
    results = []
    for i, raw in enumerate(raw_claims):
        try:
            claim = parse_claim(raw, i)
        except ClaimError as error:
            raw = raw if isinstance(raw, Mapping) else {}
            results.append(ClaimResult(str(raw.get("id") or f"#{i + 1}"),
                                       str(raw.get("paper") or default_paper or "?"),
                                       str(raw.get("section") or ""), str(raw.get("quote") or ""),
                                       str(raw.get("kind") or "?"), NOT_CHECKABLE,
                                       f"invalid claim: {error}", target=raw.get("target")))
            continue
        if data is None:
            results.append(ClaimResult.of(claim, NOT_CHECKABLE, "no results table"))
            continue
        try:
            results.append(evaluate_claim(claim, data))
        except (ClaimError, KeyError, TypeError, ValueError) as error:
            results.append(ClaimResult.of(claim, NOT_CHECKABLE, f"could not be checked: {error}"))
    return results


# --- the view model --------------------------------------------------------------------------


@dataclass
class ReadingVerdict:
    """A claim's verdict under one reading (``run`` is None where that reading was not run)."""

    reading: catalog.Reading | None
    result: ClaimResult | None


@dataclass
class ClaimView:
    """One claim: its verdict under the primary reading, under every other, and for a
    contradiction its cause (a key of :data:`CAUSES`) with the evidence."""

    result: ClaimResult
    readings: list[ReadingVerdict]
    cause: str | None = None
    cause_text: str | None = None


@dataclass
class TargetView:
    target: catalog.Target
    entry: catalog.ExperimentEntry
    run: Run | None
    claims: list[ClaimView]
    reading_runs: dict[str, Run]
    command: str
    reading_counts: list[tuple[catalog.Reading, dict[str, int]]] = field(default_factory=list)
    guarantees: list[dict[str, str]] = field(default_factory=list)  # guarantee_rows

    @property
    def best_reading(self) -> str | None:
        """The reading under which most of the target's claims are reproduced, when the
        readings differ."""
        if len(self.reading_counts) < 2:
            return None
        scores = [(counts[REPRODUCED], -counts[CONTRADICTED]) for _, counts in
                  self.reading_counts]
        if len(set(scores)) == 1:
            return None
        return self.reading_counts[scores.index(max(scores))][0].name


@dataclass
class PaperSummary:
    paper: catalog.Paper
    targets_run: int
    targets: int
    counts: dict[str, int]
    causes: dict[str, int]
    claims_not_run: int
    sanity_passed: int = 0  # sanity checks (true by construction) that hold
    sanity: int = 0
    undecidable: int = 0  # within noise with no count of repetitions that would decide it


@dataclass
class ReportView:
    results_dir: Path
    profile: str
    papers: list[PaperSummary]
    targets: list[TargetView]
    custom: list[Run]
    others: list[tuple[Run, list[ClaimResult]]]

    @property
    def contradictions(self) -> list[tuple[TargetView, ClaimView]]:
        return [(t, c) for t in self.targets for c in t.claims
                if c.result.status == CONTRADICTED]


def run_command(experiment: str, results_dir: Path, profile: str,
                reading: str | None = None) -> str:
    """The command that writes ``experiment``'s results (under ``reading``) into
    ``results_dir``."""
    base = results_dir if profile == PAPER_PROFILE else results_dir.parent
    command = f"anonlab run +experiment={experiment}"  # works installed and in a checkout
    if reading:
        command += f" reading={reading}"
    if profile != PAPER_PROFILE:
        command += f" profile={profile}"
    if base.resolve() != Path("results").resolve():
        command += f" results_dir={base}"
    return command


def _span(values: pd.Series) -> str:
    """``low–high`` of a numeric column (``–`` when empty), ``value`` when constant."""
    values = values.dropna()
    if values.empty:
        return "–"
    low, high = float(values.min()), float(values.max())
    return f"{low:.4g}" if low == high else f"{low:.4g}–{high:.4g}"


def guarantee_rows(table: pd.DataFrame | None) -> list[dict[str, str]]:
    """What each method's releases guarantee over the run's grid, from the results table's
    guarantee columns (:data:`anonlab.methods.guarantees.COLUMNS`): what the paper claims,
    the notion as released (``guarantee``), the ε spent per attribute and in total, the k
    and t reached (ranges over the grid), why the notion is weaker than the claim
    (``reason``) and the caveats. A table written before those columns existed gives the
    stated guarantee (:func:`~anonlab.methods.guarantees.stated`)."""
    from anonlab.methods.guarantees import stated

    if table is None or table.empty:
        return []
    rows = []
    for method, group in table.groupby("method", sort=False):
        if "guarantee" not in group:
            rows.append({"method": str(method), "claimed": f"{stated(str(method))} (stated)"})
            continue
        rows.append({"method": str(method),
                     "claimed": _joined(group, "guarantee_claimed"),
                     "as released": ", ".join(dict.fromkeys(group["guarantee"].astype(str))),
                     "ε per attribute": _span(group["guarantee_epsilon_per_attribute"]),
                     "ε in total": _span(group["guarantee_epsilon_total"]),
                     "k reached": _span(group["guarantee_k"].astype(float)),
                     "t reached": _span(group["guarantee_t"]),
                     "reason": _joined(group, "guarantee_reason"),
                     "caveat": _joined(group, "guarantee_caveat")})
    return rows


def _joined(group: pd.DataFrame, column: str) -> str:
    """The distinct values of ``column`` in ``group``, joined (``–`` for none, or for a
    table written before the column existed)."""
    if column not in group:
        return "–"
    return "; ".join(str(v) for v in dict.fromkeys(group[column].dropna())) or "–"


def _counts(results: Sequence[ClaimResult | None]) -> dict[str, int]:
    """Verdicts by status, sanity checks left out (they are no finding about a paper)."""
    return {s: sum(r is not None and r.status == s and not r.sanity for r in results)
            for s in STATUSES}


def _cause(view: ClaimView) -> tuple[str | None, str | None]:
    if view.result.status != CONTRADICTED or view.result.sanity:
        return None, None
    for verdict in view.readings[1:]:
        if verdict.result is not None and verdict.result.status == REPRODUCED:
            return "reading", (f"reproduced under the reading '{verdict.reading.name}': "
                               f"{verdict.reading.text}")
    departure = view.result.known_departure
    if departure:
        return departure["cause"], departure["evidence"]
    return "unexplained", None


def _key(reading: catalog.Reading | None) -> str | None:
    """Runs are keyed by reading name, the primary (or no reading) by ``None``."""
    return None if reading is None or reading.primary else reading.name


def _target_view(target: catalog.Target, entry: catalog.ExperimentEntry,
                 runs: Mapping[str | None, Run], results_dir: Path, profile: str,
                 judged: dict[str, list[ClaimResult]],
                 guarantees: Mapping[str, list[dict[str, str]]]) -> TargetView:
    readings = [entry.primary, *entry.alternatives] if entry.readings else [None]
    ids = {t.id for t in entry.targets}

    def belongs(raw: Any) -> bool:  # a claim's own target, else the experiment's first
        named = raw.get("target") if isinstance(raw, Mapping) else None
        return named == target.id or (named not in ids and target == entry.targets[0])

    own = [i for i, raw in enumerate(entry.claims) if belongs(raw)]
    by_reading = {_key(r): judged[runs[_key(r)].folder] if _key(r) in runs else None
                  for r in readings}
    claims = []
    for i in own:
        verdicts = [ReadingVerdict(r, by_reading[_key(r)][i] if by_reading[_key(r)] else None)
                    for r in readings]
        first = verdicts[0].result
        if first is None:
            try:
                first = ClaimResult.of(parse_claim(entry.claims[i], i), NOT_CHECKABLE, "not run")
            except ClaimError as error:
                first = ClaimResult(f"#{i + 1}", entry.paper, "", "", "?", NOT_CHECKABLE,
                                    f"invalid claim: {error}")
        view = ClaimView(first, verdicts)
        view.cause, view.cause_text = _cause(view)
        claims.append(view)
    counts = [(r, _counts([c.readings[position].result for c in claims]))
              for position, r in enumerate(readings)
              if r is not None and by_reading[_key(r)] is not None]
    return TargetView(target, entry, runs.get(None), claims,
                      {k: v for k, v in runs.items() if k is not None},
                      run_command(entry.name, results_dir, profile), counts,
                      guarantees.get(runs[None].folder, []) if None in runs else [])


def build_view(results_dir: Path, conf_dir: Path = CONF_DIR) -> ReportView:
    """Judge every paper run under ``results_dir`` and lay out the report's content."""
    results_dir = Path(results_dir)
    runs = load_runs(results_dir)
    entries = {e.name: e for e in catalog.experiments(conf_dir)}
    paper_runs: dict[str, dict[str | None, Run]] = {}
    custom, others = [], []
    judged: dict[str, list[ClaimResult]] = {}
    guarantees: dict[str, list[dict[str, str]]] = {}
    for run in runs:
        entry = entries.get(run.experiment)
        if run.provenance != PAPER:
            custom.append(run)
        elif entry is None:  # an experiment the configs do not name as a paper's
            raw = run.config.get("claims") or []
            others.append((run, judge_claims(raw, run.table())))
        else:
            primary = entry.primary
            key = (None if run.reading is None or (primary and run.reading == primary.name)
                   else run.reading)
            paper_runs.setdefault(run.experiment, {})[key] = run
            table = run.table()
            judged[run.folder] = judge_claims(entry.claims, table, entry.paper,
                                              run.directory / "tables")
            guarantees[run.folder] = guarantee_rows(table)
    profiles = [r.profile for r in runs]
    profile = (max(set(profiles), key=profiles.count) if profiles
               else results_dir.name if results_dir.name != "results" else PAPER_PROFILE)
    targets = [_target_view(t, entries[t.experiment], paper_runs.get(t.experiment, {}),
                            results_dir, profile, judged, guarantees)
               for t in catalog.targets(conf_dir)]
    summaries = []
    for paper in catalog.papers(conf_dir):
        mine = [t for t in targets if t.target.paper == paper.short]
        ran = [t for t in mine if t.run is not None]
        results = [c.result for t in ran for c in t.claims]
        causes = {cause: sum(c.cause == cause for t in ran for c in t.claims)
                  for cause in CAUSES}
        sanity = [r for r in results if r.sanity]
        summaries.append(PaperSummary(paper, len(ran), len(mine), _counts(results), causes,
                                      sum(len(t.claims) for t in mine if t.run is None),
                                      sum(r.status == REPRODUCED for r in sanity),
                                      len(sanity),
                                      sum(r.status == WITHIN_NOISE and not r.reps
                                          and not r.sanity for r in results)))
    return ReportView(results_dir, profile, summaries, targets, custom, others)
