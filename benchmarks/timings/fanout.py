"""``+experiment=all`` run serially and fanned out to a local Dask cluster of worker
processes (``fanout=true runner=dask``): every ``results.parquet`` byte for byte, the
wall times side by side, and the machine's load (``os.getloadavg``) around each run. A
measured metric (``runtime``: seconds of the protect call) differs between any two runs;
a table that differs in those values alone is reported as such.

    python benchmarks/timings/fanout.py [--profile quick] [--workers 2] [--out /tmp/fanout]

Both runs are commands of this checkout (``run.py``, with it first on ``PYTHONPATH`` so
that the Dask workers import it too); the serial one uses ``n_jobs=WORKERS`` local pool
workers, the fanned-out one a cluster of WORKERS single-threaded worker processes.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

ROOT = Path(__file__).resolve().parents[2]


def last_experiment_file(results: Path) -> float:
    """When the last experiment file (results, run.json, figure, table) was written: the
    rest of the command's time is the report, the same work in both runs."""
    return max(
        p.stat().st_mtime
        for p in results.rglob("*")
        if p.is_file() and "report" not in p.relative_to(results).parts and p.name != ".lock"
    )


def run(
    results: Path, profile: str, workers: int, *extra: str
) -> tuple[float, float, tuple, tuple]:
    """Wall seconds of one ``+experiment=all`` command, of its experiments (until their
    last file), and the load before and after."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    command = [
        sys.executable,
        str(ROOT / "run.py"),
        "+experiment=all",
        f"profile={profile}",
        f"n_jobs={workers}",
        f"results_dir={results}",
        *extra,
    ]
    before = os.getloadavg()
    started, clock = time.time(), time.perf_counter()
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - clock
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr[-3000:]}")
    return wall, last_experiment_file(results) - started, before, os.getloadavg()


def tables(results: Path) -> dict[str, Path]:
    return {str(p.relative_to(results)): p for p in sorted(results.rglob("results.parquet"))}


def same_but_measured(one: Path, other: Path) -> list[str] | None:
    """The measured metrics (``runtime``: seconds of the protect call, different in any
    two runs) whose values alone differ between two results tables; None when anything
    else differs."""
    import numpy as np
    import pandas as pd

    from anonlab.metrics import get_metric

    a, b = pd.read_parquet(one), pd.read_parquet(other)
    if a.shape != b.shape or list(a.columns) != list(b.columns):
        return None
    keys = [c for c in a.columns if c != "value"]
    if not a[keys].astype(str).equals(b[keys].astype(str)):
        return None
    x, y = a["value"].to_numpy(float), b["value"].to_numpy(float)
    differ = sorted(set(a.loc[~((x == y) | (np.isnan(x) & np.isnan(y))), "metric"]))
    return differ if all(get_metric(m).measured for m in differ) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--out", type=Path, default=Path("/tmp/fanout"))
    parser.add_argument(
        "--compare-only", action="store_true", help="compare the folders of an earlier run"
    )
    args = parser.parse_args()
    serial, fanned = args.out / "serial", args.out / "fanout"
    if not args.compare_only:
        shutil.rmtree(args.out, ignore_errors=True)
        print(f"cores {os.cpu_count()}, {args.workers} workers, profile={args.profile}")
        rows = [
            ("serial", *run(serial, args.profile, args.workers)),
            ("fanout", *run(fanned, args.profile, args.workers, "fanout=true", "runner=dask")),
        ]
        for name, wall, experiments, before, after in rows:
            load = " ".join(f"{x:.2f}" for x in before), " ".join(f"{x:.2f}" for x in after)
            print(
                f"{name:7} wall {wall:7.1f} s (experiments {experiments:7.1f} s, then the "
                f"report)   load before {load[0]}   after {load[1]}"
            )
    one, other = tables(serial), tables(fanned)
    same = [k for k in one if k in other and one[k].read_bytes() == other[k].read_bytes()]
    measured = {k: same_but_measured(one[k], other[k]) for k in one if k in other and k not in same}
    print(
        f"results.parquet files: {len(one)} serial, {len(other)} fanned out, "
        f"{len(same)} byte-identical"
    )
    for name, differ in sorted(measured.items()):
        said = f"only the measured {differ} values differ" if differ else "DIFFERS"
        print(f"  {name}: {said}")
    for name in sorted(set(one) ^ set(other)):
        print(f"  missing in one run: {name}")
    if not one or set(one) != set(other) or any(d is None for d in measured.values()):
        sys.exit(1)


if __name__ == "__main__":
    main()
