"""Dask workers in processes of their own give the local results byte for byte, and a
worker that runs other code is refused before any task (anonlab.runner.workers)."""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from anonlab import provenance
from anonlab.runner import build_experiment, run_cells, run_experiment
from anonlab.runner.execute import RunnerSpec, _checked_batch
from anonlab.runner.fanout import check_fanout, fan_out
from anonlab.runner.workers import WorkerMismatch, check_facts, facts, fingerprint
from anonlab.validation import ParameterError

pytestmark = [pytest.mark.integration, pytest.mark.slow]  # the engine in processes: a drill

TINY = [
    "+experiment=census_ir",
    "grid.k=[2,10]",
    "grid.epsilon=[1.0]",
    "reps=2",
    "figures=[]",
    "tables=[]",
]


@pytest.fixture(scope="module")
def cluster():
    """Two worker processes of one thread each, shared by the tests (about 2 s to start)."""
    distributed = pytest.importorskip("dask.distributed")
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        yield cluster, client


@pytest.fixture
def fresh_checks(monkeypatch):
    """No scheduler checked yet in this process (a check is kept per address)."""
    monkeypatch.setattr("anonlab.runner.workers._checked", {})


def test_worker_processes_give_the_local_bytes(tmp_path, compose_config, cluster, fresh_checks):
    cluster, client = cluster
    pids = set(client.run(os.getpid).values())
    assert len(pids) == 2 and os.getpid() not in pids  # processes, not threads
    local = build_experiment(compose_config(*TINY, "n_jobs=1", f"results_dir={tmp_path / 'l'}"))
    run_experiment(local, local.config, progress=False)
    remote = build_experiment(
        compose_config(
            *TINY,
            "runner=dask",
            f"runner.address={cluster.scheduler_address}",
            f"results_dir={tmp_path / 'd'}",
        )
    )
    run_experiment(remote, remote.config, progress=False)
    assert remote.results_path.read_bytes() == local.results_path.read_bytes()
    # fanout=true: the experiment as one task, run whole by a worker
    fanned = replace(local, out_dir=tmp_path / "f" / local.out_dir.name)
    (paths,) = fan_out([fanned], cluster.scheduler_address, 1)
    assert fanned.results_path in paths
    assert fanned.results_path.read_bytes() == local.results_path.read_bytes()
    run = json.loads((remote.out_dir / "run.json").read_text())
    assert sorted(run["workers"]) == sorted(client.nthreads())
    assert {w["source_sha256"] for w in run["workers"].values()} == {run["source_sha256"]}
    assert run["versions"]["numba"]
    assert json.loads((local.out_dir / "run.json").read_text())["workers"] is None


def _source_copy(target: Path) -> Path:
    """The package's code and configs copied to ``target``, one file changed."""
    shutil.copytree(
        provenance.PACKAGE_DIR,
        target,
        ignore=lambda folder, names: [
            n
            for n in names
            if n == "__pycache__"
            or ((Path(folder) / n).is_file() and not n.endswith(provenance.SOURCE_SUFFIXES))
        ],
    )
    seeds = target / "runner" / "seeds.py"
    seeds.write_text(seeds.read_text() + "\n# a change\n")
    return target


def test_a_worker_with_other_code_is_refused_before_any_task(
    tmp_path, compose_config, cluster, fresh_checks
):
    distributed = pytest.importorskip("dask.distributed")
    cluster, client = cluster
    copy = str(_source_copy(tmp_path / "anonlab"))
    other = sorted(client.nthreads())[1]

    def point_at(folder):  # the worker hashes another checkout's code, as one started there
        from pathlib import Path

        from anonlab import provenance

        provenance.PACKAGE_DIR = Path(folder)

    original = str(provenance.PACKAGE_DIR)
    client.run(point_at, copy, workers=[other])
    try:
        assert client.run(facts)[other]["source_sha256"] != facts()["source_sha256"]
        overrides = [*TINY, "runner=dask", f"runner.address={cluster.scheduler_address}"]
        with pytest.raises(ParameterError, match=rf"1 of 2 .*{other}: code and configs sha256"):
            build_experiment(compose_config(*overrides, f"results_dir={tmp_path}"))

        experiment = build_experiment(compose_config(*TINY, f"results_dir={tmp_path}"))
        with distributed.get_task_stream(client) as stream:  # the run's own check
            with pytest.raises(WorkerMismatch, match=other):
                run_cells(
                    experiment.dataset,
                    experiment.cells,
                    reps=2,
                    master_seed=experiment.seed,
                    metrics=experiment.metrics,
                    progress=False,
                    runner=RunnerSpec("dask", cluster.scheduler_address),
                )
        assert stream.data == []  # refused before any task reached a worker
        # a worker that changed after the check refuses the batch it is given
        task = client.submit(
            _checked_batch, fingerprint(), experiment.dataset, [], 0, (), (), {}, workers=[other]
        )
        with pytest.raises(WorkerMismatch, match=f"Dask worker {other} runs other code"):
            task.result()
    finally:
        client.run(point_at, original, workers=[other])
    assert len(set(w["source_sha256"] for w in client.run(facts).values())) == 1


def test_other_library_versions_are_named_with_their_worker():
    here = facts()
    numpy = {**here, "versions": {**here["versions"], "numpy": "0.0.1"}}
    check_facts(here, {"tcp://a:1": here})
    with pytest.raises(WorkerMismatch, match=r"tcp://b:2: numpy 0\.0\.1 \(here .+\)\. Start"):
        check_facts(here, {"tcp://a:1": here, "tcp://b:2": numpy})
    with pytest.raises(WorkerMismatch, match="no workers"):
        check_facts(here, {})


def test_fanout_is_a_flag_of_a_dask_run():
    assert check_fanout({"fanout": False}) is False
    with pytest.raises(ParameterError, match="fanout must be true or false, got 1"):
        check_fanout({"fanout": 1, "runner": {"name": "dask"}})
    with pytest.raises(ParameterError, match="fanout=true .* add runner=dask"):
        check_fanout({"fanout": True, "runner": {"name": "local"}})
