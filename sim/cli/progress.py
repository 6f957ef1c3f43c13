"""Signs of life for the long commands: one start line on standard error before the
work (what it will do, its cap, about how many shots), then a progress bar on a
terminal or, off one (a log, a pipe), a line now and then: what is done, the shots,
the time gone and an estimate of the time left.

Under ``--json`` all of it is left out: a program that reads the JSON finds on
standard error only what went wrong.
"""

from __future__ import annotations

import sys
import threading
import time
import weakref
from collections.abc import Callable
from typing import TextIO

from sim.cli.interrupts import raise_if_interrupted

#: Seconds between two progress lines off a terminal. A person who looks at a log
#: to see whether the run moves sees a new line within half a minute; a run of 40
#: minutes writes about 120 lines, not thousands. A line is also written at once
#: when the study has something new to say (a note: the mean after a look), and
#: one comes on time even while no space finishes (a space can take minutes on a
#: busy machine): a clock's thread asks for it.
LINE_INTERVAL_S = 20.0
#: Units done after a pass's first before its rate is trusted for the time left. The
#: first unit carries the work's one-off set-up (the still scene drawn, a policy
#: solved, the workers started: 1m44s against 0.1 s a frame for a film), so the
#: rate is taken from its end on; a few units more, so that workers whose set-ups
#: end together do not pass for a fast rate.
UNITS_BEFORE_AN_ESTIMATE = 3


def say(text: str, enabled: bool = True, stream: TextIO | None = None) -> None:
    """A line on standard error (``piggy: text``): the start line of a long command."""
    if enabled:
        print(f"piggy: {text}", file=stream or sys.stderr, flush=True)


def count(number: float) -> str:
    """A count as the lines print it: whole, with thousands separated (12,345)."""
    return f"{round(number):,}"


def duration(seconds: float) -> str:
    """Seconds in words a log reader takes in at a glance: 45 s, 3m05s, 1h02m."""
    seconds = max(0, round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class Progress:
    """How far a long command is: call it with the number done so far (and the total,
    once it is known or when it changes; ``note``: what the study says now, e.g. a
    running estimate; ``fired``: the shots fired since the last call), or with None
    once the work is over.

    ``start``, the command's start line, is written first, at the first call (from
    the study, once it has checked its input). On a terminal it draws a bar (tqdm:
    rate and time left); off one it writes a line every ``interval_s`` seconds of
    ``clock`` (a thread of its own asks on time, ``ticking``; a test calls
    :meth:`tick`), and when a note arrives, and a last line with the totals when closed
    (``lines`` False: nothing off a terminal, for a wait of seconds). A count that
    goes back (the board mean's next look counts the spaces again) starts a new
    pass, named ``pass_name`` and numbered in the lines when given; the time left is
    estimated from the current pass's rate after its first unit (which carries the
    set-up), once :data:`UNITS_BEFORE_AN_ESTIMATE` more are done ("time left not
    known yet" till then).
    """

    def __init__(
        self,
        label: str,
        total: int | None = None,
        unit: str = "space",
        *,
        enabled: bool = True,
        lines: bool = True,
        pass_name: str | None = None,
        start: str | None = None,
        stream: TextIO | None = None,
        terminal: bool | None = None,
        interval_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        ticking: bool = True,
    ) -> None:
        self.label, self.total, self.unit, self.pass_name = label, total, unit, pass_name
        self.stream = stream or sys.stderr
        self.terminal = self.stream.isatty() if terminal is None else terminal
        self.enabled = enabled and (lines or self.terminal)
        self.interval_s = LINE_INTERVAL_S if interval_s is None else interval_s
        self.clock = clock
        self.start = start
        self.began = self.last_line = clock()
        self.begun = False
        self.done = 0
        self.shots = 0
        self.note: str | None = None
        self.passes = 1
        self.pass_from = 0
        self.rate_from: tuple[float, int] | None = None  # (time, done) at the first unit's end
        self.closed = False
        self.bar = None
        self.ticking = ticking
        self.lock = threading.Lock()  # the clock's thread and the study's calls
        self.stop = threading.Event()

    def __call__(
        self,
        done: int | None,
        total: int | None = None,
        note: str | None = None,
        fired: int = 0,
    ) -> None:
        if done is None:
            self.close()
            return
        raise_if_interrupted()  # a Ctrl-C a library swallowed stops the work here
        with self.lock:
            self._update(done, total, note, fired)

    def _update(self, done: int, total: int | None, note: str | None, fired: int) -> None:
        if not self.enabled or self.closed:
            return
        if not self.begun:
            self._begin()
        now = self.clock()
        if done < self.done:
            self.passes += 1
            self.pass_from = done
            self.rate_from = None
        if self.rate_from is None and done > self.pass_from:
            self.rate_from = (now, done)
        self.done, self.shots = done, self.shots + fired
        if total is not None:
            self.total = total
        noted = note is not None and note != self.note
        if note is not None:
            self.note = note
        if self.bar is not None:
            self._draw()
        elif noted or now - self.last_line >= self.interval_s:
            self._line(now)

    def tick(self) -> None:
        """Off a terminal, a line if the interval has passed since the last: the time
        gone and left move on while a long space is fired."""
        with self.lock:
            now = self.clock()
            due = now - self.last_line >= self.interval_s
            if due and self.begun and not self.closed and self.bar is None:
                self._line(now)

    def close(self) -> None:
        """The bar closed, or off a terminal the last line: what was done in all."""
        self.stop.set()
        with self.lock:
            self._close()

    def _close(self) -> None:
        if self.closed or not self.enabled:
            return
        if not self.begun:
            self._begin()
        self.closed = True
        if self.bar is not None:
            self.bar.close()
            return
        shots = f", {count(self.shots)} shots" if self.shots else ""
        elapsed = duration(self.clock() - self.began)
        print(
            f"piggy: {self.label}: finished: {self._counted()}{shots} in {elapsed}",
            file=self.stream,
            flush=True,
        )

    def _begin(self) -> None:
        """The start line, and the bar on a terminal: at the first call, once the
        study has checked what it refuses (an unfinished sweep's parts, an output
        another run writes), so that a refusal is the only line."""
        self.begun = True
        if self.start:
            say(self.start, stream=self.stream)
        if self.terminal:
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, unit=self.unit, desc=self.label, file=self.stream)
        elif self.ticking:
            ticker = threading.Thread(
                target=keep_time,
                args=(weakref.ref(self), self.stop, self.interval_s),
                name="piggy-progress",
                daemon=True,
            )
            ticker.start()

    def _draw(self) -> None:
        bar = self.bar
        assert bar is not None
        if self.total is not None and self.total != bar.total:
            bar.total = self.total
        said = [f"{count(self.shots)} shots"] if self.shots else []
        said += [self.note] if self.note else []
        if said:
            bar.set_postfix_str("; ".join(said), refresh=False)
        bar.update(self.done - bar.n)

    def _line(self, now: float) -> None:
        self.last_line = now
        parts = [self._counted()]
        if self.shots:
            parts.append(f"{count(self.shots)} shots")
        parts.append(f"{duration(now - self.began)} elapsed")
        parts.append(self._left(now))
        where = f"{self.pass_name} {self.passes}: " if self.pass_name else ""
        note = f"; {self.note}" if self.note else ""
        print(f"piggy: {self.label}: {where}{', '.join(parts)}{note}", file=self.stream, flush=True)

    def _counted(self) -> str:
        units = self.unit if self.unit.endswith("s") else f"{self.unit}s"
        of = f"/{count(self.total)}" if self.total is not None else ""
        return f"{count(self.done)}{of} {units}"

    def _left(self, now: float) -> str:
        """The time left of this pass at its rate since its first unit was done, or
        why it is not known."""
        if self.total is None:
            return "time left not known yet"
        if self.done >= self.total:
            left = "0 s"
        else:
            since, done_then = self.rate_from or (now, self.done)
            gone, moved = now - since, self.done - done_then
            if moved < UNITS_BEFORE_AN_ESTIMATE or gone <= 0:
                return "time left not known yet"
            left = duration((self.total - self.done) * gone / moved)
        return f"about {left} left" + (f" of this {self.pass_name}" if self.pass_name else "")


def keep_time(progress: weakref.ref[Progress], stop, interval_s: float) -> None:
    """The clock's thread: ``progress`` asked for a line every ``interval_s`` until it
    is closed, or gone (a study that raised never closes it; only a weak reference
    is held, so the thread ends with it)."""
    while not stop.wait(interval_s):
        alive = progress()
        if alive is None:
            return
        alive.tick()
        del alive
