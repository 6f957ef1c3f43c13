"""A Go Piggy Go! position as a saved state holds it: the phases of a turn, and
reading one back (for referee.go_piggy_go) — every field, and the rules a position
must satisfy: the piggies in play, each on one place, the stacks agreeing with the
pieces and at most two high, checkpoints passed, and the phase, die, target and end
going together (docs/rules/go-piggy-go.md).

Below the game's module, which plays from a position this one reads: what it needs
of the state and the game is named here by their fields (:class:`GoPiggyGoPosition`,
:class:`GoPiggyGoRules`), never by importing the module that imports this one.
"""

from __future__ import annotations

from typing import Any, Protocol

from models.grid import PLACES, TROUGH, Board, Space, space_name
from referee.board_steps import Steps
from referee.validate import FLAG, OBJECT, Fields, one_of, or_none, quoted, whole

#: The phases of a turn: the die is rolled, a piggy moves, a shot's outcome is
#: awaited (after the tractor face), the game is over.
PHASE_ROLL, PHASE_MOVE, PHASE_SHOT, PHASE_OVER = "roll", "move", "shot", "over"


class GoPiggyGoRules(Protocol):
    """What the reader needs of the game (referee.go_piggy_go's ``GoPiggyGoGame``)."""

    params: dict[str, Any]
    faces: list[str]
    board: Board
    geometry: Steps

    @property
    def num_players(self) -> int: ...

    def piggies_of(self, seat: int) -> list[str]: ...


class GoPiggyGoPosition(Protocol):
    """The state as the reader fills it in (referee.go_piggy_go's ``GoPiggyGoState``):
    its fields, so that the type checker holds the state to them where it is passed."""

    @property
    def game(self) -> GoPiggyGoRules: ...

    place: dict[str, Space | str]
    stacks: dict[Space, list[str]]
    passed: dict[str, int]
    phase: str
    player: int
    die: str | None
    target: str | None
    turn: int
    shots_fired: int
    winner: int | None
    capped: bool


def load(state: GoPiggyGoPosition, data: dict) -> None:
    """Set ``state`` from a saved state's fields, or a one-line InputError."""
    game, field = state.game, Fields("go_piggy_go", data)
    by_name, board = game.geometry.by_name, game.board
    pieces = field("pieces", OBJECT)
    for piggy in sorted(set(pieces) ^ set(state.place)):
        field.require(
            False,
            f"{'unknown' if piggy in pieces else 'missing'} piggy "
            f"{quoted(piggy)} in 'pieces' (the piggies in play are "
            f"{', '.join(sorted(state.place))})",
        )
    for piggy, where in pieces.items():
        field.require(
            where in PLACES or where in by_name,
            f"{piggy} is on {quoted(where)}: not a pit, the trough or a space "
            f"of board {quoted(board.name)}",
        )
        state.place[piggy] = by_name.get(where, where)
    state.stacks = _load_stacks(state, field("stacks", OBJECT), field)
    passed = field("passed_checkpoints", OBJECT)
    field.require(
        set(passed) == set(state.place), "'passed_checkpoints' must list every piggy in play"
    )
    stick = game.params["checkpoints_stick"]
    for piggy, where in state.place.items():
        state.passed[piggy] = count = field.item(
            f"passed_checkpoints.{piggy}", passed[piggy], whole(0, 2)
        )
        least = _into_trough(game) if where == TROUGH else _least(game, where)
        field.require(
            count >= least and not (stick and where == "pit" and count),
            f"{piggy} in {pieces[piggy]} with {count} checkpoints passed",
        )
    _load_turn(state, field)


def _least(game: GoPiggyGoRules, where: Space | str) -> int:
    """The fewest checkpoints a piggy on a space or in a pit has passed: those behind
    the space, or the pit's."""
    if isinstance(where, tuple):
        return game.board.checkpoints_passed(where)
    return {"pit-right": 1, "pit-left": 2}.get(where, 0)


def _into_trough(game: GoPiggyGoRules) -> int:
    """The fewest checkpoints a piggy in the trough has passed: those of the place,
    a space or a pit, nearest the start that the die's longest move takes into the
    trough (a piggy's count is not raised on its way in: on the stock board, 1)."""
    faces = [game.params["tractor_move"] if f == "tractor" else int(f) for f in game.faces]
    geometry = game.geometry
    starts: list[Space | str] = [*geometry.entries, *geometry.steps]
    return min((_least(game, s) for s in starts if geometry.reachable(s, max(faces))[1]), default=2)


def _load_stacks(state: GoPiggyGoPosition, raw: dict, field: Fields) -> dict[Space, list[str]]:
    """The stacks, which must hold every piggy on the board and nobody else."""
    by_name, stacks, seen = state.game.geometry.by_name, {}, set()
    for name, stack in raw.items():
        field.require(
            name in by_name,
            f"a stack on {quoted(name)}, not a space of board {quoted(state.game.board.name)}",
        )
        field.require(
            isinstance(stack, list) and 1 <= len(stack) <= 2,
            f"the stack on {name} must list 1 or 2 piggies, got {quoted(stack)}",
        )
        for piggy in stack:
            field.require(
                isinstance(piggy, str)
                and piggy in state.place
                and piggy not in seen
                and state.place[piggy] == by_name[name],
                f"the stack on {name} lists {quoted(piggy)}, which 'pieces' "
                "does not put there (or lists twice)",
            )
            seen.add(piggy)
        stacks[by_name[name]] = list(stack)
    for piggy, where in state.place.items():
        if isinstance(where, tuple):
            field.require(
                piggy in seen, f"{piggy} is on {space_name(where)}, but no stack there lists it"
            )
    return stacks


def _load_turn(state: GoPiggyGoPosition, field: Fields) -> None:
    """Whose turn, the die, the shot, the end: each consistent with the others."""
    game = state.game
    n, cap = game.num_players, game.params["max_turns"]
    state.phase = field("phase", one_of(PHASE_ROLL, PHASE_MOVE, PHASE_SHOT, PHASE_OVER))
    state.player = field("player", whole(0, n - 1))
    state.die = field("die", or_none(one_of(*game.faces), "before the roll"))
    state.target = field("target", or_none(one_of(*state.place), "no shot under way"))
    state.turn = field("turn", whole(0, cap))
    state.shots_fired = field("shots_fired", whole(0, state.turn))
    state.winner = field("winner", or_none(whole(0, n - 1), "no winner yet"))
    state.capped = field("capped", FLAG)
    phase, over = state.phase, state.phase == PHASE_OVER
    field.require(
        (state.die is None) == (phase == PHASE_ROLL) or over,
        f"die {quoted(state.die)} in phase {phase}",
    )
    field.require(  # the cap ends a turn, and the die goes with it
        not (state.capped and state.die is not None),
        f"die {quoted(state.die)} in a game capped after {state.turn} turns: a capped "
        "game ends as a turn does, with no die left",
    )
    field.require(
        (state.target is not None) == (phase == PHASE_SHOT)
        and (
            phase != PHASE_SHOT
            or (state.die == "tractor" and isinstance(state.place[state.target], tuple))
        ),
        f"target {quoted(state.target)} in phase {phase} with die {state.die}",
    )
    field.require(
        over == (state.capped or state.winner is not None)
        and not (state.capped and state.winner is not None)
        and state.capped == (state.turn >= cap),
        f"phase {phase}, winner {quoted(state.winner)}, capped {state.capped} and "
        f"turn {state.turn} of {cap} do not go together",
    )
    complete = [s for s in range(n) if all(state.place[p] == TROUGH for p in game.piggies_of(s))]
    field.require(
        complete == [] if state.winner is None else state.winner in complete,
        f"winner {quoted(state.winner)} with seats {complete} in the trough",
    )
    if state.winner is not None:  # the mover's last move took a piggy of theirs in
        first = min(complete, key=lambda s: (s - state.player) % n)
        field.require(
            state.die is not None
            and state.winner == first
            and any(state.place[p] == TROUGH for p in game.piggies_of(state.player)),
            f"winner {state.winner} after seat {state.player}'s move with die "
            f"{quoted(state.die)}: a game is won by the move that takes the last "
            "piggy into the trough (the mover's own, carrying any on top), and the "
            "first seat from the mover with all three there wins",
        )
