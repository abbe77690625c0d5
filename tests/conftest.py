"""Shared fixtures: Hydra composition of the real configs, small data sets; and the tiers:
a test that is not marked ``integration`` (a module's ``pytestmark``) is marked ``unit``,
so ``pytest -m unit`` runs the fast tier and ``pytest -m integration`` the rest."""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests import composition

# numpy, pandas and anonlab are imported where used: the xdist controller, which runs no
# test, loads this file too, before it starts the workers

# The suite keeps bytecode caches (``__pycache__``, ignored by git) even where
# PYTHONDONTWRITEBYTECODE is set: without them every worker compiles, and pytest
# rewrites, each module of the package and of the suite afresh, which measured 40 s of
# collection against 16 s with them.
sys.dont_write_bytecode = False

# jax's persistent compilation cache, kept like the bytecode caches (under .pytest_cache,
# ignored by git): without it each worker compiles MST's and AIM's estimators afresh,
# about 9 s of tests/methods/test_synthetic.py's 17 s. The size cap turns on jax's file
# lock, so two workers never read an entry while the other writes it. A run's own
# settings, if any, win.
for _flag, _value in {
    "JAX_COMPILATION_CACHE_DIR": str(Path(__file__).resolve().parents[1] / ".pytest_cache/jax"),
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_COMPILATION_CACHE_MAX_SIZE": str(2**30),
}.items():
    os.environ.setdefault(_flag, _value)


@functools.cache
def _composed(overrides: tuple[str, ...]) -> dict:
    """``conf/`` composed with ``overrides``, once per process (a composition costs about
    0.2 s, and ``conf/`` does not change while the suite runs)."""
    from anonlab import config

    return config.compose_config(*overrides)


@pytest.fixture(scope="session")
def compose_config():
    """Compose ``conf/`` with overrides into a plain resolved dict, as run.py does: each
    call returns a fresh copy, the caller's to edit. Another ``conf_dir`` (a scratch copy a
    test may change) is composed on every call."""
    from anonlab import config

    def compose(*overrides: str, conf_dir: Path = config.CONF_DIR) -> dict:
        if Path(conf_dir) != config.CONF_DIR:
            return config.compose_config(*overrides, conf_dir=conf_dir)
        return copy.deepcopy(_composed(overrides))

    return compose


@pytest.fixture
def user_csv(tmp_path: Path) -> Path:
    """A user's CSV: two numeric columns (one integer) and a text column."""
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    frame = pd.DataFrame(
        {
            "income": rng.gamma(2.0, 20_000.0, size=60).round(2),
            "age": rng.integers(18, 90, size=60),
            "city": rng.choice(["a", "b"], size=60),
        }
    )
    path = tmp_path / "mine.csv"
    frame.to_csv(path, index=False)
    return path


@pytest.fixture
def conf_copy(tmp_path: Path):
    """``conf_copy(*keep, **files)``: a copy of ``conf/`` under ``tmp_path`` with
    ``tests/fixtures/fixture_readings.yaml`` added as an experiment, only the experiments
    ``keep`` (all when empty, ``all`` always) and ``files`` written as
    ``experiment/<name>.yaml``; for anonlab.catalog and run.py with ``--config-path``."""
    import shutil

    root = Path(__file__).resolve().parents[1]

    def _copy(*keep: str, **files: str) -> Path:
        conf = tmp_path / "conf"
        shutil.copytree(root / "conf", conf, dirs_exist_ok=True)
        shutil.copy(
            root / "tests" / "fixtures" / "fixture_readings.yaml",
            conf / "experiment" / "fixture_readings.yaml",
        )
        if keep:
            for path in (conf / "experiment").glob("*.yaml"):
                if path.stem not in {*keep, "all"}:
                    path.unlink()
        for name, text in files.items():
            (conf / "experiment" / f"{name}.yaml").write_text(text, encoding="utf-8")
        return conf

    return _copy


def run_command(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``python run.py *args`` run from ``cwd``: in this process through
    :func:`anonlab.cli.main` (what run.py calls; no interpreter start-up per call), or in a
    real process for a Hydra multirun (``-m``), which Hydra drives from ``sys.argv``."""
    from anonlab import cli

    root = Path(__file__).resolve().parents[1]
    if any(a in ("-m", "--multirun") for a in args):
        return subprocess.run(
            [sys.executable, str(root / "run.py"), *args],
            capture_output=True,
            text=True,
            cwd=cwd or root,
            timeout=300,
        )
    out, err, before = io.StringIO(), io.StringIO(), os.getcwd()
    try:
        os.chdir(cwd or root)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = cli.main(["run", *args])
    finally:
        os.chdir(before)
    return subprocess.CompletedProcess(["run.py", *args], status, out.getvalue(), err.getvalue())


def _parse_each_yaml_once() -> None:
    """Hydra reads every config file of ``conf/`` again at each composition (much of a
    composition's time, and this suite composes hundreds of times), and test modules read
    the configs with :func:`yaml.safe_load` as they are collected. Here
    :meth:`omegaconf.OmegaConf.load` and :func:`yaml.safe_load` keep what they read of
    each text and return a copy of it for the same text again (unpickled: a deep copy made
    in C, in less than half the time): the same config, node for node (``safe_load`` on
    libyaml's parser, as the package reads YAML). The key is
    the text itself, so a file a test edits is read afresh; a text that does not parse
    raises as before, naming its file (nothing is kept)."""
    import yaml
    from omegaconf import OmegaConf

    from anonlab.config import load_yaml

    load, safe_load = OmegaConf.load, yaml.safe_load
    if getattr(load, "parsed", None) is not None:
        return
    parsed: dict[str | bytes, bytes] = {}
    safe_parsed: dict[str, bytes] = {}

    def load_once(file_):
        if isinstance(file_, (str, os.PathLike)):
            name = os.path.abspath(file_)
            with open(name, encoding="utf-8") as f:
                text = f.read()
        elif hasattr(file_, "read"):
            name, text = getattr(file_, "name", None), file_.read()
        else:
            return load(file_)  # what omegaconf refuses, refused alike

        def parse():
            stream = io.StringIO(text) if isinstance(text, str) else io.BytesIO(text)
            if name is not None:
                stream.name = name  # YAML errors name the file, as they did
            return load(stream)

        return composition.copy_kept(parsed, text, parse)

    def safe_load_once(stream):
        if not isinstance(stream, str):
            return safe_load(stream)
        # on libyaml's parser, as the package reads YAML
        return composition.copy_kept(safe_parsed, stream, lambda: load_yaml(stream))

    load_once.parsed = parsed
    OmegaConf.load = staticmethod(load_once)
    yaml.safe_load = safe_load_once


#: the garbage collector's thresholds where tests run, from the start of collection:
#: Python's own for the young generations, which still free the cycles a test leaves
#: behind, and no full collection but those a library or test asks for
#: (``gc.collect()``). A full one walks every object the imports made (matplotlib,
#: scikit-learn, JAX), about 0.25 s each: in each worker of the default run, 20 to 36 of
#: them took 5.1 to 5.4 s of its 7.2 to 8.4 s of collecting. With only the full
#: collections libraries ask for (8 a worker), collecting took 3.8 to 4.0 s, and a
#: worker's memory peaked at 0.92 to 0.97 GB instead of 0.81 to 0.93 GB.
GC_THRESHOLDS = (700, 10, 1_000_000)


@pytest.hookimpl(tryfirst=True)  # before Hypothesis loads a --hypothesis-profile
def pytest_configure(config: pytest.Config) -> None:
    # an xdist worker, or a run without workers (an xdist controller runs no test)
    runs_tests = hasattr(config, "workerinput") or not getattr(config.option, "numprocesses", None)
    if runs_tests or config.getoption("--hypothesis-profile"):
        # an xdist controller runs no test: it imports Hypothesis (0.4 s before the
        # workers start) only to load a profile it is given
        from tests import properties

        properties.register()  # the default run takes half of each test's examples
    if runs_tests:
        import gc

        gc.set_threshold(*GC_THRESHOLDS)
        _parse_each_yaml_once()
        # each config tree's choice of groups composed once, for every worker and run
        composition.install(Path(__file__).resolve().parents[1] / ".pytest_cache/compositions")


def pytest_collection_finish(session: pytest.Session) -> None:
    """Once the tests are collected, move what collecting made (the package, its
    libraries, the test modules: alive until the run ends) out of the garbage collector's
    sight, after one full collection: a full collection during the tests (only those a
    library or test asks for, :data:`GC_THRESHOLDS`) then walks only what the tests
    make, and what the tests make stays in its sight."""
    _collect_and_freeze()


@pytest.hookimpl(optionalhook=True)  # an xdist hook: the controller's, as a worker ends
def pytest_testnodedown(node, error) -> None:
    """When the first worker has ended, the controller imports what Hypothesis's terminal
    summary will import (its package, 0.4 to 0.5 s) on the core that worker freed, while
    the other worker still runs its last tests: not after every worker has ended, with
    both cores idle."""
    import hypothesis.internal.observability  # noqa: F401


def pytest_unconfigure(config: pytest.Config) -> None:
    """Before pytest's last garbage collections (five full ones, which free what is left
    and report the unraisable errors of its finalizers), collect once here and move what
    survives out of the collector's sight: pytest's five then walk only what this one's
    finalizers made, not the whole heap the tests made and imported (about 0.2 s a walk
    in a worker, while the controller waits for it to end), nor all the reports the
    controller keeps."""
    _collect_and_freeze()


def _collect_and_freeze() -> None:
    """One full garbage collection, then what survives moved out of the collector's sight
    (:func:`gc.freeze`)."""
    import gc

    gc.collect()
    gc.freeze()


#: the mark expressions that select the unit tier alone, and the default run (pyproject.toml)
UNIT_TIER = {"unit", "not integration"}
DEFAULT_TIER = {"not slow"}


def _module_marks(path: Path) -> set[str]:
    """The marks module ``path`` gives all its tests (``pytestmark``), e.g. ``{"integration"}``.
    Only the assignment is parsed (from its first line, as many lines as it spans), not the
    whole module: this runs for every test file in every worker."""
    import ast

    lines = path.read_text(encoding="utf-8").splitlines()
    for start, line in enumerate(lines):
        if not line.startswith("pytestmark"):
            continue
        for stop in range(start + 1, len(lines) + 1):
            try:
                node = ast.parse("\n".join(lines[start:stop])).body[0]
            except SyntaxError:
                continue
            if not isinstance(node, ast.Assign):
                break
            value = node.value
            marks = value.elts if isinstance(value, (ast.List, ast.Tuple)) else [value]
            return {ast.unparse(mark).removeprefix("pytest.mark.") for mark in marks}
    return set()


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """A module none of whose tests the run selects is not imported: under ``-m unit`` one
    marked integration or slow as a whole, by default (``-m 'not slow'``) one marked slow.
    Its imports and assertion rewriting would cost each worker seconds for tests
    deselected anyway. Any other run collects everything."""
    expression = (config.option.markexpr or "").strip()
    skipped = {"integration", "slow"} if expression in UNIT_TIER else {"slow"}
    if expression not in UNIT_TIER | DEFAULT_TIER:
        return None
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        return True if _module_marks(collection_path) & skipped else None
    return None


def _starts_a_costly_setup(item: pytest.Item) -> bool:
    """Whether ``item`` starts what a process pays for once: JAX, by the synthetic
    baselines (its import and the compilation of their estimators, about 5 s), or the
    NHDS 2010 stand-in of Patient Discharge (2.4 s to decompress and parse)."""
    words = ("test_synthetic.py", "test_tcm_datasets.py", "patient_discharge")
    return any(w in item.nodeid for w in words) or any(
        f"[{name}" in item.nodeid for name in _synthetic_methods()
    )


@functools.cache
def _synthetic_methods() -> tuple[str, ...]:
    """The registered methods built on JAX (:mod:`anonlab.methods.synthetic`)."""
    from anonlab.methods import METHODS

    return tuple(
        name
        for name, method in METHODS.items()
        if method.__module__.startswith("anonlab.methods.synthetic")
    )


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test that is neither an integration test nor a slow one as a unit test,
    and every Hypothesis test as a property test (CI runs these again with all their
    examples, :mod:`tests.properties`). Then run first the tests that start a costly
    setup (:func:`_starts_a_costly_setup`), in their order: the scheduler hands the first
    worker the front of the queue and steals from its end, so one worker pays for each
    setup instead of every worker (in the default run, JAX had cost 11.6 s and 5.8 s of
    sampled time in the two workers, NHDS 4.5 s and 3.2 s)."""
    for item in items:
        if item.get_closest_marker("integration") is None and not item.get_closest_marker("slow"):
            item.add_marker(pytest.mark.unit)
        if getattr(getattr(item, "obj", None), "is_hypothesis_test", False):
            item.add_marker(pytest.mark.property)
    items.sort(key=lambda item: not _starts_a_costly_setup(item))  # stable: order kept
