"""Which frames of a shot show the whole bale, read from its blob's area frame by
frame: the bale in front of a white marker or the tractor is no lighter than what
it hides there, and its blob shrinks (sim/real_toy/measure.py leaves such frames
out; sim/real_toy/paper_cut.py those cut by a marker's paper)."""

from __future__ import annotations

import numpy as np

#: A frame's blob is the whole bale when its area is at least this share of the
#: upper quartile over STEADY_SPAN frames either side (:func:`steady_frames`): a
#: bale's blob varies by a tenth or so from frame to frame (its blur and turn).
STEADY_SHARE = 0.75
STEADY_SPAN = 8
#: The frames from the barrel that are kept whatever their blob (:func:`steady_frames`).
STEADY_FROM = 12


def steady_frames(areas: np.ndarray) -> np.ndarray:
    """Which frames' blobs are the whole bale (bool): those whose area is at least
    :data:`STEADY_SHARE` of the upper quartile over the :data:`STEADY_SPAN` frames
    either side. The bale in front of a white marker or the tractor is no lighter
    than what it hides there, so its blob shrinks and its centroid slides off the
    bale's centre for a frame or a few: a bend in mid-air that is no bounce. (The
    quartile, not the median: passing the tractor shrinks the blob for up to a
    dozen frames.) The first :data:`STEADY_FROM` frames are all kept: the blob
    grows as the bale comes out of the barrel, and a low shot's, near the camera,
    grows by half as it lands 9 frames out."""
    areas = np.asarray(areas, float)
    steady = areas >= STEADY_SHARE * whole_areas(areas)
    steady[:STEADY_FROM] = True
    return steady


def whole_areas(areas: np.ndarray) -> np.ndarray:
    """The upper quartile of the blob's area over :data:`STEADY_SPAN` frames either
    side of each frame: the whole bale's, where a few are cut."""
    areas = np.asarray(areas, float)
    return np.array(
        [
            np.percentile(areas[max(0, i - STEADY_SPAN) : i + STEADY_SPAN + 1], 75)
            for i in range(len(areas))
        ]
    )
