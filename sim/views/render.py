"""Videos of a shot: frames drawn by PyBullet's CPU renderer (no GPU or display
needed) from the poses a shot recorded, with the bale's trail and the knocked-out
piggies marked, written as GIF or MP4.

The renderer is a world of its own with visual shapes only (the board top is
textured with the same board drawing as every picture, :mod:`sim.views.pictures`);
it replays poses and never simulates.
"""

from __future__ import annotations

import errno
import math
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from models.board import Board
from models.design import Design
from models.errors import InputError
from models.meshes import ASSETS_DIR, barrel, hay_bale, obj_text
from models.text import shown
from sim.colours import BALE_RGBA, FENCE_RGBA, PIGGY_RGBA, TRACTOR_RGBA
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.results import Recording, ShotResult

CAMERAS = ("overview", "chase", "top", "side")
#: Frame size in pixels and frames per second of the videos.
DEFAULT_SIZE = (640, 480)
DEFAULT_FPS = 30


class ShotRenderer:
    """Draws frames of recorded shots on one board and design."""

    def __init__(self, board: Board, design: Design, size: tuple[int, int] = DEFAULT_SIZE):
        self.board, self.design, self.size = board, design, size
        self.client = pb.connect(pb.DIRECT)
        self._tmp = tempfile.TemporaryDirectory(prefix="piggy-render-")
        self._piggies: dict[str, int] = {}
        self._build()

    def _call(self, fn, *args, **kwargs):
        return fn(*args, physicsClientId=self.client, **kwargs)

    def _body(self, visual: int, position_mm=(0, 0, 0), yaw_rad: float = 0.0) -> int:
        return self._call(pb.createMultiBody, 0, -1, visual,
                          basePosition=[c * CM_PER_MM for c in position_mm],
                          baseOrientation=pb.getQuaternionFromEuler([0, 0, yaw_rad]))

    def _mesh_file(self, name: str, text: str) -> str:
        path = Path(self._tmp.name) / name
        path.write_text(text)
        return str(path)

    def _build(self) -> None:
        board = self.board
        x0, x1, y0, y1 = board.surface_extent_mm
        t = board.thickness_mm
        side = self._call(pb.createVisualShape, pb.GEOM_BOX,
                          halfExtents=[(x1 - x0) / 2 * CM_PER_MM, (y1 - y0) / 2 * CM_PER_MM,
                                       t / 2 * CM_PER_MM], rgbaColor=(0.6, 0.5, 0.35, 1))
        self._body(side, ((x0 + x1) / 2, (y0 + y1) / 2, -t / 2 - 0.2))
        # The top: two triangles with the board drawing mapped on exactly.
        corners = [[x0, y0, 0.0], [x1, y0, 0.0], [x1, y1, 0.0], [x0, y1, 0.0]]
        top = self._call(pb.createVisualShape, pb.GEOM_MESH,
                         vertices=[[c * CM_PER_MM for c in v] for v in corners],
                         indices=[0, 1, 2, 0, 2, 3], uvs=[[0, 0], [1, 0], [1, 1], [0, 1]],
                         normals=[[0, 0, 1]] * 4, meshScale=[1, 1, 1])
        board_body = self._body(top)
        texture = self._call(pb.loadTexture, self._board_texture())
        self._call(pb.changeVisualShape, board_body, -1, textureUniqueId=texture,
                   rgbaColor=[1, 1, 1, 1])
        for a, b in board.fence_segments_mm():
            mid, along = (a + b) / 2, b - a
            half = [(np.linalg.norm(along) / 2 + board.fence_thickness_mm / 2) * CM_PER_MM,
                    board.fence_thickness_mm / 2 * CM_PER_MM,
                    board.fence_height_mm / 2 * CM_PER_MM]
            shape = self._call(pb.createVisualShape, pb.GEOM_BOX, halfExtents=half,
                               rgbaColor=FENCE_RGBA)
            self._body(shape, (mid[0], mid[1], board.fence_height_mm / 2),
                       math.atan2(along[1], along[0]))
        self._tractor = self._body(self._call(
            pb.createVisualShape, pb.GEOM_MESH, fileName=str(ASSETS_DIR / "tractor.obj"),
            meshScale=[CM_PER_MM] * 3, rgbaColor=TRACTOR_RGBA))
        launcher = self.design.launcher
        tube = self._mesh_file("barrel.obj", obj_text({"barrel": barrel(
            launcher.barrel_length_mm)}))
        self._barrel = self._body(self._call(pb.createVisualShape, pb.GEOM_MESH, fileName=tube,
                                             meshScale=[CM_PER_MM] * 3, rgbaColor=TRACTOR_RGBA),
                                  (0, 0, launcher.pivot_height_mm))
        bale = self.design.bale
        block = self._mesh_file("bale.obj", obj_text({"bale": hay_bale(
            bale.length_mm, bale.width_mm, bale.height_mm, bale.corner_radius_mm)}))
        self._bale = self._body(self._call(pb.createVisualShape, pb.GEOM_MESH, fileName=block,
                                           meshScale=[CM_PER_MM] * 3, rgbaColor=BALE_RGBA))
        self._piggy_shapes = {
            colour: self._call(pb.createVisualShape, pb.GEOM_MESH,
                               fileName=str(ASSETS_DIR / "piggy_principal.obj"),
                               meshScale=[CM_PER_MM] * 3, rgbaColor=rgba)
            for colour, rgba in PIGGY_RGBA.items()}

    def _board_texture(self) -> str:
        """The board top as an image (the same drawing as every picture), for a texture."""
        import matplotlib.pyplot as plt

        from sim.views.pictures import draw_board

        x0, x1, y0, y1 = self.board.surface_extent_mm
        fig = plt.figure(figsize=((x1 - x0) / 100, (y1 - y0) / 100), dpi=200)
        ax = fig.add_axes((0, 0, 1, 1))
        draw_board(ax, self.board, labels=True)
        ax.set_xlim(x0, x1)
        ax.set_ylim(y0, y1)
        ax.axis("off")
        path = Path(self._tmp.name) / "board.png"
        fig.savefig(path, dpi=200)
        plt.close(fig)
        return str(path)

    # --- one frame -------------------------------------------------------------------
    def _pose(self, recording: Recording, frame: int, yaw_deg: float, pitch_deg: float) -> None:
        self._call(pb.resetBasePositionAndOrientation, self._tractor, [0, 0, 0],
                   pb.getQuaternionFromEuler([0, 0, math.radians(yaw_deg)]))
        self._call(pb.resetBasePositionAndOrientation, self._barrel,
                   [0, 0, self.design.launcher.pivot_height_mm * CM_PER_MM],
                   pb.getQuaternionFromEuler([math.radians(pitch_deg), 0, math.radians(yaw_deg)]))
        self._call(pb.resetBasePositionAndOrientation, self._bale,
                   (recording.bale_mm[frame] * CM_PER_MM).tolist(),
                   recording.bale_quat[frame].tolist())
        for name, positions in recording.piggies_mm.items():
            if name not in self._piggies:
                shape = self._piggy_shapes[name.split("-")[0]]
                self._piggies[name] = self._call(pb.createMultiBody, 0, -1, shape)
            self._call(pb.resetBasePositionAndOrientation, self._piggies[name],
                       (positions[frame] * CM_PER_MM).tolist(),
                       recording.piggies_quat[name][frame].tolist())
        for name, body in self._piggies.items():  # piggies of another shot: out of sight
            if name not in recording.piggies_mm:
                self._call(pb.resetBasePositionAndOrientation, body, [0, 0, -1000], [0, 0, 0, 1])

    def camera(self, preset: str, result: ShotResult, frame: int) -> tuple[list, list]:
        """View and projection matrices (PyBullet's column-major lists) of a preset."""
        if preset not in CAMERAS:
            raise InputError(f"unknown camera '{preset}': allowed are {', '.join(CAMERAS)}")
        rec = result.recording
        _, _, y0, y1 = self.board.surface_extent_mm
        yaw = math.radians(result.yaw_deg)
        ahead = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
        path = result.trajectory_mm
        middle = path[:, :2].mean(axis=0) if len(path) else np.zeros(2)
        if preset == "overview":
            length = y1 - y0
            eye, target, up = (0, y0 - 0.28 * length, 0.6 * length), (0, 0.08 * y1, 0), (0, 0, 1)
        elif preset == "top":
            eye, target, up = (0, 0, 1.55 * (y1 - y0)), (0, 0, 0), (0, 1, 0)
        elif preset == "side":
            side = np.array([ahead[1], -ahead[0], 0.0])
            eye = (*(middle + 420 * side[:2]), 140)
            target, up = (*middle, 40), (0, 0, 1)
        else:  # chase: behind the tractor, looking where the bale is
            bale = rec.bale_mm[frame] if rec.bale_in_play[frame] else path[-1]
            eye = tuple(-170 * ahead + np.array([0, 0, 200]))
            target, up = tuple(0.5 * np.asarray(bale) + 0.5 * np.append(middle, 0)), (0, 0, 1)
        scale = CM_PER_MM
        view = pb.computeViewMatrix([c * scale for c in eye], [c * scale for c in target], up)
        w, h = self.size
        fov = 30 if preset == "top" else 45
        projection = pb.computeProjectionMatrixFOV(fov, w / h, 1.0, 1000.0)
        return view, projection

    def frame(self, result: ShotResult, index: int, preset: str = "overview") -> np.ndarray:
        """One frame as an (h, w, 3) uint8 array, trail and marks drawn on."""
        rec = result.recording
        self._pose(rec, index, result.yaw_deg, result.pitch_deg)
        view, projection = self.camera(preset, result, index)
        w, h = self.size
        _, _, rgb, _, _ = self._call(pb.getCameraImage, w, h, view, projection,
                                     renderer=pb.ER_TINY_RENDERER,
                                     lightDirection=[0.4, -0.6, 1.0], shadow=0)
        image = Image.fromarray(np.reshape(np.asarray(rgb, dtype=np.uint8), (h, w, 4))[:, :, :3])
        draw = ImageDraw.Draw(image)
        trail = rec.bale_mm[: index + 1][rec.bale_in_play[: index + 1]]
        if len(trail) > 1:
            points = _project(trail, view, projection, self.size)
            draw.line([tuple(p) for p in points], fill=(120, 60, 0), width=2)
        last = index == rec.frames - 1
        for piggy in result.knocked if last else []:
            centre = _project(rec.piggies_mm[piggy][index][None, :], view, projection,
                              self.size)[0]
            r = 14
            draw.ellipse([centre[0] - r, centre[1] - r, centre[0] + r, centre[1] + r],
                         outline=(220, 0, 0), width=3)
            draw.text((centre[0] + r + 2, centre[1] - r), f"{piggy} OUT", fill=(220, 0, 0))
        caption = f"t = {index * rec.dt_s:.2f} s"
        if last:
            caption += "   knocked out: " + (", ".join(result.knocked) or "nobody")
        draw.rectangle([0, h - 18, w, h], fill=(255, 255, 255))
        draw.text((6, h - 15), caption, fill=(0, 0, 0))
        return np.asarray(image)

    def frames(self, result: ShotResult, preset: str = "overview", hold_s: float = 1.0,
               fps: int = DEFAULT_FPS, slowmo: float = 1.0) -> list[np.ndarray]:
        """Every frame of a recorded shot at ``fps``, ``slowmo`` times slower than real
        time, the last one held ``hold_s`` seconds."""
        rec = result.recording
        if rec is None:
            raise ValueError("the shot was fired without recording")
        picks = np.arange(0.0, rec.frames * rec.dt_s * slowmo, 1.0 / fps) / (rec.dt_s * slowmo)
        indices = sorted(set(np.minimum(picks.astype(int), rec.frames - 1)))
        if indices[-1] != rec.frames - 1:
            indices.append(rec.frames - 1)
        images = [self.frame(result, i, preset) for i in indices]
        return images + [images[-1]] * int(hold_s * fps)

    def close(self) -> None:
        if self.client is not None and pb.isConnected(self.client):
            pb.disconnect(self.client)
        self.client = None
        self._tmp.cleanup()

    def __enter__(self) -> ShotRenderer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _project(points_mm: np.ndarray, view, projection, size) -> np.ndarray:
    """Board points (n, 3), mm, to pixel coordinates (n, 2) of a camera."""
    v = np.asarray(view).reshape(4, 4).T
    p = np.asarray(projection).reshape(4, 4).T
    homogeneous = np.column_stack([points_mm * CM_PER_MM, np.ones(len(points_mm))])
    clip = homogeneous @ (p @ v).T
    ndc = clip[:, :3] / clip[:, 3:4]
    w, h = size
    return np.column_stack([(ndc[:, 0] + 1) / 2 * w, (1 - ndc[:, 1]) / 2 * h])


def check_video_path(path: str | Path, suffix: str) -> Path:
    """A video file to write, checked before any work is done."""
    path = Path(path)
    if path.suffix.lower() != suffix:
        raise InputError(f"video file '{path}' must end in {suffix}")
    if not path.parent.is_dir() or not os.access(path.parent, os.W_OK):
        raise InputError(f"cannot write {path}: folder {path.parent} does not exist or is "
                         "not writable")
    return path


def write_gif(frames: list[np.ndarray], path: str | Path, fps: int = DEFAULT_FPS) -> Path:
    """An animated GIF, written atomically."""
    path = check_video_path(path, ".gif")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.gif")
    images = [Image.fromarray(f).convert("P", palette=Image.Palette.ADAPTIVE) for f in frames]
    with _replacing(tmp, path):
        images[0].save(tmp, save_all=True, append_images=images[1:],
                       duration=round(1000 / fps), loop=0, optimize=False)
    return path


def write_mp4(frames: list[np.ndarray], path: str | Path, fps: int = DEFAULT_FPS) -> Path:
    """An H.264 MP4 (imageio-ffmpeg carries ffmpeg), written atomically."""
    import imageio.v2 as imageio

    path = check_video_path(path, ".mp4")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.mp4")
    # ffmpeg quiet: its own lines would reach the terminal; a failure is one line below
    with _replacing(tmp, path):
        with imageio.get_writer(tmp, fps=fps, codec="libx264", quality=7,
                                macro_block_size=16, ffmpeg_log_level="quiet") as writer:
            for frame in frames:
                writer.append_data(frame)
        _check_video(tmp)
    return path


def _check_video(path: Path) -> None:
    """Refuse (OSError) a video ffmpeg did not finish: imageio does not look at
    ffmpeg's exit status, and a full disk leaves a file without its index."""
    import imageio_ffmpeg

    meta = {}
    if path.is_file():  # not a device or a pipe left in its place
        try:
            reader = imageio_ffmpeg.read_frames(str(path))
            meta = next(reader)
            reader.close()
        except (OSError, RuntimeError, StopIteration):
            meta = {}
    if not meta.get("size"):
        raise OSError(errno.EIO, "ffmpeg could not finish the video")


@contextmanager
def _replacing(tmp: Path, path: Path):
    """Write ``tmp`` in the block, then rename it to ``path``; on any failure remove
    ``tmp`` (no ``.tmp`` file is left behind) and, for a failed write, raise a
    one-line :class:`InputError`."""
    try:
        yield
        tmp.replace(path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            reason = exc.strerror or str(exc).splitlines()[0]
            raise InputError(f"cannot write {shown(os.fspath(path))}: {reason}") from None
        raise
