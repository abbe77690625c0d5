"""Readings: where a paper admits several readings, an experiment config declares them
(``readings:``) and a run chooses one (``reading=NAME``); the chosen reading's ``set``
overrides are merged into the config before it is built (:func:`apply_reading`).

A config feature of any experiment, below the engine: the runner applies the reading of
the config it is given, knowing nothing of papers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from anonlab.validation import ParameterError

READING_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
#: keys under this prefix form a free-form mapping: a reading may create them
FREE_FORM_PREFIXES = ("options.",)


@dataclass(frozen=True)
class Reading:
    """A named reading of a paper: the config overrides (``set``, dotted keys → values)
    under which the experiment is run and its claims judged. The primary reading, the one
    the paper's text supports, sets nothing."""

    name: str
    text: str
    primary: bool = False
    set: Mapping[str, Any] = field(default_factory=dict)


def text(value: Any, what: str, source: str, *, required: bool = True) -> str | None:
    if value is None and not required:
        return None
    if not isinstance(value, str) or not value.strip():
        raise ParameterError(f"{source}: {what} must be a non-empty string, got {value!r}")
    return value.strip()


def entries(
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


def parse_readings(raw: Any, source: str) -> tuple[Reading, ...]:
    """A ``readings:`` block, validated: lower_snake_case unique names, a ``text`` each,
    exactly one ``primary: true`` (which sets nothing), ``set`` a mapping with string keys.
    An absent or empty block is no readings."""
    if raw is None or raw == []:
        return ()
    if not isinstance(raw, list):
        raise ParameterError(f"{source}: readings must be a list, got {raw!r}")
    readings: list[Reading] = []
    for where, item in entries(raw, f"{source}: reading", ("name", "primary", "text", "set")):
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
            Reading(name, str(text(item.get("text"), "text", where)), primary, dict(overrides))
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
    "FREE_FORM_PREFIXES",
    "Reading",
    "apply_reading",
    "entries",
    "find_reading",
    "parse_readings",
    "text",
]
