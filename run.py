"""Hydra entry point: ``python run.py +experiment=census_ir [overrides]``.

``plot_only=true`` redraws the figures and tables from a stored results table without
re-running. ``+experiment=all`` runs every experiment listed in ``all_experiments`` with
the same overrides, then writes the reproduction report.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import hydra
from hydra import compose
from hydra.core.hydra_config import HydraConfig
from omegaconf import DictConfig, OmegaConf

from anonlab.config import PAPER_PROFILE, register_resolvers
from anonlab.runner import Experiment, build_experiment, render_experiment, run_experiment
from anonlab.validation import ParameterError
from data_fetch import ChecksumError

register_resolvers()
ERRORS = (ParameterError, TypeError, ChecksumError)


def fail(error: Exception) -> None:
    print(f"error: {error}", file=sys.stderr)
    sys.exit(2)


def experiments_of(config: dict[str, Any]) -> list[Experiment]:
    """The experiment of ``config``, or every experiment of ``all_experiments`` composed
    with this run's other overrides; all are validated before any work."""
    names = config.get("all_experiments")
    if not names:
        return [build_experiment(config)]
    overrides = [o for o in HydraConfig.get().overrides.task
                 if not o.lstrip("+").startswith("experiment=")]
    experiments = []
    for name in names:
        composed = compose(config_name="config", overrides=[f"+experiment={name}", *overrides])
        experiments.append(build_experiment(OmegaConf.to_container(composed, resolve=True)))
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
