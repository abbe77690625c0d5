"""Are the report's verdicts stable across seeds? Run every paper experiment (and every
reading) under several master seeds, judge the claims of each, and list any claim that is
reproduced under one seed and contradicted under another: such a flip would mean a verdict
read noise as a finding.

    python benchmarks/audits/claim_stability.py                     # profile=quick, seeds 1 2 3
    python benchmarks/audits/claim_stability.py --seeds 1 2 --profile paper --out /tmp/stab
    python benchmarks/audits/claim_stability.py --no-run --out /tmp/stab   # judge stored runs

Prints one line per claim whose verdict differs between seeds, the counts of verdicts per
seed, the run times, and exits 1 if any claim flips between reproduced and contradicted.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

from anonlab.report.claims import CONTRADICTED, REPRODUCED, STATUSES  # noqa: E402
from anonlab.report.view import build_view  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]


def verdicts(results: Path) -> dict[tuple[str, str, str], str]:
    """(target, claim, reading) → verdict of every judged claim stored under ``results``."""
    view = build_view(results)
    found = {}
    for target in view.targets:
        if target.run is None:
            continue
        for claim in target.claims:
            for verdict in claim.readings:
                if verdict.result is not None:
                    name = verdict.reading.name if verdict.reading else "-"
                    found[(target.target.title_line, claim.result.id, name)] = verdict.result.status
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3])
    parser.add_argument("--profile", default="quick")
    parser.add_argument("--out", type=Path, default=ROOT / "results" / "stability")
    parser.add_argument("--n-jobs", type=int, default=2)
    parser.add_argument("--no-run", action="store_true", help="judge stored runs only")
    args = parser.parse_args(argv)
    by_seed, times = {}, {}
    for seed in args.seeds:
        base = args.out / f"seed_{seed}"
        if not args.no_run:
            clock = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    str(ROOT / "run.py"),
                    "+experiment=all",
                    f"profile={args.profile}",
                    f"seed={seed}",
                    f"results_dir={base}",
                    f"n_jobs={args.n_jobs}",
                ],
                check=True,
                cwd=ROOT,
                stdout=subprocess.DEVNULL,
            )
            times[seed] = time.perf_counter() - clock
        by_seed[seed] = verdicts(base / args.profile if args.profile != "paper" else base)
    keys = sorted(set().union(*by_seed.values()))
    flips, differ = [], []
    for key in keys:
        seen = [by_seed[s].get(key, "-") for s in args.seeds]
        if len(set(seen)) > 1:
            differ.append((key, seen))
            if REPRODUCED in seen and CONTRADICTED in seen:
                flips.append(key)
    print(f"profile {args.profile}, seeds {args.seeds}: {len(keys)} (claim, reading) verdicts")
    for seed in args.seeds:
        counts = Counter(by_seed[seed].values())
        took = f" in {times[seed]:.0f} s" if seed in times else ""
        print(f"  seed {seed}{took}: " + ", ".join(f"{counts[s]} {s}" for s in STATUSES))
    print(
        f"differ between seeds: {len(differ)}; reproduced under one seed and contradicted "
        f"under another: {len(flips)}"
    )
    for (target, claim, reading), seen in differ:
        mark = "FLIP " if (target, claim, reading) in flips else "     "
        print(f"  {mark}{target} {claim} [{reading}]: " + " / ".join(seen))
    return 1 if flips else 0


if __name__ == "__main__":
    sys.exit(main())
