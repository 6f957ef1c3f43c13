"""Output files checked before any work: a name a file can be written under, in a
folder that takes it, and never one of the files the command was given (an output
never overwrites an input: not by the same name, a link, a hard link or a known
name)."""

from __future__ import annotations

import argparse
import os
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

from models.errors import InputError
from models.files import check_path_text, read_json, resolve_named_file
from models.text import shown

#: The namespace attribute holding the innermost command's options: (as written, dest).
OPTIONS_OF = "_options_of"

#: The values the running command was given, (option as written, dest, value), set
#: by :func:`given_files` for the command's run: what :func:`check_output` keeps an
#: output from overwriting.
_GIVEN: ContextVar[tuple[tuple[str, str, str], ...]] = ContextVar("given", default=())

#: The options that may name a file by a known name: each one's kind.
_NAMED_KINDS = {
    "board": "board",
    "design": "design",
    "designs": "design",
    "base": "design",
    "aimer": "aimer",
}


def written(action: argparse.Action) -> tuple[str, str]:
    """An option as a user writes it (``--overlay``; a positional's ``VIDEO``), and its dest."""
    longs = [o for o in action.option_strings if o.startswith("--")]
    shown_as = longs[0] if longs else action.metavar or action.dest.upper()
    return str(shown_as), action.dest


@contextmanager
def given_files(args: argparse.Namespace):
    """While the command of ``args`` runs, :func:`check_output` refuses an output that
    is one of the files it was given (main() runs every command inside this)."""
    given = []
    for shown_as, dest in getattr(args, OPTIONS_OF, ()):
        value = getattr(args, dest, None)
        for item in value if isinstance(value, list) else [value]:
            if isinstance(item, str):
                given.append((shown_as, dest, item))
    token = _GIVEN.set(tuple(given))
    try:
        yield
    finally:
        _GIVEN.reset(token)


def check_output(path: str | Path, what: str, suffixes: tuple[str, ...] = ()) -> Path:
    """A file to be written, checked before any work: the suffix (one of
    ``suffixes``, when given), not a folder nor a device, in an existing folder where
    a file can be created (tried: permissions alone do not tell, e.g. on a read-only
    file system). ``what`` words the errors (``--out``, ``--png``)."""
    text = os.fspath(path)
    check_path_text(text, what)
    path = Path(text)
    if suffixes and path.suffix.lower() not in suffixes:
        raise InputError(f"{what} {shown(text)} must end in {' or '.join(suffixes)}")
    if path.is_dir():
        raise InputError(f"{what} {shown(text)} is a folder: give a file name")
    if path.exists() and not path.is_file():
        raise InputError(f"{what} {shown(text)} is not a regular file: give a file name")
    _not_an_input(path, what)
    check_folder_writable(path.parent, f"{what} {shown(text)}")
    return path


def _not_an_input(path: Path, what: str) -> None:
    """Refuse an output that is the same file (by name, by a link, by a hard link or
    by a known name such as ``--design stock``) as a file the command was given by
    another option: writing it would lose the input."""
    if not path.is_file():
        return  # nothing there yet: no input can be lost
    own = what.split("'")[0].split()[0]  # "--truth's sidecar": --truth's own value
    for shown_as, dest, value in _GIVEN.get():
        if shown_as != own and any(_same_file(path, p) for p in _paths_of(dest, value)):
            raise InputError(
                f"{what} {shown(os.fspath(path))} is the same file as {shown_as} "
                f"{shown(value)}: an output never overwrites an input; give another name"
            )


def _paths_of(dest: str, value: str) -> list[str]:
    """The files an option's value names: the value as a path; a board or design by
    its known name; for a layout, the board file it names too."""
    paths = [value]
    kind = _NAMED_KINDS.get(dest)
    if kind or dest == "layout":
        from models.aimer import AIMERS_DIR
        from models.board import BOARDS_DIR
        from models.design import DESIGNS_DIR

        folders = {"board": BOARDS_DIR, "design": DESIGNS_DIR, "aimer": AIMERS_DIR}
        try:
            if kind:
                paths.append(os.fspath(resolve_named_file(value, folders[kind], kind)))
            elif os.path.isfile(value):
                data = read_json(value, "layout")
                if isinstance(data, dict) and isinstance(data.get("board"), str):
                    where = Path(value).parent
                    board = resolve_named_file(data["board"], BOARDS_DIR, "board", base_dir=where)
                    paths.append(os.fspath(board))
        except InputError:
            pass  # not a file: the command refuses it itself, worded for what it is
    return paths


def _same_file(a: Path, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_table_output(path: str | Path, what: str, fmt: str | None = None) -> Path:
    """A data file to be written (:func:`check_output`, a table's suffixes), and for
    CSV its sidecar ``<file>.json`` too, so that neither is found unwritable after
    the work (with the table already written)."""
    from sim.studies.shots import datafiles

    out = check_output(path, what, datafiles.SUFFIXES)
    if datafiles.format_of(out, fmt) == "csv":
        check_output(datafiles.sidecar_path(out), f"{what}'s sidecar")
    return out


def check_output_folder(path: str | Path, what: str) -> Path:
    """A folder to write into (made, with its missing parents, when the work writes),
    checked before any work: the nearest part of it that exists must be a folder in
    which files can be created."""
    text = os.fspath(path)
    check_path_text(text, what)
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise InputError(f"{what} {shown(text)} is not a folder")
    existing = path.absolute()
    while not existing.exists() and existing.parent != existing:
        existing = existing.parent
    check_folder_writable(existing, f"{what} {shown(text)}")
    return path


def check_folder_writable(folder: Path, what: str) -> None:
    """Refuse a folder that does not exist or in which no file can be created."""
    if not folder.is_dir():
        problem = "is not a folder" if folder.exists() else "does not exist"
        raise InputError(f"cannot write {what}: folder {shown(os.fspath(folder))} {problem}")
    probe = folder / f".piggy-write-test.{os.getpid()}"
    try:
        os.close(os.open(probe, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        os.unlink(probe)
    except OSError as exc:
        raise InputError(
            f"cannot write {what}: folder {shown(os.fspath(folder))} is not "
            f"writable ({exc.strerror})"
        ) from None
