"""Hydra's composition, kept per config tree within a test process.

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
a composition that fails is not kept, so it fails again alike. Where Hydra's internals
are not the ones read here (another minor version than 1.3), nothing is installed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import pickle
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

#: the Hydra minor version whose internals this module reads
HYDRA_SERIES = "1.3."


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


def install() -> None:
    """Keep the defaults lists and merged configs Hydra composes in this process."""
    import hydra
    from hydra._internal import config_loader_impl, defaults_list

    if not hydra.__version__.startswith(HYDRA_SERIES):
        return
    loader = config_loader_impl.ConfigLoaderImpl
    if getattr(loader, "_kept_compositions", None) is not None:
        return
    create, compose = (
        config_loader_impl.create_defaults_list,
        loader._compose_config_from_defaults_list,
    )
    lists: dict[tuple, Any] = {}
    configs: dict[tuple, Any] = {}

    def kept_defaults_list(repo, config_name, overrides_list, prepend_hydra, skip_missing):
        # Hydra's own split: the value overrides, and all others (groups, sweeps)
        values = defaults_list.Overrides(repo=repo, overrides_list=overrides_list).config_overrides
        chosen = tuple(o.input_line for o in overrides_list if o not in values)
        key = (sources_key(repo), config_name, chosen, prepend_hydra, skip_missing)
        if key not in lists:
            lists[key] = create(
                repo=repo,
                config_name=config_name,
                overrides_list=overrides_list,
                prepend_hydra=prepend_hydra,
                skip_missing=skip_missing,
            )
        return dataclasses.replace(lists[key], config_overrides=values)

    def kept_config(self, defaults, repo):
        key = (sources_key(repo), repr(defaults))
        if key not in configs:
            composed = compose(self, defaults=defaults, repo=repo)
            configs[key] = pickle.dumps(composed, protocol=pickle.HIGHEST_PROTOCOL)
        return pickle.loads(configs[key])  # a copy, made in C: faster than a deep copy

    config_loader_impl.create_defaults_list = kept_defaults_list
    loader._compose_config_from_defaults_list = kept_config
    loader._kept_compositions = (lists, configs, create, compose)


@contextmanager
def fresh() -> Iterator[None]:
    """Within the block, Hydra composes as it does without :func:`install`."""
    from hydra._internal import config_loader_impl

    loader = config_loader_impl.ConfigLoaderImpl
    kept = getattr(loader, "_kept_compositions", None)
    if kept is None:
        yield
        return
    installed = config_loader_impl.create_defaults_list, loader._compose_config_from_defaults_list
    config_loader_impl.create_defaults_list, loader._compose_config_from_defaults_list = kept[2:]
    try:
        yield
    finally:
        config_loader_impl.create_defaults_list = installed[0]
        loader._compose_config_from_defaults_list = installed[1]
