"""A self-contained HTML page that replays a shot in 3D: the same meshes as the
physics, orbit and zoom with the mouse, play/pause and a timeline to scrub.

The page needs no network: its renderer (flat-shaded triangles drawn on a 2D
canvas, far to near) is a few lines of JavaScript inside the page, and the
meshes and every frame's poses are JSON inside it too.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np

from models.board import Board
from models.design import Design
from models.files import write_text_atomic
from models.meshes import barrel, hay_bale, load_parts
from sim.colours import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA
from sim.physics.results import ShotResult

SPACE_RGB, LINE_RGB, HOLE_RGB = (234, 220, 184), (138, 118, 80), (154, 154, 154)
PIT_RGB, TROUGH_RGB, BOARD_RGB = (166, 138, 110), (201, 163, 107), (216, 197, 154)


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


def _quad(x0, y0, x1, y1, rgb, z=0.0, outline=None) -> dict:
    return {"v": [x0, y0, z, x1, y0, z, x1, y1, z, x0, y1, z], "f": [0, 1, 2, 0, 2, 3],
            "rgb": list(rgb), "flat": True, **({"outline": list(outline)} if outline else {})}


def scene(board: Board, design: Design) -> dict:
    """The static board, fences and tractor, and the meshes of the moving bodies."""
    x0, x1, y0, y1 = board.surface_extent_mm
    gx0, gx1, gy0, gy1 = board.grid_extent_mm
    s = board.space_mm
    static = [_quad(x0, y0, x1, y1, BOARD_RGB, z=-0.2),
              _quad(gx0, y0, gx1, gy0, PIT_RGB, z=-0.1),
              _quad(gx0, gy1, gx1, y1, TROUGH_RGB, z=-0.1)]
    for rows, left in ((board.pit_left_rows, True), (board.pit_right_rows, False)):
        lo, hi = gy0 + min(rows) * s, gy0 + (max(rows) + 1) * s
        px = x0 if left else gx1
        static.append(_quad(px, lo, px + board.side_pit_mm, hi, PIT_RGB, z=-0.1))
    for r in range(board.rows):
        for c in range(board.cols):
            colour = HOLE_RGB if (r, c) in board.holes else SPACE_RGB
            static.append(_quad(gx0 + c * s, gy0 + r * s, gx0 + (c + 1) * s, gy0 + (r + 1) * s,
                                colour, outline=LINE_RGB))
    for a, b in board.fence_segments_mm():
        half_t = board.fence_thickness_mm / 2
        lo = np.minimum(a, b) - half_t
        hi = np.maximum(a, b) + half_t
        static.append(_box((*lo, 0), (*hi, board.fence_height_mm), _rgb(FENCE_RGBA)))
    bale = design.bale
    return {
        "static": static,
        "tractor": _mesh(load_parts("tractor").values(), _rgb(TRACTOR_RGBA)),
        "barrel": _mesh([barrel(design.launcher.barrel_length_mm)], _rgb(TRACTOR_RGBA)),
        "pivot_mm": design.launcher.pivot_height_mm,
        "bale": _mesh([hay_bale(bale.length_mm, bale.width_mm, bale.height_mm,
                                bale.corner_radius_mm)], _rgb(BALE_RGBA)),
        "piggy": _mesh(load_parts("piggy_principal").values(), [0, 0, 0]),
        "piggy_rgb": {colour: _rgb(rgba) for colour, rgba in PIGGY_RGBA.items()},
        "extent_mm": [x0, x1, y0, y1],
    }


def shot_data(board: Board, design: Design, result: ShotResult) -> dict:
    """Everything the page shows: the scene, every frame's poses, the verdicts."""
    rec = result.recording
    if rec is None:
        raise ValueError("the shot was fired without recording")
    return {
        "scene": scene(board, design),
        "dt_s": rec.dt_s,
        "yaw_deg": result.yaw_deg, "pitch_deg": result.pitch_deg,
        "bale": {"p": np.round(rec.bale_mm, 2).tolist(), "q": np.round(rec.bale_quat, 5).tolist(),
                 "in_play": rec.bale_in_play.tolist()},
        "piggies": {name: {"p": np.round(rec.piggies_mm[name], 2).tolist(),
                           "q": np.round(rec.piggies_quat[name], 5).tolist()}
                    for name in rec.piggies_mm},
        "knocked": result.knocked,
        "camera": start_camera(result),
        "verdicts": {p: r.reason for p, r in sorted(result.piggies.items())},
        "contacts": result.contacts,
    }


#: The page's camera: the focal length of its renderer below, in sizes of the canvas's
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
    return {"target_mm": np.round(target, 1).tolist(), "dist_mm": round(distance, 1),
            "focal": FOCAL,
            "az": math.atan2(-forward[1], -forward[0]), "el": math.asin(-forward[2])}


def page(data: dict, title: str) -> str:
    """The HTML text of a replay page."""
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return (_PAGE.replace("__TITLE__", title).replace("__DATA__", payload)
            .replace("__SCRIPT__", _SCRIPT))


def write_shot_page(board: Board, design: Design, result: ShotResult, path) -> Path:
    """Write a shot's replay page atomically."""
    knocked = ", ".join(result.knocked) or "nobody"
    return write_text_atomic(path, page(shot_data(board, design, result),
                                        f"Go Piggy Go! shot — knocked out: {knocked}"))


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>__TITLE__</title>
<style>
body{margin:0;font:14px sans-serif;background:#f4f1ea;color:#222}
#bar{display:flex;gap:10px;align-items:center;padding:6px 10px;background:#fff;
border-bottom:1px solid #ccc}
#time{width:70px}#timeline{flex:1}canvas{display:block;cursor:grab}
#info{position:absolute;left:10px;bottom:10px;background:rgba(255,255,255,.85);padding:6px 10px;
max-width:420px;font-size:12px;border-radius:4px}
</style></head><body>
<div id="bar"><button id="play">Pause</button><input id="timeline" type="range" min="0" value="0">
<span id="time"></span><label>speed <select id="speed"><option value="0.25">1/4</option>
<option value="0.5">1/2</option><option value="1" selected>1</option></select></label>
<label><input id="names" type="checkbox" checked> names</label>
<button id="home">frame the action</button>
<span>drag: turn &middot; wheel: zoom</span></div>
<canvas id="view"></canvas><div id="info"></div>
<script id="data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script></body></html>
"""

_SCRIPT = r"""
const D = JSON.parse(document.getElementById('data').textContent);
const S = D.scene, N = D.bale.p.length;
const canvas = document.getElementById('view'), ctx = canvas.getContext('2d');
const slider = document.getElementById('timeline'), label = document.getElementById('time');
slider.max = N - 1;
const home = () => ({az: D.camera.az, el: D.camera.el, dist: D.camera.dist_mm,
                     target: D.camera.target_mm.slice()});
let cam = home();
let frame = 0, playing = true, last = null, clock = 0;
if (location.hash === '#end') {  // page.html#end: open on the shot's outcome
  frame = N - 1; playing = false; clock = frame * D.dt_s; slider.value = frame;
  document.getElementById('play').textContent = 'Play';
}
function resize() { canvas.width = innerWidth; canvas.height = innerHeight - 40; }
addEventListener('resize', resize); resize();
function quatRot(q, v) {  // rotate v by unit quaternion q = (x, y, z, w)
  const [x, y, z, w] = q, [a, b, c] = v;
  const ix = w * a + y * c - z * b, iy = w * b + z * a - x * c,
        iz = w * c + x * b - y * a, iw = -x * a - y * b - z * c;
  return [ix * w + iw * -x + iy * -z - iz * -y, iy * w + iw * -y + iz * -x - ix * -z,
          iz * w + iw * -z + ix * -y - iy * -x];
}
function yawPitch(yaw, pitch) {  // quaternion of yaw about z then pitch about x
  const cy = Math.cos(yaw / 2), sy = Math.sin(yaw / 2), cp = Math.cos(pitch / 2),
        sp = Math.sin(pitch / 2);
  return [cy * sp, sy * sp, sy * cp, cy * cp];
}
function placed(mesh, q, p, rgb) {
  const v = mesh.v, out = [];
  for (let i = 0; i < v.length; i += 3) {
    const r = q ? quatRot(q, [v[i], v[i + 1], v[i + 2]]) : [v[i], v[i + 1], v[i + 2]];
    out.push([r[0] + p[0], r[1] + p[1], r[2] + p[2]]);
  }
  return {pts: out, f: mesh.f, rgb: rgb || mesh.rgb, flat: mesh.flat, outline: mesh.outline};
}
function bodies(k) {
  const list = S.static.map(m => placed(m, null, [0, 0, 0]));
  const yaw = D.yaw_deg * Math.PI / 180, pitch = D.pitch_deg * Math.PI / 180;
  list.push(placed(S.tractor, yawPitch(yaw, 0), [0, 0, 0]));
  list.push(placed(S.barrel, yawPitch(yaw, pitch), [0, 0, S.pivot_mm]));
  if (D.bale.in_play[k]) list.push(placed(S.bale, D.bale.q[k], D.bale.p[k]));
  for (const [name, track] of Object.entries(D.piggies))
    list.push(placed(S.piggy, track.q[k], track.p[k], S.piggy_rgb[name.split('-')[0]]));
  return list;
}
function draw(k) {
  const w = canvas.width, h = canvas.height;
  ctx.fillStyle = '#f4f1ea'; ctx.fillRect(0, 0, w, h);
  const ce = Math.cos(cam.el), T = cam.target;
  const eye = [T[0] + cam.dist * ce * Math.cos(cam.az), T[1] + cam.dist * ce * Math.sin(cam.az),
               T[2] + cam.dist * Math.sin(cam.el)];
  const fwd = eye.map((c, i) => T[i] - c), fl = Math.hypot(...fwd), F = fwd.map(c => c / fl);
  let R = [F[1], -F[0], 0]; const rl = Math.hypot(...R) || 1; R = R.map(c => c / rl);
  const U = [R[1] * F[2] - R[2] * F[1], R[2] * F[0] - R[0] * F[2], R[0] * F[1] - R[1] * F[0]];
  const focal = D.camera.focal * Math.min(w, h), light = [0.35, -0.5, 0.8];
  const tris = [];
  for (const b of bodies(k)) {
    const proj = b.pts.map(p => {
      const d = [p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]];
      const z = d[0] * F[0] + d[1] * F[1] + d[2] * F[2];
      return [w / 2 + focal * (d[0] * R[0] + d[1] * R[1] + d[2] * R[2]) / z,
              h / 2 - focal * (d[0] * U[0] + d[1] * U[1] + d[2] * U[2]) / z, z];
    });
    for (let i = 0; i < b.f.length; i += 3) {
      const a = b.pts[b.f[i]], c = b.pts[b.f[i + 1]], e = b.pts[b.f[i + 2]];
      const u = [c[0] - a[0], c[1] - a[1], c[2] - a[2]];
      const v = [e[0] - a[0], e[1] - a[1], e[2] - a[2]];
      let n = [u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]];
      const nl = Math.hypot(...n) || 1; n = n.map(x => x / nl);
      const toEye = [eye[0] - a[0], eye[1] - a[1], eye[2] - a[2]];
      if (!b.flat && n[0] * toEye[0] + n[1] * toEye[1] + n[2] * toEye[2] < 0) continue;
      const P = [proj[b.f[i]], proj[b.f[i + 1]], proj[b.f[i + 2]]];
      if (P.some(p => p[2] <= 1)) continue;
      const shade = 0.55 + 0.45 * Math.abs(n[0] * light[0] + n[1] * light[1] + n[2] * light[2]);
      // the board's flat layers first, lowest first; then everything else far to near
      const depth = b.flat ? 1e9 - 1000 * (a[2] + c[2] + e[2])
                           : (P[0][2] + P[1][2] + P[2][2]) / 3;
      tris.push({P, depth, rgb: b.rgb.map(x => Math.round(x * shade))});
    }
    if (b.outline && proj.every(p => p[2] > 1)) {  // a space's painted border
      const z = b.pts.reduce((sum, p) => sum + p[2], 0) / b.pts.length;
      tris.push({P: proj, depth: 1e9 - 1000 * z * 3 - 0.5, line: b.outline});
    }
  }
  tris.sort((s, t) => t.depth - s.depth);
  for (const t of tris) {
    ctx.beginPath(); ctx.moveTo(t.P[0][0], t.P[0][1]);
    for (const p of t.P.slice(1)) ctx.lineTo(p[0], p[1]);
    ctx.closePath();
    if (t.line) { ctx.strokeStyle = `rgb(${t.line})`; ctx.lineWidth = 1; ctx.stroke(); continue; }
    ctx.fillStyle = `rgb(${t.rgb})`; ctx.fill();
    ctx.strokeStyle = ctx.fillStyle; ctx.lineWidth = 0.5; ctx.stroke();  // no seams
  }
  if (document.getElementById('names').checked) {
    const project = p => {
      const d = [p[0] - eye[0], p[1] - eye[1], p[2] - eye[2]];
      const z = d[0] * F[0] + d[1] * F[1] + d[2] * F[2];
      return [w / 2 + focal * (d[0] * R[0] + d[1] * R[1] + d[2] * R[2]) / z,
              h / 2 - focal * (d[0] * U[0] + d[1] * U[1] + d[2] * U[2]) / z, z];
    };
    nameTags(k, project, focal);
  }
  label.textContent = (k * D.dt_s).toFixed(2) + ' s';
  document.getElementById('info').innerHTML = k === N - 1
    ? '<b>Knocked out: ' + (D.knocked.join(', ') || 'nobody') + '</b><br>' +
      Object.entries(D.verdicts).map(([p, r]) => p + ': ' + r).join('<br>')
    : 'The bale struck: ' + (D.contacts.join(' &rarr; ') || 'nothing');
}
function nameTags(k, project, focal) {
  // Each piggy's name over it; at the last frame the knocked-out ones in red with a
  // ring. A tag that would overlap one already drawn moves up until it is clear.
  const end = k === N - 1, placed = [];
  ctx.font = 'bold 13px sans-serif'; ctx.textBaseline = 'middle';
  const tags = Object.entries(D.piggies).map(([name, track]) => {
    const [x, y, z] = project(track.p[k]), top = project([track.p[k][0], track.p[k][1],
                                                           track.p[k][2] + 32]);
    return {name, x, y, z, top, out: end && D.knocked.includes(name)};
  }).filter(t => t.z > 1).sort((a, b) => a.top[1] - b.top[1]);
  for (const t of tags) {
    const text = t.out ? t.name + ' OUT' : t.name, tw = ctx.measureText(text).width + 8;
    let box = [t.top[0] - tw / 2, t.top[1] - 18, tw, 18];
    while (placed.some(b => box[0] < b[0] + b[2] && b[0] < box[0] + box[2] &&
                            box[1] < b[1] + b[3] && b[1] < box[1] + box[3])) box[1] -= 19;
    placed.push(box);
    const colour = t.out ? '#d00000' : '#222';
    if (t.out) {
      ctx.strokeStyle = colour; ctx.lineWidth = 3; ctx.beginPath();
      ctx.arc(t.x, t.y, Math.max(10, 18 * focal / t.z), 0, 2 * Math.PI); ctx.stroke();
    }
    ctx.strokeStyle = colour; ctx.lineWidth = 1; ctx.beginPath();
    ctx.moveTo(t.top[0], t.top[1]); ctx.lineTo(box[0] + box[2] / 2, box[1] + box[3]);
    ctx.stroke();
    ctx.fillStyle = 'rgba(255,255,255,0.9)'; ctx.fillRect(...box);
    ctx.strokeRect(...box); ctx.fillStyle = colour;
    ctx.fillText(text, box[0] + 4, box[1] + 9);
  }
}
function tick(now) {
  if (playing && last !== null) {
    clock += (now - last) / 1000 * parseFloat(document.getElementById('speed').value);
    frame = Math.min(N - 1, Math.floor(clock / D.dt_s));
    if (frame === N - 1) playing = false, document.getElementById('play').textContent = 'Play';
    slider.value = frame;
  }
  last = now; draw(frame); requestAnimationFrame(tick);
}
document.getElementById('play').onclick = e => {
  playing = !playing; if (playing && frame === N - 1) { frame = 0; clock = 0; }
  e.target.textContent = playing ? 'Pause' : 'Play';
};
slider.oninput = () => { playing = false; frame = +slider.value; clock = frame * D.dt_s;
  document.getElementById('play').textContent = 'Play'; };
let drag = null;
canvas.onmousedown = e => { drag = [e.clientX, e.clientY]; };
onmouseup = () => { drag = null; };
onmousemove = e => { if (!drag) return;
  cam.az -= (e.clientX - drag[0]) * 0.008;
  cam.el = Math.max(0.05, Math.min(1.55, cam.el + (e.clientY - drag[1]) * 0.006));
  drag = [e.clientX, e.clientY]; };
document.getElementById('home').onclick = () => { cam = home(); };
canvas.onwheel = e => { e.preventDefault(); cam.dist *= Math.exp(e.deltaY * 0.001); };
requestAnimationFrame(tick);
"""
