"""The MuJoCo engine beside Bullet's: the same toy built in both (read back from each
engine, so a builder that drifts fails here), the same shot's record, seeded, its
free flights stepped in one call without changing a byte, its materials matched
against closed forms, and the engine chosen on the command line."""

import json
import math
import sys

import numpy as np
import pytest

from models.aimer import load_aimer
from models.board import load_board, space_name
from models.design import load_design
from models.errors import install_hint
from models.layout import layout_from_dict, load_layout
from sim.cli import main
from sim.physics import shoot
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.physics.bodies import pair_friction, pair_restitution
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.physics.registry import make_world
from sim.studies.maps import hitmap
from sim.studies.shots.space_shots import TARGET, SweepSpec

mujoco = pytest.importorskip("mujoco")

from sim.physics.mujoco.world import MujocoWorld  # noqa: E402  (needs mujoco)

M_PER_MM = 1e-3


@pytest.fixture(scope="module")
def crowded_worlds():
    board, design = load_board("stock"), load_design("stock")
    layout = load_layout("crowded", board)
    bullet, mj = BulletWorld(board, design, layout), MujocoWorld(board, design, layout)
    yield bullet, mj
    bullet.close()
    mj.close()


def bullet_statics(scene) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(name, centre mm, half its extent along the world's x, y, z mm) of each static
    box Bullet holds: a box turned by 90 degrees has its sides swapped."""
    out = []
    for body in scene.static_bodies:
        if body == scene.tractor:
            continue
        position, turn = pb.getBasePositionAndOrientation(body, physicsClientId=scene.client)
        rotation = np.array(pb.getMatrixFromQuaternion(turn)).reshape(3, 3)
        full_cm = pb.getCollisionShapeData(body, -1, physicsClientId=scene.client)[0][3]
        half_mm = np.abs(rotation) @ (np.array(full_cm) / CM_PER_MM / 2)
        out.append((scene.names[body], np.array(position) / CM_PER_MM, half_mm))
    return out


def mujoco_statics(scene) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """As :func:`bullet_statics`, from MuJoCo's geoms in the world."""
    m, data = scene.mj_model, scene.data
    return [
        (
            scene.geom_names[g],
            data.geom_xpos[g] / M_PER_MM,
            np.abs(data.geom_xmat[g].reshape(3, 3)) @ m.geom_size[g] / M_PER_MM,
        )
        for g in range(m.ngeom)
        if m.geom_bodyid[g] == 0
    ]


def mujoco_points(scene, body: int, world_frame: bool) -> np.ndarray:
    """The vertices of a body's meshes (mm): in the world, or in the body's frame."""
    m, data = scene.mj_model, scene.data
    points = []
    for g in np.flatnonzero(m.geom_bodyid == body):
        mesh = m.geom_dataid[g]
        start = m.mesh_vertadr[mesh]
        vertices = m.mesh_vert[start : start + m.mesh_vertnum[mesh]]
        if world_frame:
            rotation, offset = data.geom_xmat[g].reshape(3, 3), data.geom_xpos[g]
        else:
            rotation = np.zeros(9)
            mujoco.mju_quat2Mat(rotation, m.geom_quat[g])
            rotation, offset = rotation.reshape(3, 3), m.geom_pos[g]
        points.append(vertices @ rotation.T + offset)
    return np.vstack(points) / M_PER_MM


def test_both_engines_build_the_same_toy(crowded_worlds):
    """Read back from each engine: the board, table and fences; a piggy's mass and
    moments; the bale's hull, mass and moments; the tractor's extent; and where the
    crowded layout's piggies (a stack among them) come to rest."""
    bullet, mj = crowded_worlds
    ours, theirs = bullet_statics(bullet.scene), mujoco_statics(mj.scene)
    assert [n for n, _, _ in ours] == [n for n, _, _ in theirs]
    for (_, centre_b, half_b), (_, centre_m, half_m) in zip(ours, theirs, strict=True):
        assert centre_m == pytest.approx(centre_b, abs=1e-6)
        assert half_m == pytest.approx(half_b, abs=1e-6)

    m, scene = mj.scene.mj_model, mj.scene
    piggy = bullet.scene.make_piggy("probe", [0.0, 0.0, 50.0], [0.0, 0.0, 0.0, 1.0])
    mass_g, _, moments_g_cm2 = pb.getDynamicsInfo(piggy, -1, physicsClientId=bullet.scene.client)[
        :3
    ]
    bullet.scene.remove(piggy)
    for body in scene.piggy_bodies.values():
        assert m.body_mass[body] * 1e3 == pytest.approx(mass_g, rel=1e-9)
        assert m.body_inertia[body] * 1e7 == pytest.approx(moments_g_cm2, rel=1e-9)
        assert sum(m.geom_bodyid == body) == len(scene.model.parts_mm)

    bale_mass_g, _, bale_moments = pb.getDynamicsInfo(
        bullet.scene.bale, -1, physicsClientId=bullet.scene.client
    )[:3]
    assert m.body_mass[scene.bale] * 1e3 == pytest.approx(bale_mass_g, rel=1e-9)
    # Bullet adds its collision margin to a hull's box inertia: 1-2 % more
    assert m.body_inertia[scene.bale] * 1e7 == pytest.approx(bale_moments, rel=0.025)
    hull_cm = np.array(pb.getMeshData(bullet.scene.bale, physicsClientId=bullet.scene.client)[1])
    hull = mujoco_points(scene, scene.bale, world_frame=False)
    assert hull.min(axis=0) == pytest.approx(hull_cm.min(axis=0) / CM_PER_MM, abs=1e-3)
    assert hull.max(axis=0) == pytest.approx(hull_cm.max(axis=0) / CM_PER_MM, abs=1e-3)

    low, high = pb.getAABB(bullet.scene.tractor, physicsClientId=bullet.scene.client)
    tractor = mujoco_points(scene, scene.tractor, world_frame=True)
    margin_mm = 0.05  # Bullet's box around a static body is this much larger
    assert tractor.min(axis=0) == pytest.approx(np.array(low) / CM_PER_MM, abs=margin_mm)
    assert tractor.max(axis=0) == pytest.approx(np.array(high) / CM_PER_MM, abs=margin_mm)

    rest_b, rest_m = bullet.rest_poses_mm(), mj.rest_poses_mm()
    assert sorted(rest_b) == sorted(rest_m)
    for name, (position, quaternion) in rest_b.items():
        assert rest_m[name][0] == pytest.approx(position, abs=0.5), name
        turned = 2 * math.degrees(math.acos(min(1.0, abs(np.dot(quaternion, rest_m[name][1])))))
        assert turned < 1.0, name


def test_piggies_beside_every_fence_rest_where_bullets_do():
    """A piggy on each space a fence borders (the fences between two columns as well
    as between two rows) settles in place in both engines."""
    board, design = load_board("stock"), load_design("stock")
    spaces = sorted({space_name(s) for fence in board.fences for s in fence})
    names = [f"{colour}-{k}" for colour in ("gold", "pink", "blue", "green") for k in (1, 2, 3)]
    with BulletWorld(board, design) as bullet, MujocoWorld(board, design) as mj:
        for start in range(0, len(spaces), len(names)):
            stacks = {s: [n] for s, n in zip(spaces[start:], names, strict=False)}
            layout = layout_from_dict({"stacks": stacks}, board=board, source="test")
            bullet.set_layout(layout)
            mj.set_layout(layout)
            rest_b, rest_m = bullet.rest_poses_mm(), mj.rest_poses_mm()
            for name, (position, _) in rest_b.items():
                assert rest_m[name][0] == pytest.approx(position, abs=0.5), name


def test_a_mujoco_shot_is_a_whole_shot_result_with_bullets_keys(capsys):
    assert main(["shoot", "--at", "r2c3", "--json"]) == 0
    bullet = json.loads(capsys.readouterr().out)
    assert main(["shoot", "--at", "r2c3", "--engine", "mujoco", "--json"]) == 0
    shot = json.loads(capsys.readouterr().out)
    assert set(shot) == set(bullet) | {"engine"}
    assert shot["engine"] == "mujoco" and "engine" not in bullet
    assert set(shot["bale"]) == set(bullet["bale"])
    assert shot["settled"] is True
    # the stock shot at r2c3 comes down short, on the board, in front of its fence
    assert shot["bale"]["first_contact_with"] == bullet["bale"]["first_contact_with"] == "board"


def lone(board, space: str):
    return layout_from_dict({"stacks": {space: [TARGET]}}, board=board, source="test")


def test_the_same_seed_gives_the_same_shot_in_a_new_world_or_after_others():
    board, design = load_board("stock"), load_design("stock")
    child = load_aimer("child")
    first = MujocoWorld(board, design, lone(board, "r4c1"))
    aim = shoot.solve_aim(first, TARGET, "low")
    shot = first.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=11, aimer=child)).to_dict()
    for seed in (1, 2, 3):  # other shots between
        first.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=child))
    again = first.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=11, aimer=child)).to_dict()
    fresh = MujocoWorld(board, design, lone(board, "r4c1"))
    anew = fresh.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=11, aimer=child)).to_dict()
    assert json.dumps(shot) == json.dumps(again) == json.dumps(anew)


@pytest.mark.slow
def test_flights_stepped_in_one_call_change_no_byte_of_a_shot():
    """The bale's free flights run as one call to MuJoCo (nothing reads a step
    between); a recorded shot steps one at a time: the two give the same shot."""
    board, design = load_board("stock"), load_design("stock")
    child = load_aimer("child")
    world = MujocoWorld(board, design, bale_to_rest=False)
    compared = 0
    for space in ("r0c3", "r7c3", "r10c6"):
        world.set_layout(lone(board, space))
        aim = shoot.solve_aim(world, TARGET, "low")
        for seed in range(6):
            quick = world.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=child))
            steps = world.shoot(
                AimedShot(aim.yaw_deg, aim.pitch_deg, seed=seed, aimer=child), record_every=1
            )
            assert quick.recording is None and steps.recording is not None
            assert json.dumps(quick.to_dict()) == json.dumps(steps.to_dict())
            compared += 1
    assert compared == 18


def drop_restitution(world) -> float:
    half = world.design.bale.height_mm / 2
    drop_mm = 50.0
    result = world.launch([120.0, 0.0, half + drop_mm], [0.0, 0.0, 0.0], record_every=1)
    z = result.recording.bale_mm[:, 2] - half
    first = int(np.argmax(z < 0.5))
    return math.sqrt(max(float(np.max(z[first:])), 0.0) / drop_mm)


def slide_friction(world) -> float:
    half = world.design.bale.height_mm / 2
    start = np.array([120.0, -100.0, half + 0.05])
    result = world.launch(start, [0.0, 400.0, 0.0], record_every=1)
    distance = float(np.linalg.norm(np.array(result.rest_mm[:2]) - start[:2]))
    return 400.0**2 / (2 * GRAVITY_MM_S2 * distance)


def test_mujoco_reproduces_the_designs_restitution_and_friction():
    """A drop and a slide of the bale on the board against the design's coefficients
    (products of the two materials'): restitution within 0.03 (Bullet gives 0.21 for
    0.25), friction within 2 %."""
    board, design = load_board("stock"), load_design("stock")
    world = MujocoWorld(board, design)
    assert drop_restitution(world) == pytest.approx(
        pair_restitution(design, "bale", "surface"), abs=0.03
    )
    assert slide_friction(MujocoWorld(board, design)) == pytest.approx(
        pair_friction(design, "bale", "surface"), rel=0.02
    )


@pytest.mark.slow
def test_one_worker_or_two_give_identical_mujoco_maps(tmp_path):
    spec = SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=("r8c3", "r2c1"),
        shots=3,
        seed=7,
        engine="mujoco",
    )
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    hitmap.sweep(spec, one, "csv", workers=1, per_shot=True)
    hitmap.sweep(spec, two, "csv", workers=2, per_shot=True)
    assert one.read_bytes() == two.read_bytes()
    assert (tmp_path / "one.shots.csv").read_bytes() == (tmp_path / "two.shots.csv").read_bytes()


def test_a_design_saying_bullet_is_keyed_and_shot_as_one_saying_nothing(tmp_path):
    from models.design import design_toml

    stock = load_design("stock")
    said = tmp_path / "said.toml"
    said.write_text(design_toml(stock).replace("[physics]", '[physics]\nengine = "bullet"'))
    assert "engine" not in design_toml(stock)
    assert load_design(str(said)) == stock
    assert "engine" not in SweepSpec("stock", "stock", {}, ("r2c3",), 3).key()
    world = make_world(load_board("stock"), load_design(str(said)))
    assert isinstance(world, BulletWorld)


def test_an_unknown_engine_or_a_missing_mujoco_exits_2_with_one_line(capsys, monkeypatch):
    assert main(["shoot", "--at", "r2c3", "--engine", "havok"]) == 2
    err = capsys.readouterr().err.strip()
    assert "unknown engine havok" in err and "bullet, mujoco" in err and "\n" not in err
    monkeypatch.setitem(sys.modules, "mujoco", None)  # as if it were not installed
    assert main(["hitmap", "--spaces", "r2c3", "--shots", "2", "--engine", "mujoco"]) == 2
    err = capsys.readouterr().err.strip()
    assert install_hint("mujoco") in err and "\n" not in err
