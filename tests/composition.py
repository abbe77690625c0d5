"""Hydra's composition, kept per config tree for the test processes.

A composition (:func:`anonlab.config.compose_config`, and every in-process ``run.py``)
costs about 0.2 s, nearly all of it in two steps that depend only on the config files and
on the overrides that choose config groups (``+experiment=…``, ``dataset=…``): the
defaults list (:func:`hydra._internal.defaults_list.create_defaults_list`) and the config
it merges (``ConfigLoaderImpl._compose_config_from_defaults_list``). The suite composes
hundreds of times, over a few dozen such choices, each time with other values
(``grid.k=…``, a scratch ``results_dir``).

:func:`install` keeps the result of each of the two steps, keyed by the bytes of every
file under each config folder Hydra searches, the config name and the group overrides as
typed; the value overrides are Hydra's own, split from the group ones by Hydra's own
:class:`~hydra._internal.defaults_list.Overrides`, and applied by Hydra as before. A kept
config is handed out as a copy (unpickled: the same nodes, flags and types as a deep
copy, in less than half its time). A file a test writes or edits is a different key;
a composition that fails is not kept, so it fails again alike. Each result is also
written to a folder (:data:`STORE`, the suite's ``.pytest_cache/compositions``), named by
its key and the versions of Python, Hydra and OmegaConf: the other worker and later runs
read it instead of composing it again.

Two smaller costs of every composition are kept too: each override's parse (Hydra's ANTLR
grammar, about 1 ms an override; a parse that fails is not kept) and the copy of the
config store in the repository each composition copies (about 5 ms: the store is Hydra's
process-wide registry of structured configs, which Hydra reads only through copies and
which a composition never writes, so the copied repository shares it). Where Hydra's
internals are not the ones read here (another minor version than 1.3), nothing is
installed.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import hashlib
import os
import pickle
import sys
import weakref
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

#: the Hydra minor version whose internals this module reads
HYDRA_SERIES = "1.3."
#: the folder kept compositions are also written to, for the other processes of the run
#: and for later runs (set by :func:`install`); None: kept in memory only
STORE: Path | None = None
#: the most files :data:`STORE` keeps: above it, :func:`install` removes the oldest half
STORE_FILES = 2000


def _tree_digest(root: str) -> str:
    """A digest of the names and bytes of every file under ``root``."""
    digest = hashlib.blake2b(digest_size=16)
    for folder, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(files):
            path = os.path.join(folder, name)
            digest.update(os.path.relpath(path, root).encode() + b"\0")
            with open(path, "rb") as f:
                digest.update(f.read())
            digest.update(b"\1")
    return digest.hexdigest()


#: each composition's sources key, computed once for its two steps
_KEYS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def sources_key(repo: Any) -> tuple:
    """What Hydra can read through ``repo``: each source's kind, and the digest of a
    folder's files or else the source's path (a package's or the config store's configs
    do not change while the process runs). A composed config holds no path of the folder
    it was read from; Hydra's own node, which does, is set after the two steps kept."""
    if repo in _KEYS:
        return _KEYS[repo]
    key = []
    for source in repo.get_sources():
        scheme, path = source.scheme(), source.path
        if scheme == "file" and os.path.isdir(path):
            path = _tree_digest(path)  # a scratch copy of conf/ composes as conf/ does
        key.append((scheme, path))
    _KEYS[repo] = tuple(key)
    return _KEYS[repo]


@functools.cache
def _versions() -> tuple:
    """What reads and writes a stored result: Python's pickles, Hydra's and OmegaConf's
    objects (and this module's layout of them, the leading 1)."""
    import hydra
    import omegaconf

    return (1, sys.version_info[:2], hydra.__version__, omegaconf.__version__)


def _stored(key: tuple) -> Path | None:
    """Where :data:`STORE` keeps ``key``'s result: named by a digest of the key and of
    :func:`_versions`, so another version never reads it."""
    if STORE is None:
        return None
    name = hashlib.blake2b(repr((_versions(), key)).encode(), digest_size=20).hexdigest()
    return STORE / f"{name}.pickle"


def copy_kept(memory: dict[Any, bytes], key: Any, make: Callable[[], Any]) -> Any:
    """``make()``'s result for ``key``, kept pickled in ``memory``: each call gets its own
    copy (unpickled: a deep copy made in C, in less than half the time). A ``make`` that
    raises keeps nothing, so the next call raises alike."""
    if key not in memory:
        memory[key] = pickle.dumps(make(), protocol=pickle.HIGHEST_PROTOCOL)
    return pickle.loads(memory[key])


def _kept(memory: dict[tuple, bytes], key: tuple, make: Callable[[], Any]) -> Any:
    """``make()``'s result for ``key``, kept pickled in ``memory`` and in :data:`STORE`:
    each call gets its own copy. A stored file that cannot be read or unpickled is made
    again and written anew."""
    data, path = memory.get(key), None
    if data is None and (path := _stored(key)) is not None:
        try:
            data = path.read_bytes()
        except OSError:
            data = None
    if data is not None:
        try:
            value = pickle.loads(data)
        except Exception:  # noqa: BLE001 - a torn or foreign file: make it again
            memory.pop(key, None)
        else:
            memory[key] = data
            return value
    value = make()
    memory[key] = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    if (path := path or _stored(key)) is not None:
        try:  # written whole, then renamed: a reader sees all of it or nothing
            path.parent.mkdir(parents=True, exist_ok=True)
            partial = path.with_name(f".{path.name}.{os.getpid()}")
            partial.write_bytes(memory[key])
            os.replace(partial, path)
        except OSError:
            pass  # kept in memory all the same
    return value


def _prune(store: Path) -> None:
    """Keep :data:`STORE_FILES` files at most in ``store``: above it, remove the oldest
    half (the config trees of scratch copies that tests wrote once)."""
    try:
        files = sorted(store.glob("*.pickle"), key=lambda p: p.stat().st_mtime)
    except OSError:
        return
    if len(files) > STORE_FILES:
        for path in files[: len(files) - STORE_FILES // 2]:
            path.unlink(missing_ok=True)


def install(store: Path | None = None) -> None:
    """Keep the defaults lists and merged configs Hydra composes in this process, and in
    ``store`` (:data:`STORE`) for the other processes and later runs."""
    global STORE
    import hydra
    from hydra._internal import config_loader_impl, defaults_list
    from hydra.core.config_store import ConfigStore

    if not hydra.__version__.startswith(HYDRA_SERIES):
        return
    loader = config_loader_impl.ConfigLoaderImpl
    if getattr(loader, "_kept_compositions", None) is not None:
        return
    STORE = store
    if store is not None:
        _prune(store)
    own = tuple(getattr(owner, name) for owner, name in _hooks())
    create, compose, parse, _ = own
    lists: dict[tuple, bytes] = {}
    configs: dict[tuple, bytes] = {}
    parsed: dict[str, bytes] = {}

    def kept_parse(self, s, rule_name):
        if rule_name != "override":
            return parse(self, s, rule_name)
        return copy_kept(parsed, s, lambda: parse(self, s, rule_name))

    def repository_sharing_the_store(self, delegate):
        store = ConfigStore.instance()
        self.delegate = copy.deepcopy(delegate, {id(store): store})
        self.cache = {}

    def kept_defaults_list(repo, config_name, overrides_list, prepend_hydra, skip_missing):
        # Hydra's own split: the value overrides, and all others (groups, sweeps)
        values = defaults_list.Overrides(repo=repo, overrides_list=overrides_list).config_overrides
        chosen = tuple(o.input_line for o in overrides_list if o not in values)
        key = ("defaults", sources_key(repo), config_name, chosen, prepend_hydra, skip_missing)
        kept = _kept(
            lists,
            key,
            lambda: create(
                repo=repo,
                config_name=config_name,
                overrides_list=overrides_list,
                prepend_hydra=prepend_hydra,
                skip_missing=skip_missing,
            ),
        )
        return dataclasses.replace(kept, config_overrides=values)

    def kept_config(self, defaults, repo):
        key = ("config", sources_key(repo), repr(defaults))
        # a copy, unpickled in C: faster than a deep copy
        return _kept(configs, key, lambda: compose(self, defaults=defaults, repo=repo))

    _put((kept_defaults_list, kept_config, kept_parse, repository_sharing_the_store))
    loader._kept_compositions = (lists, configs, parsed)
    loader._hydras_own = own


def _hooks() -> list[tuple[Any, str]]:
    """Where :func:`install` puts its functions, in the order of ``_hydras_own``."""
    from hydra._internal import config_loader_impl
    from hydra._internal.config_repository import CachingConfigRepository
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return [
        (config_loader_impl, "create_defaults_list"),
        (config_loader_impl.ConfigLoaderImpl, "_compose_config_from_defaults_list"),
        (OverridesParser, "parse_rule"),
        (CachingConfigRepository, "__init__"),
    ]


def _put(functions: tuple[Callable[..., Any], ...]) -> tuple[Callable[..., Any], ...]:
    """Put ``functions`` where :func:`_hooks` names, in its order; returns those they
    replace."""
    hooks = _hooks()
    replaced = tuple(getattr(owner, name) for owner, name in hooks)
    for (owner, name), function in zip(hooks, functions, strict=True):
        setattr(owner, name, function)
    return replaced


@contextmanager
def fresh() -> Iterator[None]:
    """Within the block, Hydra composes as it does without :func:`install`."""
    from hydra._internal import config_loader_impl

    own = getattr(config_loader_impl.ConfigLoaderImpl, "_hydras_own", None)
    if own is None:
        yield
        return
    installed = _put(own)
    try:
        yield
    finally:
        _put(installed)
