"""Layers import downward: the engine (runner, plotting) and everything below it never
import the report, the claims or the paper layer, at module level or inside a function."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "anonlab"
BELOW_REPORT = (
    "runner",
    "plotting",
    "methods",
    "metrics",
    "mechanisms",
    "microaggregation",
    "tcloseness",
    "semantics",
    "datasets",
    "audit",
)
ABOVE = ("anonlab.report", "experiments")


def imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


def test_the_engine_and_below_never_import_the_report_or_the_papers():
    wrong = []
    for package in BELOW_REPORT:
        for path in sorted((ROOT / package).rglob("*.py")):
            for name in imports(path):
                if name.startswith(ABOVE):
                    wrong.append(f"{path.relative_to(ROOT.parent)} imports {name}")
    assert not wrong, "\n".join(wrong)
