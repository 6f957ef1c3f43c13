"""What a result depends on, by content: every input file a hit map, a cached map,
a sweep's parts or a design search rests on is named in their keys by the sha256
of what it says, never by its name or path. A file edited (a board's thickness)
changes the key, so nothing made from the old file is reused; a file moved or
named another way (``stock`` or its path) keeps it.

- a board, layout, aimer or table: the sha256 of the file's bytes (a layout and an
  aimer travel as their values in a sweep's settings, which are content already);
- a design: the sha256 of its normalised text
  (:func:`models.design.design_content_sha256`), which carries each of its meshes'
  sha256 and the version of the mesh model.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from models.board import BOARDS_DIR
from models.design import design_content_sha256, load_design
from models.files import read_bytes, resolve_named_file


def file_sha256(path: str | Path, kind: str) -> str:
    """The sha256 of an input file's bytes (``sha256sum FILE`` prints the same), read
    as every input file is (models/files.py: refused on one line when it cannot be)."""
    return hashlib.sha256(read_bytes(path, kind)).hexdigest()


def board_sha256(name_or_path: str | Path) -> str:
    """A board's identity: the sha256 of the file it names."""
    return file_sha256(resolve_named_file(name_or_path, BOARDS_DIR, "board"), "board")


def design_sha256(name_or_path: str | Path) -> str:
    """A design's identity: the sha256 of its normalised text, meshes included."""
    return design_content_sha256(load_design(name_or_path))


def inputs(board: str, design: str) -> dict:
    """The identities of a sweep's files: its board's, and its design's where it names
    one (a cache keyed by design text leaves it out)."""
    return {"board_sha256": board_sha256(board)} | (
        {"design_sha256": design_sha256(design)} if design else {}
    )
