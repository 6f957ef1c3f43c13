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
from models.files import write_text_atomic
from referee.api import State


def record_lines(state: State) -> list[str]:
    """The record of a state's game so far, one JSON text per line."""
    head = json.dumps({"game": state.game.name, "params": state.game.params}, sort_keys=True)
    return [head, *(json.dumps(action) for action in state.history)]


def write_record(state: State, path: str | Path) -> Path:
    """Write a record atomically (a temporary file, then a rename)."""
    return write_text_atomic(path, "\n".join(record_lines(state)) + "\n")


def read_record(path: str | Path) -> tuple[str, dict, list[str]]:
    """(game name, parameters, actions) of a record file."""
    path = Path(path)
    try:
        lines = [line for line in path.read_text().splitlines() if line.strip()]
    except FileNotFoundError:
        raise InputError(f"record file '{path}' does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"record file {path}: cannot be read ({exc})") from None
    if not lines:
        raise InputError(f"record file {path} is empty")
    try:
        head = json.loads(lines[0])
        actions = [json.loads(line) for line in lines[1:]]
    except json.JSONDecodeError as exc:
        raise InputError(f"record file {path}: line {exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(head, dict) or "game" not in head:
        raise InputError(f"record file {path}: the first line must be "
                         '{"game": ..., "params": {...}}')
    bad = next((i for i, a in enumerate(actions, start=2) if not isinstance(a, str)), None)
    if bad is not None:
        raise InputError(f"record file {path}: line {bad} is not an action string")
    return head["game"], head.get("params", {}), actions


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
            raise InputError(f"record action {number} ('{action}'): {exc}") from None
        yield state
