"""One run at a time per output: a sweep into ``h.csv`` owns ``h.csv`` and its parts
folder ``h.csv.parts/`` through a lock file beside them, ``h.csv.lock``.

The lock file holds the owner's process id. It is made whole or not at all (written
under a temporary name, then hard-linked to its name, which fails if the name is
taken), so a second run always reads a complete lock: while the owner lives, the
second run is refused on one line naming it; a lock left by a run that died (its
process is gone: killed, the machine restarted) is taken over. The lock is removed
when its run ends, however it ends short of being killed.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from models.errors import InputError
from models.text import shown


def lock_path(out: Path) -> Path:
    """The lock file of the output ``out``."""
    return out.with_name(out.name + ".lock")


@contextmanager
def owned(out: Path) -> Iterator[None]:
    """Own ``out`` (and its parts folder) for the duration of the ``with`` block, or
    raise an :class:`InputError` naming the run that owns it now."""
    lock = lock_path(out)
    _take(lock, out)
    try:
        yield
    finally:
        if _owner(lock) == os.getpid():
            lock.unlink(missing_ok=True)


def _take(lock: Path, out: Path) -> None:
    me = os.getpid()
    tmp = lock.with_name(f".{lock.name}.{me}.tmp")
    try:
        tmp.write_text(f"{me}\n")
        for _ in range(3):  # a stale lock may be taken over by another run meanwhile
            try:
                os.link(tmp, lock)
                return
            except FileExistsError:
                if lock.is_symlink() or not lock.is_file():
                    raise InputError(
                        f"{shown(os.fspath(lock))} is not a lock file of piggy's "
                        "(a folder or a link): move it away"
                    ) from None
                owner = _owner(lock)
                if owner is not None and _alive(owner):
                    raise InputError(
                        f"{shown(os.fspath(out))} is being written by another run "
                        f"(process {owner}): wait for it to finish, or, if no "
                        f"such run is going, delete {shown(os.fspath(lock))}"
                    ) from None
                _take_over(lock, owner)
    except OSError as exc:
        raise InputError(
            f"cannot make the lock file {shown(os.fspath(lock))}: {exc.strerror}"
        ) from None
    finally:
        tmp.unlink(missing_ok=True)
    raise InputError(
        f"{shown(os.fspath(out))} is being claimed by other runs at the same "
        "time: run one at a time"
    )


def _take_over(lock: Path, dead: int | None) -> None:
    """Move a dead run's lock aside, unless another run took it over first (then it
    is put back)."""
    aside = lock.with_name(f".{lock.name}.{os.getpid()}.stale")
    try:
        os.rename(lock, aside)
    except FileNotFoundError:
        return
    if _owner(aside) != dead:  # another run's fresh lock: give it back
        with suppress(FileExistsError):
            os.link(aside, lock)
    aside.unlink(missing_ok=True)


def _owner(lock: Path) -> int | None:
    """The process id in a lock file, or None (no file, or not a lock of ours)."""
    try:
        text = lock.read_text(errors="replace")[:32].strip()
    except OSError:
        return None
    return int(text) if text.isascii() and text.isdigit() and len(text) < 12 else None


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return pid > 0
