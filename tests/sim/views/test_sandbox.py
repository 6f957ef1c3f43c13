"""piggy sandbox: PyBullet's window, run under a virtual X server."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

#: PyBullet's own log lines, which must not reach the terminal.
PYBULLET_LOG = (
    "startThreads",
    "GL_VENDOR",
    "X11 functions",
    "semaphore",
    "b3Printf",
    "MotionThreadFunc",
)


@pytest.mark.slow
def test_sandbox_without_a_display_is_a_clear_error():
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli", "sandbox", "--seconds", "1"],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 2 and "no display" in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.fixture(scope="module")
def display():
    """A virtual X server on a free display number (Xvfb picks it: tests of other
    checkouts may run at the same time). Skipped only where Xvfb is not installed."""
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed here (.ci/run installs it)")
    server, number = start_xvfb(xvfb)
    yield f":{number}"
    server.terminate()
    server.wait(timeout=10)


def start_xvfb(xvfb: str) -> tuple[subprocess.Popen, str]:
    """The X server ``xvfb`` started, and its display number; one installed that does
    not start fails the test that needs it (a broken machine must not pass as green)."""
    read, write = os.pipe()
    with tempfile.TemporaryFile("w+") as log:
        server = subprocess.Popen(
            [xvfb, "-displayfd", str(write), "-screen", "0", "1024x768x24"],
            pass_fds=(write,),
            stdout=subprocess.DEVNULL,
            stderr=log,
        )
        os.close(write)
        with os.fdopen(read) as numbers:
            number = numbers.readline().strip()  # empty: it ended without one
        if not number:
            server.terminate()
            server.wait(timeout=10)
            log.seek(0)
            said = " ".join(log.read().split())[-300:]
            pytest.fail(f"Xvfb did not start (exit {server.returncode}): {said}")
    return server, number


def screen_of(display: str) -> np.ndarray:
    """The X screen's pixels (RGB); a screen that cannot be read fails the test."""
    from PIL import ImageGrab

    try:
        return np.asarray(ImageGrab.grab(xdisplay=display).convert("RGB"))
    except OSError as exc:
        pytest.fail(f"cannot read the X screen of {display} ({exc})")


def test_an_xvfb_that_does_not_start_or_a_screen_not_read_fails(tmp_path):
    """Failed, not skipped (a skip, raised as an exception too, is caught here)."""
    broken = tmp_path / "Xvfb"
    broken.write_text("#!/bin/sh\necho 'no screens found' >&2\nexit 1\n")
    broken.chmod(0o755)
    with pytest.raises(BaseException) as outcome:
        start_xvfb(str(broken))
    assert outcome.type is pytest.fail.Exception
    assert str(outcome.value) == "Xvfb did not start (exit 1): no screens found"
    with pytest.raises(BaseException) as outcome:
        screen_of(":9876")  # no server there
    assert outcome.type is pytest.fail.Exception
    assert str(outcome.value).startswith("cannot read the X screen of :9876")


def sandbox(display, *argv):
    """``piggy sandbox`` as from a terminal: Ctrl-C (SIGINT) reaches it even when the
    suite itself runs in the background, which ignores it (and so would its children)."""
    return subprocess.Popen(
        [sys.executable, "-m", "sim.cli", "sandbox", *argv],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "DISPLAY": display},
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )


@pytest.mark.slow
def test_sandbox_opens_its_window_and_fires_a_shot_quietly(display):
    process = sandbox(display, "--auto-fire", "1")
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err[-500:]
    assert "Sandbox open" in out
    assert "Shot 1: yaw 0.0, pitch 0.0 -> struck" in out
    assert "knocked out:" in out
    assert not [line for line in out.splitlines() if line.startswith(PYBULLET_LOG)], out


def painted(view: np.ndarray, rgb) -> float:
    """The share of pixels with the hue of a paint colour, however lit (ratios of the
    channels: shading scales all three alike)."""
    r, g, b = (view[..., i].astype(float) for i in range(3))
    green = np.maximum(g, 1.0)
    return float(
        (
            (np.abs(r / green - rgb[0] / rgb[1]) < 0.025)
            & (np.abs(b / green - rgb[2] / rgb[1]) < 0.035)
            & (g > 60)
        ).mean()
    )


@pytest.mark.slow
def test_sandbox_window_shows_the_board_without_debug_panes(display):
    """Every wait is on an event, under a generous cap (--seconds 600 closes the window
    whatever happens): its first words, then its first frame; then Ctrl+C closes it."""
    process = sandbox(display, "--seconds", "600")
    opened = process.stdout.readline()
    assert opened.startswith("Sandbox open"), (
        "the window did not open: " + opened + process.stderr.read()[-500:]
    )
    # look until the 3D view has drawn its first frame (black before) or the window
    # closes: on a loaded machine the first frame can take many seconds
    screen = None
    while process.poll() is None:
        try:
            screen = screen_of(display)
        except pytest.fail.Exception:
            process.kill()
            raise
        if screen[50:640, 260:760].mean() > 30:
            break
        time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=300)
    assert process.returncode == 130 and err.endswith("piggy: interrupted\n"), err[-500:]
    assert screen is not None and screen[50:640, 260:760].mean() > 30, (
        "the window closed before its 3D view drew a frame"
    )
    # PyBullet's three synthetic-camera panes have steel-blue title bars
    r, g, b = (screen[..., i].astype(int) for i in range(3))
    title_bars = (np.abs(r - 75) < 12) & (np.abs(g - 123) < 12) & (np.abs(b - 166) < 12)
    assert title_bars.sum() < 200
    # the 3D view shows the board's painted spaces (the texture), not a plain slab
    view = screen[50:640, 260:760]
    assert painted(view, (234, 220, 184)) > 0.05  # the spaces (the plain slab: none)


@pytest.mark.slow
def test_sandbox_keeps_its_seconds(display):
    """``--seconds`` counts from the start of the process: the window closes then, or,
    on a machine too busy to open it by then, is not opened at all; either way the
    command ends well, not before its seconds."""
    seconds = 6.0
    start = time.monotonic()
    process = sandbox(display, "--seconds", str(seconds))
    out, err = process.communicate(timeout=600)
    took = time.monotonic() - start
    assert process.returncode == 0, err[-500:]
    assert out.startswith(("Sandbox open", f"Time is up ({seconds:g} s)")), out
    assert took >= 0.95 * seconds, took
