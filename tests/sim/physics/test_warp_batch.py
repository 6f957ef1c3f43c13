"""MuJoCo Warp's batch (the gpu extra, sim/physics/mujoco/warp_batch.py), on the CPU device:
the batch's model is the MuJoCo scene's, a batch of a few shots comes back whole
and judged, and the same seeds give the same results twice. CI does not install
MuJoCo Warp: these skip there (the missing extra's message is tested in
test_warp_extra.py, which needs nothing). No test needs a GPU."""

import numpy as np
import pytest

pytest.importorskip("mujoco")
pytest.importorskip("mujoco_warp")

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.errors import InputError
from models.layout import layout_from_dict
from sim.physics import shoot
from sim.physics.launch import launch_state
from sim.physics.mujoco.warp_batch import WarpBatch
from sim.physics.mujoco.world import MujocoWorld

pytestmark = pytest.mark.slow  # Warp's kernels compile once (~1 min), cached after
SEEDS = [{"seed": 11}, {"seed": 12}]


@pytest.fixture(scope="module")
def lone():
    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict({"stacks": {"r2c3": ["gold-1"]}}, board=board, source="test")
    world = MujocoWorld(board, design, layout, bale_to_rest=False)
    aim = shoot.solve_aim(world, "gold-1", "low")
    batch = WarpBatch(world, device="cpu")
    child = load_aimer("child")
    first = batch.shoot(aim.yaw_deg, aim.pitch_deg, SEEDS, aimer=child)
    return world, batch, aim, child, first


def test_the_batch_model_is_the_mujoco_scenes(lone):
    world, batch, *_ = lone
    source, model = world.scene.mj_model, batch.mj_model
    for field in ("ngeom", "nbody", "nmesh", "npair", "nq", "nv", "nmocap"):
        assert getattr(model, field) == getattr(source, field), field
    for field in (
        "body_mass",
        "body_inertia",
        "geom_type",
        "geom_bodyid",
        "geom_friction",
        "geom_solref",
        "mesh_vert",
        "pair_geom1",
        "pair_geom2",
        "pair_friction",
        "pair_solref",
    ):
        np.testing.assert_array_equal(getattr(model, field), getattr(source, field), field)
    assert model.opt.timestep == source.opt.timestep and model.opt.cone == source.opt.cone
    warp_model = batch._model()
    np.testing.assert_allclose(
        warp_model.body_mass.numpy().reshape(-1), source.body_mass, rtol=1e-6
    )
    assert warp_model.ngeom == source.ngeom


def test_a_batch_comes_back_whole_and_judged(lone):
    world, _, aim, child, first = lone
    assert len(first) == len(SEEDS)
    for noise, shot in zip(SEEDS, first, strict=True):
        launch = launch_state(world.design, aim.yaw_deg, aim.pitch_deg, aimer=child, **noise)
        assert (shot.yaw_deg, shot.pitch_deg, shot.speed_mm_s) == (
            launch.yaw_deg,
            launch.pitch_deg,
            launch.speed_mm_s,
        )
        assert shot.stable and shot.settled
        assert 0 < shot.sim_time_s < world.design.physics.max_time_s
        assert set(shot.piggies) == {"gold-1"}
        assert shot.knocked in ([], ["gold-1"])


def test_the_same_seeds_give_the_same_results(lone):
    _, batch, aim, child, first = lone
    again = batch.shoot(aim.yaw_deg, aim.pitch_deg, SEEDS, aimer=child)
    for a, b in zip(first, again, strict=True):
        assert (a.knocked, a.sim_time_s, a.settled) == (b.knocked, b.sim_time_s, b.settled)
        pa, pb = a.piggies["gold-1"].final_pose, b.piggies["gold-1"].final_pose
        np.testing.assert_array_equal(pa.position_mm, pb.position_mm)
        np.testing.assert_array_equal(pa.rotation, pb.rotation)


def test_varied_materials_are_refused(lone):
    _, batch, aim, child, _ = lone
    with pytest.raises(InputError, match="nominal materials"):
        batch.shoot(aim.yaw_deg, aim.pitch_deg, SEEDS, aimer=child, vary={"friction": 0.2})
