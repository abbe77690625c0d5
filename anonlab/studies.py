"""A study of one's own from Python: ``anonlab.study(frame, methods=…, grid=…, metrics=…)``.

It is ``anonlab run +experiment=study`` on a DataFrame: the same config, validation
(:func:`anonlab.runner.validate.validate`, before anything is written), engine (parallel
workers, seeds per cell and repetition, resume from a folder), results table and, on
request, the same figures. Its errors speak this interface's words (``domains=``,
``grid['k']``, not ``dataset.domains``, ``grid.k``); the command line's are the same
errors in its own.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from anonlab.api import DATA_DOMAINS, check_frame, protected_columns, python_words
from anonlab.config import OVERRIDES_KEY, compose_config
from anonlab.io import write_atomic
from anonlab.provenance import LABEL_LENGTH
from anonlab.runner.checkpoint import note
from anonlab.runner.experiment import build_experiment, run_experiment
from anonlab.runner.plan import plan
from anonlab.runner.validate import DEFAULT_MAX_HOURS, Declared, validate
from anonlab.validation import ParameterError

#: a study's name when neither ``name=`` nor ``frame.attrs["name"]`` gives one
DEFAULT_NAME = "data"
#: what a study's name may hold: it names a file, the figures and the results folder
NAME_PATTERN = re.compile(rf"[A-Za-z0-9_-]{{1,{LABEL_LENGTH}}}")


def study_name(frame: pd.DataFrame, name: Any = None) -> str:
    """The name a study of ``frame`` goes by: ``name``, else the frame's own
    (``frame.attrs["name"]``), else :data:`DEFAULT_NAME`; one :class:`ParameterError`
    naming ``name`` and the value unless it is 1 to 40 ASCII letters, digits, ``-`` or
    ``_``."""
    given, where = name, "name"
    if name is None:
        given, where = frame.attrs.get("name"), "name (from frame.attrs['name'])"
        if given is None:
            return DEFAULT_NAME
    if not isinstance(given, str) or not NAME_PATTERN.fullmatch(given):
        raise ParameterError(
            f"{where} must be 1 to {LABEL_LENGTH} letters (A-Z, a-z), digits, '-' or '_', "
            f"got {given!r}: it names the study's figures and results folder, e.g. "
            "name='patients'"
        )
    return given


def _listed(values: Any) -> str:
    """``values`` as the command line writes them: ``[2,5]``, or ``5`` for one value."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Sequence):
        return str(values)
    return "[" + ",".join(str(v) for v in values) + "]"


def _declared(config: dict[str, Any]) -> Declared:
    """:func:`~anonlab.runner.validate.validate` of ``config``, its errors in this
    interface's words."""
    try:
        return validate(config)
    except (ParameterError, TypeError) as error:
        raise type(error)(python_words(str(error))) from None


def study(
    frame: pd.DataFrame,
    methods: Sequence[str],
    grid: Mapping[str, Sequence[Any]] | None = None,
    metrics: Sequence[str] = ("re", "jsd"),
    *,
    name: str | None = None,
    columns: Sequence[str] | None = None,
    domains: Mapping[str, Sequence[float]] | str | None = None,
    hierarchies: Mapping[str, str] | None = None,
    roles: Mapping[str, str] | None = None,
    target: Mapping[str, Any] | None = None,
    alpha: float | None = None,
    integer: bool | Sequence[str] | str | None = None,
    reps: int = 5,
    seed: int | None = None,
    folder: str | Path | None = None,
    figures: bool = False,
    x: str | None = None,
    n_jobs: int = -1,
    max_hours: float = DEFAULT_MAX_HOURS,
) -> pd.DataFrame:
    """Run ``methods`` × ``grid`` on ``frame`` and measure ``metrics``: the tidy results.

    Parameters
    ----------
    frame : the records; numeric columns are numerical attributes, text columns
        categorical ones (a flat taxonomy unless ``hierarchies`` gives one).
    methods : registered methods (``anonlab.list_methods()``).
    grid : ``{axis: values}``, e.g. ``{"k": [2, 5, 10], "epsilon": [1.0]}``, a single
        value for one (``{"k": 5}``); exactly the axes the methods take, each method
        finding all of its own (a method drawn against an axis it does not take is a
        horizontal line), and the data view's ``m`` and ``alpha``.
    metrics : registered metrics (``anonlab.list_metrics()``).
    name : what the study is called: its figures name the data by it (titles ``… on
        patients``, a facet ``dataset = patients``) and its results are stored in
        ``<folder>/results/study~<name>-<8 hex digits>/``. 1 to 40 ASCII letters,
        digits, ``-`` or ``_``. By default the frame's own name, ``frame.attrs["name"]``,
        if it has one, else ``"data"``. It changes only names: the results table (whose
        ``dataset`` column says ``csv``, as for any CSV) and its seeds are the same
        whatever it is, and ``run.json`` records the path of the data's copy,
        ``data-<12 hex digits of its SHA-256>/<name>.csv``.
    columns : the attributes to protect, in order; by default every numeric column.
    domains : ``{column: [low, high]}`` public bounds, which the methods whose proof
        assumes them (DP, iDP, MST, AIM) need for every protected column; ``"data"`` reads
        them off the data (each release's guarantee then states, in its caveat, that
        its ε holds only if those bounds are public).
    hierarchies, roles, target, alpha, integer : as for :func:`anonlab.protect` and
        :func:`anonlab.evaluate` (``target``: ``{column, threshold, labels}``;
        ``integer``: the numeric columns declared whole-numbered, rounded after noise).
    reps : repetitions of each randomized cell.
    seed : the master seed (``None``: the engine's, as ``anonlab run`` uses); every cell
        and repetition draws from its own stream of it.
    folder : where the study is stored (data, results, figures): rerunning into it resumes
        and recomputes only what is missing. ``None``: a temporary folder, removed after.
    figures : also draw the figures (one per metric) into ``folder``.
    x : the figures' x axis (default: the swept axis with the most values).
    n_jobs : worker processes (``-1``: every core).
    max_hours : the longest the study may be estimated to take (each method's and
        metric's declared cost, :mod:`anonlab.runner.plan`), in hours; a longer one is
        refused before any job runs, naming the estimate and what costs most. The
        estimate is printed when it exceeds a minute.

    Returns
    -------
    pandas.DataFrame
        One row per dataset, method, parameters, repetition and metric, with the seed and
        the release's guarantee: the table ``anonlab run`` writes to ``results.parquet``.
    """
    check_frame(frame)
    name = study_name(frame, name)
    chosen = protected_columns(frame, columns, target, hierarchies)
    if isinstance(methods, str) or isinstance(metrics, str):
        raise ParameterError("methods and metrics must be lists of names, e.g. ['ir', 'mdav']")
    if grid is not None and not isinstance(grid, Mapping):
        raise ParameterError(f"grid must be a mapping {{axis: [values]}}, got {grid!r}")
    if folder is None and figures:
        raise ParameterError("figures=True draws into a folder: give folder=")
    text = [c for c in chosen if not pd.api.types.is_numeric_dtype(frame[c])]
    numeric = [c for c in chosen if c not in text]
    keep = folder is not None
    root = Path(folder).expanduser() if keep else Path(tempfile.mkdtemp(prefix="anonlab-"))
    try:
        data = frame.to_csv(index=False)
        # the copy is named as the study, so that figures and folder name it (the copy's
        # stem, anonlab.datasets.sources.shown_name); its folder, by the data's digest,
        # keeps other data under the same name apart
        path = root / f"data-{hashlib.sha256(data.encode()).hexdigest()[:12]}" / f"{name}.csv"
        config = compose_config("+experiment=study")
        dataset = {
            **config["dataset"],
            "path": str(path),
            "numeric": numeric,
            "categorical": text or None,
            "hierarchies": dict(hierarchies) if hierarchies else None,
            "domains": domains if isinstance(domains, str) else dict(domains or {}) or None,
            "roles": dict(roles) if roles else None,
            "target": dict(target) if target else None,
            "integer": integer
            if integer is None or isinstance(integer, (bool, str))
            else list(integer),
        }
        if alpha is not None:
            dataset["alpha"] = alpha
        overrides = [
            "+experiment=study",
            "dataset=csv",
            f"dataset.path={path}",
            f"methods={_listed(methods)}",
            f"metrics={_listed(metrics)}",
            *(f"grid.{axis}={_listed(values)}" for axis, values in (grid or {}).items()),
        ]
        config |= {
            "dataset": {
                k: v for k, v in dataset.items() if v is not None or k in config["dataset"]
            },
            "methods": list(methods),
            "metrics": list(metrics),
            "grid": dict(grid or {}),
            "reps": reps,
            "n_jobs": n_jobs,
            "max_hours": max_hours,
            "results_dir": str(root / "results"),
            "figures": "auto" if figures else [],
            "figure_x": x,
            "interface": "python",
            OVERRIDES_KEY: overrides,
        }
        if seed is not None:
            config["seed"] = seed
        declared = _declared(config)  # every parameter, before anything is written
        path.parent.mkdir(parents=True, exist_ok=True)
        if not path.is_file():  # a full disk leaves no half-written copy (anonlab.io)
            write_atomic(path, lambda tmp: tmp.write_text(data, encoding="utf-8"))
        try:
            experiment = build_experiment(declared)
            said = plan([experiment], declared.max_hours)  # refused above max_hours
        except ParameterError as error:
            raise ParameterError(python_words(str(error))) from None
        if said:
            note(said)
        table = run_experiment(experiment, experiment.config, progress=False)
    finally:
        if not keep:
            shutil.rmtree(root, ignore_errors=True)
    return table


__all__ = ["DATA_DOMAINS", "DEFAULT_NAME", "python_words", "study", "study_name"]
