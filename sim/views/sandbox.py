"""The interactive sandbox: PyBullet's window with sliders for yaw and pitch, a fire
button, a reset button, and the knock-out verdict shown after each shot.

Needs a display (on a machine without one: ``xvfb-run piggy sandbox``).
"""

from __future__ import annotations

import time

from models.board import Board
from models.design import Design
from models.layout import Layout
from sim.physics.bullet import pb
from sim.physics.world import World

#: Seconds between two looks at the sliders and buttons.
_POLL_S = 0.05


def run_sandbox(board: Board, design: Design, layout: Layout, *, seconds: float | None = None,
                auto_fire: int = 0, slowmo: float = 2.0, seed: int = 0, report=print) -> int:
    """Open the window and serve it until it is closed (or ``seconds`` pass).

    ``auto_fire``: fire that many shots at the sliders' settings by itself, then close
    (unless ``seconds`` is given); for tests and demonstrations. Returns the number of
    shots fired.
    """
    world = World(board, design, layout, gui=True)
    client = world.client
    launcher = design.launcher
    pb.configureDebugVisualizer(pb.COV_ENABLE_GUI, 1, physicsClientId=client)
    pb.resetDebugVisualizerCamera(cameraDistance=60, cameraYaw=0, cameraPitch=-45,
                                  cameraTargetPosition=[0, 5, 0], physicsClientId=client)
    yaw = pb.addUserDebugParameter("yaw (deg)", -180, 180, 0, physicsClientId=client)
    pitch = pb.addUserDebugParameter("pitch (deg)", launcher.pitch_min_deg,
                                     launcher.pitch_max_deg, 0, physicsClientId=client)
    fire = pb.addUserDebugParameter("FIRE", 1, 0, 0, physicsClientId=client)
    reset = pb.addUserDebugParameter("reset", 1, 0, 0, physicsClientId=client)
    presses = {fire: 0.0, reset: 0.0}
    world.reset()
    start, shots = time.monotonic(), 0
    step_s = slowmo / design.physics.steps_per_s
    report("Sandbox open: turn the yaw and pitch sliders, press FIRE; close the window to quit.")
    try:
        while pb.isConnected(client):
            if seconds is not None and time.monotonic() - start > seconds:
                break
            if seconds is None and 0 < auto_fire <= shots:
                break
            pressed_fire = pb.readUserDebugParameter(fire, physicsClientId=client) > presses[fire]
            pressed_reset = (pb.readUserDebugParameter(reset, physicsClientId=client)
                             > presses[reset])
            presses = {b: pb.readUserDebugParameter(b, physicsClientId=client) for b in presses}
            if pressed_fire or shots < auto_fire:
                angles = (pb.readUserDebugParameter(yaw, physicsClientId=client),
                          pb.readUserDebugParameter(pitch, physicsClientId=client))
                result = world.shoot(*angles, seed=seed + shots,
                                     on_step=lambda: time.sleep(step_s))
                shots += 1
                knocked = ", ".join(result.knocked) or "nobody"
                line = (f"Shot {shots}: yaw {angles[0]:.1f}, pitch {angles[1]:.1f} -> struck "
                        f"{' -> '.join(result.contacts) or 'nothing'}; knocked out: {knocked}")
                report(line)
                pb.addUserDebugText(f"Knocked out: {knocked}", [0, 0, 12],
                                    textColorRGB=[0.8, 0, 0], textSize=1.6,
                                    physicsClientId=client)
            elif pressed_reset:
                world.reset()
            time.sleep(_POLL_S)
    finally:
        world.close()
    return shots

