"""The command line: ``python -m anonlab.audit method=NAME epsilon=E [key=value …]`` and
``python -m anonlab.audit table [key=value …]``.

Arguments are ``key=value`` pairs, as the harness's Hydra overrides are written (a
leading ``+`` is accepted and ignored). Every bad input ends in one ``error: …`` line on
stderr naming the parameter and its value, and exit status 2, before any release is drawn.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from anonlab.audit.core import audit
from anonlab.audit.noisefree import NotAuditable
from anonlab.audit.settings import Settings
from anonlab.audit.table import DEFAULT_DIR, audit_table, auditable_methods, write_table
from anonlab.validation import ParameterError, check_results_dir

USAGE_ERROR = 2
TABLE_WORDS = ("table", "all")
#: keys of one audit beyond the settings, and of the table
SINGLE_KEYS = {"method": str, "epsilon": float}
TABLE_KEYS = {"results_dir": str}
SETTING_TYPES = {f.name: {"int": int, "float": float, "str": str}[str(f.type)]
                 for f in fields(Settings)}
USAGE = ("usage: python -m anonlab.audit method=NAME [epsilon=1] [key=value ...]\n"
         "       python -m anonlab.audit table [key=value ...]\n"
         f"keys: {', '.join(SETTING_TYPES)}; table also results_dir (default {DEFAULT_DIR})")


def convert(key: str, text: str, kind: type) -> Any:
    """``text`` as a ``kind``, or a :class:`ParameterError` naming ``key``."""
    try:
        return kind(text)
    except ValueError:
        what = {int: "an integer", float: "a number"}.get(kind, kind.__name__)
        raise ParameterError(f"{key} must be {what}, got {text!r}") from None


def parse(argv: Sequence[str]) -> tuple[bool, dict[str, Any]]:
    """Whether ``argv`` asks for the table, and its ``key=value`` pairs converted."""
    args = list(argv)
    table = bool(args) and args[0] in TABLE_WORDS
    if table:
        args = args[1:]
    allowed = {**SETTING_TYPES, **(TABLE_KEYS if table else SINGLE_KEYS)}
    values: dict[str, Any] = {}
    for arg in args:
        key, equals, text = arg.lstrip("+").partition("=")
        if not equals or not key:
            raise ParameterError(f"argument {arg!r} is not key=value")
        if key not in allowed:
            where = "the table" if table else "an audit"
            raise ParameterError(f"unknown parameter {key!r} (in {arg!r}); {where} takes "
                                 f"{sorted(allowed)}")
        if key in values:
            raise ParameterError(f"{key} is given twice")
        values[key] = convert(key, text, allowed[key])
    if not table and "method" not in values:
        raise ParameterError("method= is required (or 'table' for every method)")
    return table, values


def run_table(values: dict[str, Any]) -> int:
    """Audit every method, write the table, print where."""
    folder = check_results_dir(Path(values.pop("results_dir", DEFAULT_DIR)))
    settings = Settings(**values)
    names, skipped = auditable_methods(settings)
    print(f"auditing {', '.join(names)}", file=sys.stderr)
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}", file=sys.stderr)
    table, skipped = audit_table(settings, progress=lambda line: print(line, file=sys.stderr))
    for path in write_table(table, skipped, settings, folder):
        print(path)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.split("\n\n")[0] + "\n\n" + USAGE)
        return 0
    try:
        table, values = parse(args)
        if table:
            return run_table(values)
        method, epsilon = values.pop("method"), values.pop("epsilon", 1.0)
        result = audit(method, epsilon, Settings(**values))
    except (ParameterError, TypeError, NotAuditable) as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    print(result.summary())
    return 0
