"""Run every cross-check against another library, one after the other, and print their
outputs: each ``benchmarks/crosschecks/crosscheck_*.py`` but the environment helper
(``crosscheck_env.py``), in name order.

Usage: ``python benchmarks/crosschecks/crosscheck.py [NAME ...]`` (e.g. ``pycanon
sdmetrics``; all by default). Each check builds its library's environment once
(:mod:`benchmarks.crosschecks.crosscheck_env`); the exit status is the number of checks
that failed. A check whose tool is not installed here (sdcMicro needs R) exits with
:data:`NOT_RUN` and is listed as not run, not counted as failed.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

HERE = Path(__file__).resolve().parent
HELPER = "crosscheck_env.py"
NOT_RUN = 2  # a check's exit status when the tool it compares with is missing


def checks(names: list[str]) -> list[Path]:
    """The check scripts, in name order, restricted to ``names`` when given."""
    found = sorted(p for p in HERE.glob("crosscheck_*.py") if p.name != HELPER)
    if names:
        found = [p for p in found if p.stem.removeprefix("crosscheck_") in names]
    return found


def main() -> int:
    failed, not_run = 0, []
    for script in checks(sys.argv[1:]):
        print(f"== {script.name}", flush=True)
        clock = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], check=False)
        print(f"-- {script.name}: exit {result.returncode}, {time.perf_counter() - clock:.0f} s\n")
        if result.returncode == NOT_RUN:
            not_run.append(script.name)
        failed += result.returncode not in (0, NOT_RUN)
    if not_run:
        print(f"not run (tool missing): {', '.join(not_run)}")
    return failed


if __name__ == "__main__":
    sys.exit(main())
