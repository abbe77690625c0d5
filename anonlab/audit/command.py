"""The command line: ``python -m anonlab.audit method=NAME epsilon=E [key=value …]``,
``python -m anonlab.audit table [key=value …]``, ``python -m anonlab.audit exact
method=NAME epsilon=E [key=value …]`` (:mod:`anonlab.audit.exact`), ``python -m
anonlab.audit floating [sampler=numpy|discrete] [epsilon=E runs=N seed=S]``
(:mod:`anonlab.audit.floating`) and ``python -m anonlab.audit attack [key=value …]``
(:mod:`anonlab.audit.attack`).

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

from anonlab.audit.arguments import key_values
from anonlab.audit.core import audit
from anonlab.audit.noisefree import NotAuditable
from anonlab.audit.settings import Settings
from anonlab.audit.table import (
    DEFAULT_DIR,
    audit_table,
    auditable_methods,
    floating_table,
    write_table,
)
from anonlab.validation import ParameterError, check_results_dir

USAGE_ERROR = 2
TABLE_WORDS = ("table", "all")
ATTACK_WORD = "attack"
EXACT_WORD, FLOATING_WORD = "exact", "floating"
#: keys of one audit beyond the settings, and of the table
SINGLE_KEYS = {"method": str, "epsilon": float}
TABLE_KEYS = {"results_dir": str}
#: keys of the floating-point test (every sampler when ``sampler`` is not given)
FLOATING_KEYS = {"sampler": str, "epsilon": float, "runs": int, "seed": int}
SETTING_TYPES = {
    f.name: {"int": int, "float": float, "str": str}[str(f.type)] for f in fields(Settings)
}
USAGE = (
    "usage: python -m anonlab.audit method=NAME [epsilon=1] [key=value ...]\n"
    "       python -m anonlab.audit table [key=value ...]\n"
    "       python -m anonlab.audit exact method=NAME [epsilon=1] [key=value ...]\n"
    "       python -m anonlab.audit floating [sampler=numpy|discrete] [epsilon=1] "
    "[runs=10000] [seed=0]\n"
    "       python -m anonlab.audit attack [key=value ...]  (attack -h: its keys)\n"
    f"keys: {', '.join(SETTING_TYPES)}; table also results_dir (default {DEFAULT_DIR})"
)


def parse(argv: Sequence[str]) -> tuple[str, dict[str, Any]]:
    """What ``argv`` asks for (``audit``, ``table``, ``exact`` or ``floating``), and its
    ``key=value`` pairs converted."""
    args = list(argv)
    mode = "audit"
    if args and args[0] in (*TABLE_WORDS, EXACT_WORD, FLOATING_WORD):
        mode = "table" if args[0] in TABLE_WORDS else args[0]
        args = args[1:]
    table = mode == "table"
    allowed = (
        FLOATING_KEYS
        if mode == FLOATING_WORD
        else {**SETTING_TYPES, **(TABLE_KEYS if table else SINGLE_KEYS)}
    )
    where = {"table": "the table", EXACT_WORD: "exact", FLOATING_WORD: "floating"}
    values = key_values(args, allowed, where.get(mode, "an audit"))
    if mode in ("audit", EXACT_WORD) and "method" not in values:
        raise ParameterError("method= is required (or 'table' for every method)")
    return mode, values


def run_exact(values: dict[str, Any]) -> int:
    """Print the exact losses of one method's noisy list (:mod:`anonlab.audit.exact`)."""
    from anonlab.audit.core import audited_dataset, resolve_method
    from anonlab.audit.exact import exact_losses

    method, epsilon = values.pop("method"), values.pop("epsilon", 1.0)
    settings = Settings(**values)
    built = resolve_method(method, epsilon, settings.k)
    dataset = audited_dataset(settings)[0]
    built.check(dataset)
    print(exact_losses(built, dataset).summary())
    return 0


def run_floating(values: dict[str, Any]) -> int:
    """Print the floating-point test of the ``laplace`` method with each sampler
    (:mod:`anonlab.audit.floating`)."""
    from anonlab.audit.floating import RUNS, floating_point_audit
    from anonlab.mechanisms import SAMPLERS
    from anonlab.validation import check_choice, check_epsilon, check_int

    samplers = (
        [check_choice(values["sampler"], "sampler", SAMPLERS)]
        if "sampler" in values
        else list(SAMPLERS)
    )
    epsilon = check_epsilon(values.get("epsilon", 1.0))
    runs = check_int(values.get("runs", RUNS), "runs", 1)
    seed = check_int(values.get("seed", 0), "seed", 0)
    for sampler in samplers:
        for attack in dict.fromkeys((sampler, "numpy")):  # numpy's test on every sampler
            print(floating_point_audit(sampler, epsilon, runs, seed, attack=attack).summary())
    return 0


def run_table(values: dict[str, Any]) -> int:
    """Audit every method, write the table, print where."""
    folder = check_results_dir(Path(values.pop("results_dir", DEFAULT_DIR)))
    settings = Settings(**values)
    names, skipped = auditable_methods(settings)
    print(f"auditing {', '.join(names)}", file=sys.stderr)
    for name, reason in skipped.items():
        print(f"skipped {name}: {reason}", file=sys.stderr)
    table, skipped = audit_table(settings, progress=lambda line: print(line, file=sys.stderr))
    floating = floating_table(runs=settings.runs, seed=settings.seed)
    for path in write_table(table, skipped, settings, folder, floating):
        print(path)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (default ``sys.argv[1:]``); returns the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    if args[:1] == [ATTACK_WORD]:
        from anonlab.audit.attack import command

        return command(args[1:])
    if args[:1] in (["-h"], ["--help"]):
        print(__doc__.split("\n\n")[0] + "\n\n" + USAGE)
        return 0
    try:
        mode, values = parse(args)
        if mode == "table":
            return run_table(values)
        if mode == EXACT_WORD:
            return run_exact(values)
        if mode == FLOATING_WORD:
            return run_floating(values)
        method, epsilon = values.pop("method"), values.pop("epsilon", 1.0)
        result = audit(method, epsilon, Settings(**values))
    except (ParameterError, TypeError, NotAuditable) as error:
        print(f"error: {error}", file=sys.stderr)
        return USAGE_ERROR
    print(result.summary())
    return 0
