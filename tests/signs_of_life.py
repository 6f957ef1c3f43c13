"""Signs of life for a long test run: a line each time another twentieth of the
tests is done (and at least every 30 s while tests finish), with the count, the
share, the time gone, the CPU time used so far by pytest and its workers, and the
failures so far. Beside the wall time the CPU time tells a slow suite (both move)
from a hung one (the CPU stands still). Written by the process that reports (with
pytest-xdist's ``-n auto``, the controller; the workers stay quiet)."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest

#: A line each time this share of the tests more is done (at least this many),
EVERY_SHARE, AT_LEAST = 0.05, 10
#: and at least this often (s) while tests finish.
EVERY_S = 30.0


def cpu_seconds() -> float | None:
    """CPU time (user + system) of this process, its workers and what they started,
    live or ended and waited for; None without psutil (the dev extra has it)."""
    try:
        import psutil
    except ImportError:
        return None
    me = psutil.Process()
    total = 0.0
    for process in (me, *me.children(recursive=True)):
        try:
            t = process.cpu_times()
        except psutil.Error:  # ended since it was listed
            continue
        total += t.user + t.system + t.children_user + t.children_system
    return total


class SignsOfLife:
    """Counts the tests done (``finished``, once a test's teardown is reported; a
    test with a failed report is put in ``failed`` first) and writes a line through
    ``write`` when due."""

    def __init__(
        self,
        write: Callable[[str], None],
        clock: Callable[[], float] = time.monotonic,
        cpu: Callable[[], float | None] = cpu_seconds,
    ) -> None:
        self.write, self.clock, self.cpu = write, clock, cpu
        self.began = self.last = clock()
        self.total: int | None = None
        self.done = self.said = 0
        self.failed: set[str] = set()

    def finished(self) -> None:
        self.done += 1
        now = self.clock()
        step = max(AT_LEAST, round(self.total * EVERY_SHARE)) if self.total else 100
        if self.done - self.said >= step or now - self.last >= EVERY_S:
            self.said, self.last = self.done, now
            self.write(self.line(now))

    def line(self, now: float) -> str:
        share = f" ({100 * self.done / self.total:.0f} %)" if self.total else ""
        of = f"/{self.total:,}" if self.total else ""
        cpu = self.cpu()
        spent = f", {_minutes(cpu)} of CPU" if cpu is not None else ""
        return (
            f"tests: {self.done:,}{of} done{share}, {_minutes(now - self.began)} gone{spent}; "
            f"{len(self.failed)} failed"
        )


def _minutes(seconds: float) -> str:
    minutes, seconds = divmod(round(seconds), 60)
    return f"{minutes}m{seconds:02d}s"


class _Hooks:
    """pytest's side: the number of tests (collected here, or by the xdist workers)
    and each test's reports."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.life = SignsOfLife(self._write)

    def _write(self, line: str) -> None:
        """A line of its own, after the row of dots it interrupts (the reporter is
        registered after this plugin: asked for here)."""
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is None:
            return
        if reporter.verbosity <= 0:  # a row of dots, left open by the reporter
            reporter.write("\n")
        reporter.write_line(line)

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        if session.items:
            self.life.total = len(session.items)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node, ids) -> None:
        self.life.total = len(ids)

    @pytest.hookimpl(trylast=True)  # after the reporter's dot for the same test
    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.failed:
            self.life.failed.add(report.nodeid)
        if report.when == "teardown":
            self.life.finished()


def configure(config: pytest.Config) -> None:
    """tests/conftest.py's ``pytest_configure``: the hooks registered in the
    reporting process only (an xdist worker has ``workerinput``),
    and not with ``--collect-only``."""
    if not hasattr(config, "workerinput") and not config.option.collectonly:
        config.pluginmanager.register(_Hooks(config), "signs-of-life")
