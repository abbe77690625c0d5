"""Rows a reading's run takes from its primary run instead of computing them again.

A reading changes some methods' or metrics' options (``set: {options.idp_ls.budget: …}``).
Options do not enter the cell ids (:class:`~anonlab.runner.grid.Cell`), so a cell whose
method's options, and every metric's options, are the same under the reading and under the
primary draws the same random numbers and gives the same rows. When the primary run is
stored beside the reading's (the same results folder and label), made by the same code
(:func:`~anonlab.provenance.source_digest`) with the same package versions, seed, data
sets, metrics, repetitions and ``inapplicable``, the reading's run takes those cells' rows
from the primary's ``results.parquet``, and ``run.json`` says which (``reused``). A run
that times its methods takes nothing: its timings are compared within one run. Under
``+experiment=all``, which runs the primary first, the forests of the methods a reading
leaves alone are fit once. Anything else (another run name, an older primary, a
different grid of repetitions) and every cell is computed.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.methods import method_class
from anonlab.metrics import get_metric
from anonlab.provenance import override_key, run_folder
from anonlab.runner.checkpoint import checkpoint_key
from anonlab.runner.grid import Cell
from anonlab.runner.validate import RESULTS_FILE, RUN_FILE

#: config keys whose values decide a cell's rows beside its id and its options
SAME = ("reps", "inapplicable", "profile", "stage")


@dataclass(frozen=True)
class Reuse:
    """The primary run's ``folder`` and its rows of the cells ``cell_ids``."""

    folder: Path
    rows: pd.DataFrame
    cell_ids: frozenset[int]

    def record(self) -> dict[str, Any]:
        """What ``run.json`` keeps of it."""
        return {"from": str(self.folder), "cells": len(self.cell_ids), "rows": len(self.rows)}


def primary_rows(
    name: str,
    reading: str | None,
    out_dir: Path,
    config: Mapping[str, Any],
    overrides: Sequence[str],
    cells: Sequence[Cell],
    here: Mapping[str, Any],
) -> Reuse | None:
    """The rows the reading ``reading`` of experiment ``name`` (its run folder ``out_dir``,
    resolved ``config`` and ``overrides``, its ``cells``) can take from its primary run,
    when that run is stored and matches (module docstring); ``here``: this process's
    ``source_sha256`` and ``versions``, as ``run.json`` records them. ``None`` when
    nothing can be taken."""
    if reading is None or config.get("run_name") not in (None, ""):
        return None
    primary = [o for o in overrides if override_key(o) != "reading"]
    folder = out_dir.parent / run_folder(name, overrides=primary)
    try:
        stored = json.loads((folder / RUN_FILE).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    theirs = stored.get("config") or {}
    if (
        stored.get("reading") is not None
        or stored.get("source_sha256") != here.get("source_sha256")
        or stored.get("versions") != here.get("versions")
        or any(theirs.get(key) != config.get(key) for key in SAME)
        or _without_options(theirs) != _without_options(config)
    ):
        return None
    ours, before = config.get("options") or {}, theirs.get("options") or {}
    metrics = [*(config.get("metrics") or []), *(config.get("metrics_by_attribute") or [])]
    if any(ours.get(m) != before.get(m) for m in metrics):
        return None  # a metric reads every cell otherwise
    if any(get_metric(m).measured for m in metrics):
        return None  # timings are compared within one run, on one machine's speed
    unchanged = {c.id for c in cells if ours.get(_options_key(c)) == before.get(_options_key(c))}
    if not unchanged:
        return None
    try:  # read only once the run's record says rows can be taken
        table = pd.read_parquet(folder / RESULTS_FILE)
    except (OSError, ValueError):
        return None
    kept = unchanged & {int(i) for i in table["cell_id"].unique()}
    if not kept:
        return None
    rows = table[table["cell_id"].isin(kept)].drop(columns=["experiment"], errors="ignore")
    return Reuse(folder, rows.reset_index(drop=True), frozenset(kept))


def _without_options(config: Mapping[str, Any]) -> str:
    """:func:`checkpoint_key` of ``config`` without its options and code: its seed,
    metrics, data set configs and the user's files."""
    return checkpoint_key({k: v for k, v in config.items() if k != "options"}, None)


def _options_key(cell: Cell) -> str:
    """The name ``options`` keys the cell's method by: its class's, a variant's too
    (:func:`~anonlab.runner.grid.expand_grid`)."""
    return method_class(cell.method).name
