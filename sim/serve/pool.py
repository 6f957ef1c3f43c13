"""The sandbox's worker processes: a bounded pool shared by every tab.

Shots and layouts are quick; an estimate ("how likely?") is long (a job a look),
so estimates may take all the workers but one, and a FIRE from any tab always
finds a worker soon. Work still waiting when its tab closes is dropped. The
workers die with the server (:mod:`sim.studies.workers`) and ignore Ctrl-C: the
server stops them.
"""

from __future__ import annotations

import asyncio
import os
from concurrent.futures import ProcessPoolExecutor

from sim.serve import jobs


class Workers:
    """``size`` worker processes (at least 2) and the futures each tab waits on."""

    def __init__(self, size: int):
        self.size = max(2, size)
        self._pool = ProcessPoolExecutor(
            max_workers=self.size, initializer=jobs.start_worker, initargs=(os.getpid(),)
        )
        self._estimates = asyncio.Semaphore(self.size - 1)
        self._waiting: dict[str, set] = {}

    async def run(self, owner: str, fn, *args):
        """``fn(*args)`` in a worker, for the tab ``owner``; its value."""
        future = self._pool.submit(fn, *args)
        self._waiting.setdefault(owner, set()).add(future)
        try:
            return await asyncio.wrap_future(future)
        finally:
            self._waiting.get(owner, set()).discard(future)

    async def run_estimate(self, owner: str, fn, *args):
        """As :meth:`run`, for long work: at most ``size - 1`` at once."""
        async with self._estimates:
            return await self.run(owner, fn, *args)

    def drop(self, owner: str) -> None:
        """Cancel a closed tab's work that has not started."""
        for future in self._waiting.pop(owner, set()):
            future.cancel()

    def close(self) -> None:
        """Stop the workers now, dropping what waits: a running estimate is not
        waited for (the pool's own shutdown would), its worker is terminated."""
        processes = list((self._pool._processes or {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for process in processes:
            if process.is_alive():
                process.terminate()
        for process in processes:
            process.join(timeout=5)
