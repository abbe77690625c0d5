"""How long a bad input takes to be refused: the wall-clock time of
``python run.py +experiment=census_ir 'grid.k=[0]'`` (one ``error:`` line, exit status 2),
in a fresh process each time, the median of ``--repeats`` runs, with the load average
before and after (a shared machine's times drift with its load).

Usage: ``python benchmarks/timings/error_latency.py [--repeats 5] [ARGS …]`` (``ARGS``: another
command line to time instead, e.g. ``+experiment=study 'grid.kk=[2]'``).

The run is refused by the first stage of the engine (:mod:`anonlab.runner.validate`),
before any data is read, worker started or kernel imported; one run first (not timed)
writes what that stage caches for this code (the methods' and metrics' names, axes and
options) if it is missing. The script also prints the modules a refused run imports that
it should not (NumPy, pandas, numba, joblib, matplotlib; expected: none).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

ROOT = Path(__file__).resolve().parents[2]
COMMAND = ["+experiment=census_ir", "grid.k=[0]"]
HEAVY = ("numpy", "pandas", "numba", "joblib", "matplotlib")
#: what the refused run imports, printed by a child interpreter
PROBE = (
    "import sys\n"
    "from anonlab import cli\n"
    "status = cli.run(sys.argv[1:])\n"
    f"print(*[m for m in {HEAVY!r} if m in sys.modules], sep=',')\n"
    "sys.exit(status)\n"
)


def run_once(args: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """Wall-clock seconds of one ``python run.py ARGS``, and the finished process."""
    clock = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "run.py", *args], cwd=ROOT, capture_output=True, text=True
    )
    return time.perf_counter() - clock, done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("args", nargs="*", help="the command line to time")
    options = parser.parse_args(argv)
    args = options.args or COMMAND
    _, first = run_once(args)  # not timed: writes the validation cache if missing
    if first.returncode != 2:
        print(f"expected exit status 2, got {first.returncode}: {first.stderr}")
        return 1
    print(f"python run.py {' '.join(args)}")
    print(f"  {first.stderr.strip()}")
    before = os.getloadavg()
    times = [run_once(args)[0] for _ in range(options.repeats)]
    after = os.getloadavg()
    print(
        f"  median {statistics.median(times):.2f} s of {options.repeats} runs "
        f"(min {min(times):.2f} s, max {max(times):.2f} s)"
    )
    print(
        f"  load average (1, 5, 15 min) before {before[0]:.2f} {before[1]:.2f} "
        f"{before[2]:.2f}, after {after[0]:.2f} {after[1]:.2f} {after[2]:.2f} "
        f"on {os.cpu_count()} cores"
    )
    probe = subprocess.run(
        [sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True
    )
    print(f"  heavy modules imported before the error: {probe.stdout.strip() or 'none'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
