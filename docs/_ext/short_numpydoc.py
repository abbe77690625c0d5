"""A griffe extension for the docs build: the project's docstrings write numpydoc entries
as ``name : description`` on one line (short numpydoc, no type: the signature has it), and
cross-reference with reST roles. Before parsing, each such entry becomes ``name`` with its
description indented below (so the signature's annotation is the type), an entry naming
several parameters (``a, b : description``) becomes one entry per name (griffe would give
them all the first one's type), a returned value's ``name : description`` becomes
``name : <the signature's return type>`` with the description below, and
``:role:`~a.b.c``` becomes the code span ``c``.
Standard entries (``name : type`` with the description indented below) are left as they
are."""

from __future__ import annotations

import re
from typing import Any

import griffe

SECTIONS = {"Parameters", "Attributes", "Other Parameters", "Raises", "Warns"}
RETURNS = {"Returns", "Yields"}
ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|ref):`~?([^`]+)`")
ENTRY = re.compile(r"^(\s*)(\*{0,2}[\w.]+(?:, \*{0,2}[\w.]+)*) : (.+)$")
# a numpydoc type: dotted names, subscripts, unions, ", optional" (no prose)
TYPE = re.compile(r"^[\w.]+(\[[\w., \[\]|]*\])?( \| [\w.]+(\[[\w., \[\]|]*\])?)*(, optional)?$")


def _role(match: re.Match[str]) -> str:
    target = match.group(1)
    return f"`{target.rsplit('.', 1)[-1] if match.group(0).count('~') else target}`"


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip())


def normalise(text: str, returns: str | None = None) -> str:
    """The docstring with short entries split, one per name, and reST roles as code
    spans; ``returns`` is the signature's return annotation, if any."""
    lines, out, section, i = text.splitlines(), [], None, 0
    while i < len(lines):
        line = lines[i]
        underline = i + 1 < len(lines) and set(lines[i + 1].strip()) == {"-"}
        if underline and line.strip():
            section = line.strip()
        entry = ENTRY.match(line)
        if section not in SECTIONS | RETURNS or not entry or underline:
            out.append(line)
            i += 1
            continue
        indent, names, description = entry.groups()
        block = []  # the description's continuation lines, more indented than the entry
        i += 1
        while i < len(lines) and lines[i].strip() and _indent(lines[i]) > len(indent):
            block.append(lines[i])
            i += 1
        if block and TYPE.match(description.strip()):
            out += [line, *block]  # standard numpydoc: the type, then the description
            continue
        if section in RETURNS:
            head = f"{indent}{names} : {returns}" if returns else f"{indent}{names}"
            out += [head, f"{indent}    {description}", *block]
            continue
        for name in names.split(", "):
            out += [f"{indent}{name}", f"{indent}    {description}", *block]
    return ROLE.sub(_role, "\n".join(out))


class ShortNumpydoc(griffe.Extension):
    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None:
            returns = getattr(obj, "returns", None) if obj.is_function else None
            obj.docstring.value = normalise(obj.docstring.value, str(returns) if returns else None)
