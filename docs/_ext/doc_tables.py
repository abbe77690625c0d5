"""An MkDocs hook (``hooks:`` in mkdocs.yml): the documentation's generated tables, the
methods, metrics, guarantees, grid axes and data sources (``anonlab.listing.DOC_TABLES``),
are written from the code when the site is built. Each page's
``<!-- <marker>:start -->`` … ``<!-- <marker>:end -->`` block (also one that an included
file brings in: ``pymdownx.snippets``, where used, runs first) is filled with
``anonlab.listing.doc_table(marker)``, so a method, metric, axis or data source added in its
own file is in the site's tables with no step to regenerate them."""

from __future__ import annotations

from typing import Any

from markdown import Extension, Markdown
from markdown.preprocessors import Preprocessor

from anonlab.listing import render_doc_tables

#: after the snippets (priority 32), before Markdown's own HTML blocks (20) and whitespace (30)
PRIORITY = 31


class DocTables(Preprocessor):
    """Fills every generated table's block of a page's lines."""

    def run(self, lines: list[str]) -> list[str]:
        return render_doc_tables("\n".join(lines)).split("\n")


class DocTablesExtension(Extension):
    """The Markdown extension that registers :class:`DocTables`."""

    def extendMarkdown(self, md: Markdown) -> None:  # Markdown's name for the method
        md.preprocessors.register(DocTables(md), "anonlab_doc_tables", PRIORITY)


def on_config(config: Any) -> Any:
    """Add the extension to the site's Markdown extensions."""
    config.markdown_extensions.append(DocTablesExtension())
    return config
