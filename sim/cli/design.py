"""``piggy design check|compare|sweep``: launcher designs."""

from __future__ import annotations

import os

from models.board import load_board
from models.design import RANGES, load_design
from models.errors import InputError
from sim.cli.common import Parser, json_out
from sim.views.pictures import check_png_path, save_figure


def cmd_design_check(args) -> int:
    design = load_design(args.file)
    from sim.physics.aim import reach_mm

    near, far = reach_mm(design, design.bale.height_mm / 2)
    launcher = design.launcher
    if args.json:
        json_out({"valid": True, "design": design.to_dict(),
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


def _design_test_args(args):
    from sim.studies import design_tools, hitmap

    if args.shots < 1:
        raise InputError(f"--shots must be at least 1, got {args.shots}")
    if args.plot:
        check_png_path(args.plot)
    board = load_board(args.board)
    spaces = hitmap.check_spaces(board, args.spaces, {})
    workers = args.workers or os.cpu_count() or 1
    return board, spaces, workers, design_tools.cache_folder(args.cache)


def cmd_design_compare(args) -> int:
    from sim.studies import design_tools

    designs = design_tools.load_designs(args.designs)
    board, spaces, workers, cache = _design_test_args(args)
    results, maps = design_tools.compare(args.board, board, designs, spaces, args.shots,
                                         args.seed, workers, cache)
    if args.plot:
        save_figure(design_tools.comparison_figure(board, results, maps), args.plot)
    if args.json:
        json_out({"designs": results, "spaces": len(spaces), "shots_per_space": args.shots})
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
    from sim.studies import design_tools

    field, values = design_tools.parse_sweep(args.param)
    base = load_design(args.design)
    variants = [design_tools.with_value(base, field, v) for v in values]
    board, spaces, workers, cache = _design_test_args(args)
    results, _ = design_tools.compare(args.board, board, variants, spaces, args.shots,
                                      args.seed, workers, cache)
    if args.plot:
        save_figure(design_tools.sweep_figure(field, values, results), args.plot)
    if args.json:
        json_out({"field": field, "values": values.tolist(), "results": results})
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


def add_design(sub) -> None:
    """The ``design`` command and its actions."""
    p = sub.add_parser("design", help="launcher designs: check, compare, sweep")
    design_sub = p.add_subparsers(dest="design_command", metavar="ACTION", parser_class=Parser,
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
