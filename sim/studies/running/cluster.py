"""A study's spaces on a Dask distributed cluster (``--scheduler ADDRESS``) instead of
local worker processes: the same jobs, the same parts, the same files.

- **Where.** A study's ``workers`` is a number of local processes or a
  :class:`Cluster` (:func:`sim.studies.running.workers.pool_for` opens either); the driver
  hands a space (a job) to the cluster as a future and keeps what comes back, so
  progress bars, resume and the output locks are the local run's.
- **Before any work.** The scheduler must answer within :data:`CONNECT_TIMEOUT_S`
  and have a worker within :data:`WORKERS_TIMEOUT_S`; every worker must run one
  thread (a world, Bullet's or MuJoCo's, is not thread-safe), and the same code as the driver
  (the package's version and a sha256 of its sources and data,
  :func:`code_identity`). Each is refused on one line.
- **On the workers.** Every job runs through :func:`run_checked`: the first job of
  a kind on a worker checks the code and the settings the job carries, by content
  (:meth:`SweepSpec.key`: board and design by their sha256), so a worker that joined
  later, or sees another file at a design's path, refuses rather than fires other
  shots; and jobs run one at a time in a worker process, whatever its threads.
- **Faults.** A worker lost mid-study: the scheduler runs its jobs again elsewhere,
  and each space is kept once (its future's result, taken once). The scheduler lost:
  one line, and the spaces finished are kept for ``--resume``.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import CancelledError, Executor, Future
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache, partial
from pathlib import Path
from typing import Any

from models.errors import InputError, install_hint
from models.text import shown

#: Seconds a scheduler has to answer, and to have a worker, before the study is refused.
CONNECT_TIMEOUT_S = 10.0
WORKERS_TIMEOUT_S = 30.0
#: The packages whose files make the code a worker must share with the driver.
_PACKAGES = ("models", "referee", "sim")
#: A scheduler's address as Dask's client takes it: a protocol, a host and a port.
_ADDRESS = re.compile(r"(tcp|tls)://[A-Za-z0-9.\-]+:\d{1,5}|(tcp|tls)://\[[0-9A-Fa-f:]+\]:\d{1,5}")


@dataclass(frozen=True)
class Cluster:
    """A Dask scheduler's address (``tcp://host:8786``): where a study's jobs run."""

    address: str

    def __post_init__(self) -> None:
        if not _ADDRESS.fullmatch(self.address):
            raise InputError(
                f"--scheduler {shown(self.address)} is not a scheduler's address: give "
                "tcp://HOST:PORT (or tls://HOST:PORT), e.g. tcp://127.0.0.1:8786"
            )


#: Where a study's jobs run: this many local worker processes, or a cluster (not the
#: sandbox server's pool of workers, `sim.serve.pool.Workers`).
StudyWorkers = int | Cluster


def dask_distributed():
    """``dask.distributed``, or a one-line error saying how to install it."""
    try:
        import dask.distributed
    except ImportError:
        raise InputError(
            f"--scheduler needs Dask, an optional extra: {install_hint('cluster')}"
        ) from None
    return dask.distributed


@cache
def code_identity() -> str:
    """The package's version and the sha256 of every source and data file of its
    packages (a working copy edited since its install counts as other code)."""
    from sim.studies.shots.datafiles import package_version

    digest = hashlib.sha256()
    root = Path(__file__).resolve().parents[2]
    for package in _PACKAGES:
        for path in sorted((root / package).rglob("*")):
            if path.is_file() and "__pycache__" not in path.parts:
                digest.update(path.relative_to(root).as_posix().encode())
                digest.update(path.read_bytes())
    return f"{package_version()} ({digest.hexdigest()[:12]})"


# --- on the workers ---------------------------------------------------------------------------
#: One job at a time in a worker process: a worker started with several threads would
#: otherwise step one world (Bullet's or MuJoCo's) from two of them.
_ONE_AT_A_TIME = threading.Lock()
#: What this worker process has checked already: (code, settings' keys) pairs.
_CHECKED: set[tuple[str, tuple[str, ...]]] = set()


def run_checked(code: str, keys: tuple[str, ...], job: Callable, *args: Any) -> Any:
    """Run ``job(*args)`` on a worker, once its code is the driver's (``code``) and the
    settings ``job`` carries give the driver's ``keys`` here (the same board and
    design files by content); refused on one line otherwise."""
    if (code, keys) not in _CHECKED:
        here = code_identity()
        if here != code:
            raise InputError(
                f"a Dask worker runs other code than this command: piggy {here} there, "
                f"{code} here; install the same version on every worker"
            )
        if settings_keys(job, args) != keys:
            raise InputError(
                "a Dask worker reads other input files than this command (a board or "
                "design differs by content at the same path): give every worker the "
                "same files"
            )
        _CHECKED.add((code, keys))
    with _ONE_AT_A_TIME:
        return job(*args)


def settings_keys(job: Callable, args: tuple = ()) -> tuple[str, ...]:
    """The keys of the sweep settings a job carries (among a
    :func:`functools.partial`'s arguments and its own ``args``, or in tuples of
    them), computed where this runs: they name the board and design by content."""
    from sim.studies.shots.space_shots import SweepSpec

    found: list[str] = []
    arguments = [*(job.args if isinstance(job, partial) else ()), *args]
    for argument in arguments:
        for item in argument if isinstance(argument, tuple) else (argument,):
            if isinstance(item, SweepSpec):
                found.append(item.key())
    return tuple(found)


# --- the driver ------------------------------------------------------------------------------
class ClusterExecutor(Executor):
    """An executor over a Dask client: each job checked on its worker
    (:func:`run_checked`); its futures are :class:`concurrent.futures.Future`."""

    def __init__(self, client) -> None:
        self._executor = client.get_executor(pure=False)
        self._code = code_identity()

    def submit(self, fn, /, *args, **kwargs) -> Future:
        keys = settings_keys(fn, args)
        return self._executor.submit(run_checked, self._code, keys, fn, *args, **kwargs)

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._executor.shutdown(wait=wait)


@contextmanager
def connected(cluster: Cluster) -> Iterator[Any]:
    """A Dask client of ``cluster``'s scheduler, its workers checked (one thread each,
    the driver's code), refused on one line before any work; closed on leaving.
    Distributed's own log (a traceback per lost connection) is kept to errors it
    cannot recover from: what this command says is the one line."""
    distributed = dask_distributed()
    for name in ["distributed", *logging.root.manager.loggerDict]:
        if name.split(".")[0] == "distributed":  # each has a level of its own
            logging.getLogger(name).setLevel(logging.CRITICAL)
    _answers(cluster)
    client = distributed.Client(
        cluster.address, timeout=f"{CONNECT_TIMEOUT_S}s", set_as_default=False
    )
    try:
        _check_workers(client, cluster)
        yield client
    finally:
        client.close(timeout=CONNECT_TIMEOUT_S)


def _answers(cluster: Cluster) -> None:
    """Refuse, on one line within :data:`CONNECT_TIMEOUT_S`, a scheduler that does
    not answer Dask's handshake: asked first by a connection of its own, since a
    client that fails to start lingers and times out again as it is collected."""
    import asyncio

    from distributed.comm import connect

    async def handshake() -> None:
        comm = await connect(cluster.address, timeout=CONNECT_TIMEOUT_S)
        await comm.close()

    try:  # the whole handshake bounded: a port that accepts and never answers waits on it
        asyncio.run(asyncio.wait_for(handshake(), CONNECT_TIMEOUT_S))
    except Exception as exc:  # refused, timed out, or something else answering there
        reason = str(exc).splitlines()[0][:200] if str(exc) else "no answer"
        raise InputError(
            f"cannot reach the Dask scheduler at {shown(cluster.address)} within "
            f"{CONNECT_TIMEOUT_S:g} s ({shown(reason)})"
        ) from None


def _check_workers(client, cluster: Cluster) -> None:
    """Refuse a cluster with no worker, a worker of several threads, or one that runs
    other code than this process."""
    try:
        client.wait_for_workers(1, timeout=WORKERS_TIMEOUT_S)
    except TimeoutError:
        raise InputError(
            f"the Dask scheduler at {shown(cluster.address)} has no worker (waited "
            f"{WORKERS_TIMEOUT_S:g} s): start one with `dask worker {cluster.address} "
            "--nthreads 1`"
        ) from None
    workers = client.scheduler_info(n_workers=-1)["workers"]
    for address, info in sorted(workers.items()):
        if info.get("nthreads", 1) != 1:
            raise InputError(
                f"Dask worker {address} runs {info['nthreads']} threads: a physics world "
                "is not thread-safe, start workers with --nthreads 1 (and more of them "
                "with --nworkers)"
            )
    code = code_identity()
    for address, theirs in sorted(client.run(code_identity).items()):
        if theirs != code:
            raise InputError(
                f"Dask worker {address} runs other code than this command: piggy "
                f"{theirs} there, {code} here; install the same version on every worker"
            )


def threads(client) -> int:
    """The jobs the cluster runs at once: its workers' threads."""
    workers = client.scheduler_info(n_workers=-1)["workers"]
    return max(1, sum(info.get("nthreads", 1) for info in workers.values()))


@contextmanager
def losing_scheduler(client, cluster: Cluster) -> Iterator[None]:
    """Turn the futures a lost scheduler cancels into one line (what the study has
    kept stays kept, for ``--resume``)."""
    try:
        yield
    except CancelledError:
        if client.status == "running":
            raise
        raise InputError(
            f"lost the Dask scheduler at {shown(cluster.address)}: the spaces finished "
            "are kept; run the same command with --resume when it is back"
        ) from None
