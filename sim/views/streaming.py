"""A shot's videos written as their frames are drawn, memory bounded before the shot.

The frames of ``piggy shoot --gif/--mp4`` are drawn once, one at a time
(:meth:`~sim.views.render.ShotRenderer.stream`), and go at once to the MP4's
encoder (nothing kept) and, reduced to the GIF's palette (one byte a pixel), to the
GIF's frames, which the GIF format needs whole at the end. So an MP4 takes the
memory of one frame whatever its length, and a GIF one byte a pixel a frame: at
most :data:`MAX_GIF_BYTES`, checked before the shot is fired from the longest
recording the design allows (:func:`check_video_memory`), as is the time to draw
any video: at most :data:`MAX_VIDEO_PIXELS` pixels in all.
"""

from __future__ import annotations

import math
import os
from contextlib import ExitStack
from typing import Any

from models.design import Design
from models.errors import InputError
from sim.views import render
from sim.views.video_files import (
    PALETTE_SAMPLE,
    check_video,
    check_video_path,
    gif_frame,
    gif_palette,
    mp4_writer,
    replacing,
    save_gif,
)

#: The most memory a GIF's frames may take (one byte a pixel a frame), bytes.
MAX_GIF_BYTES = 2 * 2**30
#: The most pixels a video may have to draw, all frames together: drawing is the
#: cost (a 1920x1080 shot at --slowmo 20 is 5 billion; 4K at 20, 20 billion, hours).
MAX_VIDEO_PIXELS = 2**33


def most_frames(design: Design, fps: int, slowmo: float, hold_s: float = 1.0) -> int:
    """The most frames a video of one shot can have: its longest recording (the
    design's ``max_time_s``), ``slowmo`` times slower, at ``fps``, and the hold."""
    return math.ceil(design.physics.max_time_s * slowmo * fps) + 1 + int(hold_s * fps)


def check_video_memory(
    design: Design, size: tuple[int, int], slowmo: float, gif: bool, fps: int = render.DEFAULT_FPS
) -> None:
    """Refuse, on one line with the estimate, a GIF whose frames could take more than
    :data:`MAX_GIF_BYTES` (an MP4 is streamed and always fits in memory), and any
    video with more than :data:`MAX_VIDEO_PIXELS` to draw."""
    frames = most_frames(design, fps, slowmo)
    needed = frames * size[0] * size[1]
    if needed > MAX_VIDEO_PIXELS and not (gif and needed > MAX_GIF_BYTES):
        raise InputError(
            f"a {size[0]}x{size[1]} video at --slowmo {slowmo:g} may hold {frames} frames, "
            f"{needed / 1e9:.1f} billion pixels to draw (at most {MAX_VIDEO_PIXELS / 1e9:.1f}): "
            "choose a smaller --size or --slowmo"
        )
    if gif and needed > MAX_GIF_BYTES:
        raise InputError(
            f"--gif: a {size[0]}x{size[1]} GIF at --slowmo {slowmo:g} may hold "
            f"{frames} frames, about {needed / 2**30:.1f} GiB of memory (at most "
            f"{MAX_GIF_BYTES / 2**30:.0f} GiB): choose a smaller --size or "
            "--slowmo, or --mp4 (written as it is drawn)"
        )


def write_videos(
    renderer: render.ShotRenderer,
    result,
    camera: str,
    slowmo: float,
    gif: str | None,
    mp4: str | None,
    fps: int = render.DEFAULT_FPS,
    progress=None,
) -> list[str]:
    """Draw the shot's frames once and write them to ``gif`` and/or ``mp4``, each
    atomically; ``progress(done, total)`` after each frame. Returns the paths."""
    indices = renderer.frame_indices(result, fps, slowmo)
    total = len(indices) + int(fps)
    palette = None
    if gif:
        picks = sorted({*indices[:: max(1, len(indices) // PALETTE_SAMPLE)], indices[-1]})
        palette = gif_palette([renderer.frame(result, i, camera) for i in picks])
    written, gif_frames = [], []
    with ExitStack() as stack:
        writer: Any = None
        if mp4:
            mp4_path = check_video_path(mp4, ".mp4")
            mp4_tmp = mp4_path.with_name(f".{mp4_path.name}.{os.getpid()}.tmp.mp4")
            stack.enter_context(replacing(mp4_tmp, mp4_path))
            writer = stack.enter_context(mp4_writer(mp4_tmp, fps))
        for done, frame in enumerate(
            renderer.stream(result, camera, fps=fps, slowmo=slowmo), start=1
        ):
            if writer is not None:
                writer.append_data(frame)
            if palette is not None:
                gif_frames.append(gif_frame(frame, palette))
            if progress:
                progress(done, total)
        if writer is not None:
            writer.close()
            check_video(mp4_tmp)
            written.append(str(mp4_path))
    if gif:
        written.insert(0, str(save_gif(gif_frames, gif, fps)))
    return written
