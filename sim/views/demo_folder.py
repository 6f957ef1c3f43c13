"""The demo's folder (``piggy demo``): the main job on the embedded defaults, drawn
and written to one folder.

A solver-aimed shot at a stack on the stock board (its JSON, a top and side view,
a GIF, an MP4 and a 3D replay page), a small hit map with its heatmap, a short
bots-only Go Piggy Go! game with its record and replay GIF, and an index.html that
shows them all. The shot, the hit map and the game are sim/studies/demo.py's; here
they are drawn and written, each step told through ``report`` as it starts.
"""

from __future__ import annotations

import html
import json
import os
import time
from pathlib import Path

from models.aimer import PERFECT, aimed_by
from models.errors import InputError
from models.files import write_text_atomic
from sim.physics import shoot
from sim.studies.demo import (
    DEMO_CAMERA,
    DEMO_TARGET,
    GAME_BOTS,
    HITMAP_SHOTS,
    HITMAP_SPACES,
    demo_game,
    demo_hitmap,
    demo_shot,
)
from sim.studies.shots.datafiles import read_provenance
from sim.studies.shots.rqmc import interval_of
from sim.views.game_pictures import game_frames
from sim.views.hitmap_picture import save_heatmap
from sim.views.pictures import save_figure
from sim.views.render import ShotRenderer
from sim.views.shot_picture import shot_figure
from sim.views.video_files import write_gif, write_mp4
from sim.views.viewer import write_shot_page


def write_demo_folder(out: Path, seed: int = 0, report=print) -> list[tuple[str, str]]:
    """Write the demo folder; returns (file, what it is) for each file written."""

    _make_folder(out)
    start = time.perf_counter()
    report("1/3  firing a shot at gold-2 (and rendering it) ...")
    shot = demo_shot(seed)
    written = _shot_files(shot, out)
    report(f"2/3  a small hit map: {len(HITMAP_SPACES)} spaces x {HITMAP_SHOTS} shots ...")
    results = demo_hitmap(out / "hitmap.csv", seed)
    save_heatmap(
        shot.board,
        results,
        out / "hitmap.png",
        f"P(a lone piggy is knocked out), a child aiming, {HITMAP_SHOTS} shots per space",
        interval=interval_of(read_provenance(out / "hitmap.csv")),
    )
    written += [
        ("hitmap.csv", "hit probabilities by space, with 95 % intervals"),
        ("hitmap.png", "the hit map drawn over the board"),
    ]
    report("3/3  a short bots-only game (greedy against random) ...")
    final, files = _game_files(out, seed)
    written += files
    write_text_atomic(out / "index.html", _index(shot.result, results, final, written))
    written.append(("index.html", "all of the above on one page"))
    report("")
    report(aimed_by(PERFECT))  # its hit map's aimer is a child: say whose shot this is
    report(shoot.describe(shot.aim, shot.result, shot.board))
    report("")
    report(f"Wrote {out.resolve()}/ in {time.perf_counter() - start:.0f} s:")
    for name, what in written:
        report(f"  {name:12s} {what}")
    return written


def _make_folder(out: Path) -> None:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create output folder {out}: {exc.strerror}") from None
    if not os.access(out, os.W_OK):
        raise InputError(f"cannot write to {out}: the folder is not writable")


def _shot_files(shot, out: Path) -> list[tuple[str, str]]:
    """The shot's JSON, picture, videos, 3D page and layout."""

    board, design, result = shot.board, shot.design, shot.result
    write_text_atomic(out / "shot.json", json.dumps(shot.report, indent=2) + "\n")
    save_figure(
        shot_figure(board, design, result, f"demo: aimed at {DEMO_TARGET}"), out / "shot.png"
    )
    with ShotRenderer(board, design) as renderer:
        frames = renderer.frames(result, DEMO_CAMERA, slowmo=3.0)
        chase = renderer.frames(result, "chase", slowmo=3.0)
    write_gif(frames, out / "shot.gif")
    write_mp4(chase, out / "shot.mp4")
    write_shot_page(board, design, result, out / "shot.html")
    write_text_atomic(out / "layout.json", json.dumps(shot.layout.to_dict(), indent=2) + "\n")
    return [
        ("shot.json", "the shot: who was knocked out and why, what the bale struck"),
        ("shot.png", "the board, a close-up of the contacts, a section along the aim"),
        ("shot.gif", "the shot from above, framed on the action, 3x slower than life"),
        ("shot.mp4", "the shot following the bale (chase camera)"),
        ("shot.html", "the shot in 3D: turn, zoom, scrub (works offline)"),
        ("layout.json", "the layout the shot was fired at"),
    ]


def _game_files(out: Path, seed: int) -> tuple[object, list[tuple[str, str]]]:
    """The game's record and its replay GIF: the game's final state, and the files."""

    game, final, states = demo_game(out / "game.jsonl", seed)
    write_gif(game_frames(states, game.board, GAME_BOTS), out / "game.gif", fps=2)
    return final, [
        ("game.jsonl", f"the game's record ({len(final.history)} actions)"),
        ("game.gif", "the game from above, turn by turn"),
    ]


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
