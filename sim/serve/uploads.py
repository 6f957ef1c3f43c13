"""What a tab of ``piggy serve`` loads: a board, design or aimer chosen by known name,
or a board, design or layout uploaded as a file's text, checked as the command line
checks it; uploaded boards and designs are kept in the server's own folder under a
name made from their text (nothing the browser sends names a file here).
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Callable
from pathlib import Path

from models.aimer import known_aimers, load_aimer
from models.board import BOARDS_DIR, board_from_dict, load_board
from models.design import design_from_dict, known_designs
from models.errors import InputError
from models.files import MAX_FILE_BYTES, known_names, parse_json, parse_toml
from models.layout import layout_from_dict
from models.text import shown
from sim.serve.sessions import Sandbox

#: Uploaded boards and designs kept (each at most 256 KiB).
MAX_UPLOADS = 200


def known_boards() -> list[str]:
    return known_names(BOARDS_DIR)


class Uploads:
    """Switches a tab's sandbox to what it chose or uploaded; owns the folder of the
    uploaded files (:meth:`cleanup` removes it)."""

    def __init__(self, keep: Callable[[str, str], tuple[str, str]] | None = None) -> None:
        self._folder = tempfile.TemporaryDirectory(prefix="piggy-serve-")
        #: A known board or design as the workers load it, and its name: kept by content
        #: (:meth:`sim.serve.sources.Sources.known`), else by name.
        self._keep = keep or (lambda _kind, name: (name, name))

    def cleanup(self) -> None:
        self._folder.cleanup()

    def choose(self, sandbox: Sandbox, body: dict) -> None:
        """A known board, design or aimer by name."""
        for kind, known in (
            ("board", known_boards()),
            ("design", known_designs()),
            ("aimer", known_aimers()),
        ):
            if kind in body:
                name = body[kind]
                if name not in known:
                    raise InputError(
                        f"unknown {kind} '{shown(name)}': known {kind}s are {', '.join(known)}"
                    )
                ref, label = (name, name) if kind == "aimer" else self._keep(kind, name)
                self._use(sandbox, kind, ref, label)
                return
        raise InputError("choose a board, a design or an aimer")

    def upload(self, sandbox: Sandbox, body: dict) -> None:
        """A board, design or layout file's text, checked as the command line checks it."""
        kind, text = body.get("kind"), body.get("text")
        if kind not in ("board", "design", "layout"):
            raise InputError(f"unknown upload '{shown(kind)}': allowed are board, design, layout")
        if not isinstance(text, str):
            raise InputError(f"the uploaded {kind} must be a file's text")
        if len(text.encode()) > MAX_FILE_BYTES[kind]:
            raise InputError(
                f"the uploaded {kind} is larger than "
                f"{MAX_FILE_BYTES[kind] // 1024} KiB, the largest {kind} file "
                "allowed"
            )
        source = f"uploaded {kind}"
        if kind == "layout":
            data = parse_json(text, source)
            if not isinstance(data, dict):
                raise InputError(f"{source}: a layout must be a JSON object with 'stacks'")
            board = data.get("board", sandbox.board_label)
            if board != sandbox.board_label:
                self.choose(sandbox, {"board": board})
            layout_from_dict(
                {k: v for k, v in data.items() if k != "board"},
                board=load_board(sandbox.board),
                source=source,
            )
            sandbox.set_stacks(data.get("stacks", {}), source)
            return
        parsed = parse_toml(text, source)
        if kind == "design" and any(isinstance(v, dict) and "mesh" in v for v in parsed.values()):
            # a mesh is a file on this machine: an upload must not make the server read one
            raise InputError(f"{source}: an uploaded design cannot give a mesh file")
        made = (board_from_dict if kind == "board" else design_from_dict)(parsed, source)
        folder = Path(self._folder.name)
        path = folder / f"{kind}-{hashlib.sha256(text.encode()).hexdigest()}.toml"
        if not path.exists() and len(list(folder.iterdir())) >= MAX_UPLOADS:
            raise InputError(
                f"this server keeps at most {MAX_UPLOADS} uploaded files: restart it to upload more"
            )
        path.write_text(text, encoding="utf-8")
        self._use(sandbox, kind, str(path), f"{made.name} (uploaded)")

    def _use(self, sandbox: Sandbox, kind: str, ref: str, label: str) -> None:
        """Switch the sandbox's board, design or aimer; a new board keeps the layout
        where it fits on it, else empties it."""
        before = sandbox.snapshot()
        sandbox.remember()
        if kind == "aimer":
            load_aimer(ref)
            sandbox.aimer = ref
        else:
            setattr(sandbox, kind, ref)
            setattr(sandbox, f"{kind}_label", label)
        if kind == "board":
            try:
                sandbox.set_stacks(sandbox.stacks)
                sandbox.history.pop()  # one change, one undo
            except InputError:
                sandbox.stacks = {}
            sandbox.aim = (
                before["aim"] if "yaw_deg" in before["aim"] else {"yaw_deg": 0.0, "pitch_deg": 30.0}
            )
