"""Videos of a shot: frames drawn by PyBullet's CPU renderer (no GPU or display
needed) from the poses a shot recorded, with the bale's trail and the knocked-out
piggies marked, written as GIF or MP4 (:mod:`sim.views.video_files`).

The renderer is a world of its own with visual shapes only (the board top is
textured with the same board drawing as every picture, :mod:`sim.views.pictures`);
it replays poses and never simulates.
"""

from __future__ import annotations

import math
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from models.board import Board
from models.body_shapes import own_mesh, surface_obj_text
from models.design import Design
from models.errors import InputError
from models.meshes import ASSETS_DIR, barrel, obj_text
from sim.colours import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA
from sim.defaults import CAMERAS
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.geometry import fence_boxes
from sim.physics.results import Recording, ShotResult
from sim.views import framing, labels
from sim.views.framing import recording_of
from sim.views.textures import add_board_top, board_texture_png
from sim.views.video_files import DEFAULT_FPS

TABLE_RGBA = (0.82, 0.82, 0.8, 1)
_TABLE_HALF_MM = 1500.0
#: Frame size of the videos, pixels.
DEFAULT_SIZE = (640, 480)
#: The cached OBJ of a stock body the renderer loads as it is (the stock bale is
#: sized by the design, so written anew).
_STOCK_OBJ = {"tractor": "tractor.obj", "piggy": "piggy_principal.obj"}


class ShotRenderer:
    """Draws frames of recorded shots on one board and design."""

    def __init__(self, board: Board, design: Design, size: tuple[int, int] = DEFAULT_SIZE):
        self.board, self.design, self.size = board, design, size
        self.client = pb.connect(pb.DIRECT)
        self._tmp = tempfile.TemporaryDirectory(prefix="piggy-render-")
        self._piggies: dict[str, int] = {}
        #: the camera and still poses of the last frame, and those the kept picture of
        #: the still bodies was drawn for, with the picture (:meth:`_draw`)
        self._last_key: tuple | None = None
        self._still_key: tuple | None = None
        self._still: tuple[np.ndarray, np.ndarray] | None = None
        self._build()

    def _call(self, fn, *args, **kwargs):
        return fn(*args, physicsClientId=self.client, **kwargs)

    def _body(self, visual: int, position_mm=(0, 0, 0), yaw_rad: float = 0.0) -> int:
        return self._call(
            pb.createMultiBody,
            0,
            -1,
            visual,
            basePosition=[c * CM_PER_MM for c in position_mm],
            baseOrientation=pb.getQuaternionFromEuler([0, 0, yaw_rad]),
        )

    def _mesh_file(self, name: str, text: str) -> str:
        path = Path(self._tmp.name) / name
        path.write_text(text)
        return str(path)

    def _build(self) -> None:
        board = self.board
        x0, x1, y0, y1 = board.surface_extent_mm
        t = board.thickness_mm
        side = self._call(
            pb.createVisualShape,
            pb.GEOM_BOX,
            halfExtents=[(x1 - x0) / 2 * CM_PER_MM, (y1 - y0) / 2 * CM_PER_MM, t / 2 * CM_PER_MM],
            rgbaColor=(0.6, 0.5, 0.35, 1),
        )
        self._body(side, ((x0 + x1) / 2, (y0 + y1) / 2, -t / 2 - 0.2))
        # the table the board stands on: a bale that flies off the board lands on it
        table = self._call(
            pb.createVisualShape,
            pb.GEOM_BOX,
            halfExtents=[_TABLE_HALF_MM * CM_PER_MM] * 2 + [CM_PER_MM],
            rgbaColor=TABLE_RGBA,
        )
        self._body(table, (0, 0, -t - 10.5))
        # The top: the board drawing mapped onto a quad (sim.views.textures), as in the sandbox.
        add_board_top(self.client, board, board_texture_png(board, self._tmp.name))
        for fence in fence_boxes(board):
            half = [h * CM_PER_MM for h in fence.half_extents_mm]
            shape = self._call(
                pb.createVisualShape, pb.GEOM_BOX, halfExtents=half, rgbaColor=FENCE_RGBA
            )
            self._body(shape, fence.centre_mm, fence.yaw_rad)
        self._tractor = self._body(self._visual("tractor", TRACTOR_RGBA))
        launcher = self.design.launcher
        tube = self._mesh_file(
            "barrel.obj", obj_text({"barrel": barrel(launcher.barrel_length_mm)})
        )
        self._barrel = self._body(
            self._call(
                pb.createVisualShape,
                pb.GEOM_MESH,
                fileName=tube,
                meshScale=[CM_PER_MM] * 3,
                rgbaColor=TRACTOR_RGBA,
            ),
            (0, 0, launcher.pivot_height_mm),
        )
        self._bale = self._body(self._visual("bale", BALE_RGBA))
        self._piggy_shapes = {
            colour: self._visual("piggy", rgba) for colour, rgba in PIGGY_RGBA.items()
        }

    def _visual(self, part: str, rgba) -> int:
        """The visual shape of the design's ``tractor``, ``bale`` or ``piggy`` (in its
        physics body's frame: a piggy's principal one), its own mesh when it gives one
        (models/body_shapes.py)."""
        if own_mesh(self.design, part) is None and part in _STOCK_OBJ:
            path = str(ASSETS_DIR / _STOCK_OBJ[part])
        else:
            text = surface_obj_text(self.design, part, principal=part == "piggy")
            path = self._mesh_file(f"{part}.obj", text)
        return self._call(
            pb.createVisualShape,
            pb.GEOM_MESH,
            fileName=path,
            meshScale=[CM_PER_MM] * 3,
            rgbaColor=rgba,
        )

    # --- one frame -------------------------------------------------------------------
    def _pose(self, recording: Recording, frame: int, yaw_deg: float, pitch_deg: float) -> None:
        self._call(
            pb.resetBasePositionAndOrientation,
            self._tractor,
            [0, 0, 0],
            pb.getQuaternionFromEuler([0, 0, math.radians(yaw_deg)]),
        )
        self._call(
            pb.resetBasePositionAndOrientation,
            self._barrel,
            [0, 0, self.design.launcher.pivot_height_mm * CM_PER_MM],
            pb.getQuaternionFromEuler([math.radians(pitch_deg), 0, math.radians(yaw_deg)]),
        )
        self._call(
            pb.resetBasePositionAndOrientation,
            self._bale,
            (recording.bale_mm[frame] * CM_PER_MM).tolist(),
            recording.bale_quat[frame].tolist(),
        )
        for name, positions in recording.piggies_mm.items():
            if name not in self._piggies:
                shape = self._piggy_shapes[name.split("-")[0]]
                self._piggies[name] = self._call(pb.createMultiBody, 0, -1, shape)
            self._call(
                pb.resetBasePositionAndOrientation,
                self._piggies[name],
                (positions[frame] * CM_PER_MM).tolist(),
                recording.piggies_quat[name][frame].tolist(),
            )
        for name, body in self._piggies.items():  # piggies of another shot: out of sight
            if name not in recording.piggies_mm:
                self._call(pb.resetBasePositionAndOrientation, body, _OUT_OF_SIGHT_CM, _LEVEL)

    def camera(self, preset: str, result: ShotResult, frame: int) -> tuple[list, list]:
        """View and projection matrices (PyBullet's column-major lists) of a preset,
        framed on the shot's action (:mod:`sim.views.framing`)."""
        if preset not in CAMERAS:
            raise InputError(f"unknown camera '{preset}': allowed are {', '.join(CAMERAS)}")
        w, h = self.size
        return framing.view(preset, result, frame, w / h).matrices(self.size)

    def frame(self, result: ShotResult, index: int, preset: str = "overview") -> np.ndarray:
        """One frame as an (h, w, 3) uint8 array, trail and marks drawn on."""
        rec = recording_of(result)
        self._pose(rec, index, result.yaw_deg, result.pitch_deg)
        view, projection = self.camera(preset, result, index)
        w, h = self.size
        image = Image.fromarray(self._draw(view, projection))
        draw = ImageDraw.Draw(image)
        trail = rec.bale_mm[: index + 1][rec.bale_in_play[: index + 1]]
        if len(trail) > 1:
            points = _project(trail, view, projection, self.size)
            draw.line([tuple(p) for p in points], fill=(150, 40, 0), width=3)
        last = index == rec.frames - 1
        caption = f"{preset} camera   t = {index * rec.dt_s:.2f} s"
        if last:
            _mark_the_end(draw, result, _project_fn(view, projection, self.size), self.size)
            caption += "   knocked out: " + (", ".join(result.knocked) or "nobody")
        draw.rectangle([0, h - _CAPTION_PX, w, h], fill=(255, 255, 255))
        draw.text((6, h - _CAPTION_PX + 3), caption, fill=(0, 0, 0), font=_font(14))
        return np.asarray(image)

    def frames(
        self,
        result: ShotResult,
        preset: str = "overview",
        hold_s: float = 1.0,
        fps: int = DEFAULT_FPS,
        slowmo: float = 1.0,
    ) -> list[np.ndarray]:
        """Every frame of a recorded shot at ``fps``, ``slowmo`` times slower than real
        time, the last one held ``hold_s`` seconds (all in memory: for short videos;
        :meth:`stream` draws them one at a time)."""
        return list(self.stream(result, preset, hold_s, fps, slowmo))

    def stream(
        self,
        result: ShotResult,
        preset: str = "overview",
        hold_s: float = 1.0,
        fps: int = DEFAULT_FPS,
        slowmo: float = 1.0,
    ) -> Iterator[np.ndarray]:
        """The frames of :meth:`frames`, drawn one at a time as they are asked for."""
        indices = self.frame_indices(result, fps, slowmo)
        for i in indices:
            image = self.frame(result, i, preset)
            yield image
        for _ in range(int(hold_s * fps)):
            yield image

    def _draw(self, view: list, projection: list) -> np.ndarray:
        """The scene's pixels (h, w, 3) through a camera. Drawing the board, the table,
        the fences and the tractor is nearly all of a frame's cost (0.19 s of 0.2 at
        640x480), and they stand still while a fixed camera films a shot: from a
        camera's second frame on they are drawn once and kept with their depths, and
        each frame draws the bale and the piggies alone, laid over the kept picture where
        they are nearer. The same pixels as drawing everything at once (tested): the
        renderer casts no shadow here, so no body's pixels depend on another's."""
        moving = {self._bale, *self._piggies.values()}
        bodies = [self._call(pb.getBodyUniqueId, i) for i in range(self._call(pb.getNumBodies))]
        still = [b for b in bodies if b not in moving]
        poses = tuple(self._call(pb.getBasePositionAndOrientation, b) for b in still)
        key = (tuple(view), tuple(projection), poses)
        last, self._last_key = self._last_key, key
        if key != self._still_key and key != last:  # a moving camera: everything at once
            return self._image(view, projection)[0]
        if key != self._still_key:
            with self._hidden(moving):
                rgb, depth, _ = self._image(view, projection)
            self._still, self._still_key = (rgb, depth), key
        assert self._still is not None  # kept with its key just now, or before
        with self._hidden(still):
            rgb, depth, body = self._image(view, projection)
        kept_rgb, kept_depth = self._still
        nearer = (body >= 0) & (depth < kept_depth)
        return np.where(nearer[..., None], rgb, kept_rgb)

    def _image(self, view: list, projection: list) -> tuple[np.ndarray, ...]:
        """The renderer's colours (h, w, 3), depths (h, w) and body ids (h, w; -1 where
        none) of the bodies in sight."""
        w, h = self.size
        _, _, rgb, depth, body = self._call(
            pb.getCameraImage,
            w,
            h,
            view,
            projection,
            renderer=pb.ER_TINY_RENDERER,
            lightDirection=[0.4, -0.6, 1.0],
            shadow=0,
        )
        colours = np.reshape(np.asarray(rgb, dtype=np.uint8), (h, w, 4))[:, :, :3]
        return colours, np.reshape(depth, (h, w)), np.reshape(body, (h, w))

    @contextmanager
    def _hidden(self, bodies) -> Iterator[None]:
        """These bodies out of sight (beyond every camera's far plane), then back."""
        poses = {b: self._call(pb.getBasePositionAndOrientation, b) for b in bodies}
        for body in bodies:
            self._call(pb.resetBasePositionAndOrientation, body, _OUT_OF_SIGHT_CM, _LEVEL)
        try:
            yield
        finally:
            for body, (position, orientation) in poses.items():
                self._call(pb.resetBasePositionAndOrientation, body, position, orientation)

    @staticmethod
    def frame_indices(result: ShotResult, fps: int = DEFAULT_FPS, slowmo: float = 1.0) -> list[int]:
        """The recorded steps a video at ``fps``, ``slowmo`` times slower, shows."""
        rec = result.recording
        if rec is None:
            raise ValueError("the shot was fired without recording")
        picks = np.arange(0.0, rec.frames * rec.dt_s * slowmo, 1.0 / fps) / (rec.dt_s * slowmo)
        indices = sorted(set(np.minimum(picks.astype(int), rec.frames - 1)))
        if indices[-1] != rec.frames - 1:
            indices.append(rec.frames - 1)
        return [int(i) for i in indices]

    def close(self) -> None:
        if self.client is not None and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = None
        self._tmp.cleanup()

    def __enter__(self) -> ShotRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


#: Where a body not drawn stands, cm: 1 km down, far beyond every camera's far plane
#: (10 m, :meth:`sim.views.framing.View.matrices`).
_OUT_OF_SIGHT_CM = (0.0, 0.0, -1e5)
_LEVEL = (0.0, 0.0, 0.0, 1.0)
#: Height of the caption strip under each frame, pixels.
_CAPTION_PX = 22


def _font(pixels: int):
    """A scalable font (matplotlib's DejaVu Sans, always installed with it)."""
    from matplotlib import font_manager
    from PIL import ImageFont

    return ImageFont.truetype(font_manager.findfont("DejaVu Sans"), pixels)


def _project_fn(view, projection, size):
    return lambda points_mm: _project(np.atleast_2d(points_mm), view, projection, size)


def _mark_the_end(draw: ImageDraw.ImageDraw, result: ShotResult, project, size) -> None:
    """On the last frame: a red ring round each knocked-out piggy and a ring where the
    bale came to rest, each named by a label placed clear of the others and of the
    rings (a leader line when it had to go further off)."""
    rec = recording_of(result)
    w, h = size
    font = _font(15)
    rings, wanted = [], []
    for piggy in result.knocked:
        centre = project(rec.piggies_mm[piggy][-1])[0]
        rings.append((centre, 16, (220, 0, 0), f"{piggy} OUT"))
    bale = project(np.asarray(result.rest_mm, float))[0]
    rings.append((bale, 9, (150, 40, 0), "bale"))
    keep_clear = [(x - r, y - r, x + r, y + r) for (x, y), r, _, _ in rings]
    for track in rec.piggies_mm.values():  # the other piggies' middles stay in view too
        x, y = project(track[-1])[0]
        keep_clear.append((x - 10, y - 10, x + 10, y + 10))
    for (x, y), _, _, text in rings:
        x0, y0, x1, y1 = draw.textbbox((0, 0), text, font=font, anchor="lt")
        wanted.append((text, (x, y), (x1 - x0 + 6, y1 - y0 + 6)))
    placed = labels.place(wanted, (0, 0, w, h - _CAPTION_PX), gap=10, keep_clear=keep_clear)
    for ((x, y), r, colour, _), label in zip(rings, placed, strict=True):
        draw.ellipse([x - r, y - r, x + r, y + r], outline=colour, width=3)
        bx0, by0, bx1, by1 = label.box
        if label.needs_leader(10):
            draw.line([(x, y), label.leader_end()], fill=colour, width=2)
        draw.rectangle([bx0, by0, bx1, by1], fill=(255, 255, 255), outline=colour)
        draw.text((bx0 + 3, by0 + 3), label.text, fill=colour, font=font, anchor="lt")


def _project(points_mm: np.ndarray, view, projection, size) -> np.ndarray:
    """Board points (n, 3), mm, to pixel coordinates (n, 2) of a camera."""
    v = np.asarray(view).reshape(4, 4).T
    p = np.asarray(projection).reshape(4, 4).T
    homogeneous = np.column_stack([points_mm * CM_PER_MM, np.ones(len(points_mm))])
    clip = homogeneous @ (p @ v).T
    ndc = clip[:, :3] / clip[:, 3:4]
    w, h = size
    return np.column_stack([(ndc[:, 0] + 1) / 2 * w, (1 - ndc[:, 1]) / 2 * h])
