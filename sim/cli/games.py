"""``piggy play``, ``replay``, ``tournament`` and ``solve``: the games of the referee."""

from __future__ import annotations

import math
import sys
import time

from models.errors import InputError
from sim.cli.common import check_writable, json_out, progress_bar
from sim.physics.knockout import HIT_RULES


def cmd_play(args) -> int:
    from referee.match import play
    from referee.records import write_record
    from sim.cli import terminal

    if args.record:
        check_writable(args.record)
    seats = args.seats.split(",") if args.seats else None
    if seats and args.players is None:
        args.players = len(seats)
    game, shots = terminal.build_game(args.game, args)
    if seats is None:
        bot = terminal.DEFAULT_BOTS[game.name]
        seats = (["human"] if sys.stdin.isatty() else [bot]) + [bot] * (game.num_players - 1)
    players = terminal.seat_players(game, seats, args.seed, terminal.stream_is_terminal())
    humans = "human" in seats
    if not args.quiet and shots:
        print(terminal.shots_line(shots))

    def on_action(state, action):
        if args.quiet:
            return
        line = terminal.log_line(state, action)
        if line and not (humans and state.current_player() >= 0
                         and seats[state.current_player()] == "human"):
            print(line)

    try:
        state = play(game, players, seed=args.seed, on_action=on_action)
    except terminal.GameAbandoned as exc:
        print(f"piggy: game abandoned: {exc}; nothing recorded", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("piggy: game abandoned (interrupted); nothing recorded", file=sys.stderr)
        return 130
    finally:
        resolver = getattr(game, "resolver", None)
        if hasattr(resolver, "close"):
            resolver.close()
    if not args.quiet and hasattr(state, "describe"):
        print(state.describe())
    print(terminal.result_line(state))
    if args.record:
        write_record(state, args.record)
        print(f"Record: {args.record}")
    return 0


def cmd_replay(args) -> int:
    from referee.records import read_record
    from sim.cli import terminal

    for kind, path in (("gif", args.gif), ("html", args.html)):
        if path:
            check_writable(path)
            if not path.lower().endswith(f".{kind}"):
                raise InputError(f"'{path}' must end in .{kind}")
    name, params, actions = read_record(args.file)
    if args.gif or args.html:
        return _replay_pictures(name, params, actions, args)
    turns, final = terminal.replay_turns(name, params, actions)
    if args.turn is not None:
        if not 1 <= args.turn <= len(turns):
            raise InputError(f"--turn {args.turn}: the game has turns 1-{len(turns)}")
        for turn in turns[:args.turn]:
            print("\n".join(turn.lines))
        if turns[args.turn - 1].board:
            print(turns[args.turn - 1].board)
        print(f"(turn {args.turn} of {len(turns)})")
        return 0
    if terminal.stream_is_terminal(sys.stdin) and terminal.stream_is_terminal():
        terminal.step_through(turns)
    else:
        for turn in turns:
            print("\n".join(turn.lines))
        if turns and turns[-1].board:
            print(turns[-1].board)
    print(terminal.result_line(final))
    return 0


def _replay_pictures(name: str, params: dict, actions: list[str], args) -> int:
    from referee import canonical_name, load_game
    from referee.records import replay
    from sim.views.game_pictures import game_frames, write_game_page
    from sim.views.render import write_gif

    if canonical_name(name) != "go_piggy_go":
        raise InputError(f"pictures of game records are drawn for go_piggy_go, not {name}")
    board = load_game(name, **params).board
    frames = game_frames(replay(name, params, actions), board)
    if args.gif:
        write_gif(frames, args.gif, fps=2)
        print(f"Wrote {args.gif} ({len(frames)} turns)")
    if args.html:
        write_game_page(frames, args.html, f"Go Piggy Go! game, {len(frames)} turns")
        print(f"Wrote {args.html}")
    return 0


def cmd_tournament(args) -> int:
    from referee.bots import make_bot
    from referee.match import tournament
    from sim.cli import terminal

    bots = args.seats.split(",")
    if "human" in bots:
        raise InputError("piggy tournament: seats are bots only (no 'human')")
    if args.games < 1:
        raise InputError(f"--games must be at least 1, got {args.games}")
    args.players = len(bots)
    game, shots = terminal.build_game(args.game, args)
    for name in set(bots):
        make_bot(name, game)  # refuse unknown bots before playing
    fired = knocks = 0
    progress = progress_bar(args.games, not args.json)

    def on_game(index, state):
        nonlocal fired, knocks
        fired += sum(a.startswith("fire ") for a in state.history)
        knocks += sum(a.startswith("knock ") and a != "knock none" for a in state.history)
        progress(index + 1)

    result = tournament(game, lambda name, seed: make_bot(name, game, seed), bots, args.games,
                        seed=args.seed, on_game=on_game)
    progress(None)
    if game.name == "go_piggy_go":
        result.extra = {"shots": shots, "tractor_shots_per_game": round(fired / args.games, 3),
                        "shots_knocking_out_fraction": round(knocks / fired, 4) if fired else None}
    data = result.to_dict()
    if args.json:
        json_out(data)
        return 0
    print(f"{game.name}: {args.games} games, seats {', '.join(bots)} (rotated)")
    if shots:
        print(f"  {terminal.shots_line(shots)}")
    if result.cooperative:
        team = data["team"]
        lo, hi = team["ci95"]
        print(f"  cooperative: the table won {team['wins']} of {team['games']} games, "
              f"{team['win_rate']:.2f} [{lo:.2f}, {hi:.2f}] (95 % interval over games)")
    else:
        print(f"  {'bot':10s} {'wins':>6s} {'seats':>6s} {'win rate':>9s}   95 % interval")
        for bot, r in data["win_rates"].items():
            lo, hi = r["ci95"]
            print(f"  {bot:10s} {r['wins']:6d} {r['seats_played']:6d} {r['win_rate']:9.2f}   "
                  f"[{lo:.2f}, {hi:.2f}]")
    print(f"  mean game length {data['mean_turns']:.1f} turns; undecided {data['undecided']}")
    if game.name == "go_piggy_go":
        knocking = data["shots_knocking_out_fraction"]
        print(f"  tractor shots per game {data['tractor_shots_per_game']:.1f}; shots knocking "
              f"a piggy out {'-' if knocking is None else f'{knocking:.2f}'}")
    return 0


#: Above this many states (target cubed) a solve takes minutes: warn first.
SOLVE_WARN_STATES = 10_000_000


def cmd_solve(args) -> int:
    from referee import canonical_name, load_game, pig_solver
    from referee.validate import parse_params

    if canonical_name(args.game) != "pig_out":
        raise InputError(f"piggy solve: only pig_out can be solved, not {args.game}")
    params = parse_params(args.param)
    if args.preset:
        params["preset"] = args.preset
    game = load_game("pig_out", **params)
    if game.params["cards"] and game.params["deck"] == "physical":
        raise InputError("piggy solve: Pig-Out 2's physical deck cannot be solved (the cards "
                         "left are part of the state): add --param deck=infinite to solve the "
                         "same game with the cards drawn with replacement (minutes at target "
                         "400), or use --preset pig for classic Pig (seconds)")
    states = game.params["target"] ** 3
    if states > SOLVE_WARN_STATES:
        print(f"piggy: note: target {game.params['target']} means {states:.1e} states: the "
              f"solve takes minutes and about {states * 9 / 1e9:.1f} GB of memory "
              "(Ctrl-C stops it)", file=sys.stderr)
    progress = progress_bar(None, not args.json, unit="sweep", label="solving")
    start = time.perf_counter()
    win, roll, iterations = pig_solver.solve(game, on_sweep=_sweep_progress(progress))
    progress(iterations, iterations)  # the estimate of the sweeps left ends exact
    progress(None)
    elapsed = time.perf_counter() - start
    result = {"game": "pig_out", "params": game.params,
              "first_player_win_probability": round(
                  pig_solver.first_player_win_probability(win), 6),
              "policy_states": int(roll.size), "rolling_states": int(roll.sum()),
              "iterations": iterations, "solve_time_s": round(elapsed, 2)}
    for n in args.hold_at or []:
        held, _, _ = pig_solver.evaluate_hold_at(game, n)
        result.setdefault("hold_at_first_player_win_probability", {})[str(n)] = round(
            pig_solver.first_player_win_probability(held), 6)
    if args.json:
        json_out(result)
        return 0
    # Four decimals: these are exact values of the game, not estimates, and the
    # published ones (0.5306, 0.5347) differ in the third.
    print(f"pig_out {game.params['preset']} (target {game.params['target']}): optimal play by "
          f"both, the first player wins {result['first_player_win_probability']:.4f}")
    print(f"  policy over {result['policy_states']:,} states ({result['rolling_states']:,} roll), "
          f"{iterations} sweeps, {elapsed:.1f} s")
    for n, p in result.get("hold_at_first_player_win_probability", {}).items():
        print(f"  both holding at {n}: the first player wins {p:.4f}")
    return 0


def _sweep_progress(progress, tolerance: float = 1e-12):
    """Sweeps done, out of an estimate: the largest change falls about geometrically
    from 1 to ``tolerance``, so the fraction of its logarithm gone predicts the end."""

    def on_sweep(iteration: int, change: float) -> None:
        gone = math.log(max(change, tolerance)) / math.log(tolerance)
        progress(iteration, max(iteration + 1, round(iteration / gone)) if gone > 0.1 else None)

    return on_sweep


def _game_options(p, tournament: bool = False) -> None:
    """The options every game command takes."""
    from sim.cli.terminal import DEFAULT_BOTS, bots_help

    p.add_argument("game", help="go-piggy-go, pig-out, woolfy or by-golly (hyphens or "
                                "underscores)")
    p.add_argument("--seats", required=tournament,
                   help="comma-separated seats in order, "
                        + ("bots only" if tournament else "'human' or a bot")
                        + f". Bots by game: {bots_help()}"
                        + ("" if tournament else " (default: you against "
                           + ", ".join(DEFAULT_BOTS.values()) + " bots, by game)"))
    if not tournament:
        p.add_argument("--players", type=int, help="number of players (default: the seats)")
    p.add_argument("--board", default="stock", help="board name or path (default: stock)")
    p.add_argument("--design", default="stock", help="launcher design for physical shots")
    p.add_argument("--shots", default="scripted" if tournament else "physics",
                   help="how shots are decided: physics (a PyBullet shot), scripted "
                        "(the target is knocked out half the time), scripted:P, or "
                        "table:FILE (a piggy hitmap file) "
                        f"(default: {'scripted' if tournament else 'physics'})")
    p.add_argument("--hit-rule", default="touches-line", choices=HIT_RULES,
                   help="knocked out when touching the outline (default) or wholly outside")
    p.add_argument("--aimer", help="who aims physical shots: perfect, adult, child (default) "
                                   "or an aimer file; a table keeps the aimer it was measured "
                                   "with")
    p.add_argument("--aim-sd", metavar="YAW,PITCH",
                   help="the aimer's spread for physical shots, 1 sd in degrees")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a game parameter, e.g. --param die_faces=1,2,3,tractor (repeatable)")
    p.add_argument("--seed", type=int, default=0, help="seed of dice, shots and bots")


def add_play(sub) -> None:
    """The ``play`` command."""
    p = sub.add_parser("play", help="play or simulate a game with human and bot seats",
                       description="Play a game at the terminal: human seats type a number or "
                                   "an action; bot seats play by themselves.")
    _game_options(p)
    p.add_argument("--record", metavar="FILE", help="write the game record (JSON Lines)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play)


def add_replay(sub) -> None:
    """The ``replay`` command."""
    p = sub.add_parser("replay", help="step through a game record, turn by turn",
                       description="Replay a game record: each turn's roll, action and "
                                   "outcome. At a terminal, step through it turn by turn (the "
                                   "board after each); piped, the whole log and the final "
                                   "board at once; --turn N shows the board after turn N.")
    p.add_argument("file", help="a record written by piggy play --record")
    p.add_argument("--turn", type=int, metavar="N",
                   help="the log up to turn N and the board after it")
    p.add_argument("--gif", metavar="FILE", help="draw the game from above, turn by turn, as "
                                                  "an animated GIF (go-piggy-go)")
    p.add_argument("--html", metavar="FILE", help="the same as a self-contained page with a "
                                                   "slider")
    p.set_defaults(func=cmd_replay)


def add_tournament(sub) -> None:
    """The ``tournament`` command."""
    p = sub.add_parser("tournament", help="many bot games: win rates with 95 %% intervals",
                       description="Play many games between bots, rotating the seats, and "
                                   "report win rates with 95 % Wilson intervals.")
    _game_options(p, tournament=True)
    p.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_tournament)


def add_solve(sub) -> None:
    """The ``solve`` command."""
    p = sub.add_parser("solve", help="optimal play of Pig-Out's family by value iteration",
                       description="Solve pig_out for two players (no cards, or an infinite "
                                   "deck): the first player's chance of winning under optimal "
                                   "play by both. A progress bar on a terminal; a note first "
                                   "when the solve takes minutes.")
    p.add_argument("game", help="pig_out (or pig-out)")
    p.add_argument("--preset", help="pig (classic Pig, seconds) or pig-out-2 (the default; "
                                    "it needs --param deck=infinite, and takes minutes)")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a game parameter, e.g. --param target=50 (repeatable)")
    p.add_argument("--hold-at", type=int, action="append", metavar="N",
                   help="also: the first player's chance when both hold at N (repeatable)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_solve)
