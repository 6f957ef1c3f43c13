"""Local worker processes that never outlive the process that started them.

A sweep's workers are a :class:`~concurrent.futures.ProcessPoolExecutor`'s. When
the parent exits normally the pool shuts them down; when it is killed outright
(``kill -9``, the out-of-memory killer) nothing runs in it to do so, and the
workers would go on firing shots for nobody. So each worker, as it starts, asks
the kernel to kill it when its parent dies (Linux ``prctl(PR_SET_PDEATHSIG)``):
immediate, and it works while the worker is deep inside a physics step (PyBullet's
holds the interpreter lock, which would keep a watchdog thread from running).
Elsewhere a watchdog thread polls the parent's pid once a second.
"""

from __future__ import annotations

import ctypes
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Executor, ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sim.studies.running.cluster import StudyWorkers

#: Shots a second a worker fires, about, to size a study's time before any shot is
#: fired (a child aiming on the stock board, the idle development machine:
#: docs/hitmap.md, "Time to an answer").
SHOTS_PER_S_A_WORKER = 90.0

#: prctl's option that sets the signal a process gets when its parent dies (linux/prctl.h).
_PR_SET_PDEATHSIG = 1
#: How often the watchdog (where prctl is missing) looks at the parent, s.
_WATCH_EVERY_S = 1.0


def die_with_parent(parent_pid: int) -> None:
    """Run in each worker as it starts: exit when ``parent_pid`` is no longer the parent."""
    if sys.platform.startswith("linux") and _set_parent_death_signal():
        # the parent may have died before the signal was asked for: look once
        if os.getppid() != parent_pid:
            os._exit(1)
        return
    threading.Thread(
        target=_watch_parent, args=(parent_pid,), daemon=True, name="piggy-parent-watch"
    ).start()


def _set_parent_death_signal() -> bool:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent_pid: int) -> None:
    while os.getppid() == parent_pid:
        time.sleep(_WATCH_EVERY_S)
    os._exit(1)


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of ``workers`` processes, each exiting when this process dies; left
    normally, it waits for its work; left by an exception (Ctrl-C's
    KeyboardInterrupt), it stops its workers at once (:func:`stop_workers`), so that
    an interrupted command ends promptly with what it kept.

    The workers are started at once by the thread that opens the pool: the kernel
    sends the signal when the *thread* that started a worker ends, and a study may
    hand jobs to the pool from threads of its own (trials in flight)."""
    pool = ProcessPoolExecutor(
        max_workers=workers, initializer=die_with_parent, initargs=(os.getpid(),)
    )
    try:
        # started now, by this thread (where processes fork, all of them at the first
        # job): started by a study's other thread, they would die as it ends
        pool.submit(int).result()
        yield pool
    except BaseException:
        stop_workers(pool)
        raise
    pool.shutdown()


def stop_workers(pool: ProcessPoolExecutor) -> None:
    """Stop a pool's workers now, dropping what waits: work running is not waited
    for (the pool's own shutdown would), its worker is terminated."""
    processes = list((pool._processes or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        if process.is_alive():
            process.terminate()
    for process in processes:
        process.join(timeout=5)


@dataclass(frozen=True)
class Pool:
    """Workers kept for a whole study (their worlds with them), and how many: as
    many jobs are kept in flight. Local processes, or a Dask cluster's workers."""

    executor: Executor
    size: int


@contextmanager
def pool_for(workers: StudyWorkers, jobs: int | None = None) -> Iterator[Pool | None]:
    """Where a study's jobs run: ``workers`` local processes (at most ``jobs`` of them;
    None when one process would do: the jobs run in this one), or the Dask cluster it
    names (sim/studies/running/cluster.py), connected and checked before any job."""
    if not isinstance(workers, int):
        from sim.studies.running import cluster

        with (
            cluster.connected(workers) as client,
            cluster.losing_scheduler(client, workers),
        ):
            yield Pool(cluster.ClusterExecutor(client), cluster.threads(client))
        return
    size = min(workers, jobs) if jobs is not None else workers
    if size <= 1:
        yield None
        return
    with process_pool(size) as executor:
        yield Pool(executor, size)


def shots_seconds(shots: int, workers: StudyWorkers) -> float:
    """About how long ``shots`` take on ``workers`` at :data:`SHOTS_PER_S_A_WORKER`
    (a cluster counted as one worker: its size is not known before it is reached)."""
    return shots / (SHOTS_PER_S_A_WORKER * (workers if isinstance(workers, int) else 1))


def each_result(
    pool: Pool | None, job: Callable, todo: list[str], fired: Callable, keep: Callable
) -> None:
    """``job(name, fired(name))`` for each space ``name`` of ``todo``, each result
    handed to ``keep`` as it comes: one after another in this process (no pool), else
    on the pool's workers, in the order they finish."""
    if pool is None:
        for name in todo:
            keep(job(name, fired(name)))
        return
    futures = [pool.executor.submit(job, name, fired(name)) for name in todo]
    for future in as_completed(futures):
        keep(future.result())
