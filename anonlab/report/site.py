"""The reproduction report: each paper figure and table beside its claims, checked against
our stored results, as one self-contained HTML page (``report/index.html``, figures embedded)
and its Markdown twin (``report/index.md``).

``build_report(results_dir)`` reads every ``<results_dir>/*/run.json`` with its
``results.parquet``, ``figures/*.png`` and ``tables/*.csv|md``. Claims come from the run's
resolved config (``claims``); a run that predates them is checked against the claims of
``conf/experiment/<name>.yaml``, and the report says so. ``TARGETS`` maps the experiments
to the papers' figures and tables, in one place.
"""

from __future__ import annotations

import base64
import html
import json
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd
import yaml

from anonlab.config import PAPER_PROFILE
from anonlab.io import write_atomic
from anonlab.report.claims import (
    CONTRADICTED,
    NOT_CHECKABLE,
    REPRODUCED,
    STATUSES,
    ClaimError,
    ClaimResult,
    ResultsTable,
    evaluate_claim,
    parse_claim,
)

REPO = Path(__file__).resolve().parents[2]
NOTES = REPO / "docs" / "reproduction-notes.md"
CONF_EXPERIMENTS = REPO / "conf" / "experiment"
REPORT_DIR = "report"
PAPERS = ("DP-IR", "DP-UNI", "TCM", "iDP")


@dataclass(frozen=True)
class Target:
    """One figure or table of a paper and the experiment that regenerates it; ``figures`` /
    ``tables`` pick the run's outputs that belong to it (``None``: all of them)."""

    paper: str
    name: str
    experiment: str
    figures: tuple[str, ...] | None = None
    tables: tuple[str, ...] | None = None

    @property
    def title(self) -> str:
        return f"{self.paper} {self.name}"

    @property
    def anchor(self) -> str:
        return re.sub(r"[^a-z0-9]+", "-", self.title.lower()).strip("-")


TARGETS: tuple[Target, ...] = (
    Target("DP-IR", "Figure 1", "census_ir"),
    Target("DP-IR", "Figure 2", "adult_ir"),
    Target("DP-IR", "Figure 3", "census_ir_vs_mdav"),
    Target("DP-IR", "Figure 4", "adult_ir_vs_mdav"),
    Target("DP-IR", "Table 1", "census_variance"),
    Target("DP-UNI", "Figure 1", "adult_uni_sse"),
    Target("TCM", "Table 1", "tclose_sizes", figures=(), tables=("table1",)),
    Target("TCM", "Table 2", "tclose_sizes", figures=(), tables=("table2",)),
    Target("TCM", "Table 3", "tclose_sizes", figures=(), tables=("table3",)),
    Target("TCM", "Figure 5", "tclose_runtime"),
    Target("TCM", "Figure 6", "tclose_sse"),
    Target("TCM", "Figure 7", "tclose_sse_kt"),
    Target("iDP", "Figure 3", "census_idp_sse"),
    Target("iDP", "Figure 4", "wine_idp_sse"),
    Target("iDP", "Figure 5", "census_idp_rf"),
    Target("iDP", "Figure 6", "wine_idp_rf"),
)


def targets_of(experiment: str) -> list[Target]:
    """The paper targets an experiment regenerates (empty for a custom experiment)."""
    return [t for t in TARGETS if t.experiment == experiment]


# --- reading the runs ---------------------------------------------------------------------


@dataclass
class Run:
    """One experiment's stored outputs and its checked claims."""

    name: str
    directory: Path
    info: Mapping[str, Any]
    results: list[ClaimResult] = field(default_factory=list)
    claims_source: str = "run.json"

    @property
    def config(self) -> Mapping[str, Any]:
        return self.info.get("config") or {}

    @property
    def profile(self) -> str:
        return str(self.config.get("profile") or PAPER_PROFILE)

    def _declared(self, key: str) -> list[str]:
        return [str(item.get("name")) for item in self.config.get(key) or ()
                if isinstance(item, Mapping)]

    def _pick(self, found: list[Path], names: Sequence[str] | None, key: str) -> list[Path]:
        """``found`` in the order the config declares them (others after, by name), or
        only ``names``."""
        if names is not None:
            return [p for name in names for p in found if p.stem == name]
        order = {name: i for i, name in enumerate(self._declared(key))}
        return sorted(found, key=lambda p: (order.get(p.stem, len(order)), p.stem))

    def figures(self, names: Sequence[str] | None) -> list[Path]:
        return self._pick(sorted((self.directory / "figures").glob("*.png")), names, "figures")

    def tables(self, names: Sequence[str] | None) -> list[Path]:
        """Table stems (``tables/<name>``, written as .csv and .md)."""
        found = sorted({p.with_suffix("") for suffix in ("csv", "md")
                        for p in (self.directory / "tables").glob(f"*.{suffix}")})
        return self._pick(found, names, "tables")


def _config_claims(name: str) -> list[Any] | None:
    path = CONF_EXPERIMENTS / f"{name}.yaml"
    if not path.is_file():
        return None
    return (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("claims")


def _check(raw_claims: Sequence[Any], table: pd.DataFrame | None, default_paper: str | None
           ) -> list[ClaimResult]:
    """Each claim checked on its own, so one malformed claim does not hide the others."""
    data = ResultsTable(table) if table is not None else None
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
                                       f"invalid claim: {error}",
                                       target=raw.get("target")))
            continue
        if data is None:
            results.append(ClaimResult(claim.id, claim.paper, claim.section, claim.quote,
                                       claim.kind, NOT_CHECKABLE, "no results table",
                                       claim.notes, claim.target, claim.tolerance_note))
            continue
        try:
            results.append(evaluate_claim(claim, data))
        except (ClaimError, KeyError, TypeError, ValueError) as error:
            results.append(ClaimResult(claim.id, claim.paper, claim.section, claim.quote,
                                       claim.kind, NOT_CHECKABLE,
                                       f"could not be checked: {error}", claim.notes,
                                       claim.target, claim.tolerance_note))
    return results


def load_runs(results_dir: Path) -> dict[str, Run]:
    """Every run under ``results_dir`` (``<name>/run.json``), with its claims checked."""
    runs: dict[str, Run] = {}
    for run_json in sorted(results_dir.glob("*/run.json")):
        directory = run_json.parent
        if directory.name == REPORT_DIR:
            continue
        info = json.loads(run_json.read_text(encoding="utf-8"))
        name = str(info.get("experiment") or directory.name)
        run = Run(name, directory, info)
        config = run.config
        raw_claims = config.get("claims")
        if "claims" not in config:
            raw_claims = _config_claims(name)
            run.claims_source = (f"conf/experiment/{name}.yaml (this run's run.json predates "
                                 "claims)") if raw_claims is not None else "none"
        results_path = directory / "results.parquet"
        table = pd.read_parquet(results_path) if results_path.is_file() else None
        paper = (config.get("experiment") or {}).get("paper")
        run.results = _check(raw_claims or [], table, paper)
        runs[name] = run
    return runs


def _claims_by_target(run: Run) -> dict[str, list[ClaimResult]]:
    """The run's claim results under each of its targets' names (a claim's ``target``, or
    the experiment's only target)."""
    names = [t.name for t in targets_of(run.name)]
    placed: dict[str, list[ClaimResult]] = {name: [] for name in names}
    for result in run.results:
        key = result.target if result.target in placed else (names[0] if names else "")
        placed.setdefault(key, []).append(result)
    return placed


def _counts(results: Sequence[ClaimResult]) -> dict[str, int]:
    return {status: sum(r.status == status for r in results) for status in STATUSES}


# --- commands and links ---------------------------------------------------------------------


def _declared_profiles() -> set[str]:
    found = {PAPER_PROFILE}
    for path in CONF_EXPERIMENTS.glob("*.yaml"):
        found |= set((yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("profiles")
                     or {})
    return found


def _profile_of(results_dir: Path, runs: Mapping[str, Run]) -> str:
    """The runs' profile; for a folder without runs, its name if it names a profile
    (``results/quick``)."""
    profiles = [run.profile for run in runs.values()]
    if profiles:
        return max(set(profiles), key=profiles.count)
    return results_dir.name if results_dir.name in _declared_profiles() else PAPER_PROFILE


def run_command(experiment: str, results_dir: Path, profile: str) -> str:
    """The command that writes ``experiment``'s results into ``results_dir``."""
    base = results_dir if profile == PAPER_PROFILE else results_dir.parent
    command = f"python run.py +experiment={experiment}"
    if profile != PAPER_PROFILE:
        command += f" profile={profile}"
    if base.resolve() != (REPO / "results").resolve():
        command += f" results_dir={base}"
    return command


def _notes_href(report_dir: Path, anchor: str | None) -> str | None:
    if not anchor:
        return None
    try:
        relative = os.path.relpath(NOTES, report_dir.resolve())
    except ValueError:  # another drive
        relative = NOTES.as_posix()
    return f"{Path(relative).as_posix()}{anchor}"


# --- HTML ----------------------------------------------------------------------------------

STYLE = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1500px;padding:1em 2em;color:#222;line-height:1.4}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
.target{display:grid;grid-template-columns:minmax(0,3fr) minmax(0,2fr);gap:1.5em}
@media (max-width:1000px){.target{grid-template-columns:1fr}}
.target img{max-width:100%;border:1px solid #eee}
.scroll{overflow-x:auto}
.meta{color:#666;font-size:.85em}
.claim{border-left:4px solid #999;padding:.3em .7em;margin:.6em 0;background:#fafafa}
.claim.reproduced{border-color:#2e7d32}.claim.not-reproduced{border-color:#c62828}
.claim.not-checkable{border-color:#9e9e9e}.claim.contradicted{border-color:#c62828}.claim.within-noise{border-color:#f9a825}
.badge{display:inline-block;padding:0 .5em;border-radius:3px;color:#fff;font-size:.8em;
font-weight:bold}
.badge.reproduced{background:#2e7d32}.badge.not-reproduced{background:#c62828}
.badge.not-checkable{background:#757575}
.claim blockquote{margin:.3em 0;font-style:italic;color:#444}
.claim .ours{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;
word-break:break-word}
.claim .tol{color:#666;font-size:.8em}
.notrun{background:#fff8e1;border:1px solid #ffe082;padding:.5em 1em}
code{background:#f3f3f3;padding:0 .2em}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _css_class(status: str) -> str:
    return status.replace(" ", "-")


def _summary_rows(runs: Mapping[str, Run]) -> list[dict[str, Any]]:
    rows = []
    for paper in PAPERS:
        targets = [t for t in TARGETS if t.paper == paper]
        results: list[ClaimResult] = []
        not_run_claims = 0
        for experiment in dict.fromkeys(t.experiment for t in targets):
            if experiment in runs:
                results += [r for r in runs[experiment].results if r.paper == paper]
            else:
                not_run_claims += len(_config_claims(experiment) or [])
        counts = _counts(results)
        rows.append({"paper": paper,
                     "targets run": f"{sum(t.experiment in runs for t in targets)}/"
                                    f"{len(targets)}",
                     "claims checked": len(results), **counts,
                     "claims of targets not run": not_run_claims})
    total: dict[str, Any] = {"paper": "all",
                             "targets run": f"{sum(t.experiment in runs for t in TARGETS)}/"
                                            f"{len(TARGETS)}"}
    for column in list(rows[0])[2:]:
        total[column] = sum(row[column] for row in rows)
    return [*rows, total]


def _number(value: float) -> str:
    if value == 0 or 0.01 <= abs(value) < 1e5:
        return f"{value:.2f}"
    return f"{value:.3g}"


def _html_table(frame: pd.DataFrame) -> str:
    return frame.to_html(index=False, na_rep="", escape=True, border=0, float_format=_number)


def _figure_html(path: Path) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{_e(path.stem)}" src="data:image/png;base64,{data}">'
            f'<figcaption class="meta">{_e(path.name)}</figcaption></figure>')


def _table_html(stem: Path) -> str:
    csv = stem.with_suffix(".csv")
    if csv.is_file():
        body = _html_table(pd.read_csv(csv))
    else:
        body = f"<pre>{_e(stem.with_suffix('.md').read_text(encoding='utf-8'))}</pre>"
    return f'<h4>{_e(stem.name)}</h4><div class="scroll">{body}</div>'


def _claim_html(result: ClaimResult, report_dir: Path) -> str:
    css = _css_class(result.status)
    href = _notes_href(report_dir, result.notes)
    link = f' · <a href="{_e(href)}">notes</a>' if href else ""
    tolerance = (f'<div class="tol">tolerance: {_e(result.tolerance_note)}</div>'
                 if result.tolerance_note else "")
    return (f'<div class="claim {css}" id="claim-{_e(result.id)}">'
            f'<span class="badge {css}">{_e(result.status)}</span> '
            f'<b>{_e(result.id)}</b> <span class="meta">{_e(result.paper)} '
            f'{_e(result.section)} · {_e(result.kind)}{link}</span>'
            f'<blockquote>“{_e(result.quote)}”</blockquote>'
            f'<div class="ours">ours: {_e(result.ours)}</div>{tolerance}</div>')


def _run_meta(run: Run) -> str:
    info, config = run.info, run.config
    git = info.get("git") or {}
    commit = (git.get("commit") or "")[:10]
    parts = [f"experiment <code>{_e(run.name)}</code>", f"profile {_e(run.profile)}",
             f"{_e(config.get('reps', '?'))} reps", f"{_e(info.get('n_cells', '?'))} cells",
             f"seed {_e(config.get('seed', '?'))}",
             f"run {_e(str(info.get('started_at', '?'))[:19])}",
             f"{_e(info.get('wall_time_s', '?'))} s",
             f"commit {_e(commit)}{' (dirty)' if git.get('dirty') else ''}",
             f"claims from {_e(run.claims_source)}"]
    return '<p class="meta">' + " · ".join(parts) + "</p>"


def _render_html(results_dir: Path, report_dir: Path, runs: Mapping[str, Run],
                 profile: str) -> str:
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>anonlab reproduction report</title>", f"<style>{STYLE}</style>",
           "</head><body>", "<h1>Reproduction report</h1>",
           f'<p class="meta">results: <code>{_e(results_dir)}</code> · profile '
           f"{_e(profile)} · {len(runs)} experiment(s) run</p>",
           "<h2>Summary</h2>", _html_table(pd.DataFrame(_summary_rows(runs)))]
    index = []
    for target in TARGETS:
        run = runs.get(target.experiment)
        if run is None:
            index.append(f'<li><a href="#{target.anchor}">{_e(target.title)}</a>: not run</li>')
            continue
        counts = _counts(_claims_by_target(run).get(target.name, []))
        index.append(f'<li><a href="#{target.anchor}">{_e(target.title)}</a>: '
                     + ", ".join(f"{n} {s}" for s, n in counts.items()) + "</li>")
    out += ["<h2>Figures and tables</h2>", "<ul>", *index, "</ul>"]
    for target in TARGETS:
        out.append(f'<h2 id="{target.anchor}">{_e(target.title)}</h2>')
        run = runs.get(target.experiment)
        if run is None:
            command = run_command(target.experiment, results_dir, profile)
            out.append(f'<p class="notrun"><b>not run</b>: <code>{_e(command)}</code></p>')
            continue
        out.append(_run_meta(run))
        left = [_figure_html(p) for p in run.figures(target.figures)]
        left += [_table_html(p) for p in run.tables(target.tables)]
        claims = _claims_by_target(run).get(target.name, [])
        right = [_claim_html(r, report_dir) for r in claims] or [
            '<p class="meta">no claims stated for this target</p>']
        out.append('<div class="target"><div>' + ("".join(left) or
                   '<p class="meta">no figure or table written</p>') + "</div><div>"
                   + "".join(right) + "</div></div>")
    others = [run for name, run in runs.items() if not targets_of(name)]
    if others:
        out.append("<h2>Other experiments</h2>")
        for run in others:
            out.append(f"<h3>{_e(run.name)}</h3>" + _run_meta(run))
            out += [_claim_html(r, report_dir) for r in run.results]
    out.append("</body></html>")
    return "\n".join(out)


# --- Markdown ------------------------------------------------------------------------------


def _md_cell(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _md_table(rows: Sequence[Mapping[str, Any]]) -> str:
    if not rows:
        return ""
    columns = list(rows[0])
    lines = ["| " + " | ".join(columns) + " |", "|" + "|".join("---" for _ in columns) + "|"]
    lines += ["| " + " | ".join(_md_cell(row[c]) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def _claim_md(result: ClaimResult, report_dir: Path) -> str:
    href = _notes_href(report_dir, result.notes)
    link = f" ([notes]({href}))" if href else ""
    text = (f"- **{result.status}** `{result.id}` ({result.paper} {result.section}, "
            f"{result.kind}){link}: “{_md_cell(result.quote)}”  \n"
            f"  ours: {_md_cell(result.ours)}")
    if result.tolerance_note:
        text += f"  \n  tolerance: {_md_cell(result.tolerance_note)}"
    return text


def _render_md(results_dir: Path, report_dir: Path, runs: Mapping[str, Run],
               profile: str) -> str:
    out = ["# Reproduction report", "",
           f"Results: `{results_dir}` · profile {profile} · {len(runs)} experiment(s) run", "",
           "## Summary", "", _md_table(_summary_rows(runs))]
    for target in TARGETS:
        out += [f"## {target.title}", ""]
        run = runs.get(target.experiment)
        if run is None:
            out += [f"**not run**: `{run_command(target.experiment, results_dir, profile)}`",
                    ""]
            continue
        out += [f"Experiment `{run.name}`, profile {run.profile}, "
                f"{run.config.get('reps', '?')} reps; claims from {run.claims_source}.", ""]
        for path in run.figures(target.figures):
            out += [f"![{path.stem}]({Path(os.path.relpath(path, report_dir)).as_posix()})",
                    ""]
        for stem in run.tables(target.tables):
            md = stem.with_suffix(".md")
            if md.is_file():
                out += [f"**{stem.name}**", "", md.read_text(encoding="utf-8"), ""]
        claims = _claims_by_target(run).get(target.name, [])
        out += [_claim_md(r, report_dir) for r in claims] or ["No claims stated."]
        out.append("")
    others = [run for name, run in runs.items() if not targets_of(name)]
    if others:
        out += ["## Other experiments", ""]
        for run in others:
            out += [f"### {run.name}", "", *[_claim_md(r, report_dir) for r in run.results], ""]
    return "\n".join(out) + "\n"


def build_report(results_dir: Path) -> Path:
    """Write ``<results_dir>/report/index.html`` (self-contained) and ``index.md`` from every
    run stored under ``results_dir``; return the HTML path."""
    results_dir = Path(results_dir)
    runs = load_runs(results_dir)
    profile = _profile_of(results_dir, runs)
    report_dir = results_dir / REPORT_DIR
    page = _render_html(results_dir, report_dir, runs, profile)
    markdown = _render_md(results_dir, report_dir, runs, profile)
    write_atomic(report_dir / "index.md", lambda tmp: tmp.write_text(markdown, encoding="utf-8"))
    return write_atomic(report_dir / "index.html",
                        lambda tmp: tmp.write_text(page, encoding="utf-8"))


__all__ = ["CONTRADICTED", "NOT_CHECKABLE", "REPRODUCED", "TARGETS", "Target",
           "build_report", "load_runs", "run_command", "targets_of"]
