"""The ``piggy`` command (DESIGN.md, "The piggy command").

Exit codes: 0 success, 2 bad input (one line on stderr naming the problem),
1 an internal failure.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from models.board import Board, load_board
from models.design import RANGES, load_design
from models.errors import InputError
from models.layout import layout_from_dict, load_layout
from sim.demo import DEMO_LAYOUT
from sim.knockout import HIT_RULES
from sim.pictures import check_png_path, save_figure


class _Parser(argparse.ArgumentParser):
    """argparse that reports bad usage on one line, with exit code 2."""

    def error(self, message: str):
        where = "" if self.prog == "piggy" else f"{self.prog}: "
        raise InputError(f"{where}{message} (see {self.prog} --help)")


def _world_args(p: argparse.ArgumentParser, layout: bool = True) -> None:
    p.add_argument("--board", default="stock",
                   help="board name in models/boards/ or a path to a board file (default: stock)")
    p.add_argument("--design", default="stock",
                   help="launcher design name in models/designs/ or a path (default: stock)")
    if layout:
        p.add_argument("--layout", default="empty",
                       help="layout JSON file of who stands where, 'empty' (default) or "
                            "'crowded' (all 12 piggies)")


def _json_out(data: dict) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def _load_scene(args) -> tuple[Board, object, object]:
    board = load_board(args.board)
    design = load_design(args.design)
    layout = load_layout(args.layout, board=board) if hasattr(args, "layout") else None
    return board, design, layout


# --- subcommands ---------------------------------------------------------------------
def cmd_shoot(args) -> int:
    from sim import shoot
    from sim.world import World

    if args.at is None and (args.yaw is None or args.pitch is None):
        raise InputError("piggy shoot: give --yaw and --pitch, or --at <space|piggy>")
    if args.at is not None and (args.yaw is not None or args.pitch is not None):
        raise InputError("piggy shoot: give either --at or --yaw/--pitch, not both")
    if args.png:
        check_png_path(args.png)
    videos = _check_video_args(args)
    board, design, layout = _load_scene(args)
    with World(board, design, layout, hit_rule=args.hit_rule) as world:
        if args.at is not None:
            shot_aim = shoot.solve_aim(world, args.at, args.arc)
        else:
            shot_aim = shoot.Aim(args.yaw, args.pitch)
        noise = not args.exact
        result = shoot.fire(world, shot_aim, seed=args.seed, noise=noise,
                            record=bool(args.png or videos))
        data = shoot.report(world, shot_aim, result, seed=args.seed, noise=noise)
        if args.png:
            save_figure(shoot.shot_figure(world, result), args.png)
    written = _write_videos(board, design, result, args, videos)
    if args.json:
        _json_out(data)
    else:
        print(shoot.describe(shot_aim, result))
        for path in ([args.png] if args.png else []) + written:
            print(f"Wrote {path}")
    return 0


def _check_video_args(args) -> dict[str, str]:
    """The video files asked for, checked before the shot is fired."""
    from sim.render import CAMERAS, check_video_path

    if args.camera not in CAMERAS:
        raise InputError(f"unknown camera '{args.camera}': allowed are {', '.join(CAMERAS)}")
    if not 0.1 <= args.slowmo <= 20:
        raise InputError(f"--slowmo {args.slowmo:g} is out of range [0.1, 20]")
    try:
        width, height = (int(v) for v in args.size.lower().split("x"))
    except ValueError:
        raise InputError(f"--size '{args.size}' must look like 640x480") from None
    if not (64 <= width <= 3840 and 64 <= height <= 2160):
        raise InputError(f"--size {args.size} is out of range: 64x64 to 3840x2160")
    args.frame_size = (width, height)
    videos = {}
    for kind in ("gif", "mp4", "html"):
        path = getattr(args, kind)
        if path:
            if kind == "html":
                _check_writable(path)
                if not path.lower().endswith(".html"):
                    raise InputError(f"replay page '{path}' must end in .html")
            else:
                check_video_path(path, f".{kind}")
            videos[kind] = path
    return videos


def _write_videos(board, design, result, args, videos: dict[str, str]) -> list[str]:
    from sim.render import ShotRenderer, write_gif, write_mp4

    written = []
    if "gif" in videos or "mp4" in videos:
        with ShotRenderer(board, design, size=args.frame_size) as renderer:
            frames = renderer.frames(result, args.camera, slowmo=args.slowmo)
        if "gif" in videos:
            written.append(str(write_gif(frames, videos["gif"])))
        if "mp4" in videos:
            written.append(str(write_mp4(frames, videos["mp4"])))
    if "html" in videos:
        from sim.viewer import write_shot_page

        written.append(str(write_shot_page(board, design, result, videos["html"])))
    return written


def cmd_aim(args) -> int:
    from sim import aim, shoot
    from sim.world import World

    board, design, layout = _load_scene(args)
    with World(board, design, layout) as world:
        point, label = shoot.target_point(world, args.at)
        solutions = aim.solve(design, point, label)
    if args.json:
        _json_out({"target": args.at, "target_mm": [round(v, 2) for v in point],
                   "design": design.name, "solutions": [s.to_dict() for s in solutions]})
        return 0
    print(f"To hit {label} ({solutions[0].distance_mm:.0f} mm from the tractor) "
          f"with design '{design.name}':")
    for s in solutions:
        print(f"  {s.arc:4s} arc: --yaw {s.yaw_deg:.2f} --pitch {s.pitch_deg:.2f}")
    return 0


def cmd_design_check(args) -> int:
    design = load_design(args.file)
    from sim.aim import reach_mm

    near, far = reach_mm(design, design.bale.height_mm / 2)
    launcher = design.launcher
    if args.json:
        _json_out({"valid": True, "design": design.to_dict(),
                   "reach_on_board_mm": [round(near, 1), round(far, 1)]})
        return 0
    print(f"design '{design.name}' is valid ({args.file})")
    if design.description:
        print(f"  {design.description}")
    print(f"  muzzle speed {launcher.muzzle_speed_mm_s:g} +- {launcher.speed_sd_mm_s:g} mm/s, "
          f"pitch {launcher.pitch_min_deg:g} to {launcher.pitch_max_deg:g} deg, aim spread "
          f"{launcher.yaw_sd_deg:g}/{launcher.pitch_sd_deg:g} deg")
    print(f"  lands on the board {near:.0f} to {far:.0f} mm from the tractor")
    return 0


def cmd_board_show(args) -> int:
    if args.png:
        check_png_path(args.png)
    board = load_board(args.board)
    layout = load_layout(args.layout, board=board)
    stacks = layout.to_dict()["stacks"]
    if args.json:
        _json_out({"name": board.name, "rows": board.rows, "cols": board.cols,
                   "space_mm": board.space_mm, "spaces": len(board.spaces),
                   "fences": len(board.fences), "stacks": stacks})
    else:
        print(f"board '{board.name}': {board.description}")
        print(board.text_map(stacks))
    if args.png:
        _board_png(board, layout, args.png)
        if not args.json:
            print(f"Picture: {args.png}")
    return 0


def _board_png(board, layout, path) -> None:
    import matplotlib.pyplot as plt

    from sim.pictures import draw_board, draw_footprint
    from sim.world import World

    fig, ax = plt.subplots(figsize=(7, 9))
    draw_board(ax, board)
    if layout.stacks:
        with World(board, load_design("stock"), layout) as world:
            for piggy in layout.piggies:
                draw_footprint(ax, world.piggy_parts_mm(piggy), piggy)
            for space, stack in layout.stacks.items():
                x, y = board.space_center_mm(space)
                ax.text(x, y - board.space_mm * 0.42, "/".join(stack), ha="center",
                        fontsize=5.5, zorder=9)
    ax.set_title(f"board '{board.name}'")
    save_figure(fig, path)


def cmd_demo(args) -> int:
    from sim import demo

    demo.run(Path(args.out), seed=args.seed)
    return 0


def cmd_play(args) -> int:
    from referee.match import play
    from referee.records import write_record
    from sim import play as terminal

    if args.record:
        _check_writable(args.record)
    seats = args.seats.split(",") if args.seats else None
    if seats and args.players is None:
        args.players = len(seats)
    game = terminal.build_game(args.game, args)
    if seats is None:
        seats = (["human"] if sys.stdin.isatty() else ["greedy"]) + ["greedy"] * (
            game.num_players - 1)
    players = terminal.seat_players(game, seats, args.seed, terminal.stream_is_terminal())
    humans = "human" in seats

    def on_action(state, action):
        if args.quiet:
            return
        line = terminal.log_line(state, action)
        if line and not (humans and state.current_player() >= 0
                         and seats[state.current_player()] == "human"):
            print(line)

    try:
        state = play(game, players, seed=args.seed, on_action=on_action)
    except KeyboardInterrupt:
        print("piggy: game abandoned", file=sys.stderr)
        return 0
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
    from referee.records import read_record, replay
    from sim.play import result_line

    for kind, path in (("gif", args.gif), ("html", args.html)):
        if path:
            _check_writable(path)
            if not path.lower().endswith(f".{kind}"):
                raise InputError(f"'{path}' must end in .{kind}")
    name, params, actions = read_record(args.file)
    if args.gif or args.html:
        return _replay_pictures(name, params, actions, args)
    previous_turn = None
    last = None
    for last in replay(name, params, actions):
        turn = getattr(last, "turn", None)
        if ((turn != previous_turn or last.is_terminal()) and last.history
                and hasattr(last, "describe")):
            print(f"--- after {last.history[-1]} ---")
            print(last.describe())
        previous_turn = turn
    print(result_line(last))
    return 0


def _replay_pictures(name: str, params: dict, actions: list[str], args) -> int:
    from referee import canonical_name, load_game
    from referee.records import replay
    from sim.game_pictures import game_frames, write_game_page
    from sim.render import write_gif

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
    from sim import play as terminal

    bots = args.seats.split(",")
    if "human" in bots:
        raise InputError("piggy tournament: seats are bots only (no 'human')")
    if args.games < 1:
        raise InputError(f"--games must be at least 1, got {args.games}")
    args.players = len(bots)
    game = terminal.build_game(args.game, args)
    for name in set(bots):
        make_bot(name, game)  # refuse unknown bots before playing
    shots = knocks = 0
    progress = _progress(args.games, not args.json)

    def on_game(index, state):
        nonlocal shots, knocks
        shots += sum(a.startswith("fire ") for a in state.history)
        knocks += sum(a.startswith("knock ") and a != "knock none" for a in state.history)
        progress(index + 1)

    result = tournament(game, lambda name, seed: make_bot(name, game, seed), bots, args.games,
                        seed=args.seed, on_game=on_game)
    progress(None)
    if game.name == "go_piggy_go":
        result.extra = {"tractor_shots_per_game": round(shots / args.games, 3),
                        "shots_knocking_out_fraction": round(knocks / shots, 4) if shots else None}
    data = result.to_dict()
    if args.json:
        _json_out(data)
        return 0
    print(f"{game.name}: {args.games} games, seats {', '.join(bots)} (rotated)")
    print(f"  {'bot':10s} {'wins':>6s} {'seats':>6s} {'win rate':>9s}   95 % interval")
    for bot, r in data["win_rates"].items():
        lo, hi = r["ci95"]
        print(f"  {bot:10s} {r['wins']:6d} {r['seats_played']:6d} {r['win_rate']:9.3f}   "
              f"[{lo:.3f}, {hi:.3f}]")
    print(f"  mean game length {data['mean_turns']} turns; undecided {data['undecided']}")
    for key, value in result.extra.items():
        print(f"  {key.replace('_', ' ')}: {value}")
    return 0


def _progress(total: int, enabled: bool, unit: str = "game"):
    """A progress bar (rate and time left) on standard error when it is a terminal;
    call with the number done so far, or None to close."""
    if not (enabled and sys.stderr.isatty()):
        return lambda done: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, file=sys.stderr)

    def update(done):
        if done is None:
            bar.close()
        else:
            bar.update(done - bar.n)

    return update


def _check_writable(path: str) -> None:
    folder = Path(path).parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise InputError(f"cannot write {path}: folder {folder} does not exist or is not "
                         "writable")


def cmd_solve(args) -> int:
    from referee import canonical_name, load_game, pig_out
    from sim.play import parse_params

    if canonical_name(args.game) != "pig_out":
        raise InputError(f"piggy solve: only pig_out can be solved, not {args.game}")
    params = parse_params(args.param)
    if args.preset:
        params["preset"] = args.preset
    game = load_game("pig_out", **params)
    start = time.perf_counter()
    win, roll, iterations = pig_out.solve(game)
    elapsed = time.perf_counter() - start
    result = {"game": "pig_out", "params": game.params,
              "first_player_win_probability": round(pig_out.first_player_win_probability(win), 6),
              "policy_states": int(roll.size), "rolling_states": int(roll.sum()),
              "iterations": iterations, "solve_time_s": round(elapsed, 2)}
    for n in args.hold_at or []:
        held, _, _ = pig_out.evaluate_hold_at(game, n)
        result.setdefault("hold_at_first_player_win_probability", {})[str(n)] = round(
            pig_out.first_player_win_probability(held), 6)
    if args.json:
        _json_out(result)
        return 0
    print(f"pig_out {game.params['preset']} (target {game.params['target']}): optimal play by "
          f"both, the first player wins {result['first_player_win_probability']:.4f}")
    print(f"  policy over {result['policy_states']:,} states ({result['rolling_states']:,} roll), "
          f"{iterations} sweeps, {elapsed:.1f} s")
    for n, p in result.get("hold_at_first_player_win_probability", {}).items():
        print(f"  both holding at {n}: the first player wins {p:.4f}")
    return 0


def cmd_sandbox(args) -> int:
    from sim.sandbox import run_sandbox

    if args.seconds is not None and args.seconds <= 0:
        raise InputError(f"--seconds must be positive, got {args.seconds:g}")
    board, design = load_board(args.board), load_design(args.design)
    layout = (load_layout(args.layout, board=board) if args.layout else
              layout_from_dict(DEMO_LAYOUT, board=board, source="demo layout"))
    run_sandbox(board, design, layout, seconds=args.seconds, auto_fire=args.auto_fire,
                slowmo=args.slowmo, seed=args.seed)
    return 0


def cmd_hitmap(args) -> int:
    from sim import hitmap

    if args.shots < 1:
        raise InputError(f"--shots must be at least 1, got {args.shots}")
    if args.arc not in hitmap.ARCS:
        raise InputError(f"unknown arc '{args.arc}': allowed are {', '.join(hitmap.ARCS)}")
    if args.format not in hitmap.FORMATS:
        raise InputError(f"unknown format '{args.format}': allowed are "
                         f"{', '.join(hitmap.FORMATS)}")
    workers = args.workers or os.cpu_count() or 1
    if workers < 1:
        raise InputError(f"--workers must be at least 1, got {workers}")
    out = Path(args.out or f"hitmap.{args.format}")
    _check_writable(str(out))
    if args.plot:
        check_png_path(args.plot)
    board, design = load_board(args.board), load_design(args.design)
    layout = load_layout(args.layout, board=board)
    spec = hitmap.SweepSpec(board=args.board, design=args.design,
                            stacks=layout.to_dict()["stacks"],
                            spaces=hitmap.check_spaces(board, args.spaces, layout.stacks),
                            shots=args.shots, seed=args.seed, arc=args.arc)
    total = len(spec.spaces) * spec.shots
    progress = _progress(total, not args.json, unit="shot")
    rows = hitmap.sweep(spec, out, args.format, workers, args.resume, args.per_shot, progress,
                        scheduler=args.scheduler)
    progress(None)
    reachable = [r for r in rows if r["reachable"]]
    if not reachable:
        raise InputError("no selected space is in reach of design "
                         f"'{design.name}' (results written to {out})")
    if args.plot:
        hitmap.save_heatmap(board, rows, args.plot, f"design '{design.name}': P(target "
                            f"knocked out), {spec.shots} shots per space")
    summary = {"file": str(out), "spaces": len(rows), "in_reach": len(reachable),
               "shots_per_space": spec.shots, "seed": spec.seed,
               "mean_p_target": round(float(sum(r["p_target"] for r in reachable)
                                            / len(reachable)), 4),
               "worst": min(reachable, key=lambda r: r["p_target"])["space"]}
    if args.per_shot:
        summary["per_shot_file"] = str(hitmap.per_shot_path(out))
    if args.json:
        _json_out(summary)
        return 0
    print(f"{len(rows)} spaces, {len(reachable)} in reach, {spec.shots} shots each: mean "
          f"P(target knocked out) {summary['mean_p_target']:.3f}, worst {summary['worst']}")
    for path in (str(out), summary.get("per_shot_file"), args.plot):
        if path:
            print(f"Wrote {path}")
    return 0


def _design_test_args(args):
    from sim import design_tools, hitmap

    if args.shots < 1:
        raise InputError(f"--shots must be at least 1, got {args.shots}")
    if args.plot:
        check_png_path(args.plot)
    board = load_board(args.board)
    spaces = hitmap.check_spaces(board, args.spaces, {})
    workers = args.workers or os.cpu_count() or 1
    return board, spaces, workers, design_tools.cache_folder(args.cache)


def cmd_design_compare(args) -> int:
    from sim import design_tools

    designs = design_tools.load_designs(args.designs)
    board, spaces, workers, cache = _design_test_args(args)
    results, maps = design_tools.compare(args.board, board, designs, spaces, args.shots,
                                         args.seed, workers, cache)
    if args.plot:
        save_figure(design_tools.comparison_figure(board, results, maps), args.plot)
    if args.json:
        _json_out({"designs": results, "spaces": len(spaces), "shots_per_space": args.shots})
        return 0
    keys = (("in_reach", "spaces in reach"), ("mean_p_target", "mean P(knocked out)"),
            ("worst_p_target", "worst P"), ("worst_space", "worst space"),
            ("collateral_rate", "collateral rate"),
            ("mean_p_target_doubled_spread", "mean P, aim spread x2"),
            ("sensitivity", "change with aim spread x2"))
    width = max(14, *(len(r["design"]) + 2 for r in results))
    print(f"{'':28s}" + "".join(f"{r['design']:>{width}s}" for r in results))
    for key, label in keys:
        print(f"{label:28s}" + "".join(f"{r[key]!s:>{width}s}" for r in results))
    for kind in ("too_close", "too_far", "shadowed"):
        print(f"{'dead zones, ' + kind.replace('_', ' '):28s}"
              + "".join(f"{len(r['dead_zones'][kind]):>{width}d}" for r in results))
    if args.plot:
        print(f"Wrote {args.plot}")
    return 0


def cmd_design_sweep(args) -> int:
    from sim import design_tools

    field, values = design_tools.parse_sweep(args.param)
    base = load_design(args.design)
    variants = [design_tools.with_value(base, field, v) for v in values]
    board, spaces, workers, cache = _design_test_args(args)
    results, _ = design_tools.compare(args.board, board, variants, spaces, args.shots,
                                      args.seed, workers, cache)
    if args.plot:
        save_figure(design_tools.sweep_figure(field, values, results), args.plot)
    if args.json:
        _json_out({"field": field, "values": values.tolist(), "results": results})
        return 0
    print(f"{field:>14s} {'in reach':>9s} {'mean P':>8s} {'worst P':>8s} {'collat.':>8s} "
          f"{'x2 spread':>10s}")
    for value, r in zip(values, results, strict=True):
        print(f"{value:14g} {r['in_reach']:9d} {r['mean_p_target']:8.3f} "
              f"{r['worst_p_target'] or 0:8.3f} {r['collateral_rate'] or 0:8.3f} "
              f"{r['sensitivity']:+10.3f}")
    if args.plot:
        print(f"Wrote {args.plot}")
    return 0


# --- parser ----------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="piggy", description="Go Piggy Go! physics sandbox and referee.")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    p = sub.add_parser("shoot", help="fire one hay bale and judge who is knocked out",
                       description="Fire one hay bale from the wolf tractor and judge, from "
                                   "the physics, which piggies were knocked out of their spaces.")
    _world_args(p)
    p.add_argument("--yaw", type=float, help="turn of the tractor, degrees (0 = toward the "
                   "trough, positive = counter-clockwise from above); -360 to 360")
    p.add_argument("--pitch", type=float, help="tilt of the barrel, degrees above horizontal; "
                   "within the design's range")
    p.add_argument("--at", help="aim automatically at a space (r8c3) or a piggy (gold-2)")
    p.add_argument("--arc", default="low", choices=("low", "high"),
                   help="with --at: the flat (low) or lobbed (high) solution (default low)")
    p.add_argument("--seed", type=int, default=0, help="seed of the shot-to-shot noise")
    p.add_argument("--exact", action="store_true",
                   help="no shot-to-shot noise: fire exactly as aimed at the mean speed")
    p.add_argument("--hit-rule", default="touches-line", choices=HIT_RULES,
                   help="knocked out when touching the outline (default) or wholly outside")
    p.add_argument("--png", metavar="FILE", help="write a picture of the shot (top and side view)")
    p.add_argument("--gif", metavar="FILE", help="write an animated GIF of the shot")
    p.add_argument("--mp4", metavar="FILE", help="write an MP4 video of the shot")
    p.add_argument("--html", metavar="FILE",
                   help="write a self-contained page that replays the shot in 3D (offline)")
    p.add_argument("--camera", default="overview",
                   help="video camera: overview (default), chase, top or side")
    p.add_argument("--slowmo", type=float, default=3.0,
                   help="videos play this many times slower than real time (default 3)")
    p.add_argument("--size", default="640x480", help="video frame size (default 640x480)")
    p.add_argument("--json", action="store_true", help="print the shot JSON")
    p.set_defaults(func=cmd_shoot)

    p = sub.add_parser("aim", help="yaw/pitch solutions that put a bale on a space or piggy",
                       description="Solve the aim: the low and high arcs that hit the target.")
    _world_args(p)
    p.add_argument("--at", required=True, help="a space (r8c3) or a piggy on the layout (gold-2)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_aim)

    p = sub.add_parser("design", help="launcher designs: check, compare, sweep")
    design_sub = p.add_subparsers(dest="design_command", metavar="ACTION", parser_class=_Parser,
                                  required=True)
    q = design_sub.add_parser("check", help="validate a design file and summarise it",
                              description="Validate a launcher design file. Allowed ranges: "
                              + ", ".join(f"{k} {lo:g}..{hi:g}" for k, (lo, hi) in RANGES.items()))
    q.add_argument("file", help="design name or path to a design TOML file")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.set_defaults(func=cmd_design_check)

    def design_test_options(q):
        q.add_argument("--board", default="stock", help="board name or path (default: stock)")
        q.add_argument("--spaces", help="comma-separated spaces (default: every space)")
        q.add_argument("--shots", type=int, default=10, help="shots per space (default 10)")
        q.add_argument("--seed", type=int, default=0, help="root seed of the hit maps")
        q.add_argument("--workers", type=int, help="local worker processes (default: all)")
        q.add_argument("--cache", help="folder of cached hit maps (default .piggy-cache)")
        q.add_argument("--plot", metavar="FILE.png", help="the comparison picture")
        q.add_argument("--json", action="store_true", help="machine-readable output")

    q = design_sub.add_parser("compare", help="hit maps of designs side by side",
                              description="Compare launcher designs by their hit maps: spaces "
                                          "in reach, mean and worst knock-out probability, "
                                          "dead zones, collateral rate, and the change when "
                                          "the aim spread doubles. Hit maps are cached.")
    q.add_argument("designs", nargs="+", help="design names or TOML files")
    design_test_options(q)
    q.set_defaults(func=cmd_design_compare)

    q = design_sub.add_parser("sweep", help="vary one design parameter, plot the figures",
                              description="Vary one design field over a range and report "
                                          "(and plot) the comparison figures for each value.")
    q.add_argument("--param", required=True,
                   help="field=start:stop:count, e.g. muzzle_speed=1500:3000:7 (mm/s)")
    q.add_argument("--design", default="stock", help="the design to vary (default: stock)")
    design_test_options(q)
    q.set_defaults(func=cmd_design_sweep)

    p = sub.add_parser("board", help="boards: show one")
    board_sub = p.add_subparsers(dest="board_command", metavar="ACTION", parser_class=_Parser,
                                 required=True)
    q = board_sub.add_parser("show", help="a text map of the board (and a picture with --png)",
                             description="Print a text map of a board, with a layout's piggies.")
    q.add_argument("--board", default="stock", help="board name or path (default: stock)")
    q.add_argument("--layout", default="empty",
                   help="layout JSON file, 'empty' (default) or 'crowded'")
    q.add_argument("--png", metavar="FILE", help="also draw the board to a PNG file")
    q.add_argument("--json", action="store_true", help="machine-readable summary")
    q.set_defaults(func=cmd_board_show)

    def game_options(p, tournament=False):
        p.add_argument("game", help="go-piggy-go, pig-out, woolfy or by-golly (hyphens or "
                                    "underscores)")
        p.add_argument("--seats", required=tournament,
                       help="comma-separated seats in order: human, random, greedy"
                            + ("" if tournament else " (default: you against greedy bots)"))
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
        p.add_argument("--param", action="append", metavar="NAME=VALUE",
                       help="a game parameter, e.g. --param die_faces=1,2,3,tractor (repeatable)")
        p.add_argument("--seed", type=int, default=0, help="seed of dice, shots and bots")

    p = sub.add_parser("play", help="play or simulate a game with human and bot seats",
                       description="Play a game at the terminal: human seats type a number or "
                                   "an action; bot seats play by themselves.")
    game_options(p)
    p.add_argument("--record", metavar="FILE", help="write the game record (JSON Lines)")
    p.add_argument("--quiet", action="store_true", help="print only the result")
    p.set_defaults(func=cmd_play)

    p = sub.add_parser("replay", help="step through a game record, board by board",
                       description="Replay a game record, printing the board after each turn.")
    p.add_argument("file", help="a record written by piggy play --record")
    p.add_argument("--gif", metavar="FILE", help="draw the game from above, turn by turn, as "
                                                  "an animated GIF (go-piggy-go)")
    p.add_argument("--html", metavar="FILE", help="the same as a self-contained page with a "
                                                   "slider")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("tournament", help="many bot games: win rates with 95 %% intervals",
                       description="Play many games between bots, rotating the seats, and "
                                   "report win rates with 95 % Wilson intervals.")
    game_options(p, tournament=True)
    p.add_argument("--games", type=int, default=200, help="number of games (default 200)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_tournament)

    p = sub.add_parser("hitmap", help="Monte-Carlo hit probabilities per space, with intervals",
                       description="For each space, stand a piggy there, aim at it and fire "
                                   "shots with the design's noise: P(target knocked out), P(any), "
                                   "P(collateral), P(no contact), 95 % Wilson intervals, mean "
                                   "ricochets. Resumable: finished spaces are kept in "
                                   "<out>.parts/.")
    _world_args(p)
    p.add_argument("--spaces", help="comma-separated spaces (default: every space)")
    p.add_argument("--shots", type=int, default=50, help="shots per space (default 50)")
    p.add_argument("--arc", default="best", help="low, high or best (low where it exists)")
    p.add_argument("--seed", type=int, default=0, help="root seed, split per space and shot")
    p.add_argument("--workers", type=int, help="local worker processes (default: all cores)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="run on this Dask distributed cluster instead (tcp://host:8786; start "
                        "its workers with --nthreads 1)")
    p.add_argument("--out", help="output file (default hitmap.parquet or hitmap.csv)")
    p.add_argument("--format", default="parquet", help="parquet (default) or csv")
    p.add_argument("--per-shot", action="store_true",
                   help="also write <stem>.shots.<ext>: one row per shot (seeds, aim, outcome)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the heatmap over the board")
    p.add_argument("--resume", action="store_true", help="finish an interrupted sweep")
    p.add_argument("--json", action="store_true", help="a JSON summary on stdout")
    p.set_defaults(func=cmd_hitmap)

    p = sub.add_parser("sandbox", help="PyBullet's window: sliders, a fire button, verdicts",
                       description="The interactive way to try the launcher: sliders for yaw "
                                   "and pitch, FIRE and reset buttons, and the knock-out "
                                   "verdict after each shot. Needs a display (xvfb-run works).")
    p.add_argument("--board", default="stock", help="board name or path (default: stock)")
    p.add_argument("--design", default="stock", help="launcher design (default: stock)")
    p.add_argument("--layout",
                   help="layout JSON file, 'empty' or 'crowded' (default: the demo's piggies)")
    p.add_argument("--seconds", type=float, help="close the window after this long")
    p.add_argument("--auto-fire", type=int, default=0, metavar="N",
                   help="fire N shots at the sliders' settings by itself, then close "
                        "(unless --seconds is given)")
    p.add_argument("--slowmo", type=float, default=2.0,
                   help="shots play this many times slower than real time (default 2)")
    p.add_argument("--seed", type=int, default=0, help="seed of the shot-to-shot noise")
    p.set_defaults(func=cmd_sandbox)

    p = sub.add_parser("solve", help="optimal play of Pig-Out's family by value iteration",
                       description="Solve pig_out for two players (no cards, or an infinite "
                                   "deck): the first player's chance of winning under optimal "
                                   "play by both.")
    p.add_argument("game", help="pig_out (or pig-out)")
    p.add_argument("--preset", help="pig (classic Pig) or pig-out-2")
    p.add_argument("--param", action="append", metavar="NAME=VALUE",
                   help="a game parameter, e.g. --param target=50 (repeatable)")
    p.add_argument("--hold-at", type=int, action="append", metavar="N",
                   help="also: the first player's chance when both hold at N (repeatable)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("demo", help="the main job on the defaults: a shot, its videos, a hit "
                                    "map, a game; all in one folder",
                       description="On the stock board and design: a solver-aimed shot (JSON, "
                                   "PNG, GIF, MP4, 3D replay page), a small hit map with its "
                                   "heatmap, a short bots-only game with its replay GIF, and an "
                                   "index.html that shows them all. About a minute.")
    p.add_argument("--out", default="piggy-demo", help="output folder (default: ./piggy-demo)")
    p.add_argument("--seed", type=int, default=0, help="seed of the shot-to-shot noise")
    p.set_defaults(func=cmd_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not hasattr(args, "func"):
            parser.print_help()
            return 0 if not argv else 2
        return args.func(args)
    except InputError as exc:
        print(f"piggy: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (piggy ... | head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        print("piggy: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # an internal failure: say so, briefly, unless debugging
        if os.environ.get("PIGGY_DEBUG"):
            raise
        print(f"piggy: internal error: {type(exc).__name__}: {exc} "
              "(set PIGGY_DEBUG=1 for the traceback)", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
