"""Hydra entry point: ``python run.py +experiment=census_ir [overrides]``.

``plot_only=true`` redraws the figures and tables from a stored results table without
re-running. ``+experiment=all`` runs every paper experiment of the catalog
(:mod:`anonlab.catalog`, read from the main config dir, ``conf/`` or ``--config-path``), each
under its primary reading and then every other reading it declares, with the same
overrides, then writes the reproduction report. ``reading=NAME`` runs one experiment under a
declared reading; ``run.json`` records the run's overrides, reading and provenance
(:mod:`anonlab.provenance`).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import hydra
from hydra import compose
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from anonlab.catalog import experiments as catalog_experiments
from anonlab.config import OVERRIDES_KEY, PAPER_PROFILE, register_resolvers
from anonlab.provenance import override_key
from anonlab.runner import Experiment, build_experiment, render_experiment, run_experiment
from anonlab.validation import ParameterError
from data_fetch import ChecksumError

register_resolvers()
ERRORS = (ParameterError, TypeError, ChecksumError)


def fail(error: Exception) -> None:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)


def main_conf_dir() -> Path:
    """The main config dir of this Hydra run (``conf/``, or ``--config-path``)."""
    for source in HydraConfig.get().runtime.config_sources:
        if source.provider == "main" and source.schema == "file":
            return Path(source.path)
    raise ParameterError("+experiment=all: no main config dir")  # pragma: no cover


def experiments_of(config: dict[str, Any]) -> list[Experiment]:
    """The experiment of ``config``, or, under ``all_experiments``, every paper experiment
    of the catalog, under its primary reading and then each other reading, composed with
    this run's other overrides; all are validated before any work."""
    task = list(HydraConfig.get().overrides.task)
    if not config.get("all_experiments"):
        return [build_experiment({**config, OVERRIDES_KEY: task})]
    if config.get("reading") is not None:
        raise ParameterError("reading= names a reading of one experiment; +experiment=all "
                             "runs every experiment under each of its readings")
    overrides = [o for o in task if override_key(o) not in ("experiment", "reading")]
    experiments = []
    for entry in catalog_experiments(main_conf_dir()):
        for reading in [None, *(r.name for r in entry.alternatives)]:
            chosen = [f"+experiment={entry.name}", *overrides,
                      *([f"reading={reading}"] if reading else [])]
            composed = compose(config_name="config", overrides=chosen)
            experiments.append(build_experiment(
                {**OmegaConf.to_container(composed, resolve=True), OVERRIDES_KEY: chosen}))
    return experiments


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    config = OmegaConf.to_container(cfg, resolve=True)
    try:  # every check runs here, before any work or any write
        experiments = experiments_of(config)
        if config.get("plot_only"):
            for experiment in experiments:
                if not experiment.results_path.is_file():
                    raise ParameterError(
                        f"plot_only: no results at {str(experiment.results_path)!r}")
    except ERRORS as error:
        fail(error)
    for note in dict.fromkeys(n for experiment in experiments for n in experiment.notes):
        print(f"note: {note}", file=sys.stderr)
    for experiment in experiments:
        if config.get("plot_only"):
            paths = render_experiment(experiment)
        else:
            run_experiment(experiment, experiment.config)
            paths = [experiment.results_path, experiment.out_dir / "run.json"]
        for path in paths:
            print(path)
    if config.get("all_experiments"):
        from anonlab.report.site import build_report

        profile = str(config.get("profile") or PAPER_PROFILE)
        results = Path(str(config.get("results_dir", "results")))
        print(build_report(results if profile == PAPER_PROFILE else results / profile))


if __name__ == "__main__":
    main()
