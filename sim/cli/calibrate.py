"""``piggy calibrate``: fit a launcher design to shots measured on the real toy
(docs/real-toy.md)."""

from __future__ import annotations

from dataclasses import replace

from models.board import load_board
from models.design import load_design
from models.errors import InputError
from models.text import shown
from sim.cli import calibrate_contact
from sim.cli.calibrate_check import check_options, cmd_check, wants_check
from sim.cli.common import check_output, finite_number, json_out
from sim.cli.measure import check_outputs, video_args


def cmd_calibrate(args) -> int:
    if wants_check(args):
        return cmd_check(args)
    shots, base = _inputs(args)
    contact_note = calibrate_contact.contact_note(shots) if args.contact else None
    from sim.studies.calibrating.calibration import calibrate
    from sim.studies.calibrating.report import format_calibration

    options = {} if args.measurement_sd is None else {"measurement_sd_mm": args.measurement_sd}
    result = calibrate(shots, base, **options)
    contact = (
        calibrate_contact.fit_contact_after(shots, result, args.board)
        if args.contact and not contact_note
        else None
    )
    _write_files(args, result, contact)
    if args.json:
        data = result.to_dict()
        data["files"] = {"design": args.out, "plot": args.plot}
        if args.contact:
            data["contact"] = calibrate_contact.contact_json(contact, contact_note, base)
        json_out(data)
        return 0
    print(format_calibration(result))
    if args.contact:
        print("\n".join(calibrate_contact.contact_text(contact, contact_note, base)))
    for what, path in (("fitted design", args.out), ("residuals plot", args.plot)):
        if path:
            print(f"Wrote {shown(path)} ({what})")
    return 0


def _inputs(args):
    """The measured shots and the base design; everything that can be refused is
    refused here, before the fit (the files to write, the board, the CSV)."""
    from sim.studies.calibrating.shots_csv import read_shots

    if args.out:
        check_output(args.out, "--out", (".toml",))
    if args.plot:
        check_output(args.plot, "--plot", (".png",))
        load_board(args.board)
    base = load_design(args.design)
    if not _from_video(args):
        return read_shots(args.shots), base
    check_outputs(args, args.measured, "--measured")  # refused first, as measure does
    _check_angles(args.angles)
    shots = read_shots(_measured(args))
    if args.measured is None:  # a temporary file the user never named
        shots = replace(shots, source=f"the shots measured from {shown(args.video)}")
    return shots, base


def _check_angles(path: str) -> None:
    """The angles file given with ``--video`` against what a calibration needs (enough
    shots, at enough pitches), before the first frame is read: the video's
    measurement keeps at most these shots."""
    from sim.real_toy.angles import read_angles
    from sim.studies.calibrating.checks import check_settings

    angles = read_angles(path)
    check_settings(angles.pitch_deg, shown(path))


def _write_files(args, result, contact) -> None:
    """The fitted design (with the contact fit's values when there is one) and the
    residuals plot, where asked for."""
    from sim.studies.calibrating.fitted_file import write_fitted_design
    from sim.views.calibration_picture import save_residuals_plot

    if args.out:
        from models.design import DESIGNS_DIR
        from models.files import resolve_named_file

        base_file = resolve_named_file(args.design, DESIGNS_DIR, "design")
        if contact:
            calibrate_contact.write_design(result, contact, args.out, base_file)
        else:
            write_fitted_design(result, args.out, base_file)
    if args.plot:
        save_residuals_plot(result, args.plot, board=args.board, cloud=args.video is not None)


def _from_video(args) -> bool:
    """Whether the shots come from ``--video`` (else from SHOTS.csv); one of them."""
    if (args.video is None) == (args.shots is None):
        raise InputError(
            "give the measured shots: a SHOTS.csv, or --video VIDEO --angles ANGLES.csv"
        )
    if args.video and not args.angles:
        raise InputError(
            "--video needs --angles ANGLES.csv (the angles set for each shot, in order)"
        )
    given = [o for o, v in _VIDEO_ONLY if getattr(args, v) is not None]
    if args.video is None and given:
        one = len(given) == 1
        raise InputError(
            f"{', '.join(given)} {'is' if one else 'are'} for measuring a video: give "
            f"--video VIDEO too, or leave {'it' if one else 'them'} out"
        )
    return args.video is not None


#: The options that only ``--video`` uses: (as written, dest).
_VIDEO_ONLY = (
    ("--angles", "angles"),
    ("--camera-file", "camera_file"),
    ("--readout", "readout"),
    ("--overlay", "overlay"),
    ("--measured", "measured"),
)


def _measured(args) -> str:
    """``piggy measure`` on ``--video``: the measured CSV's path (``--measured``, or
    a file in a temporary folder that lives as long as the process)."""
    import atexit
    import shutil
    import tempfile
    from pathlib import Path

    from sim.cli.measure import run_measure
    from sim.real_toy.report import report_lines

    out = args.measured
    if out is None:
        folder = tempfile.mkdtemp(prefix="piggy-measured-")
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        out = str(Path(folder) / "measured.csv")
    measurement = run_measure(args, out, bars=not args.json, what="--measured")
    if not args.json:
        lines = report_lines(measurement, out)
        print("\n".join(lines if args.measured else lines[:-1]))
    return out


_DESCRIPTION = (
    "Fit by maximum likelihood the muzzle speed, its spread, "
    "the yaw and pitch spreads and the offsets of the angle "
    "scales to shots measured on the real toy, each with a "
    "standard error; write the base design with the fitted "
    "values. The CSV has one row per shot: pitch_deg, yaw_deg, "
    "x_mm, y_mm (first touch, board frame), optional "
    "speed_mm_s and pivot_height_mm (docs/real-toy.md says how "
    "to measure: 5 pitches x 8 shots). Data that cannot "
    "determine a parameter is refused with what to measure."
)


def _video_options(p) -> None:
    p.add_argument(
        "--video",
        metavar="VIDEO",
        help="measure the shots from this video first (piggy measure), then fit; "
        "--plot then draws the fitted design's predicted landing cloud under them",
    )
    video_args(p, required=False, board=False)
    p.add_argument(
        "--measured", metavar="MEASURED.csv", help="with --video: keep the measured CSV here"
    )


def add_calibrate(sub) -> None:
    """The ``calibrate`` command."""
    p = sub.add_parser(
        "calibrate",
        help="fit a design's speed and spreads to measured shots",
        description=_DESCRIPTION,
    )
    p.add_argument("shots", metavar="SHOTS.csv", nargs="?", help="the measured shots")
    _video_options(p)
    p.add_argument(
        "--design",
        default="stock",
        help="base design the fit starts from and fills in: a name in "
        "models/designs/ or a path (default: stock)",
    )
    p.add_argument("--out", metavar="FITTED.toml", help="write the fitted design here")
    p.add_argument(
        "--plot", metavar="FILE.png", help="measured vs predicted landings, and the misses by pitch"
    )
    p.add_argument(
        "--board",
        default="stock",
        help="board drawn under the landings in --plot, and with --video the board "
        "the markers are on; with --contact the board the shots were fired on "
        "(default: stock)",
    )
    _fit_options(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    check_options(p)
    p.set_defaults(func=cmd_calibrate)


def _fit_options(p) -> None:
    """How the fit reads the shots: the marking's precision, and the contact fit."""
    p.add_argument(
        "--measurement-sd",
        type=finite_number(0, 50, above=True),
        metavar="MM",
        help="how precisely a landing was marked and measured, 1 sd in mm, above "
        "0 and at most 50 (default 2)",
    )
    p.add_argument(
        "--contact",
        action="store_true",
        help="also fit the bale's restitution and friction on the board to the shots' "
        "second touches and rests (rest_x_mm, rest_y_mm, second_x_mm, second_y_mm), "
        "each with a 95 %% interval; about a minute of CPU",
    )
