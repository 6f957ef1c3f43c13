import math

import numpy as np
import pytest

from models.errors import InputError
from sim.physics import aim
from sim.physics.ballistics import height_at_distance, release_point_mm


def test_both_arcs_pass_through_the_target(design):
    target = np.array([-120.0, 250.0, 19.0])
    solutions = aim.solve(design, target)
    assert [s.arc for s in solutions] == ["low", "high"]
    low, high = solutions
    assert low.pitch_deg < high.pitch_deg
    for s in solutions:
        assert design.launcher.pitch_min_deg <= s.pitch_deg <= design.launcher.pitch_max_deg
        height = height_at_distance(design, s.pitch_deg, math.hypot(*target[:2]))
        assert abs(height - target[2]) < 1e-3


def test_yaw_convention_of_design_md(design):
    """Yaw 0 along +y (toward the trough); positive yaw counter-clockwise, toward -x."""
    assert aim.yaw_to((0.0, 100.0)) == pytest.approx(0.0)
    assert aim.yaw_to((-100.0, 0.0)) == pytest.approx(90.0)
    assert aim.yaw_to((100.0, 0.0)) == pytest.approx(-90.0)
    muzzle = release_point_mm(design, 90.0, 0.0)
    assert muzzle[0] < 0 and abs(muzzle[1]) < 1e-9


def test_out_of_reach_names_the_reachable_range(design):
    with pytest.raises(aim.OutOfReach) as err:
        aim.solve(design, (0.0, 2000.0, 0.0), "r99c9")
    near, far = err.value.reach_mm
    assert near < far < 2000.0
    assert "r99c9 is out of reach" in str(err.value) and f"{far:.0f}" in str(err.value)
    assert isinstance(err.value, InputError)


@pytest.mark.slow
def test_drag_shortens_the_flight_and_the_solver_allows_for_it(design):
    import dataclasses

    dragged = dataclasses.replace(
        design, physics=dataclasses.replace(design.physics, air_drag=True)
    )
    assert height_at_distance(dragged, 20, 300) < height_at_distance(design, 20, 300)
    target = (0.0, 300.0, 10.0)
    low_dragged = aim.solve(dragged, target)[0]
    assert low_dragged.pitch_deg > aim.solve(design, target)[0].pitch_deg
    assert abs(height_at_distance(dragged, low_dragged.pitch_deg, 300.0) - 10.0) < 1e-3


@pytest.mark.slow
def test_reach_with_drag_is_a_real_range_a_little_shorter(design):
    import dataclasses

    dragged = dataclasses.replace(
        design, physics=dataclasses.replace(design.physics, air_drag=True)
    )
    near, far = aim.reach_mm(dragged, 19.0)
    plain_near, plain_far = aim.reach_mm(design, 19.0)
    assert math.isfinite(near) and math.isfinite(far)
    assert near == pytest.approx(plain_near, rel=0.02) and plain_far * 0.95 < far < plain_far
