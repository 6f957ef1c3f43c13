"""Checks that any game on the API can be run through (Gymnasium-style checkers).

Each raises AssertionError with a message naming what broke.
"""

from __future__ import annotations

import json
import math

import numpy as np

from referee.api import CHANCE, TERMINAL, Game, IllegalAction, State
from referee.records import record_lines, replay

#: Probabilities of a chance node's outcomes must sum to 1 within this.
PROBABILITY_TOLERANCE = 1e-9


def check_state(state: State) -> None:
    """One state: its outcomes or actions, clone independence, the JSON round trip."""
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
        assert len(set(legal)) == len(legal), "a legal action is listed twice"
        assert state.clone().legal_actions() == legal, "legal actions come in no fixed order"
        for action in legal:
            assert state.parse_action(action) == action
    text = state.to_json()
    again = state.game.state_from_json(text)
    assert again.to_json() == text, "to_json / state_from_json does not round-trip"
    assert json.loads(text)["history"] == state.history


def check_illegal_action_changes_nothing(state: State) -> None:
    before = state.to_json()
    try:
        state.apply_action("no such action")
    except IllegalAction as exc:
        assert "legal" in str(exc)
    else:
        raise AssertionError("an illegal action was accepted")
    assert state.to_json() == before, "an illegal action changed the state"


def random_playthrough(game: Game, seed: int, max_actions: int = 100_000,
                       check_every: int = 0) -> State:
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
    """All of the above, over ``games`` random playthroughs."""
    for i in range(games):
        state = random_playthrough(game, seed + i, check_every=check_every)
        check_state(state)
        assert sorted(state.returns()) != [0.0] * game.num_players or _is_draw_allowed(state)
        check_record_replays(state)
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
