"""``key=value`` arguments of the audit's commands, as the harness's Hydra overrides are
written (a leading ``+`` is accepted and ignored), each converted by its key's reader."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from anonlab.validation import ParameterError


def convert(key: str, text: str, kind: Callable[[str], Any]) -> Any:
    """``text`` read by ``kind`` (``int``, ``float``, ``str`` or a reader that raises its
    own :class:`ParameterError`), or a :class:`ParameterError` naming ``key``."""
    try:
        return kind(text)
    except ParameterError:
        raise
    except ValueError:
        what = {int: "an integer", float: "a number"}.get(kind, getattr(kind, "__name__", ""))
        raise ParameterError(f"{key} must be {what}, got {text!r}") from None


def key_values(
    args: Sequence[str], allowed: Mapping[str, Callable[[str], Any]], where: str
) -> dict[str, Any]:
    """The ``key=value`` pairs of ``args``, each converted by its reader in ``allowed``;
    a malformed pair, an unknown key (``where`` names who takes the keys) or a key given
    twice is a :class:`ParameterError`."""
    values: dict[str, Any] = {}
    for arg in args:
        key, equals, text = arg.lstrip("+").partition("=")
        if not equals or not key:
            raise ParameterError(f"argument {arg!r} is not key=value")
        if key not in allowed:
            raise ParameterError(
                f"unknown parameter {key!r} (in {arg!r}); {where} takes {sorted(allowed)}"
            )
        if key in values:
            raise ParameterError(f"{key} is given twice")
        values[key] = convert(key, text, allowed[key])
    return values
