"""Investigations: the runnable evidence behind each contradiction's cause.

A contradicted claim names its cause in its config (``known_departure``: ``cause``,
``evidence`` and ``command``); the command runs one investigation here::

    python -m anonlab.experiments.investigations <claim_id>

Each investigation is a function registered under the claim id it explains
(:func:`investigation`). It computes what the cause rests on (a table of the paper's own
numbers, a small diagnostic run, a closed-form value), prints it as a table, and ends with
its conclusion. It needs no stored run and takes at most a minute or two on one core.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib import import_module

#: claim id → the function that investigates it
REGISTRY: dict[str, Callable[[], str]] = {}
#: the modules that register investigations, one per paper
MODULES = ("dp_ir", "tcm", "idp")


def investigation(*claim_ids: str) -> Callable[[Callable[[], str]], Callable[[], str]]:
    """Register a function as the investigation of ``claim_ids``; it returns its report
    (tables and conclusion) as text."""

    def register(function: Callable[[], str]) -> Callable[[], str]:
        for claim_id in claim_ids:
            if claim_id in REGISTRY:
                raise ValueError(f"claim {claim_id!r} has two investigations")
            REGISTRY[claim_id] = function
        return function

    return register


def registry() -> dict[str, Callable[[], str]]:
    """Every registered investigation (importing the per-paper modules)."""
    for name in MODULES:
        import_module(f"{__name__}.{name}")
    return REGISTRY


def command(claim_id: str) -> str:
    """The command that runs ``claim_id``'s investigation."""
    return f"python -m anonlab.experiments.investigations {claim_id}"
