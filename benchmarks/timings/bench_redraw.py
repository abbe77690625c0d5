"""Time a redraw of stored results as a user starts it: ``python run.py
+experiment=census_ir plot_only=true results_dir=DIR``, a fresh process each time (Python,
Hydra and matplotlib imports included).

Usage: ``python benchmarks/timings/bench_redraw.py [--source /tmp/final_run] [--experiment
census_ir] [--repeats 7] [--n-jobs N] [--baseline OTHER_CHECKOUT]``

``--baseline`` times the same redraw from another checkout too (e.g. one made with ``git
archive HEAD | tar -x -C /tmp/base``), interleaved with this one's, so that both see the
same load.

Budget: ≤ 2.5 s wall on 2 idle cores (the imports alone take about 0.8 s). A redraw writes
the figures and tables into the results folder, so the stored run (``results.parquet``,
``run.json``) is copied into a temporary folder first: ``--source`` is never written.

A shared machine's speed drifts with its load, so the script prints the load average
(:func:`os.getloadavg`) before and after, and the ratio of the redraw's median to the
median of a reference process, ``python -c "import matplotlib.pyplot"``, timed
interleaved with it: compare redraws by that ratio when the loads differ.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

ROOT = Path(__file__).resolve().parents[2]
BUDGET_S = 2.5
REFERENCE = [sys.executable, "-c", "import matplotlib.pyplot"]


def wall(command: list[str], cwd: Path = ROOT) -> float:
    """Wall-clock seconds of one run of ``command`` from the checkout ``cwd``; a failure
    stops the benchmark with its output."""
    clock = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - clock
    if done.returncode:
        sys.exit(f"{' '.join(command)} failed:\n{done.stdout}\n{done.stderr}")
    return elapsed


def stage(source: Path, experiment: str, scratch: Path) -> None:
    """Copy the stored run of ``experiment`` (results and run.json, not the parts) under
    ``scratch``."""
    target = scratch / experiment
    target.mkdir(parents=True)
    for name in ("results.parquet", "run.json"):
        shutil.copy2(source / experiment / name, target / name)


def load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--source", type=Path, default=Path("/tmp/final_run"))
    parser.add_argument("--experiment", default="census_ir")
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--n-jobs", type=int, default=None, help="n_jobs override (default: none)")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to time")
    args = parser.parse_args(argv)
    if not (args.source / args.experiment / "results.parquet").is_file():
        sys.exit(f"no stored results at {args.source / args.experiment}")
    with tempfile.TemporaryDirectory(prefix="bench_redraw_") as tmp:
        scratch = Path(tmp)
        stage(args.source, args.experiment, scratch)
        command = [
            sys.executable,
            "run.py",
            f"+experiment={args.experiment}",
            "plot_only=true",
            f"results_dir={scratch}",
            *([f"n_jobs={args.n_jobs}"] if args.n_jobs is not None else []),
        ]
        print(f"command: {' '.join(command[1:])}")
        print(f"cores: {os.cpu_count()}, load average before: {load()}")
        roots = {"this checkout": ROOT}
        if args.baseline is not None:
            roots["baseline"] = args.baseline.resolve()
        for root in roots.values():
            wall(command, root)  # bytecode caches written, as after a first run
        wall(REFERENCE)
        times: dict[str, list[float]] = {name: [] for name in [*roots, "reference"]}
        for _ in range(args.repeats):  # interleaved: all see the same drift in load
            for name, root in roots.items():
                times[name].append(wall(command, root))
            times["reference"].append(wall(REFERENCE))
    print(f"load average after: {load()}")
    reference = statistics.median(times["reference"])
    for name, runs in times.items():
        print(f"{name} runs (s): " + " ".join(f"{t:.2f}" for t in runs))
    print(f"reference (import matplotlib.pyplot) median: {reference:.2f} s")
    for name in roots:
        median = statistics.median(times[name])
        print(
            f"{name}: redraw median {median:.2f} s, ratio to reference {median / reference:.2f}"
            f" (budget {BUDGET_S} s on 2 idle cores)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
