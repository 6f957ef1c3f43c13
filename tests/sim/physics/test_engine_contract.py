"""The engine contract: what every engine of the registry (sim/physics/registry.py)
must do, written once and run on each, as Gymnasium's ``check_env`` is for an
environment. An engine builds a world from the stock design, fires a seeded shot
(the same shot again from the same seed), fills every field of a shot result and
every column of a hit map (a tiny one), says what made the map through the registry,
and refuses what it cannot do on one line. A third engine needs a folder, a registry
line and this file passing (docs/architecture.md, "A third engine"); an engine not
installed here is skipped (mujoco-warp without the gpu extra)."""

import math
import sys

import pytest

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.errors import InputError, install_hint
from models.layout import layout_from_dict
from sim.physics import shoot
from sim.physics.launch import AimedShot
from sim.physics.registry import REGISTRY, installed, make_world, resolve
from sim.studies.shots.records import ShotRow, SpaceSummary
from sim.studies.shots.space_firing import run_space, summarise
from sim.studies.shots.space_shots import SweepSpec, engine_provenance

ENGINES = [
    pytest.param(name, marks=pytest.mark.skipif(not installed(name), reason=f"{name}: absent"))
    for name in REGISTRY
]
#: A target standing alone, and a stack beside its path: a shot has piggies to judge.
STACKS = {"r2c3": ["gold-1"], "r4c1": ["blue-1", "blue-2"]}
#: What a shot's JSON holds (docs/formats.md, "Shot JSON"), with ``--vary``'s materials.
SHOT_KEYS = {"knocked", "hit_rule", "piggies", "bale", "sim_time_s", "settled", "materials"}
BALE_KEYS = {
    "yaw_deg",
    "pitch_deg",
    "speed_mm_s",
    "release_mm",
    "first_contact_mm",
    "first_contact_with",
    "first_contact_centre_mm",
    "rest_mm",
    "contacts",
    "contact_points_mm",
}
PIGGY_KEYS = {"space", "level", "moved_mm", "knocked", "reason", "final_position_mm", "tilt_deg"}


@pytest.fixture(scope="module", params=ENGINES)
def engine(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def world(engine):
    board = load_board("stock")
    layout = layout_from_dict({"stacks": STACKS}, board=board, source="the contract's layout")
    with make_world(board, resolve(load_design("stock"), engine), layout) as built:
        yield built


@pytest.fixture(scope="module")
def aimed(world) -> AimedShot:
    """A child's seeded shot at the lone target, the physics varied."""
    aim = shoot.solve_aim(world, "gold-1", "low")
    child = load_aimer("child")
    return AimedShot(aim.yaw_deg, aim.pitch_deg, 3, aimer=child, vary={"friction": 0.2})


def test_an_engine_builds_a_world_of_the_stock_design(world, engine):
    assert world.engine == engine == world.design.physics.engine
    assert (world.board.name, world.design.name) == ("stock", "stock")
    assert set(world.rest_poses_mm()) == {p for stack in STACKS.values() for p in stack}
    assert all(math.isfinite(v) for v in world.piggy_centre_mm("gold-1"))


def test_a_seeded_shot_is_the_same_shot_again(world, aimed):
    first = world.shoot(aimed).to_dict()
    other = world.shoot(AimedShot(aimed.yaw_deg, aimed.pitch_deg, 4, aimer=aimed.aimer))
    assert other.speed_mm_s != first["bale"]["speed_mm_s"]  # another seed, another draw
    assert world.shoot(aimed).to_dict() == first


def test_a_shot_fills_every_field_of_its_result(world, aimed):
    result = world.shoot(aimed, record_every=4)
    shot = result.to_dict()
    assert set(shot) == SHOT_KEYS
    assert set(shot["bale"]) == BALE_KEYS
    assert all(value is not None for value in shot["bale"].values()), shot["bale"]
    assert shot["bale"]["contacts"] and len(result.contacts) == len(result.contact_points_mm)
    assert set(shot["piggies"]) == set(world.rest_poses_mm())
    for piggy in shot["piggies"].values():
        assert set(piggy) == PIGGY_KEYS and None not in piggy.values()
    assert shot["settled"] and 0 < shot["sim_time_s"] < world.design.physics.max_time_s
    assert shot["materials"]["friction"] != 1.0  # vary's factor drawn
    recording = result.recording
    assert recording is not None and recording.frames > 1
    assert set(recording.piggies_mm) == set(shot["piggies"])


def test_a_tiny_hit_map_fills_every_column(engine):
    spec = SweepSpec("stock", "stock", {}, ("r2c3",), 3, seed=1, sampler="mc", engine=engine)
    part = run_space(spec, "r2c3")
    assert len(part.shots) == 3
    for row in part.shots:
        assert ShotRow.read(row.to_dict(), rqmc=False) == row  # every column, its kind
    summary = summarise(part, load_board("stock"))
    assert SpaceSummary.read(summary.to_dict()) == summary
    assert summary.reachable and summary.shots == 3
    # what made it, in the registry's words: nothing for Bullet, else the engine named
    assert engine_provenance(spec).get("engine", "bullet") == engine


def test_what_an_engine_cannot_do_is_refused_on_one_line(world, engine, monkeypatch):
    steep = world.design.launcher.pitch_max_deg + 5
    with pytest.raises(InputError) as told:
        shoot.fire(world, AimedShot(0.0, steep, 1))
    assert "out of range" in str(told.value) and "\n" not in str(told.value)
    listed = REGISTRY[engine]
    monkeypatch.setitem(sys.modules, listed.needs, None)  # as if it were not installed
    with pytest.raises(InputError) as told:
        resolve(load_design("stock"), engine)
    said = str(told.value)
    assert listed.called in said and "\n" not in said
    assert install_hint(listed.extra) in said if listed.extra else "pip install -e ." in said
