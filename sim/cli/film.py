"""``piggy film``: the sandbox's own shots as a phone on a tripod would film them,
to plan a filming setup and to test a video measurement (docs/real-toy.md,
"Planning a filming setup with piggy film")."""

from __future__ import annotations

import argparse
import math

from models.board import load_board
from models.design import load_design
from models.numbers import ascii_decimal, ascii_whole
from models.text import shown
from sim.cli.common import (
    check_output,
    finite_number,
    json_out,
    progress_bar,
    seed_arg,
    whole_number,
)
from sim.cli.progress import count, say
from sim.real_toy import defaults


def cmd_film(args) -> int:
    scene, angles, layout = _inputs(args)
    from sim.real_toy.film import most_frames
    from sim.real_toy.plan import plan_lines
    from sim.real_toy.whole_film import film, truth_provenance

    truth = args.truth and (
        args.truth,
        truth_provenance(args.board, args.design, args.angles, args.seed, args.layout),
    )
    bars, settings = not args.json, _settings(args)
    shots, (width, height) = len(angles), args.size
    say(
        f"film {shown(args.out)}: {shots} shot{'s' if shots != 1 else ''} of "
        f"{scene[1].name} fired, then filmed at {args.fps:g} fps, {width}x{height}: at most "
        f"{count(most_frames(shots, settings))} frames",
        enabled=bars,
    )
    report = film(
        args.out,
        scene,
        angles,
        settings,
        args.seed,
        truth=truth or None,
        progress=lambda total, unit, label: progress_bar(total, bars, unit, label),
        layout=layout,
    )
    if args.json:
        json_out(report | {"files": {"video": args.out, "truth": args.truth}})
        return 0
    for line in plan_lines(report):
        print(line)
    print(f"Wrote {shown(args.out)} ({report['frames']} frames at {args.fps} fps)")
    if args.truth:
        truth = "first touch, launch speed, rest point, second touch"
        knocked = ", the piggies it knocked out" if layout is not None else ""
        print(f"Wrote {shown(args.truth)} (each shot's true {truth}{knocked})")
    return 0


def _inputs(args):
    """Everything that can be refused, refused before a shot is fired: the files to
    write, the camera, the board, the design, the layout (its piggies and spaces, on
    the board given), the angles and OpenCV itself."""
    check_output(args.out, "--out", (".mp4",))
    if args.truth:
        from sim.studies.shots.datafiles import sidecar_path

        check_output(args.truth, "--truth", (".csv",))
        check_output(sidecar_path(args.truth), "--truth's sidecar")
    from sim.real_toy.camera import make_camera

    camera = make_camera(args.camera_at, args.look_at, args.fov, *args.size)
    board = load_board(args.board)
    design = load_design(args.design)
    layout = None
    if args.layout is not None:
        from models.layout import load_layout

        layout = load_layout(args.layout, board=board)
    from sim.real_toy.angles import read_angles

    angles = read_angles(args.angles)
    from sim.real_toy import opencv
    from sim.real_toy.whole_film import check_pitches

    check_pitches(angles, design)
    from sim.real_toy.budget import check_film_budget
    from sim.real_toy.film import most_frames

    check_film_budget(most_frames(len(angles), _settings(args)), *args.size)
    opencv()  # refused on one line, naming the extra, before any work
    return (board, design, camera), angles, layout


def _settings(args):
    from sim.real_toy.film import FilmSettings
    from sim.real_toy.scene import Lighting

    return FilmSettings(
        fps=args.fps,
        exposure=args.exposure,
        blur_samples=args.blur_samples,
        noise=args.noise,
        rolling_shutter=args.rolling_shutter,
        crf=args.crf,
        gap_s=args.gap,
        shot_s=args.shot_seconds,
        lighting=Lighting(args.gradient, args.vignette),
        tractor=args.tractor,
    )


def _point(text: str) -> tuple[float, float, float]:
    """An argparse ``type``: ``X,Y,Z`` in mm."""
    parts = text.split(",")
    values = [ascii_decimal(p.strip()) for p in parts]
    numbers = [v for v in values if v is not None and math.isfinite(v)]
    if len(parts) != 3 or len(numbers) != 3:
        raise argparse.ArgumentTypeError(
            f"{shown(text, 40)} is not a point: expected X,Y,Z in mm (board frame), e.g. 0,-900,700"
        )
    x, y, z = numbers
    return x, y, z


def _size(text: str) -> tuple[int, int]:
    """An argparse ``type``: ``WxH`` in pixels, even sides."""
    parts = text.lower().split("x")
    values = [ascii_whole(p.strip()) for p in parts]
    (w_lo, w_hi), (h_lo, h_hi) = defaults.WIDTH_RANGE, defaults.HEIGHT_RANGE
    allowed = f"WxH, even numbers, width {w_lo} to {w_hi}, height {h_lo} to {h_hi}"
    sides = [v for v in values if v is not None]
    if len(parts) != 2 or len(sides) != 2:
        raise argparse.ArgumentTypeError(f"{shown(text, 40)} is not a size ({allowed})")
    width, height = sides
    if not (w_lo <= width <= w_hi and h_lo <= height <= h_hi) or width % 2 or height % 2:
        raise argparse.ArgumentTypeError(f"{width}x{height} is not allowed ({allowed})")
    return width, height


def add_film(sub) -> None:
    """The ``film`` command."""
    p = sub.add_parser(
        "film",
        help="the sandbox's shots as a phone on a tripod would film them",
        description="Fire the shots of an angles CSV (pitch_deg, yaw_deg: one row a "
        "shot, the file written while filming) with PyBullet on the empty board (or "
        "at the piggies of --layout) and film them from a camera anywhere over it: "
        "the board with its markers (piggy markers), the bale and its shadow, with "
        "motion blur, a rolling shutter, sensor noise, lighting and compression. "
        "Positions in mm, board frame. --truth writes each shot's true first touch, "
        "launch speed, rest point and second touch (and with --layout the piggies it "
        "knocked out), the "
        "measurement's answer. To plan a filming setup and to test a measurement "
        "(docs/real-toy.md).",
    )
    p.add_argument("--design", required=True, help="a name in models/designs/ or a path")
    p.add_argument("--angles", required=True, metavar="ANGLES.csv", help="the shots, in order")
    p.add_argument("--board", default="stock", help="the board (default: stock)")
    seed_arg(p, "seeds the shots' noise, the frames' phase and the sensor noise")
    p.add_argument("--out", required=True, metavar="SHOTS.mp4", help="the video (H.264 MP4)")
    p.add_argument(
        "--truth",
        metavar="TRUTH.csv",
        help="write each shot's true first touch (x_mm, y_mm), launch speed (speed_mm_s), "
        "rest point (rest_x_mm, rest_y_mm) and second touch of the board (second_x_mm, "
        "second_y_mm); with --layout, the piggies it knocked out (knocked)",
    )
    p.add_argument(
        "--layout",
        metavar="LAYOUT.json",
        help="fire at piggies standing as this layout file says (or 'crowded'), each "
        "shot from the settled layout, and draw them (default: the empty board)",
    )
    _pose_options(p)
    _camera_options(p)
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_film)


def _pose_options(p: argparse.ArgumentParser) -> None:
    """Where the camera stands and looks, how wide, how fast and how large."""
    p.add_argument(
        "--camera-at", type=_point, required=True, metavar="X,Y,Z", help="the camera, mm"
    )
    p.add_argument(
        "--look-at",
        type=_point,
        default=(0.0, 0.0, 0.0),
        metavar="X,Y,Z",
        help="the point at the image's centre, mm (default 0,0,0: the tractor's pivot)",
    )
    lo, hi = defaults.FOV_RANGE_DEG
    p.add_argument(
        "--fov",
        type=finite_number(),
        default=60.0,
        metavar="DEG",
        help=f"the horizontal field of view, more than {lo:g} and less than {hi:g} (default 60)",
    )
    p.add_argument(
        "--fps",
        type=whole_number(*defaults.FPS_RANGE),
        default=defaults.FPS,
        help=f"frames a second, {defaults.FPS_RANGE[0]} to {defaults.FPS_RANGE[1]} "
        f"(default {defaults.FPS})",
    )
    p.add_argument(
        "--size",
        type=_size,
        default=(1920, 1080),
        metavar="WxH",
        help="the frame, pixels (default 1920x1080)",
    )


#: What a real camera adds: (option, metavar, its type, default, help).
_REALISM = (
    ("--exposure", "SHARE", finite_number(0, 1), defaults.EXPOSURE,
     "the shutter open for this share of the frame period, 0 (no blur) to 1"),
    ("--blur-samples", "N", whole_number(1, 64), defaults.BLUR_SAMPLES,
     "renders averaged over the exposure, 1 to 64"),
    ("--noise", "LEVELS", finite_number(0, 50), defaults.NOISE,
     "sensor noise, grey levels (of 255), 1 sd, 0 to 50"),
    ("--rolling-shutter", "SHARE", finite_number(0, 1), defaults.ROLLING_SHUTTER,
     "the rows read top to bottom over this share of the frame period, 0 (global) to 1"),
    ("--crf", "CRF", whole_number(0, 51), defaults.CRF,
     "H.264 compression: 0 lossless to 51 worst"),
    ("--gap", "S", finite_number(0.01, 10), defaults.GAP_S,
     "still frames before, between and after the shots, s, 0.01 to 10"),
    ("--shot-seconds", "S", finite_number(0.05, 10), defaults.SHOT_S,
     "the most of each shot filmed from its release, s, 0.05 to 10"),
    ("--gradient", "SHARE", finite_number(0, 1), defaults.GRADIENT,
     "the light's change across the image, 0 to 1"),
    ("--vignette", "SHARE", finite_number(0, 1), defaults.VIGNETTE,
     "the darkening of the corners, 0 to 1"),
)  # fmt: skip


def _camera_options(p: argparse.ArgumentParser) -> None:
    """What a real camera adds: blur, rolling shutter, noise, light, compression."""
    p.add_argument(
        "--tractor",
        action="store_true",
        help="draw the tractor too, turned to each shot (it hides what is behind it)",
    )
    for flag, metavar, kind, default, help_text in _REALISM:
        p.add_argument(
            flag,
            metavar=metavar,
            type=kind,
            default=default,
            help=f"{help_text} (default {default:g})",
        )
