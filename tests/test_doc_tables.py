"""The docs' tables of methods, metrics, guarantees, grid axes and data sources are written
from the code when the site is built (the MkDocs hook docs/_ext/doc_tables.py): a page
holds only its table's markers, which the build fills, so a component added in its own
file is in the site's tables with no step to regenerate them."""

from __future__ import annotations

import importlib.util
import re
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import markdown
import pytest

from anonlab.datasets import SOURCES
from anonlab.listing import DOC_TABLES, doc_table, render_doc_tables
from anonlab.methods import METHODS, grid_axes
from anonlab.metrics import METRICS

ROOT = Path(__file__).resolve().parents[1]
HOOK = ROOT / "docs" / "_ext" / "doc_tables.py"
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "plugins"


def registered(marker: str) -> set[str]:
    """The names the table ``marker`` must list: every registered component of its kind."""
    return set(
        {
            "methods-table": METHODS,
            "guarantees-table": METHODS,
            "metrics-table": METRICS,
            "axes-table": grid_axes(),
            "datasets-table": SOURCES,
        }[marker]
    )


def block(text: str, marker: str) -> str:
    return text.partition(f"<!-- {marker}:start -->\n")[2].partition(f"\n<!-- {marker}:end -->")[0]


def listed(table: str) -> set[str]:
    """The names in a table's first column (``| `name` …``)."""
    return {m[1] for line in table.splitlines() if (m := re.match(r"\| `([^`]+)`", line))}


def load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_table_has_its_page_and_every_block_a_table():
    assert set(DOC_TABLES) == {
        "methods-table",
        "guarantees-table",
        "metrics-table",
        "axes-table",
        "datasets-table",
    }
    for marker, page in DOC_TABLES.items():
        text = (ROOT / page).read_text(encoding="utf-8")
        assert text.count(f"<!-- {marker}:start -->\n") == 1, f"{page} has no {marker} block"
        assert f"\n<!-- {marker}:end -->" in text
    with pytest.raises(ValueError, match=r"no generated table 'nope-table'; the tables are"):
        render_doc_tables("<!-- nope-table:start -->\nx\n<!-- nope-table:end -->")


@pytest.mark.parametrize("marker", sorted(DOC_TABLES))
def test_the_built_table_lists_every_registered_component(marker):
    page = (ROOT / DOC_TABLES[marker]).read_text(encoding="utf-8")
    built = block(render_doc_tables(page), marker)
    assert built == doc_table(marker)
    assert listed(built) == registered(marker)


def unique(name: str, taken: Mapping[str, Any]) -> str:
    """``name``, or ``name`` with a suffix when ``taken`` holds it."""
    return name if name not in taken else f"{name}_{len(taken)}_fixture"


def test_a_component_added_later_is_in_the_built_table_of_the_same_page():
    """A data source and an axis registered after the page was written (as a new file in
    the package is discovered) are in the tables the build writes from the unchanged page."""
    from anonlab.datasets import register_source
    from anonlab.datasets.axes import VIEW_AXES, register_axis

    pages = {m: (ROOT / DOC_TABLES[m]).read_text(encoding="utf-8") for m in DOC_TABLES}
    axes, sources = dict(VIEW_AXES), dict(SOURCES)
    # a contributor's own axis or source may already have the fixture's name: a fresh one
    axis = load(FIXTURES / "records.py", "doc_records").N
    axis = replace(axis, name=unique(axis.name, VIEW_AXES))
    source = load(FIXTURES / "tiny.py", "doc_tiny").TINY
    source = replace(source, name=unique(source.name, SOURCES))
    try:
        register_axis(axis)
        register_source(source)
        assert axis.name in listed(block(render_doc_tables(pages["axes-table"]), "axes-table"))
        tables = render_doc_tables(pages["datasets-table"])
        assert source.name in listed(block(tables, "datasets-table"))
    finally:
        VIEW_AXES.clear()
        VIEW_AXES.update(axes)
        SOURCES.clear()
        SOURCES.update(sources)


def test_the_hook_fills_the_tables_as_the_site_is_built():
    hook = load(HOOK, "doc_tables_hook")
    config = hook.on_config(SimpleNamespace(markdown_extensions=["tables"]))
    md = markdown.Markdown(extensions=config.markdown_extensions)
    page = (ROOT / DOC_TABLES["metrics-table"]).read_text(encoding="utf-8")
    html = md.convert(page).partition("<!-- metrics-table:start -->")[2]
    table = html[html.index("<table>") : html.index("</table>")]
    assert {m for m in re.findall(r"<td><code>([^<]+)</code></td>", table)} == set(METRICS)
