"""Checks that any game on the API can be run through (Gymnasium-style checkers).

Each raises AssertionError with a message naming what broke.
"""

from __future__ import annotations

import json
import math

import numpy as np

from models.errors import InputError
from referee import corruptions
from referee.api import CHANCE, TERMINAL, Game, IllegalAction, State
from referee.records import record_lines, replay

#: Probabilities of a chance node's outcomes must sum to 1 within this.
PROBABILITY_TOLERANCE = 1e-9


def check_state(state: State) -> None:
    """One state: its outcomes or actions (sorted, as ``legal_actions`` promises),
    clone independence, the JSON round trip of its position."""
    player = state.current_player()
    if player == CHANCE:
        outcomes = state.chance_outcomes()
        assert outcomes, "a chance node with no outcomes"
        total = math.fsum(p for _, p in outcomes)
        assert abs(total - 1.0) < PROBABILITY_TOLERANCE, f"chance probabilities sum to {total}"
        assert all(p >= 0 for _, p in outcomes), "a negative probability"
        assert state.legal_actions() == [], "legal actions at a chance node"
    elif player == TERMINAL:
        assert state.legal_actions() == [] and state.chance_outcomes() == []
        assert len(state.returns()) == state.game.num_players
    else:
        legal = state.legal_actions()
        assert legal, f"player {player} has no legal action"
        assert legal == sorted(legal), f"legal actions not sorted: {legal[:6]}"
        assert len(set(legal)) == len(legal), "a legal action is listed twice"
        assert state._legal_actions() == legal, "legal actions come in no fixed order"
        for action in legal:
            assert state.parse_action(action) == action
    text = position_json(state)
    again = state.game.state_from_json(text)
    assert again.to_json() == text, "to_json / state_from_json does not round-trip"


def position_json(state: State) -> str:
    """The state's JSON without its history: the position alone, as if set up by hand
    (loading it checks the position's rules, not the history)."""
    return json.dumps(
        {"game": state.game.name, "params": state.game.params, "history": [], **state._to_dict()},
        sort_keys=True,
    )


def check_history_round_trip(state: State) -> None:
    """The state with its history loads as itself (the history is replayed and must
    reach the same position)."""
    text = state.to_json()
    again = state.game.state_from_json(text)
    assert again.to_json() == text, "to_json / state_from_json does not round-trip"
    assert json.loads(text)["history"] == state.history


def _assert_refused(game: Game, data: dict, what: str) -> None:
    try:
        game.state_from_json(json.dumps(data))
    except InputError as exc:
        message = str(exc)
        assert "\n" not in message and message, (
            f"{game.name}: {what}: a message of several lines: {message!r}"
        )
        return
    raise AssertionError(f"{game.name}: a saved state with {what} was accepted")


def check_corruptions_refused(state: State) -> None:
    """Saved states corrupted on purpose (referee.corruptions) are refused, each with a
    one-line error: the position alone (its rules must catch them), and with its
    history (which must lead to the saved position)."""
    game = state.game
    position = json.loads(position_json(state))
    for what, bad in (
        *corruptions.generic(position),
        *corruptions.BY_GAME.get(game.name, lambda g, d: ())(game, position),
    ):
        _assert_refused(game, bad, what)
    with_history = json.loads(state.to_json())
    if not state.history:
        return
    for what, bad in corruptions.generic(with_history):
        _assert_refused(game, bad, what + " (with the history)")
    for key, value in with_history.items():  # any change at all: the history says otherwise
        if key not in ("game", "params", "history"):
            for other in _other_values(value):
                _assert_refused(
                    game, {**with_history, key: other}, f"{key!r} = {other!r} against the history"
                )
    for what, history in (
        ("an illegal action", [*state.history, "no such action"]),
        ("an action that is not text", [*state.history[:-1], 7]),
        ("a history cut short", state.history[:-1]),
    ):
        if history and history != state.history:  # (an empty one: a position by hand)
            _assert_refused(game, {**with_history, "history": history}, what)


def _other_values(value) -> list:
    """Values of the same type as ``value`` but different."""
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1]
    if isinstance(value, str):
        return [value + "x"]
    if isinstance(value, list) and value:
        return [value[:-1]]
    if isinstance(value, dict) and value:
        key = sorted(value)[0]
        changed = _other_values(value[key])
        return [{**value, key: changed[0] if changed else "x"}]
    return []


def check_failed_action_changes_nothing(state: State) -> None:
    """An action whose application fails (here: made to fail after the game has
    applied it in full, the worst case) leaves the state exactly as it was, and
    still playable."""
    if state.is_terminal():
        return
    action = state.chance_outcomes()[0][0] if state.is_chance_node() else state.legal_actions()[-1]
    before = state.to_json()
    apply = state._apply

    def apply_then_fail(action):
        apply(action)
        raise RuntimeError("failed on purpose")

    state.__dict__["_apply"] = apply_then_fail  # this state only, removed below
    try:
        state.apply_action(action)
    except RuntimeError:
        pass
    else:
        raise AssertionError("the action did not fail")
    finally:
        state.__dict__.pop("_apply", None)  # gone already if the state was rebuilt
    assert state.to_json() == before, "a failed action changed the state"
    expected = state.game.state_from_json(before) if state.history else None
    state.apply_action(action)
    if expected is not None:
        expected.apply_action(action)
        assert state.to_json() == expected.to_json(), "the state plays on differently"


def check_illegal_action_changes_nothing(state: State) -> None:
    before = state.to_json()
    try:
        state.apply_action("no such action")
    except IllegalAction as exc:
        assert "legal" in str(exc)
    else:
        raise AssertionError("an illegal action was accepted")
    assert state.to_json() == before, "an illegal action changed the state"


def random_playthrough(
    game: Game, seed: int, max_actions: int = 100_000, check_every: int = 0
) -> State:
    """Play uniformly random actions (chance by its probabilities) to the end.

    ``check_every``: run :func:`check_state` on every this-many-th state (0: never).
    """
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    for step in range(max_actions):
        if check_every and step % check_every == 0:
            check_state(state)
        if state.is_terminal():
            return state
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            probs = np.array([p for _, p in outcomes])
            action = outcomes[rng.choice(len(outcomes), p=probs / probs.sum())][0]
        else:
            legal = state.legal_actions()
            action = legal[rng.integers(len(legal))]
        state.apply_action(action)
    raise AssertionError(f"{game.name}: no end after {max_actions} actions")


def check_clone_independence(state: State) -> None:
    """Playing on a clone leaves the original as it was."""
    before = state.to_json()
    clone = state.clone()
    assert clone.to_json() == before
    if not clone.is_terminal():
        if clone.is_chance_node():
            clone.apply_action(clone.chance_outcomes()[0][0])
        else:
            clone.apply_action(clone.legal_actions()[0])
        assert state.to_json() == before, "playing on a clone changed the original"


def check_record_replays(state: State) -> None:
    """The state's record, replayed from scratch, reaches the same state."""
    lines = record_lines(state)
    head = json.loads(lines[0])
    actions = [json.loads(line) for line in lines[1:]]
    *_, final = replay(head["game"], head["params"], actions)
    assert final.to_json() == state.to_json(), "the replayed record ends elsewhere"


def check_game(game: Game, games: int = 20, seed: int = 0, check_every: int = 7) -> None:
    """All of the above, over ``games`` random playthroughs; corruptions and failed
    actions on states of the first playthrough."""
    for i in range(games):
        state = random_playthrough(game, seed + i, check_every=check_every)
        check_state(state)
        check_history_round_trip(state)
        assert sorted(state.returns()) != [0.0] * game.num_players or _is_draw_allowed(state)
        check_record_replays(state)
    history = random_playthrough(game, seed).history
    for depth in sorted({0, 1, 5, len(history) // 3, len(history) // 2, len(history)}):
        state = game.new_initial_state()
        for action in history[:depth]:
            state.apply_action(action)
        check_corruptions_refused(state)
        check_failed_action_changes_nothing(state)
    middle = game.new_initial_state()
    rng = np.random.default_rng(seed)
    for _ in range(int(rng.integers(5, 30))):
        if middle.is_terminal():
            break
        if middle.is_chance_node():
            middle.apply_action(middle.chance_outcomes()[0][0])
        else:
            legal = middle.legal_actions()
            middle.apply_action(legal[int(rng.integers(len(legal)))])
    check_clone_independence(middle)
    if not middle.is_terminal():
        check_illegal_action_changes_nothing(middle)


def _is_draw_allowed(state: State) -> bool:
    """Games that stop at a turn cap end with all returns zero."""
    return bool(state._to_dict().get("capped"))
