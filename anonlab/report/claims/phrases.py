"""The phrase table (``conf/phrases.yaml``): the papers' recurring wordings, each with one
encoding, so that one phrase means the same in every claim.

A claim declares the wordings of its quote that it encodes (``phrases``: a list of names,
or a mapping name → parameter such as ``{for_k_above: 20}``) and those that belong to
another part of the sentence (``phrases_elsewhere``). :func:`check` (called by
:func:`~anonlab.report.claims.parse_claim`) raises a :class:`ClaimError` naming the claim
and the field when a declared name is not in the table or the claim's fields contradict its
encoding; :func:`wordings` finds the table's wordings in a quote.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from anonlab.config import CONF_DIR, load_yaml
from anonlab.report.claims.model import Checker, Claim

PHRASES_FILE = CONF_DIR / "phrases.yaml"
#: fields whose default stands for an absent value (``null`` in an encoding)
DEFAULTS: dict[str, Any] = {"tolerance": 0.0, "by": False}


@dataclass(frozen=True)
class Phrase:
    """One wording: its regex, its encoding per kind (and scale) and why."""

    name: str
    pattern: re.Pattern[str]
    encoding: Mapping[str, Any]
    justification: str
    parameter: str | None = None


@dataclass(frozen=True)
class Table:
    phrases: Mapping[str, Phrase]
    scales: Mapping[str, str]  # metric → scale


@cache
def table(path: Path = PHRASES_FILE) -> Table:
    """The phrase table, read once."""
    raw = load_yaml(Path(path).read_text(encoding="utf-8"))
    scales = {m: scale for scale, metrics in raw["scales"].items() for m in metrics}
    phrases = {
        name: Phrase(
            name,
            re.compile(entry["pattern"], re.IGNORECASE),
            entry["encoding"],
            entry["justification"],
            entry.get("parameter"),
        )
        for name, entry in raw["phrases"].items()
    }
    return Table(phrases, scales)


def declared(value: Any) -> dict[str, list[Any]]:
    """A ``phrases``/``phrases_elsewhere`` value as name → parameters (``[None]`` for none):
    a name, a list of names and one-key mappings ``{name: parameter}``, or a mapping."""
    if value is None:
        return {}
    items = [value] if isinstance(value, str | Mapping) else value
    if not isinstance(items, list | tuple):
        raise TypeError(value)
    found: dict[str, list[Any]] = {}
    for item in items:
        pairs = item.items() if isinstance(item, Mapping) else [(item, None)]
        for name, param in pairs:
            if not isinstance(name, str):
                raise TypeError(value)
            params = list(param) if isinstance(param, list | tuple) else [param]
            found.setdefault(name, []).extend(params)
    return found


def wordings(quote: str) -> list[tuple[str, str | None, str]]:
    """The table's wordings in ``quote``: (name, parameter or ``None``, matched text); a match
    lying inside a longer match of another wording is left out (the longer wins)."""
    found = []
    for phrase in table().phrases.values():
        for match in phrase.pattern.finditer(quote):
            param = match.group(1) if phrase.pattern.groups else None
            found.append((match.start(), match.end(), phrase.name, param, match.group(0)))
    kept = [
        (name, param, text)
        for start, end, name, param, text in found
        if not any(
            s <= start and end <= e and (e - s) > (end - start) and n != name
            for s, e, n, _, _ in found
        )
    ]
    return kept


def _alternatives(c: Checker, claim: Claim, phrase: Phrase, field: str) -> list[dict]:
    """The encodings ``phrase`` allows for this claim's kind and metric's scale."""
    encoding = phrase.encoding
    options = encoding.get(claim.kind, encoding.get("any"))
    if options is None:
        raise c.error(
            field, f"declares {phrase.name!r}, which has no encoding for kind {claim.kind!r}"
        )
    if isinstance(options, Mapping):  # per scale
        scale = table().scales.get(claim.metric or "")
        if scale not in options:
            raise c.error(
                field,
                f"declares {phrase.name!r}, which has no encoding for metric "
                f"{claim.metric!r} (scale {scale!r}; encoded: {sorted(options)})",
            )
        options = options[scale]
    return list(options)


def _expected(value: Any, param: Any) -> Any:
    if isinstance(value, str) and value in ("N", "N+1"):
        return float(param) + (1 if value == "N+1" else 0)
    return value


def _k_min(claim: Claim) -> list[float]:
    """Every lower bound on k the claim states (in ``where`` and in its selections)."""
    limits = [claim.where.get("k")] + [s.limits.get("k") for s in claim.selections()]
    return [float(v["min"]) for v in limits if isinstance(v, Mapping) and "min" in v]


def _mismatch(c: Checker, claim: Claim, wanted: Mapping[str, Any], param: Any) -> str | None:
    """The first field of ``wanted`` the claim contradicts, as ``field: has, wants``."""
    for key, value in wanted.items():
        value = _expected(value, param)
        if key == "k_min":
            have = _k_min(claim)
            if not any(math.isclose(h, value) for h in have):
                where = "in 'where' or a selection"
                return f"k_min|a lower bound k >= {value:g} ({where}), got {have or 'none'}"
            continue
        have = c.raw.get(key)
        if value is None:
            if have is not None and have != DEFAULTS.get(key):
                return f"{key}|must be absent, got {have!r}"
            continue
        if have is None:
            have = DEFAULTS.get(key)
        if isinstance(value, bool) or isinstance(value, str):
            ok = have == value
        else:
            ok = (
                isinstance(have, int | float)
                and not isinstance(have, bool)
                and math.isclose(float(have), float(value), rel_tol=1e-3)
            )
        if not ok:
            return f"{key}|must be {value!r}, got {have!r}"
    return None


def check(c: Checker, claim: Claim) -> dict[str, list[Any]]:
    """Validate ``phrases`` and ``phrases_elsewhere``: each name in the table, a parameter
    where the wording takes one, and the claim's fields as its declared wordings encode them.
    Returns the declared ``phrases``."""
    known = table().phrases
    result: dict[str, list[Any]] = {}
    for field in ("phrases", "phrases_elsewhere"):
        try:
            names = declared(c.raw.get(field))
        except TypeError:
            raise c.error(
                field,
                "must be a list of phrase names or a mapping name → parameter, "
                f"got {c.raw.get(field)!r}",
            ) from None
        for name, params in names.items():
            if name not in known:
                raise c.error(
                    field, f"names {name!r}, which is not in conf/phrases.yaml ({sorted(known)})"
                )
            phrase = known[name]
            if (phrase.parameter is None) != all(p is None for p in params):
                want = f"a parameter ({phrase.parameter})" if phrase.parameter else "no parameter"
                raise c.error(field, f"{name!r} takes {want}, got {params!r}")
            if field == "phrases_elsewhere":
                continue
            for param in params:
                problems = [
                    _mismatch(c, claim, alt, param)
                    for alt in _alternatives(c, claim, phrase, field)
                ]
                if all(problems):
                    bad, why = problems[0].split("|", 1)
                    encoded = " or ".join(str(a) for a in _alternatives(c, claim, phrase, field))
                    raise c.error(
                        bad,
                        f"{why}: the claim declares {name!r}"
                        + (f" ({param})" if param is not None else "")
                        + f", encoded as {encoded}",
                    )
        if field == "phrases":
            result = names
    return result
