"""A design's own meshes in the physics: an own piggy stands still on every space,
the judge reads its real parts, an own bale flies as the closed form says, and a
design without meshes is built as before."""

from __future__ import annotations

import re

import numpy as np
import pytest
import trimesh

from models.design import load_design
from models.errors import InputError
from models.layout import Layout
from sim.physics.bullet import pb
from sim.physics.bullet.scene import Scene
from sim.physics.bullet.validation import default_pitches, range_table
from sim.physics.bullet.world import BulletWorld
from sim.physics.geometry import PiggyModel
from sim.physics.launch import AimedShot

PIGGY_NAMES = [f"{c}-{i}" for c in ("green", "gold", "pink", "blue") for i in (1, 2, 3)]


def table_piggy(width_mm: float = 34.0, length_mm: float = 40.0) -> trimesh.Trimesh:
    """A piggy like a low table: a body on four legs, one closed shell each (not convex:
    a bale can pass under it between its legs)."""
    body = trimesh.creation.box(extents=(width_mm, length_mm, 12.0))
    body.apply_translation([0, 0, 14.0])
    legs = []
    for sx in (-1, 1):
        for sy in (-1, 1):
            leg = trimesh.creation.box(extents=(5.0, 5.0, 8.0))
            leg.apply_translation([sx * (width_mm / 2 - 2.5), sy * (length_mm / 2 - 2.5), 4.0])
            legs.append(leg)
    shell = trimesh.util.concatenate([body, *legs])
    assert isinstance(shell, trimesh.Trimesh)
    return shell


def _own_design(tmp_path, section: str, mesh: trimesh.Trimesh, extra: str = "") -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    mesh.export(tmp_path / f"{section}.stl")
    path = tmp_path / f"own-{section}.toml"
    path.write_text(f'name = "own-{section}"\n[{section}]\nmesh = "{section}.stl"\n{extra}\n')
    return str(path)


@pytest.fixture(scope="module")
def table_design(tmp_path_factory):
    return load_design(_own_design(tmp_path_factory.mktemp("table"), "piggy", table_piggy()))


@pytest.mark.slow
def test_the_own_piggy_is_its_mesh_parts_with_its_hollow_under_it(table_design):
    model = PiggyModel.for_design(table_design)
    assert 5 <= len(model.parts_mm) <= 16
    # its centre of mass lies in its body, above the hollow between its legs
    assert model.com_mm[2] == pytest.approx(
        (34 * 40 * 12 * 14 + 4 * 5 * 5 * 8 * 4) / (34 * 40 * 12 + 4 * 5 * 5 * 8), rel=1e-6
    )
    assert model.mass["height_mm"] == pytest.approx(20.0)


@pytest.mark.slow
@pytest.mark.parametrize("which", ["table-like piggy", "the wide-piggy example"])
def test_an_own_piggy_stands_still_on_every_space_for_two_seconds(board, table_design, which):
    design = table_design if which == "table-like piggy" else load_design("wide-piggy")
    spaces = sorted(board.spaces)
    with Scene(board, design) as scene:
        for start in range(0, len(spaces), len(PIGGY_NAMES)):
            chunk = spaces[start : start + len(PIGGY_NAMES)]
            stacks = {s: (n,) for s, n in zip(chunk, PIGGY_NAMES, strict=False)}
            scene.set_layout(Layout(board=board, stacks=stacks))
            before = {n: scene.position_mm(b) for n, b in scene.piggy_bodies.items()}
            for _ in range(int(2.0 / scene.dt)):
                scene.call(pb.stepSimulation)
            moved = {
                n: float(np.linalg.norm(scene.position_mm(b) - before[n]))
                for n, b in scene.piggy_bodies.items()
            }
            assert max(moved.values()) < 0.1, moved


def _clearance_mm(board, design) -> float:
    with BulletWorld(board, design) as world:
        world.set_layout(Layout(board=board, stacks={(8, 3): ("pink-1",)}))
        # straight at the trough, far to the side of r8c3: the piggy is not touched
        result = world.shoot(AimedShot(60.0, 10.0, seed=0, noise=False))
    piggy = result.piggies["pink-1"]
    assert not piggy.knocked
    match = re.search(r"([0-9.]+) mm clear of the outline", piggy.reason)
    assert match, piggy.reason
    return float(match.group(1))


@pytest.mark.slow
def test_the_judge_measures_the_own_piggy_parts(tmp_path, board):
    narrow = load_design(_own_design(tmp_path / "a", "piggy", table_piggy(30, 30)))
    long = load_design(_own_design(tmp_path / "b", "piggy", table_piggy(30, 44)))
    # 14 mm longer: 7 mm nearer the outline ahead and behind
    assert _clearance_mm(board, narrow) - _clearance_mm(board, long) == pytest.approx(7, abs=0.2)


def test_an_own_piggy_too_big_for_the_board_space_is_refused(tmp_path, board):
    design = load_design(_own_design(tmp_path, "piggy", table_piggy(34, 56)))
    with pytest.raises(InputError, match="does not fit a board space of 55 mm"):
        Scene(board, design)


def test_a_round_bale_flies_the_closed_form_range(tmp_path, board):
    """A cylinder along the barrel: its section in the plane of the shot is the
    block's, so the stock bale's range check applies unchanged (drag off)."""
    round_bale = trimesh.creation.cylinder(radius=3.5, height=11.0, sections=32)
    round_bale.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0]))
    design = load_design(_own_design(tmp_path, "bale", round_bale))
    assert (design.bale.length_mm, design.bale.height_mm) == pytest.approx((11.0, 7.0))
    rows = range_table(board, design, default_pitches(design, 6))
    for row in rows:
        assert row.passes, f"pitch {row.pitch_deg:.1f}: error {row.error_mm:.2f} mm"


def test_the_round_bale_example_flies_the_closed_form_range_as_the_stock_bale(board):
    """models/designs/round-bale.toml: its axis across the barrel, so its section in
    the plane of the shot is a disc, which the block's lowest point bounds."""
    design = load_design("round-bale")
    rows = range_table(board, design, default_pitches(design, 8))
    for row in rows:
        assert row.passes, f"pitch {row.pitch_deg:.1f}: error {row.error_mm:.2f} mm"
    assert all(abs(r.relative_error) < 0.01 for r in rows if r.closed_form_mm > 300)


def test_the_round_bale_turns_with_a_cylinder_inertia(board):
    """Its inertia is its mesh's as a solid (a 16-sided prism: within 3 % of the
    cylinder's), not Bullet's from its bounding box."""
    design = load_design("round-bale")
    mass, radius, length = design.bale.mass_g, 4.0, 9.0
    along_axis = mass * radius**2 / 2  # g mm², about x
    across = mass * (3 * radius**2 + length**2) / 12
    with Scene(board, design) as scene:
        inertia_g_cm2 = scene.call(pb.getDynamicsInfo, scene.bale, -1)[2]
    inertia = np.array(inertia_g_cm2) * 100  # g mm²
    assert inertia == pytest.approx([along_axis, across, across], rel=0.03)


def test_an_own_tractor_is_what_the_bale_hits(tmp_path, board):
    """A tall wall in front of the barrel instead of the tractor: every flat shot
    stops against it."""
    wall = trimesh.creation.box(extents=(200.0, 10.0, 150.0))
    wall.apply_translation([0.0, 70.0, 75.0])
    design = load_design(_own_design(tmp_path, "tractor", wall))
    with BulletWorld(board, design) as world:
        own = world.shoot(AimedShot(0.0, 0.0, seed=0, noise=False))
    with BulletWorld(board, load_design("stock")) as world:
        stock = world.shoot(AimedShot(0.0, 0.0, seed=0, noise=False))
    assert own.first_contact_with == "tractor" and own.first_contact_mm[1] < 66.0
    assert stock.first_contact_with != "tractor" and stock.first_contact_mm[1] > 100.0


def test_an_own_piggy_is_aimed_at_its_centre_of_mass(tmp_path, board):
    """A cone 30 mm tall stands with its centre of mass a quarter of the way up; the
    mean of its hull's vertices (its base ring's and its tip) would be near the
    board, and would move with how finely the cone is made."""
    cone = trimesh.creation.cone(radius=12.0, height=30.0, sections=64)
    design = load_design(_own_design(tmp_path, "piggy", cone))
    with BulletWorld(board, design, Layout(board=board, stacks={(5, 0): ("gold-1",)})) as world:
        centre = world.piggy_centre_mm("gold-1")
    x, y = board.space_center_mm((5, 0))
    assert centre == pytest.approx([x, y, 30.0 / 4], abs=0.05)
