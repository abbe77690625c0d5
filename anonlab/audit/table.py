"""The audit of every randomised numeric method in the registry, as CSV and Markdown."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd

from anonlab.audit.core import audit, audited_dataset
from anonlab.audit.noisefree import NotAuditable
from anonlab.audit.settings import Settings
from anonlab.methods import METHODS, make_method
from anonlab.methods.guarantees import DP, IDP, guarantee
from anonlab.validation import ParameterError

#: ε of the table's rows
TABLE_EPSILONS = (0.1, 1.0)
#: randomised methods the table leaves out, with the reason (the others are found in the
#: registry: a new method is audited unless it is listed here or cannot be)
SKIP: dict[str, str] = {}
#: parameters a method may need to be built; its own ε and the settings' k come first
OTHER_PARAMS = {"t": 0.5}
DEFAULT_DIR = Path("results") / "audit"


def auditable_methods(settings: Settings) -> tuple[list[str], dict[str, str]]:
    """The registry's methods the table audits, and every other one with why not:
    deterministic, in :data:`SKIP`, cannot be built or refuses the audited data set
    (``check_dataset``), or claims no ε."""
    dataset = audited_dataset(settings)[0]
    chosen, skipped = [], {}
    for name, cls in METHODS.items():
        if not cls.randomized:
            skipped[name] = "deterministic"
            continue
        if name in SKIP:
            skipped[name] = SKIP[name]
            continue
        try:
            method = make_method(name, {"k": settings.k, "epsilon": 1.0, **OTHER_PARAMS})
            method.check_dataset(dataset)
            notion = guarantee(method, settings.m).notion
        except (ParameterError, TypeError, KeyError) as error:
            skipped[name] = f"not auditable here: {error}"
            continue
        if notion not in (DP, IDP):
            skipped[name] = f"claims {notion}; the audit bounds a pure ε (δ = 0) only"
            continue
        chosen.append(name)
    return chosen, skipped


def audit_table(settings: Settings | None = None, epsilons: Sequence[float] = TABLE_EPSILONS,
                progress: Callable[[str], None] | None = None
                ) -> tuple[pd.DataFrame, dict[str, str]]:
    """One row per auditable method and ε (:meth:`AuditResult.row`), and the skipped
    methods with their reasons; ``progress`` receives a line per row."""
    settings = settings or Settings()
    names, skipped = auditable_methods(settings)
    rows = []
    for name in names:
        for epsilon in epsilons:
            try:
                rows.append(audit(name, epsilon, replace(settings)).row())
                if progress is not None:
                    row = rows[-1]
                    progress(f"{name} epsilon={epsilon:g}: claimed {row['claimed_eps_total']:g}, "
                             f"bound aligned {row['eps_lower_aligned']}, centroids "
                             f"{row['eps_lower_centroids']} ({row['seconds']} s)")
            except NotAuditable as error:
                skipped[name] = f"not auditable: {error}"
                break
    return pd.DataFrame(rows), skipped


def _atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same folder, renamed
    over it, so a reader never sees a partial file."""
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
        os.chmod(temporary, 0o644)  # mkstemp's 0600 would hide the table from others
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


MARKDOWN_COLUMNS = ("method", "epsilon", "claimed_eps_per_attribute", "claimed_eps_total",
                    "eps_lower_aligned", "eps_lower_centroids", "eps_ceiling", "exceeds_claim",
                    "pair_aligned", "pair_centroids", "runs", "seed", "seconds")


def markdown(table: pd.DataFrame, skipped: dict[str, str], settings: Settings) -> str:
    """The table as Markdown, with how it was made and what its columns mean."""
    s = settings
    lines = ["# Empirical privacy audit", "",
             f"Lower confidence bounds on the ε each method's releases spend, "
             f"{s.confidence:.0%} jointly per row (Clopper–Pearson, Bonferroni over the "
             f"row's tests). Data: `{s.data}`, n={s.n}, m={s.m}, k={s.k}, domain "
             f"[{s.low:g}, {s.high:g}]; {s.runs} releases per data set; seed {s.seed}. "
             "`aligned`: the release as `protect` returns it (record i at row i); "
             "`centroids`: the rank-ordered noisy centroid list the papers calibrate to; "
             "`eps_ceiling`: the largest bound the runs can show (a bound near it: the "
             "releases tell D from D' about every time). "
             "A bound is a lower bound: one at or below the claim confirms nothing, one "
             "above it refutes the claim (at the stated confidence).", ""]
    columns = [c for c in MARKDOWN_COLUMNS if c in table.columns]
    lines.append("| " + " | ".join(columns) + " |")
    lines.append("|" + "---|" * len(columns))
    for _, row in table.iterrows():
        cells = ["" if pd.isna(row[c]) else f"{row[c]:g}" if isinstance(row[c], float)
                 else str(row[c]) for c in columns]
        lines.append("| " + " | ".join(cells) + " |")
    notes = dict.fromkeys(f"`{row['method']}`: {row['note']}" for _, row in table.iterrows()
                          if isinstance(row.get("note"), str) and row["note"])
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    if skipped:
        lines += ["", "Not audited:", ""] + [f"- `{k}`: {v}" for k, v in skipped.items()]
    return "\n".join(lines) + "\n"


def write_table(table: pd.DataFrame, skipped: dict[str, str], settings: Settings,
                folder: Path = DEFAULT_DIR) -> list[Path]:
    """``audit.csv`` and ``audit.md`` in ``folder``, each written atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = folder / "audit.csv", folder / "audit.md"
    _atomic_write(csv_path, table.to_csv(index=False))
    _atomic_write(md_path, markdown(table, skipped, settings))
    return [csv_path, md_path]
