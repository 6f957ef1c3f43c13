"""Ctrl-C (SIGINT) stops every command the same way, and cannot be lost.

The handler raises KeyboardInterrupt, as Python's own does, and remembers it: a
library that catches BaseException (trimesh's optional imports do, and some of its
methods) swallows the KeyboardInterrupt but not the memory of it, and the next step
of the work (:func:`raise_if_interrupted`, called by every progress update) raises
it again: "piggy: interrupted", exit 130, never a run to the end.
"""

from __future__ import annotations

import signal
import threading

_INTERRUPTED = threading.Event()


def interruptible() -> None:
    """Install the handler (the main thread only: signals are delivered there), even
    when piggy was started with SIGINT ignored (a shell's background job)."""
    _INTERRUPTED.clear()
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, _on_interrupt)


def _on_interrupt(signum: int, frame: object) -> None:
    _INTERRUPTED.set()
    raise KeyboardInterrupt


def raise_if_interrupted() -> None:
    """Raise KeyboardInterrupt again when one came and was swallowed since."""
    if _INTERRUPTED.is_set():
        raise KeyboardInterrupt


def was_interrupted() -> bool:
    """Whether Ctrl-C came during the command (even if something swallowed it)."""
    return _INTERRUPTED.is_set()


def forget() -> None:
    """The command is over: its Ctrl-C is told, and concerns no later work in this
    process (a test's, say)."""
    _INTERRUPTED.clear()
    # CPython (3.11) remembers a KeyboardInterrupt that left an exec() of a string
    # (dataclasses and namedtuples build their methods so: a Ctrl-C during an import)
    # even once caught, and then ends `python -m sim.cli` by SIGINT instead of exit
    # 130. The next exec() of a string forgets it.
    exec("")
