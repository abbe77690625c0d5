"""``python -m anonlab.report [results_dir]``: write the reproduction report of the runs
stored under ``results_dir`` (default ``results``) and print its path."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from anonlab.io import StorageError
from anonlab.provenance import OWN, PAPER
from anonlab.report.site import build_report
from anonlab.report.view import load_runs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m anonlab.report", description=__doc__)
    parser.add_argument(
        "results_dir",
        nargs="?",
        default="results",
        type=Path,
        help="folder holding <experiment>/run.json (default: results)",
    )
    args = parser.parse_args(argv)
    if not args.results_dir.is_dir():
        print(f"error: no results folder {str(args.results_dir)!r}", file=sys.stderr)
        return 2
    for run in load_runs(args.results_dir):  # a damaged table: one line, before any write
        damage = run.damage() if run.provenance in (PAPER, OWN) else None  # tables it reads
        if damage:
            print(f"error: {damage}", file=sys.stderr)
            return 2
    try:
        print(build_report(args.results_dir))
    except StorageError as error:  # a full disk: one line, nothing half-written
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
