"""Entry point: ``python run.py +experiment=census_ir [overrides]``.

``plot_only=true`` redraws the figures and tables from a stored results table without
re-running. ``+experiment=all`` runs every paper experiment of the catalog
(:mod:`anonlab.catalog`, read from ``conf/`` or ``--config-path``), each under its primary
reading and then every other reading it declares, with the same overrides, then writes the
reproduction report. ``reading=NAME`` runs one experiment under a declared reading;
``run.json`` records the run's overrides, reading and provenance (:mod:`anonlab.provenance`).

A plain run goes through :func:`anonlab.cli.run`: every bad input, the config's own
composition errors included, is one ``error:`` line and exit status 2 before any work. A
Hydra multirun (``-m``) or any other Hydra flag goes through :func:`hydra.main`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import hydra
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from anonlab import cli
from anonlab.config import OVERRIDES_KEY, register_resolvers

register_resolvers()


def main_conf_dir() -> Path:
    """The main config dir of this Hydra run (``conf/``, or ``--config-path``)."""
    for source in HydraConfig.get().runtime.config_sources:
        if source.provider == "main" and source.schema == "file":
            return Path(source.path)
    return cli.CONF_DIR  # pragma: no cover


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def hydra_main(cfg: DictConfig) -> None:
    """One run of a Hydra multirun: validated, then executed, as :func:`anonlab.cli.run`."""
    overrides = list(HydraConfig.get().overrides.task)
    config = {**OmegaConf.to_container(cfg, resolve=True), OVERRIDES_KEY: overrides}
    try:
        experiments = cli.prepare(config, overrides, main_conf_dir())
    except cli.ERRORS as error:
        print(cli.error_line(error), file=sys.stderr)
        sys.exit(cli.USAGE_ERROR)
    cli.execute(config, experiments)


if __name__ == "__main__":
    if cli.hydra_mode(sys.argv[1:]):
        hydra_main()
    else:
        sys.exit(cli.run(sys.argv[1:]))
