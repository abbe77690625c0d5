"""Dask workers that compute what this process would: the same code, the same libraries.

A worker started from another checkout, or with another NumPy or numba, returns other
rows for some jobs while the run still ends with status 0 (measured: one worker with
modified code changed 13 of 414 rows, and Dask's own version check, which covers its own
dependencies, said nothing). So before a Dask run submits any task,
:func:`check_workers` asks every worker for its :func:`facts` (the SHA-256 of its
package's code and configs, :func:`~anonlab.provenance.source_digest`, and the versions
of :data:`RESULT_PACKAGES`) and refuses the run with one error naming each worker that
differs and what differs. A worker that joins after the check is caught by its first
task: every batch carries this process's :func:`fingerprint`, which the task compares
with its worker's (:func:`require_same`) before it computes anything.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from anonlab import provenance
from anonlab.runner.store import package_versions
from anonlab.validation import ParameterError

#: the libraries whose version can change a run's numbers (``mbi``: the synthetic-data
#: methods); Python's own version is checked too
RESULT_PACKAGES = ("numpy", "pandas", "numba", "scipy", "scikit-learn", "mbi")


class WorkerMismatch(ParameterError):
    """A Dask worker runs other code or other library versions than this process."""


def facts() -> dict[str, Any]:
    """What this process computes with: ``source_sha256`` (its package's code and configs)
    and ``versions`` (Python and :data:`RESULT_PACKAGES`)."""
    return {
        "source_sha256": provenance.source_digest(),
        "versions": package_versions(RESULT_PACKAGES),
    }


def load_average() -> list[float] | None:
    """The system's load average over 1, 5 and 15 minutes (``None`` where the platform
    does not say)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str | None:
    """The CPU's model name (``/proc/cpuinfo``, else :func:`platform.processor`)."""
    try:
        for line in cpuinfo.read_text(encoding="utf-8", errors="replace").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "model name" and value.strip():
                return value.strip()
    except OSError:
        pass
    return platform.processor() or None


def machine(load_at_start: Sequence[float] | None = None) -> dict[str, Any]:
    """The machine a run ran on, for ``run.json``: CPU model, cores (all, and those this
    process may use), and the load average at the run's start and now, its end. Not part
    of :func:`facts`: two workers on different machines compute the same numbers."""
    try:
        usable: int | None = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        usable = None
    return {
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": usable,
        "load_average": {"start": load_at_start, "end": load_average()},
    }


def fingerprint(of: Mapping[str, Any] | None = None) -> str:
    """SHA-256 (hex) of :func:`facts` (``of``, or this process's): equal for two
    processes exactly when their code and library versions are."""
    text = json.dumps(dict(of or facts()), sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()


def differences(expected: Mapping[str, Any], found: Mapping[str, Any]) -> list[str]:
    """What differs between two :func:`facts`, e.g. ``numpy 2.1.0 (here 2.2.1)``,
    ``code and configs sha256 1a2b3c4d… (here 5e6f7a8b…)``."""
    said = []
    if found.get("source_sha256") != expected.get("source_sha256"):
        said.append(
            f"code and configs sha256 {str(found.get('source_sha256'))[:12]}… "
            f"(here {str(expected.get('source_sha256'))[:12]}…)"
        )
    theirs, ours = found.get("versions") or {}, expected.get("versions") or {}
    for name in sorted(set(theirs) | set(ours), key=lambda n: (n != "python", n)):
        if theirs.get(name) != ours.get(name):
            said.append(f"{name} {theirs.get(name)} (here {ours.get(name)})")
    return said


def check_facts(expected: Mapping[str, Any], by_worker: Mapping[str, Mapping[str, Any]]) -> None:
    """Raise one :class:`WorkerMismatch` naming every worker whose facts differ from
    ``expected`` and what differs; a cluster without workers is refused too."""
    if not by_worker:
        raise WorkerMismatch("the Dask scheduler has no workers: start some first")
    wrong = {
        address: said
        for address, found in sorted(by_worker.items())
        if (said := differences(expected, found))
    }
    if wrong:
        listed = "; ".join(f"{address}: {', '.join(said)}" for address, said in wrong.items())
        raise WorkerMismatch(
            f"{len(wrong)} of {len(by_worker)} Dask workers do not run this checkout's "
            f"code and libraries, so their rows could differ: {listed}. Start every "
            "worker from the same checkout and environment as this command"
        )


def check_workers(client: Any) -> dict[str, dict[str, Any]]:
    """Every worker's :func:`facts` (``client.run``, no task submitted), once they all
    match this process's; raises :class:`WorkerMismatch` otherwise."""
    by_worker = client.run(facts)
    check_facts(facts(), by_worker)
    return by_worker


def require_same(expected: str) -> None:
    """Raise :class:`WorkerMismatch` unless this process's :func:`fingerprint` is
    ``expected``: the first thing a Dask task does, so a worker that joined after
    :func:`check_workers` computes nothing with other code."""
    if fingerprint() != expected:
        try:
            from distributed import get_worker

            who = f"Dask worker {get_worker().address}"
        except (ImportError, ValueError):
            who = "this Dask worker"
        mine = facts()
        raise WorkerMismatch(
            f"{who} runs other code or libraries than the run's client (its code and "
            f"configs sha256 {mine['source_sha256'][:12]}…, versions {mine['versions']}), "
            "so its task is refused before computing anything. Start every worker from "
            "the same checkout and environment"
        )


_checked: dict[str, dict[str, dict[str, Any]]] = {}  # scheduler address → its workers' facts


def check_cluster(address: str, timeout: float = 10.0) -> dict[str, dict[str, Any]]:
    """:func:`check_workers` of the Dask scheduler at ``address``, once per process (a run
    checks its workers again when it starts, :func:`require_same` every batch)."""
    if address not in _checked:
        from distributed import Client

        with Client(address, timeout=timeout) as client:
            _checked[address] = check_workers(client)
    return _checked[address]


@contextmanager
def dask_client(address: str | None, n_jobs: int) -> Iterator[Any]:
    """A Dask client of the scheduler at ``address``, or of a local cluster of ``n_jobs``
    single-threaded worker processes started here (joblib's convention for ``n_jobs``),
    closed with the cluster on exit."""
    from dask.distributed import Client, LocalCluster
    from joblib import effective_n_jobs

    cluster = None
    if address is None:
        cluster = LocalCluster(
            n_workers=effective_n_jobs(n_jobs), threads_per_worker=1, dashboard_address=None
        )
    client = Client(cluster if cluster is not None else address)
    try:
        yield client
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
