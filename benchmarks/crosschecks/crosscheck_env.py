"""A virtual environment of its own for each library a cross-check compares anonlab with.

Some of those libraries pin versions anonlab cannot share (anonymeter pins numpy < 1.27),
so each check runs the library in an environment built here, from the package registry,
once, under ``~/.cache/anonlab-crosscheck/<name>``, and exchanges files with anonlab's own
interpreter: anonlab writes the releases, the library's side reads them and writes what it
measured as JSON.

Usage from a check script: ``python_path = environment("pycanon", ["pycanon==1.3.6",
"pandas"])`` then ``run_external(python_path, script, folder)``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path

CACHE = Path(os.environ.get("ANONLAB_CROSSCHECK_CACHE", Path.home() / ".cache/anonlab-crosscheck"))


def environment(name: str, requirements: list[str]) -> Path:
    """The Python interpreter of environment ``name`` with ``requirements`` installed,
    built on first use (and rebuilt when the requirements change)."""
    folder = CACHE / name
    python = folder / "bin" / "python"
    stamp = folder / "requirements.json"
    if python.exists() and stamp.exists() and json.loads(stamp.read_text()) == requirements:
        return python
    print(f"building the {name} environment in {folder} (once)", file=sys.stderr)
    venv.EnvBuilder(with_pip=True, clear=True).create(folder)
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *requirements],
        check=True,
    )
    stamp.write_text(json.dumps(requirements))
    return python


def run_external(python: Path, script: Path, *args: str) -> None:
    """Run ``script`` with ``args`` under ``python`` (an environment's interpreter), with
    none of this interpreter's packages visible to it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    subprocess.run([str(python), str(script), *args], check=True, env=env)


def first_records(name: str, records: int):
    """Data set ``name`` (a ``conf/dataset`` config) cut to its first ``records`` rows, so
    that the slower libraries finish in minutes."""
    from dataclasses import replace

    from anonlab.config import compose_config
    from anonlab.datasets import load_dataset

    view = load_dataset(compose_config(f"dataset={name}")["dataset"])
    if view.n > records:
        view = replace(view, frame=view.frame.iloc[:records].reset_index(drop=True))
    return view
