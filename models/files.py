"""Files: reading the project's named files (a name of a file in a folder of
models/, or a path), and writing files atomically."""

from __future__ import annotations

import os
import tomllib
from pathlib import Path

from models.errors import InputError


def known_names(folder: Path) -> list[str]:
    """The names of the TOML files in a folder, sorted."""
    return sorted(p.stem for p in folder.glob("*.toml"))


def resolve_named_file(name_or_path: str | Path, folder: Path, kind: str) -> Path:
    """A name (``folder/<name>.toml``) or a path, as the path of an existing file.

    ``kind`` (``board``, ``design``) words the errors.
    """
    text = str(name_or_path)
    candidate = Path(text)
    if candidate.suffix == ".toml" or "/" in text or candidate.exists():
        if not candidate.is_file():
            raise InputError(f"{kind} file '{text}' does not exist")
        return candidate
    path = folder / f"{text}.toml"
    if not path.is_file():
        raise InputError(f"unknown {kind} '{text}': known {kind}s are "
                         f"{', '.join(known_names(folder))}, or give a path")
    return path


def read_toml(path: Path, kind: str) -> dict:
    """Parse a TOML file; unreadable or malformed files raise :class:`InputError`."""
    try:
        return tomllib.loads(path.read_text())
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{kind} file {path}: not valid TOML ({exc})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"{kind} file {path}: cannot be read ({exc})") from None


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write a text file whole or not at all: a temporary file beside it, then a
    rename, so an interrupted run never leaves half a file. Errors are InputErrors."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text)
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror}") from None
    return path
