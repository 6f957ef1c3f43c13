"""Files: the one place where the project reads its input files, and writes files
atomically.

Every input file goes through :func:`read_bytes` (and :func:`read_text`,
:func:`read_json`, :func:`read_toml` on top of it), which refuses, with one line
each: what is not a regular file (``/dev/zero``, a FIFO, a folder), a file larger
than its kind's cap (:data:`MAX_FILE_BYTES`), a path too long for the system,
text that is not UTF-8, and, in JSON and TOML, nesting deeper than
:data:`MAX_NESTING`, integers longer than :data:`MAX_INT_DIGITS` digits, a key
repeated in one JSON object, and JSON's ``NaN`` and ``Infinity``.
"""

from __future__ import annotations

import json
import os
import stat
import tomllib
from pathlib import Path

from models import file_kinds
from models.errors import InputError
from models.text import shown

_KIB, _MIB = 1024, 1024 * 1024

#: The largest input file of each kind, bytes. A board, design or layout is a few
#: kilobytes; a game record of a long game or a table of shots a few megabytes.
MAX_FILE_BYTES = {
    "board": 256 * _KIB,
    "design": 256 * _KIB,
    "layout": 256 * _KIB,
    "state": 4 * _MIB,
    "record": 32 * _MIB,
    "table": 32 * _MIB,
}
#: The cap of a kind not in :data:`MAX_FILE_BYTES`.
DEFAULT_MAX_FILE_BYTES = 4 * _MIB

#: Deepest nesting of lists and objects (tables) allowed in a JSON or TOML file;
#: the project's own formats need 4.
MAX_NESTING = 32

#: Longest integer, in digits, allowed in a JSON or TOML file (far below Python's
#: own limit of 4300, and far above any number the formats use).
MAX_INT_DIGITS = 100

#: Longest path accepted, in characters, and longest single name in it, in bytes.
MAX_PATH_CHARS = 4096
MAX_NAME_BYTES = 255


def _size_text(n: int) -> str:
    return f"{n // _MIB} MiB" if n >= _MIB else f"{n // _KIB} KiB"


def check_path_text(text: str, kind: str) -> None:
    """Refuse a path the system could not open anyway: too long, or with a NUL."""
    if "\0" in text:
        raise InputError(f"{kind} path '{shown(text)}' contains a NUL character")
    longest = max(
        (len(part.encode("utf-8", "surrogateescape")) for part in text.split("/")), default=0
    )
    if len(text) > MAX_PATH_CHARS or longest > MAX_NAME_BYTES:
        raise InputError(
            f"{kind} name or path '{shown(text, 40)}' is too long: at most "
            f"{MAX_NAME_BYTES} bytes a name, {MAX_PATH_CHARS} characters a path"
        )


def _limit(kind: str, max_bytes: int | None) -> int:
    return MAX_FILE_BYTES.get(kind, DEFAULT_MAX_FILE_BYTES) if max_bytes is None else max_bytes


def _check_regular(info: os.stat_result, text: str, kind: str, limit: int) -> None:
    """Refuse what is not a regular file, or is one larger than ``limit`` bytes."""
    if not stat.S_ISREG(info.st_mode):
        what = "a folder" if stat.S_ISDIR(info.st_mode) else "not a regular file"
        raise InputError(f"{kind} file {shown(text)} is {what}: give a regular file")
    if info.st_size > limit:
        raise _too_large(text, kind, limit)


def _too_large(text: str, kind: str, limit: int) -> InputError:
    return InputError(
        f"{kind} file {shown(text)} is larger than {_size_text(limit)}, "
        f"the most a {kind} file may be"
    )


def read_bytes(path: str | Path, kind: str, max_bytes: int | None = None) -> bytes:
    """The bytes of a regular file of at most ``max_bytes`` (by default the cap of
    ``kind`` in :data:`MAX_FILE_BYTES`); anything else raises :class:`InputError`.

    ``kind`` (``board``, ``layout``, ``record``, ...) words the errors and picks the cap.
    """
    limit = _limit(kind, max_bytes)
    text = os.fspath(path)
    check_path_text(text, kind)
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
        fd = os.open(text, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise InputError(f"{kind} file '{shown(text)}' does not exist") from None
    except OSError as exc:
        raise InputError(f"{kind} file {shown(text)} cannot be read ({exc.strerror})") from None
    try:
        _check_regular(os.fstat(fd), text, kind, limit)
        # Read one byte past the cap: the size on disk may lie (/proc) or change.
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        data = b"".join(chunks)
    except OSError as exc:
        raise InputError(f"{kind} file {shown(text)} cannot be read ({exc.strerror})") from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise _too_large(text, kind, limit)
    return data


def check_input_file(path: str | Path, kind: str, max_bytes: int | None = None) -> Path:
    """Refuse (:class:`InputError`) a path that :func:`read_bytes` would refuse, without
    reading it, for a file that another library reads itself (Parquet, say)."""
    text = os.fspath(path)
    check_path_text(text, kind)
    try:
        info = os.stat(text)
    except FileNotFoundError:
        raise InputError(f"{kind} file '{shown(text)}' does not exist") from None
    except OSError as exc:
        raise InputError(f"{kind} file {shown(text)} cannot be read ({exc.strerror})") from None
    _check_regular(info, text, kind, _limit(kind, max_bytes))
    return Path(text)


def read_text(path: str | Path, kind: str, max_bytes: int | None = None) -> str:
    """A UTF-8 text file, as :func:`read_bytes` reads it (a Parquet table is told
    what it is: models/file_kinds.py)."""
    data = read_bytes(path, kind, max_bytes)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        file_kinds.refuse_other(
            file_kinds.kind_of_bytes(data), kind, f"{kind} file {shown(os.fspath(path))}"
        )
        raise InputError(
            f"{kind} file {shown(os.fspath(path))} is not UTF-8 text (byte "
            f"0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def _check_nesting(value: object, source: str) -> None:
    """Refuse lists and mappings nested deeper than :data:`MAX_NESTING` (iteratively;
    only the lists and mappings are kept to visit: a game's saved state is mostly
    numbers)."""
    pending = [(value, 1)] if isinstance(value, dict | list) else []
    while pending:
        item, depth = pending.pop()
        if depth > MAX_NESTING:
            raise InputError(f"{source}: nested more than {MAX_NESTING} levels deep")
        children = item.values() if isinstance(item, dict) else item
        pending.extend((c, depth + 1) for c in children if isinstance(c, dict | list))


class _Refused(Exception):
    """Raised inside the JSON parser's hooks; parse_json rewords it with the source."""


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    seen: dict = {}
    for key, value in pairs:
        if key in seen:
            raise _Refused(f"key '{shown(key)}' appears twice in one object")
        seen[key] = value
    return seen


def _short_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise _Refused(
            f"an integer has {len(digits.lstrip('-'))} digits, more than {MAX_INT_DIGITS}"
        )
    return int(digits)


def _no_constant(name: str) -> float:
    raise _Refused(f"{name} is not allowed: numbers must be finite")


def parse_json(text: str, source: str) -> object:
    """Parse JSON strictly: a repeated key in one object, ``NaN``/``Infinity``, an
    integer over :data:`MAX_INT_DIGITS` digits or nesting deeper than
    :data:`MAX_NESTING` is an :class:`InputError` naming ``source``."""
    try:
        value = json.loads(
            text, object_pairs_hook=_unique_keys, parse_int=_short_int, parse_constant=_no_constant
        )
    except json.JSONDecodeError as exc:
        raise InputError(f"{source}: not valid JSON ({exc})") from None
    except _Refused as exc:
        raise InputError(f"{source}: {exc}") from None
    except RecursionError:
        raise InputError(f"{source}: nested more than {MAX_NESTING} levels deep") from None
    _check_nesting(value, source)
    return value


def parse_toml(text: str, source: str) -> dict:
    """Parse TOML (which refuses repeated keys itself); an integer over
    :data:`MAX_INT_DIGITS` digits or nesting deeper than :data:`MAX_NESTING` is an
    :class:`InputError` naming ``source``."""
    try:
        value = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{source}: not valid TOML ({shown(str(exc))})") from None
    except ValueError:  # an integer beyond Python's digit limit
        raise InputError(f"{source}: an integer has more than {MAX_INT_DIGITS} digits") from None
    except RecursionError:
        raise InputError(f"{source}: nested more than {MAX_NESTING} levels deep") from None
    _check_nesting(value, source)
    pending = [value]
    while pending:  # tomllib has no integer hook: check the digits afterwards
        item = pending.pop()
        if isinstance(item, dict | list):
            pending.extend(item.values() if isinstance(item, dict) else item)
        elif isinstance(item, int) and abs(item) >= 10**MAX_INT_DIGITS:
            raise InputError(f"{source}: an integer has more than {MAX_INT_DIGITS} digits")
    return value


def read_json(path: str | Path, kind: str, max_bytes: int | None = None) -> object:
    """A JSON file, read by :func:`read_text` and parsed by :func:`parse_json`; one
    that is not JSON but another kind of the project's files is told what it is."""
    text, source = read_text(path, kind, max_bytes), f"{kind} file {shown(os.fspath(path))}"
    try:
        return parse_json(text, source)
    except InputError:
        file_kinds.refuse_other(file_kinds.kind_of_text(text), kind, source)
        raise


def read_toml(path: str | Path, kind: str, max_bytes: int | None = None) -> dict:
    """A TOML file, read by :func:`read_text` and parsed by :func:`parse_toml`; one
    that is not TOML but another kind of the project's files is told what it is."""
    text, source = read_text(path, kind, max_bytes), f"{kind} file {shown(os.fspath(path))}"
    try:
        return parse_toml(text, source)
    except InputError:
        file_kinds.refuse_other(file_kinds.kind_of_text(text), kind, source)
        raise


def known_names(folder: Path) -> list[str]:
    """The names of the TOML files in a folder, sorted."""
    return sorted(p.stem for p in folder.glob("*.toml"))


def _exists(path: Path) -> bool:
    """Path.exists, but False (not an OSError) for a path the system refuses outright."""
    try:
        os.stat(path)
    except (OSError, ValueError):
        return False
    return True


def resolve_named_file(
    name_or_path: str | Path,
    folder: Path,
    kind: str,
    base_dir: Path | None = None,
    only_beside: bool = False,
) -> Path:
    """A name (``folder/<name>.toml``) or a path, as the path of an existing file.

    A text with a ``/`` or ending in ``.toml`` is a path; so is one naming an
    existing file. A relative path is taken from ``base_dir`` (say, the folder of
    the layout file that names it), by default the current folder. With
    ``only_beside``, the only path allowed is a bare file name in ``base_dir``
    (a game record may name a board shipped with the package or one beside it).
    ``kind`` (``board``, ``design``) words the errors.
    """
    if not isinstance(name_or_path, str | Path):
        raise InputError(
            f"a {kind} must be named by a string (a name or a path), got {shown(name_or_path)}"
        )
    text = os.fspath(name_or_path)
    if not text:
        raise InputError(
            f"the {kind} name is empty: known {kind}s are "
            f"{', '.join(known_names(folder))}, or give a path"
        )
    check_path_text(text, kind)
    candidate = Path(text) if base_dir is None else Path(base_dir) / text
    if text in known_names(folder):
        return folder / f"{text}.toml"
    if only_beside and ("/" in text or text in (".", "..")):
        raise InputError(
            f"{kind} '{shown(text)}' is neither a known {kind} "
            f"({', '.join(known_names(folder))}) nor a file name beside the file "
            f"that names it"
        )
    if candidate.suffix == ".toml" or "/" in text or _exists(candidate):
        if not _exists(candidate):
            raise InputError(f"{kind} file '{shown(os.fspath(candidate))}' does not exist")
        return candidate
    raise InputError(
        f"unknown {kind} '{shown(text)}': known {kind}s are "
        f"{', '.join(known_names(folder))}, or give a path"
    )


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
        raise InputError(f"cannot write {shown(os.fspath(path))}: {exc.strerror}") from None
    return path


def make_folder(folder: Path, what: str) -> Path:
    """Make ``folder`` (and its missing parents) where the work writes; one that cannot
    be made (a file in its place or in a parent's, no permission) is refused on one
    line naming it."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(
            f"cannot make {what} {shown(os.fspath(folder))} ({exc.strerror or type(exc).__name__}):"
            " move what is in its way, or point XDG_CACHE_HOME elsewhere"
        ) from None
    return folder
