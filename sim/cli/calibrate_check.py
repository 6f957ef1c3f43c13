"""``piggy calibrate --check``: does the sandbox knock out what the toy knocks out?
(sim/studies/calibrating/toy_check.py; docs/real-toy.md, "Checking the sandbox's
knock-outs")."""

from __future__ import annotations

from models.errors import InputError
from models.text import shown
from sim.cli.common import check_output, json_out, progress_bar, seed_arg, whole_number, workers_arg
from sim.defaults import CHECK_REFIRES, CHECK_REFIRES_RANGE


def wants_check(args) -> bool:
    """Whether ``calibrate`` runs the check; its options without ``--check`` refused."""
    if args.check is None:
        for option, value in (("--layout", args.layout), ("--refires", args.refires)):
            if value is not None:
                raise InputError(f"{option} is for --check MEASURED.csv (the check of knock-outs)")
        return False
    return True


def cmd_check(args) -> int:
    from sim.studies.calibrating.toy_check import toy_check
    from sim.studies.calibrating.toy_check_report import format_check

    shots, spec, workers = _checked_input(args)
    start = f"Re-firing {len(shots)} shots {spec.refires} times each"
    progress = progress_bar(len(shots), not args.json, "shot", "check", start=start)
    check = toy_check(shots, spec, workers, progress)
    progress(None)
    if args.plot:
        from sim.views.toy_check_picture import save_check_plot

        save_check_plot(check, args.plot)
    if args.json:
        json_out(check.to_dict() | {"files": {"plot": args.plot}})
        return 0
    print(format_check(check))
    if args.plot:
        print(f"Wrote {shown(args.plot)} (check plot)")
    return 0


def _checked_input(args):
    """The measured shots, the check's settings and its workers, everything that can
    be refused refused before a shot is fired."""
    from models.board import load_board
    from models.design import load_design
    from models.layout import load_layout
    from sim.cli.hitmap import workers_of
    from sim.physics.registry import resolve
    from sim.studies.calibrating.knocked_csv import read_knocked_shots
    from sim.studies.calibrating.toy_check import CheckSpec, checked_launches

    if not args.layout:
        raise InputError(
            "--check needs --layout LAYOUT.json (or crowded): where the piggies stood "
            "when the measured shots were fired"
        )
    for given, what in ((args.shots, "SHOTS.csv"), (args.video, "--video"), (args.out, "--out")):
        if given:
            raise InputError(
                f"--check reads its measured CSV and writes no design: leave {what} out"
            )
    if args.plot:
        check_output(args.plot, "--plot", (".png",))
    workers = workers_of(args)
    design = resolve(load_design(args.design), None)  # its engine known and installed
    layout = load_layout(args.layout, board=load_board(args.board))
    shots = read_knocked_shots(args.check, sorted(layout.piggies))
    spec = CheckSpec(layout.board, design, layout, args.refires or CHECK_REFIRES, args.seed)
    checked_launches(shots, spec)  # angles and speeds the design can fire, or refused now
    return shots, spec, workers


def check_options(p) -> None:
    """The check's options of ``calibrate``."""
    p.add_argument(
        "--check",
        metavar="MEASURED.csv",
        help="check the design's knock-outs against shots measured at a layout "
        "(piggy measure --layout): needs --layout",
    )
    p.add_argument(
        "--layout",
        help="with --check: the layout the measured shots were fired at (a layout JSON "
        "file, or crowded)",
    )
    p.add_argument(
        "--refires",
        type=whole_number(*CHECK_REFIRES_RANGE),
        help="with --check: sandbox shots per measured shot ({} to {}, default {})".format(
            *CHECK_REFIRES_RANGE, CHECK_REFIRES
        ),
    )
    seed_arg(p, "with --check: seeds the sandbox's re-fires")
    workers_arg(p, "with --check: local worker processes for the re-fires (default: every core)")
