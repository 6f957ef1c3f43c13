"""The files ``piggy serve`` was given (``--board``, ``--design``, ``--layout``), read
by content: once for each new tab, never again for that tab.

A new tab reads each file once, checks it, and works from then on with a copy the
server keeps under a name made from its content (``board-<sha256>.toml``; a design
with its meshes copied alongside), so its shots, its scene and its estimates
all rest on the content it opened with, however the file changes on disk. A tab
opened after an edit reads the new content. An open tab is told when a file it
started from has changed (:meth:`Sources.changed`: "b.toml changed on disk: ..."),
and keeps its own until it is reloaded. A known name (``stock``) is read the
same way, from the installation's file of that name: editing models/boards/stock.toml
while serving is an edit like any other.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from models.board import BOARDS_DIR, board_from_dict, load_board
from models.design import DESIGNS_DIR, design_from_dict, design_toml
from models.errors import InputError
from models.files import (
    parse_json,
    parse_toml,
    read_bytes,
    resolve_named_file,
)
from models.layout import layout_from_dict, load_layout
from models.mesh_files import MAX_MESH_BYTES, MESH_PARTS
from models.text import shown
from sim.studies.demo import demo_stacks

#: ``--layout`` words that name no file.
LAYOUT_WORDS = ("empty", "crowded")


@dataclass(frozen=True)
class Start:
    """What a new tab starts with. ``board`` and ``design``: what the workers load (a
    known name, or the server's copy of the file's content); ``files``: each file read
    from disk for it and the sha256 of the bytes read, (path, sha256)."""

    board: str
    design: str
    stacks: dict[str, list[str]]
    board_label: str
    design_label: str
    files: tuple[tuple[str, str], ...] = ()


class Sources:
    """``board`` and ``design`` (known names or paths), ``layout`` (None: the demo's
    piggies; ``empty``, ``crowded``, a path, or the stacks themselves). Owns the folder
    of the copies (:meth:`cleanup` removes it)."""

    def __init__(
        self,
        board: str = "stock",
        design: str = "stock",
        layout: str | dict[str, list[str]] | None = None,
    ):
        self.board, self.design, self.layout = board, design, layout
        self._folder = tempfile.TemporaryDirectory(prefix="piggy-serve-files-")
        self.folder = Path(self._folder.name)

    def cleanup(self) -> None:
        self._folder.cleanup()

    def read(self) -> Start:
        """Each file read once, now, checked, and its content kept: a new tab's start.
        A file that cannot be read or checked now is refused on one line."""
        files: list[tuple[str, str]] = []
        board = self._board(self.board, files)
        design, design_label = self._design(self.design, files)
        stacks = self._stacks(board, files)
        return Start(board, design, stacks, load_board(board).name, design_label, tuple(files))

    def changed(self, files: tuple[tuple[str, str], ...]) -> str | None:
        """One line naming the files whose content on disk is no longer what was read
        (gone or unreadable counts as changed); None when none has."""
        edited = [path for path, sha in files if _sha256_or_none(path) != sha]
        if not edited:
            return None
        names = ", ".join(shown(os.path.basename(path)) for path in edited)
        return (
            f"{names} changed on disk: reload the page for a tab with the new content "
            "(this tab keeps what it opened with)"
        )

    # --- each file --------------------------------------------------------------------
    def _keep(self, kind: str, data: bytes, suffix: str = ".toml") -> Path:
        """The server's copy of ``data``, named by its content."""
        path = self.folder / f"{kind}-{hashlib.sha256(data).hexdigest()}{suffix}"
        if not path.exists():  # whole or not at all: two tabs may open at once
            partial = path.with_name(f".{path.name}.{threading.get_ident()}")
            partial.write_bytes(data)
            partial.replace(path)
        return path

    def known(self, kind: str, name: str) -> tuple[str, str]:
        """A known board or design chosen in a tab, kept by content as a file given to
        the server is: what the workers load, and its name."""
        if kind == "board":
            board = self._board(name, [])
            return board, load_board(board).name
        return self._design(name, [])

    def _board(self, name: str, files: list) -> str:
        path = resolve_named_file(name, BOARDS_DIR, "board")
        text = _text(path, "board", files)
        # checked now, worded as the loader words it: a broken file is refused before
        # the tab opens
        board_from_dict(parse_toml(text, f"board file {shown(os.fspath(path))}"), str(path))
        return str(self._keep("board", text.encode()))

    def _design(self, name: str, files: list) -> tuple[str, str]:
        """The design as the workers load it (its meshes copied too) and its name."""
        path = resolve_named_file(name, DESIGNS_DIR, "design")
        source = f"design file {shown(os.fspath(path))}"
        data = parse_toml(_text(path, "design", files), source)
        for part in MESH_PARTS:
            section = data.get(part)
            if isinstance(section, dict) and isinstance(section.get("mesh"), str):
                # read here, once, from the design's folder as the loader would
                mesh = Path(os.path.abspath(path.parent / Path(section["mesh"]).expanduser()))
                read = _read(mesh, f"'{part}.mesh'", files, MAX_MESH_BYTES)
                section["mesh"] = str(self._keep("mesh", read, mesh.suffix))
        design = design_from_dict(data, source=str(path))
        text = design_toml(design)
        return str(self._keep("design", text.encode())), design.name

    def _stacks(self, board: str, files: list) -> dict[str, list[str]]:
        if isinstance(self.layout, dict):
            given = {"stacks": self.layout}
            return layout_from_dict(given, board=load_board(board)).to_dict()["stacks"]
        if self.layout is None:
            return demo_stacks(load_board(board))
        if self.layout in LAYOUT_WORDS:
            return load_layout(self.layout, board=load_board(board)).to_dict()["stacks"]
        source = f"layout {shown(self.layout)}"
        data = parse_json(_text(self.layout, "layout", files), source)
        if not isinstance(data, dict):
            raise InputError(f"{source}: a layout must be a JSON object with 'stacks'")
        # the board is the one read above (the file's own 'board' named it at the start)
        layout = {k: v for k, v in data.items() if k != "board"}
        return layout_from_dict(layout, board=load_board(board), source=source).to_dict()["stacks"]


def _read(path: str | Path, kind: str, files: list, max_bytes: int | None = None) -> bytes:
    """A file's bytes, read once, noted in ``files`` with their sha256."""
    data = read_bytes(path, kind, max_bytes)
    files.append((os.path.abspath(path), hashlib.sha256(data).hexdigest()))
    return data


def _text(path: str | Path, kind: str, files: list) -> str:
    """A UTF-8 file's text, read once by :func:`_read` (worded as models/files.py words it)."""
    data = _read(path, kind, files)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            f"{kind} file {shown(os.fspath(path))} is not UTF-8 text (byte "
            f"0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _sha256_or_none(path: str) -> str | None:
    try:
        with open(path, "rb") as file:
            return hashlib.sha256(file.read()).hexdigest()
    except OSError:
        return None
