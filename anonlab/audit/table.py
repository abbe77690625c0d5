"""The audit of every randomised numeric method in the registry, one row per release form
and ε, with the exact losses beside the sampled bounds, as CSV and Markdown."""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

import pandas as pd
from joblib import Parallel, delayed

from anonlab.audit.core import audit, audited_dataset
from anonlab.audit.exact import exact_losses
from anonlab.audit.floating import floating_point_audit
from anonlab.audit.noisefree import NotAuditable
from anonlab.audit.settings import Settings
from anonlab.guarantee import DP, IDP
from anonlab.methods import METHODS, make_method
from anonlab.methods.guarantees import guarantee
from anonlab.validation import ParameterError

#: ε of the table's rows
TABLE_EPSILONS = (0.5, 1.0, 2.0)
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
            method.check(dataset)
            notion = guarantee(method, settings.m).claimed
        except (ParameterError, TypeError, KeyError) as error:
            skipped[name] = f"not auditable here: {error}"
            continue
        if notion not in (DP, IDP):
            skipped[name] = f"claims {notion}; the audit bounds a pure ε (δ = 0) only"
            continue
        chosen.append(name)
    return chosen, skipped


def _rows(name: str, epsilon: float, settings: Settings) -> list[dict] | str:
    """The rows of ``name`` at ``epsilon``, one per release form it offers, each with the
    exact losses of its noisy list (computed once: they do not depend on the form); or
    why the method cannot be audited."""
    dataset = audited_dataset(settings)[0]
    built = make_method(name, {"k": settings.k, "epsilon": epsilon, **OTHER_PARAMS})
    exact = exact_losses(built, dataset)
    rows = []
    cls = METHODS[name]
    for form in cls.forms:
        if form == "shuffled_rows" and cls.rows_need_one_attribute and settings.m > 1:
            continue  # not covered with m > 1 (Method.check)
        try:
            result = audit(name, epsilon, replace(settings, form=form))
        except NotAuditable as error:
            return f"not auditable: {error}"
        row = result.row()
        # what holds for this form with the library's sampler (the rows draw with numpy's)
        library = {"sampler": "discrete"} if built.draws_laplace else {}
        row["notion"] = guarantee(replace(built, form=form, **library), settings.m).notion
        released = exact.released(form)
        row.update(
            {
                "exact_list_fixed_scale": round(exact.fixed_scale, 4),
                "exact_list_own_scale": round(exact.own_scale, 4),
                "exact_released": (
                    "inf"
                    if math.isinf(released)
                    else f"{'≤ ' if form != 'records' else ''}{released:.4g}"
                ),
            }
        )
        rows.append(row)
    return rows


def audit_table(
    settings: Settings | None = None,
    epsilons: Sequence[float] = TABLE_EPSILONS,
    progress: Callable[[str], None] | None = None,
    n_jobs: int = -1,
) -> tuple[pd.DataFrame, dict[str, str]]:
    """One row per auditable method, release form it offers and ε
    (:meth:`AuditResult.row`, with the exact losses of
    :func:`~anonlab.audit.exact.exact_losses`), and the skipped methods with their
    reasons; ``progress`` receives a line per row. Methods and ε run on ``n_jobs``
    processes; each audit is seeded by ``settings``, so the table does not depend on
    them."""
    settings = settings or Settings()
    names, skipped = auditable_methods(settings)
    tasks = [(name, epsilon) for name in names for epsilon in epsilons]
    done = Parallel(n_jobs=n_jobs)(
        delayed(_rows)(name, epsilon, settings) for name, epsilon in tasks
    )
    rows = []
    for (name, _), found in zip(tasks, done, strict=True):
        if isinstance(found, str):
            skipped[name] = found
            continue
        rows += found
        for row in found if progress is not None else ():
            progress(
                f"{name} {row['form']} epsilon={row['epsilon']:g}: claimed "
                f"{row['claimed_eps_total']:g}, bound released "
                f"{row['eps_lower_released']}, centroids {row['eps_lower_centroids']}, "
                f"exact list {row['exact_list_own_scale']} ({row['seconds']} s)"
            )
    return pd.DataFrame(rows), skipped


def floating_table(
    epsilons: Sequence[float] = TABLE_EPSILONS, runs: int = 10_000, seed: int = 0, n_jobs: int = -1
) -> pd.DataFrame:
    """The floating-point test (:func:`~anonlab.audit.floating.floating_point_audit`) of
    the ``laplace`` method at each ε: numpy's sampler under numpy's reachability test, and
    the discrete sampler under its own and under numpy's."""
    from anonlab.mechanisms import SAMPLERS

    tasks = [
        (sampler, attack, epsilon)
        for sampler in SAMPLERS
        for attack in dict.fromkeys((sampler, "numpy"))
        for epsilon in epsilons
    ]
    done = Parallel(n_jobs=n_jobs)(
        delayed(floating_point_audit)(sampler, epsilon, runs, seed, attack=attack)
        for sampler, attack, epsilon in tasks
    )
    return pd.DataFrame(
        [
            {
                "method": "laplace",
                "sampler": r.sampler,
                "attack": r.attack,
                "epsilon": r.epsilon,
                "eps_lower": round(r.epsilon_lower, 4),
                "eps_ceiling": round(r.ceiling, 4),
                "hits_D": r.hits_d,
                "hits_D'": r.hits_d2,
                "runs": r.runs,
                "exceeds_claim": r.exceeds,
            }
            for r in done
        ]
    )


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


MARKDOWN_COLUMNS = (
    "method",
    "form",
    "epsilon",
    "claimed",
    "claimed_eps_total",
    "notion",
    "eps_lower_released",
    "eps_lower_centroids",
    "eps_ceiling",
    "exact_list_fixed_scale",
    "exact_list_own_scale",
    "exact_released",
    "exceeds_claim",
    "pair_released",
    "runs",
    "seconds",
)


def _markdown_rows(table: pd.DataFrame, columns: Sequence[str]) -> list[str]:
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for _, row in table.iterrows():
        cells = [
            "" if pd.isna(row[c]) else f"{row[c]:g}" if isinstance(row[c], float) else str(row[c])
            for c in columns
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def markdown(
    table: pd.DataFrame,
    skipped: dict[str, str],
    settings: Settings,
    floating: pd.DataFrame | None = None,
) -> str:
    """The table as Markdown, with how it was made and what its columns mean."""
    s = settings
    lines = [
        "# Empirical privacy audit",
        "",
        f"Lower confidence bounds on the ε each method's releases spend, "
        f"{s.confidence:.0%} jointly per row (Clopper–Pearson, Bonferroni over the "
        f"row's tests). Data: `{s.data}`, n={s.n}, m={s.m}, k={s.k}, domain "
        f"[{s.low:g}, {s.high:g}]; {s.runs} releases per data set; seed {s.seed}. "
        "`released`: the release as the method returns it in its form (record i at "
        "row i for `records`; a shuffled form in its canonical sorted order); "
        "`centroids`: the rank-ordered noisy centroid list the papers calibrate to; "
        "`exact_list_*`: the exact loss of that list (each value for plain Laplace) "
        "over neighbours that move one record anywhere in the domain, with the noise "
        "scale of D for both data sets (`fixed_scale`, iDP Proposition 1) or each "
        "data set's own (`own_scale`); `exact_released`: inf where a neighbour "
        "changes which records share a cluster (record order), at most the list's "
        "for a shuffled form (post-processing of the list); `notion`: what holds for "
        "the release as returned with the library's discrete sampler (these rows draw "
        "with numpy's, whose low-order bits the statistics ignore; the "
        "floating-point test audits the samplers); "
        "`eps_ceiling`: the largest bound the runs can show (a bound near it: the "
        "releases tell D from D' about every time). "
        "A bound is a lower bound: one at or below the claim confirms nothing, one "
        "above it refutes the claim (at the stated confidence).",
        "",
    ]
    lines += _markdown_rows(table, [c for c in MARKDOWN_COLUMNS if c in table.columns])
    if floating is not None and not floating.empty:
        lines += [
            "",
            "## Floating-point test",
            "",
            "The `laplace` method's released value of one record, tested for the doubles "
            "it can take (Mironov 2012): S = {reachable from x under the attack's "
            "sampler, not from the neighbour's x'}; numpy's sampler leaves most releases "
            "of D unreachable from D', the discrete sampler's grid is the same for "
            "both (python -m anonlab.audit floating).",
            "",
        ]
        lines += _markdown_rows(floating, list(floating.columns))
    notes = dict.fromkeys(
        f"`{row['method']}`: {row['note']}"
        for _, row in table.iterrows()
        if isinstance(row.get("note"), str) and row["note"]
    )
    if notes:
        lines += ["", "Notes:", ""] + [f"- {note}" for note in notes]
    if skipped:
        lines += ["", "Not audited:", ""] + [f"- `{k}`: {v}" for k, v in skipped.items()]
    return "\n".join(lines) + "\n"


def write_table(
    table: pd.DataFrame,
    skipped: dict[str, str],
    settings: Settings,
    folder: Path = DEFAULT_DIR,
    floating: pd.DataFrame | None = None,
) -> list[Path]:
    """``audit.csv`` and ``audit.md`` in ``folder`` (and ``floating.csv`` with the
    floating-point test, when given), each written atomically."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    csv_path, md_path = folder / "audit.csv", folder / "audit.md"
    _atomic_write(csv_path, table.to_csv(index=False))
    written = [csv_path, md_path]
    if floating is not None:
        floating_path = folder / "floating.csv"
        _atomic_write(floating_path, floating.to_csv(index=False))
        written.insert(1, floating_path)
    _atomic_write(md_path, markdown(table, skipped, settings, floating))
    return written
