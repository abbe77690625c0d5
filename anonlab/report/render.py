"""The reproduction report's two pages, HTML (self-contained, figures embedded) and
Markdown, laid out from one :class:`~anonlab.report.view.ReportView`."""

from __future__ import annotations

import base64
import functools
import html
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.plotting.tables import to_markdown
from anonlab.report.claims import KINDS, STATUSES, WITHIN_NOISE, ClaimResult
from anonlab.report.view import CAUSES, ClaimView, ReportView, Run, TargetView
from anonlab.validation import ParameterError

NOTES_HTML, NOTES_MD = "notes.html", "notes.md"

STYLE = """
body{font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif;margin:0 auto;
max-width:1200px;padding:1em 2em;color:#222;line-height:1.45}
h1{margin-bottom:.2em}h2{border-bottom:2px solid #ddd;padding-bottom:.2em;margin-top:2.2em}
table{border-collapse:collapse;font-size:.85em;margin:.5em 0}
th,td{border:1px solid #ccc;padding:.2em .5em;text-align:right;vertical-align:top}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}
td.text{text-align:left}
figure{margin:1em 0}figure img{max-width:100%;height:auto;border:1px solid #eee}
.scroll{overflow-x:auto;max-width:100%}
.meta{color:#666;font-size:.85em}
.claim{border-left:5px solid #999;padding:.4em .8em;margin:.8em 0;background:#fafafa}
.claim.reproduced{border-color:#2e7d32}.claim.contradicted{border-color:#c62828}
.claim.within-noise{border-color:#f9a825}.claim.not-checkable{border-color:#9e9e9e}
.badge{display:inline-block;padding:0 .5em;border-radius:3px;color:#fff;font-size:.8em;
font-weight:bold}
.badge.reproduced{background:#2e7d32}.badge.contradicted{background:#c62828}
.badge.within-noise{background:#b58900}.badge.not-checkable{background:#757575}
.claim blockquote{margin:.3em 0;font-style:italic;color:#444}
.ours{font-family:ui-monospace,Menlo,Consolas,monospace;font-size:.8em;word-break:break-word}
.tol,.cause{font-size:.85em}.tol{color:#666}.cause{color:#8a1c1c}
.notrun{background:#fff8e1;border:1px solid #ffe082;padding:.5em 1em}
p.legend{margin:.2em 0 1em}
code{background:#f3f3f3;padding:0 .2em}
"""


def _e(text: Any) -> str:
    return html.escape(str(text), quote=True)


def _cited(result: Any, separator: str) -> str:
    """Where a claim stands, its paper and section (an experiment of one's own has
    neither), followed by ``separator``; empty when there is nothing to cite."""
    cited = " ".join(str(p) for p in (result.paper, result.section) if p)
    return cited + separator if cited else ""


def _guarantees_html(rows: list[dict[str, str]]) -> list[str]:
    """What each method's releases guarantee, as a heading and a table (none without
    rows)."""
    if not rows:
        return []
    return [
        "<h3>What each method's releases guarantee</h3>",
        _rows_html(
            [{k: _e(v) for k, v in row.items()} for row in rows],
            ("method", "claimed", "as released", "reason", "caveat"),
        ),
    ]


def _guarantees_md(rows: list[dict[str, str]]) -> list[str]:
    """What each method's releases guarantee, as a Markdown table (none without rows)."""
    return ["What each method's releases guarantee:", "", md_table(rows), ""] if rows else []


def _css(status: str) -> str:
    return status.replace(" ", "-")


def _number(value: float) -> str:
    if value == 0 or 0.01 <= abs(value) < 1e5:
        return f"{value:.2f}"
    return f"{value:.3g}"


def summary_rows(view: ReportView) -> list[dict[str, Any]]:
    """One row per paper and stage (exploratory, then confirmatory where run) and a total
    per stage: targets run, claims by verdict, within noise split by what the plan can still
    do, contradictions by cause, and the claims of targets not run."""
    stages = ["exploratory", *(["confirmatory"] if view.has_confirmatory else [])]
    rows = []
    for stage in stages:
        mine = []
        for s in view.papers:
            tally = s.confirmatory if stage == "confirmatory" else s.explored
            if tally is None:
                continue
            row = {
                "paper": s.paper.short,
                "seed": stage,
                "targets run": f"{tally.targets_run}/{s.targets}",
                "claims judged": sum(tally.counts.values()),
            }
            for status in STATUSES:
                row[status] = tally.counts[status]
                if status == WITHIN_NOISE:
                    row["… needs more data (next look)"] = tally.needs_more_data
                    row["… undecidable as encoded"] = tally.undecidable
            row.update({f"contradicted: {label}": tally.causes[c] for c, label in CAUSES.items()})
            row["claims of targets not run"] = s.claims_not_run
            row["sanity checks passed"] = f"{tally.sanity_passed}/{tally.sanity}"
            mine.append(row)
        if not mine:
            continue
        total: dict[str, Any] = {
            "paper": "all",
            "seed": stage,
            "targets run": _fraction(mine, "targets run"),
        }
        for column in list(mine[0])[3:-1]:
            total[column] = sum(row[column] for row in mine)
        total["sanity checks passed"] = _fraction(mine, "sanity checks passed")
        rows += [*mine, total]
    if view.has_confirmatory:
        seeds = {
            "exploratory": "exploratory",
            "confirmatory": f"confirmatory ({view.confirmatory_seed})",
        }
        for row in rows:
            row["seed"] = seeds[row["seed"]]
    else:
        for row in rows:
            del row["seed"]
    return rows


def _fraction(rows: Sequence[Mapping[str, Any]], column: str) -> str:
    """The sum of ``a/b`` cells, as ``a/b``."""
    parts = [str(row[column]).split("/") for row in rows]
    return f"{sum(int(a) for a, _ in parts)}/{sum(int(b) for _, b in parts)}"


def freeze_line(view: ReportView) -> str:
    """What was frozen before the confirmatory run, and whether today's claims are it."""
    if view.frozen_digest is None:
        return ""
    same = view.frozen_digest == view.digest
    changed = sorted({c.result.id for t in view.targets for c in t.claims if c.changed})
    text = (
        f"claims frozen as sha256 {view.frozen_digest[:16]}… (conf/preregistration.yaml), "
        f"confirmatory seed {view.confirmatory_seed}; today's claims "
        + ("are the frozen ones" if same else f"differ: sha256 {(view.digest or '')[:16]}…")
    )
    if changed:
        text += (
            f"; encoding changed after the confirmatory run for {len(changed)} claim(s): "
            + ", ".join(changed)
        )
    return text


def _look_text(result: ClaimResult) -> str:
    if result.look is None:
        return ""
    reps = result.look_reps
    text = f" [look {result.look}: {reps} repetition{'' if reps == 1 else 's'}]"
    if result.status == WITHIN_NOISE and result.needs_more_data and result.reps is None:
        text += (
            f" — needs more data: the plan's next look, {result.next_reps} repetitions, "
            "may decide it (this kind gives no estimate of how many would)"
        )
    elif result.status == WITHIN_NOISE and result.needs_more_data:
        chance = (
            f", {_chance_text(result.decide_chance)} chance to decide"
            if result.decide_chance is not None
            else ""
        )
        text += (
            f" — needs more data: next look: {result.next_reps} repetitions{chance} "
            f"({result.reps} would decide it were the estimates true; an estimate, not a "
            "promise)"
        )
    elif result.status == WITHIN_NOISE:
        text += (
            " — undecidable as encoded: no look of the plan would decide it at these "
            f"estimates; what would: {_what_would_decide(result)}"
        )
    return text


def _chance_text(chance: float) -> str:
    """A chance in whole percent, ``about 35 %`` (``under 1 %``, ``over 99 %``)."""
    if chance < 0.005:
        return "under 1 %"
    if chance > 0.995:
        return "over 99 %"
    return f"about {round(100 * chance)} %"


def _what_would_decide(result: ClaimResult) -> str:
    """What would decide an undecidable claim: the repetitions beyond the plan's last look,
    or why no number of them would."""
    if result.reps is not None:
        beyond = (
            f", beyond the plan's last look ({result.last_look_reps})"
            if result.last_look_reps is not None
            else ""
        )
        return f"about {result.reps} repetitions{beyond}"
    if result.kind in KINDS and not KINDS[result.kind].estimates:
        return "this kind gives no estimate of the repetitions that would decide it"
    if result.look_reps == 1:
        return "one repetition has no spread to estimate from; the plan's repetitions would"
    if result.kind in ("crossover", "extremum"):  # its location straddles the window
        return (
            "no number of repetitions: the location lies between grid points that "
            "straddle the paper's window (or a point sits on its boundary); a finer grid "
            "of x there would"
        )
    return (
        "no number of repetitions: the curves agree within noise at the boundary; "
        "a stated equivalence margin would"
    )


def _verdict_line(result: ClaimResult) -> str:
    text = f"ours: {result.ours}"
    if result.sanity:
        text = f"sanity check (true by construction: {result.sanity}, no finding); " + text
    if result.look is not None:
        return text + _look_text(result)
    if result.status == WITHIN_NOISE and result.reps:
        text += (
            f" — needs more data: about {result.reps} repetitions could decide it, "
            "were the observed means and spreads the truth (an estimate, not a promise)"
        )
    elif result.status == WITHIN_NOISE:
        text += f" — undecidable as encoded; what would decide it: {_what_would_decide(result)}"
    return text


def _tolerance(result: ClaimResult) -> str:
    return result.tolerance_note or ("none: the relation as stated, at every point it judges")


def change_rows(view: ReportView) -> list[dict[str, str]]:
    return [
        {"claim": c.id, "seed": c.stage, "before": c.before, "now": c.after, "why": c.reason}
        for c in view.changes
    ]


# --- HTML ------------------------------------------------------------------------------------


#: CSS pixels per inch: a figure is shown at the size it was laid out at, whatever its dpi
CSS_DPI = 96


def png_size(path: Path) -> tuple[int, int, float | None]:
    """Width and height in pixels of the PNG at ``path`` and its resolution in dots per
    inch (which matplotlib writes), None if it does not say."""
    from PIL import Image  # matplotlib's own dependency

    with Image.open(path) as image:
        dpi = image.info.get("dpi")
        return image.width, image.height, float(dpi[0]) if dpi else None


def _figure_html(path: Path) -> str:
    """The figure embedded at its natural width: the size matplotlib laid it out at (its
    pixels at its dpi, 96 CSS pixels an inch), so that every figure's text has the same
    size on the page; narrower on a small screen (CSS ``max-width``), never stretched."""
    raw = path.read_bytes()
    try:
        width, height, dpi = png_size(path)
    except OSError:  # not an image PIL reads: shown as it is
        size = ""
    else:
        scale = CSS_DPI / dpi if dpi else 1.0
        size = f' width="{round(width * scale)}" height="{round(height * scale)}"'
    data = base64.b64encode(raw).decode("ascii")
    return (
        f'<figure><img alt="{_e(path.stem)}"{size} src="data:image/png;base64,{data}">'
        f'<figcaption class="meta">{_e(path.name)}</figcaption></figure>'
    )


@functools.cache
def builder_legend(source: str) -> str | None:
    """The ``legend`` a table builder (``module:function``) declares, saying how to read
    its cells (TCM Tables 1–3: which pair is ours, which the paper's), or None. A run
    stored before the experiments moved into the package names ``experiments.…``: it is
    looked up as ``anonlab.experiments.…`` too."""
    from anonlab.plotting.tables import load_builder

    for candidate in (source, f"anonlab.{source}"):
        try:
            legend = getattr(load_builder(candidate), "legend", None)
        except ParameterError:
            continue
        return str(legend) if legend else None
    return None


def table_legend(run: Run, name: str) -> str | None:
    """The legend of the run's table ``name``, from the builder its config names."""
    for entry in run.config.get("tables") or ():
        if isinstance(entry, Mapping) and str(entry.get("name")) == name:
            return builder_legend(str(entry.get("builder", "")))
    return None


def _table_html(stem: Path, legend: str | None = None) -> str:
    csv = stem.with_suffix(".csv")
    if csv.is_file():
        body = pd.read_csv(csv).to_html(index=False, na_rep="", border=0, float_format=_number)
    else:
        body = f"<pre>{_e(stem.with_suffix('.md').read_text(encoding='utf-8'))}</pre>"
    note = f'<p class="meta legend">{_e(legend)}</p>' if legend else ""
    return f'<h4>{_e(stem.name)}</h4><div class="scroll">{body}</div>{note}'


def _rows_html(rows: Sequence[Mapping[str, Any]], text_columns: Sequence[str] = ()) -> str:
    if not rows:
        return ""
    columns = list(rows[0])
    head = "".join(f"<th>{_e(c)}</th>" for c in columns)
    body = "".join(
        "<tr>"
        + "".join(f"<td{' class=text' if c in text_columns else ''}>{row[c]}</td>" for c in columns)
        + "</tr>"
        for row in rows
    )
    return f'<div class="scroll"><table><tr>{head}</tr>{body}</table></div>'


def _next_look(claim: ClaimView, command: str | None) -> str | None:
    """The command that runs the plan's next look of a claim that needs more data."""
    r = claim.result
    if command is None or not r.needs_more_data:
        return None
    return f"{command} reps={r.next_reps}"


def _claim_html(claim: ClaimView, notes: str, command: str | None = None) -> str:
    r = claim.result
    link = f' · <a href="{notes}{_e(r.notes)}">notes</a>' if r.notes else ""
    out = [
        f'<div class="claim {_css(r.status)}" id="claim-{_e(r.id)}">',
        f'<span class="badge {_css(r.status)}">{_e(r.status)}</span> <b>{_e(r.id)}</b> '
        f'<span class="meta">{_e(_cited(r, " · "))}{_e(r.kind)}'
        f"{' · ' + _e(r.metric) if r.metric else ''}{link}</span>",
        f"<blockquote>“{_e(r.quote)}”</blockquote>",
        f'<div class="tol">judges: {_e(r.slice)}</div>' if r.slice else "",
        f'<div class="ours">{_e(_verdict_line(r))}</div>',
    ]
    if _next_look(claim, command):
        out.append(
            f'<div class="tol">next look: <code>{_e(_next_look(claim, command))}</code></div>'
        )
    if claim.confirmatory is not None:
        c = claim.confirmatory
        out.append(
            f'<div class="ours">confirmatory seed: <span class="badge {_css(c.status)}">'
            f"{_e(c.status)}</span> {_e(_verdict_line(c))}</div>"
        )
    if claim.changed:
        out.append(
            '<div class="cause">encoding changed after the confirmatory results '
            "existed: the confirmatory verdict is of today's encoding, not the frozen "
            "one</div>"
        )
    if claim.cause:
        evidence = f": {_e(claim.cause_text)}" if claim.cause_text else ""
        command = f" — evidence: <code>{_e(claim.command)}</code>" if claim.command else ""
        out.append(
            f'<div class="cause">cause: <b>{_e(CAUSES[claim.cause])}</b>{evidence}{command}</div>'
        )
    if len(claim.readings) > 1:
        rows = [
            {
                "reading": _e(v.reading.name) + (" (text)" if v.reading.primary else ""),
                "verdict": (
                    f'<span class="badge {_css(v.result.status)}">{_e(v.result.status)}</span>'
                    if v.result
                    else "not run"
                ),
                "ours": f'<span class="ours">{_e(v.result.ours)}</span>' if v.result else "",
            }
            for v in claim.readings
        ]
        out.append(_rows_html(rows, ("reading", "ours")))
    out.append(f'<div class="tol">tolerance: {_e(_tolerance(r))}</div>')
    return "".join(out) + "</div>"


def _readings_html(t: TargetView) -> str:
    if not t.entry.readings:
        return ""
    rows = []
    for reading in [t.entry.primary, *t.entry.alternatives]:
        counts = dict(next((c for r, c in t.reading_counts if r.name == reading.name), {}))
        run = t.run if reading.primary else t.reading_runs.get(reading.name)
        rows.append(
            {
                "reading": _e(reading.name)
                + (" (the text's)" if reading.primary else "")
                + (" ★" if reading.name == t.best_reading else ""),
                "what it takes the paper to say": _e(reading.text),
                **(
                    {s: counts.get(s, "") for s in STATUSES}
                    if run
                    else {"run": f"<code>{_e(t.command)} reading={_e(reading.name)}</code>"}
                ),
            }
        )
    keys = list(dict.fromkeys(k for row in rows for k in row))
    rows = [{k: row.get(k, "") for k in keys} for row in rows]
    note = f" ★ reproduces the most claims: <b>{_e(t.best_reading)}</b>." if t.best_reading else ""
    return (
        f'<h3>Readings</h3><p class="meta">Each claim is judged under every reading.'
        f"{note}</p>" + _rows_html(rows, ("reading", "what it takes the paper to say"))
    )


def render_html(view: ReportView) -> str:
    """The self-contained HTML page."""
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>anonlab reproduction report</title>",
        f"<style>{STYLE}</style>",
        "</head><body>",
        "<h1>Reproduction report</h1>",
        f'<p class="meta">results: <code>{_e(view.results_dir)}</code> · profile '
        f"{_e(view.profile)} · verdicts by a pre-registered group-sequential plan over "
        f'the repetitions (<a href="{NOTES_HTML}#report">how claims are judged</a>)</p>',
        f'<p class="meta">{_e(freeze_line(view))}</p>',
        "<h2>Summary</h2>",
        _rows_html(summary_rows(view)),
    ]
    if view.changes:
        out += [
            "<h3>Verdicts changed since the last report</h3>",
            _rows_html(
                [{k: _e(v) for k, v in row.items()} for row in change_rows(view)], ("claim", "why")
            ),
        ]
    if view.contradictions:
        items = [
            f'<li><a href="#claim-{_e(c.result.id)}">{_e(t.target.title_line)}: '
            f"{_e(c.result.id)}</a> — {_e(CAUSES[c.cause or 'uninvestigated'])}"
            + (f" (<code>{_e(c.command)}</code>)" if c.command else "")
            + "</li>"
            for t, c in view.contradictions
        ]
        out += ["<h3>Contradictions and their causes</h3>", "<ul>", *items, "</ul>"]
    out += ["<h2>Figures and tables</h2>", "<ul>"]
    for t in view.targets:
        counts = {s: sum(c.result.status == s for c in t.claims) for s in STATUSES}
        state = (
            ", ".join(f"{n} {s}" for s, n in counts.items() if n) or "no claims"
            if t.run
            else "not run"
        )
        out.append(
            f'<li><a href="#{t.target.anchor}">{_e(t.target.title_line)}</a> '
            f"({_e(t.target.title)}): {_e(state)}</li>"
        )
    out.append("</ul>")
    for t in view.targets:
        out.append(
            f'<h2 id="{t.target.anchor}">{_e(t.target.title_line)}: {_e(t.target.title)}</h2>'
        )
        if t.run is None:
            out.append(f'<p class="notrun"><b>not run</b>: <code>{_e(t.command)}</code></p>')
            continue
        out.append('<p class="meta">' + " · ".join(_e(m) for m in t.run.meta()) + "</p>")
        out += [_figure_html(p) for p in t.run.figures(t.target.figures)]
        out += [_table_html(p, table_legend(t.run, p.name)) for p in t.run.tables(t.target.tables)]
        out += _guarantees_html(t.guarantees)
        out.append(_readings_html(t))
        out.append("<h3>The paper's claims</h3>")
        out += [_claim_html(c, NOTES_HTML, t.command) for c in t.claims] or [
            '<p class="meta">no claims stated for this target</p>'
        ]
    if view.custom:
        out += [
            "<h2>Custom configurations</h2>",
            '<p class="meta">Runs whose data or parameters are not the paper\'s: their '
            "claims are not checked.</p>",
        ]
        rows = [
            {
                "folder": _e(r.folder),
                "experiment": _e(r.experiment),
                "overrides": "<code>" + _e(" ".join(r.overrides) or "not recorded") + "</code>",
                "run": _e(" · ".join(r.meta()[1:])),
            }
            for r in view.custom
        ]
        out.append(_rows_html(rows, ("folder", "experiment", "overrides", "run")))
    for own in view.others:  # experiments of one's own: no paper
        run = own.run
        out += [
            f"<h2>{_e(run.folder)}</h2>",
            '<p class="meta">' + " · ".join(_e(m) for m in run.meta()) + "</p>",
        ]
        out += [_figure_html(p) for p in run.figures()]
        out += [_table_html(p, table_legend(run, p.name)) for p in run.tables()]
        out += _guarantees_html(own.guarantees)
        out += [_claim_html(ClaimView(r, []), NOTES_HTML) for r in own.results]
    out.append("</body></html>")
    return "\n".join(out)


# --- Markdown --------------------------------------------------------------------------------


def _md(value: Any) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def md_table(rows: Sequence[Mapping[str, Any]]) -> str:
    return to_markdown(pd.DataFrame(list(rows))) if rows else ""


def _claim_md(claim: ClaimView, command: str | None = None) -> list[str]:
    r = claim.result
    link = f" ([notes]({NOTES_MD}{r.notes}))" if r.notes else ""
    out = [
        f"- **{r.status}** `{r.id}` ({_cited(r, ', ')}{r.kind}"
        f"{', ' + r.metric if r.metric else ''}){link}: “{_md(r.quote)}”  ",
        f"  {_md(_verdict_line(r))}",
    ]
    if r.slice:
        out[-1] += "  "
        out.append(f"  judges: {_md(r.slice)}")
    if _next_look(claim, command):
        out[-1] += "  "
        out.append(f"  next look: `{_next_look(claim, command)}`")
    if claim.confirmatory is not None:
        out[-1] += "  "
        out.append(
            f"  confirmatory seed: **{claim.confirmatory.status}**, "
            f"{_md(_verdict_line(claim.confirmatory))}"
        )
    if claim.changed:
        out[-1] += "  "
        out.append("  encoding changed after the confirmatory results existed")
    if claim.cause:
        out[-1] += "  "
        out.append(
            f"  cause: **{CAUSES[claim.cause]}**"
            + (f": {_md(claim.cause_text)}" if claim.cause_text else "")
            + (f" — evidence: `{claim.command}`" if claim.command else "")
        )
    for v in claim.readings[1:]:
        out[-1] += "  "
        out.append(
            f"  reading `{v.reading.name}`: "
            + (f"**{v.result.status}**, {_md(v.result.ours)}" if v.result else "not run")
        )
    out[-1] += "  "
    out.append(f"  tolerance: {_md(_tolerance(r))}")
    return out


def _tables_md(run: Run, stems: Sequence[Path]) -> list[str]:
    """The run's tables ``stems`` as the Markdown page shows them, each with its legend."""
    out = []
    for stem in stems:
        md = stem.with_suffix(".md")
        if md.is_file():
            out += [f"**{stem.name}**", "", md.read_text(encoding="utf-8"), ""]
            legend = table_legend(run, stem.name)
            out += [f"*{_md(legend)}*", ""] if legend else []
    return out


def render_markdown(view: ReportView, figure_path: Callable[[Path], str]) -> str:
    """The Markdown page; ``figure_path`` maps a run's figure to the link the page uses."""
    out = [
        "# Reproduction report",
        "",
        f"Results: `{view.results_dir}` · profile {view.profile} · verdicts by a "
        f"pre-registered group-sequential plan over the repetitions ([how claims are "
        f"judged]({NOTES_MD}#report))",
        "",
        freeze_line(view),
        "",
        "## Summary",
        "",
        md_table(summary_rows(view)),
    ]
    if view.changes:
        out += ["", "### Verdicts changed since the last report", "", md_table(change_rows(view))]
    if view.contradictions:
        out += ["### Contradictions and their causes", ""]
        out += [
            f"- {t.target.title_line}: `{c.result.id}` — "
            f"{CAUSES[c.cause or 'uninvestigated']}" + (f" (`{c.command}`)" if c.command else "")
            for t, c in view.contradictions
        ]
        out.append("")
    for t in view.targets:
        out += [f"## {t.target.title_line}: {t.target.title}", ""]
        if t.run is None:
            out += [f"**not run**: `{t.command}`", ""]
            continue
        out += [" · ".join(t.run.meta()), ""]
        out += [f"![{p.stem}]({figure_path(p)})\n" for p in t.run.figures(t.target.figures)]
        out += _tables_md(t.run, t.run.tables(t.target.tables))
        out += _guarantees_md(t.guarantees)
        if len(t.reading_counts) > 1:
            rows = [
                {
                    "reading": r.name + (" (the text's)" if r.primary else ""),
                    "what it takes the paper to say": r.text,
                    **counts,
                }
                for r, counts in t.reading_counts
            ]
            out += [
                "Readings"
                + (f" (most reproduced: `{t.best_reading}`)" if t.best_reading else "")
                + ":",
                "",
                md_table(rows),
            ]
        for claim in t.claims:
            out += _claim_md(claim, t.command)
        out.append("" if t.claims else "No claims stated.\n")
    if view.custom:
        out += [
            "## Custom configurations",
            "",
            "Runs whose data or parameters are not the paper's: claims not checked.",
            "",
        ]
        out.append(
            md_table(
                [
                    {
                        "folder": r.folder,
                        "experiment": r.experiment,
                        "overrides": " ".join(r.overrides) or "not recorded",
                    }
                    for r in view.custom
                ]
            )
        )
    for own in view.others:  # experiments of one's own: no paper
        run = own.run
        out += [f"## {run.folder}", "", " · ".join(run.meta()), ""]
        out += [f"![{p.stem}]({figure_path(p)})\n" for p in run.figures()]
        out += _tables_md(run, run.tables())
        out += _guarantees_md(own.guarantees)
        for r in own.results:
            out += _claim_md(ClaimView(r, []))
        out.append("")
    return "\n".join(out) + "\n"
