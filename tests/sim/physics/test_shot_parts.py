"""The parts a shot runs through, each on its own in a bare scene: drag, contact log,
recorder, leaving play, rest detector."""

import dataclasses

import numpy as np
import pytest

from sim.physics.ballistics import drag_constant_per_mm
from sim.physics.bullet import CM_PER_MM, pb
from sim.physics.bullet.scene import REST_CHECK_EVERY, Scene, parking_cm
from sim.physics.bullet.shot_parts import ContactLog, Drag, OutOfPlay, RestDetector, recorder


@pytest.fixture
def scene(board, design):
    with Scene(board, design) as bare:  # the empty board: nothing to settle
        yield bare


def place(scene, position_mm, velocity_mm_s=(0.0, 0.0, 0.0)):
    scene.call(
        pb.resetBasePositionAndOrientation,
        scene.bale,
        [c * CM_PER_MM for c in position_mm],
        [0, 0, 0, 1],
    )
    scene.call(pb.resetBaseVelocity, scene.bale, [v * CM_PER_MM for v in velocity_mm_s], [0] * 3)


def velocity_mm_s(scene):
    v, _ = scene.call(pb.getBaseVelocity, scene.bale)
    return np.array(v) / CM_PER_MM


def test_drag_slows_the_bale_by_k_v_squared_and_is_off_without_air(board, design):
    assert not Drag(Scene(board, design), design).active  # the stock design has no drag
    airy = dataclasses.replace(design, physics=dataclasses.replace(design.physics, air_drag=True))
    with Scene(board, airy) as scene:
        drag, speed = Drag(scene, airy), 3000.0
        assert drag.active
        place(scene, (0.0, 0.0, 2000.0), (0.0, speed, 0.0))
        drag.push(scene.bale)
        scene.call(pb.stepSimulation)
        slowed = velocity_mm_s(scene)[1]
        place(scene, (0.0, 0.0, 2000.0), (0.0, speed, 0.0))
        scene.call(pb.stepSimulation)
        free = velocity_mm_s(scene)[1]
    assert free == pytest.approx(speed)  # no hidden damping
    k = drag_constant_per_mm(airy)
    assert speed - slowed == pytest.approx(k * speed * speed * scene.dt, rel=1e-3)


def test_a_rattling_bale_strikes_the_board_once_where_it_lies(scene, design):
    """Dropped 5 mm onto the board, the bale touches it on most of 300 steps; the log
    holds one strike, at the board's top, with the bale's centre there then."""
    half_height = design.bale.height_mm / 2
    place(scene, (0.0, 150.0, half_height + 5.0))
    log, touching = ContactLog(scene), 0
    for step in range(1, 301):
        scene.call(pb.stepSimulation)
        log.read(scene.bale, step)
        touching += any(c[9] > 0 for c in scene.call(pb.getContactPoints, bodyA=scene.bale))
    assert touching > 200
    assert log.struck == ["board"]
    assert log.points_mm[0][2] == pytest.approx(0.0, abs=0.5)
    assert log.points_mm[0][:2] == pytest.approx([0.0, 150.0], abs=design.bale.length_mm)
    assert log.first_centre_mm[2] == pytest.approx(half_height, abs=1.0)


def test_the_recorder_keeps_every_pose_it_took_in_mm(scene):
    place(scene, (10.0, 20.0, 300.0))
    frames = recorder(scene, every=5)
    frames.take(True)
    for step in range(1, 8):
        scene.call(pb.stepSimulation)
        frames.stepped(step, step < 5)
    frames.finish(7, False)  # the shot ended between two frames: its end is kept
    recording = frames.recording()
    assert recording.frames == 3
    assert recording.dt_s == pytest.approx(5 * scene.dt)
    assert recording.bale_mm[0] == pytest.approx([10.0, 20.0, 300.0])
    assert recording.bale_mm[1][2] < 300.0  # falling
    assert list(recording.bale_in_play) == [True, False, False]
    assert recording.piggies_mm == {}


def test_a_bale_beside_the_board_below_its_top_leaves_play_and_is_parked(scene, board):
    x1 = board.surface_extent_mm[1]
    out = OutOfPlay(scene)
    place(scene, (0.0, 0.0, 20.0))
    assert out.check(scene.bale)[0] and out.left_at_mm is None
    place(scene, (x1 + 30.0, 0.0, 20.0))  # beside the board, above its top: in play
    assert out.check(scene.bale)[0]
    place(scene, (x1 + 30.0, 0.0, -5.0))
    in_play, centre_cm = out.check(scene.bale)
    assert not in_play
    assert out.left_at_mm == pytest.approx([x1 + 30.0, 0.0, -5.0])
    assert centre_cm[0] == pytest.approx((x1 + 30.0) * CM_PER_MM)
    assert scene.position_mm(scene.bale) * CM_PER_MM == pytest.approx(parking_cm(0))


def test_rest_is_the_design_s_rest_time_of_checks_with_nothing_restless(scene, design):
    rest = RestDetector(scene, design)
    place(scene, (0.0, 0.0, 300.0), (0.0, 500.0, 0.0))
    assert rest.restless([scene.bale]) == {scene.bale}
    place(scene, (0.0, 0.0, 300.0))
    assert rest.restless([scene.bale]) == set()
    checks = round(design.physics.rest_time_s / scene.dt) // REST_CHECK_EVERY
    assert checks >= 2
    for _ in range(checks - 1):
        assert not rest.settled(set())
    assert not rest.settled({scene.bale})  # a restless body starts the count anew
    for _ in range(checks - 1):
        assert not rest.settled(set())
    assert rest.settled(set())
