"""Measure every time README.md and the user guide (docs/guide/) quote as the user waits
it: the wall-clock time of the whole command, in a fresh process each time (interpreter
start-up, imports, config, workers, figures and tables included), the median of
``--repeats`` runs.

Usage: ``python benchmarks/timings/bench_readme_times.py [--only NAME …] [--repeats 3] [--long]
[--compile]``

The commands (``--only`` picks some; the default is every one but the long ones):

- ``census_ir_first``: ``python run.py +experiment=census_ir results_dir=FRESH`` right
  after numba's cache is deleted (the ``*.nbi``/``*.nbc`` files in ``anonlab/**/__pycache__``;
  nothing is restored, the run writes them again): the first run after an install, which
  compiles the kernels it calls. Each such run is checked to have compiled (numba's
  ``NUMBA_DEBUG_CACHE`` lines are counted), since another process using this checkout
  could write the cache in between.
- ``census_ir_first_n1``: the same with ``n_jobs=1`` (one process compiles; with
  ``n_jobs=-1`` the worker compiles the same kernels again).
- ``census_ir``: the same command with the cache written (every later run), into a fresh
  folder each time.
- ``census_ir_redraw``: ``plot_only=true`` on the stored results of the last run.
- ``study`` and ``study_no_figures``: the README's study (``+experiment=study`` on
  ``docs/examples/people.csv``, 3 methods × 4 k × 2 metrics, 5 repetitions), with its two
  figures and with ``figures=[]``, alternated run by run: the figures' cost is the
  difference of the medians.
- ``investigations``: ``python -m anonlab.experiments.investigations`` (the list) and
  ``… <claim_id>`` for each claim with an investigation (docs/guide/reproducing.md:
  "in 2 to 9 s").
- with ``--long``: ``pytest`` (``python -m pytest -q``, the whole suite, about 2 minutes
  a run) and ``all`` (``python run.py +experiment=all``, the papers' grids, half an hour:
  once).

``--compile`` breaks a first run of ``census_ir`` down instead: numba's cache deleted, every
compilation of a kernel timed in each process, the command's and its pool workers'
(``Dispatcher.compile``, wrapped by a ``sitecustomize`` module: inclusive of the kernels it
calls, and its own), with ``n_jobs=-1`` (the default) and ``n_jobs=1``, each followed by
the same run with the cache written (each kernel's load). Then, on an empty cache again,
census_ir and small runs that call every other kernel (MDAV, TCM Algorithms 1–3), one
after another: each kernel's first compilation. It also imports every kernel module on an
empty cache and counts the compilations that importing triggers.

A shared machine's speed drifts with its load: each command prints
:func:`os.getloadavg` before and after, and the whole run starts and ends with a fixed
interpreter loop (median of 5), so compare runs only at similar loads. The runs write
Python's bytecode caches, as a user's do (``PYTHONDONTWRITEBYTECODE`` is dropped).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

from benchmarks.timings.bench_runs import calibrate  # the same machine-speed yardstick

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "anonlab"
RUN = [sys.executable, str(ROOT / "run.py")]
INVESTIGATIONS = [sys.executable, "-m", "anonlab.experiments.investigations"]
LONG = ("pytest", "all")
#: the kernel modules (numba, ``cache=True``) and the worker pool's imports
KERNEL_MODULES = (
    "anonlab.microaggregation.kernels",
    "anonlab.microaggregation.ir_kernels",
    "anonlab.metrics.kernels",
    "anonlab.methods.kernels",
    "anonlab.tcloseness.emd_kernels",
    "anonlab.tcloseness.kfirst",
    "anonlab.tcloseness.merge",
    "anonlab.tcloseness.tfirst",
    "anonlab.runner.execute",
)


def load() -> str:
    return "load " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def numba_cache_files() -> list[Path]:
    return [
        path for pattern in ("*.nbi", "*.nbc") for path in PACKAGE.rglob(f"__pycache__/{pattern}")
    ]


def clear_numba_cache() -> int:
    """Delete numba's cache beside the modules; the number of files deleted."""
    files = numba_cache_files()
    for path in files:
        path.unlink(missing_ok=True)
    return len(files)


def user_env(**extra: str) -> dict[str, str]:
    """This environment as a user's: Python writes its bytecode caches (a sandbox's
    ``PYTHONDONTWRITEBYTECODE`` would recompile every module of the package on every run)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, **extra}


def wall(
    command: list[str], env: dict[str, str] | None = None, check: bool = True
) -> tuple[float, str]:
    """Wall seconds of one run of ``command`` from the checkout, and its stdout; a failure
    stops the benchmark with its output (under ``check``; else it is reported)."""
    clock = time.perf_counter()
    done = subprocess.run(
        command, cwd=ROOT, capture_output=True, text=True, env=user_env(**(env or {}))
    )
    elapsed = time.perf_counter() - clock
    if done.returncode and not check:
        print(f"  exit status {done.returncode}: {done.stdout.strip().splitlines()[-1:]}")
    elif done.returncode:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed, done.stdout


#: the README's study: ``anonlab run +experiment=study …`` on the example CSV
STUDY = [
    "+experiment=study",
    "dataset.path=docs/examples/people.csv",
    "dataset.numeric=[age,hours.week,balance.eur]",
    "dataset.domains={age: [0, 120], hours.week: [0, 100], balance.eur: [-20000, 20000]}",
    "methods=[ir,ir_laplace,mdav]",
    "metrics=[re,jsd]",
    "grid.k=[2,5,10,20]",
    "grid.epsilon=[1.0]",
]


def time_study(repeats: int, scratch: Path) -> None:
    """The README's study with and without its figures, alternated run by run."""
    times: dict[str, list[float]] = {"study": [], "study_no_figures": []}
    for i in range(repeats):
        for name, extra in (("study", []), ("study_no_figures", ["figures=[]"])):
            command = [*RUN, *STUDY, f"results_dir={scratch}/{name}{i}", *extra]
            times[name].append(wall(command)[0])
    for name, values in times.items():
        report(name, [*RUN, *STUDY, *(["figures=[]"] if "no" in name else [])], values)
    extra = statistics.median(times["study"]) - statistics.median(times["study_no_figures"])
    print(f"the study's figures add {extra:.2f} s to the median", flush=True)


def census_ir(results: Path, *extra: str) -> list[str]:
    return [*RUN, "+experiment=census_ir", f"results_dir={results}", *extra]


def report(name: str, command: list[str], times: list[float], note: str = "") -> None:
    shown = " ".join(str(c) for c in command).replace(sys.executable, "python")
    print(
        f"{name}: median {statistics.median(times):.2f} s wall "
        f"(runs {', '.join(f'{t:.2f}' for t in times)}){note}\n  {shown}",
        flush=True,
    )


def time_first(name: str, repeats: int, scratch: Path, *extra: str) -> None:
    times, compiled = [], []
    for i in range(repeats):
        clear_numba_cache()
        command = census_ir(scratch / f"{name}{i}", *extra)
        seconds, out = wall(command, env={"NUMBA_DEBUG_CACHE": "1"})
        times.append(seconds)
        compiled.append(len(set(re.findall(r"data saved to '([^']+)'", out))))
    report(name, command, times, f", kernel signatures compiled per run {compiled}")


def time_command(name: str, command: list[str], repeats: int, check: bool = True) -> list[float]:
    times = [wall(command, check=check)[0] for _ in range(repeats)]
    report(name, command, times)
    return times


def time_investigations(repeats: int) -> None:
    _, listing = wall(INVESTIGATIONS)
    claims = listing.split()
    time_command("investigations (list)", INVESTIGATIONS, repeats)
    medians = {}
    for claim in claims:
        medians[claim] = statistics.median(
            wall([*INVESTIGATIONS, claim])[0] for _ in range(repeats)
        )
        print(f"  {claim:48} {medians[claim]:6.2f} s", flush=True)
    values = sorted(medians.values())
    print(
        f"investigations: {len(values)} claims, median of each over {repeats} runs: "
        f"min {values[0]:.2f} s, median {statistics.median(values):.2f} s, "
        f"max {values[-1]:.2f} s ({max(medians, key=medians.get)})",
        flush=True,
    )


# --- the first run's compile breakdown ---------------------------------------------------

#: a ``sitecustomize`` module that times every compilation of a kernel of the package in
#: each process that starts with it on its path (the command and its pool workers), and
#: writes them to ``$BENCH_COMPILE_OUT/<pid>.json`` after each one
SITECUSTOMIZE = r"""
import json, os, time
from pathlib import Path

OUT = Path(os.environ["BENCH_COMPILE_OUT"])
records, stack = [], []


def _install():
    from numba.core.dispatcher import Dispatcher

    original = Dispatcher.compile

    def timed_compile(self, sig):
        key = f"{self.py_func.__module__}.{self.py_func.__qualname__}"
        if not key.startswith("anonlab."):  # numba's own overloads: the caller's time
            return original(self, sig)
        known, hits = len(self.overloads), sum(self._cache_hits.values())
        stack.append(0.0)
        clock = time.perf_counter()
        try:
            return original(self, sig)
        finally:
            seconds = time.perf_counter() - clock
            children = stack.pop()
            if stack:
                stack[-1] += seconds
            if len(self.overloads) > known:  # a new signature, compiled or loaded
                how = "loaded" if sum(self._cache_hits.values()) > hits else "compiled"
                records.append({"kernel": key, "sig": str(sig), "inclusive": seconds,
                                "exclusive": seconds - children, "depth": len(stack),
                                "how": how})
                (OUT / f"{os.getpid()}.json").write_text(json.dumps(records))

    Dispatcher.compile = timed_compile


class _Hook:  # wrap numba's dispatcher once it is imported (and only if it is)
    def find_spec(self, name, path=None, target=None):
        if name != "numba.core.dispatcher":
            return None
        from importlib.machinery import PathFinder

        spec = PathFinder.find_spec(name, path)
        exec_module = spec.loader.exec_module

        def exec_and_install(module):
            exec_module(module)
            _install()

        spec.loader.exec_module = exec_and_install
        return spec


import sys
sys.meta_path.insert(0, _Hook())
"""
#: small runs that call every kernel but census_ir's: MDAV (insensitive MDAV), TCM
#: Algorithms 1-3 (merging, k-first, t-first) and their EMDs
OTHER_KERNELS = [
    ["+experiment=census_ir_vs_mdav", "grid.k=[5]", "grid.epsilon=[1.0]", "reps=1", "figures=[]"],
    ["+experiment=tclose_sse_kt", "grid.k=[5]", "grid.t=[0.2]", "figures=[]"],
]


def traced(command: list[str], scratch: Path, name: str) -> tuple[float, dict[int, list]]:
    """Wall seconds of ``command`` with every kernel compilation timed, and the timings
    of each of its processes (by pid; the command's own first)."""
    site, out = scratch / "site", scratch / f"compile_{name}"
    site.mkdir(exist_ok=True)
    out.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE)
    path = os.pathsep.join(filter(None, [str(site), os.environ.get("PYTHONPATH")]))
    clock = time.perf_counter()
    done = subprocess.Popen(
        command,
        cwd=ROOT,
        env=user_env(PYTHONPATH=path, BENCH_COMPILE_OUT=str(out)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    status = done.wait()
    seconds = time.perf_counter() - clock
    if status:
        sys.exit(f"{' '.join(command)} failed ({status})")
    found = {int(p.stem): json.loads(p.read_text()) for p in out.glob("*.json")}
    order = sorted(found, key=lambda pid: pid != done.pid)
    return seconds, {pid: found[pid] for pid in order}


def show_breakdown(title: str, seconds: float, processes: dict[int, list]) -> None:
    print(f"{title}: {seconds:.2f} s wall, {len(processes)} process(es) touched kernels")
    for n, records in enumerate(processes.values()):
        top = sum(r["inclusive"] for r in records if r["depth"] == 0)
        hows = "/".join(sorted({r["how"] for r in records}))
        who = "the command" if n == 0 else f"pool worker {n}"
        print(f"  {who}: {len(records)} kernel signatures {hows}, {top:.2f} s in numba")
        modules: dict[str, float] = {}
        for r in records:
            module = r["kernel"].rsplit(".", 1)[0]
            modules[module] = modules.get(module, 0.0) + r["exclusive"]
        for module, own in sorted(modules.items(), key=lambda m: -m[1]):
            print(f"    {module:44} {own:6.2f} s")
        for r in sorted(records, key=lambda r: -r["exclusive"]):
            called = "  (called by another kernel)" if r["depth"] else ""
            print(
                f"      {r['kernel'].removeprefix('anonlab.'):44} {r['exclusive']:5.2f} s own, "
                f"{r['inclusive']:5.2f} s with callees{called}\n        {r['sig']}"
            )


def compile_breakdown(scratch: Path) -> None:
    cleared = clear_numba_cache()
    modules = ",".join(KERNEL_MODULES)
    seconds, processes = traced(
        [
            sys.executable,
            "-c",
            f"import importlib; [importlib.import_module(m) for m in {modules!r}.split(',')]",
        ],
        scratch,
        "imports",
    )
    count = sum(len(records) for records in processes.values())
    print(
        f"importing {', '.join(KERNEL_MODULES)} on an empty cache ({cleared} files deleted): "
        f"{count} compilations, {len(numba_cache_files())} cache files written, {seconds:.2f} s"
    )
    for n_jobs in ("-1", "1"):
        print(f"-- {load()}", flush=True)
        clear_numba_cache()
        first = census_ir(scratch / f"first{n_jobs}", f"n_jobs={n_jobs}")
        show_breakdown(
            f"census_ir, first run, n_jobs={n_jobs}", *traced(first, scratch, f"f{n_jobs}")
        )
        warm = census_ir(scratch / f"warm{n_jobs}", f"n_jobs={n_jobs}")
        show_breakdown(
            f"census_ir, cache written, n_jobs={n_jobs}", *traced(warm, scratch, f"w{n_jobs}")
        )
    print(f"-- {load()}", flush=True)
    clear_numba_cache()
    for i, run in enumerate([["+experiment=census_ir"], *OTHER_KERNELS]):
        command = [*RUN, *run, "n_jobs=1", f"results_dir={scratch / 'every'}"]
        show_breakdown(
            f"every kernel, first use: {' '.join(run)}", *traced(command, scratch, f"e{i}")
        )
    print(f"-- {load()}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [
        "census_ir_first",
        "census_ir_first_n1",
        "census_ir",
        "census_ir_redraw",
        "study",
        "investigations",
    ]
    parser.add_argument("--only", nargs="+", choices=[*names, *LONG], default=names)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--long", action="store_true", help="also time " + " and ".join(LONG))
    parser.add_argument("--compile", action="store_true", help="the first run's breakdown")
    args = parser.parse_args()
    chosen = [*args.only, *(LONG if args.long else ())]
    print(f"{os.cpu_count()} cores; reference loop {calibrate() * 1e3:.0f} ms; {load()}")
    scratch = Path(tempfile.mkdtemp(prefix="bench_readme_"))
    try:
        if args.compile:
            compile_breakdown(scratch)
            return
        for name in chosen:
            print(f"-- {name}: {load()}", flush=True)
            if name == "census_ir_first":
                time_first(name, args.repeats, scratch)
            elif name == "census_ir_first_n1":
                time_first(name, args.repeats, scratch, "n_jobs=1")
            elif name == "census_ir":
                times = []
                for i in range(args.repeats):
                    times.append(wall(census_ir(scratch / f"warm{i}"))[0])
                report(name, census_ir(scratch / "warmN"), times)
            elif name == "census_ir_redraw":
                stored = scratch / "stored"
                if not (stored / "census_ir" / "results.parquet").is_file():
                    wall(census_ir(stored))
                time_command(name, census_ir(stored, "plot_only=true"), args.repeats)
            elif name == "study":
                time_study(args.repeats, scratch)
            elif name == "investigations":
                time_investigations(args.repeats)
            elif name == "pytest":
                time_command(
                    name, [sys.executable, "-m", "pytest", "-q"], args.repeats, check=False
                )
            elif name == "all":
                time_command(name, [*RUN, "+experiment=all", f"results_dir={scratch}/all"], 1)
            print(f"   after: {load()}", flush=True)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"reference loop {calibrate() * 1e3:.0f} ms; {load()}")


if __name__ == "__main__":
    main()
