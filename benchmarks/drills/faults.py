"""Faults of a run, reproduced against a checkout: a SIGKILL mid-run (what is left
running 3 s later), a full disk (a 1 MB tmpfs, else a file size limit), a truncated
``results.parquet`` (``plot_only=true`` and the report), Ctrl-C (SIGINT to the process
group, as a terminal sends it), a multirun with a bad value in its second job, a part
with one value changed, and ``reps=1000000000``. For each: the exit status, what the
command printed (its lines on stderr but the progress bar's) and what it left running or
on disk. Give several checkouts for a before/after table (Linux; the tmpfs needs root):

    python benchmarks/drills/faults.py --root /path/to/before --root . [--out /tmp/faults]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

import pandas as pd

SMALL = [  # 8 jobs, about 1 s
    "+experiment=census_ir",
    "grid.k=[2,10]",
    "grid.epsilon=[1.0]",
    "grid.m=[1]",
    "reps=2",
    "n_jobs=1",
    "run_name=small",
]
# 56 random-forest jobs on two processes: long enough to be stopped partway
SLOW = [
    "+experiment=census_idp_rf",
    "grid.k=[5,20,80]",
    "grid.epsilon=[1.0]",
    "grid.alpha=[1.5]",
    "reps=8",
    "n_jobs=2",
    "run_name=slow",
]


@dataclass
class Outcome:
    status: int | None
    said: str  # what the command printed, summarized
    left: str  # what it left running or on disk


def summary(stderr: str) -> str:
    """The lines on stderr but the progress bar's: the one line, or a traceback's size and
    last line."""
    text = stderr.replace("\r", "\n")
    lines = [
        line.strip()
        for line in text.splitlines()
        if line.strip() and not ("|" in line and ("run/s]" in line or "s/run]" in line))
    ]
    if not lines:
        return "(nothing)"
    if any(line.startswith("Traceback") for line in lines):
        return f"traceback, {len(lines)} lines: {lines[-1][:90]}"
    shown = lines[-1] if len(lines) == 1 else f"{len(lines)} lines, last: {lines[-1]}"
    return shown[:240]


class Checkout:
    def __init__(self, root: Path, out: Path) -> None:
        self.root, self.out = root.resolve(), out
        self.env = {**os.environ, "PYTHONPATH": str(self.root)}

    def command(self, *args: str) -> list[str]:
        return [sys.executable, str(self.root / "run.py"), *args]

    def run(self, *args: str, timeout: float = 600, **kwargs) -> subprocess.CompletedProcess:
        return subprocess.run(
            self.command(*args),
            cwd=self.out,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=timeout,
            **kwargs,
        )

    def start(self, *args: str) -> subprocess.Popen:
        return subprocess.Popen(
            self.command(*args),
            cwd=self.out,
            env=self.env,
            start_new_session=True,  # its own group: what is left is found by session
            # a background shell ignores SIGINT in what it starts: a terminal's run does not
            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )


def session_members(session: int) -> list[int]:
    """The live processes of a session (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[3]) == session and fields[0] not in ("Z", "X"):
            found.append(int(entry))
    return found


def rss_mb(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def kind(pid: int) -> str:
    try:
        command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
    except OSError:
        return "?"
    if "resource_tracker" in command:
        return "loky tracker" if "loky" in command else "mp tracker"
    return "worker" if "loky" in command else "python"


def wait_for_parts(folder: Path, count: int, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if len(list(folder.rglob("part-*.parquet"))) >= count:
            return
        time.sleep(0.05)


def sigkill(checkout: Checkout, folder: Path) -> Outcome:
    process = checkout.start(*SLOW, f"results_dir={folder}")
    wait_for_parts(folder, 2, process)
    os.kill(process.pid, signal.SIGKILL)  # the main process only, as the OOM killer does
    process.wait()
    time.sleep(3)
    left = session_members(process.pid)
    described = ", ".join(f"{kind(p)} {rss_mb(p):.0f} MB" for p in left) or "nothing"
    for pid in left:  # started by this script: not to be left running
        os.kill(pid, signal.SIGKILL)
    return Outcome(process.returncode, "(killed)", f"3 s later: {described}")


def sigint(checkout: Checkout, folder: Path) -> Outcome:
    process = checkout.start(*SLOW, f"results_dir={folder}")
    wait_for_parts(folder, 2, process)
    os.killpg(process.pid, signal.SIGINT)  # as a terminal's Ctrl-C
    _, stderr = process.communicate(timeout=120)
    time.sleep(1)
    left = session_members(process.pid)
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    return Outcome(process.returncode, summary(stderr), f"{len(left)} processes")


def _tmpfs(folder: Path) -> bool:
    folder.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0 or not shutil.which("mount"):
        return False
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)], capture_output=True
    )
    return done.returncode == 0


def full_disk(checkout: Checkout, folder: Path) -> Outcome:
    disk = folder / "disk"
    mounted = _tmpfs(disk)
    try:
        if mounted:  # 32 kB left for the run
            free = shutil.disk_usage(disk).free
            (disk / "filler").write_bytes(b"\0" * (free - 32 * 1024))
            limit = None
        else:  # no tmpfs: any file over 20 kB fails with EFBIG

            def limit() -> None:
                resource.setrlimit(resource.RLIMIT_FSIZE, (20_000, 20_000))

        done = checkout.run(
            *[o if o != "reps=2" else "reps=20" for o in SMALL],
            f"results_dir={disk}",
            preexec_fn=limit,
        )
        temporary = len(list(disk.rglob("*.tmp")))
        parts = len(list(disk.rglob("part-*.parquet")))
        how = "1 MB tmpfs" if mounted else "RLIMIT_FSIZE"
        return Outcome(
            done.returncode, summary(done.stderr), f"{how}: {temporary} .tmp, {parts} parts"
        )
    finally:
        if mounted:
            subprocess.run(["umount", str(disk)], check=False)


def finished(checkout: Checkout, folder: Path) -> Path:
    done = checkout.run(*SMALL, f"results_dir={folder}")
    assert done.returncode == 0, done.stderr
    return folder / "small"


def truncated_plot_only(checkout: Checkout, folder: Path) -> Outcome:
    run = finished(checkout, folder)
    results = run / "results.parquet"
    clean = results.read_bytes()
    results.write_bytes(clean[: len(clean) // 2])
    done = checkout.run(*SMALL, f"results_dir={folder}", "plot_only=true")
    same = results.read_bytes() == clean
    return Outcome(
        done.returncode,
        summary(done.stderr),
        "results.parquet rebuilt, same bytes" if same else "results.parquet still truncated",
    )


def truncated_report(checkout: Checkout, folder: Path) -> Outcome:
    # a paper run (the report judges the claims on its table): census_ir's quick profile
    done = checkout.run(
        "+experiment=census_ir", "profile=quick", "n_jobs=1", f"results_dir={folder}"
    )
    assert done.returncode == 0, done.stderr
    folder = folder / "quick"
    results = folder / "census_ir" / "results.parquet"
    results.write_bytes(results.read_bytes()[:1000])
    done = subprocess.run(
        [sys.executable, "-m", "anonlab.report", str(folder)],
        cwd=checkout.out,
        env=checkout.env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    report = folder / "report"
    written = len(list(report.rglob("*"))) if report.exists() else 0
    return Outcome(done.returncode, summary(done.stderr), f"report files: {written}")


def multirun(checkout: Checkout, folder: Path) -> Outcome:
    sweep = [o if o != "reps=2" else "reps=2,0" for o in SMALL]
    done = checkout.run("-m", *sweep, f"results_dir={folder}")
    written = sorted(p.name for p in folder.rglob("results.parquet"))
    return Outcome(done.returncode, summary(done.stderr), f"results written: {len(written)}")


def tampered(checkout: Checkout, folder: Path) -> Outcome:
    run = finished(checkout, folder)
    clean = (run / "results.parquet").read_bytes()
    [part] = sorted((run / "parts" / "census").glob("part-*.parquet"))
    frame = pd.read_parquet(part)
    frame.loc[3, "value"] += 0.5
    frame.to_parquet(part, index=False)
    done = checkout.run(*SMALL, f"results_dir={folder}")
    same = (run / "results.parquet").read_bytes() == clean
    return Outcome(
        done.returncode,
        summary(done.stderr),
        "results.parquet as a clean run's" if same else "changed value in results.parquet",
    )


def huge(checkout: Checkout, folder: Path) -> Outcome:
    process = checkout.start("+experiment=census_ir", "reps=1000000000", f"results_dir={folder}")
    clock, peak = time.monotonic(), 0.0
    while process.poll() is None and time.monotonic() - clock < 15:
        peak = max(peak, sum(rss_mb(p) for p in session_members(process.pid)))
        time.sleep(0.1)
    stopped = process.poll() is None
    if stopped:
        os.killpg(process.pid, signal.SIGKILL)
    _, stderr = process.communicate()
    said = "(still growing after 15 s: killed)" if stopped else summary(stderr)
    return Outcome(
        None if stopped else process.returncode,
        said,
        f"peak {peak:.0f} MB in {time.monotonic() - clock:.1f} s",
    )


FAULTS: dict[str, Callable[[Checkout, Path], Outcome]] = {
    "SIGKILL of the run mid-sweep": sigkill,
    "full disk during the sweep": full_disk,
    "truncated results.parquet, plot_only=true": truncated_plot_only,
    "truncated results.parquet, python -m anonlab.report": truncated_report,
    "Ctrl-C (SIGINT to the group) mid-sweep": sigint,
    "multirun reps=2,0 (second job bad)": multirun,
    "a part with one value changed, then resumed": tampered,
    "reps=1000000000": huge,
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", action="append", type=Path, help="a checkout (repeatable)")
    parser.add_argument("--out", type=Path, default=None, help="scratch folder")
    parser.add_argument("--only", action="append", help="run the faults whose name has this")
    args = parser.parse_args()
    roots = args.root or [Path(__file__).resolve().parents[2]]
    out = args.out or Path(tempfile.mkdtemp(prefix="faults-"))
    rows = []
    for number, (name, fault) in enumerate(FAULTS.items()):
        if args.only and not any(word in name for word in args.only):
            continue
        for index, root in enumerate(roots):
            scratch = out / f"{number}-{index}"
            scratch.mkdir(parents=True, exist_ok=True)
            outcome = fault(Checkout(root, scratch), scratch / "results")
            rows.append((name, str(root), outcome))
            print(f"{name} [{root}]: {outcome}", file=sys.stderr, flush=True)
    print("| fault | checkout | exit | what it prints | left running / on disk |")
    print("|---|---|---|---|---|")
    for name, root, outcome in rows:
        said = outcome.said.replace("|", "\\|")
        print(f"| {name} | {root} | {outcome.status} | {said} | {outcome.left} |")


if __name__ == "__main__":
    main()
