"""A self-contained HTML page that replays a shot in 3D: the same meshes as the
physics, orbit and zoom with the mouse, play/pause and a timeline to scrub, the
bale's trail, the piggies' and the spaces' names.

The page needs no network: the renderer is three.js (WebGL), vendored in
sim/views/web/ and written into the page with the view built on it
(board3d.js, which the sandbox in the browser, sim/serve/, uses too), and the
meshes and every frame's poses are JSON inside it.
"""

from __future__ import annotations

import html
import json
import math
import re
from pathlib import Path

import numpy as np

from models.board import Board, space_name
from models.body_shapes import surface_parts
from models.design import Design
from models.files import write_text_atomic
from models.meshes import barrel
from sim.colours import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA
from sim.physics.geometry import fence_boxes
from sim.physics.results import ShotResult

SPACE_RGB, LINE_RGB, HOLE_RGB = (234, 220, 184), (138, 118, 80), (154, 154, 154)
PIT_RGB, TROUGH_RGB, BOARD_RGB = (166, 138, 110), (201, 163, 107), (216, 197, 154)
#: The three.js release in sim/views/web/three.min.js (scripts/build_three.sh).
THREE_VERSION = "0.187.0"


def _rgb(rgba) -> list[int]:
    return [round(255 * c) for c in rgba[:3]]


def _mesh(parts, rgb) -> dict:
    """Convex parts as one triangle list: flat vertex array (mm) and face indices."""
    vertices, faces, offset = [], [], 0
    for part in parts:
        vertices.extend(np.round(part.vertices, 2).ravel().tolist())
        faces.extend((part.faces + offset).ravel().tolist())
        offset += len(part.vertices)
    return {"v": vertices, "f": faces, "rgb": rgb}


def _box(lo, hi, rgb) -> dict:
    import trimesh

    lo, hi = np.asarray(lo, float), np.asarray(hi, float)
    box = trimesh.creation.box(extents=hi - lo)
    box.apply_translation((lo + hi) / 2)
    return _mesh([box], rgb)


def _quad(x0, y0, x1, y1, rgb, z=0.0, outline=None, name=None, label=None) -> dict:
    """A flat rectangle of the board top; ``name`` a space or place the pages can pick
    and write on it (``label`` the words written, when not the name)."""
    quad = {
        "v": [x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z],
        "f": [0, 1, 2, 0, 2, 3],
        "rgb": list(rgb),
        "flat": True,
    }
    if outline:
        quad["outline"] = list(outline)
    if name:
        quad.update(name=name, label=label or name, space=label is None)
    return quad


def scene(board: Board, design: Design) -> dict:
    """The static board, fences and tractor, and the meshes of the moving bodies (the
    design's own where it gives them)."""
    x0, x1, y0, y1 = board.surface_extent_mm
    gx0, gx1, gy0, gy1 = board.grid_extent_mm
    s = board.space_mm
    static = [
        _quad(x0, y0, x1, y1, BOARD_RGB, z=-0.2),
        _quad(gx0, y0, gx1, gy0, PIT_RGB, z=-0.1, name="pit", label="start Mud Pit"),
        _quad(gx0, gy1, gx1, y1, TROUGH_RGB, z=-0.1, name="trough", label="trough"),
    ]
    for rows, left in ((board.pit_left_rows, True), (board.pit_right_rows, False)):
        lo, hi = gy0 + min(rows) * s, gy0 + (max(rows) + 1) * s
        px = x0 if left else gx1
        side = "left" if left else "right"
        static.append(
            _quad(
                px,
                lo,
                px + board.side_pit_mm,
                hi,
                PIT_RGB,
                z=-0.1,
                name=f"pit-{side}",
                label="Mud Pit",
            )
        )
    for r in range(board.rows):
        for c in range(board.cols):
            hole = (r, c) in board.holes
            static.append(
                _quad(
                    gx0 + c * s,
                    gy0 + r * s,
                    gx0 + (c + 1) * s,
                    gy0 + (r + 1) * s,
                    HOLE_RGB if hole else SPACE_RGB,
                    outline=LINE_RGB,
                    name=None if hole else space_name((r, c)),
                )
            )
    for fence in fence_boxes(board):
        static.append(_box(*fence.bounds_mm(), _rgb(FENCE_RGBA)))
    # the design's own meshes where it gives them; a piggy in its body's (principal) frame
    return {
        "static": static,
        "tractor": _mesh(surface_parts(design, "tractor"), _rgb(TRACTOR_RGBA)),
        "barrel": _mesh([barrel(design.launcher.barrel_length_mm)], _rgb(TRACTOR_RGBA)),
        "pivot_mm": design.launcher.pivot_height_mm,
        "bale": _mesh(surface_parts(design, "bale"), _rgb(BALE_RGBA)),
        "piggy": _mesh(surface_parts(design, "piggy", principal=True), [0, 0, 0]),
        "piggy_rgb": {colour: _rgb(rgba) for colour, rgba in PIGGY_RGBA.items()},
        "extent_mm": [x0, x1, y0, y1],
        "focal": FOCAL,
    }


def shot_data(board: Board, design: Design, result: ShotResult, with_scene: bool = True) -> dict:
    """Everything the page shows: the scene (unless the page has it already), every
    frame's poses, the verdicts."""
    rec = result.recording
    if rec is None:
        raise ValueError("the shot was fired without recording")
    return {
        **({"scene": scene(board, design)} if with_scene else {}),
        "dt_s": rec.dt_s,
        "yaw_deg": result.yaw_deg,
        "pitch_deg": result.pitch_deg,
        "bale": {
            "p": np.round(rec.bale_mm, 2).tolist(),
            "q": np.round(rec.bale_quat, 5).tolist(),
            "in_play": rec.bale_in_play.tolist(),
        },
        "piggies": {
            name: {
                "p": np.round(rec.piggies_mm[name], 2).tolist(),
                "q": np.round(rec.piggies_quat[name], 5).tolist(),
            }
            for name in rec.piggies_mm
        },
        "knocked": result.knocked,
        "camera": start_camera(result),
        "verdicts": {p: r.reason for p, r in sorted(result.piggies.items())},
        "contacts": result.contacts,
    }


#: The page's camera: the focal length of its renderer, in sizes of the canvas's
#: smaller side (about 40 degrees across it: as the videos' overview, little
#: distortion), and its first view direction (degrees turned from the aim, degrees
#: down from level).
FOCAL = 1.4
PAGE_FOV_DEG = 2 * math.degrees(math.atan(0.5 / FOCAL))
START_VIEW_DEG = (25.0, 45.0)


def start_camera(result: ShotResult) -> dict:
    """Where the page's camera starts: framed on the shot's action (sim/views/framing.py),
    as the page's orbit camera takes it (target, distance, azimuth, elevation)."""
    from sim.views import framing

    forward = framing.direction(*START_VIEW_DEG, framing.ahead_of(result))
    points = framing.action_points(result, tractor=True)
    target, distance = framing.fit(points, forward, (0.0, 0.0, 1.0), PAGE_FOV_DEG, 1.0)
    return {
        "target_mm": np.round(target, 1).tolist(),
        "dist_mm": round(distance, 1),
        "focal": FOCAL,
        "az": math.atan2(-forward[1], -forward[0]),
        "el": math.asin(-forward[2]),
    }


def page(data: dict, title: str) -> str:
    """The HTML text of a replay page."""
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return fill(
        _PAGE,
        TITLE=html.escape(title),
        DATA=payload,
        RENDERER=renderer_scripts(),
        SCRIPT=asset("replay.js"),
    )


def template() -> str:
    """A replay page whose title and data are the marks ``__TITLE__`` and ``__SHOT__``,
    for a page that holds many shots to fill in the browser (the design report keeps one
    copy of the renderer for all of them)."""
    return fill(
        _PAGE,
        TITLE="__TITLE__",
        DATA="__SHOT__",
        RENDERER=renderer_scripts(),
        SCRIPT=asset("replay.js"),
    )


def fill(template: str, **parts: str) -> str:
    """A page's ``__NAME__`` marks replaced by its parts, in one pass (a part's own
    text is never taken for a mark)."""
    return re.sub(r"__([A-Z]+)__", lambda mark: parts[mark.group(1)], template)


def asset(name: str) -> str:
    """The text of one of the pages' scripts (sim/views/web/)."""
    return (Path(__file__).parent / "web" / name).read_text(encoding="utf-8")


def renderer_scripts() -> str:
    """The 3D view's scripts, inline: three.js (vendored, with its licence named) and
    the board view built on it (sim/views/web/board3d.js). Every 3D page has them."""
    licence = (
        "<!-- three.js " + THREE_VERSION + ", MIT licence, copyright 2010-2026 "
        "three.js authors: sim/views/web/three-LICENSE.txt -->"
    )
    return (
        f"{licence}\n<script>{asset('three.min.js')}</script>\n"
        f"<script>{asset('board3d.js')}</script>"
    )


def write_shot_page(board: Board, design: Design, result: ShotResult, path) -> Path:
    """Write a shot's replay page atomically."""
    knocked = ", ".join(result.knocked) or "nobody"
    return write_text_atomic(
        path, page(shot_data(board, design, result), f"Go Piggy Go! shot — knocked out: {knocked}")
    )


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{margin:0;font:14px sans-serif;background:#f4f1ea;color:#222;overflow:hidden}
#bar{display:flex;gap:10px;align-items:center;padding:6px 10px;height:27px;background:#fff;
border-bottom:1px solid #ccc;white-space:nowrap;overflow:hidden;font-size:13px}
#time{width:70px}#timeline{flex:1}#view{width:100%;cursor:grab}
#info{position:absolute;left:10px;bottom:10px;background:rgba(255,255,255,.85);padding:6px 10px;
max-width:420px;font-size:12px;border-radius:4px}
</style></head><body>
<div id="bar"><button id="play">Pause</button><input id="timeline" type="range" min="0" value="0">
<span id="time"></span><label>speed <select id="speed"><option value="0.25">1/4</option>
<option value="0.5">1/2</option><option value="1" selected>1</option></select></label>
<label><input id="names" type="checkbox" checked> names</label>
<label><input id="trail" type="checkbox" checked> trail</label>
<button id="home">frame the action</button>
<span>drag: turn &middot; right-drag: move &middot; wheel: zoom</span></div>
<div id="view"></div><div id="info"></div>
<script id="data" type="application/json">__DATA__</script>
__RENDERER__
<script>__SCRIPT__</script></body></html>
"""
