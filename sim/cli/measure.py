"""``piggy measure``: a video of shots on the real toy, measured from its pixels
into the CSV ``piggy calibrate`` reads (docs/real-toy.md, "Measuring from a video")."""

from __future__ import annotations

import hashlib
import math
import sys
from pathlib import Path

from models.board import load_board
from models.design import load_design
from models.text import shown
from sim.cli.common import check_output, json_out, progress_bar


def run_measure(args, out: str | Path, bars: bool):
    """Measure ``args.video`` into ``out`` (checked and written here): the
    :class:`~sim.video.measure.Measurement`. Shared with ``piggy calibrate --video``."""
    from sim.video import opencv

    opencv()  # refused on one line, naming the extra, before any work
    from sim.video.angles import read_angles
    from sim.video.detect import read_camera_file
    from sim.video.markers import marker_layout
    from sim.video.measure import measure_video

    check_output(out, "--out", (".csv",))
    if args.overlay:
        check_output(args.overlay, "--overlay", (".mp4",))
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
    )
    update(None)
    _write_measured(measurement, out, args)
    if args.overlay:
        from sim.video.overlay import write_overlay

        update = progress_bar(measurement.info.frames, bars, unit="frame", label="overlay")
        write_overlay(measurement, args.overlay, update)
        update(None)
    return measurement


def _write_measured(measurement, out, args) -> None:
    from sim.studies.datafiles import package_version, write_table
    from sim.video.measure import result_rows

    info, pose = measurement.info, measurement.pose
    k = pose.intrinsics
    provenance = {
        "made_by": "piggy measure",
        "video": info.path.name,
        "video_sha256": _sha256(info.path),
        "angles": Path(args.angles).name,
        "design": args.design,
        "board": args.board,
        "fps": info.fps,
        "size": [info.width, info.height],
        "camera": {
            "fx": k.fx,
            "fy": k.fy,
            "cx": k.cx,
            "cy": k.cy,
            "distortion": list(k.distortion),
            "from": "--camera-file" if args.camera_file else "estimated from the markers",
            "position_mm": [round(float(v), 1) for v in pose.centre_mm],
        },
        "markers_seen": list(pose.markers_seen),
        "marker_reprojection_px": round(pose.reprojection_px, 3),
        "skipped": [
            {"shot": s.number, "reason": s.skipped} for s in measurement.shots if s.skipped
        ],
        "package_version": package_version(),
    }
    rows = result_rows(measurement)
    if not rows:
        from models.errors import InputError

        raise InputError(
            f"no shot of {info.path.name} could be measured: "
            + "; ".join(f"shot {s.number}: {s.skipped}" for s in measurement.shots[:3])
        )
    write_table(rows, out, "csv", provenance)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def summary(measurement) -> dict:
    """The measurement as JSON-ready data."""
    shots = []
    for s in measurement.shots:
        shots.append(
            {
                "shot": s.number,
                "pitch_deg": s.pitch_deg,
                "yaw_deg": s.yaw_deg,
                "x_mm": None if math.isnan(s.x_mm) else round(s.x_mm, 2),
                "y_mm": None if math.isnan(s.y_mm) else round(s.y_mm, 2),
                "speed_mm_s": None if math.isnan(s.speed_mm_s) else round(s.speed_mm_s, 1),
                "quality": s.quality or None,
                "skipped": s.skipped,
            }
        )
    pose = measurement.pose
    return {
        "video": str(measurement.info.path),
        "fps": measurement.info.fps,
        "camera_mm": [round(float(v), 1) for v in pose.centre_mm],
        "focal_px": round(pose.intrinsics.fx, 1),
        "marker_reprojection_px": round(pose.reprojection_px, 3),
        "shots": shots,
    }


def report_lines(measurement, out) -> list[str]:
    shots = measurement.shots
    done = [s for s in shots if not s.skipped]
    speeds = [s for s in done if not math.isnan(s.speed_mm_s)]
    pose = measurement.pose
    camera = ", ".join(f"{v:.0f}" for v in pose.centre_mm)
    lines = [
        f"Measured {len(done)} of {len(shots)} shots from {shown(str(measurement.info.path))} "
        f"({measurement.info.fps:g} fps; camera at {camera} mm, markers fit to "
        f"{pose.reprojection_px:.2f} px), {len(speeds)} with a launch speed."
    ]
    for s in shots:
        if s.skipped:
            lines.append(f"  shot {s.number}: skipped, {s.skipped}")
        elif s.quality != "good":
            lines.append(f"  shot {s.number}: {s.quality}")
    lines.append(f"Wrote {shown(str(out))} (and its provenance, {shown(str(out))}.json)")
    return lines


def cmd_measure(args) -> int:
    measurement = run_measure(args, args.out, bars=not args.json)
    if args.json:
        json_out(summary(measurement) | {"files": {"csv": args.out, "overlay": args.overlay}})
        return 0
    for line in report_lines(measurement, args.out):
        print(line)
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
        "--overlay",
        metavar="CHECK.mp4",
        help="write the video with the track, each first touch and the board's axes drawn on it",
    )


def add_measure(sub) -> None:
    """The ``measure`` command."""
    p = sub.add_parser(
        "measure",
        help="measure shots' first touches and launch speeds from a video",
        description="Find the board's markers and the camera's pose, track the bale "
        "frame by frame, cut the video into shots, and find each shot's first touch "
        "on the board (where its image path breaks) and its launch speed (a 3D "
        "ballistic fit to its flight, where the view shows enough of it). Writes the "
        "CSV piggy calibrate reads, with a quality column; a shot that cannot be "
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
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_measure)
