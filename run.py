"""Hydra entry point: ``python run.py +experiment=census_ir [overrides]``.

``plot_only=true`` redraws the figures and tables from a stored results table without
re-running.
"""

from __future__ import annotations

import sys

import hydra
from omegaconf import DictConfig, OmegaConf

from anonlab.config import register_resolvers
from anonlab.runner import build_experiment, render_experiment, run_experiment
from anonlab.validation import ParameterError
from data_fetch import ChecksumError

register_resolvers()


@hydra.main(version_base="1.3", config_path="conf", config_name="config")
def main(cfg: DictConfig) -> None:
    config = OmegaConf.to_container(cfg, resolve=True)
    try:  # every check runs here, before any work or any write
        experiment = build_experiment(config)
        if config.get("plot_only") and not experiment.results_path.is_file():
            raise ParameterError(f"plot_only: no results at {str(experiment.results_path)!r}")
    except (ParameterError, TypeError, ChecksumError) as error:
        print(f"error: {error}", file=sys.stderr)
        sys.exit(2)
    if config.get("plot_only"):
        paths = render_experiment(experiment)
    else:
        run_experiment(experiment, experiment.config)
        paths = [experiment.results_path, experiment.out_dir / "run.json"]
    for path in paths:
        print(path)


if __name__ == "__main__":
    main()
