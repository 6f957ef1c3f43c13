"""The sandbox's worker processes: a bounded pool shared by every tab.

Shots and layouts are quick; an estimate ("how likely?") is long (a job a look),
so estimates may take all the workers but one, and a FIRE from any tab always
finds a worker soon. Work still waiting when its tab closes is dropped. The
workers die with the server (:mod:`sim.studies.running.workers`) and ignore Ctrl-C: the
server stops them.

- **Faults.** A worker that dies (``kill -9``, the out-of-memory killer) breaks its
  pool: the request it ran, and any other in flight on that pool, gets one line
  (:class:`WorkerLost`, status 503), and a fresh pool takes the next one.
- **A cluster.** Started with a Dask scheduler (``piggy serve --scheduler``), the
  estimates run on its workers (sim/studies/running/cluster.py), as many at once as it has
  threads; shots and looks stay here, where they are quick. A lost scheduler ends
  the estimates it ran with one line (:class:`ClusterLost`).
- **Connections.** Workers are spawned, not forked: a forked worker would keep a copy
  of every socket the server had open when it started (a client's connection, which
  that client would then wait on for ever).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

from sim.serve import jobs
from sim.studies.running.workers import Pool, stop_workers


class WorkerLost(Exception):
    """A worker died while it worked on a request; the pool has been replaced."""

    def __init__(self):
        super().__init__(
            "a worker process died while it worked on this request (killed, or out of "
            "memory); a new one has taken its place: try again"
        )


class ClusterLost(Exception):
    """The Dask cluster the estimates run on stopped answering."""

    def __init__(self):
        super().__init__(
            "lost the Dask scheduler the estimates run on: start it (and its workers) "
            "again, or restart the server without --scheduler"
        )


class Workers:
    """``size`` worker processes (at least 2) and the futures each tab waits on;
    estimates on ``cluster`` where one is given (a Dask cluster's pool)."""

    def __init__(self, size: int, cluster: Pool | None = None):
        self.size = max(2, size)
        self._pool = self._new_pool()
        self._cluster = cluster
        self._estimates = asyncio.Semaphore(cluster.size if cluster else self.size - 1)
        self._waiting: dict[str, set] = {}

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(
            max_workers=self.size,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=jobs.start_worker,
            initargs=(os.getpid(),),
        )

    def _renew(self, broken: ProcessPoolExecutor) -> None:
        """Put a fresh pool in the place of ``broken`` (once, however many requests
        found it broken)."""
        if self._pool is broken:
            stop_workers(broken)
            self._pool = self._new_pool()

    async def run(self, owner: str, fn, *args):
        """``fn(*args)`` in a worker, for the tab ``owner``; its value. A worker dying
        under it raises :class:`WorkerLost`."""
        pool = self._pool
        try:
            future = pool.submit(fn, *args)
        except BrokenProcessPool:  # broken since the last request: renew, then run
            self._renew(pool)
            pool = self._pool
            future = pool.submit(fn, *args)
        self._waiting.setdefault(owner, set()).add(future)
        try:
            return await asyncio.wrap_future(future)
        except BrokenProcessPool:
            self._renew(pool)
            raise WorkerLost from None
        finally:
            self._waiting.get(owner, set()).discard(future)

    async def run_estimate(self, owner: str, fn, *args):
        """As :meth:`run`, for long work: at most ``size - 1`` at once, or on the
        cluster as many as it has threads."""
        async with self._estimates:
            if self._cluster is None:
                return await self.run(owner, fn, *args)
            return await self._on_cluster(owner, fn, *args)

    async def _on_cluster(self, owner: str, fn, *args):
        assert self._cluster is not None
        future = self._cluster.executor.submit(fn, *args)
        self._waiting.setdefault(owner, set()).add(future)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            task = asyncio.current_task()
            if task is not None and task.cancelling():  # the tab's own cancel
                raise
            raise ClusterLost from None  # cancelled by the client: its scheduler is gone
        finally:
            self._waiting.get(owner, set()).discard(future)

    def drop(self, owner: str) -> None:
        """Cancel a closed tab's work that has not started."""
        for future in self._waiting.pop(owner, set()):
            future.cancel()

    def close(self) -> None:
        """Stop the workers now, dropping what waits."""
        stop_workers(self._pool)
