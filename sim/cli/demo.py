"""``piggy demo``: the main job on the embedded defaults, written to one folder
(sim/views/demo_folder.py makes it)."""

from __future__ import annotations

from sim.cli.common import check_output_folder, seed_arg


def cmd_demo(args) -> int:
    from models.text import shown
    from sim.cli.progress import say
    from sim.studies.demo import HITMAP_SHOTS, HITMAP_SPACES
    from sim.views.demo_folder import write_demo_folder

    out = check_output_folder(args.out, "--out")
    say(
        f"demo into {shown(str(out))}: a shot with its videos, a hit map of "
        f"{len(HITMAP_SPACES)} spaces x {HITMAP_SHOTS} shots "
        f"({len(HITMAP_SPACES) * HITMAP_SHOTS} shots), a short bots-only game; about half "
        "a minute of CPU"
    )
    write_demo_folder(out, seed=args.seed)
    return 0


def add_demo(sub) -> None:
    """The ``demo`` command."""
    p = sub.add_parser(
        "demo",
        help="the main job on the defaults: a shot, its videos, a hit "
        "map, a game; all in one folder",
        description="On the stock board and design: a solver-aimed shot (JSON, "
        "PNG, GIF, MP4, 3D replay page), a small hit map with its "
        "heatmap, a short bots-only game with its replay GIF, and an "
        "index.html that shows them all. About half a minute on two idle cores "
        "(about as much CPU; longer on a busy machine).",
    )
    p.add_argument("--out", default="piggy-demo", help="output folder (default: ./piggy-demo)")
    seed_arg(p, "seed of the shot-to-shot noise")
    p.set_defaults(func=cmd_demo)
