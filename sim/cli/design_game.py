"""``piggy design game``: what each launcher design does to a game of Go Piggy Go!
(sim/studies/comparing/design_game.py)."""

from __future__ import annotations

from collections.abc import Callable

from models.board import load_board
from models.design import load_designs
from models.errors import InputError
from models.grid import HIT_RULES
from models.layout import load_layout
from sim.cli import start_lines
from sim.cli.common import (
    aimer_args,
    check_output_folder,
    engine_arg,
    finite_number,
    json_out,
    progress_bar,
    seed_arg,
    whole_number,
    workers_arg,
)
from sim.cli.hitmap import sampler_arg, sweep_spec, workers_of
from sim.defaults import DEFAULT_SEATS, MAX_SHOTS, PRECISION_CAP

#: The hit maps' default precision: affordable for a whole board (a few thousand
#: shots a design) and fine enough for a game, whose shots average over many spaces.
DEFAULT_PRECISION = 0.1
MAX_GAMES = 1_000_000


def cmd_design_game(args) -> int:
    designs = load_designs(args.designs)  # first: a mistyped name is told at once
    # Everything is checked before the first shot, the plain input before numpy.
    seats = _check_seats([s.strip() for s in args.seats.split(",")])
    params = _game_params(args, len(seats))
    workers, cache, board, spec = _hitmap_settings(args)
    from sim.studies.comparing import design_game

    start = start_lines.design_game(spec, [d.name for d in designs], args.games, workers)
    start_lines.say_if_warp_on_cpu(spec, designs, start_lines.about_shots(spec, len(designs)))
    shooting = progress_bar(
        len(spec.spaces) * len(designs), not args.json, "space", "hit maps", start=start
    )
    tables, maps = design_game.design_maps(spec, board, designs, workers, cache, shooting)
    shooting(None)
    progress = progress_bar(args.games * len(designs), not args.json, label="design game")
    settings = {"games": args.games, "seats": seats, "seed": args.seed, "params": params}
    results = design_game.play_designs(designs, tables, maps, settings, progress)
    progress(None)
    settings["hitmap"] = {
        "aimer": spec.aimer.name,
        "sampler": spec.sampler,
        "precision": spec.precision,
        "shots_cap" if spec.precision else "shots": spec.shots,
    }
    if args.json:
        json_out(settings | {"designs": results})
        return 0
    _print_table(settings, results)
    return 0


def _check_seats(seats: list[str]) -> list[str]:
    """Go Piggy Go! bot seats, 2 to 4, every name known; refused in one line."""
    from referee.bots import bot_names

    known = bot_names("go_piggy_go")
    if not 2 <= len(seats) <= 4:
        raise InputError(f"--seats: Go Piggy Go! takes 2 to 4 seats, got {len(seats)}")
    for name in seats:
        if name not in known:
            raise InputError(
                f"--seats: unknown bot '{name}' for go_piggy_go: bots are {', '.join(known)}"
            )
    return seats


def _game_params(args, players: int) -> dict:
    """``--param``'s game parameters on ``--board``, refused at once if the game
    would refuse them; ``players`` and ``board`` are the design game's own."""
    from referee import load_game
    from sim.cli.terminal import parse_params

    params = parse_params(args.param)
    for fixed, by in (("players", "--seats"), ("board", "--board")):
        if fixed in params:
            raise InputError(f"--param {fixed}: given by {by} in a design game")
    params["board"] = args.board
    load_game("go_piggy_go", **params, players=players)  # refuses a bad parameter
    return params


def _hitmap_settings(args):
    """Where the hit maps run, their cache, the board, and their settings: design
    compare's, whole board, empty, so that they are the same cache entries."""
    workers = workers_of(args)
    board = load_board(args.board)
    args.design, args.layout, args.spaces, args.arc, args.vary = (
        args.designs[0],
        "empty",
        None,
        "best",
        None,
    )
    spec = sweep_spec(args, load_layout("empty", board=board))  # before any study module
    from sim.studies.comparing import cached_maps

    cache = check_output_folder(cached_maps.cache_folder(args.cache), "--cache")
    return workers, cache, board, spec


def _win_rate_cell(bot: str) -> Callable[[dict], str]:
    """The cell of ``bot``'s win rate in a design's results."""
    return lambda r: _cell(
        {"value": r["win_rates"][bot]["win_rate"], "ci95": r["win_rates"][bot]["ci95"]}, 3
    )


def _cell(figure: dict, digits: int) -> str:
    value, (low, high) = figure["value"], figure["ci95"]
    if value is None:
        return "-"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def _print_table(settings: dict, results: list[dict]) -> None:
    made = settings["hitmap"]
    sampling = (
        f"to ±{made['precision']:g}, at most {made['shots_cap']} shots a space"
        if made["precision"]
        else f"{made['shots']} shots a space"
    )
    print(
        f"Go Piggy Go! with each design's hit map ({made['aimer']} aiming, {sampling}): "
        f"{settings['games']} games a design, seats {','.join(settings['seats'])} "
        f"(rotated), seed {settings['seed']}"
    )
    width = max(24, *(len(r["design"]) + 2 for r in results))
    lines = _lines(results)
    label_width = max(len(label) for label, _ in lines) + 2
    print(f"{'':{label_width}s}" + "".join(f"{r['design']:>{width}s}" for r in results))
    for label, cell in lines:
        print(f"{label:{label_width}s}" + "".join(f"{cell(r):>{width}s}" for r in results))
    print(
        "[95 % intervals] Leader: the player furthest along (the rows of their three "
        "piggies) when a shot is fired;\nknocked back: the shot knocks out a leader's piggy. "
        "A space out of reach has P = 0. Bot wins are per seat played."
    )
    print("Hit maps: " + ", ".join(r["hitmap"]["file"] for r in results))


def _lines(results: list[dict]) -> list[tuple[str, Callable[[dict], str]]]:
    """The table's rows: a label, and the cell of a design's results."""
    lines = [
        ("spaces in reach", lambda r: f"{r['hitmap']['in_reach']}/{r['hitmap']['spaces']}"),
        ("mean P(knocked out)", lambda r: f"{r['hitmap']['mean_p_over_board']:.2f}"),
        ("game length (turns)", lambda r: _cell(r["game_length_turns"], 1)),
        ("tractor shots a game", lambda r: _cell(r["tractor_shots_per_game"], 2)),
        ("  a turn", lambda r: _cell(r["tractor_shots_per_turn"], 3)),
        ("  tractor rolls fired", lambda r: _cell(r["tractor_rolls_fired"], 2)),
        ("shots that knock out", lambda r: _cell(r["shots_knocking_out"], 2)),
        ("leader knocked back/game", lambda r: _cell(r["leader_knocked_back_per_game"], 2)),
        ("  of the knock-outs", lambda r: _cell(r["knock_outs_hitting_the_leader"], 2)),
        (
            f"first to move wins ({results[0]['first_to_move_wins']['fair_share']:g} fair)",
            lambda r: _cell(r["first_to_move_wins"], 3),
        ),
    ]
    for bot in results[0]["win_rates"]:
        lines.append(
            (
                f"{bot} wins",
                _win_rate_cell(bot),
            )
        )
    lines.append(("undecided games", lambda r: str(r["undecided"])))
    return lines


def add_design_game(design_sub) -> None:
    """The ``design game`` action of the ``design`` command."""
    q = design_sub.add_parser(
        "game",
        help="what each design does to Go Piggy Go!: tournaments on its hit map",
        description="For each design, its hit map of the whole board (a child aiming by "
        "default; read from the cache of design compare when there) becomes "
        "the shot resolver of Go Piggy Go! tournaments between bots; reported "
        "side by side with 95 % intervals: game length, how often the tractor "
        "is fired and knocks someone out, the first player's advantage, how often "
        "the leader is knocked back, and each bot's win rate. Every design plays "
        "the same seeds.",
    )
    q.add_argument("designs", nargs="+", help="design names or TOML files")
    _add_tournament_options(q)
    _add_hitmap_options(q)
    q.add_argument(
        "--cache",
        help="folder of cached hit maps, shared with design compare "
        "(default: the user's cache folder, "
        "~/.cache/go-piggy-go/hitmaps on Linux)",
    )
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.set_defaults(func=cmd_design_game)


def _add_tournament_options(q) -> None:
    """The games each design plays: how many, the seats, the game's parameters, the board."""
    q.add_argument(
        "--games",
        type=whole_number(1, MAX_GAMES),
        default=500,
        help=f"games a design, 1 to {MAX_GAMES} (default 500)",
    )
    q.add_argument(
        "--seats",
        default=",".join(DEFAULT_SEATS),
        help="comma-separated bots, 2-4, rotated each game (default "
        f"{','.join(DEFAULT_SEATS)}: expected-gain fires when P(knock out) "
        "from the hit map x how far the target falls back beats its best "
        "move; greedy assumes P = 0.5)",
    )
    q.add_argument(
        "--param",
        action="append",
        metavar="NAME=VALUE",
        help="a game parameter, e.g. --param die_faces=1,2,3,tractor (repeatable)",
    )
    q.add_argument("--board", default="stock", help="board name or path (default: stock)")


def _add_hitmap_options(q) -> None:
    """The hit maps the games are played on: their shots, precision, hit rule,
    aimer, sampler, seed, workers and engine."""
    q.add_argument(
        "--shots",
        type=whole_number(1, MAX_SHOTS),
        help=f"shots a space of each hit map: the cap with --precision (default "
        f"{PRECISION_CAP}, at most {MAX_SHOTS})",
    )
    q.add_argument(
        "--precision",
        type=finite_number(),
        default=DEFAULT_PRECISION,
        metavar="HALF_WIDTH",
        help="fire at each space until its 95 %% interval of P is within "
        f"±HALF_WIDTH (default {DEFAULT_PRECISION:g})",
    )
    q.add_argument(
        "--hit-rule",
        default="touches-line",
        choices=HIT_RULES,
        help="knocked out when touching the outline (default) or wholly outside",
    )
    aimer_args(q, default="child")
    sampler_arg(q)
    seed_arg(q, "root seed of the hit maps' shots and of the games")
    workers_arg(q, "local worker processes for the hit maps (default: all cores)")
    engine_arg(q)
