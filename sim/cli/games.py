"""``piggy play`` and ``tournament``: the games of the referee (``replay`` is
sim/cli/replay.py)."""

from __future__ import annotations

import sys
from collections.abc import Callable

from models.errors import InputError
from models.grid import HIT_RULES
from models.text import shown
from referee.api import Game, State
from sim.cli.common import (
    check_output,
    json_out,
    progress_bar,
    seed_arg,
    whole_number,
)

#: Most games of one tournament.
MAX_GAMES = 1_000_000


def cmd_play(args) -> int:
    from referee.records import write_record
    from sim.cli import terminal

    if args.record:
        check_output(args.record, "--record")
    seats = split_seats(args.seats) if args.seats else None
    _check_seats(args.game, [s for s in seats or [] if s != "human"])
    _check_players(args, seats)
    if seats and args.players is None:
        args.players = len(seats)
    game, shots = terminal.build_game(args.game, args)
    # numpy (the match's seeds) once the input is read: a mistake is told at once
    from referee.match import play

    if seats is None:
        bot = terminal.DEFAULT_BOTS[game.name]
        seats = (["human"] if sys.stdin.isatty() else [bot]) + [bot] * (game.num_players - 1)
    players = terminal.seat_players(game, seats, args.seed, terminal.stream_is_terminal())
    if not args.quiet and shots:
        print(terminal.shots_line(shots))
    on_action = _action_printer(seats, quiet=args.quiet)
    try:
        state = play(game, players, seed=args.seed, on_action=on_action)
    except terminal.GameAbandoned as exc:
        print(f"piggy: game abandoned: {exc}; nothing recorded", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("piggy: game abandoned (interrupted); nothing recorded", file=sys.stderr)
        return 130
    finally:
        _close_resolver(game)
    if not args.quiet and hasattr(state, "describe"):
        print(state.describe())
    print(terminal.result_line(state))
    if args.record:
        write_record(state, args.record)
        print(f"Record: {shown(args.record)}")
    return 0


def _action_printer(seats: list[str], quiet: bool) -> Callable[[State, str], None]:
    """``play``'s ``on_action``: each action's log line, but for the actions of the
    human seats, which the player sees as they choose them (and nothing if quiet)."""
    from sim.cli import terminal

    humans = "human" in seats

    def on_action(state: State, action: str) -> None:
        if quiet:
            return
        line = terminal.log_line(state, action)
        player = state.current_player()
        if line and not (humans and player >= 0 and seats[player] == "human"):
            print(line)

    return on_action


def _close_resolver(game: Game) -> None:
    """Close the game's shot resolver, if it holds something (a physical resolver
    holds a physics world)."""
    close = getattr(getattr(game, "resolver", None), "close", None)
    if close is not None:
        close()


#: The longest seat name (human, greedy, hold-at-20 ...).
MAX_SEAT_CHARS = 40


def split_seats(text: str) -> list[str]:
    """``--seats`` as its names, each checked for length before any bot is made."""
    seats = text.split(",")
    for seat in seats:
        if not seat or len(seat) > MAX_SEAT_CHARS:
            raise InputError(
                f"--seats {shown(text)}: each seat is a name of 1 to "
                f"{MAX_SEAT_CHARS} characters (human, random, greedy, ...)"
            )
    return seats


def _check_seats(game_name: str, bots: list[str]) -> None:
    """The game's name and its bots' names, before the game (and any physics its
    shots need) is built."""
    from referee import canonical_name
    from referee.bots import check_bot

    game = canonical_name(game_name)
    for bot in bots:
        check_bot(bot, game)


def _check_players(args, seats: list[str] | None) -> None:
    """``--param players=N`` must agree with ``--seats`` and ``--players``."""
    from referee.validate import parse_params

    given = parse_params(args.param).get("players")
    if given is None:
        return
    if seats is not None and given != len(seats):
        raise InputError(
            f"--param players={shown(given)} but --seats names {len(seats)} "
            "seats: give one of them, or the same number"
        )
    if getattr(args, "players", None) is not None and given != args.players:
        raise InputError(
            f"--param players={shown(given)} but --players {args.players}: give one of them"
        )


def cmd_tournament(args) -> int:
    from sim.cli import terminal

    bots = split_seats(args.seats)
    if "human" in bots:
        raise InputError("piggy tournament: seats are bots only (no 'human')")
    _check_seats(args.game, bots)
    _check_players(args, bots)
    args.players = len(bots)
    game, shots = terminal.build_game(args.game, args)
    terminal.check_bot_memory(game, bots)
    result = _play_tournament(args, game, bots, shots)
    data = result.to_dict()
    if args.json:
        json_out(data)
        return 0
    _print_tournament(args, game, bots, shots, result.cooperative, data)
    return 0


#: What decides the tractor's shots, by ``--shots`` kind, in the start line's words.
_DECIDED_BY = {"scripted": "a script", "physics": "physics", "table": "a hit map"}


def _tournament_start(game, bots: list[str], games: int, shots: dict | None) -> str:
    """The tournament's start line: its games, seats and what decides the shots."""
    decided = f"; the tractor's shots decided by {_DECIDED_BY[shots['resolver']]}" if shots else ""
    return f"tournament of {game.name}: {games:,} games, seats {', '.join(bots)}{decided}"


def _play_tournament(args, game, bots: list[str], shots: dict | None):
    """The tournament of ``bots`` (referee.match.tournament), with the tractor's use
    over its games for Go Piggy Go!"""
    from referee.bots import make_bot
    from referee.go_piggy_go import tractor_use
    from referee.match import tournament

    fired = knocks = 0
    start = _tournament_start(game, bots, args.games, shots)
    progress = progress_bar(args.games, not args.json, label="tournament", start=start)

    def on_game(index, state):
        nonlocal fired, knocks
        shot, knocked = tractor_use(state.history)
        fired, knocks = fired + shot, knocks + knocked
        progress(index + 1)

    result = tournament(
        game,
        lambda name, seed: make_bot(name, game, seed),
        bots,
        args.games,
        seed=args.seed,
        on_game=on_game,
    )
    progress(None)
    if game.name == "go_piggy_go":
        result.extra = {
            "shots": shots,
            "tractor_shots_per_game": round(fired / args.games, 3),
            "shots_knocking_out_fraction": round(knocks / fired, 4) if fired else None,
        }
    return result


def _print_tournament(args, game, bots, shots, cooperative: bool, data: dict) -> None:
    from sim.cli import terminal

    print(f"{game.name}: {args.games} games, seats {', '.join(bots)} (rotated)")
    if shots:
        print(f"  {terminal.shots_line(shots)}")
    if cooperative:
        team = data["team"]
        lo, hi = team["ci95"]
        print(
            f"  cooperative: the table won {team['wins']} of {team['games']} games, "
            f"{team['win_rate']:.2f} [{lo:.2f}, {hi:.2f}] (95 % interval over games)"
        )
    else:
        print(f"  {'bot':10s} {'wins':>6s} {'seats':>6s} {'win rate':>9s}   95 % interval")
        for bot, r in data["win_rates"].items():
            lo, hi = r["ci95"]
            print(
                f"  {bot:10s} {r['wins']:6d} {r['seats_played']:6d} {r['win_rate']:9.2f}   "
                f"[{lo:.2f}, {hi:.2f}]"
            )
    print(f"  mean game length {data['mean_turns']:.1f} turns; undecided {data['undecided']}")
    if game.name == "go_piggy_go":
        knocking = data["shots_knocking_out_fraction"]
        print(
            f"  tractor shots per game {data['tractor_shots_per_game']:.1f}; shots knocking "
            f"a piggy out {'-' if knocking is None else f'{knocking:.2f}'}"
        )


def _game_options(p, tournament: bool = False) -> None:
    """The options every game command takes."""
    from sim.cli.terminal import DEFAULT_BOTS, bots_help

    p.add_argument("game", help="go-piggy-go, pig-out, woolfy or by-golly (hyphens or underscores)")
    p.add_argument(
        "--seats",
        required=tournament,
        help="comma-separated seats in order, "
        + ("bots only" if tournament else "'human' or a bot")
        + f". Bots by game: {bots_help()}"
        + (
            ""
            if tournament
            else " (default: you against " + ", ".join(DEFAULT_BOTS.values()) + " bots, by game)"
        ),
    )
    if not tournament:
        p.add_argument(
            "--players", type=whole_number(1, 99), help="number of players (default: the seats)"
        )
    p.add_argument("--board", default="stock", help="board name or path (default: stock)")
    p.add_argument("--design", help="launcher design for physical shots (default: stock)")
    _shot_options(p, tournament)
    p.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a game parameter, e.g. --param die_faces=1,2,3,tractor (repeatable)",
    )
    seed_arg(p, "seed of dice, shots and bots")


def _shot_options(p, tournament: bool) -> None:
    """How a Go Piggy Go! shot is decided: the resolver, the hit rule, who aims."""
    p.add_argument(
        "--shots",
        default="scripted" if tournament else "physics",
        help="how shots are decided: physics (a shot in the design's engine), scripted "
        "(the target is knocked out half the time), scripted:P, or "
        "table:FILE (a piggy hitmap file) "
        f"(default: {'scripted' if tournament else 'physics'})",
    )
    p.add_argument(
        "--hit-rule",
        default="touches-line",
        choices=HIT_RULES,
        help="knocked out when touching the outline (default) or wholly outside",
    )
    p.add_argument(
        "--aimer",
        help="who aims physical shots: perfect, adult, child (default) "
        "or an aimer file; a table keeps the aimer it was measured "
        "with",
    )
    p.add_argument(
        "--aim-sd",
        metavar="YAW,PITCH",
        help="the aimer's spread for physical shots, 1 sd in degrees",
    )


def add_play(sub) -> None:
    """The ``play`` command."""
    p = sub.add_parser(
        "play",
        help="play or simulate a game with human and bot seats",
        description="Play a game at the terminal: human seats type a number or "
        "an action; bot seats play by themselves.",
    )
    _game_options(p)
    p.add_argument("--record", metavar="FILE", help="write the game record (JSON Lines)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play)


def add_tournament(sub) -> None:
    """The ``tournament`` command."""
    p = sub.add_parser(
        "tournament",
        help="many bot games: win rates with 95 %% intervals",
        description="Play many games between bots, rotating the seats, and "
        "report win rates with 95 % Wilson intervals.",
    )
    _game_options(p, tournament=True)
    p.add_argument(
        "--games",
        type=whole_number(1, MAX_GAMES),
        default=200,
        help=f"number of games, 1 to {MAX_GAMES} (default 200)",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_tournament)
