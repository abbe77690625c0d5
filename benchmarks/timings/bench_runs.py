"""Time whole runs as a user starts them: ``python run.py +experiment=NAME n_jobs=2``, in a
fresh process each time (imports, config, workers, figures and tables included), into a
temporary results folder.

Usage: ``python benchmarks/timings/bench_runs.py [--only census_ir tclose_runtime] [--repeats 3]
[--n-jobs 2]``

Budgets (on 2 cores): ``census_ir`` ≤ 5 s, ``tclose_runtime`` ≤ 75 s (it times every
cell five times, interleaved, since run time is a measurement judged from its spread; its
former single timing had 30 s), and every paper
experiment (``all``, paper profile, every reading) ≤ 12 minutes. Prints the median wall
time of ``--repeats`` runs and its ratio to the budget; ``all`` runs once (it takes
minutes) and prints each experiment's own wall time from its ``run.json``.

A shared 2-core machine's speed drifts with the host's load (the same run of
``census_ir`` took 4.6 s and 6.5 s on one afternoon), so the script first and last times a
fixed interpreter loop (:func:`calibrate`, median of 5): compare runs only at similar
loop times. Runs are timed with the bytecode caches written, as after a first run.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

ROOT = Path(__file__).resolve().parents[2]
BUDGETS_S = {"census_ir": 5.0, "tclose_runtime": 75.0, "all": 720.0}


def calibrate() -> float:
    """Median seconds of a fixed pure-Python loop (3·10⁶ additions), the machine's speed
    for the interpreter-bound fixed costs of a run."""

    def loop() -> float:
        clock = time.perf_counter()
        total = 0
        for i in range(3_000_000):
            total += i
        return time.perf_counter() - clock

    return statistics.median(loop() for _ in range(5))


def run_once(name: str, n_jobs: int) -> tuple[float, Path]:
    """Wall seconds of one run of experiment ``name`` into a fresh folder (kept until exit)."""
    out = Path(tempfile.mkdtemp(prefix=f"bench_{name}_"))
    command = [
        sys.executable,
        str(ROOT / "run.py"),
        f"+experiment={name}",
        f"n_jobs={n_jobs}",
        f"results_dir={out}",
    ]
    clock = time.perf_counter()
    subprocess.run(
        command, check=True, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    return time.perf_counter() - clock, out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only",
        nargs="+",
        default=["census_ir", "tclose_runtime"],
        help="experiments to time (`all` for every paper experiment)",
    )
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--n-jobs", type=int, default=2)
    args = parser.parse_args()
    print(f"machine: reference loop {calibrate() * 1e3:.0f} ms", flush=True)
    for name in args.only:
        repeats = 1 if name == "all" else args.repeats
        runs = [run_once(name, args.n_jobs) for _ in range(repeats)]
        wall = statistics.median(seconds for seconds, _ in runs)
        budget = BUDGETS_S.get(name)
        line = f"{name}: {wall:.2f} s wall (median of {repeats}, n_jobs={args.n_jobs})"
        if budget:
            line += f", budget {budget:.0f} s, ratio to budget {wall / budget:.2f}"
        print(line, flush=True)
        if name == "all":
            for record in sorted(runs[0][1].rglob("run.json")):
                data = json.loads(record.read_text())
                print(
                    f"  {record.parent.name:36} {data['wall_time_s']:8.1f} s "
                    f"({data['n_cells']} cells)"
                )
    print(f"machine: reference loop {calibrate() * 1e3:.0f} ms", flush=True)


if __name__ == "__main__":
    main()
