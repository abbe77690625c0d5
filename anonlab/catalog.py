"""What the papers are and which experiment regenerates which of their figures and tables,
derived from the configs alone.

``conf/papers.yaml`` lists the papers (short name, title, authors, venue, year) in the order
the report and ``+experiment=all`` follow. Each paper experiment, ``conf/experiment/<name>.yaml``,
states which paper and which targets it reproduces, its claims, and its readings::

    experiment:
      name: census_ir
      paper: DP-IR
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

:func:`apply_reading` applies a composed config's ``reading`` (its ``set`` overrides).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from anonlab.config import CONF_DIR
from anonlab.validation import ParameterError

PAPERS_FILE = "papers.yaml"
EXPERIMENT_DIR = "experiment"
READING_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: keys under this prefix form a free-form mapping: a reading may create them
FREE_FORM_PREFIXES = ("options.",)
_TARGET_ID = re.compile(r"^(Figure|Table)\s+(\d+)$")
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
class Reading:
    """A named reading of a paper: the config overrides (``set``, dotted keys → values)
    under which the experiment is run and its claims judged. The primary reading, the one
    the paper's text supports, sets nothing."""

    name: str
    text: str
    primary: bool = False
    set: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ExperimentEntry:
    """A paper experiment as its config declares it."""

    name: str
    paper: str
    targets: tuple[Target, ...]
    readings: tuple[Reading, ...]
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


def _load_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as error:
        raise ParameterError(f"{path}: cannot be read as YAML: {error}") from error


def _text(value: Any, what: str, source: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{source}: {what} must be a non-empty string, got {value!r}")
    return value.strip()


def _entries(
    raw: list[Any], what: str, keys: Sequence[str]
) -> Iterator[tuple[str, Mapping[str, Any]]]:
    """Each item of a YAML list with its place (``<what> #<i>``) for messages, after
    checking it is a mapping of only ``keys``."""
    for i, item in enumerate(raw):
        where = f"{what} #{i + 1}"
        if not isinstance(item, Mapping):
            raise ParameterError(f"{where} must be a mapping, got {item!r}")
        unknown = set(item) - set(keys)
        if unknown:
            raise ParameterError(
                f"{where} has unknown key(s) {sorted(unknown)}; the keys are {list(keys)}"
            )
        yield where, item


def papers(conf_dir: Path = CONF_DIR) -> tuple[Paper, ...]:
    """The papers of ``conf/papers.yaml``, in its order."""
    path = Path(conf_dir) / PAPERS_FILE
    raw = _load_yaml(path)
    if not isinstance(raw, list) or not raw:
        raise ParameterError(f"{path}: must be a non-empty list of papers")
    found: list[Paper] = []
    for where, item in _entries(
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
                str(_text(item.get("short"), "short", where)),
                str(_text(item.get("title"), "title", where)),
                tuple(authors),
                _text(item.get("venue"), "venue", where, required=False),
                year,
                kind,
            )
        )
    shorts = [p.short for p in found]
    duplicated = sorted({s for s in shorts if shorts.count(s) > 1})
    if duplicated:
        raise ParameterError(f"{path}: paper(s) {duplicated} listed twice")
    return tuple(found)


def parse_readings(raw: Any, source: str) -> tuple[Reading, ...]:
    """A ``readings:`` block, validated: lower_snake_case unique names, a ``text`` each,
    exactly one ``primary: true`` (which sets nothing), ``set`` a mapping with string keys.
    An absent or empty block is no readings."""
    if raw is None or raw == []:
        return ()
    if not isinstance(raw, list):
        raise ParameterError(f"{source}: readings must be a list, got {raw!r}")
    readings: list[Reading] = []
    for where, item in _entries(raw, f"{source}: reading", ("name", "primary", "text", "set")):
        name = item.get("name")
        if not isinstance(name, str) or not READING_NAME.match(name):
            raise ParameterError(f"{where}: name must be lower_snake_case, got {name!r}")
        where = f"{source}: reading {name!r}"
        primary = item.get("primary", False)
        if not isinstance(primary, bool):
            raise ParameterError(f"{where}: primary must be true or false, got {primary!r}")
        overrides = item.get("set")
        overrides = {} if overrides is None else overrides
        if not isinstance(overrides, Mapping):
            raise ParameterError(
                f"{where}: set must be a mapping of dotted config keys to values, got {overrides!r}"
            )
        bad = [key for key in overrides if not isinstance(key, str) or not key.strip()]
        if bad:
            raise ParameterError(f"{where}: set keys must be dotted config keys, got {bad!r}")
        if primary and overrides:
            raise ParameterError(
                f"{where}: the primary reading sets nothing (it is the "
                f"experiment's config as written), got set {dict(overrides)}"
            )
        readings.append(
            Reading(name, str(_text(item.get("text"), "text", where)), primary, dict(overrides))
        )
    names = [r.name for r in readings]
    duplicated = sorted({n for n in names if names.count(n) > 1})
    if duplicated:
        raise ParameterError(f"{source}: reading name(s) {duplicated} declared twice")
    primaries = [r.name for r in readings if r.primary]
    if len(primaries) != 1:
        raise ParameterError(
            f"{source}: exactly one reading must be primary: true, got "
            f"{len(primaries)} ({primaries})"
        )
    return tuple(readings)


def find_reading(
    readings: Sequence[Reading], name: str | None, source: str = "this experiment"
) -> Reading | None:
    """The reading called ``name`` (``None``: the primary; ``None`` too when no readings
    are declared). An unknown name, or any name when none are declared, is an error."""
    if not readings:
        if name is None:
            return None
        raise ParameterError(f"reading={name!r}: {source} declares no readings")
    if name is None:
        return next(r for r in readings if r.primary)
    for reading in readings:
        if reading.name == name:
            return reading
    raise ParameterError(
        f"reading={name!r} is not declared by {source}; choose one of {[r.name for r in readings]}"
    )


def _names_list(value: Any, what: str, source: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ParameterError(f"{source}: {what} must be a list of names, got {value!r}")
    return tuple(value)


def _declared(config: Mapping[str, Any], key: str) -> set[str]:
    return {str(item.get("name")) for item in config.get(key) or () if isinstance(item, Mapping)}


def _entry(path: Path, known_papers: Sequence[str]) -> ExperimentEntry | None:
    """The paper experiment of ``path``; ``None`` for a file with no ``experiment.paper``
    (``all``)."""
    raw = _load_yaml(path)
    raw = raw if isinstance(raw, Mapping) else {}
    block = raw.get("experiment")
    if not isinstance(block, Mapping) or not block.get("paper"):
        return None
    source = str(path)
    unknown = set(block) - {"name", "paper", "targets"}
    if unknown:
        raise ParameterError(
            f"{source}: experiment has unknown key(s) {sorted(unknown)}; "
            "it has name, paper and targets"
        )
    name = str(_text(block.get("name"), "experiment.name", source))
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
        target_id = _text(item.get("id"), "id (e.g. 'Figure 1')", where)
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
                str(_text(item.get("title"), "title", where)),
                name,
                picked_figures,
                picked_tables,
            )
        )
    claims = raw.get("claims") or []
    if not isinstance(claims, list):
        raise ParameterError(f"{source}: claims must be a list")
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
    order = [p.short for p in papers(conf_dir)]
    entries: list[ExperimentEntry] = []
    for path in sorted((conf_dir / EXPERIMENT_DIR).glob("*.yaml")):
        entry = _entry(path, order)
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


# --- applying a reading to a composed config -----------------------------------------------


def _has_key(config: Mapping[str, Any], dotted: str) -> bool:
    node: Any = config
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return False
        node = node[part]
    return True


def apply_reading(config: Mapping[str, Any]) -> dict[str, Any]:
    """``config`` (composed and resolved) with its reading's ``set`` overrides merged in.

    ``config["reading"]`` names one of ``config["readings"]`` (``None``: the primary, which
    sets nothing). Each override is merged with OmegaConf's merge semantics (mappings merge,
    lists replace); a key the config does not have is an error naming the reading and the
    key, except under ``options.``, a free-form mapping, where it is created. The result
    keeps ``reading`` (``None`` for the primary) and ``readings``, so applying it twice
    changes nothing.
    """
    from omegaconf import OmegaConf
    from omegaconf.errors import OmegaConfBaseException

    readings = parse_readings(config.get("readings"), "this experiment's readings")
    name = config.get("reading")
    name = None if name in (None, "") else str(name)
    experiment_name = (config.get("experiment") or {}).get("name") or "this experiment"
    reading = find_reading(readings, name, source=f"experiment {experiment_name!r}")
    config = dict(config)
    config["reading"] = None if reading is None or reading.primary else reading.name
    if reading is None or not reading.set:
        return config
    merged = OmegaConf.create(config)
    for key, value in reading.set.items():
        if not key.startswith(FREE_FORM_PREFIXES) and not _has_key(config, key):
            raise ParameterError(
                f"reading {reading.name!r} sets {key!r}, which is not a key of the config"
            )
        try:
            OmegaConf.update(merged, key, value, merge=True, force_add=True)
        except OmegaConfBaseException as error:
            raise ParameterError(
                f"reading {reading.name!r} cannot set {key!r}: {str(error).splitlines()[0]}"
            ) from error
    return OmegaConf.to_container(merged, resolve=True)


__all__ = [
    "ExperimentEntry",
    "Paper",
    "Reading",
    "Target",
    "apply_reading",
    "experiment",
    "experiment_names",
    "experiments",
    "find_reading",
    "papers",
    "parse_readings",
    "targets",
]
