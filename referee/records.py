"""Game records: JSON Lines, the game's name and parameters, then one canonical
action string per line. A record replays exactly, chance outcomes included, so
replaying never re-runs physics.

    {"game": "go_piggy_go", "params": {"players": 2, ...}}
    "die 4"
    "move green-1 r3c2"
    ...
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from models.errors import InputError
from models.file_kinds import kind_of_bytes, kind_of_text, refuse_other
from models.files import parse_json, write_text_atomic
from referee.api import State
from referee.validate import printable, quoted


def record_lines(state: State) -> list[str]:
    """The record of a state's game so far, one JSON text per line."""
    head = json.dumps({"game": state.game.name, "params": state.game.params}, sort_keys=True)
    return [head, *(json.dumps(action) for action in state.history)]


def write_record(state: State, path: str | Path) -> Path:
    """Write a record atomically (a temporary file, then a rename)."""
    return write_text_atomic(path, "\n".join(record_lines(state)) + "\n")


#: The largest record file read (a long game's record is well under a megabyte).
MAX_RECORD_BYTES = 64 * 2**20
HEAD = '{"game": <name>, "params": {...}}'


def read_record(path: str | Path) -> tuple[str, dict, list[str]]:
    """(game name, parameters, actions) of a record file; anything malformed is a
    one-line InputError naming the file and the line."""
    path = Path(path)
    where = f"record file {printable(str(path))}"
    lines = _read_lines(path, where)
    try:
        return _record_of(where, lines)
    except InputError:  # another of the project's files? say which (models/file_kinds.py)
        refuse_other(kind_of_text("\n".join(lines)), "record", where)
        raise


def _record_of(where: str, lines: list[str]) -> tuple[str, dict, list[str]]:
    values = []
    for number, line in enumerate(lines, start=1):
        if line.strip():
            values.append((number, _parse_line(where, number, line)))
    if not values:
        raise InputError(f"{where} is empty")
    (number, head), actions = values[0], values[1:]
    if not isinstance(head, dict):
        raise InputError(f"{where}: line {number} must be {HEAD}, got {quoted(head)}")
    for key in sorted(set(head) - {"game", "params"}):
        raise InputError(
            f"{where}: line {number}: unknown key {quoted(key)} (the first line is {HEAD})"
        )
    name, params = head.get("game"), head.get("params", {})
    if not isinstance(name, str):
        raise InputError(
            f"{where}: line {number}: 'game' must be a game's name, got {quoted(name)}"
        )
    if not isinstance(params, dict):
        raise InputError(
            f"{where}: line {number}: 'params' must be an object of "
            f"game parameters, got {quoted(params)}"
        )
    for number, action in actions:
        if not isinstance(action, str):
            raise InputError(
                f"{where}: line {number} must be an action string, got {quoted(action)}"
            )
    return name, params, [action for _, action in actions]


def _read_lines(path: Path, where: str) -> list[str]:
    """The lines of a regular file of at most MAX_RECORD_BYTES (not a device or a pipe,
    which could be read for ever)."""
    try:
        if not path.is_file():
            raise InputError(f"{where} does not exist or is not a regular file")
        if path.stat().st_size > MAX_RECORD_BYTES:
            raise InputError(f"{where} is over {MAX_RECORD_BYTES // 2**20} MiB: not a game record")
        return path.read_text().splitlines()
    except UnicodeDecodeError:
        with path.open("rb") as file:
            refuse_other(kind_of_bytes(file.read(4)), "record", where)
        raise InputError(f"{where}: cannot be read (UnicodeDecodeError)") from None
    except OSError as exc:
        raise InputError(f"{where}: cannot be read ({type(exc).__name__})") from None


def _parse_line(where: str, number: int, line: str):
    """One line's JSON, strictly (models/files.py: a key twice in one object, NaN, an
    integer of thousands of digits, deep nesting are one-line errors)."""
    return parse_json(line, f"{where}: line {number}")


def replay(name: str, params: dict, actions: list[str], **game_options) -> Iterator[State]:
    """Apply a record's actions one by one, yielding the state after each.

    ``game_options`` (e.g. a shot resolver) are passed to :func:`referee.load_game`;
    a record never needs one, since it holds every chance outcome.
    """
    from referee import load_game

    state = load_game(name, **params, **game_options).new_initial_state()
    yield state
    for number, action in enumerate(actions, start=1):
        try:
            state.apply_action(action)
        except InputError as exc:
            raise InputError(f"record action {number} ({quoted(action)}): {exc}") from None
        yield state
