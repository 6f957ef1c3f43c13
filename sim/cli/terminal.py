"""Games at the terminal: human seats, bot logs, replays and tournaments for the
``piggy play``, ``piggy replay`` and ``piggy tournament`` commands.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from models.design import load_design
from models.errors import InputError
from referee import canonical_name, load_game
from referee.api import Game, State
from referee.bots import make_bot
from referee.shots import ScriptedResolver, TableResolver
from referee.validate import parse_params

#: ANSI colours for the seats' piggies on a terminal.
_ANSI = {"G": "\033[1;32m", "Y": "\033[1;33m", "P": "\033[1;35m", "B": "\033[1;34m"}
_RESET = "\033[0m"


def make_resolver(shots: str, design_name: str, hit_rule: str, seed: int,
                  aimer_name: str | None = None, aim_sd: str | None = None):
    """``physics``, ``scripted``, ``scripted:P`` (the target knocked out with P) or
    ``table:FILE`` (the probabilities of a hit map file).

    Physical shots are aimed by ``aimer_name`` (default ``child``, the toy's user);
    a table was measured with an aimer of its own, and naming another is refused."""
    if shots.startswith("table:"):
        from sim.studies.datafiles import read_provenance, read_table

        path = shots[len("table:"):]
        made_with = read_provenance(path).get("aimer") if Path(path).is_file() else None
        if aimer_name is not None and made_with is not None and aimer_name != made_with:
            raise InputError(f"{path} was measured with aimer '{made_with}', not "
                             f"'{aimer_name}': measure a hit map with --aimer {aimer_name}")
        if aim_sd is not None:
            raise InputError("--aim-sd does not apply to a table: its hit map was measured "
                             "with its own aimer")
        return TableResolver.from_rows(read_table(path), source=f"hit map {path}")
    if shots == "physics":
        from models.aimer import load_aimer, parse_aim_sd
        from sim.resolver import PhysicalResolver

        aimer = load_aimer(aimer_name or "child")
        if aim_sd is not None:
            aimer = aimer.with_spread(*parse_aim_sd(aim_sd))
        return PhysicalResolver(load_design(design_name), hit_rule=hit_rule, seed=seed,
                                aimer=aimer)
    if shots == "scripted" or shots.startswith("scripted:"):
        p = shots.partition(":")[2] or "0.5"
        try:
            return ScriptedResolver(hit_probability=float(p))
        except ValueError:
            raise InputError(f"--shots {shots}: the hit probability must be a number "
                             "0-1") from None
    raise InputError(f"unknown --shots '{shots}': allowed are physics, scripted, scripted:P, "
                     "table:FILE")


def build_game(name: str, args) -> Game:
    """The game of a play/replay/tournament command, its options applied."""
    key = canonical_name(name)
    params = parse_params(getattr(args, "param", None))
    options = {}
    if key == "go_piggy_go":
        if getattr(args, "players", None):
            params["players"] = args.players
        params.setdefault("board", args.board)
        params.setdefault("hit_rule", args.hit_rule)
        options["resolver"] = make_resolver(args.shots, args.design, params["hit_rule"],
                                            args.seed, args.aimer, args.aim_sd)
    elif getattr(args, "players", None):
        params["players"] = args.players
    return load_game(key, **params, **options)


def colourise(text: str) -> str:
    """Piggies (G1, Y2 ...) in their colours, for a terminal."""
    return re.sub(r"\b([GYPB])(\d)\b", lambda m: f"{_ANSI[m.group(1)]}{m.group(0)}{_RESET}",
                  text)


def human_seat(read: Callable[[str], str] = input, write: Callable[[str], None] = print,
               colour: bool = False) -> Callable[[State], str]:
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
                raise KeyboardInterrupt from None
            if entry.isdigit() and 1 <= int(entry) <= len(legal):
                return legal[int(entry) - 1]
            try:
                return state.parse_action(entry)
            except InputError:
                write(f"'{entry}' is not one of your {len(legal)} moves: type its number "
                      f"(1-{len(legal)}) or its text exactly as listed")

    return choose


def seat_players(game: Game, seats: list[str], seed: int, colour: bool):
    """Bots and humans for each seat, each bot with its own seed."""
    if len(seats) != game.num_players:
        raise InputError(f"--seats names {len(seats)} seats but the game has "
                         f"{game.num_players} players")
    return [human_seat(colour=colour) if name == "human" else make_bot(name, game, seed + 1 + i)
            for i, name in enumerate(seats)]


def log_line(state: State, action: str) -> str | None:
    """One compact log line for an action; hidden chance outcomes are not shown, and
    Go Piggy Go!'s die is folded into the mover's line."""
    player = state.current_player()
    game = state.game
    if player < 0:
        if not game.is_public_chance(action) or (game.name == "go_piggy_go"
                                                  and action.startswith("die ")):
            return None
        return f"         {action}"
    who = game.seats[player]
    die = getattr(state, "die", None) if game.name == "go_piggy_go" else None
    return f"T{state.turn + 1:<4} {who:8s} {('rolled ' + die + ': ') if die else ''}{action}"


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
