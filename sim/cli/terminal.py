"""Games at the terminal: human seats, bot logs, replays and tournaments for the
``piggy play``, ``piggy replay`` and ``piggy tournament`` commands.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from models.aimer import load_aimer, parse_aim_sd
from models.design import load_design
from models.errors import InputError
from models.files import check_input_file
from models.numbers import ascii_whole
from models.text import shown
from referee import canonical_name, load_game
from referee.api import Game, State
from referee.bots import make_bot
from referee.go_piggy_go import GoPiggyGoState
from referee.shots import ScriptedResolver, TableResolver, parse_shots
from referee.validate import parse_params

#: ANSI colours for the seats' piggies on a terminal.
_ANSI = {"G": "\033[1;32m", "Y": "\033[1;33m", "P": "\033[1;35m", "B": "\033[1;34m"}
_RESET = "\033[0m"
#: The bot that fills the seats ``piggy play`` is not told about, by game.
DEFAULT_BOTS = {
    "go_piggy_go": "greedy",
    "pig_out": "hold-at-20",
    "woolfy": "careful",
    "by_golly": "memory",
}


class GameAbandoned(Exception):
    """A human seat's input ended (standard input closed) in the middle of a game."""


def make_resolver(
    shots: str,
    design_name: str | None,
    hit_rule: str,
    seed: int,
    aimer_name: str | None = None,
    aim_sd: str | None = None,
):
    """``physics``, ``scripted``, ``scripted:P`` (the target knocked out with P) or
    ``table:FILE`` (the probabilities of a hit map file; referee.shots.parse_shots
    reads the grammar): the resolver, and a dict saying what decides the shots (for
    the output: ``resolver`` and its settings).

    Physical shots are aimed by ``aimer_name`` (default ``child``, the toy's user);
    a table was measured with an aimer of its own, and naming another is refused."""
    named = parse_shots(shots)
    if named is None:
        raise InputError(
            f"unknown --shots '{shots}': allowed are physics, scripted, scripted:P, table:FILE"
        )
    kind, value = named
    if design_name is not None and kind != "physics":
        raise InputError(
            f"--design {shown(design_name)} is for physical shots, and these are {kind}: "
            "give --shots physics, or leave --design out"
        )
    if kind == "table":
        return _table_resolver(str(value), aimer_name, aim_sd)
    if kind == "physics":
        return _physical_resolver(design_name or "stock", hit_rule, seed, aimer_name, aim_sd)
    if value is None:
        raise InputError(
            f"--shots {shown(shots)}: the hit probability must be a number 0-1 in ASCII digits"
        )
    scripted = ScriptedResolver(hit_probability=float(value))
    return scripted, {"resolver": "scripted", "hit_probability": scripted.hit_probability}


def _physical_resolver(
    design_name: str, hit_rule: str, seed: int, aimer_name: str | None, aim_sd: str | None
):
    """Physical shots' resolver: the aimer (default ``child``, the toy's user) and the
    design read before the physics is imported, so that a mistake in them is told at
    once."""
    aimer = load_aimer(aimer_name or "child")
    if aim_sd is not None:
        aimer = aimer.with_spread(*parse_aim_sd(aim_sd))
    design = load_design(design_name)
    from sim.resolver import physical_resolver

    return physical_resolver(design, aimer, hit_rule, seed)


def _table_resolver(path: str, aimer_name: str | None, aim_sd: str | None):
    """``table:FILE``'s resolver and what decides its shots; refused with an aimer or
    a spread other than the one its hit map was measured with."""
    from sim.studies.shots.datafiles import read_provenance

    check_input_file(path, "table")  # a regular file within the cap, before reading it
    made_with = read_provenance(path).get("aimer")
    if aimer_name is not None and made_with is not None and aimer_name != made_with:
        raise InputError(
            f"{path} was measured with aimer '{made_with}', not "
            f"'{aimer_name}': measure a hit map with --aimer {aimer_name}"
        )
    if aim_sd is not None:
        raise InputError(
            "--aim-sd does not apply to a table: its hit map was measured with its own aimer"
        )
    resolver = TableResolver.from_file(path)
    return resolver, {"resolver": "table", "file": path, "aimer": made_with}


def shots_line(shots: dict | None) -> str | None:
    """What decides the tractor's shots, in words (None for games without shots)."""
    if shots is None:
        return None
    kind = shots["resolver"]
    if kind == "physics":
        return (
            f"Shots decided by physics: one shot per fire in the design's engine, design "
            f"{shots['design']}, aimer {shots['aimer']}"
        )
    if kind == "table":
        aimer = f", measured with aimer {shots['aimer']}" if shots["aimer"] else ""
        return f"Shots decided by the hit map {shots['file']}{aimer}"
    return (
        f"Shots decided by a script: the target alone is knocked out with P "
        f"{shots['hit_probability']:.2f}, no physics"
    )


def build_game(name: str, args) -> tuple[Game, dict | None]:
    """The game of a play/replay/tournament command, its options applied; and what
    decides its tractor's shots (None for the games without a tractor)."""
    key = canonical_name(name)
    params = parse_params(getattr(args, "param", None))
    if "resolver" in params:
        raise InputError(
            "--param resolver: shots are decided by --shots (physics, scripted, "
            "scripted:P, table:FILE), not by a game parameter"
        )
    options, shots = {}, None
    if key == "go_piggy_go":
        if getattr(args, "players", None):
            params["players"] = args.players
        params.setdefault("board", args.board)
        params.setdefault("hit_rule", args.hit_rule)
        options["resolver"], shots = make_resolver(
            args.shots, args.design, params["hit_rule"], args.seed, args.aimer, args.aim_sd
        )
    elif getattr(args, "players", None):
        params["players"] = args.players
    return load_game(key, **params, **options), shots


def bots_help() -> str:
    """The bots of each game, for --help: each name as it can be typed (hold-at-20,
    with a word that any N works: "hold-at-N" itself is refused)."""
    from referee.bots import bot_names

    def names(game: str) -> str:
        return ", ".join(
            f"{b} (any hold-at-N)" if b.startswith("hold-at-") else b for b in bot_names(game)
        )

    return "; ".join(
        f"{game.replace('_', '-')}: {names(game)}"
        for game in ("go_piggy_go", "pig_out", "woolfy", "by_golly")
    )


def colourise(text: str) -> str:
    """Piggies (G1, Y2 ...) in their colours, for a terminal."""
    return re.sub(r"\b([GYPB])(\d)\b", lambda m: f"{_ANSI[m.group(1)]}{m.group(0)}{_RESET}", text)


def human_seat(
    read: Callable[[str], str] = input, write: Callable[[str], None] = print, colour: bool = False
) -> Callable[[State], str]:
    """A seat played at the terminal: shows the board and the numbered legal actions,
    reads a number or an action's text, and asks again after a wrong entry."""

    def choose(state: State) -> str:
        board = state.describe() if hasattr(state, "describe") else state.to_json()
        write(colourise(board) if colour else board)
        legal = state.legal_actions()
        for i, action in enumerate(legal, start=1):
            write(f"  {i:3d}. {action}")
        while True:
            try:
                entry = read(f"Your move (1-{len(legal)} or an action): ").strip()
            except EOFError:
                raise GameAbandoned("standard input ended before the game did") from None
            number = ascii_whole(entry)
            if number is not None and 1 <= number <= len(legal):
                return legal[number - 1]
            try:
                return state.parse_action(entry)
            except InputError:
                write(
                    f"'{shown(entry)}' is not one of your {len(legal)} moves: type its number "
                    f"(1-{len(legal)}) or its text exactly as listed"
                )

    return choose


def seat_players(game: Game, seats: list[str], seed: int, colour: bool):
    """Bots and humans for each seat, each bot with its own seed."""
    if len(seats) != game.num_players:
        raise InputError(
            f"--seats names {len(seats)} seats but the game has {game.num_players} players"
        )
    check_bot_memory(game, seats)
    return [
        human_seat(colour=colour) if name == "human" else make_bot(name, game, seed + 1 + i)
        for i, name in enumerate(seats)
    ]


def check_bot_memory(game: Game, seats: list[str]) -> None:
    """The optimal Pig-Out bot solves the game first: refused on one line when the
    solve would not fit in memory (as ``piggy solve``), a note when it takes long."""
    if game.name == "pig_out" and "optimal" in seats:
        from referee import pig_solver

        note = pig_solver.solve_note(game.params["target"], "the optimal bot")
        if note:
            print(f"piggy: note: the optimal bot solves the game first: {note}", file=sys.stderr)


def log_line(state: State, action: str) -> str | None:
    """One compact log line for an action taken in ``state``; hidden chance outcomes
    are not shown, Go Piggy Go!'s die is folded into the mover's line, and a
    knock-out says where each knocked piggy went."""
    player = state.current_player()
    game = state.game
    if player < 0:
        if not game.is_public_chance(action) or (
            game.name == "go_piggy_go" and action.startswith("die ")
        ):
            return None
        return f"         {action}{knock_destinations(state, action)}"
    who = game.seats[player]
    die = getattr(state, "die", None) if game.name == "go_piggy_go" else None
    return f"T{state.turn + 1:<4} {who:8s} {('rolled ' + die + ': ') if die else ''}{action}"


def knock_destinations(state: State, action: str) -> str:
    """``: green-3 to pit-right`` for a Go Piggy Go! knock-out (where the rules sent
    each piggy), ``: nobody knocked out`` for ``knock none``; else nothing."""
    if not isinstance(state, GoPiggyGoState) or not action.startswith("knock "):
        return ""
    if action == "knock none":
        return ": nobody knocked out"
    after = state.clone()
    after.apply_action(action)
    knocked = action[len("knock ") :].split(",")
    return ": " + ", ".join(f"{p} to {after.place[p]}" for p in knocked)


@dataclass(frozen=True)
class Turn:
    """One turn of a replayed game: its log lines, and the board after it (for the
    games that draw one)."""

    number: int
    lines: tuple[str, ...]
    board: str | None


def replay_turns(name: str, params: dict, actions: list[str]) -> tuple[list[Turn], State]:
    """A record's turns (roll, action, outcome) with the board after each, and its
    final state: all in memory, for stepping through at the terminal."""
    turns: list[Turn] = []
    for turn, state in iter_turns(name, params, actions):
        turns.append(Turn(turn.number, turn.lines, board_text(state)))
    return turns, state


def iter_turns(name: str, params: dict, actions: list[str]) -> Iterator[tuple[Turn, State]]:
    """A record's turns one at a time, each without its board, with the state after
    it (the same object, played on: draw its board before asking for the next).

    At least one turn comes out, so that the final state is always seen: a record
    that stops inside its first turn after hidden moves only (By Golly!'s deal)
    gives that turn with no lines."""
    from referee.records import replay

    states = replay(name, params, actions)
    state = next(states)
    lines: list[str] = []
    current = state.turn
    yielded = False
    for action in actions:
        line = log_line(state, action)
        if line:
            lines.append(line)
        state = next(states)
        if state.turn != current or state.is_terminal():
            yield Turn(current + 1, tuple(lines), None), state
            lines, current, yielded = [], state.turn, True
    if lines or not yielded:
        yield Turn(current + 1, tuple(lines), None), state


def stream_turns(
    name: str, params: dict, actions: list[str], write: Callable[[str], None] = print
) -> State:
    """Write a record's turns as they are replayed, one at a time; the final state."""
    for turn, state in iter_turns(name, params, actions):  # at least one turn
        write("\n".join(turn.lines))
        final = state
    return final


def board_text(state: State) -> str | None:
    return state.describe() if hasattr(state, "describe") else None


def step_through(
    turns: list[Turn], read: Callable[[str], str] = input, write: Callable[[str], None] = print
) -> None:
    """Show a replay turn by turn at the terminal: Enter for the next turn, a number
    to jump to that turn, q (or the end of input) to stop."""
    index = 0
    while index < len(turns):
        turn = turns[index]
        write("\n".join(turn.lines))
        if turn.board:
            write(colourise(turn.board))
        if index == len(turns) - 1:
            return
        try:
            entry = (
                read(
                    f"[turn {turn.number} of {len(turns)}] Enter: next turn, a number: "
                    "that turn, q: stop "
                )
                .strip()
                .lower()
            )
        except EOFError:
            return
        if entry in ("q", "quit"):
            return
        number = ascii_whole(entry)
        index = number - 1 if number is not None and 1 <= number <= len(turns) else index + 1


def result_line(state: State) -> str:
    if state.game.cooperative:
        won = state.returns()[0] > 0
        return f"{'Everyone wins' if won else 'Everyone loses'} after {state.turn} turns"
    winner = getattr(state, "winner", None)
    if winner is None:
        return f"No winner after {state.turn} turns"
    name = state.game.seats[winner]
    seat = "" if name == f"seat {winner}" else f" (seat {winner})"
    return f"Winner: {name}{seat} after {state.turn + 1} turns"


def stream_is_terminal(stream=None) -> bool:
    stream = stream or sys.stdout
    return hasattr(stream, "isatty") and stream.isatty()
