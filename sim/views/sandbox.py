"""The interactive sandbox: PyBullet's window with sliders for yaw and pitch, a fire
button, a reset button, and the knock-out verdict shown after each shot.

Needs a display (on a machine without one: ``xvfb-run piggy sandbox``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time

from models.board import Board
from models.design import Design
from models.errors import InputError
from models.layout import Layout
from sim.physics.bullet import pb
from sim.physics.bullet.world import WindowedWorld
from sim.physics.launch import AimedShot

#: Seconds between two looks at the sliders and buttons.
_POLL_S = 0.05
#: The texture sits this far above the board's collision top, so the two never flicker.
_TEXTURE_LIFT_MM = 0.3


class _TimeUp(Exception):
    """``seconds`` ran out in the middle of a shot."""


@contextlib.contextmanager
def _quiet_pybullet():
    """PyBullet's C code logs to the process's standard output (threads, OpenGL, its
    semaphores): send that file descriptor to a log file, while Python's own
    ``print`` keeps writing to the terminal. The log's tail is shown if it fails."""
    sys.stdout.flush()
    terminal = os.dup(1)
    with tempfile.TemporaryFile() as log, open(terminal, "w", buffering=1, closefd=False) as stream:
        os.dup2(log.fileno(), 1)
        try:
            with contextlib.redirect_stdout(stream):
                yield
        except Exception as exc:
            log.seek(0)
            tail = log.read().decode(errors="replace").splitlines()[-20:]
            if tail and not isinstance(exc, InputError):  # a failure, not a refusal
                print("PyBullet's log ended with:", *tail, sep="\n  ", file=sys.stderr)
            raise
        finally:
            os.dup2(terminal, 1)
            os.close(terminal)


def run_sandbox(
    board: Board,
    design: Design,
    layout: Layout,
    *,
    seconds: float | None = None,
    auto_fire: int = 0,
    slowmo: float = 2.0,
    seed: int = 0,
    report=print,
) -> int:
    """Open the window and serve it until it is closed (or ``seconds`` pass).

    ``seconds`` counts from the start of the process, the window's opening included
    (that is what a user measures); a shot still in flight then is cut short, and
    when the window is not ready by then it is not opened at all.
    ``auto_fire``: fire that many shots at the sliders' settings by itself, then
    close (unless ``seconds`` is given); for tests and demonstrations. Returns the
    number of shots fired.
    """
    deadline = None if seconds is None else _process_start() + seconds
    with _quiet_pybullet():
        try:
            return _serve(board, design, layout, deadline, auto_fire, slowmo, seed, report)
        except _TimeUp:
            report(f"Time is up ({seconds:g} s): closed before the window was ready.")
            return 0


def _serve(board, design, layout, deadline, auto_fire, slowmo, seed, report) -> int:
    from sim.views.textures import add_board_top, board_texture_png

    world = WindowedWorld(board, design, layout)  # drawn once built (Scene.set_layout)
    client = world.client
    launcher = design.launcher
    shots = 0
    try:
        _check(deadline)  # between the slow steps of opening: a short --seconds is kept
        with tempfile.TemporaryDirectory(prefix="piggy-sandbox-") as folder:
            texture = board_texture_png(board, folder)
            _check(deadline)
            add_board_top(client, board, texture, _TEXTURE_LIFT_MM)
        _check(deadline)
        # The sliders and buttons stay (COV_ENABLE_GUI); the three synthetic-camera
        # panes (RGB, depth, segmentation) that cover the left of the view go.
        for pane in (
            pb.COV_ENABLE_RGB_BUFFER_PREVIEW,
            pb.COV_ENABLE_DEPTH_BUFFER_PREVIEW,
            pb.COV_ENABLE_SEGMENTATION_MARK_PREVIEW,
        ):
            pb.configureDebugVisualizer(pane, 0, physicsClientId=client)
        pb.configureDebugVisualizer(pb.COV_ENABLE_GUI, 1, physicsClientId=client)
        _, _, y0, y1 = board.surface_extent_mm
        pb.resetDebugVisualizerCamera(
            cameraDistance=0.09 * (y1 - y0),
            cameraYaw=0,
            cameraPitch=-50,
            cameraTargetPosition=[0, 4, 0],
            physicsClientId=client,
        )
        # PyBullet's window clips the first letter of every text it draws (its own
        # menus too): each label starts with a space, which is the one clipped.
        yaw = pb.addUserDebugParameter(" yaw (deg)", -180, 180, 0, physicsClientId=client)
        pitch = pb.addUserDebugParameter(
            " pitch (deg)",
            launcher.pitch_min_deg,
            launcher.pitch_max_deg,
            0,
            physicsClientId=client,
        )
        fire = pb.addUserDebugParameter(" FIRE", 1, 0, 0, physicsClientId=client)
        reset = pb.addUserDebugParameter(" reset", 1, 0, 0, physicsClientId=client)
        presses = {fire: 0.0, reset: 0.0}
        world.reset()
        step_s = slowmo / design.physics.steps_per_s
        report(
            "Sandbox open: turn the yaw and pitch sliders, press FIRE; close the window to quit."
        )
        while pb.isConnected(client):
            if deadline is not None and time.monotonic() >= deadline:
                break
            if deadline is None and 0 < auto_fire <= shots:
                break
            pressed_fire = pb.readUserDebugParameter(fire, physicsClientId=client) > presses[fire]
            pressed_reset = (
                pb.readUserDebugParameter(reset, physicsClientId=client) > presses[reset]
            )
            presses = {b: pb.readUserDebugParameter(b, physicsClientId=client) for b in presses}
            if pressed_fire or shots < auto_fire:
                angles = (
                    pb.readUserDebugParameter(yaw, physicsClientId=client),
                    pb.readUserDebugParameter(pitch, physicsClientId=client),
                )
                try:
                    result = world.shoot(
                        AimedShot(*angles, seed=seed + shots), on_step=_pacer(step_s, deadline)
                    )
                except _TimeUp:
                    report("Time is up: the last shot was cut short.")
                    break
                shots += 1
                knocked = ", ".join(result.knocked) or "nobody"
                report(
                    f"Shot {shots}: yaw {angles[0]:.1f}, pitch {angles[1]:.1f} -> struck "
                    f"{' -> '.join(result.contacts) or 'nothing'}; knocked out: {knocked}"
                )
                pb.addUserDebugText(
                    f"Knocked out: {knocked}",
                    [0, 0, 12],
                    textColorRGB=[0.8, 0, 0],
                    textSize=1.6,
                    physicsClientId=client,
                )
            elif pressed_reset:
                world.reset()
            time.sleep(_POLL_S)
    finally:
        world.close()
    return shots


def _check(deadline: float | None) -> None:
    if deadline is not None and time.monotonic() >= deadline:
        raise _TimeUp


def _process_start() -> float:
    """The :func:`time.monotonic` reading of when this process started (from Linux's
    /proc); the present moment where that cannot be read."""
    try:
        with open("/proc/self/stat") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
        started_s = int(fields[19]) / os.sysconf("SC_CLK_TCK")  # field 22: start time
        age_s = time.clock_gettime(time.CLOCK_BOOTTIME) - started_s
    except (OSError, ValueError, IndexError, AttributeError):
        return time.monotonic()
    return time.monotonic() - max(0.0, age_s)


def _pacer(step_s: float, deadline: float | None):
    """An ``on_step`` that keeps a shot at ``step_s`` of wall time a step (no faster;
    when drawing is slower than that, it does not sleep at all), and stops the shot
    at the deadline."""
    clock = {"next": time.monotonic()}

    def on_step() -> None:
        _check(deadline)
        now = time.monotonic()
        clock["next"] = max(clock["next"] + step_s, now)
        time.sleep(max(0.0, clock["next"] - now))

    return on_step
