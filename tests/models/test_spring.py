"""Launchers given as a spring: the derived muzzle speed and spread, the checks,
and that speed designs and sweeps are unchanged."""

import dataclasses
import math
import tomllib

import pytest

from models.design import (
    Bale,
    Design,
    design_from_dict,
    design_toml,
    load_design,
    spring_speed_mm_s,
)
from models.errors import InputError
from sim.physics.launch import AimedShot
from sim.studies.designs.sweep import parse_sweep, with_value

SPRING = {
    "spring_rate_n_m": 200.0,
    "draw_mm": 14.0,
    "draw_sd_mm": 0.2,
    "plunger_mass_g": 3.0,
    "efficiency": 0.45,
}


def test_spring_stock_speed_matches_the_hand_calculation():
    """models/designs/spring-stock.toml by hand, from ½·η·k·d² = ½·(m_bale + m_plunger)·v²:

    η·k = 0.45 × 200 N/m = 90 N/m; m = 1.5 g + 3.0 g = 0.0045 kg;
    v = d·√(η·k/m) = 0.014 m × √(90 / 0.0045) s⁻¹ = 0.014 × 141.42 = 1.980 m/s = 1980 mm/s.
    Spread: sd_v = v·sd_d/d = 1980 × 0.2 / 14 = 28.3 mm/s.
    """
    launcher = load_design("spring-stock").launcher
    assert launcher.has_spring
    assert launcher.muzzle_speed_mm_s == pytest.approx(1980.0, rel=0.01)
    assert launcher.speed_sd_mm_s == pytest.approx(28.3, rel=0.01)


def test_the_speed_spread_is_exact_because_speed_is_proportional_to_draw():
    design = design_from_dict({"launcher": SPRING})
    one_sd_longer = dataclasses.replace(design.launcher, draw_mm=14.2)
    faster, _ = spring_speed_mm_s(one_sd_longer, design.bale.mass_g)
    assert faster - design.launcher.muzzle_speed_mm_s == pytest.approx(
        design.launcher.speed_sd_mm_s, rel=1e-12
    )


def test_the_speed_follows_the_spring_and_the_bale_in_every_derived_design():
    design = load_design("spring-stock")
    heavier = dataclasses.replace(design, bale=Bale(mass_g=6.0))  # 4.5 g -> 9 g moving
    assert heavier.launcher.muzzle_speed_mm_s == pytest.approx(
        design.launcher.muzzle_speed_mm_s / math.sqrt(2)
    )
    doubled_rate = with_value(design, "launcher.spring_rate_n_m", 400.0)
    assert doubled_rate.launcher.muzzle_speed_mm_s == pytest.approx(
        design.launcher.muzzle_speed_mm_s * math.sqrt(2)
    )


def test_spring_fields_can_be_swept():
    field, values = parse_sweep("spring_rate=100:400:4")
    assert field == "launcher.spring_rate_n_m"
    speeds = [
        with_value(load_design("spring-stock"), field, v).launcher.muzzle_speed_mm_s for v in values
    ]
    assert speeds == sorted(speeds) and speeds[3] == pytest.approx(2 * speeds[0])
    assert parse_sweep("draw_mm=10:16:4")[0] == "launcher.draw_mm"
    assert parse_sweep("efficiency=0.3:0.6:4")[0] == "launcher.efficiency"


def test_a_spring_design_round_trips_through_its_toml():
    design = load_design("spring-stock")
    text = design_toml(design)
    assert "muzzle_speed_mm_s" not in text and "spring_rate_n_m = 200.0" in text
    assert design_from_dict(tomllib.loads(text), source="again") == design


def test_speed_designs_are_unchanged():
    stock = load_design("stock")
    assert not stock.launcher.has_spring
    assert list(stock.to_dict()["launcher"]) == [
        "muzzle_speed_mm_s",
        "speed_sd_mm_s",
        "pivot_height_mm",
        "barrel_length_mm",
        "pitch_min_deg",
        "pitch_max_deg",
        "yaw_sd_deg",
        "pitch_sd_deg",
    ]
    assert stock.file_dict() == stock.to_dict()
    assert design_from_dict(
        {"launcher": {"muzzle_speed_mm_s": 1500.0}}
    ).launcher == dataclasses.replace(Design().launcher, muzzle_speed_mm_s=1500.0)


@pytest.mark.parametrize(
    ("launcher", "message"),
    [
        (
            {**SPRING, "muzzle_speed_mm_s": 2000.0},
            "as a speed .* or as a spring .*, not both: it has 'launcher.muzzle_speed_mm_s'",
        ),
        ({**SPRING, "speed_sd_mm_s": 30.0}, "not both"),
        (
            {k: v for k, v in SPRING.items() if k != "draw_mm"},
            "a spring launcher needs all of .*'launcher.draw_mm' is missing",
        ),
        ({**SPRING, "efficiency": 1.5}, r"'launcher.efficiency' = 1.5 is out of range \[0.01, 1\]"),
        (
            {**SPRING, "spring_rate_n_m": 1.0, "efficiency": 0.01},
            r"the spring gives 'muzzle_speed_mm_s' = 20.87, out of range \[100, 20000\]",
        ),
    ],
)
def test_bad_spring_launchers_get_one_line(launcher, message):
    with pytest.raises(InputError, match=message):
        design_from_dict({"launcher": launcher}, source="s.toml")


def test_the_physics_fires_at_the_derived_speed():
    from models.board import load_board
    from sim.physics.bullet.world import BulletWorld

    design = load_design("spring-stock")
    with BulletWorld(load_board("stock"), design) as world:
        shot = world.shoot(AimedShot(0.0, 10.0, noise=False))
    assert shot.speed_mm_s == pytest.approx(design.launcher.muzzle_speed_mm_s)
