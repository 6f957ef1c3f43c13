"""``piggy demo``: the main job on the embedded defaults, written to one folder.

A solver-aimed shot at a stack on the stock board (its JSON, a top and side
view, a GIF, an MP4 and a 3D replay page), a small hit map with its heatmap, a
short bots-only Go Piggy Go! game with its record and replay GIF, and an
index.html that shows them all.
"""

from __future__ import annotations

import html
import json
import os
import time
from pathlib import Path

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.errors import InputError
from models.files import write_text_atomic
from models.layout import layout_from_dict
from sim.cli.common import check_output_folder, seed_arg

#: The embedded scene: a stack, a lone piggy behind it, neighbours.
DEMO_LAYOUT = {
    "stacks": {
        "r8c3": ["gold-2", "pink-1"],
        "r8c2": ["green-1"],
        "r9c3": ["blue-1"],
        "r2c1": ["green-2"],
        "r7c5": ["pink-3"],
    }
}
DEMO_TARGET = "gold-2"
#: The GIF's camera: behind and above the tractor, framed on the action (sim/views/framing.py).
DEMO_CAMERA = "overview"
#: The hit map's spaces (near, far, behind fences, beside the tractor) and shots each.
HITMAP_SPACES = ["r1c1", "r2c5", "r3c3", "r6c0", "r7c1", "r8c3", "r9c5", "r10c0", "r10c6", "r7c3"]
HITMAP_SHOTS = 6


def run(out: Path, seed: int = 0, report=print) -> list[tuple[str, str]]:
    """Write the demo folder; returns (file, what it is) for each file written."""
    from referee.bots import make_bot
    from referee.go_piggy_go import GoPiggyGoGame
    from referee.match import play
    from referee.records import read_record, replay, write_record
    from sim.physics import shoot
    from sim.physics.world import World
    from sim.studies import hitmap
    from sim.views.game_pictures import game_frames
    from sim.views.hitmap_picture import save_heatmap
    from sim.views.pictures import save_figure
    from sim.views.render import ShotRenderer
    from sim.views.shot_picture import shot_figure
    from sim.views.video_files import write_gif, write_mp4
    from sim.views.viewer import write_shot_page

    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output folder {out}: {exc.strerror}") from None
    if not os.access(out, os.W_OK):
        raise InputError(f"cannot write to {out}: the folder is not writable")
    start = time.perf_counter()
    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict(DEMO_LAYOUT, board=board, source="demo layout")
    written: list[tuple[str, str]] = []

    report("1/3  firing a shot at gold-2 (and rendering it) ...")
    with World(board, design, layout) as world:
        shot_aim = shoot.solve_aim(world, DEMO_TARGET)
        result = shoot.fire(world, shot_aim, seed=seed, record=True)
        data = shoot.report(world, shot_aim, result, seed=seed, noise=True)
        write_text_atomic(out / "shot.json", json.dumps(data, indent=2) + "\n")
        save_figure(
            shot_figure(board, design, result, f"demo: aimed at {DEMO_TARGET}"), out / "shot.png"
        )
    with ShotRenderer(board, design) as renderer:
        frames = renderer.frames(result, DEMO_CAMERA, slowmo=3.0)
        chase = renderer.frames(result, "chase", slowmo=3.0)
    write_gif(frames, out / "shot.gif")
    write_mp4(chase, out / "shot.mp4")
    write_shot_page(board, design, result, out / "shot.html")
    write_text_atomic(out / "layout.json", json.dumps(layout.to_dict(), indent=2) + "\n")
    written += [
        ("shot.json", "the shot: who was knocked out and why, what the bale struck"),
        ("shot.png", "the board, a close-up of the contacts, a section along the aim"),
        ("shot.gif", "the shot from above, framed on the action, 3x slower than life"),
        ("shot.mp4", "the shot following the bale (chase camera)"),
        ("shot.html", "the shot in 3D: turn, zoom, scrub (works offline)"),
        ("layout.json", "the layout the shot was fired at"),
    ]

    report(f"2/3  a small hit map: {len(HITMAP_SPACES)} spaces x {HITMAP_SHOTS} shots ...")
    spec = hitmap.SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=tuple(HITMAP_SPACES),
        shots=HITMAP_SHOTS,
        seed=seed,
        aimer=load_aimer("child"),
        sampler="mc",  # the demo's seeded files as they were before RQMC was the default
    )
    results = hitmap.sweep(spec, out / "hitmap.csv", fmt="csv", resume=True)
    save_heatmap(
        board,
        results,
        out / "hitmap.png",
        f"P(a lone piggy is knocked out), a child aiming, {HITMAP_SHOTS} shots per space",
    )
    written += [
        ("hitmap.csv", "hit probabilities by space, with 95 % intervals"),
        ("hitmap.png", "the hit map drawn over the board"),
    ]

    report("3/3  a short bots-only game (greedy against random) ...")
    game = GoPiggyGoGame(players=2)
    final = play(
        game, [make_bot("greedy", game, seed), make_bot("random", game, seed + 1)], seed=seed
    )
    write_record(final, out / "game.jsonl")
    name, params, actions = read_record(out / "game.jsonl")
    write_gif(
        game_frames(replay(name, params, actions), game.board, ["greedy", "random"]),
        out / "game.gif",
        fps=2,
    )
    written += [
        ("game.jsonl", f"the game's record ({len(final.history)} actions)"),
        ("game.gif", "the game from above, turn by turn"),
    ]

    write_text_atomic(out / "index.html", _index(result, results, final, written))
    written.append(("index.html", "all of the above on one page"))
    report("")
    report(shoot.describe(shot_aim, result, board))
    report("")
    report(f"Wrote {out.resolve()}/ in {time.perf_counter() - start:.0f} s:")
    for name, what in written:
        report(f"  {name:12s} {what}")
    return written


def _index(result, hits, game_state, written) -> str:
    e = html.escape
    knocked = ", ".join(result.knocked) or "nobody"
    rows = "".join(
        f"<tr><td><a href='{e(n)}'>{e(n)}</a></td><td>{e(w)}</td></tr>" for n, w in written
    )
    return f"""<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Go Piggy Go! sandbox demo</title>
<style>body{{font:15px sans-serif;max-width:1100px;margin:20px auto;color:#222}}
img,video{{max-width:100%;border:1px solid #ccc}}td{{padding:2px 10px}}
.two{{display:flex;gap:16px;flex-wrap:wrap}}.two>div{{flex:1;min-width:320px}}</style></head>
<body><h1>Go Piggy Go! sandbox demo</h1>
<h2>One shot: aimed at gold-2 — knocked out: {e(knocked)}</h2>
<div class="two"><div><img src="shot.gif" alt="the shot"></div>
<div><video src="shot.mp4" controls loop muted autoplay></video></div></div>
<p><img src="shot.png" alt="the board, a close-up and a section along the aim"></p>
<p><a href="shot.html">Open the shot in 3D</a> (turn it with the mouse; no network needed).</p>
<h2>A small hit map</h2><div class="two"><div><img src="hitmap.png" alt="hit map"></div>
<div><p>{len(hits)} spaces, a lone piggy on each, shots aimed by the solver with the stock
launcher's noise. Numbers and 95&nbsp;% intervals: <a href="hitmap.csv">hitmap.csv</a>.</p>
</div></div>
<h2>A short game</h2><div class="two"><div><img src="game.gif" alt="a game"></div>
<div><p>Greedy (green) against random (gold), {game_state.turn + 1} turns.
Record: <a href="game.jsonl">game.jsonl</a> (<code>piggy replay game.jsonl</code>).</p></div>
</div><h2>Files</h2><table>{rows}</table></body></html>
"""


def cmd_demo(args) -> int:
    from sim.cli import demo

    demo.run(check_output_folder(args.out, "--out"), seed=args.seed)
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
        "index.html that shows them all. About a minute on two idle cores (about a "
        "minute of CPU; longer on a busy machine).",
    )
    p.add_argument("--out", default="piggy-demo", help="output folder (default: ./piggy-demo)")
    seed_arg(p, "seed of the shot-to-shot noise")
    p.set_defaults(func=cmd_demo)
