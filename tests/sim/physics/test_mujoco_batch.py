"""MuJoCo's shots fired as one batch (sim/physics/mujoco/batch.py): the same bytes as
shot by shot (a lone piggy in the open and by a fence, a stack among other piggies),
the same hit map, shots the sensors cannot settle fired alone with the same result,
and ``--vary`` fired shot by shot with the provenance saying so."""

import json

import numpy as np
import pytest

pytest.importorskip("mujoco")

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.layout import layout_from_dict
from sim.physics import shoot
from sim.physics.launch import AimedShot
from sim.physics.mujoco import batch_sensors
from sim.physics.mujoco.world import MujocoWorld
from sim.studies.maps import hitmap
from sim.studies.shots.space_shots import SweepSpec, engine_provenance

STACKED = {"r8c3": ["gold-2", "pink-1"], "r2c1": ["green-1"], "r9c5": ["blue-1"]}


@pytest.fixture(scope="module")
def world():
    return MujocoWorld(load_board("stock"), load_design("stock"), bale_to_rest=False)


def aimed(world, stacks: dict, target: str, shots: int) -> list[AimedShot]:
    """``shots`` child's shots at ``target`` on the layout ``stacks`` (set on the world)."""
    world.set_layout(layout_from_dict({"stacks": stacks}, board=world.board, source="test"))
    aim = shoot.solve_aim(world, target, "low")
    child = load_aimer("child")
    return [AimedShot(aim.yaw_deg, aim.pitch_deg, aimer=child, seed=s) for s in range(shots)]


def one_by_one(world, shots: list[AimedShot]) -> list[str]:
    return [
        json.dumps(world.shoot(s.yaw_deg, s.pitch_deg, seed=s.seed, aimer=s.aimer).to_dict())
        for s in shots
    ]


@pytest.mark.parametrize(
    "stacks, target",
    [
        ({"r0c3": ["gold-1"]}, "gold-1"),  # in the open
        ({"r7c3": ["gold-1"]}, "gold-1"),  # by a fence
        (STACKED, "pink-1"),  # a stack's top piggy, others about
    ],
)
def test_a_batch_fires_every_shot_as_shot_by_shot_byte_for_byte(world, stacks, target):
    shots = aimed(world, stacks, target, 8)
    batched = [json.dumps(r.to_dict()) for r in world.fire(shots)]
    assert batched == one_by_one(world, shots)
    assert any(json.loads(r)["piggies"][target]["knocked"] for r in batched)  # shots that hit


def test_shots_the_sensors_cannot_settle_are_fired_alone_with_the_same_result(world, monkeypatch):
    shots = aimed(world, {"r9c2": ["gold-1"]}, "gold-1", 4)
    read, chunks = batch_sensors.ContactSensors.read, []

    def unsure_of_the_second(self, sensordata, awake, awake_before):
        """The sensors' reading, but the second shot unsure in the first chunk."""
        contacts = read(self, sensordata, awake, awake_before)
        if not chunks:
            contacts.unsure[:] = np.arange(len(contacts.unsure)) == 1
        chunks.append(contacts)
        return contacts

    monkeypatch.setattr(batch_sensors.ContactSensors, "read", unsure_of_the_second)
    before = world.batch_refired
    batched = [json.dumps(r.to_dict()) for r in world.fire(shots)]
    assert world.batch_refired == before + 1
    assert batched == one_by_one(world, shots)


def test_a_hit_map_is_the_same_batched_or_shot_by_shot(tmp_path, monkeypatch):
    spec = SweepSpec(
        board="stock",
        design="stock",
        stacks={"r8c3": ["gold-2", "pink-1"]},
        spaces=("r8c3", "r2c1"),
        shots=5,
        seed=3,
        engine="mujoco",
    )
    batched, single = tmp_path / "batched.csv", tmp_path / "single.csv"
    hitmap.sweep(spec, batched, "csv", workers=1, per_shot=True)
    monkeypatch.setattr(MujocoWorld, "batched", False)
    hitmap.sweep(spec, single, "csv", workers=1, per_shot=True)
    assert batched.read_bytes() == single.read_bytes()
    shots = (tmp_path / "batched.shots.csv").read_bytes()
    assert shots == (tmp_path / "single.shots.csv").read_bytes()


def test_vary_is_fired_shot_by_shot_and_the_provenance_says_so(world):
    spec = SweepSpec("stock", "stock", {}, ("r2c3",), 3, engine="mujoco")
    assert "persistent mujoco.batch" in engine_provenance(spec)["mujoco_batch"]
    varied = SweepSpec("stock", "stock", {}, ("r2c3",), 3, engine="mujoco", vary={"mass": 0.1})
    assert engine_provenance(varied)["mujoco_batch"].startswith("not used: --vary")
    shots = aimed(world, {"r2c3": ["gold-1"]}, "gold-1", 2)
    fresh = MujocoWorld(world.board, world.design, world.layout, bale_to_rest=False)
    vary = {"mass": 0.1}
    fired = fresh.fire([AimedShot(s.yaw_deg, s.pitch_deg, seed=s.seed, vary=vary) for s in shots])
    assert fresh._cpu_batch is None  # never made: each shot fired alone
    alone = [fresh.shoot(s.yaw_deg, s.pitch_deg, seed=s.seed, vary=vary) for s in shots]
    assert [r.to_dict() for r in fired] == [r.to_dict() for r in alone]
