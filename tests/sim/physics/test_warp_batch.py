"""MuJoCo Warp's batch (the gpu extra, sim/physics/warp/batch.py), on the CPU device:
the batch's model is the MuJoCo scene's, a batch of a few shots comes back whole
and judged, with its strikes, the same seeds give the same results twice, and a hit
map on the ``mujoco-warp`` engine fills every column the CPU engine's does, with P
per space agreeing within a binomial tolerance. CI does not install MuJoCo Warp:
these skip there (the missing extra's message is tested in test_warp_extra.py,
which needs nothing). No test needs a GPU."""

import csv
import json

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
from sim.physics.launch import AimedShot, launch_state
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.warp.batch import WarpBatch

pytestmark = pytest.mark.slow  # Warp's kernels compile once (~1 min), cached after
SEEDS = (11, 12)


@pytest.fixture(scope="module")
def lone():
    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict({"stacks": {"r2c3": ["gold-1"]}}, board=board, source="test")
    world = MujocoWorld(board, design, layout, bale_to_rest=False)
    aim = shoot.solve_aim(world, "gold-1", "low")
    batch = WarpBatch(world, device="cpu")
    child = load_aimer("child")
    first = batch.fire(shots(aim, child))
    return world, batch, aim, child, first


def shots(aim, aimer, vary=None) -> list[AimedShot]:
    """The batch's shots: one per seed of :data:`SEEDS`, at ``aim``."""
    return [AimedShot(aim.yaw_deg, aim.pitch_deg, seed, aimer=aimer, vary=vary) for seed in SEEDS]


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
    cpu = [world.shoot(asked) for asked in shots(aim, child)]
    for asked, shot, alone in zip(shots(aim, child), first, cpu, strict=True):
        launch = launch_state(world.design, asked)
        assert (shot.yaw_deg, shot.pitch_deg, shot.speed_mm_s) == (
            launch.yaw_deg,
            launch.pitch_deg,
            launch.speed_mm_s,
        )
        assert shot.settled
        assert 0 < shot.sim_time_s < world.design.physics.max_time_s
        assert set(shot.piggies) == {"gold-1"}
        assert shot.knocked in ([], ["gold-1"])
        # the strike log: the first strike is the CPU engine's (before float32's
        # drift has had contacts to grow on), with its point and the bale's centre
        assert shot.first_contact_with == alone.first_contact_with is not None
        np.testing.assert_allclose(shot.first_contact_mm, alone.first_contact_mm, atol=2.0)
        np.testing.assert_allclose(
            shot.first_contact_centre_mm, alone.first_contact_centre_mm, atol=2.0
        )
        assert len(shot.contacts) == len(shot.contact_points_mm) >= 1
        assert len(shot.rest_mm) == 3


def test_the_same_seeds_give_the_same_results(lone):
    _, batch, aim, child, first = lone
    again = batch.fire(shots(aim, child))
    for a, b in zip(first, again, strict=True):
        assert (a.knocked, a.sim_time_s, a.settled) == (b.knocked, b.sim_time_s, b.settled)
        assert (a.contacts, a.contact_points_mm, a.rest_mm) == (
            b.contacts,
            b.contact_points_mm,
            b.rest_mm,
        )
        pa, pb = a.piggies["gold-1"].final_pose, b.piggies["gold-1"].final_pose
        np.testing.assert_array_equal(pa.position_mm, pb.position_mm)
        np.testing.assert_array_equal(pa.rotation, pb.rotation)


def test_varied_materials_are_refused(lone):
    _, batch, aim, child, _ = lone
    with pytest.raises(InputError, match="nominal materials"):
        batch.fire(shots(aim, child, vary={"friction": 0.2}))


#: A hit map's shots a space in the agreement test (RQMC, the hit map's default).
AGREEMENT_SHOTS = 40


def _hit_map(capsys, tmp_path, engine: str) -> list[dict]:
    from tests.helpers import run

    out = tmp_path / f"{engine}.csv"
    code, _, err = run(
        capsys,
        "hitmap",
        "--spaces",
        "r0c3,r7c3,r9c2",
        "--shots",
        str(AGREEMENT_SHOTS),
        "--workers",
        "1",
        "--engine",
        engine,
        "--out",
        str(out),
    )
    assert code == 0, err
    with out.open() as f:
        return list(csv.DictReader(f))


def test_a_warp_hit_map_fills_every_column_and_agrees_by_p(capsys, tmp_path, monkeypatch):
    """``piggy hitmap --engine mujoco-warp`` (Warp's CPU device here) against
    ``--engine mujoco``, the same shots: every column the CPU map fills is filled,
    and each space's P(target), P(any) and P(no contact) agree within three standard
    errors of the difference of two independent binomial proportions of n shots,
    3 sqrt(2 p (1 - p) / n) with p their mean (the shots are paired, so this is
    generous; a batch that lost its strikes or its verdicts is far outside it)."""
    import warp

    monkeypatch.setattr(warp, "is_cuda_available", lambda: False)  # the CPU device
    cpu = _hit_map(capsys, tmp_path, "mujoco")
    gpu = _hit_map(capsys, tmp_path, "mujoco-warp")
    assert [r["space"] for r in gpu] == [r["space"] for r in cpu]
    for a, b in zip(cpu, gpu, strict=True):
        assert list(a) == list(b)
        filled = [k for k, v in a.items() if v != ""]
        assert [k for k in filled if b[k] == ""] == []
        n = int(a["shots"])
        assert int(b["shots"]) == n
        for column in ("p_target", "p_any", "p_no_contact"):
            pa, pb = float(a[column]), float(b[column])
            mean = (pa + pb) / 2
            tolerance = 3 * np.sqrt(2 * mean * (1 - mean) / n)
            assert abs(pa - pb) <= max(tolerance, 1 / n), (a["space"], column, pa, pb)
    made = json.loads((tmp_path / "mujoco-warp.csv.json").read_text())
    assert made["engine"] == "mujoco-warp" and made["warp_device"] == "cpu"
    assert made["warp_batch"].startswith("each space's shots as one batch")
