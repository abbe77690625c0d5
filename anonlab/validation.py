"""Parameter checks at the edge: a clear error naming the parameter and its value.

In the style of scikit-learn's parameter constraints: a :class:`TypeError` for a wrong type,
a :class:`ParameterError` (a :class:`ValueError`) for an out-of-range value. Both are raised
when an experiment is built, before any work starts.
"""

from __future__ import annotations

import math
import numbers
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any


class ParameterError(ValueError):
    """A parameter value is out of range, unknown or inconsistent with the data."""


#: the largest master seed: the results table stores it as a 64-bit integer, and every
#: interface (command line, Python) accepts the same range
MAX_SEED = 2**63 - 1


def check_epsilon(epsilon: object, name: str = "epsilon") -> float:
    """Return ``epsilon`` as a float after checking it is a finite number > 0."""
    if isinstance(epsilon, bool) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {epsilon!r}")
    value = float(epsilon)
    if not math.isfinite(value) or value <= 0:
        raise ParameterError(f"{name} must be > 0 and finite, got {epsilon!r}")
    return value


def check_int(value: object, name: str, low: int, high: int | None = None) -> int:
    """Return ``value`` as an int after checking ``low <= value <= high``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise TypeError(f"{name} must be an integer, got {value!r}")
    value = int(value)
    if value < low or (high is not None and value > high):
        bound = f"in {low}..{high}" if high is not None else f">= {low}"
        raise ParameterError(f"{name} must be {bound}, got {value}")
    return value


def check_choice(value: object, name: str, choices: Iterable[str]) -> str:
    """Return ``value`` after checking it is one of ``choices``."""
    options = sorted(choices)
    if not isinstance(value, str) or value not in options:
        raise ParameterError(f"unknown {name} {value!r}; choose one of {options}")
    return value


def check_option(value: object, key: str, choices: Sequence[Any]) -> Any:
    """Return the choice equal to ``value`` after checking it is one of ``choices``; a
    bool matches only a bool (``1`` is not ``True``). ``key`` names it in the error,
    e.g. ``options.jsd.bins``."""
    for choice in choices:
        if isinstance(value, bool) == isinstance(choice, bool) and value == choice:
            return choice
    raise ParameterError(f"{key} must be one of {list(choices)}, got {value!r}")


def check_options(
    name: str, given: Mapping[str, Any] | None, choices: Mapping[str, Sequence[Any]]
) -> dict[str, Any]:
    """The validated options ``{option: value}`` of the method or metric ``name`` (config
    keys ``options.<name>.<option>``); ``choices`` maps each option to its allowed values,
    the first the default."""
    if given is None:
        return {}
    if not isinstance(given, Mapping):
        raise ParameterError(f"options.{name} must be a mapping {{option: value}}, got {given!r}")
    checked: dict[str, Any] = {}
    for option, value in given.items():
        if option not in choices:
            known = f"its options are {sorted(choices)}" if choices else "it has no options"
            raise ParameterError(f"options.{name}.{option} is not an option of {name!r}; {known}")
        checked[str(option)] = check_option(value, f"options.{name}.{option}", choices[option])
    return checked


def check_t(t: object, name: str = "t") -> float:
    """Return the t-closeness level ``t`` as a float after checking 0 < t ≤ 1 (EMD with the
    ordered distance lies in [0, 1], TCM §2.2)."""
    if isinstance(t, bool) or not isinstance(t, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {t!r}")
    value = float(t)
    if not (0 < value <= 1):
        raise ParameterError(f"{name} must be in (0, 1], got {t!r}")
    return value


def cap_n_jobs(n_jobs: int, cores: int | None = None) -> tuple[int, str | None]:
    """``n_jobs`` capped at the machine's cores (more workers than cores only add
    processes and memory, never speed), with a note saying so when it was capped."""
    cores = cores or os.cpu_count() or 1
    if n_jobs > cores:
        return cores, f"n_jobs={n_jobs} capped to {cores}, the number of cores"
    return n_jobs, None


def check_results_dir(path: Path) -> Path:
    """``path`` as a results folder, refused before any write when it is a file, lies
    under a file, or cannot be written (its nearest existing folder is probed with a
    temporary file, removed at once, so read-only file systems and permissions are
    caught for every user, root included)."""
    path = Path(path)
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if not probe.is_dir():
        what = "is a file" if probe == path else f"lies under the file {str(probe)!r}"
        raise ParameterError(f"results_dir={str(path)!r} {what}; name a folder")
    try:
        with tempfile.TemporaryFile(dir=probe, prefix=".anonlab-probe-"):
            pass
    except OSError as error:
        raise ParameterError(
            f"results_dir={str(path)!r}: {str(probe)!r} is not writable ({error.strerror or error})"
        ) from None
    return path
