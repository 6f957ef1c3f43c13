"""What a filming setup shows, read from the camera and the shots it filmed: which
markers are in the picture and how large, how many millimetres a pixel covers on
the board, how many first touches are in the picture, how many frames of each
flight it holds and how far the bale moves between two frames as it lands. The
answer to "can this camera pose measure my shots?" (``piggy film`` prints it).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from models.design import Design
from models.grid import Board
from sim.real_toy.camera import Camera
from sim.real_toy.film import FilmSettings, Take
from sim.real_toy.markers import MODULES, marker_layout

#: A marker whose module is narrower than this (pixels) is hard to decode.
MIN_MODULE_PX = 3.0
#: The markers a pose needs in the picture (four give it with a check to spare).
MIN_MARKERS = 4


def plan(
    camera: Camera, board: Board, design: Design, takes: Sequence[Take], settings: FilmSettings
) -> dict:
    """The setup's figures as a JSON-ready dict (see the module's docstring)."""
    layout = marker_layout(board)
    markers = []
    for marker in layout.markers:
        pixels = camera.project(marker.corners_mm())
        inside = bool(np.isfinite(pixels).all() and _in_picture(camera, pixels).all())
        side = float(np.mean(np.linalg.norm(pixels - np.roll(pixels, 1, axis=0), axis=1)))
        markers.append(
            {"id": marker.id, "in_picture": inside, "side_px": round(side, 1) if inside else None}
        )
    look = np.asarray(camera.look_at_mm, float)
    half_mm = np.array([0.5, 0.0, 0.0])
    ends = camera.project(np.array([look - half_mm, look + half_mm]))
    mm_per_px = 1.0 / float(np.linalg.norm(ends[1] - ends[0]))
    sight = look - np.asarray(camera.position_mm, float)
    shots = [_shot(camera, design, take, settings) for take in takes]
    touched = [s for s in shots if s["touch_in_picture"]]
    return {
        "camera": {
            "at_mm": list(camera.position_mm),
            "look_at_mm": list(camera.look_at_mm),
            "fov_deg": camera.fov_deg,
            "size": [camera.width, camera.height],
            "focal_px": round(camera.focal_px, 1),
            "distance_mm": round(float(np.linalg.norm(sight)), 1),
            "elevation_deg": round(
                float(np.degrees(np.arcsin(-sight[2] / np.linalg.norm(sight)))), 1
            ),
            "mm_per_px_at_look_at": round(mm_per_px, 3),
        },
        "fps": settings.fps,
        "markers": markers,
        "shots": len(shots),
        "touches_in_picture": len(touched),
        "not_on_board": sum(not s["on_board"] for s in shots),
        "flight_frames_median": _median([s["flight_frames_in_picture"] for s in shots]),
        "landing_step_px_median": _median([s["landing_step_px"] for s in touched]),
        "notes": _notes(markers, shots, touched),
    }


def plan_lines(report: dict) -> list[str]:
    """The report as lines of text."""
    cam = report["camera"]
    seen = [m for m in report["markers"] if m["in_picture"]]
    sizes = ", ".join(f"{m['id']}: {m['side_px']:g}" for m in seen)
    lines = [
        f"Camera {cam['distance_mm']:g} mm from its target, {cam['elevation_deg']:g} deg above "
        f"the board, {cam['fov_deg']:g} deg wide, {cam['size'][0]}x{cam['size'][1]} at "
        f"{report['fps']} fps: {cam['mm_per_px_at_look_at']:g} mm a pixel at the target",
        f"markers in the picture: {len(seen)} of {len(report['markers'])}"
        + (f" (side in px, {sizes})" if seen else ""),
        f"first touches in the picture: {report['touches_in_picture']} of {report['shots']}"
        + (
            f" ({report['not_on_board']} first touched something else)"
            if report["not_on_board"]
            else ""
        ),
        f"frames of flight in the picture, median: {report['flight_frames_median']}; "
        f"the bale moves {report['landing_step_px_median']} px a frame as it lands (median)",
    ]
    return lines + [f"NOTE: {note}" for note in report["notes"]]


def _shot(camera: Camera, design: Design, take: Take, settings: FilmSettings) -> dict:
    """One shot as the camera saw it: its first touch in the picture or not, its
    frames of flight in the picture, and the bale's step between frames as it lands."""
    shot = take.shot
    rec = shot.recording
    assert rec is not None
    on_board = shot.first_contact_with == "board" and shot.first_contact_centre_mm is not None
    if shot.first_contact_centre_mm is not None:
        distance = np.linalg.norm(rec.bale_mm - np.asarray(shot.first_contact_centre_mm), axis=1)
        touch = int(np.argmin(distance))
    else:
        touch = rec.frames - 1
    filmed = take.times_s[-1] + 1.0 / settings.fps  # the shot's end in the video, s
    flight = rec.bale_mm[: touch + 1]
    pixels = camera.project(flight)
    inside = np.isfinite(pixels).all(axis=1) & _in_picture(camera, pixels)
    inside &= np.arange(touch + 1) * rec.dt_s <= filmed
    step = max(1, round(1.0 / (settings.fps * rec.dt_s)))  # recorded steps a frame
    frames_in = int(inside[::step].sum())
    touch_px = camera.project(np.asarray(shot.first_contact_mm or flight[-1], float))
    touch_in = bool(
        on_board
        and touch * rec.dt_s <= filmed
        and np.isfinite(touch_px).all()
        and _in_picture(camera, touch_px[None])[0]
    )
    before = camera.project(rec.bale_mm[max(0, touch - step)])
    at = camera.project(rec.bale_mm[touch])
    landing_step = float(np.linalg.norm(at - before)) if touch_in else None
    return {
        "on_board": on_board,
        "touch_in_picture": touch_in,
        "flight_frames_in_picture": frames_in,
        "landing_step_px": None if landing_step is None else round(landing_step, 1),
    }


def _in_picture(camera: Camera, pixels: np.ndarray) -> np.ndarray:
    u, v = pixels[..., 0], pixels[..., 1]
    return (u >= -0.5) & (u <= camera.width - 0.5) & (v >= -0.5) & (v <= camera.height - 0.5)


def _median(values: list) -> float | None:
    values = [v for v in values if v is not None]
    return round(float(np.median(values)), 1) if values else None


def _notes(markers: list[dict], shots: list[dict], touched: list[dict]) -> list[str]:
    notes = []
    seen = [m for m in markers if m["in_picture"]]
    if len(seen) < MIN_MARKERS:
        notes.append(
            f"only {len(seen)} markers in the picture: a pose needs {MIN_MARKERS}; "
            "step back, widen the view or aim at the board's centre"
        )
    small = [m["id"] for m in seen if m["side_px"] / MODULES < MIN_MODULE_PX]
    if small:
        notes.append(
            f"markers {', '.join(map(str, small))} are under {MIN_MODULE_PX:g} px a module: "
            "come closer or film at a higher resolution"
        )
    missed = len(shots) - len(touched) - sum(not s["on_board"] for s in shots)
    if missed:
        notes.append(
            f"{missed} first touches on the board fall outside the picture (or after "
            "--shot-seconds)"
        )
    return notes
