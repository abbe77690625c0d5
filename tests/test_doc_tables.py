"""The docs' tables of methods and metrics are derived from the classes: a method or a
metric added in its own file appears in them by running ``python -m anonlab.listing``."""

from __future__ import annotations

from pathlib import Path

import pytest

from anonlab.listing import DOC_TABLES, doc_table

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("marker", sorted(DOC_TABLES))
def test_each_docs_table_is_the_one_the_code_derives(marker):
    text = (ROOT / DOC_TABLES[marker]).read_text(encoding="utf-8")
    block = text.partition(f"<!-- {marker}:start -->\n")[2].partition(f"\n<!-- {marker}:end -->")
    assert block[1], f"{DOC_TABLES[marker]} has no {marker} block"
    assert block[0] == doc_table(marker), (
        f"{DOC_TABLES[marker]}: the {marker} differs from the code's; run python -m anonlab.listing"
    )
