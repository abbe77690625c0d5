"""A griffe extension for the docs build: the project's docstrings write numpydoc entries
as ``name : description`` on one line (short numpydoc, no type: the signature has it), and
cross-reference with reST roles. Before parsing, each such entry becomes ``name`` with its
description indented below (so the signature's annotation is the type), and
``:role:`~a.b.c``` becomes the code span ``c``."""

from __future__ import annotations

import re
from typing import Any

import griffe

SECTIONS = {"Parameters", "Attributes", "Other Parameters", "Raises", "Warns"}
ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|ref):`~?([^`]+)`")
ENTRY = re.compile(r"^(\s*)(\*{0,2}[\w.]+(?:, \*{0,2}[\w.]+)*) : (.+)$")


def _role(match: re.Match[str]) -> str:
    target = match.group(1)
    return f"`{target.rsplit('.', 1)[-1] if match.group(0).count('~') else target}`"


def normalise(text: str) -> str:
    """The docstring with short entries split and reST roles as code spans."""
    lines, out, section = text.splitlines(), [], None
    for i, line in enumerate(lines):
        underline = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        if underline and line.strip():
            section = line.strip()
        entry = ENTRY.match(line)
        if section in SECTIONS and entry and not underline:
            indent, name, description = entry.groups()
            out += [f"{indent}{name}", f"{indent}    {description}"]
        else:
            out.append(line)
    return ROLE.sub(_role, "\n".join(out))


class ShortNumpydoc(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = normalise(obj.docstring.value)
