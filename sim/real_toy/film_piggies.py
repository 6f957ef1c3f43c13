"""The piggies in a film (``piggy film --layout``): what each shot's frames are
drawn on, and the piggies that move drawn anew in each frame.

Every shot starts from the settled layout, as the world fires it. For each shot
three backgrounds are drawn once: the board with every piggy where it stood (the
gap before the shot), the board with only the piggies that stay still during the
shot (its frames: the others are drawn into each frame where the recording has
them), and the board with every piggy where the shot left it (the gap after the
shot). A gap between two shots shows the first shot's end for its first half and
the next shot's start for the second, as a filmed session does: the piggies are
looked at, then set up again. The tractor, when drawn, is in the depth image
(:mod:`sim.real_toy.bodies`) so that it hides a piggy behind it and a piggy in front
of it hides it.

The moving piggies are drawn at the middle of each frame's exposure, without
motion blur or the rolling shutter's shift: a struck piggy moves a few mm during
an exposure, the bale ten times that.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models.design import Design
from sim.physics.results import Recording
from sim.real_toy.bodies import Part, far_depth, paint, piggy_parts, quat_rotation
from sim.real_toy.camera import Camera
from sim.real_toy.scene import TRACTOR_RGB

#: A piggy whose recorded centre moves less than this (mm) during a shot, and turns
#: less than :data:`STILL_TURN` (quaternion components), is drawn as still.
STILL_MM = 0.02
STILL_TURN = 1e-4


@dataclass(frozen=True)
class Look:
    """What one shot's frames are drawn on: ``before`` (every piggy where it stood),
    ``during`` and its depth (the still piggies only), ``after`` (every piggy where
    the shot left it), and the names of the piggies that move."""

    before: np.ndarray
    during: np.ndarray
    during_depth: np.ndarray
    after: np.ndarray
    moving: tuple[str, ...]


class PiggyFilm:
    """Draws a shot's piggies: ``parts_mm`` the piggy's convex parts in its body
    (principal) frame, as the recording's poses are."""

    def __init__(self, camera: Camera, parts_mm: Sequence[np.ndarray], gain: np.ndarray):
        self.camera = camera
        self.parts_mm = [np.asarray(p, float) for p in parts_mm]
        self.gain = gain

    def look(
        self, scene: np.ndarray, tractor: Sequence[Part], shown: np.ndarray, rec: Recording
    ) -> Look:
        """The three backgrounds of a shot recorded in ``rec``: ``scene`` the still
        scene, ``shown`` the same with the tractor drawn (:func:`with_tractor`) and
        ``tractor`` its parts (for their depth only)."""
        depth = far_depth(self.camera)
        paint(np.empty_like(scene), depth, self.camera, tractor, self.gain, edges=False)
        moving = tuple(name for name in sorted(rec.piggies_mm) if _moves(rec, name))
        start = {name: _pose(rec, name, 0) for name in rec.piggies_mm}
        end = {name: _pose(rec, name, rec.frames - 1) for name in rec.piggies_mm}
        still = {name: pose for name, pose in start.items() if name not in moving}
        during, during_depth = self._drawn(shown, depth, still)
        before = self._drawn(during, during_depth, {n: start[n] for n in moving})[0]
        after = self._drawn(during, during_depth, {n: end[n] for n in moving})[0]
        return Look(before, during, during_depth, after, moving)

    def frame(self, look: Look, rec: Recording, time_s: float) -> tuple[np.ndarray, np.ndarray]:
        """A frame's background at ``time_s`` after the release: the shot's still
        one with its moving piggies drawn where they are then, and its depth."""
        if not look.moving:
            return look.during, look.during_depth
        step = int(np.clip(round(time_s / rec.dt_s), 0, rec.frames - 1))
        return self._drawn(
            look.during, look.during_depth, {n: _pose(rec, n, step) for n in look.moving}
        )

    def _drawn(
        self, image: np.ndarray, depth: np.ndarray, poses: dict
    ) -> tuple[np.ndarray, np.ndarray]:
        """``image`` and ``depth`` with the piggies at ``poses`` drawn in (copies)."""
        image, depth = image.copy(), depth.copy()
        parts = [
            part
            for name, (rotation, position) in poses.items()
            for part in piggy_parts(self.parts_mm, rotation, position, name)
        ]
        paint(image, depth, self.camera, parts, self.gain)
        return image, depth


def _pose(rec: Recording, name: str, step: int) -> tuple[np.ndarray, np.ndarray]:
    """A piggy's rotation (3, 3) and position (3,), mm, at a recorded step."""
    return quat_rotation(rec.piggies_quat[name][step]), rec.piggies_mm[name][step]


def _moves(rec: Recording, name: str) -> bool:
    """Whether a piggy moves or turns at all during the recording."""
    positions, turns = rec.piggies_mm[name], rec.piggies_quat[name]
    moved = np.abs(positions - positions[0]).max() > STILL_MM
    turned = np.abs(turns - turns[0]).max() > STILL_TURN
    return bool(moved or turned)


def gap_pictures(
    still: np.ndarray, current: Look | None, following: Look | None, frames: int
) -> list[np.ndarray]:
    """The pictures of the gap after a shot (one a frame): ``still`` throughout
    without piggies; with them, the shot's end, then (half way, when a shot
    follows) the next shot's start."""
    if current is None:
        return [still] * frames
    if following is None:
        return [current.after] * frames
    reset = frames - frames // 2
    return [current.after] * reset + [following.before] * (frames - reset)


def turned_tractor(parts_mm: Sequence[np.ndarray], yaw_deg: float) -> list[Part]:
    """The tractor's parts turned to a shot's yaw, for their depth."""
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
    return [Part(np.asarray(p, float) @ turn.T, TRACTOR_RGB) for p in parts_mm]


def piggy_drawer(camera: Camera, design: Design, gain: np.ndarray) -> PiggyFilm:
    """What draws the design's piggy (:class:`~sim.real_toy.film_piggies.PiggyFilm`)."""
    from sim.physics.geometry import PiggyModel

    return PiggyFilm(camera, PiggyModel.for_design(design).parts_mm, gain)
