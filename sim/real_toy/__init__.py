"""The real toy from a video: the printed markers that fix a camera's pose
(:mod:`sim.real_toy.markers`), a pinhole camera (:mod:`sim.real_toy.camera`) and the
sandbox's own shots filmed as a phone on a tripod would see them
(:mod:`sim.real_toy.film`); docs/real-toy.md, "Markers and the camera".

OpenCV (``cv2``, the ``video`` extra) is imported only in this package, inside the
functions that draw or read; a command calls :func:`opencv` first, so that a
machine without it is told on one line what installs it.
"""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

from models.errors import InputError, install_hint
from models.files import check_input_file

#: The largest video read, bytes (a phone's hour of 4K is a few hundred GB).
MAX_VIDEO_BYTES = 1024**4


def opencv() -> ModuleType:
    """The ``cv2`` module, or an :class:`InputError` naming the extra that installs it."""
    try:
        import cv2
    except ImportError:
        raise InputError(
            f"the video commands need OpenCV (opencv-python-headless): {install_hint('video')}"
        ) from None
    if not hasattr(cv2, "aruco"):
        raise InputError(
            "this OpenCV has no ArUco module (cv2.aruco): install opencv-python-headless "
            f"4.8 or later, {install_hint('video')}"
        )
    return cv2


def video_file(path: str | Path) -> Path:
    """``path`` as a video's path, refused on one line when there is no such file
    (told before OpenCV is loaded: a quick refusal)."""
    # a folder, a FIFO or a device is told what it is, not "no such file"
    return check_input_file(path, "video", max_bytes=MAX_VIDEO_BYTES)
