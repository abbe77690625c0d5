"""Layers import downward (the contracts in pyproject.toml, ``lint-imports`` in CI), and
no module imports itself through others: no import cycle at run time."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import grimp
import pytest

pytestmark = pytest.mark.integration  # runs the engine, a process or real data

ROOT = Path(__file__).resolve().parents[1]


def test_the_import_contracts_hold():
    done = subprocess.run(
        [sys.executable, "-c", "from importlinter.cli import lint_imports_command as c; c()"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout[-3000:]
    assert "0 broken" in done.stdout


def _cycles(graph: grimp.ImportGraph) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in sorted(graph.modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root))))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on.add(child)
                    work.append(
                        (child, iter(sorted(graph.find_modules_directly_imported_by(child))))
                    )
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(component)
    return found


def test_no_import_cycle():
    """Imports for type annotations only (``if TYPE_CHECKING``) are not run, so they
    cannot form a cycle."""
    graph = grimp.build_graph("anonlab", exclude_type_checking_imports=True)
    assert _cycles(graph) == []
    assert any(m.startswith("anonlab.experiments.") for m in graph.modules)  # seen
