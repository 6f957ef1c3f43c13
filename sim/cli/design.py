"""``piggy design``: launcher designs; its ``check`` action (``compare`` and ``sweep``
are sim/cli/design_compare.py, ``optimise`` sim/cli/optimise.py, ``game``
sim/cli/design_game.py)."""

from __future__ import annotations

import math
import textwrap
from dataclasses import replace

from models.board import load_board
from models.design import RANGES, load_design
from models.design_echo import field_lines, unfollowed
from models.text import shown
from sim.cli.common import (
    Parser,
    check_output,
    finite_number,
    json_out,
)
from sim.cli.design_compare import add_design_compare, design_test_options
from sim.cli.design_game import add_design_game
from sim.cli.optimise import add_design_optimise

#: A safety limit given on the command line: a finite number above 0.
LIMIT = finite_number(0, 1e9, above=True)


def cmd_design_check(args) -> int:
    png = check_output(args.png, "--png", (".png",)) if args.png else None
    design = load_design(args.file)
    board = load_board(args.board)
    from models.mesh_report import mesh_report
    from sim.physics.aim import board_reach

    meshes = mesh_report(design, board.space_mm)
    if png is not None:
        _write_mesh_picture(design, png)
    near, far, reach = board_reach(design, board)
    report = _safety(design, args)
    if args.json:
        from models.design import design_identity

        identity = {k: v for k, v in design_identity(args.file).items() if k != "design"}
        json_out(
            {
                "valid": True,
                "design": design.to_dict(),
                **identity,
                "reach_open_ground_mm": [round(near, 1), round(far, 1)]
                if math.isfinite(near)
                else None,
                **reach,
                "speed_from_spring": design.launcher.has_spring,
                **({"meshes": meshes} if meshes else {}),
                **{k: v for k, v in report.to_dict().items() if k != "design"},
            }
        )
        return 0
    _print_check(args, design, meshes, (near, far), reach, report)
    return 0


def _print_check(args, design, meshes, landing: tuple[float, float], reach: dict, report) -> None:
    """The design, its meshes, its reach on the board and on open ground, its spring
    and its safety, as ``design check`` prints them."""
    from models.mesh_report import format_mesh_report
    from sim.studies.designs.safety import format_safety

    _print_design(design, args.file)
    for line in format_mesh_report(meshes):
        print(f"  {line}")
    if args.png:
        print(f"  Wrote {shown(args.png)} (the meshes and their collision parts)")
    if reach["reach_on_board_mm"] is None:
        print(f"  {reach['reach_reason']}")
        return
    low, high = reach["reach_on_board_mm"]
    print(
        f"  reach on board '{reach['board']}': {len(reach['spaces_in_reach'])} of "
        f"{reach['spaces']} spaces, {low:.1f} to {high:.1f} mm from the tractor (its spaces: "
        f"{reach['board_span_mm'][0]:.1f} to {reach['board_span_mm'][1]:.1f} mm)"
    )
    for kind in ("too_close", "too_far"):
        if reach[kind]:
            print(f"  {kind.replace('_', ' ')}: {', '.join(reach[kind])}")
    print(
        f"  on open ground, past the board, the bale lands {landing[0]:.1f} to "
        f"{landing[1]:.1f} mm from the tractor"
    )
    if design.launcher.has_spring:
        print(f"  {spring_line(design.launcher)}")
    for line in format_safety(report):
        print(f"  {line}")


def _print_design(design, given: str) -> None:
    """The design as read: its fields, section by section, and what did not follow."""
    print(f"design '{design.name}' is valid ({shown(given)})")
    if design.description:
        print(f"  {design.description}")
    for line in field_lines(design):
        print(f"  {line}")
    for note in unfollowed(design):
        print(textwrap.fill(note, 98, initial_indent="  note: ", subsequent_indent="    "))


def _write_mesh_picture(design, path) -> None:
    """The design's own meshes beside their collision parts, to ``path`` (PNG)."""
    from sim.views.mesh_picture import mesh_figure
    from sim.views.pictures import save_figure

    save_figure(mesh_figure(design), path)


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
    from sim.studies.designs.safety import SafetyLimits, safety_report

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


def add_design(sub) -> None:
    """The ``design`` command and its actions."""
    p = sub.add_parser("design", help="launcher designs: check, compare, sweep, optimise, game")
    design_sub = p.add_subparsers(
        dest="design_command", metavar="ACTION", parser_class=Parser, required=True
    )
    _add_design_check(design_sub)
    add_design_compare(design_sub)
    add_design_optimise(design_sub, design_test_options)
    add_design_game(design_sub)


def _add_design_check(design_sub) -> None:
    """The ``design check`` action."""
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
        "--png",
        metavar="FILE",
        help="draw each of the design's own meshes beside the convex parts the physics "
        "collides with",
    )
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
