"""``--vary`` per body: each material's friction and restitution on a factor of its
own (sim/physics/materials.py), reaching both engines; the shorthands as they were."""

import numpy as np
import pytest

from models.errors import InputError
from sim.physics.bodies import pair_friction
from sim.physics.bullet import pb
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.physics.materials import NOMINAL, Materials, draw_materials, parse_vary
from sim.physics.mujoco.mjcf import Coefficients
from sim.physics.noise import Deviates, fired_with, materials_of

PER_BODY = "bale_friction=0.5,piggy_restitution=0.4,surface_friction=0.3"


def test_the_per_body_names_are_read_and_a_shorthand_with_its_own_refused():
    assert parse_vary(PER_BODY) == {
        "bale_friction": 0.5,
        "piggy_restitution": 0.4,
        "surface_friction": 0.3,
    }
    with pytest.raises(InputError, match="friction moves every body's friction together"):
        parse_vary("friction=0.2,bale_friction=0.5")
    with pytest.raises(InputError, match=r"names .*surface_restitution"):
        parse_vary("bale_mass=0.2")


def test_shorthands_draw_as_they_always_did_and_per_body_names_draw_after():
    """A shorthands-only draw is the three uniforms it always was (seeded results
    kept); per-body names draw six more after them, leaving the shorthands' alone."""
    old = parse_vary("friction=0.2,restitution=0.2,mass=0.1")
    drawn = draw_materials(old, np.random.default_rng(7))
    unit = np.random.default_rng(7).uniform(-1.0, 1.0, 3)
    assert drawn == Materials(1 + 0.2 * unit[0], 1 + 0.2 * unit[1], 1 + 0.1 * unit[2])
    assert drawn.to_dict().keys() == {"friction", "restitution", "mass"}
    both = draw_materials(old | {"bale_friction": 0.5}, np.random.default_rng(7))
    assert (both.friction, both.restitution, both.mass) == (
        drawn.friction,
        drawn.restitution,
        drawn.mass,
    )
    assert both.bale_friction != 1.0 and both.piggy_friction == 1.0
    assert "bale_friction" in both.to_dict()


def test_a_pair_takes_the_product_of_its_materials_factors():
    m = Materials(restitution=1.1, bale_friction=1.5, surface_friction=0.5, piggy_restitution=0.8)
    assert m.friction_of("bale") == 1.5 and m.friction_of("piggy") == 1.0
    assert m.pair_friction("bale", "surface") == pytest.approx(0.75)
    assert m.pair_friction("piggy", "surface") == pytest.approx(0.5)
    assert m.pair_restitution("piggy", "surface") == pytest.approx(1.1**2 * 0.8)
    assert m.pair_restitution("bale", "surface") == pytest.approx(1.1**2)


def test_mujoco_takes_each_materials_factor_in_its_pairs(design):
    """The bale's pairs and the piggies' geoms carry their own materials' factors: the
    bale's friction moves its pairs, not the piggies'."""
    m = Materials(bale_friction=1.5, surface_friction=0.8, piggy_restitution=0.5)
    c, plain = Coefficients.of(design, m), Coefficients.of(design, NOMINAL)
    assert c.bale_friction["surface"] == pytest.approx(
        pair_friction(design, "bale", "surface") * 1.5 * 0.8
    )
    assert c.bale_friction["piggy"] == pytest.approx(pair_friction(design, "bale", "piggy") * 1.5)
    assert c.piggy_friction == pytest.approx(pair_friction(design, "piggy", "surface") * 0.8)
    # no bale or surface restitution drawn: the bale's bounce on the board as designed
    assert c.bale_ratio["surface"] == plain.bale_ratio["surface"]
    assert c.bale_ratio["piggy"] != plain.bale_ratio["piggy"]
    # piggy on piggy: 0.5 * 0.5, as every body's restitution at 0.5 makes it
    assert c.piggy_ratio == pytest.approx(
        Coefficients.of(design, Materials(restitution=0.5)).piggy_ratio
    )
    assert c.piggy_ratio != plain.piggy_ratio


def test_a_shots_factors_are_read_back_from_how_it_drew_them(design):
    """What a study reads back from a row's seed or point is what the shot fired with."""
    from models.aimer import load_aimer

    vary = parse_vary(PER_BODY + ",mass=0.5")
    aimer = load_aimer("child")
    for seed in (0, 3, 11):
        fired = fired_with(
            design.launcher, 0.0, 20.0, seed=seed, noise=True, aimer=aimer, vary=vary, deviates=None
        )[3]
        assert materials_of(seed, None, vary) == fired != NOMINAL
    deviates = Deviates(0.1, -0.2, 0.3, (0.5, -0.5, 0.9, -0.1))
    fired = fired_with(
        design.launcher, 0.0, 20.0, seed=0, noise=True, aimer=aimer, vary=vary, deviates=deviates
    )[3]
    assert materials_of(0, deviates, vary) == fired
    assert fired.mass == pytest.approx(1.25) and fired.bale_friction == pytest.approx(0.75)


@pytest.mark.slow
def test_bullet_gives_each_body_its_own_materials_factor(board, design):
    """A shot varying the bale's friction alone moves the bale's friction, not the
    board's or a piggy's; the next plain shot puts the design's own back."""
    with BulletWorld(board, design) as world:
        client, bale = world.client, world.scene.bale
        board_body = world.scene.static_bodies[0]
        shot = world.shoot(AimedShot(10.0, 5.0, seed=5, vary={"bale_friction": 0.5}))
        assert shot.materials.bale_friction != 1.0

        def friction(body: int) -> float:
            return pb.getDynamicsInfo(body, -1, physicsClientId=client)[1]

        assert friction(bale) == pytest.approx(design.bale.friction * shot.materials.bale_friction)
        assert friction(board_body) == pytest.approx(design.surfaces.friction)
        surfaced = world.shoot(AimedShot(10.0, 5.0, seed=5, vary={"surface_restitution": 0.5}))
        info = pb.getDynamicsInfo(board_body, -1, physicsClientId=client)
        assert info[5] == pytest.approx(
            design.surfaces.restitution * surfaced.materials.surface_restitution
        )
        assert friction(bale) == pytest.approx(design.bale.friction)
