"""What the reproduction report says, as data: the stored runs, each paper claim judged on
every reading's run, the cause of each contradiction, and the summaries. The HTML and
Markdown pages (:mod:`anonlab.report.render`) only lay this out.

Runs are the ``<results_dir>/*/run.json`` folders. A run whose data and parameters are the
paper's (``provenance: paper``, :mod:`anonlab.provenance`) is judged against its
experiment's claims, which come from the experiment's config as it is now
(:mod:`anonlab.catalog`: one source of paper knowledge). A run of an experiment of one's
own (``provenance: own``: it names no paper, and runs as its YAML declares) is shown with its
figures and tables, its claims judged by the same rules; any other run is listed as a custom
configuration with its overrides, its claims not checked.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

import anonlab.catalog as catalog
import anonlab.preregistration as preregistration
from anonlab.config import CONF_DIR, PAPER_PROFILE
from anonlab.preregistration import CONFIRMATORY, claim_digest
from anonlab.provenance import CUSTOM, OWN, PAPER
from anonlab.report.claims import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    STATUSES,
    WITHIN_NOISE,
    ClaimError,
    ClaimResult,
    evaluate_claim,
    parse_claim,
)
from anonlab.report.looks import RepsView, claim_tables, judge_in_looks, plan_reps
from anonlab.runner.checkpoint import reason

REPORT_DIR = "report"
#: the previous report's verdicts, to list what changed (``<results_dir>/report/``)
VERDICTS_FILE = "verdicts.csv"
# the causes a contradiction is put down to, in the summary's order: those a claim declares
# (``known_departure``, with its evidence), a reading that reproduces it, and nothing
CAUSES = {
    "stand_in_data": "our stand-in data or method",
    "paper_inconsistency": "the paper's own inconsistency",
    "implementation": "a known implementation departure",
    "reading": "a reading of the paper",
    "unexplained": "unexplained after investigation",
    "uninvestigated": "not yet investigated",
}


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
        """``paper``, ``own`` or ``custom``; a run that did not record it counts as custom."""
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

    @property
    def stage(self) -> str:
        return str(self.config.get("stage") or preregistration.EXPLORATORY)

    def claim_digests(self) -> dict[str, str]:
        """Each claim's digest as the run recorded it (its config's claims, resolved as
        :func:`~anonlab.catalog.resolved_claims` resolves them)."""
        return {
            str(c.get("id")): claim_digest(c)
            for c in catalog.resolved_claims(self.config)
            if isinstance(c, Mapping)
        }

    def table(self) -> pd.DataFrame | None:
        path = self.directory / "results.parquet"
        return pd.read_parquet(path) if path.is_file() else None

    def damage(self) -> str | None:
        """Why the run's ``results.parquet`` cannot be read, with the command that
        rebuilds it from the run's stored parts; ``None`` if it reads (or is absent)."""
        import shlex

        try:
            self.table()
        except Exception as error:  # truncated, not Parquet, …: say how to rebuild it
            why = reason(error)
            command = shlex.join(["anonlab", "run", *self.overrides, "plot_only=true"])
            return (
                f"{self.directory / 'results.parquet'} is unreadable ({why}); rebuild it from "
                f"the run's stored parts with: {command}"
            )
        return None

    def _pick(self, found: list[Path], names: Sequence[str] | None, key: str) -> list[Path]:
        if names is not None:
            return [p for name in names for p in found if p.stem == name]
        declared = [
            str(item.get("name"))
            for item in self.config.get(key) or ()
            if isinstance(item, Mapping)
        ]
        order = {name: i for i, name in enumerate(declared)}
        return sorted(found, key=lambda p: (order.get(p.stem, len(order)), p.stem))

    def figures(self, names: Sequence[str] | None = None) -> list[Path]:
        return self._pick(sorted((self.directory / "figures").glob("*.png")), names, "figures")

    def tables(self, names: Sequence[str] | None = None) -> list[Path]:
        """Table stems (``tables/<name>``, written as .csv and .md)."""
        found = sorted(
            {
                p.with_suffix("")
                for suffix in ("csv", "md")
                for p in (self.directory / "tables").glob(f"*.{suffix}")
            }
        )
        return self._pick(found, names, "tables")

    def meta(self) -> list[str]:
        """One line of facts: profile, reps, cells, seed, time, cores and load, commit."""
        info, config = self.info, self.config
        git = info.get("git") or {}
        commit = (git.get("commit") or "")[:10]
        return [
            f"folder {self.folder}",
            f"profile {self.profile}",
            f"{config.get('reps', '?')} reps",
            f"{info.get('n_cells', '?')} cells",
            f"seed {config.get('seed', '?')}",
            f"run {str(info.get('started_at', '?'))[:19]}",
            f"{info.get('wall_time_s', '?')} s",
            *self._machine(),
            f"commit {commit}{' (dirty)' if git.get('dirty') else ''}",
        ]

    def _machine(self) -> list[str]:
        """Cores and the 1-minute load average at the run's start and end, as ``run.json``
        recorded them (nothing for a run that did not)."""
        facts = self.info.get("machine")
        if not isinstance(facts, Mapping):
            return []
        cores = facts.get("cpus_usable") or facts.get("cpu_count")
        load = facts.get("load_average") or {}
        start, end = (
            f"{v[0]:.2f}" if isinstance(v, list | tuple) and v else "?"
            for v in (load.get("start"), load.get("end"))
        )
        return [f"{cores or '?'} cores", f"load {start}→{end}"]


def load_runs(results_dir: Path) -> list[Run]:
    """Every run stored under ``results_dir`` (``<folder>/run.json``), then the confirmatory
    runs (``confirmatory/<folder>/run.json``)."""
    runs = []
    paths = [
        *sorted(Path(results_dir).glob("*/run.json")),
        *sorted(Path(results_dir).glob(f"{CONFIRMATORY}/*/run.json")),
    ]
    for path in paths:
        if path.parent.name != REPORT_DIR:
            runs.append(Run(path.parent, json.loads(path.read_text(encoding="utf-8"))))
    return runs


def judge_claims(
    raw_claims: Sequence[Any],
    table: pd.DataFrame | None,
    default_paper: str | None = None,
    tables_dir: Path | None = None,
    looks: Sequence[int] | None = None,
    spent: Sequence[float] | None = None,
    tables_of: Callable[[str], pd.DataFrame] | None = None,
) -> list[ClaimResult]:
    """Each claim judged on its own, so one malformed claim does not hide the others;
    ``tables_dir`` holds the run's stored tables (``privacy`` claims read the audit's).
    ``looks``: the repetitions of each look of the pre-registered plan for this run's
    experiment and ``spent`` the share of α of each (:func:`judge_in_looks`); ``None``
    judges once, at level α, on every repetition. ``tables_of``: claim id → the table
    with the repetitions the plan's later looks added for it
    (:func:`anonlab.report.looks.claim_tables`)."""
    at_reps = RepsView(table, tables_dir) if table is not None else None
    views: dict[int, RepsView] = {} if at_reps is None else {id(table): at_reps}
    # every repetition: the same ResultsTable (and its cached points) as the plan's last look
    data = at_reps.first(at_reps.available) if at_reps is not None else None
    results = []
    for i, raw in enumerate(raw_claims):
        try:
            claim = parse_claim(raw, i)
        except ClaimError as error:
            raw = raw if isinstance(raw, Mapping) else {}
            results.append(
                ClaimResult(
                    str(raw.get("id") or f"#{i + 1}"),
                    str(raw.get("paper") or default_paper or "?"),
                    str(raw.get("section") or ""),
                    str(raw.get("quote") or ""),
                    str(raw.get("kind") or "?"),
                    NOT_CHECKABLE,
                    f"invalid claim: {error}",
                    target=raw.get("target"),
                )
            )
            continue
        if data is None or at_reps is None:
            results.append(ClaimResult.of(claim, NOT_CHECKABLE, "no results table"))
            continue
        if tables_of is not None:  # the repetitions its later looks added, if any
            own = tables_of(claim.id)
            at_reps = views.setdefault(id(own), RepsView(own, tables_dir))
        try:
            results.append(
                evaluate_claim(claim, data)
                if looks is None or spent is None
                else judge_in_looks(claim, at_reps, looks, spent)
            )
        except (ClaimError, KeyError, TypeError, ValueError, ArithmeticError) as error:
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
    """One claim: its verdict under the primary reading, under every other, on the
    confirmatory run, and for a contradiction its cause (a key of :data:`CAUSES`) with the
    evidence and the command that shows it."""

    result: ClaimResult
    readings: list[ReadingVerdict]
    cause: str | None = None
    cause_text: str | None = None
    command: str | None = None
    confirmatory: ClaimResult | None = None
    #: the claim's encoding differs from the one its confirmatory run recorded
    changed: bool = False
    digest: str = ""  # of the claim's encoding (anonlab.preregistration.claim_digest)


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
    confirmatory_run: Run | None = None

    @property
    def best_reading(self) -> str | None:
        """The reading under which most of the target's claims are reproduced, when the
        readings differ."""
        if len(self.reading_counts) < 2:
            return None
        scores = [(counts[REPRODUCED], -counts[CONTRADICTED]) for _, counts in self.reading_counts]
        if len(set(scores)) == 1:
            return None
        return self.reading_counts[scores.index(max(scores))][0].name


@dataclass
class Tally:
    """One paper's verdicts on one stage's runs (sanity checks left out)."""

    counts: dict[str, int]
    causes: dict[str, int]
    needs_more_data: int  # within noise, and the plan's next look could decide it
    undecidable: int  # within noise, and no look of the plan could
    targets_run: int = 0
    sanity_passed: int = 0
    sanity: int = 0


@dataclass
class PaperSummary:
    """One paper's verdicts: on the exploratory runs, and on the confirmatory runs where
    they exist."""

    paper: catalog.Paper
    targets: int
    claims_not_run: int
    explored: Tally
    confirmatory: Tally | None = None


@dataclass
class VerdictChange:
    """A claim whose verdict differs from the previous report's, and why."""

    id: str
    stage: str
    before: str
    after: str
    reason: str


@dataclass(frozen=True)
class OwnRun:
    """An experiment of one's own (no paper) as the report shows it: its run, its claims
    judged, and what each method's releases guarantee (:func:`guarantee_rows`)."""

    run: Run
    results: list[ClaimResult]
    guarantees: list[dict[str, str]]


@dataclass
class ReportView:
    results_dir: Path
    profile: str
    papers: list[PaperSummary]
    targets: list[TargetView]
    custom: list[Run]
    others: list[OwnRun]
    frozen_digest: str | None = None  # the pre-registration's
    digest: str | None = None  # today's claims
    confirmatory_seed: int | None = None
    changes: list[VerdictChange] = field(default_factory=list)

    @property
    def contradictions(self) -> list[tuple[TargetView, ClaimView]]:
        return [
            (t, c)
            for t in self.targets
            for c in t.claims
            if c.result.status == CONTRADICTED
            or (c.confirmatory is not None and c.confirmatory.status == CONTRADICTED)
        ]

    @property
    def has_confirmatory(self) -> bool:
        return any(t.confirmatory_run is not None for t in self.targets)

    def verdict_rows(self) -> list[dict[str, str]]:
        """Every claim's verdicts, for the next report to compare with: the papers'
        claims by id, then those of experiments of one's own as ``<experiment>/<id>``
        (their ids need not differ from a paper's)."""
        rows = []
        for t in self.targets:
            for c in t.claims:
                rows.append(
                    {
                        "id": c.result.id,
                        "stage": "exploratory",
                        "status": c.result.status,
                        "digest": c.digest,
                    }
                )
                if c.confirmatory is not None:
                    rows.append(
                        {
                            "id": c.result.id,
                            "stage": CONFIRMATORY,
                            "status": c.confirmatory.status,
                            "digest": c.digest,
                        }
                    )
        for own in self.others:
            digests = own.run.claim_digests()
            rows += [
                {
                    "id": f"{own.run.experiment}/{r.id}",
                    "stage": own.run.stage,
                    "status": r.status,
                    "digest": digests.get(r.id, ""),
                }
                for r in own.results
            ]
        return rows


def run_command(
    experiment: str, results_dir: Path, profile: str, reading: str | None = None
) -> str:
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
    guarantee columns (:data:`anonlab.guarantee.COLUMNS`): what the paper claims,
    the notion as released (``guarantee``), the ε spent per attribute and in total, the k
    and t reached (ranges over the grid), why the notion is weaker than the claim
    (``reason``) and the caveats. A table written before those columns existed gives the
    stated guarantee (:func:`~anonlab.methods.guarantees.stated`)."""
    from anonlab.methods import method_class
    from anonlab.methods.guarantees import stated

    if table is None or table.empty:
        return []
    rows = []
    for method, group in table.groupby("method", sort=False):
        if "guarantee" not in group:
            rows.append(
                {"method": str(method), "claimed": f"{stated(method_class(str(method)))} (stated)"}
            )
            continue
        rows.append(
            {
                "method": str(method),
                "claimed": _joined(group, "guarantee_claimed"),
                "as released": ", ".join(dict.fromkeys(group["guarantee"].astype(str))),
                "ε per attribute": _span(group["guarantee_epsilon_per_attribute"]),
                "ε in total": _span(group["guarantee_epsilon_total"]),
                "k reached": _span(group["guarantee_k"].astype(float)),
                "t reached": _span(group["guarantee_t"]),
                "reason": _joined(group, "guarantee_reason"),
                "caveat": _joined(group, "guarantee_caveat"),
            }
        )
    return rows


def _joined(group: pd.DataFrame, column: str) -> str:
    """The distinct values of ``column`` in ``group``, joined (``–`` for none, or for a
    table written before the column existed)."""
    if column not in group:
        return "–"
    return "; ".join(str(v) for v in dict.fromkeys(group[column].dropna())) or "–"


def _counts(results: Sequence[ClaimResult | None]) -> dict[str, int]:
    """Verdicts by status, sanity checks left out (they are no finding about a paper)."""
    return {
        s: sum(r is not None and r.status == s and not r.sanity for r in results) for s in STATUSES
    }


def _cause(view: ClaimView) -> tuple[str | None, str | None, str | None]:
    """The cause of a contradiction (on either run), its evidence and its command."""
    contradicted = [
        r
        for r in (view.result, view.confirmatory)
        if r is not None and r.status == CONTRADICTED and not r.sanity
    ]
    if not contradicted:
        return None, None, None
    for verdict in view.readings[1:]:
        if verdict.result is not None and verdict.result.status == REPRODUCED:
            return (
                "reading",
                (f"reproduced under the reading '{verdict.reading.name}': {verdict.reading.text}"),
                None,
            )
    departure = view.result.known_departure
    if departure:
        return departure["cause"], departure["evidence"], departure.get("command")
    return "uninvestigated", None, None


def _key(reading: catalog.Reading | None) -> str | None:
    """Runs are keyed by reading name, the primary (or no reading) by ``None``."""
    return None if reading is None or reading.primary else reading.name


def _target_view(
    target: catalog.Target,
    entry: catalog.ExperimentEntry,
    runs: Mapping[str | None, Run],
    results_dir: Path,
    profile: str,
    judged: Mapping[Path, list[ClaimResult]],
    guarantees: Mapping[Path, list[dict[str, str]]],
    confirmatory: Run | None,
) -> TargetView:
    readings = [entry.primary, *entry.alternatives] if entry.readings else [None]
    ids = {t.id for t in entry.targets}

    def belongs(raw: Any) -> bool:  # a claim's own target, else the experiment's first
        named = raw.get("target") if isinstance(raw, Mapping) else None
        return named == target.id or (named not in ids and target == entry.targets[0])

    own = [i for i, raw in enumerate(entry.claims) if belongs(raw)]
    by_reading = {
        _key(r): judged[runs[_key(r)].directory] if _key(r) in runs else None for r in readings
    }
    confirmed = judged[confirmatory.directory] if confirmatory is not None else None
    recorded = confirmatory.claim_digests() if confirmatory is not None else {}
    claims = []
    for i in own:
        verdicts = [
            ReadingVerdict(r, by_reading[_key(r)][i] if by_reading[_key(r)] else None)
            for r in readings
        ]
        first = verdicts[0].result
        if first is None:
            try:
                first = ClaimResult.of(parse_claim(entry.claims[i], i), NOT_CHECKABLE, "not run")
            except ClaimError as error:
                first = ClaimResult(
                    f"#{i + 1}", entry.paper, "", "", "?", NOT_CHECKABLE, f"invalid claim: {error}"
                )
        view = ClaimView(first, verdicts, confirmatory=confirmed[i] if confirmed else None)
        if isinstance(entry.claims[i], Mapping):
            view.digest = claim_digest(entry.claims[i])
            view.changed = confirmatory is not None and recorded.get(first.id) != view.digest
        view.cause, view.cause_text, view.command = _cause(view)
        claims.append(view)
    counts = [
        (r, _counts([c.readings[position].result for c in claims]))
        for position, r in enumerate(readings)
        if r is not None and by_reading[_key(r)] is not None
    ]
    return TargetView(
        target,
        entry,
        runs.get(None),
        claims,
        {k: v for k, v in runs.items() if k is not None},
        run_command(entry.name, results_dir, profile),
        counts,
        guarantees.get(runs[None].directory, []) if None in runs else [],
        confirmatory,
    )


def _tally(views: Sequence[ClaimView], confirmatory: bool, targets_run: int = 0) -> Tally:
    results = [v.confirmatory if confirmatory else v.result for v in views]
    sanity = [r for r in results if r is not None and r.sanity]
    causes = {
        cause: sum(
            v.cause == cause and r is not None and r.status == CONTRADICTED and not r.sanity
            for v, r in zip(views, results, strict=True)
        )
        for cause in CAUSES
    }
    within = [r for r in results if r is not None and r.status == WITHIN_NOISE and not r.sanity]
    more = sum(r.needs_more_data for r in within)
    return Tally(
        _counts(results),
        causes,
        more,
        len(within) - more,
        targets_run,
        sum(r.status == REPRODUCED for r in sanity),
        len(sanity),
    )


def _changes(results_dir: Path, view: ReportView) -> list[VerdictChange]:
    """The verdicts that differ from the previous report's (``report/verdicts.csv``), each
    with its reason: the claim's encoding changed, or else the run or the checker did."""
    path = results_dir / REPORT_DIR / VERDICTS_FILE
    if not path.is_file():
        return []
    before = pd.read_csv(path, dtype=str).fillna("")
    old = {(r.id, r.stage): r for r in before.itertuples(index=False)}
    stages = {stage for _, stage in old}
    changes = []
    for row in view.verdict_rows():
        previous = old.get((row["id"], row["stage"]))
        if previous is None and row["stage"] in stages:
            changes.append(
                VerdictChange(
                    row["id"],
                    row["stage"],
                    "absent",
                    row["status"],
                    "a new claim, or a renamed one",
                )
            )
        if previous is None or previous.status == row["status"]:
            continue
        reason = (
            "the claim's encoding changed"
            if previous.digest != row["digest"]
            else "a new run, or the checker's rules, changed"
        )
        changes.append(
            VerdictChange(row["id"], row["stage"], previous.status, row["status"], reason)
        )
    current = {(r["id"], r["stage"]) for r in view.verdict_rows()}
    changes += [
        VerdictChange(k[0], k[1], old[k].status, "removed", "the claim was withdrawn or renamed")
        for k in old
        if k not in current
    ]
    return changes


def build_view(results_dir: Path, conf_dir: Path = CONF_DIR) -> ReportView:
    """Judge every paper run under ``results_dir`` (the confirmatory runs under
    ``confirmatory/``) and lay out the report's content."""
    results_dir = Path(results_dir)
    runs = load_runs(results_dir)
    entries = {e.name: e for e in catalog.experiments(conf_dir)}
    prereg = preregistration.load(conf_dir)
    paper_runs: dict[str, dict[str | None, Run]] = {}
    confirmatory: dict[str, Run] = {}
    custom, others = [], []
    judged: dict[Path, list[ClaimResult]] = {}
    guarantees: dict[Path, list[dict[str, str]]] = {}
    for run in runs:
        entry = entries.get(run.experiment)
        if run.provenance not in (PAPER, OWN):
            custom.append(run)
        elif entry is None or run.provenance == OWN:  # no paper's: one's own experiment
            raw, table = catalog.resolved_claims(run.config), run.table()
            others.append(OwnRun(run, judge_claims(raw, table), guarantee_rows(table)))
        else:
            primary = entry.primary
            key = (
                None
                if run.reading is None or (primary and run.reading == primary.name)
                else run.reading
            )
            if run.stage == CONFIRMATORY:
                if key is not None:
                    continue  # the confirmatory verdicts are the primary reading's
                confirmatory[run.experiment] = run
            else:
                paper_runs.setdefault(run.experiment, {})[key] = run
            table = run.table()
            looks = plan_reps(entry, run.profile, prereg.plan)
            judged[run.directory] = judge_claims(
                entry.claims,
                table,
                entry.paper,
                run.directory / "tables",
                looks,
                prereg.plan.spent,
                claim_tables(run.directory, table, looks),
            )
            guarantees[run.directory] = guarantee_rows(table)
    profiles = [r.profile for r in runs]
    profile = (
        max(set(profiles), key=profiles.count)
        if profiles
        else results_dir.name
        if results_dir.name != "results"
        else PAPER_PROFILE
    )
    targets = [
        _target_view(
            t,
            entries[t.experiment],
            paper_runs.get(t.experiment, {}),
            results_dir,
            profile,
            judged,
            guarantees,
            confirmatory.get(t.experiment),
        )
        for t in catalog.targets(conf_dir)
    ]
    summaries = []
    for paper in catalog.papers(conf_dir):
        mine = [t for t in targets if t.target.paper == paper.short]
        ran = [t for t in mine if t.run is not None]
        views = [c for t in ran for c in t.claims]
        confirmed_targets = [t for t in mine if t.confirmatory_run is not None]
        confirmed = [c for t in confirmed_targets for c in t.claims]
        summaries.append(
            PaperSummary(
                paper,
                len(mine),
                sum(len(t.claims) for t in mine if t.run is None),
                _tally(views, False, len(ran)),
                _tally(confirmed, True, len(confirmed_targets)) if confirmed_targets else None,
            )
        )
    view = ReportView(
        results_dir,
        profile,
        summaries,
        targets,
        custom,
        others,
        prereg.claims_sha256,
        preregistration.claims_digest(conf_dir),
        prereg.confirmatory_seed,
    )
    view.changes = _changes(results_dir, view)
    return view
