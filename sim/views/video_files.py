"""A shot's or a game's frames written as video files: an animated GIF or an H.264
MP4, each checked before any work is done and written atomically (no ``.tmp`` file
left behind, a failed write one line).
"""

from __future__ import annotations

import errno
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from PIL import Image

from models.errors import InputError
from models.text import shown

#: Frames per second of the videos.
DEFAULT_FPS = 30
#: Frames sampled for a GIF's palette (the last one among them).
PALETTE_SAMPLE = 8


def check_video_path(path: str | Path, suffix: str) -> Path:
    """A video file to write, checked before any work is done."""
    path = Path(path)
    if path.suffix.lower() != suffix:
        raise InputError(f"video file '{path}' must end in {suffix}")
    if not path.parent.is_dir() or not os.access(path.parent, os.W_OK):
        raise InputError(
            f"cannot write {path}: folder {path.parent} does not exist or is not writable"
        )
    return path


def write_gif(
    frames: list[np.ndarray], path: str | Path, fps: int = DEFAULT_FPS, colours: int = 255
) -> Path:
    """An animated GIF, written atomically. One palette of ``colours`` for every frame
    (made from a sample of them), so that each frame after the first stores only what
    changed; flat drawings need far fewer colours than rendered scenes."""
    path = check_video_path(path, ".gif")
    step = max(1, len(frames) // PALETTE_SAMPLE)
    palette = gif_palette([*frames[::step], frames[-1]], colours)
    return save_gif([gif_frame(f, palette) for f in frames], path, fps)


def gif_palette(sample: list[np.ndarray], colours: int = 255) -> Image.Image:
    """One palette for a GIF's every frame, made from a ``sample`` of its frames."""
    return Image.fromarray(np.vstack(sample)).quantize(colours, method=Image.Quantize.MEDIANCUT)


def gif_frame(frame: np.ndarray, palette: Image.Image) -> Image.Image:
    """A frame reduced to the GIF's ``palette`` (one byte a pixel)."""
    return Image.fromarray(frame).quantize(palette=palette, dither=Image.Dither.NONE)


def save_gif(images: list[Image.Image], path: str | Path, fps: int) -> Path:
    """Frames already reduced to one palette (:func:`gif_frame`) as an animated GIF
    that loops, written atomically."""
    path = check_video_path(path, ".gif")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.gif")
    with replacing(tmp, path):
        images[0].save(
            tmp,
            save_all=True,
            append_images=images[1:],
            duration=round(1000 / fps),
            loop=0,
            optimize=False,
        )
    return path


def write_mp4(frames: list[np.ndarray], path: str | Path, fps: int = DEFAULT_FPS) -> Path:
    """An H.264 MP4 (imageio-ffmpeg carries ffmpeg), written atomically."""
    path = check_video_path(path, ".mp4")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp.mp4")
    with replacing(tmp, path):
        with mp4_writer(tmp, fps) as writer:
            for frame in frames:
                writer.append_data(frame)
        check_video(tmp)
    return path


def mp4_writer(path: Path, fps: int) -> Any:
    """An H.264 writer to ``path`` that takes frames one at a time (``append_data``);
    the caller closes it (a ``with`` block), then :func:`check_video`."""
    import imageio.v2 as imageio

    # ffmpeg quiet: its own lines would reach the terminal; a failure is one line below.
    # imageio types its writers as the base class, which has no append_data: Any.
    return imageio.get_writer(
        path, fps=fps, codec="libx264", quality=7, macro_block_size=16, ffmpeg_log_level="quiet"
    )


def check_video(path: Path) -> None:
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
def replacing(tmp: Path, path: Path):
    """Write ``tmp`` in the block, then rename it to ``path``; on any failure remove
    ``tmp`` (no ``.tmp`` file is left behind) and, for a failed write, raise a
    one-line :class:`InputError`."""
    try:
        yield
        tmp.replace(path)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            reason = _write_failure(exc, tmp.parent)
            raise InputError(f"cannot write {shown(os.fspath(path))}: {reason}") from None
        raise


def _write_failure(exc: OSError, folder: Path) -> str:
    """Why a write failed, in words: an encoder (ffmpeg) that died on a full disk
    leaves us a broken pipe (imageio-ffmpeg's error, holding ffmpeg's command, has
    it as its context), so a full folder is named for what it is."""
    pipe = next((e for e in (exc, exc.__context__) if isinstance(e, BrokenPipeError)), None)
    if pipe is not None:
        full = _full(folder)
        return os.strerror(errno.ENOSPC) if full else f"the encoder stopped ({pipe.strerror})"
    return exc.strerror or str(exc).splitlines()[0]


def _full(folder: Path) -> bool:
    """Whether the file system of ``folder`` has less than a megabyte left."""
    try:
        info = os.statvfs(folder)
    except OSError:
        return False
    return info.f_bavail * info.f_frsize < 2**20
