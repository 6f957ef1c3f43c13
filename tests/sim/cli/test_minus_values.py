"""Values that start with a minus: a camera left of the board (``--camera-at
-480,-700,850``) is read as the option's value, spelled with a space or with "=",
while a missing value is still refused on one line."""

from __future__ import annotations

import pytest

from models.errors import InputError
from sim.cli import build_parser

FILM = ["film", "--design", "stock", "--angles", "a.csv", "--out", "s.mp4"]


@pytest.mark.parametrize("equals", [False, True])
def test_points_left_of_the_board_are_values(equals):
    def option(name, value):
        return [f"{name}={value}"] if equals else [name, value]

    args = build_parser().parse_args(
        [*FILM, *option("--camera-at", "-480,-700,850"), *option("--look-at", "-.5,-150,0")]
    )
    assert args.camera_at == (-480.0, -700.0, 850.0)
    assert args.look_at == (-0.5, -150.0, 0.0)


def test_a_lone_negative_number_and_a_missing_value_are_as_before():
    args = build_parser().parse_args(["shoot", "--yaw", "-10", "--pitch", "-5.5"])
    assert (args.yaw, args.pitch) == (-10.0, -5.5)
    with pytest.raises(InputError, match="--camera-at: expected one argument"):
        build_parser().parse_args([*FILM, "--camera-at", "--look-at", "0,0,0"])
