"""The engine seam: the engine-neutral core (launch, strike log, rest clock,
recorder, judge) written once, the registry of engines, and each engine running
without the other's library (docs/architecture.md, "The engine seam")."""

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from models.design import ENGINES, load_design
from models.errors import InputError
from sim.physics.bullet import pb
from sim.physics.engine import FiringEngine
from sim.physics.launch import AimedShot, euler_turn, launch_from, launch_state
from sim.physics.materials import NOMINAL
from sim.physics.registry import REGISTRY, check_engine, installed
from sim.physics.shot_log import Recorder, RestClock, StrikeLog

ROOT = Path(__file__).resolve().parents[3]


def test_the_registry_holds_every_engine_a_design_may_name():
    assert tuple(REGISTRY) == ENGINES
    for name, engine in REGISTRY.items():
        if not installed(name):
            continue
        module, cls = engine.world.split(":")
        world = getattr(__import__(module, fromlist=[cls]), cls)
        assert issubclass(world, FiringEngine)


def test_euler_turn_is_bullets_quaternion_to_rounding():
    """MuJoCo turns the bale with euler_turn, Bullet with its own quaternion (kept
    for its bytes): the two are the same turn."""
    for yaw, pitch in [(0.0, 0.0), (-35.0, 20.0), (170.0, -5.0), (12.5, 45.0), (-90, 89)]:
        bullet = pb.getQuaternionFromEuler([math.radians(pitch), 0, math.radians(yaw)])
        assert euler_turn(yaw, pitch) == pytest.approx(list(bullet), abs=1e-14)


def test_a_launch_from_a_velocity_has_its_heading_and_climb():
    launch = launch_from([1, 2, 3], [-100.0, 100.0, 100.0 * math.sqrt(2)], (0, 0, 0, 1), NOMINAL)
    assert launch.yaw_deg == pytest.approx(45.0)  # toward -x is positive
    assert launch.pitch_deg == pytest.approx(45.0)
    assert launch.speed_mm_s == pytest.approx(200.0)
    assert launch.release_mm == [1.0, 2.0, 3.0]


def test_a_seeded_launch_is_the_same_whoever_turns_the_bale():
    design = load_design("stock")
    mine = launch_state(design, AimedShot(10.0, 30.0, seed=4))
    bullets = launch_state(
        design,
        AimedShot(10.0, 30.0, seed=4),
        lambda y, p: list(pb.getQuaternionFromEuler([math.radians(p), 0, math.radians(y)])),
    )
    assert (mine.yaw_deg, mine.pitch_deg, mine.speed_mm_s) == (
        bullets.yaw_deg,
        bullets.pitch_deg,
        bullets.speed_mm_s,
    )
    assert mine.yaw_deg != 10.0  # the noise was drawn
    assert mine.orientation == pytest.approx(bullets.orientation, abs=1e-14)


def test_the_rest_clock_needs_the_rest_time_without_a_move():
    design = load_design("stock")  # rest_time_s over dt, counted every 10 steps
    clock = RestClock(design, 0.001, 10)
    checks = math.ceil(round(design.physics.rest_time_s / 0.001) / 10)
    for _ in range(checks - 1):
        assert not clock.settled(False)
    assert not clock.settled(True)  # a move starts the count anew
    for _ in range(checks - 1):
        assert not clock.settled(False)
    assert clock.settled(False)


def test_strikes_of_one_thing_closer_than_the_gap_are_one():
    log = StrikeLog.every(0.001)  # 20 steps
    centre = [0.0, 0.0, 0.0]
    for step in (1, 2, 15, 34):  # a rattle: each within 20 steps of the last
        log.touch("board", "board", step, lambda: [1.0, 2.0, 3.0], lambda: centre)
    log.touch(7, "gold-1", 40, lambda: [4.0, 5.0, 6.0], lambda: [9.0, 9.0, 9.0])
    log.touch("board", "board", 60, lambda: [7.0, 8.0, 9.0], lambda: centre)
    assert log.struck == ["board", "gold-1", "board"]
    assert log.points_mm[1] == [4.0, 5.0, 6.0]
    assert log.first_centre_mm == centre


def test_the_recorder_keeps_the_shots_end_and_speaks_mm():
    positions = iter(np.arange(0.0, 100.0))

    def poses():
        x = next(positions)
        return [([x, 0.0, 0.0], [0.0, 0.0, 0.0, 1.0]), ([0.0, x, 0.0], [0.0, 0.0, 0.0, 1.0])]

    frames = Recorder(4, 0.002, ["gold-1"], poses, 0.1)  # an engine in cm
    frames.take(True)
    for step in range(1, 10):
        frames.stepped(step, True)
    frames.finish(9, False)
    recording = frames.recording()
    assert recording.frames == 4  # steps 0, 4, 8 and the end at 9
    assert recording.dt_s == pytest.approx(0.008)
    assert recording.bale_mm[:, 0] == pytest.approx([0.0, 10.0, 20.0, 30.0])
    assert list(recording.bale_in_play) == [True, True, True, False]
    assert recording.piggies_mm["gold-1"][:, 1] == pytest.approx([0.0, 10.0, 20.0, 30.0])


def test_an_engine_not_installed_is_one_line_naming_its_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "mujoco", None)
    with pytest.raises(InputError, match=r"mujoco engine needs MuJoCo, an optional extra"):
        check_engine("mujoco")
    monkeypatch.delitem(sys.modules, "sim.physics.bullet", raising=False)
    monkeypatch.setitem(sys.modules, "pybullet", None)
    with pytest.raises(InputError, match=r"bullet engine needs PyBullet, a dependency"):
        check_engine("bullet")


def without(module: str, tmp_path: Path) -> dict[str, str]:
    """An environment where ``import module`` raises ImportError in every process
    (the command's worker processes too): a module of that name that refuses."""
    blocker = tmp_path / "blocked"
    blocker.mkdir(exist_ok=True)
    (blocker / f"{module}.py").write_text(f"raise ImportError('{module} blocked by the test')\n")
    path = os.pathsep.join([str(blocker), str(ROOT), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path}


def piggy(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sim.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=600,
    )


@pytest.mark.slow
def test_a_mujoco_shot_and_hit_map_run_without_pybullet(tmp_path):
    pytest.importorskip("mujoco")
    env = without("pybullet", tmp_path)
    shot = piggy(["shoot", "--at", "r2c3", "--engine", "mujoco", "--json"], env)
    assert shot.returncode == 0, shot.stderr
    assert json.loads(shot.stdout)["engine"] == "mujoco"
    out = tmp_path / "map.csv"
    args = ["--spaces", "r7c3", "--shots", "6", "--seed", "2", "--engine", "mujoco"]
    mapped = piggy(["hitmap", *args, "--workers", "2", "--out", str(out)], env)
    assert mapped.returncode == 0, mapped.stderr
    assert out.read_text().count("\n") == 2  # the header and the space
    # and the same command on Bullet is refused on one line, before any work
    refused = piggy(["hitmap", *args[:-2], "--out", str(tmp_path / "b.csv")], env)
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0
    assert "bullet engine needs PyBullet" in refused.stderr
    assert not (tmp_path / "b.csv").exists()


@pytest.mark.slow
def test_a_bullet_shot_runs_without_mujoco(tmp_path):
    shot = piggy(["shoot", "--at", "r2c3", "--json"], without("mujoco", tmp_path))
    assert shot.returncode == 0, shot.stderr
    assert "engine" not in json.loads(shot.stdout)


def test_a_batchs_rest_clocks_count_each_shot_on_its_own():
    design = load_design("stock")
    clocks = RestClock(design, 0.001, 10, shots=3)
    checks = math.ceil(round(design.physics.rest_time_s / 0.001) / 10)
    moving = np.array([False, True, False])
    for _ in range(checks - 1):
        assert not clocks.settled_each(moving).any()
    assert list(clocks.settled_each(moving)) == [True, False, True]
    # a check cut short at the time cap counts only the steps it came after
    short = RestClock(design, 0.001, 10, shots=1)
    for _ in range(checks - 1):
        short.settled_each(np.array([False]))
    assert not short.settled_each(np.array([False]), steps=1).any()
