"""The command line: ``anonlab run +experiment=census_ir [overrides]`` (the same as
``python run.py +experiment=census_ir [overrides]``), ``anonlab report [DIR]`` and
``anonlab list [--config-dir DIR]``.

:func:`run` composes the config from ``conf/`` (or ``--config-path``) and the overrides,
validates every experiment it names (:func:`declared_runs`: the engine's first stage,
:mod:`anonlab.runner.validate`, before any data is read, worker started or kernel
loaded), then builds them, plans their cost (:func:`planned`: refused above
``max_hours``) and only then runs them, with a worker pool only where the planned work pays
for one (:func:`sized`). Every bad input, the
config composition's own errors included, ends in one ``error: …`` line on stderr and exit
status 2, before any work and before any write. A Hydra multirun (``-m``) and Hydra's own
flags go through :func:`hydra.main` in ``run.py`` instead, which reports composition
errors its own way and then calls :func:`execute` for each run.
"""

from __future__ import annotations

import difflib
import gc
import math
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.errors import HydraException
from omegaconf.errors import OmegaConfBaseException

from anonlab.catalog import experiment_names
from anonlab.catalog import experiments as catalog_experiments
from anonlab.config import CONF_DIR, CONFIRMATORY, PAPER_PROFILE, compose_config
from anonlab.data_fetch import ChecksumError
from anonlab.io import StorageError, storage_error
from anonlab.preregistration import staged
from anonlab.provenance import override_key
from anonlab.runner import pool
from anonlab.runner.validate import check_fanout, validate
from anonlab.validation import ParameterError, cap_n_jobs

if TYPE_CHECKING:  # the runner (pandas, numba) is imported once the worker pool is starting
    from anonlab.runner import Declared, Experiment

#: what a bad input raises; each becomes one ``error:`` line and exit status 2
ERRORS = (ParameterError, TypeError, ChecksumError, HydraException, OmegaConfBaseException)
USAGE_ERROR = 2
INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a program stopped by Ctrl-C
STORAGE_FAILED = 1  # the storage refused a write (anonlab.io.StorageError)


def error_line(error: BaseException) -> str:
    """``error`` as one ``error: …`` line (Hydra's messages span several lines)."""
    lines = [line.strip() for line in str(error).splitlines() if line.strip()]
    text = " ".join(lines) or type(error).__name__
    text = text.split(" Config search path:")[0]  # Hydra's list of where it looked
    return f"error: {text.removeprefix('Error: ')}"


def check_syntax(overrides: Sequence[str]) -> None:
    """Raise a :class:`ParameterError` naming the first override that is not valid Hydra
    override syntax."""
    parser = OverridesParser.create()
    for override in overrides:
        try:
            parser.parse_overrides([override])
        except HydraException as error:
            reason = " ".join(str(error).split()).split(" See ")[0]
            raise ParameterError(
                f"override {override!r} is not valid: {reason} (a value holding spaces, "
                "parentheses, commas or other symbols is quoted: "
                """'dataset.numeric=["width (cm)",age]')"""
            ) from None


def declared_runs(
    config: dict[str, Any], overrides: Sequence[str], conf_dir: Path
) -> list[Declared]:
    """The runs ``config`` declares, each validated
    (:func:`~anonlab.runner.validate.validate`) before any data is read, worker started or
    kernel loaded: its experiment or, under ``all_experiments``, every paper experiment of
    the catalog in ``conf_dir`` (those ``experiments=[…]`` picks), under its primary
    reading and then each other reading (the primary only under ``stage=confirmatory``,
    whose verdicts are the primary reading's), composed with the other ``overrides``. Under
    ``plot_only`` each must have its stored results."""
    check_fanout(config)
    picked = chosen_experiments(config, conf_dir)
    if not config.get("all_experiments"):
        runs = [validate(staged(config))]
    else:
        if config.get("reading") is not None:
            raise ParameterError(
                "reading= names a reading of one experiment; +experiment=all "
                "runs every experiment under each of its readings"
            )
        skipped = ("experiment", "reading", "experiments")
        rest = [o for o in overrides if override_key(o) not in skipped]
        # the confirmatory run confirms the primary reading's claims: no other reading
        confirmatory = str(config.get("stage") or "") == CONFIRMATORY
        runs = []
        for entry in catalog_experiments(conf_dir):
            if picked is not None and entry.name not in picked:
                continue
            others = () if confirmatory else tuple(r.name for r in entry.alternatives)
            for reading in [None, *others]:
                composed = [
                    f"+experiment={entry.name}",
                    *rest,
                    *([f"reading={reading}"] if reading else []),
                ]
                runs.append(validate(staged(compose_config(*composed, conf_dir=conf_dir))))
    if config.get("plot_only"):
        for run in runs:
            if not run.results_path.is_file():
                raise ParameterError(f"plot_only: no results at {str(run.results_path)!r}")
    return runs


def experiments_of(
    config: dict[str, Any], overrides: Sequence[str], conf_dir: Path
) -> list[Experiment]:
    """The experiments of :func:`declared_runs`, built (:func:`prepare`)."""
    return prepare(config, declared_runs(config, overrides, conf_dir), conf_dir)[0]


def chosen_experiments(config: Mapping[str, Any], conf_dir: Path) -> list[str] | None:
    """The experiments ``experiments=[…]`` picks out of ``+experiment=all`` (``None``: every
    one), each a name of the catalog; one :class:`ParameterError` naming the key for a
    value that is not a list of names, an unknown name (with the nearest), or the key
    without ``+experiment=all``."""
    chosen = config.get("experiments")
    if chosen is None:
        return None
    if not config.get("all_experiments"):
        raise ParameterError(
            "experiments=[…] picks experiments of +experiment=all; add +experiment=all "
            "(or run one experiment with +experiment=NAME)"
        )
    if isinstance(chosen, str):
        chosen = [chosen]
    if (
        not isinstance(chosen, Sequence)
        or not chosen
        or not all(isinstance(n, str) for n in chosen)
    ):
        raise ParameterError(f"experiments must be a list of experiment names, got {chosen!r}")
    names = list(experiment_names(conf_dir))
    for name in chosen:
        if name not in names:
            near = difflib.get_close_matches(name, names, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise ParameterError(f"experiments: no experiment {name!r}{hint} (one of {names})")
    return list(chosen)


def checked_claims(experiment: Experiment, conf_dir: Path = CONF_DIR) -> Experiment:
    """``experiment``, once the paper's claims in its config (judged later by the report)
    are well formed: the engine runs without knowing them, the command refuses a malformed
    one before any work. A claim about a method or axis a user left out is "not
    checkable" in the report, not an error (tests/report/test_claims.py checks every shipped claim
    against its experiment). Its config's claims are resolved
    (:func:`~anonlab.catalog.resolved_claims`: ``paper`` and ``notes`` inherited from the
    experiment), so run.json records each claim as the report judges and digests it."""
    from dataclasses import replace

    from anonlab.catalog import resolved_claims
    from anonlab.report.claims import parse_claims

    claims = resolved_claims(experiment.config, conf_dir)
    parse_claims(claims)
    return replace(experiment, config={**experiment.config, "claims": claims})


def prepare(
    config: dict[str, Any], runs: Sequence[Declared], conf_dir: Path
) -> tuple[list[Experiment], dict[Path, Any]]:
    """The experiments of the validated ``runs`` (:func:`declared_runs`), fitted to their
    data with their claims checked, and, under ``plot_only``, their stored results tables
    (by results path; each read once, a damaged one rebuilt from its parts or refused,
    before any figure is written); raises one of :data:`ERRORS`."""
    from anonlab.runner import build_experiment
    from anonlab.runner.render import stored_results

    if config.get("fanout"):  # its workers have one thread each
        from anonlab.runner.fanout import check_fanout

        check_fanout(config)
    experiments = [checked_claims(build_experiment(run), conf_dir) for run in runs]
    tables = {}
    if config.get("plot_only"):
        for experiment in experiments:
            tables[experiment.results_path] = stored_results(experiment)
    return experiments, tables


def planned(
    config: dict[str, Any], runs: Sequence[Declared], experiments: list[Experiment]
) -> list[Experiment]:
    """The built ``experiments`` of ``runs`` once their cost is planned
    (:func:`~anonlab.runner.plan.plan`), before any job: refused (a
    :class:`ParameterError` naming ``max_hours``) when estimated above the runs'
    ``max_hours``, and said in the first experiment's notes when above a minute. A redraw
    (``plot_only``) computes nothing and is not planned."""
    return planned_work(config, runs, experiments)[0]


def planned_work(
    config: dict[str, Any], runs: Sequence[Declared], experiments: list[Experiment]
) -> tuple[list[Experiment], float | None]:
    """:func:`planned`'s experiments and the seconds of work (on one core) their plan
    estimates (``None`` for a redraw, which is not planned)."""
    from dataclasses import replace

    from anonlab.runner.plan import planned_total

    if config.get("plot_only") or not experiments:
        return experiments, None
    total, said = planned_total(experiments, min(run.max_hours for run in runs))
    work = None if total is None else total.work
    if said is None:
        return experiments, work
    first = experiments[0]
    return [replace(first, notes=(*first.notes, said)), *experiments[1:]], work


def sized(
    config: dict[str, Any], experiments: list[Experiment], work: float | None
) -> list[Experiment]:
    """The planned ``experiments`` of a local run with the processes their ``work``
    (:func:`planned_work`) pays for: for :data:`~anonlab.runner.pool.POOL_SECONDS` or
    more, the pool, started now unless :func:`warm_pool` did; below that the grid runs in
    this process (``n_jobs=1``: a worker's start, its imports, or the shipping of jobs to
    one, would cost more than it takes off), its figures too. A redraw, a Dask run and a
    run with one process are left as they are."""
    from dataclasses import replace

    runner = config.get("runner") or {}
    if work is None or config.get("fanout") or runner.get("name", "local") != "local":
        return experiments
    if work >= pool.POOL_SECONDS:
        if not pool.running():
            warm_pool(config)
        return experiments
    return [e if e.n_jobs == 1 else replace(e, n_jobs=1) for e in experiments]


def execute(
    config: dict[str, Any], experiments: Sequence[Experiment], tables: dict[Path, Any]
) -> None:
    """Run (or, under ``plot_only``, redraw from ``tables``, :func:`prepare`'s) validated
    ``experiments``, printing each
    file written, each experiment as one Dask task under ``fanout``
    (:mod:`anonlab.runner.fanout`); under ``all_experiments``, then write the
    reproduction report."""
    from anonlab.report.looks import run_later_looks
    from anonlab.runner import render_experiment, run_experiment
    from anonlab.runner.experiment import written_files

    for note in dict.fromkeys(n for experiment in experiments for n in experiment.notes):
        print(f"note: {note}", file=sys.stderr)
    if config.get("fanout") and not config.get("plot_only"):  # one Dask task each
        from anonlab.runner.fanout import fan_out

        runner = experiments[0].runner
        for paths in fan_out(experiments, runner.address, experiments[0].n_jobs):
            print(*paths, sep="\n")
        experiments = []
    for experiment in experiments:
        if config.get("plot_only"):
            paths = render_experiment(experiment, tables[experiment.results_path])
        else:
            run_experiment(experiment, experiment.config)
            # the pre-registered plan's later looks, for the claims that need one
            paths = written_files(experiment) + run_later_looks(experiment)
        for path in paths:
            print(path)
    if config.get("all_experiments"):
        from anonlab.report.site import build_report

        profile = str(config.get("profile") or PAPER_PROFILE)
        results = Path(str(config.get("results_dir", "results")))
        print(build_report(results if profile == PAPER_PROFILE else results / profile))


def split_config_dirs(argv: Sequence[str]) -> tuple[Path, list[Path], list[str]]:
    """The config dir (``--config-path DIR`` / ``--config-path=DIR``, else ``conf/``), the
    folders of one's own added beside it (``--config-dir DIR``, ``-cd``, each a folder, in
    the order given) and the other arguments."""
    conf_dir, own, rest, args = CONF_DIR, [], [], list(argv)
    while args:
        arg = args.pop(0)
        flag, equals, value = arg.partition("=")
        if flag in ("--config-path", "-cp", "--config-dir", "-cd"):
            if not equals:
                if not args:
                    raise ParameterError(f"{arg} needs a folder")
                value = args.pop(0)
            folder = Path(value).expanduser().resolve()
            if flag in ("--config-path", "-cp"):
                conf_dir = folder
            elif not folder.is_dir():
                raise ParameterError(f"{flag}={value!r} is not a folder")
            else:
                own.append(folder)
        else:
            rest.append(arg)
    if not (conf_dir / "config.yaml").is_file():
        raise ParameterError(f"--config-path={str(conf_dir)!r} holds no config.yaml")
    return conf_dir, own, rest


def split_config_path(argv: Sequence[str]) -> tuple[Path, list[str]]:
    """The config dir (``--config-path DIR`` / ``--config-path=DIR``, else ``conf/``) and
    the overrides. ``--config-dir DIR`` (``-cd``) adds a folder of one's own to the search
    path, as Hydra's flag does: ``DIR/experiment/NAME.yaml`` runs as ``+experiment=NAME``
    beside the package's configs (the override ``hydra.searchpath=[file://DIR]``)."""
    conf_dir, own, overrides = split_config_dirs(argv)
    if own:
        overrides.append(f"hydra.searchpath=[{','.join(f.as_uri() for f in own)}]")
    return conf_dir, overrides


#: a run declaring at least this many jobs (cell × repetition, :func:`declared_jobs`)
#: starts its pool as soon as it is validated, so that the workers' imports overlap this
#: process's: their bookkeeping alone (:data:`~anonlab.runner.plan.JOB_SECONDS` each)
#: makes the work that pays for a pool; a smaller run waits for its plan (:func:`sized`)
EARLY_JOBS = 3000


def declared_jobs(runs: Sequence[Declared]) -> int:
    """At most how many jobs ``runs`` declare, known before any data are read: per method,
    the product of the numbers of values of the grid axes it takes and of the data view's,
    times the repetitions (a deterministic method runs once a cell: fewer) and the data
    sets."""
    from anonlab.runner.validate import components

    parts = components()
    total = 0
    for run in runs:
        datasets = len(run.config.get("datasets") or {}) or 1
        for method in run.methods:
            taken = {*parts.method(method).axes, *parts.view_axes}
            grid = {**run.grid, **(run.grid_by_method.get(method) or {})}
            cells = math.prod(
                len(values) if isinstance(values, list | tuple) else 1
                for axis, values in grid.items()
                if axis in taken
            )
            total += cells * run.reps * datasets
    return total


def declared_figures(runs: Sequence[Declared]) -> int:
    """How many figures ``runs`` draw: those each declares, or a study's one per metric."""
    return sum(
        len(run.metrics) if run.study else len(run.config.get("figures") or ()) for run in runs
    )


def warm_pool(config: dict[str, Any], runs: Sequence[Declared] | None = None) -> None:
    """Start a local run's worker pool now (:func:`anonlab.runner.pool.warm_up`), once the
    run is validated, so its workers import while this process imports the runner and
    builds the experiments (a redraw too: its figures are then drawn in parallel); an
    invalid ``n_jobs`` (validation refuses it first) starts nothing.

    Given the validated ``runs``, only where workers are sure to pay: a run declaring
    :data:`EARLY_JOBS` jobs or more (a smaller run's plan decides, :func:`sized`), a
    redraw of two figures or more, drawn in parallel by workers that import the figures
    only (:data:`~anonlab.runner.pool.DRAWING_MODULES`). A small run's figures are drawn
    here: each process pays the first figure's imports and fonts, so a second process
    would take off little more than a second figure, the cheaper one."""
    n_jobs = config.get("n_jobs", -1)
    runner = config.get("runner") or {}
    if (
        runner.get("name", "local") != "local"
        or not isinstance(n_jobs, int)
        or isinstance(n_jobs, bool)
        or n_jobs == 0
    ):
        return
    if runs is None:
        pool.warm_up(cap_n_jobs(n_jobs)[0])
    elif config.get("plot_only"):
        if declared_figures(runs) > 1:
            pool.warm_up(cap_n_jobs(n_jobs)[0], pool.DRAWING_MODULES)
    elif declared_jobs(runs) >= EARLY_JOBS:
        pool.warm_up(cap_n_jobs(n_jobs)[0])


#: the config keys whose override composes a run of one's own without an experiment: its
#: data set, methods, metrics and grid (each makes the run custom, :mod:`anonlab.provenance`)
OWN_RUN_KEYS = frozenset(
    {"dataset", "datasets", "methods", "metrics", "metrics_by_attribute", "grid", "grid_by_method"}
)
#: Hydra flags after which the command runs nothing (help, the composed config, shell
#: completion) or takes its run from elsewhere (another primary config, a pickled run)
HYDRA_NOT_A_RUN = frozenset(
    {
        *("-h", "--help", "--hydra-help", "--version", "-c", "--cfg", "--resolve"),
        *("-p", "--package", "-i", "--info", "-sc", "--shell-completion"),
        *("-cn", "--config-name", "--experimental-rerun"),
    }
)
#: Hydra flags followed by a value (not an override)
HYDRA_VALUE_FLAGS = frozenset({"-cp", "--config-path", "-cd", "--config-dir"})


def experiment_given(overrides: Sequence[str]) -> bool:
    """Whether ``overrides`` name what to run: an experiment (``+experiment=NAME``), or a
    run of one's own through its data set, methods, metrics or grid (:data:`OWN_RUN_KEYS`).
    Overrides of where and how a run goes (``n_jobs``, ``results_dir``, ``seed``, ``reps``,
    ``profile``, ``runner``, ``hydra`` …) name nothing to run."""
    for override in overrides:
        key = override_key(override)
        root = key.split("@", 1)[0].split("/", 1)[0].split(".", 1)[0]
        if key == "experiment" or root in OWN_RUN_KEYS:
            return True
    return False


def hydra_run_overrides(argv: Sequence[str]) -> list[str] | None:
    """The overrides of a Hydra command line (:func:`hydra_mode`) that runs, or None when
    it shows something or takes its run from elsewhere (:data:`HYDRA_NOT_A_RUN`)."""
    overrides, args = [], list(argv)
    while args:
        arg = args.pop(0)
        flag = arg.split("=", 1)[0]
        if flag in HYDRA_NOT_A_RUN:
            return None
        if arg in HYDRA_VALUE_FLAGS:
            args[:1] = []
        elif not arg.startswith("-"):
            overrides.append(arg)
    return overrides


def no_experiment_usage(conf_dir: Path = CONF_DIR) -> str:
    """What to run, for a command line that names nothing to run (:func:`experiment_given`):
    the paper experiments of ``conf_dir``, ``all``, a study of one's own data and
    ``anonlab list``."""
    from anonlab.listing import list_experiments

    experiments = list_experiments(conf_dir)
    width = max(len("+experiment=all"), *(len(f"+experiment={n}") for n in experiments.index))
    lines = [
        "usage: anonlab run +experiment=NAME [overrides]  (or: python run.py +experiment=NAME …)",
        "",
        "Regenerate a figure or table of the papers:",
        *(
            f"  {'+experiment=' + name:{width}}  {row.paper} {row.targets}: {row.description}"
            for name, row in experiments.iterrows()
        ),
        f"  {'+experiment=all':{width}}  all of them, then the reproduction report "
        "(profile=quick: reduced grids)",
        "",
        "Study your own data:",
        "  anonlab run +experiment=study dataset=csv dataset.path=FILE dataset.numeric=[…] "
        "methods=[…] metrics=[…] grid.k=[…]",
        "",
        "Every method, metric, data set and experiment: anonlab list",
    ]
    return "\n".join(lines)


def run(argv: Sequence[str]) -> int:
    """Run the command line ``argv`` (overrides, and optionally ``--config-path``);
    returns the exit status: 0, or 2 after one ``error:`` line for a bad input, or after
    the usage text when it names nothing to run (:func:`experiment_given`)."""
    try:  # every check runs here, before any work or any write
        conf_dir, overrides = split_config_path(argv)
        check_syntax(overrides)
        if not experiment_given(overrides):
            return no_experiment(conf_dir)
        config = compose_config(*overrides, conf_dir=conf_dir)
        runs = declared_runs(config, overrides, conf_dir)  # no data, worker or kernel yet
        warm_pool(config, runs)
        experiments, tables = prepare(config, runs, conf_dir)
        experiments, work = planned_work(config, runs, experiments)  # before any job
        experiments = sized(config, experiments, work)  # a pool where it pays
    except ERRORS as error:
        print(error_line(error), file=sys.stderr)
        return USAGE_ERROR
    execute(config, experiments, tables)
    return 0


def no_experiment(conf_dir: Path = CONF_DIR) -> int:
    """Print what to run (:func:`no_experiment_usage`) and an ``error:`` line on stderr;
    returns the usage status, 2, having run and written nothing."""
    print(no_experiment_usage(conf_dir), file=sys.stderr)
    print("error: no experiment given; choose one above (+experiment=NAME)", file=sys.stderr)
    return USAGE_ERROR


def hydra_mode(argv: Sequence[str]) -> bool:
    """Whether ``argv`` needs Hydra's own command line (multirun, ``--cfg``, ``--help``,
    launchers …): any flag other than ``--config-path`` and ``--config-dir``."""
    own = ("--config-path", "-cp", "--config-dir", "-cd")
    return any(a.startswith("-") and a.partition("=")[0] not in own for a in argv)


def listing(conf_dir: Path = CONF_DIR, own: Sequence[Path] = ()) -> str:
    """What exists, a line each with its description (:mod:`anonlab.listing`): every
    registered method (with the grid axes it depends on and its guarantee), metric, grid
    axis, data set config, data source and paper experiment, and the data set configs and
    experiments of the folders of one's own ``own`` (``--config-dir DIR``)."""
    import anonlab.listing as tables
    from anonlab.datasets import LOADERS

    lines = ["methods (name, grid axes: description; guarantee):"]
    lines += [
        f"  {name:24} {row['axes'] or '-':10} {row.description}"
        f"\n  {'':24} {'':10} guarantee: {row.guarantee}"
        for name, row in tables.list_methods().iterrows()
    ]
    lines += ["", "metrics:"]
    lines += [f"  {name:24} {row.description}" for name, row in tables.list_metrics().iterrows()]
    lines += ["", "grid axes (grid.NAME=[…]; label, values, of):"]
    lines += [
        f"  {name:24} {row.label}: {row['values']}; {row.of}"
        for name, row in tables.list_axes().iterrows()
    ]
    lines += ["", f"data sets (dataset=NAME; loaders {', '.join(LOADERS)}):"]
    lines += [
        f"  {name:24} {row.description}"
        for name, row in tables.list_datasets(conf_dir, own).iterrows()
    ]
    lines += ["", "data sources (dataset.loader=NAME):"]
    lines += [f"  {name:24} {row.description}" for name, row in tables.list_sources().iterrows()]
    lines += ["", "experiments (+experiment=NAME):"]
    lines += [
        f"  {name:24} {row.paper} {row.targets}: {row.description}"
        for name, row in tables.list_experiments(conf_dir).iterrows()
    ]
    for name, row in tables.list_own_experiments(own, conf_dir).iterrows():
        line = f"  {name:24} own ({row.folder})" + (f" {row.targets}" if row.targets else "")
        lines.append(line + (f": {row.description}" if row.description else ""))
    return "\n".join(lines)


def console(argv: Sequence[str] | None = None) -> int:
    """:func:`main` as a process's entry point (``anonlab`` and ``run.py``): the worker
    pool is stopped when the command ends (:func:`anonlab.runner.pool.stop`), its workers
    killed if it ends on an error or Ctrl-C rather than left to finish their batches. Ctrl-C
    ends in one ``interrupted:`` line saying how many jobs are stored and where, and exit
    status 130; a write the storage refuses (a full disk, :class:`~anonlab.io.StorageError`)
    in one ``error:`` line naming the folder, and exit status 1."""
    try:
        status = main(argv)
    except KeyboardInterrupt as stop:  # Ctrl-C: one line, the shell's status for SIGINT
        pool.stop(kill=True)
        line = getattr(stop, "line", None)
        print(line() if line else "interrupted; run the same command to resume", file=sys.stderr)
        return INTERRUPTED
    except OSError as error:  # a full disk, a quota, a file size limit, a read-only folder
        pool.stop(kill=True)
        where = Path(error.filename).parent if error.filename else Path.cwd()
        refused = storage_error(error, where)
        if refused is None:
            raise
        print(f"error: {refused}", file=sys.stderr)
        return STORAGE_FAILED
    except BaseException:
        pool.stop(kill=True)
        raise
    pool.stop()
    gc.freeze()  # the process ends next: no collection needs to walk its objects again
    return status


def main(argv: Sequence[str] | None = None) -> int:
    """The ``anonlab`` console command: ``run`` (Hydra overrides, as ``python run.py``),
    ``report [DIR]`` and ``list``; returns the exit status."""
    import argparse

    args = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="anonlab", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "run", help="run an experiment: anonlab run +experiment=NAME [...]", add_help=False
    )
    commands.add_parser(
        "report", help="write the reproduction report of DIR (results)", add_help=False
    )
    commands.add_parser(
        "list",
        help="list methods, metrics, data sets and experiments ([--config-dir DIR]: and yours)",
    )
    if args[:1] in (["-h"], ["--help"]):
        parser.print_help()
        return 0
    if not args or args[0] not in ("run", "report", "list"):
        parser.print_usage(sys.stderr)
        print(f"error: choose a command: run, report or list, got {args[:1]}", file=sys.stderr)
        return USAGE_ERROR
    command, rest = args[0], args[1:]
    if command == "run":
        if hydra_mode(rest):  # a multirun or a Hydra flag: Hydra's own command line
            overrides = hydra_run_overrides(rest)
            if overrides is not None and not experiment_given(overrides):
                try:
                    conf_dir, _ = split_config_path(rest)
                    return no_experiment(conf_dir)
                except ERRORS as error:
                    print(error_line(error), file=sys.stderr)
                    return USAGE_ERROR
            if overrides is not None and any(a in ("-m", "--multirun") for a in rest):
                try:  # every job of the sweep is valid before the first one runs
                    check_multirun(overrides, split_config_path(rest)[0])
                except ERRORS as error:
                    print(error_line(error), file=sys.stderr)
                    return USAGE_ERROR
            return hydra_run(rest)
        return run(rest)
    if command == "report":
        from anonlab.report.__main__ import main as report

        return report(rest)
    try:  # the folders of one's own, as `run` takes them
        conf_dir, own, rest = split_config_dirs(rest)
        if rest:
            raise ParameterError(
                f"anonlab list takes no arguments but --config-dir DIR, got {rest}"
            )
        text = listing(conf_dir, own)
    except ERRORS as error:
        print(error_line(error), file=sys.stderr)
        return USAGE_ERROR
    print(text)
    return 0


def multirun_jobs(overrides: Sequence[str]) -> tuple[list[list[str]], set[str]] | None:
    """The overrides of each job of a Hydra multirun of ``overrides``, in Hydra's order
    (the product of the swept values, as its basic sweeper runs them), without Hydra's own
    (``hydra.*``, ``hydra/…``), which choose where and how jobs run, not what; and the
    swept keys. ``None`` when another sweeper chooses the jobs (``hydra/sweeper=…``)."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper

    keys = [override_key(o) for o in overrides]
    if any(k.startswith(("hydra/sweeper", "hydra.sweeper")) for k in keys):
        return None
    ours = [o for o, k in zip(overrides, keys, strict=True) if not k.startswith("hydra")]
    parsed = OverridesParser.create().parse_overrides(ours)
    swept = {o.get_key_element() for o in parsed if o.is_sweep_override()}
    jobs = [job for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]
    return jobs, swept


def check_multirun(overrides: Sequence[str], conf_dir: Path) -> None:
    """Validate every job of a Hydra multirun of ``overrides`` (:func:`multirun_jobs`) as
    :func:`run` validates one, before any job runs; raises one of :data:`ERRORS` naming
    the first bad job and its swept values."""
    jobs, swept = multirun_jobs(overrides) or ([], set())
    for number, job in enumerate(jobs if len(jobs) > 1 else [], start=1):
        try:
            config = compose_config(*job, conf_dir=conf_dir)
            runs = declared_runs(config, job, conf_dir)
            planned(config, runs, prepare(config, runs, conf_dir)[0])
        except ERRORS as error:
            values = " ".join(o for o in job if o.split("=", 1)[0] in swept)
            message = error_line(error).removeprefix("error: ")
            raise ParameterError(
                f"multirun job {number} of {len(jobs)} ({values}): {message}"
            ) from None


def hydra_run(argv: Sequence[str]) -> int:
    """``argv`` through :func:`hydra.main` (multirun, launchers, ``--cfg``): each run is
    validated and executed as :func:`run` does; a grid axis needs no ``+`` here either
    (:func:`~anonlab.config.open_override`), and each run records its overrides as given."""
    import hydra
    from hydra.core.hydra_config import HydraConfig
    from omegaconf import DictConfig, OmegaConf

    from anonlab.config import OVERRIDES_KEY, open_override, register_resolvers

    register_resolvers()
    # the prefix ("" or "+") each opened grid override was given with, by key
    given = {
        override_key(a): a.strip()[: len(a.strip()) - len(a.strip().lstrip("+"))]
        for a in argv
        if open_override(a) != a
    }

    def as_given(override: str) -> str:
        key = override_key(override)
        return given[key] + override[2:] if override.startswith("++") and key in given else override

    def main_conf_dir() -> Path:
        for source in HydraConfig.get().runtime.config_sources:
            if source.provider == "main" and source.schema == "file":
                return Path(source.path)
        return CONF_DIR  # pragma: no cover

    @hydra.main(version_base="1.3", config_path=str(CONF_DIR), config_name="config")
    def one_run(cfg: DictConfig) -> None:
        overrides = [as_given(o) for o in HydraConfig.get().overrides.task]
        config = {**OmegaConf.to_container(cfg, resolve=True), OVERRIDES_KEY: overrides}
        try:
            runs = declared_runs(config, overrides, main_conf_dir())
            experiments, tables = prepare(config, runs, main_conf_dir())
            experiments = planned(config, runs, experiments)
        except ERRORS as error:
            print(error_line(error), file=sys.stderr)
            sys.exit(USAGE_ERROR)
        try:
            execute(config, experiments, tables)
        except StorageError as error:  # one line, not Hydra's report of an exception
            pool.stop(kill=True)
            print(f"error: {error}", file=sys.stderr)
            sys.exit(STORAGE_FAILED)

    program = sys.argv[0]
    sys.argv = [program, *map(open_override, argv)]  # Hydra reads its command line here
    try:
        one_run()
    finally:
        sys.argv = [program, *sys.argv[1:]]
    return 0


if __name__ == "__main__":  # python -m anonlab.cli, as the anonlab command
    sys.exit(console())
