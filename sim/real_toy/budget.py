"""What ``piggy film`` may be asked, checked before a shot is fired: the memory its
frame size takes and the pixels it draws and encodes, each with its estimate and
the largest allowed (as ``piggy shoot --mp4`` has its pixel budget,
sim/views/streaming.py). No numpy here: the command's refusals stay quick.
"""

from __future__ import annotations

import math

from models.errors import InputError

#: The most pixels a film may draw and encode, all its frames together. Measured on
#: a 2-core machine: about 22 ns a pixel (a 1920x1080 frame in 46 ms), so 1e11 is
#: about 40 minutes; the docs' 40 shots at 1920x1080 and 240 fps are 25 billion.
MAX_FILM_PIXELS = 10**11
#: The most memory a film may take, bytes.
MAX_FILM_BYTES = 4 * 2**30
#: The film's memory, measured (peak resident size, 320x180 to 1920x1080): about
#: 150 MB, and 214 bytes a pixel of the frame (the bank of noise frames, the still
#: scene and its lighting, the frame drawn). A 7680x4320 film: 7.3 GB.
BASE_BYTES, BYTES_PER_PIXEL = 150 * 10**6, 214


def film_memory(width: int, height: int) -> int:
    """The memory a film of frames ``width`` x ``height`` takes, bytes (estimated)."""
    return BASE_BYTES + BYTES_PER_PIXEL * width * height


def check_film_budget(frames: int, width: int, height: int) -> None:
    """Refuse, on one line with the estimate and the largest allowed, a film whose
    frames take more than :data:`MAX_FILM_BYTES` of memory, or that has more than
    :data:`MAX_FILM_PIXELS` pixels to draw in its (at most) ``frames`` frames."""
    memory = film_memory(width, height)
    if memory > MAX_FILM_BYTES:
        largest = _largest_size(width, height)
        raise InputError(
            f"--size {width}x{height}: a film takes about {memory / 1e9:.1f} GB of memory at "
            f"this size (at most {MAX_FILM_BYTES / 2**30:.0f} GiB): the largest of its shape "
            f"allowed is {largest[0]}x{largest[1]}; choose a smaller --size"
        )
    pixels = frames * width * height
    if pixels > MAX_FILM_PIXELS:
        raise InputError(
            f"this film may hold {frames} frames of {width}x{height}, "
            f"{pixels / 1e9:.0f} billion pixels to draw (at most {MAX_FILM_PIXELS / 1e9:.0f} "
            f"billion: {MAX_FILM_PIXELS // (width * height)} frames at this size): choose "
            "fewer shots, a lower --fps, a smaller --size or a shorter --shot-seconds or --gap"
        )


def _largest_size(width: int, height: int) -> tuple[int, int]:
    """The largest frame of the shape of ``width`` x ``height`` (even sides) whose
    film fits in :data:`MAX_FILM_BYTES`."""
    scale = math.sqrt((MAX_FILM_BYTES - BASE_BYTES) / BYTES_PER_PIXEL / (width * height))
    return 2 * math.floor(width * scale / 2), 2 * math.floor(height * scale / 2)
