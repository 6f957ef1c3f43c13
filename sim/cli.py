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
from sim.knockout import HIT_RULES
from sim.pictures import check_png_path, save_figure

#: The embedded default scene of `piggy demo`: a lone piggy, a stack, neighbours.
DEMO_LAYOUT = {"stacks": {"r8c3": ["gold-2", "pink-1"], "r8c2": ["green-1"],
                          "r9c3": ["blue-1"], "r2c1": ["green-2"], "r7c5": ["pink-3"]}}
DEMO_TARGET = "gold-2"


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
                       help="layout JSON file of who stands where, or 'empty' (default)")


def _json_out(data: dict) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def _load_scene(args) -> tuple[Board, object, object]:
    board = load_board(args.board)
    design = load_design(args.design)
    layout = load_layout(args.layout, board=board) if hasattr(args, "layout") else None
    return board, design, layout


def _write_json_atomic(path: Path, data: dict) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps(data, indent=2) + "\n")
        tmp.replace(path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise InputError(f"cannot write {path}: {exc.strerror}") from None


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
    board, design, layout = _load_scene(args)
    with World(board, design, layout, hit_rule=args.hit_rule) as world:
        if args.at is not None:
            shot_aim = shoot.solve_aim(world, args.at, args.arc)
        else:
            shot_aim = shoot.Aim(args.yaw, args.pitch)
        noise = not args.exact
        result = shoot.fire(world, shot_aim, seed=args.seed, noise=noise,
                            record=bool(args.png))
        data = shoot.report(world, shot_aim, result, seed=args.seed, noise=noise)
        if args.png:
            save_figure(shoot.shot_figure(world, result), args.png)
    if args.json:
        _json_out(data)
    else:
        print(shoot.describe(shot_aim, result))
        if args.png:
            print(f"Picture: {args.png}")
    return 0


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
    from sim import shoot
    from sim.world import World

    out = Path(args.out)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output folder {out}: {exc.strerror}") from None
    start = time.perf_counter()
    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict(DEMO_LAYOUT, board=board, source="demo layout")
    written = []
    with World(board, design, layout) as world:
        shot_aim = shoot.solve_aim(world, DEMO_TARGET)
        result = shoot.fire(world, shot_aim, seed=args.seed, record=True)
        data = shoot.report(world, shot_aim, result, seed=args.seed, noise=True)
        _write_json_atomic(out / "shot.json", data)
        written.append(("shot.json", "the shot: who was knocked out and why, what the bale "
                                     "struck"))
        save_figure(shoot.shot_figure(world, result, f"demo: aimed at {DEMO_TARGET}"),
                    out / "shot.png")
        written.append(("shot.png", "top and side view of the shot"))
    _write_json_atomic(out / "layout.json", layout.to_dict())
    written.append(("layout.json", "the layout the shot was fired at"))
    print(shoot.describe(shot_aim, result))
    print()
    print(f"Wrote {out.resolve()}/ in {time.perf_counter() - start:.1f} s:")
    for name, what in written:
        print(f"  {name:12s} {what}")
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
    p.add_argument("--json", action="store_true", help="print the shot JSON")
    p.set_defaults(func=cmd_shoot)

    p = sub.add_parser("aim", help="yaw/pitch solutions that put a bale on a space or piggy",
                       description="Solve the aim: the low and high arcs that hit the target.")
    _world_args(p)
    p.add_argument("--at", required=True, help="a space (r8c3) or a piggy on the layout (gold-2)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_aim)

    p = sub.add_parser("design", help="launcher designs: check one")
    design_sub = p.add_subparsers(dest="design_command", metavar="ACTION", parser_class=_Parser,
                                  required=True)
    q = design_sub.add_parser("check", help="validate a design file and summarise it",
                              description="Validate a launcher design file. Allowed ranges: "
                              + ", ".join(f"{k} {lo:g}..{hi:g}" for k, (lo, hi) in RANGES.items()))
    q.add_argument("file", help="design name or path to a design TOML file")
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.set_defaults(func=cmd_design_check)

    p = sub.add_parser("board", help="boards: show one")
    board_sub = p.add_subparsers(dest="board_command", metavar="ACTION", parser_class=_Parser,
                                 required=True)
    q = board_sub.add_parser("show", help="a text map of the board (and a picture with --png)",
                             description="Print a text map of a board, with a layout's piggies.")
    q.add_argument("--board", default="stock", help="board name or path (default: stock)")
    q.add_argument("--layout", default="empty", help="layout JSON file, or 'empty' (default)")
    q.add_argument("--png", metavar="FILE", help="also draw the board to a PNG file")
    q.add_argument("--json", action="store_true", help="machine-readable summary")
    q.set_defaults(func=cmd_board_show)

    p = sub.add_parser("demo", help="the main job on the defaults: a shot, its JSON and picture",
                       description="Fire a solver-aimed shot at a piggy on the stock board and "
                                   "write its JSON and picture to a folder.")
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
