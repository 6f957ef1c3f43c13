"""A piggy's pose fitted to the pixels of its colour in a still frame (for
sim/real_toy/piggies_seen.py, which reads the piggies of ``piggy measure --layout``):
its silhouette drawn from its mesh (its convex parts, projected with the camera's
pose) at a pose, scored by its overlap with its colour over the union (the piggies
of the same colour drawn where they are, pixels of other piggies and grey ones left
out: they may hide it), and the best pose found by a pattern search from where it
is looked for; where the layout stands each piggy to start with."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from models.layout import Layout
from sim.real_toy.detect import CameraPose
from sim.real_toy.still_frames import COLOURS


@dataclass(frozen=True)
class PiggyPose:
    """A piggy standing upright: its own frame's origin (on the ground under its
    footprint's centre, mm, board frame), its heading (0: snout to +y) and the
    height it stands at (0 on the board; the top of a stack on its bottom one)."""

    x_mm: float
    y_mm: float
    heading_deg: float
    z_mm: float = 0.0

    def moved(self, x: float, y: float, heading: float, z: float) -> PiggyPose:
        return PiggyPose(self.x_mm + x, self.y_mm + y, self.heading_deg + heading, self.z_mm + z)


class PiggyShape:
    """The piggy's convex parts in its own frame (origin on the ground under its
    footprint's centre, +y to the snout), drawn as a silhouette at a pose."""

    def __init__(self, parts_principal: Sequence[np.ndarray], axes: np.ndarray, com: np.ndarray):
        self.parts = [np.asarray(p, float) @ axes.T + com for p in parts_principal]
        self.sizes = np.cumsum([0] + [len(p) for p in self.parts])
        self.points = np.vstack(self.parts)

    def world(self, pose: PiggyPose) -> np.ndarray:
        c, s = math.cos(math.radians(pose.heading_deg)), math.sin(math.radians(pose.heading_deg))
        turn = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        return self.points @ turn.T + [pose.x_mm, pose.y_mm, pose.z_mm]

    def footprint(self, pose: PiggyPose) -> list[np.ndarray]:
        """Its parts at a pose, board frame, mm (for the knocked-out test)."""
        placed = self.world(pose)
        return [placed[a:b] for a, b in zip(self.sizes[:-1], self.sizes[1:], strict=True)]

    def draw(self, mask: np.ndarray, camera: CameraPose, pose: PiggyPose, corner) -> None:
        """Fill its silhouette into ``mask`` (a tile whose top-left pixel is ``corner``)."""
        import cv2

        pixels = (camera.project(self.world(pose)) - corner) * 16
        for a, b in zip(self.sizes[:-1], self.sizes[1:], strict=True):
            hull = cv2.convexHull(np.round(pixels[a:b]).astype(np.int32))
            cv2.fillConvexPoly(mask, hull, 1, cv2.LINE_8, 4)


class Reader:
    """Fits the piggies of a layout to the colour labels of still frames."""

    def __init__(self, layout: Layout, shape: PiggyShape, camera: CameraPose, size):
        self.layout, self.shape, self.camera = layout, shape, camera
        self.width, self.height = size
        self.colour = {p: COLOURS.index(p.split("-")[0]) for p in layout.piggies}

    def box(self, poses: Sequence[PiggyPose], margin: int = 6):
        pixels = np.vstack([self.camera.project(self.shape.world(p)) for p in poses])
        x0, y0 = np.floor(pixels.min(axis=0)).astype(int) - margin
        x1, y1 = np.ceil(pixels.max(axis=0)).astype(int) + margin
        x0, y0 = min(max(x0, 0), self.width - 1), min(max(y0, 0), self.height - 1)
        return slice(y0, max(min(y1, self.height), y0 + 1)), slice(
            x0, max(min(x1, self.width), x0 + 1)
        )

    def silhouette(self, pose: PiggyPose, box) -> np.ndarray:
        rows, cols = box
        mask = np.zeros((rows.stop - rows.start, cols.stop - cols.start), np.uint8)
        self.shape.draw(mask, self.camera, pose, np.array([cols.start, rows.start], float))
        return mask.astype(bool)

    def score(self, piggy, pose, labels, poses, box) -> tuple[float, float]:
        """How well ``piggy`` at ``pose`` (and its colour's others at ``poses``)
        explains its colour in ``box``: IoU over the pixels that can be told, and the
        share of its silhouette that can be seen."""
        tile = labels[box]
        colour = self.colour[piggy]
        own = self.silhouette(pose, box)
        expected = own.copy()
        for other, at in poses.items():
            if other != piggy and self.colour[other] == colour:
                expected |= self.silhouette(at, box)
        seen = tile == colour
        hidden = (tile >= 0) & ~seen  # another piggy, or grey
        known = ~hidden
        union = int(np.count_nonzero((expected | seen) & known))
        overlap = int(np.count_nonzero(expected & seen))
        visible = int(np.count_nonzero(own & known)) / max(int(np.count_nonzero(own)), 1)
        return (overlap / union if union else 0.0), visible

    def fit(self, piggy, starts, labels, poses, free_z=False) -> tuple[PiggyPose, float, float]:
        """The best pose from ``starts``: a pattern search (x, y, heading, and the
        height with ``free_z``) from each, refined step by step."""
        search = 30.0  # mm about the starts, as far as the box reaches
        box = self.box(
            [
                s.moved(dx, dy, 0, 0)
                for s in starts
                for dx in (-search, search)
                for dy in (-search, search)
            ]
        )
        best = max(
            ((self.score(piggy, s, labels, poses, box)[0], s) for s in starts), key=lambda t: t[0]
        )
        value, pose = best
        step, turn = 4.0, 16.0
        while step >= 0.25:
            moves = [(step, 0.0, 0.0), (-step, 0.0, 0.0), (0.0, step, 0.0), (0.0, -step, 0.0)]
            moves += [(0.0, 0.0, turn), (0.0, 0.0, -turn)]
            lifts = [step, -step] if free_z else []
            trials = [(*m, 0.0) for m in moves] + [(0.0, 0.0, 0.0, z) for z in lifts]
            improved = False
            for move in trials:
                trial = pose.moved(*move)
                trial_value = self.score(piggy, trial, labels, poses, box)[0]
                if trial_value > value + 1e-9:
                    value, pose, improved = trial_value, trial, True
            if not improved:
                step, turn = step / 2, turn / 2
        return pose, value, self.score(piggy, pose, labels, poses, box)[1]


def start_poses(layout: Layout, shape: PiggyShape) -> dict[str, PiggyPose]:
    """Where the layout stands each piggy: on its space's centre, facing the trough
    (+y), a top piggy on its bottom one's back (its body's top, less the legs'
    straddle: fitted from here)."""
    body_top = float(shape.parts[0][:, 2].max())
    poses = {}
    for space, stack in layout.stacks.items():
        x, y = layout.board.space_center_mm(space)
        for level, piggy in enumerate(stack):
            poses[piggy] = PiggyPose(float(x), float(y), 0.0, 0.875 * body_top * level)
    return poses
