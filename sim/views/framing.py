"""Cameras that frame a shot's action by themselves: the bale's path and every
piggy it disturbed (where it stood and where it ended), seen from a preset
direction at the distance where all of it fits the picture.

Positions in mm in the board frame (the tractor's pivot at the origin, z up).
The videos (:mod:`sim.views.render`) and the 3D page (:mod:`sim.views.viewer`) use these.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from sim.physics.bullet import CM_PER_MM
from sim.physics.results import Recording, ShotResult

#: A piggy drawn around its centre: half its length and its height, mm (with a margin).
_PIGGY_HALF_MM, _PIGGY_HEIGHT_MM = 26.0, 44.0
#: A piggy counts as disturbed when it moved or turned this much, mm.
_MOVED_MM = 1.0
#: The part of the tractor the overview and side cameras keep in the picture: the
#: turntable's middle up to the barrel's pivot, mm.
_TRACTOR_HEIGHT_MM = 45.0
#: The action fills at most this share of the half-width and half-height of the picture.
_FILL = 0.82
#: The cameras stay at least this far from what they look at (a shot that disturbs
#: nothing still shows its surroundings), the chase camera further, mm.
_NEAREST_MM, _CHASE_NEAREST_MM = 150.0, 260.0


@dataclass(frozen=True)
class View:
    """A camera: where it is, what it looks at, which way is up; mm and degrees."""

    eye_mm: tuple[float, float, float]
    target_mm: tuple[float, float, float]
    up: tuple[float, float, float]
    fov_deg: float  # vertical field of view

    def matrices(self, size: tuple[int, int]) -> tuple[list, list]:
        """PyBullet's view and projection matrices (column-major lists, cm)."""
        from sim.physics.bullet import pb

        view = pb.computeViewMatrix(
            [c * CM_PER_MM for c in self.eye_mm],
            [c * CM_PER_MM for c in self.target_mm],
            list(self.up),
        )
        w, h = size
        return view, pb.computeProjectionMatrixFOV(self.fov_deg, w / h, 1.0, 1000.0)


def recording_of(result: ShotResult) -> Recording:
    """The shot's recording; a shot fired without one cannot be framed or rendered."""
    if result.recording is None:
        raise ValueError("the shot was fired without a recording (record_every=0)")
    return result.recording


def ahead_of(result: ShotResult) -> np.ndarray:
    """The horizontal unit vector of the shot's aim."""
    yaw = math.radians(result.yaw_deg)
    return np.array([-math.sin(yaw), math.cos(yaw), 0.0])


def disturbed(result: ShotResult) -> list[str]:
    """The piggies that moved during the shot (all the knocked-out ones among them)."""
    rec = recording_of(result)
    moved = [
        name
        for name, track in rec.piggies_mm.items()
        if np.linalg.norm(track - track[0], axis=1).max() > _MOVED_MM
    ]
    return sorted(set(moved) | set(result.knocked))


def action_points(result: ShotResult, *, tractor: bool = False) -> np.ndarray:
    """Points (n, 3), mm, that a picture of the shot must show: the bale's path, the
    disturbed piggies all along their tracks (as boxes round their centres), and
    with ``tractor`` the tractor's middle (so the picture shows who fired)."""
    rec = recording_of(result)
    points = [result.trajectory_mm, np.asarray(result.rest_mm, float)[None, :]]
    box = np.array([[dx, dy, dz] for dx in (-1, 1) for dy in (-1, 1) for dz in (-0.5, 0.5)]) * [
        _PIGGY_HALF_MM,
        _PIGGY_HALF_MM,
        _PIGGY_HEIGHT_MM,
    ]
    for name in disturbed(result):
        track = rec.piggies_mm[name]
        ends = track[[0, -1]]
        points += [track, *(end + box for end in ends)]
    if tractor:
        points.append(np.array([[0.0, 0.0, 0.0], [0.0, 0.0, _TRACTOR_HEIGHT_MM]]))
    return np.vstack([p for p in points if p is not None and len(p)])


def _basis(forward, up) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    f = np.asarray(forward, float) / np.linalg.norm(forward)
    r = np.cross(f, up)
    r /= np.linalg.norm(r)
    return f, r, np.cross(r, f)


def fit(
    points: np.ndarray,
    forward,
    up,
    fov_deg: float,
    aspect: float,
    target=None,
    nearest_mm: float = 0.0,
) -> tuple[np.ndarray, float]:
    """(target, distance) of a camera looking along ``forward`` that sees every point
    inside :data:`_FILL` of its picture. ``target`` given: looks at it and only the
    distance is fitted; otherwise the target is moved to centre the points."""
    f, r, u = _basis(forward, up)
    tan_v = math.tan(math.radians(fov_deg) / 2) * _FILL
    tan_h = tan_v * aspect
    centre = np.asarray(target if target is not None else points.mean(axis=0), float)
    for _ in range(1 if target is not None else 4):
        q = points - centre
        x, y, z = q @ r, q @ u, q @ f
        distance = max(
            nearest_mm, float(np.max(np.maximum(np.abs(x) / tan_h, np.abs(y) / tan_v) - z))
        )
        if target is not None:
            break
        # centre the picture: the middle of the points' extremes as the camera sees them
        depth = distance + z
        sx, sy = x / depth, y / depth
        shift_x = (sx.max() + sx.min()) / 2 * distance
        shift_y = (sy.max() + sy.min()) / 2 * distance
        centre = centre + shift_x * r + shift_y * u
    return centre, distance


def direction(azimuth_from_behind_deg: float, elevation_deg: float, ahead) -> np.ndarray:
    """A view direction: ``elevation`` down from level, turned ``azimuth`` from the aim."""
    a = math.radians(azimuth_from_behind_deg)
    h = np.array(
        [
            ahead[0] * math.cos(a) - ahead[1] * math.sin(a),
            ahead[0] * math.sin(a) + ahead[1] * math.cos(a),
            0.0,
        ]
    )
    e = math.radians(elevation_deg)
    return np.append(h[:2] * math.cos(e), -math.sin(e))


#: Each preset: the view direction (degrees turned from the aim, degrees down from
#: level) and the vertical field of view. The overview and chase are turned off the
#: aim so the barrel never covers the middle of the picture.
PRESETS = {
    "overview": (25.0, 45.0, 40.0),
    "chase": (22.0, 32.0, 50.0),
    "top": (0.0, 90.0, 40.0),
    "side": (90.0, 22.0, 35.0),
}


def view(preset: str, result: ShotResult, frame: int, aspect: float) -> View:
    """The camera of a preset at one recorded frame of a shot."""
    ahead = ahead_of(result)
    turn, down, fov = PRESETS[preset]
    if preset == "top":
        forward, up = np.array([0.0, 0.0, -1.0]), ahead
    else:
        forward, up = direction(turn, down, ahead), np.array([0.0, 0.0, 1.0])
    if preset == "chase":
        target = chase_track(result)[frame]
        everything = action_points(result)
        _, distance = fit(
            everything,
            forward,
            up,
            fov,
            aspect,
            target=target_end(result),
            nearest_mm=_CHASE_NEAREST_MM,
        )
    else:
        points = action_points(result, tractor=preset != "top")
        target, distance = fit(points, forward, up, fov, aspect, nearest_mm=_NEAREST_MM)
    eye = target - distance * forward
    return View(tuple(eye), tuple(target), tuple(up), fov)


def chase_track(result: ShotResult) -> np.ndarray:
    """Where the chase camera looks at each frame, (frames, 3) mm: the bale while it
    is in play, then the last place it was in play, smoothed over a few frames."""
    rec = recording_of(result)
    track = rec.bale_mm.copy()
    first = int(np.argmax(rec.bale_in_play)) if rec.bale_in_play.any() else 0
    last_seen = track[first]
    for k in range(len(track)):
        if rec.bale_in_play[k]:
            last_seen = track[k]
        track[k] = last_seen
    width = 3  # frames either side
    padded = np.vstack(
        [np.repeat(track[:1], width, axis=0), track, np.repeat(track[-1:], width, axis=0)]
    )
    kernel = np.ones(2 * width + 1) / (2 * width + 1)
    return np.column_stack([np.convolve(padded[:, i], kernel, mode="valid") for i in range(3)])


def target_end(result: ShotResult) -> np.ndarray:
    """Where the chase camera looks once everything has stopped."""
    return chase_track(result)[-1]
