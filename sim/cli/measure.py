"""``piggy measure``: a video of shots on the real toy, measured from its pixels
into the CSV ``piggy calibrate`` reads (docs/real-toy.md, "Measuring from a video")."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from models.board import load_board
from models.design import load_design
from models.text import shown
from sim.cli.common import check_output, finite_number, json_out, progress_bar
from sim.real_toy.defaults import READOUT_RANGE


def run_measure(args, out: str | Path, bars: bool, what: str = "--out"):
    """Measure ``args.video`` into ``out`` (named by option ``what``; checked and written
    here): the :class:`~sim.real_toy.measure.Measurement`. Shared with ``calibrate --video``."""
    from sim.real_toy import opencv, video_file

    check_outputs(args, out, what)
    video_file(args.video)
    opencv()  # refused on one line, naming the extra, before any work
    from sim.real_toy.angles import read_angles
    from sim.real_toy.detect import read_camera_file
    from sim.real_toy.markers import marker_layout
    from sim.real_toy.measure import measure_video

    angles = read_angles(args.angles)
    design = load_design(args.design)
    layout = marker_layout(load_board(args.board))
    intrinsics = read_camera_file(args.camera_file) if args.camera_file else None
    update = progress_bar(None, bars, unit="frame", label="measuring")
    measurement = measure_video(
        args.video,
        angles,
        design,
        layout,
        intrinsics,
        progress=update,
        on_ready=lambda info: update(0, total=info.frames),
        readout=args.readout,
        piggies=_layout(args),
    )
    update(None)
    _write_measured(measurement, out, args)
    if args.overlay:
        _write_overlay(measurement, args.overlay, bars)
    return measurement


def check_outputs(args, out: str | Path | None, what: str) -> None:
    """The files to write, checked before any work: the CSV (None: a temporary file),
    its sidecar, the overlay."""
    if out is not None:
        check_output(out, what, (".csv",))
        check_output(f"{out}.json", f"{what}'s sidecar")  # datafiles.sidecar_path
    if args.overlay:
        check_output(args.overlay, "--overlay", (".mp4",))


def _write_overlay(measurement, path, bars: bool) -> None:
    from sim.real_toy.overlay import write_overlay

    update = progress_bar(measurement.info.frames, bars, unit="frame", label="overlay")
    write_overlay(measurement, path, update)
    update(None)


def _layout(args):
    """``--layout`` (``piggy measure`` only), on the board of ``--board``: its
    piggies and spaces checked before the video is read."""
    if getattr(args, "layout", None) is None:
        return None
    from models.layout import load_layout

    return load_layout(args.layout, board=load_board(args.board))


def _write_measured(measurement, out, args) -> None:
    from sim.real_toy.measure import result_rows
    from sim.real_toy.report import no_shot_measured, provenance
    from sim.studies.shots.datafiles import write_table

    rows = result_rows(measurement)
    if not rows:
        raise no_shot_measured(measurement)
    sources = {"angles": Path(args.angles).name, "design": args.design, "board": args.board}
    if getattr(args, "layout", None) is not None:
        from sim.real_toy.piggies_seen import provenance as piggies_provenance

        sources |= piggies_provenance(args.layout)
    write_table(rows, out, "csv", provenance(measurement, sources, bool(args.camera_file)))


def cmd_measure(args) -> int:
    measurement = run_measure(args, args.out, bars=not args.json)
    from sim.real_toy.report import report_lines, summary

    if args.json:
        json_out(summary(measurement) | {"files": {"csv": args.out, "overlay": args.overlay}})
        return 0
    for line in report_lines(measurement, args.out):
        print(line)
    if measurement.piggies is not None:
        from sim.real_toy.piggies_seen import summary_line

        print(summary_line(measurement.piggies))
    if args.overlay:
        print(f"Wrote {shown(args.overlay)} (the track, the first touches, the board's axes)")
    sys.stdout.flush()
    return 0


def video_args(p, required: bool, board: bool = True) -> None:
    """The arguments of a measurement, shared with ``piggy calibrate --video`` (which
    has its own ``--board``)."""
    p.add_argument(
        "--angles",
        required=required,
        metavar="ANGLES.csv",
        help="the pitch_deg and yaw_deg set for each shot, in the order fired",
    )
    p.add_argument(
        "--camera-file",
        metavar="FILE",
        help="the phone's calibration, JSON or TOML: fx, fy, cx, cy (pixels) and "
        "optional distortion (OpenCV's k1, k2, p1, p2, k3); default: estimated "
        "from the markers",
    )
    if board:
        p.add_argument(
            "--board", default="stock", help="the board the markers are on (default: stock)"
        )
    p.add_argument(
        "--readout",
        type=_readout,
        default=None,
        metavar="SHARE|estimate",
        help="the rolling shutter's readout: the rows are read top to bottom over this "
        f"share of the frame period, {_READOUT_LOW:g} to {_READOUT_HIGH:g} (negative: "
        "bottom to top; 0: a global shutter); default: estimate, fitted over the "
        "video's flights (gravity fixes their time scale)",
    )
    p.add_argument(
        "--overlay",
        metavar="CHECK.mp4",
        help="write the video with the track, each first touch and the board's axes drawn on it",
    )


_READOUT_LOW, _READOUT_HIGH = READOUT_RANGE
_readout_share = finite_number(_READOUT_LOW, _READOUT_HIGH)


def _readout(text: str) -> float | None:
    """``--readout``: a share of the frame period, or None for "estimate"."""
    if text.strip() == "estimate":
        return None
    try:
        return _readout_share(text)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error}, or 'estimate'") from None


def add_measure(sub) -> None:
    """The ``measure`` command."""
    p = sub.add_parser(
        "measure",
        help="measure shots' first touches and launch speeds from a video",
        description="Find the board's markers and the camera's pose, track the bale "
        "frame by frame, cut the video into shots, and find each shot's first touch "
        "on the board (where its image path breaks) and its launch speed (a 3D "
        "ballistic fit to its flight, where the view shows enough of it), then follow "
        "the bale to where it rests and, where the view shows it, where its bounce "
        "lands. Writes the CSV piggy calibrate reads, with a quality column and the "
        "rest and second-touch columns; a shot that cannot be "
        "measured is skipped with its reason, never guessed. A 240 fps phone video "
        "from a tripod (docs/real-toy.md, 'Measuring from a video').",
    )
    p.add_argument("video", metavar="VIDEO", help="the video (MP4 or MOV)")
    video_args(p, required=True)
    p.add_argument("--out", required=True, metavar="MEASURED.csv", help="the measured shots")
    p.add_argument(
        "--design",
        default="stock",
        help="the design fired (its bale's size and launcher's speed; default: stock)",
    )
    p.add_argument(
        "--layout",
        metavar="LAYOUT.json",
        help="the piggies stood as this layout file says (or 'crowded'): read each "
        "one's place before and after each shot and write knocked, moved_mm and unseen",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_measure)
