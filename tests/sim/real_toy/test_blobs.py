"""The bale finder's blobs, labelled within the lit pixels' box, are OpenCV's blobs
of the whole mask: the same count, sizes, boxes and centres, in an order of their
own; and a still part the bale left behind is told from a blob it moves in."""

import cv2
import numpy as np
import pytest

from sim.real_toy.changes import blobs, left_behind


def whole_mask_blobs(mask):
    """OpenCV's blobs of the whole mask, each row its stats then its centre, sorted."""
    count, _, stats, centres = cv2.connectedComponentsWithStats(mask, connectivity=8)
    return count, sorted(map(tuple, np.hstack([stats[1:], centres[1:]])))


@pytest.mark.parametrize("seed", range(5))
def test_blobs_in_the_lit_box_are_the_whole_masks_blobs(seed):
    rng = np.random.default_rng(seed)
    mask = np.zeros((270, 480), np.uint8)
    for _ in range(rng.integers(1, 6)):  # a few blobs of a bale's size, anywhere
        v, u = rng.integers(0, 260), rng.integers(0, 470)
        h, w = rng.integers(1, 12, size=2)
        mask[v : v + h, u : u + w] = 255
    mask[rng.random(mask.shape) < 0.001] = 255  # and the compression's speckle

    count, stats, centres = blobs(mask)

    assert (count, sorted(map(tuple, np.hstack([stats[1:], centres[1:]])))) == (
        whole_mask_blobs(mask)
    )


def test_the_blobs_come_in_raster_order_of_their_boxes_wherever_the_lit_box_lies():
    # OpenCV labels 2x2 blocks at a time, so its order shifts with the lit box's
    # parity; the finder's choice between equal blobs must not.
    rng = np.random.default_rng(4)
    mask = np.where(rng.random((270, 480)) < 0.002, 255, 0).astype(np.uint8)
    for shift in (0, 1):
        _, stats, _ = blobs(np.roll(mask, shift, axis=(0, 1)))
        tops_lefts = [tuple(row) for row in stats[1:, [cv2.CC_STAT_TOP, cv2.CC_STAT_LEFT]]]
        assert tops_lefts == sorted(tops_lefts)


def test_a_mask_with_nothing_lit_has_no_blob_and_one_lit_at_the_corner_is_found():
    mask = np.zeros((90, 160), np.uint8)
    assert blobs(mask)[0] == 1
    mask[89, 159] = 255
    count, stats, centres = blobs(mask)
    assert count == 2
    assert tuple(stats[1, :4]) == (159, 89, 1, 1)
    assert tuple(centres[1]) == (159.0, 89.0)


def _patch_with_bale(bale_left: int | None) -> np.ndarray:
    """A still patch lighter than the board (the board the tractor uncovered, over
    the grey tractor), 30 x 12 px, and the bale, lighter still, 8 x 6 px, from
    column ``bale_left`` (None: no bale)."""
    frame = np.full((60, 80), 100, np.uint8)
    frame[20:32, 10:40] = 145
    if bale_left is not None:
        frame[23:29, bale_left : bale_left + 8] = 200
    return frame


def test_a_part_the_bale_left_is_told_from_a_blob_it_moves_in():
    """The patch (its stats) the bale has just left, 5 px a frame, only darkened
    where the bale was: left behind, even with the bale, a blob of its own, lying
    across the end of its box. With the bale moving inside it, every pixel lit a
    frame before too, the bale's leading edge got lighter: not left behind. Nor
    is a patch outside the last box of the blob followed."""
    patch = np.array([10, 20, 30, 12, 360])
    followed = patch  # the blob followed a frame before: the patch, the bale in it
    none = np.empty((0, 5), int)
    bale_beside = np.array([[34, 23, 8, 6, 48]])
    left, moved_in = (
        (_patch_with_bale(40), _patch_with_bale(35)),
        (_patch_with_bale(19), _patch_with_bale(14)),
    )
    across = (_patch_with_bale(34), _patch_with_bale(26))

    assert left_behind(patch, followed, *left, none)
    assert left_behind(patch, followed, *across, bale_beside)
    assert not left_behind(patch, followed, *across, none)  # the bale's pixels counted
    assert not left_behind(patch, followed, *moved_in, none)
    elsewhere = np.array([22, 20, 30, 12, 360])
    assert not left_behind(patch, elsewhere, *left, none)
