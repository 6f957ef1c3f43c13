"""``piggy shoot``, ``piggy aim`` and ``piggy sandbox``: one shot at a time."""

from __future__ import annotations

from contextlib import ExitStack

from models.aimer import aimed_by
from models.board import load_board
from models.design import load_design
from models.design_checks import check_angles
from models.errors import InputError
from models.grid import HIT_RULES
from models.layout import Layout, layout_from_dict
from models.text import shown
from sim.cli.common import (
    aimer_args,
    check_output,
    engine_arg,
    finite_number,
    json_out,
    load_aimer_args,
    load_layout_args,
    load_scene,
    progress_bar,
    sandbox_scene_args,
    seed_arg,
    waiting,
    whole_number,
    world_args,
)
from sim.defaults import CAMERAS
from sim.studies.demo import DEMO_LAYOUT


def cmd_shoot(args) -> int:
    _check_aim_args(args)
    if args.png:
        check_output(args.png, "--png", (".png",))
    videos = _check_video_args(args)
    aimer = load_aimer_args(args)
    board, design, layout = load_scene(args)
    _check_target(board, design, layout, args)
    # the physics and the pictures are imported once the input is read: a mistake is
    # told at once (a fast start, CONTRIBUTING.md)
    from sim.physics import shoot

    if videos:
        from sim.views.streaming import check_video_memory

        check_video_memory(design, args.frame_size, args.slowmo, gif="gif" in videos)
    shot_aim, result, data = _fire(args, (board, design, layout), aimer, bool(args.png or videos))
    written = _write_videos(board, design, result, args, videos)
    if args.json:
        json_out(data)
    else:
        print(aimed_by(aimer))  # the sandbox's default aimer is another: say whose shot
        print(shoot.describe(shot_aim, result, board))
        for path in ([args.png] if args.png else []) + written:
            print(f"Wrote {shown(path)}")
    return 0


def _check_aim_args(args) -> None:
    """``--at``, or ``--yaw`` and ``--pitch``; ``--arc`` only with ``--at``."""
    if args.at is None and (args.yaw is None or args.pitch is None):
        raise InputError("piggy shoot: give --yaw and --pitch, or --at <space|piggy>")
    if args.at is not None and (args.yaw is not None or args.pitch is not None):
        raise InputError("piggy shoot: give either --at or --yaw/--pitch, not both")
    if args.arc is not None and args.at is None:
        raise InputError("piggy shoot: --arc chooses the solver's arc: it goes with --at")


def _check_target(board, design, layout, args) -> None:
    """The space or piggy of ``--at`` (on the board, in the layout), or the angles
    of ``--yaw``/``--pitch`` (in the design's range), before a world is built."""
    if args.at is not None:
        (layout or Layout(board=board, stacks={})).target(args.at)
    else:
        check_angles(design, args.yaw, args.pitch)


def _fire(args, scene, aimer, record: bool):
    """The shot of the command line in a world of ``scene`` (board, design, layout):
    its aim, its result and its report; its picture written with ``--png``."""
    from sim.physics import shoot
    from sim.physics.launch import AimedShot
    from sim.physics.registry import make_world, resolve

    board, design, layout = scene
    with make_world(board, resolve(design, args.engine), layout, hit_rule=args.hit_rule) as world:
        if args.at is not None:
            shot_aim = shoot.solve_aim(
                world, args.at, args.arc or "low", strict=args.arc is not None
            )
        else:
            shot_aim = shoot.Aim(args.yaw, args.pitch)
        shot = AimedShot(
            shot_aim.yaw_deg, shot_aim.pitch_deg, args.seed, noise=not args.exact, aimer=aimer
        )
        result = shoot.fire(world, shot, record=record)
        data = shoot.report(world, shot_aim, shot, result)
        if args.png:
            from sim.views.pictures import save_figure
            from sim.views.shot_picture import shot_figure

            save_figure(shot_figure(board, design, result), args.png)
    return shot_aim, result, data


def _check_video_args(args) -> dict[str, str]:
    """The video files asked for, checked before the shot is fired."""
    if args.camera not in CAMERAS:
        raise InputError(f"unknown camera '{args.camera}': allowed are {', '.join(CAMERAS)}")
    try:
        width, height = (
            int(v)
            for v in args.size.lower().split("x")
            if v.isascii() and v.isdigit() and len(v) <= 5
        )
    except ValueError:
        raise InputError(f"--size '{shown(args.size)}' must look like 640x480") from None
    if not (64 <= width <= 3840 and 64 <= height <= 2160):
        raise InputError(f"--size {args.size} is out of range: 64x64 to 3840x2160")
    args.frame_size = (width, height)
    videos = {}
    for kind in ("gif", "mp4", "html"):
        path = getattr(args, kind)
        if path:
            videos[kind] = str(check_output(path, f"--{kind}", (f".{kind}",)))
    return videos


def _write_videos(board, design, result, args, videos: dict[str, str]) -> list[str]:
    written = []
    show = not args.json
    if "gif" in videos or "mp4" in videos:
        # PyBullet's renderer: imported only for a video (a MuJoCo shot runs without it)
        from sim.views.render import ShotRenderer
        from sim.views.streaming import write_videos

        # a shot's frames take seconds: a bar on a terminal, no lines in a log
        progress = progress_bar(None, show, unit="frame", label="rendering", lines=False)
        with ShotRenderer(board, design, size=args.frame_size) as renderer:
            written += write_videos(
                renderer,
                result,
                args.camera,
                args.slowmo,
                videos.get("gif"),
                videos.get("mp4"),
                progress=progress,
            )
        progress(None)
    if "html" in videos:
        from sim.views.viewer import write_shot_page

        with waiting("building the 3D page", show):
            written.append(str(write_shot_page(board, design, result, videos["html"])))
    return written


def cmd_aim(args) -> int:
    board, design, layout = load_scene(args)
    (layout or Layout(board=board, stacks={})).target(args.at)  # before the world
    from sim.physics import aim, shoot
    from sim.physics.registry import make_world, resolve

    with make_world(board, resolve(design, None), layout) as world:
        point, label = shoot.target_point(world, args.at)
        solutions = aim.solve(design, point, label)
    if args.json:
        json_out(
            {
                "target": args.at,
                "target_mm": [round(v, 2) for v in point],
                "design": design.name,
                "solutions": [s.to_dict() for s in solutions],
            }
        )
        return 0
    print(
        f"To hit {label} ({solutions[0].distance_mm:.0f} mm from the tractor) "
        f"with design '{design.name}':"
    )
    for s in solutions:
        print(f"  {s.arc:4s} arc: --yaw {s.yaw_deg:.2f} --pitch {s.pitch_deg:.2f}")
    return 0


def cmd_sandbox(args) -> int:
    design = load_design(args.design)
    if args.layout:
        layout = load_layout_args(args)
    else:
        layout = layout_from_dict(
            DEMO_LAYOUT, board=load_board(args.board or "stock"), source="demo layout"
        )
    board = layout.board
    from sim.views.sandbox import run_sandbox

    with ExitStack() as opening:  # the start-up wait ends with the window's first words
        opening.enter_context(waiting("opening the sandbox window"))

        def report(text: str) -> None:
            opening.close()
            print(text)

        run_sandbox(
            board,
            design,
            layout,
            seconds=args.seconds,
            auto_fire=args.auto_fire,
            slowmo=args.slowmo,
            seed=args.seed,
            report=report,
        )
    return 0


def add_shoot(sub) -> None:
    """The ``shoot`` command."""
    p = sub.add_parser(
        "shoot",
        help="fire one hay bale and judge who is knocked out",
        description="Fire one hay bale from the wolf tractor and judge, from "
        "the physics, which piggies were knocked out of their spaces.",
    )
    world_args(p)
    _add_aim_options(p)
    _add_picture_options(p)
    p.add_argument("--json", action="store_true", help="print the shot JSON")
    p.set_defaults(func=cmd_shoot)


def _add_aim_options(p) -> None:
    """How the shot is aimed (by hand or at a target), its noise, the aimer, the hit
    rule and the engine."""
    p.add_argument(
        "--yaw",
        type=finite_number(),
        help="turn of the tractor, degrees (0 = toward "
        "the trough, positive = counter-clockwise from above); -360 to 360",
    )
    p.add_argument(
        "--pitch",
        type=finite_number(),
        help="tilt of the barrel, degrees above horizontal; within the design's range",
    )
    p.add_argument("--at", help="aim automatically at a space (r8c3) or a piggy (gold-2)")
    p.add_argument(
        "--arc",
        choices=("low", "high"),
        help="with --at: the flat (low) or lobbed (high) solution, refused when it "
        "does not exist (default: low, or high where no low arc reaches)",
    )
    seed_arg(p, "seed of the shot-to-shot noise")
    p.add_argument(
        "--exact",
        action="store_true",
        help="no shot-to-shot noise: fire exactly as aimed at the mean speed",
    )
    aimer_args(p, default="perfect")
    p.add_argument(
        "--hit-rule",
        default="touches-line",
        choices=HIT_RULES,
        help="knocked out when touching the outline (default) or wholly outside",
    )
    engine_arg(p)


def _add_picture_options(p) -> None:
    """The shot's picture, videos and 3D page, and how the videos are made."""
    p.add_argument(
        "--png",
        metavar="FILE",
        help="write a picture of the shot (the board, a close-up, a section along the aim)",
    )
    p.add_argument("--gif", metavar="FILE", help="write an animated GIF of the shot")
    p.add_argument("--mp4", metavar="FILE", help="write an MP4 video of the shot")
    p.add_argument(
        "--html",
        metavar="FILE",
        help="write a self-contained page that replays the shot in 3D (offline)",
    )
    p.add_argument(
        "--camera", default="overview", help="video camera: overview (default), chase, top or side"
    )
    p.add_argument(
        "--slowmo",
        type=finite_number(0.1, 20),
        default=3.0,
        help="videos play this many times slower than real time, 0.1 to 20 (default 3)",
    )
    p.add_argument("--size", default="640x480", help="video frame size (default 640x480)")


def add_aim(sub) -> None:
    """The ``aim`` command."""
    p = sub.add_parser(
        "aim",
        help="yaw/pitch solutions that put a bale on a space or piggy",
        description="Solve the aim: the low and high arcs that hit the target.",
    )
    world_args(p)
    p.add_argument("--at", required=True, help="a space (r8c3) or a piggy on the layout (gold-2)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.set_defaults(func=cmd_aim)


def add_sandbox(sub) -> None:
    """The ``sandbox`` command."""
    p = sub.add_parser(
        "sandbox",
        help="PyBullet's window: sliders, a fire button, verdicts",
        description="The interactive way to try the launcher: sliders for yaw "
        "and pitch, FIRE and reset buttons, and the knock-out "
        "verdict after each shot. Needs a display (xvfb-run works).",
    )
    sandbox_scene_args(p)
    p.add_argument(
        "--seconds",
        type=finite_number(0, 7 * 24 * 3600, above=True),
        help="close the window after this long",
    )
    p.add_argument(
        "--auto-fire",
        type=whole_number(0, 10_000),
        default=0,
        metavar="N",
        help="fire N shots at the sliders' settings by itself, then close "
        "(unless --seconds is given)",
    )
    p.add_argument(
        "--slowmo",
        type=finite_number(0.1, 20),
        default=2.0,
        help="shots play this many times slower than real time, 0.1 to 20 (default 2)",
    )
    seed_arg(p, "seed of the shot-to-shot noise")
    p.set_defaults(func=cmd_sandbox)
