"""What changed in a frame, as the bale finder (sim/real_toy/follow.py) reads it:
the blobs of a mask of changed pixels, whether a blob's box changed since the
frame before, whether a blob is a still part the bale left behind, and how much
of each pixel of a patch the bale covers."""

from __future__ import annotations

import cv2
import numpy as np

#: Least change (0-255 grey levels) a pixel must show to belong to the bale.
MIN_CHANGE = 25


def blobs(mask: np.ndarray) -> tuple[int, np.ndarray, np.ndarray]:
    """OpenCV's 8-connected components of ``mask``: their count (label 0 the
    background), and each label's stats and centre in the mask's pixels, the blobs
    in raster order of their boxes (top, then left). Labelled within the box round
    the lit pixels only, which gives the same blobs at a fraction of the whole
    frame's pass (that pass was most of a film's measuring time); put in an order
    of their own, since OpenCV's, which labels 2x2 blocks, shifts with the box's
    parity. Label 0's stats are the box's."""
    lit = cv2.findNonZero(mask)
    if lit is None:
        return 1, np.zeros((1, 5), np.int32), np.zeros((1, 2))
    x, y, w, h = cv2.boundingRect(lit)
    count, _, stats, centres = cv2.connectedComponentsWithStats(
        mask[y : y + h, x : x + w], connectivity=8
    )
    stats[:, cv2.CC_STAT_LEFT] += x
    stats[:, cv2.CC_STAT_TOP] += y
    centres += (x, y)
    order = np.lexsort((centres[1:, 0], stats[1:, cv2.CC_STAT_LEFT], stats[1:, cv2.CC_STAT_TOP]))
    keep = np.concatenate(([0], 1 + order))
    return count, stats[keep], centres[keep]


def moved_since(stat: np.ndarray, small: np.ndarray, previous: np.ndarray) -> bool:
    """Whether a blob's box changed since the frame before."""
    x, y, w, h, _ = stat
    box = (slice(y, y + h), slice(x, x + w))
    return bool((cv2.absdiff(small[box], previous[box]) >= MIN_CHANGE).any())


def left_behind(
    stat: np.ndarray, last: np.ndarray, small: np.ndarray, previous: np.ndarray, others: np.ndarray
) -> bool:
    """Whether a blob is a part the blob followed in the frame before (its box
    ``last``) left behind: it lies within that box and stayed, no more than a
    sixteenth of its area's worth of pixels in its box, outside the ``others``'
    boxes (the bale's, beside it), lighter than in ``previous`` by half of
    :data:`MIN_CHANGE` (the change taken for still when the background learns).
    The bale, lighter than all else, lights its leading edge as it moves: 11-32 %
    of a blob it was one with, in the films tried; a still change it has just
    left only darkens where it was (0-2 % lighter)."""
    x, y, w, h, area = stat
    lx, ly, lw, lh, _ = last
    if x < lx - 1 or y < ly - 1 or x + w > lx + lw + 1 or y + h > ly + lh + 1:
        return False
    lighter = cv2.subtract(small[y : y + h, x : x + w], previous[y : y + h, x : x + w])
    mine = np.ones((h, w), bool)
    for ox, oy, ow, oh, _ in others:
        mine[max(0, oy - y) : max(0, oy + oh - y), max(0, ox - x) : max(0, ox + ow - x)] = False
    return np.count_nonzero((lighter >= MIN_CHANGE // 2) & mine) <= area / 16


def coverage(seen: np.ndarray, still: np.ndarray) -> tuple[np.ndarray, float]:
    """How much of each pixel of a patch the bale covers (0-1), and the count of
    pixels that became lighter by :data:`MIN_CHANGE` or more (the blob's area).

    A pixel the bale covers in part (its edge, anti-aliased or blurred by the
    motion) is the background and the bale's own grey mixed in proportion, so
    its cover is its change over the change the whole bale would make there. The
    bale's grey is its lit pixels' upper quartile (a wholly covered pixel shows
    the bale whatever lay behind it). Weighting by the change itself instead
    pulled the centroid toward where the background is darker: a low shot seen
    from high above, crossing the edge of the tractor's dark base just before it
    touched, had its centroid 1-2 px back along its path in the two frames before
    the touch, and its touch was put 4-10 mm short. The lit pixels and the ring
    of pixels round them count (an edge pixel covered under half changes less
    than :data:`MIN_CHANGE` over the green board)."""
    change = cv2.subtract(seen, still).astype(np.float32)
    lit = change >= MIN_CHANGE
    area = float(np.count_nonzero(lit))
    if area == 0:
        return np.zeros(change.shape, np.float32), 0.0
    grey = float(np.percentile(seen[lit], 75))
    whole = np.maximum(grey - still.astype(np.float32), MIN_CHANGE)
    ring = cv2.dilate(lit.astype(np.uint8), np.ones((3, 3), np.uint8)).astype(bool)
    return np.where(ring, np.minimum(change / whole, 1.0), 0.0), area
