"""A design's geometry as a whole (models/design_checks.py, check_design_as_a_whole)."""

import re

import numpy as np
import pytest

from models.design import design_from_dict, known_designs, load_design
from models.errors import InputError

LOW = {"pivot_height_mm": 10.0, "barrel_length_mm": 200.0, "pitch_min_deg": -60.0}


def lowest_corner_mm(pivot, barrel, pitches_deg, length, width, height) -> float:
    """Lowest z of the bale's eight box corners as it leaves the barrel, over all the
    pitches given, worked out from the corners themselves (not the formula under test)."""
    p = np.radians(np.asarray(pitches_deg))[:, None]
    along = np.stack([np.zeros_like(p), np.cos(p), np.sin(p)], axis=-1)  # (n, 1, 3)
    up = np.stack([np.zeros_like(p), -np.sin(p), np.cos(p)], axis=-1)
    side = np.array([1.0, 0.0, 0.0])
    centre = np.array([0.0, 0.0, pivot]) + (barrel + length / 2) * along
    signs = np.array([[a, b, c] for a in (-1, 1) for b in (-1, 1) for c in (-1, 1)])  # (8, 3)
    corners = (
        centre
        + signs[:, 0:1] * length / 2 * along
        + signs[:, 1:2] * height / 2 * up
        + signs[:, 2:3] * width / 2 * side
    )
    return float(corners[..., 2].min())


def test_shipped_designs_pass():
    for name in known_designs():
        load_design(name)


def test_a_muzzle_under_the_board_is_refused_with_the_pitch_that_would_do():
    with pytest.raises(InputError) as excinfo:
        design_from_dict({"launcher": LOW}, source="low.toml")
    message = str(excinfo.value)
    assert message.startswith(
        "design low.toml: at pitch -60 deg the bale would leave the "
        "barrel 174.2 mm under the board surface"
    )
    suggested = float(
        re.search(r"'launcher.pitch_min_deg' to at least (-?[\d.]+)", message).group(1)
    )
    # the suggestion is accepted, and 0.2 deg lower is not
    design_from_dict({"launcher": dict(LOW, pitch_min_deg=suggested)})
    with pytest.raises(InputError, match="under the board surface"):
        design_from_dict({"launcher": dict(LOW, pitch_min_deg=suggested - 0.2)})


def test_a_barrel_under_the_board_at_every_pitch_asks_for_another_pivot_or_barrel():
    data = {"launcher": dict(LOW, pitch_max_deg=-50.0)}
    with pytest.raises(
        InputError,
        match=r"mm under the board surface .*: raise the pivot or "
        r"shorten the barrel$",
    ):
        design_from_dict(data)


def test_the_check_agrees_with_the_bales_corners_on_random_designs():
    """Seeded: 150 designs drawn across the ranges; accepted exactly when every corner
    of the bale is above the board at every pitch (to within the check's 0.05 deg grid)."""
    rng = np.random.default_rng(13)
    accepted = refused = 0
    for _ in range(150):
        launcher = {
            "pivot_height_mm": float(rng.uniform(10, 80)),
            "barrel_length_mm": float(rng.uniform(5, 200)),
            "pitch_min_deg": float(rng.uniform(-60, 0)),
            "pitch_max_deg": 30.0,
        }
        bale = {
            "length_mm": float(rng.uniform(3, 30)),
            "width_mm": 7.0,
            "height_mm": float(rng.uniform(3, 30)),
            "corner_radius_mm": 1.0,
        }
        pitches = np.linspace(launcher["pitch_min_deg"], 30.0, 2001)
        lowest = lowest_corner_mm(
            launcher["pivot_height_mm"],
            launcher["barrel_length_mm"],
            pitches,
            bale["length_mm"],
            bale["width_mm"],
            bale["height_mm"],
        )
        if abs(lowest) < 0.05:  # too close to call on either grid
            continue
        try:
            design_from_dict({"launcher": launcher, "bale": bale})
            accepted += 1
            assert lowest > 0, launcher
        except InputError:
            refused += 1
            assert lowest < 0, launcher
    assert accepted > 20 and refused > 20  # both sides of the line were tried


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": "fast\x1b[31m"}, r"'name' fast\\x1b\[31m holds the control character"),
        ({"description": "two\nlines"}, r"'description' two\\nlines holds the control character"),
        ({"name": "n" * 65}, "'name' is 65 characters long: at most 64"),
        ({"description": 7}, "'description' must be a string, got 7"),
    ],
)
def test_names_and_descriptions_must_print_as_they_are(data, message):
    with pytest.raises(InputError, match=message):
        design_from_dict(data)
