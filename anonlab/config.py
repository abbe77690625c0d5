"""Config helpers: OmegaConf resolvers used by ``conf/`` (registered once per process) and
the run profiles (``profile=paper|quick``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from omegaconf import OmegaConf

from anonlab.validation import ParameterError

#: a run's ``stage``: ``exploratory`` runs on any seed; ``confirmatory`` on the
#: pre-registered seed only (:func:`anonlab.preregistration.staged`), into its own folder
EXPLORATORY, CONFIRMATORY = "exploratory", "confirmatory"
STAGES = (EXPLORATORY, CONFIRMATORY)
#: the key a confirmatory config carries the pre-registered seed under
CONFIRMATORY_SEED_KEY = "confirmatory_seed"


#: PyYAML's safe loader on libyaml's C parser where PyYAML was built with it: the same
#: documents as :func:`yaml.safe_load`, parsed about ten times faster
SAFE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def load_yaml(text: str) -> Any:
    """Parse YAML ``text`` as :func:`yaml.safe_load` does (plain data only), with
    :data:`SAFE_LOADER`."""
    return yaml.load(text, Loader=SAFE_LOADER)


@cache
def _omegaconf_c_loader() -> type:
    """OmegaConf's YAML loader (its float and duplicate-key rules) on libyaml's C parser."""
    from omegaconf import _utils
    from yaml.cyaml import CParser

    base = _utils.get_yaml_loader()

    class Loader(CParser, base):  # type: ignore[misc,valid-type]
        def __init__(self, stream: Any) -> None:
            CParser.__init__(self, stream)
            yaml.constructor.SafeConstructor.__init__(self)
            yaml.resolver.Resolver.__init__(self)

    return Loader


@contextmanager
def omegaconf_on_libyaml() -> Iterator[None]:
    """Within the block, :meth:`OmegaConf.load` (what Hydra reads each config file with)
    parses with :func:`_omegaconf_c_loader`: the same configs, census_ir's composed with
    about a sixth less CPU time (0.24 s instead of 0.29 s; the rest is OmegaConf's nodes).
    Unchanged where PyYAML was built without libyaml."""
    from omegaconf import _utils

    if not yaml.__with_libyaml__:
        yield
        return
    loader = _omegaconf_c_loader()  # built from OmegaConf's own loader, before the swap
    original = _utils.get_yaml_loader
    _utils.get_yaml_loader = lambda: loader
    try:
        yield
    finally:
        _utils.get_yaml_loader = original


def inclusive_range(start: int, stop: int, step: int = 1) -> list[int]:
    """``${range:2,100}`` → [2, 3, …, 100] (both ends included, as the papers state ranges)."""
    return list(range(int(start), int(stop) + 1, int(step)))


def register_resolvers() -> None:
    """Register ``${range:start,stop[,step]}``."""
    if not OmegaConf.has_resolver("range"):
        OmegaConf.register_new_resolver("range", inclusive_range)


PAPER_PROFILE = "paper"
#: the configs ship inside the package (``anonlab/conf``, the repository's ``conf/`` in a
#: checkout), so an installed wheel finds them from any working directory
CONF_DIR = Path(__file__).resolve().parent / "conf"


#: the key of a composed config that holds the overrides it was composed from (set by
#: run.py from Hydra and by :func:`compose_config`; recorded in run.json, see
#: :mod:`anonlab.provenance`)
OVERRIDES_KEY = "overrides"
#: the keys of an experiment's ``experiment:`` block
EXPERIMENT_KEYS = ("name", "paper", "notes", "targets")


def check_experiment_keys(block: Mapping[str, Any], source: str = "") -> None:
    """Refuse a key of an ``experiment:`` block outside :data:`EXPERIMENT_KEYS` (a
    misspelt ``notes``, a ``title`` it does not have), naming ``source`` (its file) when
    given: a run and ``anonlab list`` refuse the same blocks."""
    unknown = sorted(set(block) - set(EXPERIMENT_KEYS))
    if unknown:
        raise ParameterError(
            f"{source + ': ' if source else ''}experiment has unknown key(s) {unknown}; "
            f"it has {', '.join(EXPERIMENT_KEYS)}"
        )


def experiment_name(block: Any) -> str:
    """The name of the run an ``experiment:`` block declares (``custom`` without one),
    once its keys are checked (:func:`check_experiment_keys`)."""
    if block is None:
        return "custom"
    if not isinstance(block, Mapping):
        raise ParameterError(f"experiment must be a mapping, got {block!r}")
    check_experiment_keys(block)
    return str(block.get("name") or "custom")


def open_override(override: str) -> str:
    """``grid.<axis>=…`` (or ``+grid.<axis>=…``) as Hydra's add-or-replace
    ``++grid.<axis>=…``; any other override unchanged. A run's grid axes are its methods'
    own (:mod:`anonlab.runner.validate` checks every key), not keys of the config, so each
    is set alike whether or not the experiment's grid already has it."""
    text = override.strip()
    bare = text.lstrip("+")
    if text.startswith("++") or not bare.startswith("grid.") or "=" not in bare:
        return override
    return f"++{bare}"


def compose_config(*overrides: str, conf_dir: Path = CONF_DIR) -> dict[str, Any]:
    """``conf/config.yaml`` composed with Hydra ``overrides`` (as on the command line) into a
    plain resolved dict, as ``run.py`` gets it; for scripts, benchmarks and tests. The
    overrides are kept under ``config["overrides"]``, as run.py keeps Hydra's, as given: a
    grid axis needs no ``+`` (:func:`open_override`). Inside a running Hydra app (a
    multirun), the app's own config dir is used."""
    from hydra import compose, initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    register_resolvers()
    opened = [open_override(o) for o in overrides]
    with omegaconf_on_libyaml():
        if GlobalHydra.instance().is_initialized():
            cfg = compose(config_name="config", overrides=opened)
        else:
            with initialize_config_dir(config_dir=str(conf_dir), version_base="1.3"):
                cfg = compose(config_name="config", overrides=opened)
    return {**OmegaConf.to_container(cfg, resolve=True), OVERRIDES_KEY: list(overrides)}


def apply_profile(config: Mapping[str, Any], keep: Sequence[str] = ()) -> dict[str, Any]:
    """``config`` with its ``profiles[profile]`` overrides merged in (lists replace),
    except those of the dotted keys in ``keep``: what the user set on the command line
    (``profile=quick reps=5`` runs 5 repetitions on the quick grid).

    ``profile=paper`` (the default) runs the papers' grids unchanged; another profile, such
    as ``quick``, must be declared by the experiment (``profiles: {quick: {grid: …}}``), or
    be empty. The merged config keeps ``profile`` and drops ``profiles``, so applying it
    twice changes nothing.
    """
    config = dict(config)
    profile = str(config.get("profile") or PAPER_PROFILE)
    profiles = config.pop("profiles", None) or {}
    if profile == PAPER_PROFILE:
        return config
    if not isinstance(profiles, Mapping) or profile not in profiles:
        declared = sorted(profiles) if isinstance(profiles, Mapping) else []
        raise ParameterError(
            f"profile={profile!r} is not declared by this experiment; "
            f"choose {PAPER_PROFILE!r} or one of {declared}"
        )
    chosen = OmegaConf.to_container(OmegaConf.create(profiles[profile] or {}))
    for key in keep:  # the user's own value wins over the profile's
        *path, last = key.split(".")
        node = chosen
        for part in path:
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(last, None)
    merged = OmegaConf.merge(OmegaConf.create(config), OmegaConf.create(chosen))
    return OmegaConf.to_container(merged, resolve=True)
