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
from sim.physics.mujoco.batch import MujocoBatch
from sim.physics.mujoco.batch_book import SensedBook
from sim.physics.mujoco.batch_sensors import ChunkContacts
from sim.physics.mujoco.world import MujocoWorld
from sim.physics.shot_log import StrikeLog
from sim.studies.maps import hitmap
from sim.studies.shots.space_shots import SweepSpec, engine_provenance

STACKED = {"r8c3": ["gold-2", "pink-1"], "r2c1": ["green-1"], "r9c5": ["blue-1"]}


@pytest.fixture(scope="module")
def world():
    world = MujocoWorld(load_board("stock"), load_design("stock"), bale_to_rest=False)
    world.batch_from = 1  # a batch of any size: these tests are about the batch
    return world


def aimed(world, stacks: dict, target: str, shots: int) -> list[AimedShot]:
    """``shots`` child's shots at ``target`` on the layout ``stacks`` (set on the world)."""
    world.set_layout(layout_from_dict({"stacks": stacks}, board=world.board, source="test"))
    aim = shoot.solve_aim(world, target, "low")
    child = load_aimer("child")
    return [AimedShot(aim.yaw_deg, aim.pitch_deg, aimer=child, seed=s) for s in range(shots)]


def one_by_one(world, shots: list[AimedShot]) -> list[str]:
    return [
        json.dumps(
            world.shoot(AimedShot(s.yaw_deg, s.pitch_deg, seed=s.seed, aimer=s.aimer)).to_dict()
        )
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


@pytest.mark.slow
def test_a_hit_map_is_the_same_batched_or_shot_by_shot(tmp_path, monkeypatch):
    spec = SweepSpec(
        board="stock",
        design="stock",
        stacks={"r8c3": ["gold-2", "pink-1"]},
        spaces=("r8c3", "r2c1"),
        shots=12,
        seed=3,
        engine="mujoco",
    )
    batched, single = tmp_path / "batched.csv", tmp_path / "single.csv"
    fired = []
    batch_fire = MujocoBatch.fire
    monkeypatch.setattr(
        MujocoBatch, "fire", lambda self, shots: fired.append(shots) or batch_fire(self, shots)
    )
    hitmap.sweep(spec, batched, "csv", workers=1, per_shot=True)
    assert len(fired) == 2  # each space's shots as one batch
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
    fresh.batch_from = 1
    vary = {"mass": 0.1}
    fired = fresh.fire([AimedShot(s.yaw_deg, s.pitch_deg, seed=s.seed, vary=vary) for s in shots])
    assert fresh._cpu_batch is None  # never made: each shot fired alone
    alone = [fresh.shoot(AimedShot(s.yaw_deg, s.pitch_deg, seed=s.seed, vary=vary)) for s in shots]
    assert [r.to_dict() for r in fired] == [r.to_dict() for r in alone]


def test_the_batchs_strike_log_keeps_the_engines_rule(world):
    """Touches fed to the batch's log chunk by chunk make the strikes a StrikeLog
    makes of them step by step: a touch 20 steps after the last (the gap) is a new
    strike, one 19 steps after is not, across chunks too."""
    world.fire(aimed(world, {"r0c3": ["gold-1"]}, "gold-1", 1))  # the batch, its sensors
    batch = world._cpu_batch
    sensors, shots, steps = batch.sensors, 3, 10
    scene, bounds = world.scene, world.layout_bounds
    book = SensedBook(scene, world.design, False, bounds, sensors, batch._batch, shots)
    things = len(sensors.keys)
    rng = np.random.default_rng(5)
    touches = rng.random((shots, 8 * steps, things)) < 0.02
    touches[0, :, 0] = False
    touches[0, [0, 20, 39, 61], 0] = True  # steps 1, 21 (new), 40 (not), 62 (new)
    once = touches & (np.cumsum(touches, axis=2) == 1)  # one thing a step: their order is known
    logs = [StrikeLog.every(world.scene.dt) for _ in range(shots)]
    for chunk in range(8):
        pushed = once[:, chunk * steps : (chunk + 1) * steps]
        contacts = ChunkContacts(
            touched=pushed,
            pushed=pushed,
            points=np.zeros((*pushed.shape, 3)),
            linked=np.zeros((shots, steps, 0), dtype=bool),
            grounded=np.zeros((shots, len(sensors.piggies)), dtype=bool),
            unsure=np.zeros(shots, dtype=bool),
        )
        xpos = np.zeros((shots, steps, sensors.model.nbody, 3))
        assert not book._log(np.arange(shots), chunk * steps, contacts, xpos).any()
    for shot, log in enumerate(logs):
        for step, thing in zip(*np.nonzero(once[shot]), strict=True):
            log.touch(sensors.keys[thing], sensors.names[thing], step + 1, list, list)
    assert [book.strikes[shot].struck for shot in range(shots)] == [log.struck for log in logs]
    assert book.strikes[0].struck[:1] == [sensors.names[0]]
    assert sum(len(log.struck) for log in logs) > 6


def test_a_sleeping_bales_stale_sensors_count_nothing_and_its_waking_is_unsure(world):
    """MuJoCo keeps a sleeping body's sensors as they were: a bale asleep at a step's
    start touches nothing in it; one woken within a step cannot be read there."""
    world.fire(aimed(world, {"r0c3": ["gold-1"]}, "gold-1", 1))
    sensors = world._cpu_batch.sensors
    bale = world.scene.bale
    data = np.zeros((2, 3, sensors.model.nsensordata))
    first = sensors.found_columns[0]
    data[..., first] = 1.0  # the same contact with the first thing, held...
    data[..., first + 1] = 5.0  # ...pushing (its normal force), in every step (stale once asleep)
    awake = np.ones((2, 3, sensors.model.nbody), dtype=int)
    awake[0, :, bale] = [1, 0, 0]  # falls asleep after step 1
    awake[1, :, bale] = [1, 1, 1]  # woken in step 1
    before = np.ones((2, sensors.model.nbody), dtype=int)
    before[1, bale] = 0
    contacts = sensors.read(data, awake, before)
    assert contacts.touched[0, :, 0].tolist() == [True, True, False]  # asleep from step 3
    assert contacts.pushed[0, :, 0].tolist() == [True, True, False]
    assert contacts.unsure.tolist() == [False, True]


def test_a_shot_mujoco_warned_about_is_fired_alone_and_the_others_go_on(
    world, monkeypatch, tmp_path
):
    """A shot whose warnings rose in the batch (an instability: the world refuses such
    a shot) is fired alone, as shot by shot; the others keep their batch results."""
    import mujoco.batch

    # MuJoCo writes each warning to MUJOCO_LOG.TXT in the working folder: here, not
    # in the checkout, should the shot fired alone warn too
    monkeypatch.chdir(tmp_path)

    shots = aimed(world, {"r10c6": ["gold-1"]}, "gold-1", 3)
    rollout = mujoco.batch.Batch.rollout

    def warn_the_third(self, *args, **kwargs):
        records = rollout(self, *args, **kwargs)
        self.warning[2, 0, 0] += 1  # as MuJoCo counts a bad acceleration
        return records

    monkeypatch.setattr(mujoco.batch.Batch, "rollout", warn_the_third)
    before = world.batch_refired
    batched = [json.dumps(r.to_dict()) for r in world.fire(shots)]
    assert world.batch_refired == before + 1
    assert batched == one_by_one(world, shots)


def test_a_smaller_look_after_a_larger_one_fires_the_same(world):
    """The batch made for a look of 8 serves a look of 5 on the same layout."""
    shots = aimed(world, {"r10c6": ["gold-1"]}, "gold-1", 8)
    world.fire(shots)
    fewer = [json.dumps(r.to_dict()) for r in world.fire(shots[3:])]
    assert fewer == one_by_one(world, shots[3:])


def test_a_things_slots_hold_its_first_pushing_contact_or_the_step_is_unsure(world):
    """The board's sensor holds its first 4 contacts, a piggy's its first 8: the bale
    pushing a piggy in its fifth contact is read (its point too); the board touched at
    5 points, none of the first 4 pushing, leaves the step unsure."""
    world.fire(aimed(world, {"r0c3": ["gold-1"]}, "gold-1", 1))
    sensors = world._cpu_batch.sensors
    board, piggy = sensors.names.index("board"), int(sensors.piggies[0])
    assert sensors.slots[board] == batch_sensors.SLOTS == 4
    assert sensors.slots[piggy] == batch_sensors.PIGGY_SLOTS == 8
    data = np.zeros((2, 1, sensors.model.nsensordata))
    at = sensors.found_columns
    data[0, 0, at[piggy]] = 5  # five contacts with the piggy, the fifth pushing
    data[0, 0, at[piggy] + 4 * 7 + 1] = 2.0
    data[0, 0, at[piggy] + 4 * 7 + 4 : at[piggy] + 4 * 7 + 7] = [0.1, 0.2, 0.3]
    data[1, 0, at[board]] = 5  # five with the board, none of the first four pushing
    awake = np.ones((2, 1, sensors.model.nbody), dtype=int)
    contacts = sensors.read(data, awake, awake[:, 0])
    assert contacts.pushed[0, 0, piggy] and contacts.points[0, 0, piggy].tolist() == [0.1, 0.2, 0.3]
    assert contacts.touched[1, 0, board] and not contacts.pushed[1, 0, board]
    assert contacts.unsure.tolist() == [False, True]
