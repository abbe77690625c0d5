"""What this machine takes, at least, for each wait the README quotes, whatever anonlab's
own code does: the interpreter's start, the imports of the libraries the command needs,
Hydra's composition of a one-line config, numba's first call of a cached kernel and
matplotlib's first figure saved as PNG and PDF. Each floor is set beside the budget of
the wait it bounds (the commands of ``bench_readme_times.py``).

Usage: ``python benchmarks/timings/bench_floors.py [--repeats 5]``

Every probe runs in a fresh interpreter, as a user's command does, ``--repeats`` times
(median). Library imports are timed as the whole process's wall time (start included);
the composition, the kernel call and the figure are timed inside the process, after its
imports. A floor counts only what no process arrangement can hide: work that another
process could do at the same time (a worker importing matplotlib while this one composes
the config) is left out.

- ``redraw`` (``plot_only=true``): the process that draws a figure starts, imports
  numpy and matplotlib, and draws it;
- ``study figures`` (a study's figures over the same run with ``figures=[]``): one figure,
  which can only be drawn once the results exist;
- ``census_ir`` (kernels cached): the process that composes the config and takes part in
  the jobs (as anonlab's and joblib's main processes do) starts, imports numpy, pandas,
  pyarrow, Hydra and numba, composes and makes numba's first cached call, and one figure
  follows the jobs. A main process that only dispatched jobs could leave numba's import
  and first call to a worker, at the same time as its own composition: this floor is one
  arrangement's, not a bound on every arrangement. Each job of its first look adds its
  least NumPy work, shared by the cores: its random stream (``numpy.random.SeedSequence``
  and a ``Generator``, as anonlab's seeding requires) and one relative error of a
  Census-sized release (DP-IR §4.2), whatever the release and its other metrics cost. On
  the paper run (seed 0) the plan's later looks add 26,730 jobs to the first look's
  9,297; they are not counted.

A redraw or study floor above its budget says the budget cannot be met on this machine by
any change to anonlab's own code that keeps those libraries.

A shared machine's speed drifts with its load: :func:`os.getloadavg` and the fixed
interpreter loop of ``bench_runs.py`` (:func:`~benchmarks.timings.bench_runs.calibrate`)
are printed before and after; compare floors only at similar loop times.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

from anonlab.plotting.curves import DPI  # the PNG's resolution, as a run saves it
from benchmarks.timings.bench_runs import calibrate  # the same machine-speed yardstick

RUN_LIBS = "import numpy, pandas, pyarrow.parquet, omegaconf, hydra, hydra.compose, numba"
DRAW_LIBS = "import numpy, matplotlib.figure, matplotlib.backends.backend_agg"
#: the budgets these waits are held to (seconds; the study's figures: over ``figures=[]``)
BUDGETS = {"redraw": 1.5, "study figures": 0.5, "census_ir": 4.0}

COMPOSE = """
import time
from hydra import compose, initialize_config_dir
clock = time.perf_counter()
with initialize_config_dir(config_dir={conf!r}, version_base="1.3"):
    compose(config_name="config")
timed["compose"] = time.perf_counter() - clock
"""
FIGURE = """
import io, time
from matplotlib.figure import Figure
clock = time.perf_counter()
fig = Figure(figsize=(8.4, 3.2), layout="constrained")
for ax in fig.subplots(1, 2):
    for i, marker in enumerate("osD"):
        ax.plot([2, 5, 10, 20], [i, i + 1, i + 3, i + 2], marker=marker, label=f"m{{i}}")
    ax.set_xlabel("k"); ax.set_ylabel("RE")
fig.legend(loc="outside lower center", ncols=3)
for fmt in ("png", "pdf"):
    fig.savefig(io.BytesIO(), format=fmt, dpi={dpi})
timed["figure"] = time.perf_counter() - clock
"""
KERNEL = """
import sys, time
sys.path.insert(0, {folder!r})
clock = time.perf_counter()
import floor_kernel
floor_kernel.total(floor_kernel.np.arange(10.0))
timed["kernel"] = time.perf_counter() - clock
"""
JOB = """
import timeit
import numpy as np
calls = 20000
seconds = timeit.timeit(
    lambda: np.random.default_rng(np.random.SeedSequence([0, 2**62 + 12345, 7])), number=calls
)
timed["stream"] = seconds / calls
rng = np.random.default_rng(0)
original = rng.uniform(0, 100, (1080, 13))
released = original + rng.laplace(0, 1, original.shape)
bound = np.maximum(1.0, np.abs(original))
seconds = timeit.timeit(
    lambda: np.mean(np.abs(original - released) / bound, axis=0), number=calls
)
timed["relative_error"] = seconds / calls
"""
KERNEL_MODULE = """
import numba
import numpy as np


@numba.njit(cache=True)
def total(values):
    out = 0.0
    for v in values:
        out += v
    return out
"""


def probe(code: str) -> tuple[float, dict[str, float]]:
    """Wall seconds of a fresh interpreter running ``code``, and the in-process timings
    it records in ``timed``."""
    script = f"timed = {{}}\n{code}\nimport json\nprint(json.dumps(timed))"
    clock = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    return time.perf_counter() - clock, json.loads(done.stdout.strip().splitlines()[-1])


def median_of(code: str, repeats: int) -> tuple[float, dict[str, float]]:
    """The median of ``repeats`` probes: the process's wall time and each timing."""
    runs = [probe(code) for _ in range(repeats)]
    timings = {key: statistics.median(r[1][key] for r in runs) for key in runs[0][1]}
    return statistics.median(r[0] for r in runs), timings


def load() -> str:
    """The load average and the interpreter loop's time: the machine's speed now."""
    loads = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"load {loads}, reference loop {calibrate() * 1000:.0f} ms"


def census_ir_jobs() -> int:
    """The jobs (cell × repetition) of census_ir's first look, as its plan counts them."""
    from anonlab.config import compose_config
    from anonlab.runner import build_experiment
    from anonlab.runner.execute import count_jobs

    experiment = build_experiment(compose_config("+experiment=census_ir"))
    return count_jobs(experiment.cells, experiment.reps, experiment.metrics)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    if args.repeats < 1:  # a median needs one run at least
        parser.error(f"--repeats must be at least 1, got {args.repeats}")
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cores, {load()}", flush=True)
    with tempfile.TemporaryDirectory() as scratch:
        conf = Path(scratch) / "conf"
        conf.mkdir()
        (conf / "config.yaml").write_text("a: 1\n")
        (Path(scratch) / "floor_kernel.py").write_text(textwrap.dedent(KERNEL_MODULE))
        kernel = KERNEL.format(folder=scratch)
        probe(kernel)  # compiles and writes the cache: the probes below load it
        start, _ = median_of("pass", args.repeats)
        _, job = median_of(JOB, args.repeats)
        drawing, figure = median_of("\n".join([DRAW_LIBS, FIGURE.format(dpi=DPI)]), args.repeats)
        running, run = median_of(
            "\n".join([RUN_LIBS, COMPOSE.format(conf=str(conf)), kernel]), args.repeats
        )
    draw_imports = drawing - figure["figure"]
    run_imports = running - run["compose"] - run["kernel"]
    per_job = job["stream"] + job["relative_error"]
    parts = {
        "interpreter start": start,
        "import numpy, matplotlib (Figure, Agg), with start": draw_imports,
        "import numpy, pandas, pyarrow, Hydra, numba, with start": run_imports,
        "Hydra: one composition of a one-line config": run["compose"],
        "numba: first call of a cached kernel": run["kernel"],
        "matplotlib: first figure, PNG and PDF": figure["figure"],
    }
    print(f"parts (median of {args.repeats} fresh processes):")
    for name, seconds in parts.items():
        print(f"  {name:56} {seconds:6.2f} s")
    print(
        f"  one job's least NumPy work: its stream {job['stream'] * 1e6:.1f} µs, one relative "
        f"error {job['relative_error'] * 1e6:.1f} µs"
    )
    jobs, cores = census_ir_jobs(), os.cpu_count() or 1
    print(f"census_ir's first look: {jobs:,} jobs on {cores} cores")
    floors = {
        "redraw": draw_imports + figure["figure"],
        "study figures": figure["figure"],
        "census_ir": run_imports
        + run["compose"]
        + run["kernel"]
        + figure["figure"]
        + jobs * per_job / cores,
    }
    print("wait            budget   floor   floor/budget")
    for name, floor in floors.items():
        budget = BUDGETS[name]
        print(f"  {name:13} {budget:6.2f} s {floor:6.2f} s {floor / budget:8.2f}")
    print(load())


if __name__ == "__main__":
    main()
