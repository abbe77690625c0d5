"""What the papers are and which experiment regenerates which of their figures and tables,
derived from the configs alone.

``conf/papers.yaml`` lists the papers (short name, title, authors, venue, year) in the order
the report and ``+experiment=all`` follow. Each paper experiment, ``conf/experiment/<name>.yaml``,
states which paper and which targets it reproduces, its claims, and its readings::

    experiment:
      name: census_ir
      paper: DP-IR
      notes: "#dp-ir-figure-1"      # optional: the claims' notes anchor, unless one names its own
      targets:
        - id: Figure 1
          title: "RE and JSD on Census against k"
          # figures: [figure1_re]   which of the run's figures belong to it (default: all)
          # tables: [table1]        likewise for its tables (default: all)
    readings:                       # optional: where the paper admits several readings
      - name: text
        primary: true               # exactly one: the reading the paper's text supports
        text: "what this reading takes the paper to say"
      - name: data_range_bins
        text: "…"
        set: {options.jsd.bins: data_range}   # config overrides, dotted keys → values

Everything that lists papers, targets or experiments (the report's map, ``+experiment=all``,
tests) calls :func:`papers`, :func:`experiments`, :func:`targets` or
:func:`experiment_names`. Each takes ``conf_dir`` so tests can point it at a copy of
``conf/`` with a fixture experiment added. A malformed file raises
:class:`~anonlab.validation.ParameterError` naming it.

A claim inherits what its experiment states: a claim with no ``paper`` is about
``experiment.paper`` (none when that is a ``beyond`` entry of ``papers.yaml``, or when the
experiment names no paper), and a claim with no ``notes`` takes ``experiment.notes``.
:func:`resolved_claims` fills them in: :attr:`ExperimentEntry.claims` holds them resolved,
and a run records them resolved in its config (:func:`anonlab.cli.checked_claims`), so the
report judges and digests the same mappings from either. A claim written out in full (as
in a run recorded before claims inherited) resolves to itself, the same mapping as that
claim inheriting.

Readings themselves (parsing, applying one to a config) are :mod:`anonlab.readings`.
"""

from __future__ import annotations

import copy
import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from anonlab.config import CONF_DIR, check_experiment_keys, load_yaml
from anonlab.readings import Reading, entries, find_reading, parse_readings, text
from anonlab.validation import ParameterError

PAPERS_FILE = "papers.yaml"
EXPERIMENT_DIR = "experiment"
_TARGET_ID = re.compile(r"^(Figure|Table)\s+(\d+)$")
#: a notes anchor into docs/reproduction-notes.md, as claims and ``experiment.notes`` give it
NOTES_ANCHOR = re.compile(r"^#[a-z0-9-]+$")
_TARGET_KINDS = {"Figure": 0, "Table": 1}


#: kinds of ``papers.yaml`` entries: a paper the harness reproduces, or ``beyond``: the
#: harness's own comparisons beyond the papers (the arena), shown after them, with no
#: paper claims to judge
PAPER_KINDS = ("paper", "beyond")


@dataclass(frozen=True)
class Paper:
    """One paper: ``short`` is how experiments and claims name it (``DP-IR``); ``kind``
    :data:`PAPER_KINDS`."""

    short: str
    title: str
    authors: tuple[str, ...]
    venue: str | None
    year: int | None
    kind: str = "paper"

    @property
    def citation(self) -> str:
        """ "Authors. *Title*. Venue Year" as the README cites it."""
        where = " ".join(str(part) for part in (self.venue, self.year) if part)
        return f"{', '.join(self.authors)}. *{self.title}*." + (f" {where}" if where else "")


@dataclass(frozen=True)
class Target:
    """One figure or table of a paper and the experiment that regenerates it; ``figures``
    and ``tables`` pick the run's outputs that belong to it (``None``: all of them)."""

    paper: str
    id: str
    title: str
    experiment: str
    figures: tuple[str, ...] | None = None
    tables: tuple[str, ...] | None = None

    @property
    def title_line(self) -> str:
        """``"DP-IR Figure 1"``."""
        return f"{self.paper} {self.id}"

    @property
    def anchor(self) -> str:
        """A stable HTML id: ``"dp-ir-figure-1"``."""
        return re.sub(r"[^a-z0-9]+", "-", self.title_line.lower()).strip("-")

    @property
    def sort_key(self) -> tuple[int, int, str]:
        """Figures before tables, each by number (other ids after, by name)."""
        match = _TARGET_ID.match(self.id)
        if match is None:
            return (len(_TARGET_KINDS), 0, self.id)
        return (_TARGET_KINDS[match.group(1)], int(match.group(2)), self.id)


@dataclass(frozen=True)
class ExperimentEntry:
    """A paper experiment as its config declares it."""

    name: str
    paper: str
    targets: tuple[Target, ...]
    readings: tuple[Reading, ...]
    #: the claims as :func:`resolved_claims` gives them (``paper`` and ``notes`` inherited)
    claims: tuple[Any, ...]
    path: Path
    #: repetitions as declared, under each profile (``paper`` and the file's ``profiles``)
    reps: Mapping[str, int] = field(default_factory=dict)

    @property
    def primary(self) -> Reading | None:
        """The primary reading, or ``None`` when the experiment declares no readings."""
        return next((r for r in self.readings if r.primary), None)

    @property
    def alternatives(self) -> tuple[Reading, ...]:
        """The readings other than the primary, in declared order."""
        return tuple(r for r in self.readings if not r.primary)

    def reading(self, name: str | None) -> Reading | None:
        """The reading called ``name`` (``None``: the primary)."""
        return find_reading(self.readings, name, source=str(self.path))


# --- loading ----------------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _parsed(text: str) -> Any:
    """``text`` parsed once per process: the catalog reads every experiment file at each
    call (listing, checking, the report), and parsing is most of its cost."""
    return load_yaml(text)


def _load_yaml(path: Path) -> Any:
    """``path`` parsed, a fresh copy each call (keyed by the text read now, so an edited
    file is parsed afresh)."""
    try:
        return copy.deepcopy(_parsed(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError) as error:
        raise ParameterError(f"{path}: cannot be read as YAML: {error}") from error


def papers(conf_dir: Path = CONF_DIR) -> tuple[Paper, ...]:
    """The papers of ``conf/papers.yaml``, in its order."""
    path = Path(conf_dir) / PAPERS_FILE
    raw = _load_yaml(path)
    if not isinstance(raw, list) or not raw:
        raise ParameterError(f"{path}: must be a non-empty list of papers")
    found: list[Paper] = []
    for where, item in entries(
        raw, f"{path}: paper", ("short", "title", "authors", "venue", "year", "kind")
    ):
        kind = item.get("kind", PAPER_KINDS[0])
        if kind not in PAPER_KINDS:
            raise ParameterError(f"{where}: kind must be one of {list(PAPER_KINDS)}, got {kind!r}")
        authors = item.get("authors") or []
        if not isinstance(authors, list) or not all(isinstance(a, str) for a in authors):
            raise ParameterError(f"{where}: authors must be a list of names, got {authors!r}")
        year = item.get("year")
        if year is not None and (isinstance(year, bool) or not isinstance(year, int)):
            raise ParameterError(f"{where}: year must be an integer, got {year!r}")
        found.append(
            Paper(
                str(text(item.get("short"), "short", where)),
                str(text(item.get("title"), "title", where)),
                tuple(authors),
                text(item.get("venue"), "venue", where, required=False),
                year,
                kind,
            )
        )
    shorts = [p.short for p in found]
    duplicated = sorted({s for s in shorts if shorts.count(s) > 1})
    if duplicated:
        raise ParameterError(f"{path}: paper(s) {duplicated} listed twice")
    return tuple(found)


def _names_list(value: Any, what: str, source: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParameterError(f"{source}: {what} must be a list of names, got {value!r}")
    return tuple(value)


def _declared(config: Mapping[str, Any], key: str) -> set[str]:
    return {str(item.get("name")) for item in config.get(key) or () if isinstance(item, Mapping)}


def _resolved(claim: Any, paper: str | None, notes: str | None) -> Any:
    """One claim with ``paper`` (placed after ``id``, where claims wrote it) and ``notes``
    filled in where it has neither key; anything but a mapping is left to the claim parser."""
    if not isinstance(claim, Mapping):
        return claim
    resolved = dict(claim)
    if paper is not None and "paper" not in claim:
        items = list(claim.items())
        at = next((i + 1 for i, (key, _) in enumerate(items) if key == "id"), 0)
        resolved = dict([*items[:at], ("paper", paper), *items[at:]])
    if notes is not None and "notes" not in claim:
        resolved["notes"] = notes
    return resolved


def resolved_claims(
    config: Mapping[str, Any],
    conf_dir: Path = CONF_DIR,
    *,
    known_papers: Sequence[Paper] | None = None,
    source: str = "config",
) -> list[Any]:
    """The ``claims`` of ``config`` (an experiment's YAML, or a composed config as a run
    records it) as they are judged and digested: a claim with no ``paper`` key takes
    ``experiment.paper``, unless that is a ``beyond`` entry of ``papers.yaml`` (read from
    ``conf_dir`` unless ``known_papers`` are given) or absent, when the claim has none; a
    claim with no ``notes`` key takes ``experiment.notes`` when set. A claim that states
    either keeps its own. Nothing else changes, so a claim written out in full resolves to
    itself."""
    raw = config.get("claims")
    if raw is None:
        return []
    if isinstance(raw, str) or not isinstance(raw, Sequence):
        raise ParameterError(f"{source}: claims must be a list, got {raw!r}")
    block = config.get("experiment")
    block = block if isinstance(block, Mapping) else {}
    paper = block.get("paper") or None
    notes = block.get("notes") or None
    if paper is not None and any(isinstance(c, Mapping) and "paper" not in c for c in raw):
        pool = papers(conf_dir) if known_papers is None else known_papers
        if any(p.short == paper and p.kind != PAPER_KINDS[0] for p in pool):
            paper = None  # the harness's own comparisons: a claim names its paper, or none
    return [_resolved(claim, paper, notes) for claim in raw]


def _entry(path: Path, known: Sequence[Paper]) -> ExperimentEntry | None:
    """The paper experiment of ``path``; ``None`` for a file with no ``experiment.paper``
    (``all``)."""
    raw = _load_yaml(path)
    raw = raw if isinstance(raw, Mapping) else {}
    block = raw.get("experiment")
    if not isinstance(block, Mapping) or not block.get("paper"):
        return None
    source = str(path)
    check_experiment_keys(block, source)
    name = str(text(block.get("name"), "experiment.name", source))
    notes = block.get("notes")
    if notes is not None and (not isinstance(notes, str) or not NOTES_ANCHOR.match(notes)):
        raise ParameterError(
            f"{source}: experiment.notes must be an anchor such as '#dp-ir-figure-1' "
            f"(its claims' notes, unless a claim names its own), got {notes!r}"
        )
    known_papers = [p.short for p in known]
    paper = block["paper"]
    if paper not in known_papers:
        raise ParameterError(
            f"{source}: experiment.paper {paper!r} is not a paper of "
            f"{PAPERS_FILE}; choose one of {list(known_papers)}"
        )
    raw_targets = block.get("targets")
    if not isinstance(raw_targets, list) or not raw_targets:
        raise ParameterError(
            f"{source}: experiment.targets must list the paper's figures "
            "or tables this experiment regenerates"
        )
    figures, tables = _declared(raw, "figures"), _declared(raw, "tables")
    targets = []
    for i, item in enumerate(raw_targets):
        where = f"{source}: target #{i + 1}"
        if not isinstance(item, Mapping):
            raise ParameterError(f"{where} must be a mapping, got {item!r}")
        unknown = set(item) - {"id", "title", "figures", "tables"}
        if unknown:
            raise ParameterError(f"{where} has unknown key(s) {sorted(unknown)}")
        target_id = text(item.get("id"), "id (e.g. 'Figure 1')", where)
        where = f"{source}: target {target_id!r}"
        picked_figures = _names_list(item.get("figures"), "figures", where)
        picked_tables = _names_list(item.get("tables"), "tables", where)
        for picked, declared, what in (
            (picked_figures, figures, "figures"),
            (picked_tables, tables, "tables"),
        ):
            missing = sorted(set(picked or ()) - declared)
            if missing:
                raise ParameterError(
                    f"{where}: {what} {missing} are not among the "
                    f"experiment's {what} {sorted(declared)}"
                )
        targets.append(
            Target(
                str(paper),
                str(target_id),
                str(text(item.get("title"), "title", where)),
                name,
                picked_figures,
                picked_tables,
            )
        )
    claims = resolved_claims(raw, known_papers=known, source=source)
    reps = {"paper": raw.get("reps", 2)}  # conf/config.yaml's default: 2
    for profile, extra in (raw.get("profiles") or {}).items():
        if isinstance(extra, Mapping) and "reps" in extra:
            reps[str(profile)] = extra["reps"]
    reps = {k: v for k, v in reps.items() if isinstance(v, int) and not isinstance(v, bool)}
    return ExperimentEntry(
        name,
        str(paper),
        tuple(sorted(targets, key=lambda t: t.sort_key)),
        parse_readings(raw.get("readings"), source),
        tuple(claims),
        path,
        reps,
    )


def experiments(conf_dir: Path = CONF_DIR) -> tuple[ExperimentEntry, ...]:
    """Every paper experiment (``conf/experiment/*.yaml`` with ``experiment.paper`` set),
    in the order of ``papers.yaml``, then by their first target (figures before tables, by
    number). Two experiments with the same name, or the same target id of a paper twice,
    are errors naming the files."""
    conf_dir = Path(conf_dir)
    known = papers(conf_dir)
    order = [p.short for p in known]
    entries: list[ExperimentEntry] = []
    for path in sorted((conf_dir / EXPERIMENT_DIR).glob("*.yaml")):
        entry = _entry(path, known)
        if entry is not None:
            entries.append(entry)
    seen: dict[str, Path] = {}
    for entry in entries:
        if entry.name in seen:
            raise ParameterError(
                f"{entry.path}: experiment {entry.name!r} is already declared by {seen[entry.name]}"
            )
        seen[entry.name] = entry.path
    for entry in entries:
        if entry.name != entry.path.stem:
            raise ParameterError(
                f"{entry.path}: experiment.name {entry.name!r} must be the "
                f"file's name {entry.path.stem!r} (+experiment="
                f"{entry.path.stem} runs it)"
            )
    owner: dict[tuple[str, str], Path] = {}
    for entry in entries:
        for target in entry.targets:
            key = (target.paper, target.id)
            if key in owner:
                raise ParameterError(
                    f"{entry.path}: target {target.title_line!r} is already "
                    f"declared by {owner[key]}"
                )
            owner[key] = entry.path
    return tuple(
        sorted(entries, key=lambda e: (order.index(e.paper), e.targets[0].sort_key, e.name))
    )


def custom_experiments(conf_dir: Path = CONF_DIR) -> tuple[str, ...]:
    """The experiment configs that name no paper (``experiment.paper`` null or absent), by
    name: ``all``, ``study`` and any experiment of one's own (a figure with its claims in
    one YAML). Each is checked as far as it declares: a mapping whose ``experiment``
    block, if any, is a mapping with the keys of
    :data:`~anonlab.config.EXPERIMENT_KEYS` only, a ``name`` that is the file's, a list
    of ``targets``, and ``claims`` that resolve (:func:`resolved_claims`); anything else
    is a :class:`ParameterError` naming the file."""
    names = []
    for path in sorted((Path(conf_dir) / EXPERIMENT_DIR).glob("*.yaml")):
        raw = _load_yaml(path)
        source = str(path)
        if not isinstance(raw, Mapping):
            raise ParameterError(f"{source}: an experiment must be a mapping, got {raw!r}")
        block = raw.get("experiment")
        if block is None:
            names.append(path.stem)
            continue
        if not isinstance(block, Mapping):
            raise ParameterError(f"{source}: experiment must be a mapping, got {block!r}")
        if block.get("paper"):
            continue  # a paper experiment (experiments())
        check_experiment_keys(block, source)
        name = block.get("name", path.stem)
        if name != path.stem:
            raise ParameterError(
                f"{source}: experiment.name {name!r} must be the file's name {path.stem!r} "
                f"(+experiment={path.stem} runs it)"
            )
        if not isinstance(block.get("targets") or [], list):
            raise ParameterError(f"{source}: experiment.targets must be a list")
        resolved_claims(raw, conf_dir, source=source)
        names.append(path.stem)
    return tuple(names)


def targets(conf_dir: Path = CONF_DIR) -> tuple[Target, ...]:
    """Every paper target, by paper (``papers.yaml`` order), figures before tables, by
    number."""
    order = [p.short for p in papers(conf_dir)]
    found = [t for entry in experiments(conf_dir) for t in entry.targets]
    return tuple(sorted(found, key=lambda t: (order.index(t.paper), t.sort_key)))


def experiment_names(conf_dir: Path = CONF_DIR) -> tuple[str, ...]:
    """The paper experiments' names, in :func:`experiments` order (what
    ``+experiment=all`` runs)."""
    return tuple(entry.name for entry in experiments(conf_dir))


def experiment(name: str, conf_dir: Path = CONF_DIR) -> ExperimentEntry:
    """The paper experiment called ``name``."""
    for entry in experiments(conf_dir):
        if entry.name == name:
            return entry
    raise ParameterError(
        f"no paper experiment {name!r}; choose one of {list(experiment_names(conf_dir))}"
    )


__all__ = [
    "ExperimentEntry",
    "Paper",
    "Reading",
    "Target",
    "custom_experiments",
    "experiment",
    "experiment_names",
    "experiments",
    "find_reading",
    "papers",
    "parse_readings",
    "resolved_claims",
    "targets",
]
