"""The reproduction report folder: ``<results_dir>/report/`` with ``index.html``
(self-contained, figures embedded), ``index.md`` with the figures it shows copied beside it,
the reproduction notes (``notes.html``, ``notes.md``) its claims link to, so the folder
can be moved or shared whole, and ``verdicts.csv``, every claim's verdict per seed, which the
next report compares with to list the verdicts that changed and why.

``build_report(results_dir)`` judges every paper run stored under ``results_dir``
(:mod:`anonlab.report.view`) and writes the pages (:mod:`anonlab.report.render`).
"""

from __future__ import annotations

import shutil
from pathlib import Path

import markdown
import pandas as pd

from anonlab.config import CONF_DIR
from anonlab.io import write_atomic
from anonlab.report.render import NOTES_HTML, NOTES_MD, STYLE, render_html, render_markdown
from anonlab.report.view import REPORT_DIR, VERDICTS_FILE, build_view, load_runs, run_command

#: ``docs/reproduction-notes.md``, shipped inside the package (a link in a checkout)
NOTES = Path(__file__).resolve().parent / "reproduction-notes.md"
FIGURES_DIR = "figures"

__all__ = ["NOTES", "REPORT_DIR", "build_report", "load_runs", "run_command"]


def _write_text(path: Path, text: str) -> Path:
    return write_atomic(path, lambda tmp: tmp.write_text(text, encoding="utf-8"))


def _notes_html(text: str) -> str:
    body = markdown.markdown(text, extensions=["tables", "fenced_code"])
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>Reproduction notes</title><style>{STYLE}</style></head><body>"
        f'<p class="meta"><a href="index.html">← the report</a></p>{body}</body></html>\n'
    )


def build_report(results_dir: Path, conf_dir: Path = CONF_DIR) -> Path:
    """Write the report folder of every run stored under ``results_dir``; return the path
    of ``index.html``. Papers, targets and claims come from the configs in ``conf_dir``."""
    results_dir = Path(results_dir)
    view = build_view(results_dir, conf_dir)
    report_dir = results_dir / REPORT_DIR
    figures = report_dir / FIGURES_DIR
    copied: dict[Path, Path] = {}

    def figure_path(path: Path) -> str:  # the Markdown page links copies beside it
        copied[path] = figures / f"{path.parent.parent.name}__{path.name}"
        return f"{FIGURES_DIR}/{copied[path].name}"

    page_md = render_markdown(view, figure_path)
    page_html = render_html(view)
    figures.mkdir(parents=True, exist_ok=True)
    for source, target in copied.items():
        write_atomic(target, lambda tmp, source=source: shutil.copyfile(source, tmp))
    notes = NOTES.read_text(encoding="utf-8") if NOTES.is_file() else "# Reproduction notes\n"
    _write_text(report_dir / NOTES_MD, notes)
    _write_text(report_dir / NOTES_HTML, _notes_html(notes))
    _write_text(report_dir / "index.md", page_md)
    rows = pd.DataFrame(view.verdict_rows(), columns=["id", "stage", "status", "digest"])
    write_atomic(report_dir / VERDICTS_FILE, lambda tmp: rows.to_csv(tmp, index=False))
    return _write_text(report_dir / "index.html", page_html)
