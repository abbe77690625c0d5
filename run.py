"""Entry point: ``python run.py +experiment=census_ir [overrides]``, the same as the console
command ``anonlab run +experiment=census_ir [overrides]`` (:mod:`anonlab.cli`).

``plot_only=true`` redraws the figures and tables from a stored results table without
re-running. ``+experiment=all`` runs every paper experiment of the catalog
(:mod:`anonlab.catalog`, read from ``conf/`` or ``--config-path``), each under its primary
reading and then every other reading it declares, with the same overrides, then writes the
reproduction report. ``reading=NAME`` runs one experiment under a declared reading;
``run.json`` records the run's overrides, reading and provenance (:mod:`anonlab.provenance`).

Every bad input, the config's own composition errors included, is one ``error:`` line and
exit status 2 before any work. A Hydra multirun (``-m``) or any other Hydra flag goes
through :func:`hydra.main`.
"""

from __future__ import annotations

import sys

from anonlab import cli

if __name__ == "__main__":
    sys.exit(cli.console(["run", *sys.argv[1:]]))
