"""Command line: ``python -m anonlab.data_fetch verify`` and ``… download``.

``verify`` checks the vendored files offline. ``download`` (online machines only) re-fetches
every file from its canonical ``url`` in ``sources.toml``, converts it to the vendored format
and checks it; with ``--replace`` files that match byte for byte replace the vendored copies.
Exit status: 0 if every file passed, 1 if any failed, 2 for a usage error.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import anonlab.data_fetch as data_fetch
from anonlab.data_fetch import download


def build_parser() -> argparse.ArgumentParser:
    """Argument parser for ``python -m anonlab.data_fetch``."""
    parser = argparse.ArgumentParser(
        prog="python -m anonlab.data_fetch",
        description="Verify the vendored raw data files, or re-download and check them.",
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("verify", help="check the vendored files against sources.toml (offline)")
    fetch = commands.add_parser(
        "download",
        help="re-download each file from its canonical URL and check it (needs internet)",
    )
    fetch.add_argument(
        "--dest",
        type=Path,
        default=None,
        metavar="DIR",
        help="folder for the converted files (default: a new temporary folder)",
    )
    fetch.add_argument(
        "--only",
        nargs="+",
        action="extend",
        default=None,
        metavar="NAME",
        help="only these files (names as in sources.toml)",
    )
    fetch.add_argument(
        "--replace",
        action="store_true",
        help="copy files whose checksum matches over the vendored ones (atomically)",
    )
    fetch.add_argument(
        "--timeout",
        type=float,
        default=download.DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"network timeout per request (default {download.DEFAULT_TIMEOUT:g})",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line and return the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "verify":
        outcomes = download.verify_all()
        for outcome in outcomes:
            print(outcome.line())
    else:
        unknown = sorted(set(args.only or ()) - set(data_fetch.manifest()))
        if unknown:
            parser.error(f"unknown data file(s) {unknown}; known: {sorted(data_fetch.manifest())}")
        dest = args.dest
        if dest is None:
            dest = Path(tempfile.mkdtemp(prefix="data_fetch-"))
        print(f"converted files go to {dest}", file=sys.stderr)
        try:
            outcomes = download.download_all(
                args.only,
                dest,
                replace=args.replace,
                timeout=args.timeout,
                report=lambda outcome: print(outcome.line(), flush=True),
            )
        except ValueError as exc:
            parser.error(str(exc))
    return 1 if any(outcome.failed for outcome in outcomes) else 0


if __name__ == "__main__":
    sys.exit(main())
