"""Simulated flight against closed-form ballistics (sim/physics/bullet/validation.py
states the bound)."""

import pytest

from models.design import load_design
from sim.physics.bullet.validation import default_pitches, range_table
from sim.physics.launch import AimedShot


@pytest.mark.parametrize("name", ["stock", "fast-spring"])
def test_first_contact_distance_matches_the_no_drag_range(board, name):
    design = load_design(name)
    rows = range_table(board, design, default_pitches(design, 8))
    for row in rows:
        assert row.passes, (
            f"pitch {row.pitch_deg:.1f}: error {row.error_mm:.2f} mm, "
            f"1 % = {0.01 * row.closed_form_mm:.2f} mm, bound {row.bound_mm:.2f}"
        )
    # where the range is long, the 1 % criterion holds by itself
    assert all(abs(r.relative_error) < 0.01 for r in rows if r.closed_form_mm > 300)


def test_dragged_flight_matches_the_integrated_drag_equation(board):
    """With strong air drag on (k = 0.35 /m), the simulated first-contact distance
    matches the RK4 integration of a = -g - k|v|v within the same two-step bound."""
    import dataclasses
    import math

    from sim.physics.aim import _landing_with_drag
    from sim.physics.bullet.validation import lowest_point_height_mm, open_board
    from sim.physics.bullet.world import BulletWorld

    design = load_design("stock")
    dragged = dataclasses.replace(
        design,
        physics=dataclasses.replace(
            design.physics, air_drag=True, drag_coefficient=5.0, air_density_kg_m3=5.0
        ),
    )
    dt = 1.0 / design.physics.steps_per_s
    with BulletWorld(open_board(board), dragged) as world:
        for pitch in (-10.0, 10.0, 35.0, 60.0):
            expected = _landing_with_drag(dragged, pitch, lowest_point_height_mm(dragged, pitch))
            result = world.shoot(AimedShot(0.0, pitch, noise=False))
            simulated = result.first_contact_centre_mm[1]
            assert abs(result.first_contact_centre_mm[0]) < 0.01  # no sideways push
            bound = 3 * design.launcher.muzzle_speed_mm_s * math.cos(math.radians(pitch)) * dt
            assert abs(simulated - expected) <= bound, (pitch, simulated, expected)
