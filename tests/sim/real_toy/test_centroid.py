"""The bale finder's centroid is the bale's centre wherever the background behind
it changes: a bale crossing the edge of the tractor's dark base onto the green
board (a low shot seen from high above, just before it touches) is not pulled
toward the dark side, where it changed the picture more."""

import numpy as np
import pytest

from sim.real_toy.follow import BaleFinder

SIZE = (120, 160)  # rows, columns
GREEN, DARK, STRAW = 140, 35, 200
#: the drawing's sub-pixel samples a pixel side
FINE = 8


def drawn(background: np.ndarray, centre: tuple[float, float], width: float, height: float):
    """The background with an upright bale of ``width`` x ``height`` px centred at
    ``centre`` (u, v) drawn over it, its edges anti-aliased (each pixel the share it
    covers; a pixel's centre at its integer coordinates), and 2 grey levels of
    noise."""
    rows, cols = SIZE
    v, u = (np.indices((rows * FINE, cols * FINE)) + 0.5) / FINE - 0.5
    inside = (abs(u - centre[0]) <= width / 2) & (abs(v - centre[1]) <= height / 2)
    cover = inside.reshape(rows, FINE, cols, FINE).mean(axis=(1, 3))
    noise = np.random.default_rng(1).normal(0, 2, SIZE)
    picture = background * (1 - cover) + STRAW * cover + noise
    return np.clip(np.round(picture), 0, 255).astype(np.uint8)


def board_with_dark_base(edge_row: float) -> np.ndarray:
    """The green board above ``edge_row``, the tractor's dark base below it."""
    background = np.full(SIZE, GREEN, np.uint8)
    background[int(edge_row) :, :] = DARK
    return background


@pytest.mark.parametrize("over_dark", [0.0, 0.25, 0.5, 0.75, 1.0])
def test_a_bale_across_the_dark_bases_edge_is_found_at_its_centre(over_dark):
    width, height = 9.0, 14.0
    edge = 60
    centre = (80.3, edge - height / 2 + over_dark * height + 0.4)
    background = board_with_dark_base(edge)
    finder = BaleFinder(background, min_area_px=30, max_area_px=600, search_scale=2)

    u, v, area = finder.find(drawn(background, centre, width, height))

    assert abs(u - centre[0]) < 0.15
    assert abs(v - centre[1]) < 0.15  # pulled toward the dark side: 1-2 px
    assert area == pytest.approx(width * height, abs=2 * (width + height))


def test_a_bale_on_the_green_board_is_found_at_its_centre():
    centre = (50.6, 40.2)
    background = np.full(SIZE, GREEN, np.uint8)
    finder = BaleFinder(background, min_area_px=30, max_area_px=600, search_scale=2)

    u, v, _ = finder.find(drawn(background, centre, 9.0, 14.0))

    assert max(abs(u - centre[0]), abs(v - centre[1])) < 0.15  # the edge's partial pixels
