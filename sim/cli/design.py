"""``piggy design check|compare|sweep``: launcher designs."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import numpy as np

from models.board import load_board
from models.design import RANGES, load_design
from models.errors import InputError
from models.text import shown
from sim.cli.common import (
    Parser,
    check_output,
    check_output_folder,
    finite_number,
    json_out,
    load_layout_args,
    progress_bar,
    waiting,
    workers_arg,
)
from sim.cli.design_game import add_design_game
from sim.cli.hitmap import sweep_options, workers_of
from sim.cli.optimise import add_design_optimise
from sim.studies.dead_zones import FEW_SHOTS
from sim.views.design_pictures import SCALE, comparison_figure, difference_figure, sweep_figure
from sim.views.pictures import save_figure

#: The dead zones of ``design compare``'s figures, in the order printed.
DEAD_ZONE_KINDS = ("too_close", "too_far", "blocked", "missed", "never_out")

#: A safety limit given on the command line: a finite number above 0.
LIMIT = finite_number(0, 1e9, above=True)


def cmd_design_check(args) -> int:
    from sim.physics.aim import reach_mm

    design = load_design(args.file)
    board = load_board(args.board)
    near, far = reach_mm(design, design.bale.height_mm / 2)
    lands = math.isfinite(near)
    reach: dict[str, Any] = (
        board_reach(board, near, far)
        if lands
        else {
            "board": board.name,
            "reach_on_board_mm": None,
            "reach_reason": "the bale never comes down to the board within the pitch range",
        }
    )
    launcher = design.launcher
    report = _safety(design, args)
    if args.json:
        from models.design import design_identity

        identity = {k: v for k, v in design_identity(args.file).items() if k != "design"}
        json_out(
            {
                "valid": True,
                "design": design.to_dict(),
                **identity,
                "reach_open_ground_mm": [round(near, 1), round(far, 1)] if lands else None,
                **reach,
                "speed_from_spring": launcher.has_spring,
                **{k: v for k, v in report.to_dict().items() if k != "design"},
            }
        )
        return 0
    print(f"design '{design.name}' is valid ({shown(args.file)})")
    if design.description:
        print(f"  {design.description}")
    for names in (
        ("muzzle_speed_mm_s", "speed_sd_mm_s"),
        ("pitch_min_deg", "pitch_max_deg"),
        ("yaw_sd_deg", "pitch_sd_deg"),
    ):
        print("  " + ", ".join(f"launcher.{n} = {getattr(launcher, n):g}" for n in names))
    if not lands:
        print(f"  {reach['reach_reason']}")
        return 0
    low, high = reach["reach_on_board_mm"]
    print(
        f"  reach on board '{board.name}': {len(reach['spaces_in_reach'])} of "
        f"{reach['spaces']} spaces, {low:.1f} to {high:.1f} mm from the tractor (its spaces: "
        f"{reach['board_span_mm'][0]:.1f} to {reach['board_span_mm'][1]:.1f} mm)"
    )
    for kind in ("too_close", "too_far"):
        if reach[kind]:
            print(f"  {kind.replace('_', ' ')}: {', '.join(reach[kind])}")
    print(
        f"  on open ground, past the board, the bale lands {near:.1f} to {far:.1f} mm from "
        "the tractor"
    )
    if launcher.has_spring:
        print(f"  {spring_line(launcher)}")
    from sim.studies.safety import format_safety

    for line in format_safety(report):
        print(f"  {line}")
    return 0


def spring_line(launcher) -> str:
    """The speed a spring gives, and the spring it comes from."""
    return (
        f"speed from the spring: {launcher.muzzle_speed_mm_s:.0f} ± "
        f"{launcher.speed_sd_mm_s:.0f} mm/s, from a {launcher.spring_rate_n_m:g} N/m spring "
        f"drawn {launcher.draw_mm:g} ± {launcher.draw_sd_mm:g} mm (plunger "
        f"{launcher.plunger_mass_g:g} g, efficiency {launcher.efficiency:g})"
    )


def _safety(design, args):
    """The design's safety report against the limits of the command line (checked)."""
    from sim.studies.safety import SafetyLimits, safety_report

    limits = SafetyLimits()  # the limits given were checked when parsed (above 0, finite)
    if args.limit_energy_j is not None:
        limits = replace(
            limits, kinetic_energy_j=args.limit_energy_j, source="given on the command line"
        )
    if args.limit_energy_per_area_j_m2 is not None:
        limits = replace(
            limits,
            kinetic_energy_per_area_j_m2=args.limit_energy_per_area_j_m2,
            source="given on the command line",
        )
    return safety_report(design, limits)


def board_reach(board, near_mm: float, far_mm: float) -> dict:
    """Which spaces' centres lie within the design's landing distances, and those
    distances clipped to the board's spaces (mm)."""
    from models.board import space_name

    distance = {space_name(s): float(np.hypot(*board.space_center_mm(s))) for s in board.spaces}
    span = (min(distance.values()), max(distance.values()))
    return {
        "board": board.name,
        "board_span_mm": [round(v, 1) for v in span],
        "reach_on_board_mm": [round(max(near_mm, span[0]), 1), round(min(far_mm, span[1]), 1)],
        "spaces": len(distance),
        "spaces_in_reach": [n for n, d in distance.items() if near_mm <= d <= far_mm],
        "too_close": [n for n, d in distance.items() if d < near_mm],
        "too_far": [n for n, d in distance.items() if d > far_mm],
    }


def _design_test_args(args):
    """Board, the sweep settings, workers and cache of compare and sweep, checked
    before any shot."""
    from sim.cli.hitmap import sweep_spec
    from sim.studies import design_tools

    if args.plot:
        check_output(args.plot, "--plot", (".png",))
    cache = check_output_folder(design_tools.cache_folder(args.cache), "--cache")
    layout = load_layout_args(args)
    spec = sweep_spec(args, layout)
    return layout.board, spec, workers_of(args), cache


def cmd_design_compare(args) -> int:
    from sim.studies import design_tools

    designs = design_tools.load_designs(args.designs)
    args.design = args.designs[0]
    if args.html:
        if len(designs) != 2:
            raise InputError(f"--html reports one comparison: give two designs, not {len(designs)}")
        check_output(args.html, "--html", (".html",))
    board, spec, workers, cache = _design_test_args(args)
    progress = progress_bar(None, not args.json, unit="space")
    results, comparisons, maps = design_tools.compare_designs(
        spec, board, designs, workers, cache, progress
    )
    progress(None)
    made_by = design_tools.comparison_provenance(spec, args.designs, maps)
    if args.plot:
        figure = (
            difference_figure(board, comparisons[0], made_by, args.scale)
            if comparisons
            else comparison_figure(board, results, maps)
        )
        save_figure(figure, args.plot)
    if args.html:
        _write_report(
            args.html, spec, board, designs, comparisons[0], made_by, workers, cache, args
        )
    if args.json:
        first = comparisons[0].to_dict() if comparisons else {"verdict": None, "spaces": []}
        json_out(
            {
                "verdict": first["verdict"],
                "spaces": first["spaces"],
                "designs": results,
                "comparisons": [c.to_dict() for c in comparisons],
                "provenance": made_by,
                "cache": str(cache),
            }
        )
        return 0
    _print_figures(results)
    for comparison in comparisons:
        mean, low, high = comparison.mean_diff
        print(
            f"\n{comparison.design_b} - {comparison.design_a}, same shots: mean difference "
            f"{_signed(mean)} [{_signed(low)}, {_signed(high)}]"
        )
        significant = [r.to_dict() for r in comparison.spaces if r.significant]
        for row in significant:
            print(
                f"  {row['space']:6s} {row['p_a']:.2f} -> {row['p_b']:.2f}  "
                f"{_signed(row['diff'])} [{_signed(row['diff_ci_low'])}, "
                f"{_signed(row['diff_ci_high'])}]  p = {row['p_value_adjusted']:.2g} (Holm)"
            )
        print(comparison.verdict)
    _print_cache(cache)
    for path in (args.plot, args.html):
        if path:
            print(f"Wrote {shown(path)}")
    return 0


def _write_report(path, spec, board, designs, comparison, made_by, workers, cache, args) -> None:
    """The shareable page: its shots recorded (a few seconds), then written atomically."""
    from models.files import write_text_atomic
    from sim.studies import design_tools, report
    from sim.views.report_page import report_html

    with waiting("recording the page's shots", not args.json):
        maps = [design_tools.design_parts(spec, d, workers, cache) for d in designs]
        data = report.build(spec, board, designs, comparison, maps, made_by, args.scale)
    write_text_atomic(path, report_html(data))


def _print_cache(cache) -> None:
    print(f"Hit maps cached in {cache} (--cache chooses another folder)")


def _print_figures(results: list[dict]) -> None:
    width = max(20, *(len(r["design"]) + 2 for r in results))
    print(f"{'':24s}" + "".join(f"{r['design']:>{width}s}" for r in results))
    lines = [
        ("spaces in reach", lambda r: f"{r['in_reach']}/{r['spaces']}"),
        ("mean P(knocked out)", lambda r: _p_ci(r["mean_p_target"], r["mean_p_target_ci"])),
        (
            "worst space",
            lambda r: (
                (r["worst_space"] or "-")
                + (f" (n={r['worst_shots']})" if r["worst_few_shots"] else "")
            ),
        ),
        ("worst P", lambda r: _p_ci(r["worst_p_target"], r["worst_p_target_ci"])),
        ("collateral rate", lambda r: _p(r["collateral_rate"])),
    ]
    for label, cell in lines:
        print(f"{label:24s}" + "".join(f"{cell(r):>{width}s}" for r in results))
    for kind in DEAD_ZONE_KINDS:
        print(
            f"{'dead zones, ' + kind.replace('_', ' '):24s}"
            + "".join(f"{len(r['dead_zones'][kind]):>{width}d}" for r in results)
        )
    if any(r["worst_few_shots"] for r in results):
        print(
            f"(worst space: fewer than {FEW_SHOTS} shots; its P is uncertain, measure it with more)"
        )
    for r in results:
        named = [
            f"{kind.replace('_', ' ')} {', '.join(r['dead_zones'][kind])}"
            for kind in DEAD_ZONE_KINDS
            if r["dead_zones"][kind]
        ]
        if named:
            print(f"dead zones of {r['design']}: " + "; ".join(named))


def _p_ci(p, ci) -> str:
    return "-" if p is None else f"{p:.2f} [{ci[0]:.2f}, {ci[1]:.2f}]"


def _p(value) -> str:
    return "-" if value is None else f"{value:.2f}"


def _signed(value) -> str:
    return "-" if value is None else f"{value:+.2f}"


def cmd_design_sweep(args) -> int:
    from sim.studies import design_tools

    field, values = design_tools.parse_sweep(args.param)
    base = load_design(args.design)
    variants = [design_tools.with_value(base, field, v) for v in values]
    board, spec, workers, cache = _design_test_args(args)
    progress = progress_bar(None, not args.json, unit="space")
    results, _, _ = design_tools.compare_designs(spec, board, variants, workers, cache, progress)
    progress(None)
    if args.plot:
        save_figure(sweep_figure(field, values, results), args.plot)
    if args.json:
        json_out(
            {"field": field, "values": values.tolist(), "results": results, "cache": str(cache)}
        )
        return 0
    width = max(len(field), 10)
    print(
        f"{field:>{width}s} {'in reach':>9s} {'mean P [95 %]':>18s} {'worst space':>12s} "
        f"{'worst P [95 %]':>18s} {'collateral':>10s}"
    )
    for value, r in zip(values, results, strict=True):
        print(
            f"{value:{width}g} {r['in_reach']:>4d}/{r['spaces']:<4d} "
            f"{_p_ci(r['mean_p_target'], r['mean_p_target_ci']):>18s} "
            f"{r['worst_space'] or '-':>12s} "
            f"{_p_ci(r['worst_p_target'], r['worst_p_target_ci']):>18s} "
            f"{_p(r['collateral_rate']):>10s}"
        )
    _print_cache(cache)
    if args.plot:
        print(f"Wrote {shown(args.plot)}")
    return 0


def add_design(sub) -> None:
    """The ``design`` command and its actions."""
    p = sub.add_parser("design", help="launcher designs: check, compare, sweep, optimise, game")
    design_sub = p.add_subparsers(
        dest="design_command", metavar="ACTION", parser_class=Parser, required=True
    )
    q = design_sub.add_parser(
        "check",
        help="validate a design file and summarise it",
        description="Validate a launcher design file. Allowed ranges: "
        + ", ".join(f"{k} {lo:g}..{hi:g}" for k, (lo, hi) in RANGES.items()),
    )
    q.add_argument("file", help="design name or path to a design TOML file")
    q.add_argument(
        "--board",
        default="stock",
        help="the board whose spaces the reach is given for (default: stock)",
    )
    q.add_argument("--json", action="store_true", help="machine-readable output")
    q.add_argument(
        "--limit-energy-j",
        type=LIMIT,
        metavar="J",
        help="reference limit of the bale's kinetic energy at its fastest, J "
        "(default 0.08, cited for EN 71-1 and ASTM F963; indicative)",
    )
    q.add_argument(
        "--limit-energy-per-area-j-m2",
        type=LIMIT,
        metavar="J_M2",
        help="reference limit of that energy per area of the bale's smallest face, "
        "J/m² (default 1600; indicative)",
    )
    q.set_defaults(func=cmd_design_check)

    def design_test_options(q, plot_help="the comparison picture"):
        q.add_argument(
            "--board", help="board name or path (default: the layout file's own board, else stock)"
        )
        q.add_argument(
            "--layout", default="empty", help="layout JSON file, 'empty' (default) or 'crowded'"
        )
        sweep_options(q, shots_help="shots per space (default 50; the cap with --precision)")
        workers_arg(q, "local worker processes (default: all cores)")
        q.add_argument(
            "--cache",
            help="folder of cached hit maps (default: the user's cache "
            "folder, ~/.cache/go-piggy-go/hitmaps on Linux)",
        )
        q.add_argument("--plot", metavar="FILE.png", help=plot_help)
        q.add_argument("--json", action="store_true", help="machine-readable output")

    q = design_sub.add_parser(
        "compare",
        help="designs fired with the same shots, compared",
        description="Compare launcher designs shot for shot: every "
        "design fires the same shots (the same random numbers "
        "per shot), so per space P_A, P_B, the difference with "
        "a 95 % paired interval and an exact McNemar test, "
        "Holm-corrected over the spaces, and one verdict line; "
        "each design's reach, mean and worst P with intervals, "
        "dead zones, collateral rate. --plot draws the "
        "difference map. Hit maps are cached.",
    )
    q.add_argument("designs", nargs="+", help="design names or TOML files")
    design_test_options(q)
    q.add_argument(
        "--html",
        metavar="FILE.html",
        help="the comparison as one self-contained page to share (two designs): "
        "verdict, maps, a sortable table, shots in 3D, what made it",
    )
    q.add_argument(
        "--scale",
        type=finite_number(0, 1, above=True),
        default=SCALE,
        metavar="P",
        help=f"the difference map's colours span ±P (default {SCALE:g}, the same on every map)",
    )
    q.set_defaults(func=cmd_design_compare)

    q = design_sub.add_parser(
        "sweep",
        help="vary one design parameter, plot the figures",
        description="Vary one design field over a range and report "
        "(and plot) the comparison figures for each value.",
    )
    q.add_argument(
        "--param",
        required=True,
        help="field=start:stop:count, e.g. muzzle_speed=1500:3000:7 (mm/s)",
    )
    q.add_argument("--design", default="stock", help="the design to vary (default: stock)")
    design_test_options(q)
    q.set_defaults(func=cmd_design_sweep)

    add_design_optimise(design_sub, design_test_options)
    add_design_game(design_sub)
