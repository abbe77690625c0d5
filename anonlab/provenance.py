"""Is a run the paper's, and where does it write?

A run is recorded (``run.json``) with the overrides it was composed from, its reading and its
provenance, ``"paper"``, ``"own"`` (an experiment of one's own, which names no paper) or
``"custom"`` (:func:`provenance`). A paper run writes to
``<results_dir>/<experiment>/`` (``<experiment>@<reading>/`` for a non-primary reading); a
custom run never writes there unless asked: it writes to ``<experiment>~<label>/``
(:func:`custom_label`), or to the folder named by ``run_name``, used as is
(:func:`run_folder`).

What code computed a run is :func:`source_digest`: a SHA-256 over the package's Python
files and YAML configs, which a Dask run compares between this process and every worker.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path, PurePath

from anonlab.validation import ParameterError

PAPER = "paper"
#: an experiment of one's own (``experiment.paper: null``) run as its YAML declares it
OWN = "own"
CUSTOM = "custom"
#: keys an override may set and still leave the run the paper's (see :func:`provenance`)
PAPER_KEYS = frozenset(
    {
        "experiment",
        "profile",
        "n_jobs",
        "max_hours",
        "seed",
        "reps",
        "results_dir",
        "plot_only",
        "reading",
        "stage",
        "fanout",
    }
)
#: config groups whose every key leaves the run the paper's: ``runner=dask``,
#: ``runner.address=…``, ``hydra.*``, ``hydra/launcher=…``
PAPER_GROUPS = ("runner", "hydra")
_COMPRESSED = (".gz", ".bz2", ".xz", ".zip", ".zst")
#: the folder whose code :func:`source_digest` hashes: the imported package's own
PACKAGE_DIR = Path(__file__).resolve().parent
#: the files that make up the code and configs of a run (data and caches do not)
SOURCE_SUFFIXES = (".py", ".yaml", ".yml")


def override_key(override: str) -> str:
    """The config key an override string sets: ``+grid.k=[2]`` → ``grid.k``,
    ``~dataset.domains`` → ``dataset.domains``, ``dataset=csv`` → ``dataset``,
    ``/dataset@datasets.mcd=census_hcd`` → ``dataset@datasets.mcd``."""
    return override.strip().lstrip("~+").split("=", 1)[0].strip().lstrip("/")


def _value(override: str) -> str:
    value = override.split("=", 1)[1].strip() if "=" in override else ""
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        value = value[1:-1]
    return value


def is_paper_override(override: str) -> bool:
    """Whether one override leaves the run the paper's (:func:`provenance`)."""
    key = override_key(override)
    return key in PAPER_KEYS or any(
        key == group or key.startswith((f"{group}.", f"{group}/")) for group in PAPER_GROUPS
    )


def provenance(overrides: Iterable[str], *, paper: bool = True) -> str:
    """``"paper"`` when the run's data and parameters are the paper's, ``"own"`` when they
    are those its experiment declares and that experiment names no paper (``paper=False``:
    ``experiment.paper: null``, an experiment of one's own), else ``"custom"``.

    The rule, on the Hydra overrides the run was composed from (``+experiment=…`` included):
    a run is the paper's when every override sets one of

    - ``experiment`` (``+experiment=census_ir``: which paper experiment),
    - ``reading`` (a declared reading of the paper, recorded beside it),
    - ``profile`` (``quick``: the experiment's own declared reduced grid, in its own folder),
    - ``seed`` and ``reps`` (other draws, or fewer of them, of the same experiment), and
      ``stage`` (``confirmatory``: the pre-registered seed, :mod:`anonlab.preregistration`),
    - ``n_jobs``, ``max_hours``, ``runner`` / ``runner.*``, ``fanout``, ``results_dir``,
      ``plot_only``, ``hydra.*`` (where and how it runs, never what it computes).

    Any other override makes it custom: another data set (``dataset=…``, ``dataset.*``,
    ``datasets.*``), another grid (``grid.*``), ``methods``, ``metrics``, ``options.*``, the
    experiment's name, and ``run_name`` too (choosing the folder is for custom runs; a
    paper run's folder is the experiment's). A config built without Hydra overrides
    (``[]``) is taken as the paper's (as its experiment's, for one of one's own).
    """
    if not all(is_paper_override(o) for o in overrides):
        return CUSTOM
    return PAPER if paper else OWN


def custom_overrides(overrides: Iterable[str]) -> list[str]:
    """The overrides that make a run custom, sorted."""
    return sorted(o.strip() for o in overrides if not is_paper_override(o))


#: the longest data set name a folder label keeps (:func:`custom_label`)
LABEL_LENGTH = 40


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "_", text).strip("_-")[:LABEL_LENGTH]


def file_stem(path: str | PurePath) -> str:
    """The name of the data a file holds: its stem, a compression suffix dropped first
    (``patients`` for ``/x/patients.csv``, ``y`` for ``y.csv.gz``)."""
    name = PurePath(str(path)).name
    for suffix in _COMPRESSED:
        name = name.removesuffix(suffix)
    return PurePath(name).stem


def _data_key(key: str) -> str:
    """The data set an override's key configures: ``dataset`` for ``dataset``,
    ``dataset.path``; ``datasets.mcd`` for ``dataset@datasets.mcd``, ``datasets.mcd.path``."""
    if "@" in key:
        return key.split("@", 1)[1]
    return key.rsplit(".", 1)[0] if "." in key else key


def custom_label(overrides: Iterable[str]) -> str:
    """The folder suffix of a custom run: each data set that is overridden, by its name
    as the figures show it (an explicit ``dataset.name``, else its file's stem when its
    ``path`` is overridden, else the dataset config's name), then 8 hex digits of a hash of
    the sorted non-paper overrides; e.g. ``mine-1a2b3c4d`` for ``dataset=csv
    dataset.path=/data/mine.csv …``, ``adult-1a2b3c4d`` for ``dataset=adult …``,
    ``1a2b3c4d`` for ``grid.k=[2,10]``. The same overrides, in any order, give the same
    label."""
    custom = custom_overrides(overrides)
    configs: dict[str, str] = {}  # data set → its config's name, file stem or own name
    stems: dict[str, str] = {}
    named: dict[str, str] = {}
    for override in custom:
        key, value = override_key(override), _value(override)
        if not value:
            continue
        if key.split("@", 1)[0] == "dataset":
            configs[_data_key(key)] = value  # dataset=csv, /dataset@datasets.mcd=census_hcd
        elif re.fullmatch(r"(dataset|datasets\.[^.]+)\.path", key):
            stems[_data_key(key)] = file_stem(value)
        elif re.fullmatch(r"(dataset|datasets\.[^.]+)\.name", key):
            named[_data_key(key)] = value
    shown = [
        named.get(data) or stems.get(data) or configs.get(data, "")
        for data in dict.fromkeys([*configs, *stems, *named])
    ]
    digest = hashlib.sha256("\n".join(custom).encode()).hexdigest()[:8]
    return "-".join([*(s for s in map(_slug, shown) if s), digest])


def check_run_name(run_name: str) -> str:
    """``run_name`` as a folder name: no path separator, not ``.`` or ``..``."""
    name = str(run_name).strip()
    if not name or name in (".", "..") or "/" in name or "\\" in name:
        raise ParameterError(f"run_name must be a folder name (no '/'), got {run_name!r}")
    return name


def run_folder(
    experiment: str,
    *,
    reading: str | None = None,
    overrides: Iterable[str] = (),
    run_name: str | None = None,
) -> str:
    """The run's folder under ``results_dir`` (and its profile):

    - ``run_name`` when given, as is (even the paper experiment's own name: asked to);
    - ``<experiment>`` for the paper's run, ``<experiment>@<reading>`` for a non-primary
      reading;
    - either followed by ``~<label>`` (:func:`custom_label`) for a custom run.
    """
    if run_name not in (None, ""):
        return check_run_name(str(run_name))
    overrides = list(overrides)
    folder = experiment + (f"@{reading}" if reading else "")
    if provenance(overrides) == CUSTOM:
        folder += f"~{custom_label(overrides)}"
    return folder


def source_digest(root: Path | None = None) -> str:
    """SHA-256 (hex) over the package's code and configs: every ``.py`` and YAML file under
    ``root`` (default :data:`PACKAGE_DIR`, its linked ``conf/``, ``experiments/`` and
    ``data_fetch/`` included), by relative path and contents, ``__pycache__`` left out.
    Two processes with the same digest run the same code whatever their git state; about
    10 ms for 170 files, computed once per process and folder."""
    return _digest(Path(root or PACKAGE_DIR).resolve())


@cache
def _digest(root: Path) -> str:
    digest = hashlib.sha256()
    for folder, subfolders, files in os.walk(root, followlinks=True):
        subfolders[:] = sorted(s for s in subfolders if s != "__pycache__")
        for name in sorted(f for f in files if f.endswith(SOURCE_SUFFIXES)):
            path = Path(folder) / name
            digest.update(path.relative_to(root).as_posix().encode() + b"\0")
            digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


__all__ = [
    "CUSTOM",
    "LABEL_LENGTH",
    "OWN",
    "PAPER",
    "PAPER_GROUPS",
    "PAPER_KEYS",
    "check_run_name",
    "custom_label",
    "custom_overrides",
    "file_stem",
    "is_paper_override",
    "override_key",
    "provenance",
    "run_folder",
    "source_digest",
]
