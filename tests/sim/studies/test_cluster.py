"""Every study on a Dask cluster (``--scheduler``): the local run's files, byte for
byte, on a ``LocalCluster`` of worker processes; and the faults a cluster has (a
worker killed, the scheduler gone or silent, workers of several threads or of other
code)."""

from __future__ import annotations

import asyncio
import csv
import json
import os
import signal
import socket
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest

from models.errors import InputError
from sim.studies.maps.hitmap import one_space, run_sweep
from sim.studies.running import cluster
from sim.studies.running.cluster import Cluster
from sim.studies.shots.space_shots import SweepSpec
from tests.helpers import run

distributed = pytest.importorskip("dask.distributed")

pytestmark = pytest.mark.slow

#: Generous caps on waits (a busy machine), never a fixed sleep.
WAIT_S = 300
SPACES = ("r8c3", "r2c3", "r9c1", "r1c5", "r7c3", "r3c2")


def spec(**changes) -> SweepSpec:
    settings = {
        "board": "stock",
        "design": "stock",
        "stacks": {},
        "spaces": SPACES,
        "shots": 12,
        "seed": 5,
        "sampler": "rqmc",
    }
    return SweepSpec(**(settings | changes))


def local_cluster(workers: int = 2, threads: int = 1):
    return distributed.LocalCluster(
        n_workers=workers, threads_per_worker=threads, processes=True, dashboard_address=":0"
    )


@pytest.fixture(scope="module")
def scheduler():
    """A cluster of two single-threaded worker processes, shared by the module's
    studies (which leave it as they found it)."""
    with local_cluster() as running:
        yield running.scheduler_address


def same_folders(one: Path, other: Path) -> None:
    """Two folders hold the same files, byte for byte."""
    names = sorted(p.name for p in one.iterdir())
    assert names == sorted(p.name for p in other.iterdir()) and names
    for name in names:
        assert (one / name).read_bytes() == (other / name).read_bytes(), name


def twice(
    capsys, tmp_path: Path, scheduler: str, *argv: str, local: tuple = ("--workers", "1")
) -> tuple[Path, Path, str, str]:
    """A command run locally, then on the cluster, each writing into the same folder
    (``FOLDER`` in ``argv``: the cache and the outputs), the local one moved aside
    first, so that files naming their folder compare equal too; both folders and both
    outputs."""
    work, here = tmp_path / "work", tmp_path / "local"
    args = [a.replace("FOLDER", str(work)) for a in argv]
    work.mkdir()
    code, local_out, err = run(capsys, *args, *local)
    assert code == 0, err
    work.rename(here)
    work.mkdir()
    code, cluster_out, err = run(capsys, *args, "--scheduler", scheduler)
    assert code == 0, err
    return here, work, local_out, cluster_out


# --- the studies: the local run's files -----------------------------------------------------------
def test_a_design_comparison_on_a_cluster_writes_the_local_files(capsys, tmp_path, scheduler):
    local, on_cluster, local_out, cluster_out = twice(
        capsys,
        tmp_path,
        scheduler,
        *("design", "compare", "stock", "fast-spring", "--spaces", ",".join(SPACES[:4])),
        *("--shots", "20", "--cache", "FOLDER", "--json"),
    )
    same_folders(local, on_cluster)
    assert json.loads(local_out) == json.loads(cluster_out)  # each names the same folder


def test_a_design_sweep_on_a_cluster_writes_the_local_files(capsys, tmp_path, scheduler):
    local, on_cluster, local_out, cluster_out = twice(
        capsys,
        tmp_path,
        scheduler,
        *("design", "sweep", "--param", "muzzle_speed=1800:2400:2", "--spaces", "r8c3,r2c3"),
        *("--shots", "10", "--cache", "FOLDER", "--json"),
    )
    same_folders(local, on_cluster)
    assert local_out == cluster_out


def test_an_aim_spread_scan_on_a_cluster_writes_the_local_file(capsys, tmp_path, scheduler):
    local, on_cluster, _, _ = twice(
        capsys,
        tmp_path,
        scheduler,
        *("hitmap", "--spaces", "r8c3,r2c3,r9c1", "--aim-sd-scan", "0:4:3", "--shots", "10"),
        *("--out", "FOLDER/scan.csv", "--json"),
    )
    same_folders(local, on_cluster)


def test_a_design_games_maps_on_a_cluster_are_the_local_maps(tmp_path, scheduler):
    """``design game`` measures its maps with :func:`cached_maps.design_parts`."""
    from models.design import load_design
    from sim.studies.comparing.cached_maps import design_parts

    design = load_design("fast-spring")
    here = design_parts(spec(spaces=SPACES[:3]), design, 1, tmp_path / "local")
    there = design_parts(spec(spaces=SPACES[:3]), design, Cluster(scheduler), tmp_path / "dask")
    assert [m.row for m in here] == [m.row for m in there]
    assert [m.part for m in here] == [m.part for m in there]


def test_a_search_on_a_cluster_keeps_two_trials_in_flight_as_the_local_one_does(
    capsys, tmp_path, scheduler
):
    """``--scheduler`` keeps 2 trials in flight by default; ``--in-flight 2`` here
    gives the same trials, table and best design."""
    pytest.importorskip("optuna")
    local, work, _, cluster_out = twice(
        capsys,
        tmp_path,
        scheduler,
        *("design", "optimise", "stock", "--spaces", "r9c1,r10c3,r1c5", "--shots", "10"),
        *("--param", "pivot_height=80:120", "--trials", "4", "--cache", "FOLDER/cache"),
        *("--storage", "sqlite:///FOLDER/s.db", "--out", "FOLDER/best.toml"),
        *("--table", "FOLDER/trials.csv", "--json"),
        local=("--workers", "2", "--in-flight", "2"),
    )
    for name in ("trials.csv", "trials.csv.json", "best.toml"):  # the database differs in times
        assert (local / name).read_bytes() == (work / name).read_bytes(), name
    rows = list(csv.DictReader((work / "trials.csv").open()))
    assert [(r["trial"], r["batch"], r["in_flight"]) for r in rows] == [
        ("0", "0", "2"),
        ("1", "0", "2"),
        ("2", "2", "2"),
        ("3", "2", "2"),
    ]
    assert json.loads(cluster_out)["in_flight"] == 2


def test_serves_estimates_on_a_cluster_are_the_local_estimates(scheduler):
    pytest.importorskip("starlette")
    from sim.serve.app import Server
    from sim.studies.running.workers import pool_for
    from tests.sim.serve.in_process import LAYOUT, InProcess, aimed_sandbox

    async def estimate(pool) -> dict:
        async with InProcess(Server(LAYOUT["stacks"], workers=2, cluster=pool)) as client:
            sid = await aimed_sandbox(client)
            await client.request(f"/api/{sid}/likely", {"precision": 0.2, "seed": 3})
            await asyncio.wait_for(client.server.tasks[sid], WAIT_S)
            return (await client.request(f"/api/{sid}/likely"))[1]

    here = asyncio.run(estimate(None))
    with pool_for(Cluster(scheduler)) as pool:
        there = asyncio.run(estimate(pool))
    assert here == there and here["running"] is False and here["shots"] > 0


# --- faults -----------------------------------------------------------------------------------
def test_a_worker_killed_mid_study_leaves_the_local_result(tmp_path):
    """The scheduler runs a killed worker's spaces again on the others; each space is
    kept once."""
    local = run_sweep(spec(), tmp_path / "local.csv", "csv", workers=1)
    killed: list[int] = []
    with local_cluster(workers=2) as running, distributed.Client(running) as client:
        pids = sorted(client.run(os.getpid).values())

        def kill_one(done: int, *_, **__) -> None:
            if done >= 1 and not killed:
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        outcome = run_sweep(
            spec(),
            tmp_path / "dask.csv",
            "csv",
            workers=Cluster(running.scheduler_address),
            progress=kill_one,
        )
    assert killed and outcome.computed == len(SPACES)
    assert (tmp_path / "dask.csv").read_bytes() == (tmp_path / "local.csv").read_bytes()
    assert outcome.rows == local.rows


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _dask(*args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_" + args[0], *args[1:]],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def _wait_for_a_worker(address: str) -> None:
    """Until the scheduler answers with a worker (on a busy machine a scheduler
    process takes longer than the study's own 10 s check to start listening)."""
    from dask.distributed import Client

    with Client(address, timeout=WAIT_S) as client:
        client.wait_for_workers(1, timeout=WAIT_S)


def test_the_scheduler_gone_is_one_line_and_keeps_what_finished_for_resume(tmp_path):
    port = _free_port()
    address = f"tcp://127.0.0.1:{port}"
    scheduler = _dask("scheduler", "--port", str(port), "--no-dashboard")
    worker = _dask("worker", address, "--nthreads", "1", "--no-dashboard")
    _wait_for_a_worker(address)
    out = tmp_path / "map.csv"

    def lose_scheduler(done: int, *_, **__) -> None:
        if done >= 2 and scheduler.poll() is None:
            scheduler.kill()

    try:
        with pytest.raises(InputError) as lost:
            run_sweep(spec(), out, "csv", workers=Cluster(address), progress=lose_scheduler)
    finally:
        for process in (scheduler, worker):
            process.kill()
            process.wait(WAIT_S)
    message = str(lost.value)
    assert message.startswith("lost the Dask scheduler at") and "--resume" in message
    assert "\n" not in message
    kept = list((tmp_path / "map.csv.parts").glob("*.json"))
    assert 2 <= len(kept) < len(SPACES)
    resumed = run_sweep(spec(), out, "csv", workers=1, resume=True)
    assert resumed.reused == len(kept)
    run_sweep(spec(), tmp_path / "local.csv", "csv", workers=1)
    assert out.read_bytes() == (tmp_path / "local.csv").read_bytes()


def test_a_scheduler_that_does_not_answer_is_one_line_within_a_bounded_time(capsys, tmp_path):
    with socket.socket() as silent:  # listens, never answers Dask's handshake
        silent.bind(("127.0.0.1", 0))
        silent.listen()
        address = f"tcp://127.0.0.1:{silent.getsockname()[1]}"
        started = time.monotonic()
        code, _, err = run(
            capsys,
            *("hitmap", "--spaces", "r8c3", "--shots", "2", "--scheduler", address),
            *("--out", str(tmp_path / "x.csv")),
        )
        took = time.monotonic() - started
    assert code == 2 and err.count("\n") == 1
    assert f"cannot reach the Dask scheduler at {address} within" in err
    assert took < cluster.CONNECT_TIMEOUT_S + 60  # the timeout, and a busy machine's slack
    assert not (tmp_path / "x.csv").exists() and not (tmp_path / "x.csv.parts").exists()


def test_an_address_that_is_none_is_refused_before_anything(capsys, tmp_path):
    code, _, err = run(
        capsys, "hitmap", "--scheduler", "localhost", "--out", str(tmp_path / "x.csv")
    )
    assert code == 2 and err.count("\n") == 1 and "tcp://HOST:PORT" in err


def test_workers_of_several_threads_are_refused(tmp_path):
    refused = pytest.raises(InputError, match="runs 2 threads: a physics world is not")
    with local_cluster(workers=1, threads=2) as running, refused:
        run_sweep(spec(), tmp_path / "x.csv", "csv", workers=Cluster(running.scheduler_address))
    assert not (tmp_path / "x.csv.parts").exists()


def test_workers_of_other_code_are_refused_on_one_line(tmp_path):
    with local_cluster(workers=1) as running, distributed.Client(running) as client:
        other = "import sim.studies.running.cluster as c; c.code_identity = lambda: '9.9.9 (other)'"
        client.run(exec, other)  # on the worker only
        with pytest.raises(InputError) as refused:
            run_sweep(spec(), tmp_path / "x.csv", "csv", workers=Cluster(running.scheduler_address))
        # refused before any work: no job ever reached the scheduler, no part was kept
        assert client.run_on_scheduler(_tasks_ever) == 0
    assert not (tmp_path / "x.csv.parts").exists()
    message = str(refused.value)
    assert "runs other code than this command: piggy 9.9.9 (other) there" in message
    assert "\n" not in message


def _tasks_ever(dask_scheduler) -> int:
    """The task transitions a scheduler has made since it started (run on it): 0 until
    it is given a task."""
    return dask_scheduler.transition_counter


def test_a_job_refuses_on_a_worker_with_other_code_or_other_files(tmp_path):
    """The check each job makes where it runs (a worker that joined after the start,
    or reads another file at a design's path)."""
    job = partial(one_space, spec(spaces=("r8c3",), shots=2))
    keys = cluster.settings_keys(job)
    assert len(keys) == 1
    with pytest.raises(InputError, match="runs other code than this command"):
        cluster.run_checked("0.0 (other)", keys, job, "r8c3")
    with pytest.raises(InputError, match="reads other input files than this command"):
        cluster.run_checked(cluster.code_identity(), ("another key",), job, "r8c3")
    (part,) = cluster.run_checked(cluster.code_identity(), keys, job, "r8c3")
    assert part == job("r8c3")[0]


def test_a_design_file_edited_between_driver_and_worker_changes_the_key(tmp_path):
    """What a worker that reads another file at a design's path computes."""
    from models.design import design_toml, load_design

    design = tmp_path / "mine.toml"
    design.write_text(design_toml(load_design("stock")))
    job = partial(one_space, spec(design=str(design)))
    before = cluster.settings_keys(job)
    design.write_text(design_toml(load_design("fast-spring")))
    assert cluster.settings_keys(job) != before
