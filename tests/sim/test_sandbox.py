"""piggy sandbox: PyBullet's window, run under a virtual X server."""

import os
import shutil
import subprocess
import sys
import time

import pytest


def test_sandbox_without_a_display_is_a_clear_error():
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    done = subprocess.run([sys.executable, "-m", "sim.cli", "sandbox", "--seconds", "1"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 2 and "no display" in done.stderr
    assert done.stderr.count("\n") == 1


@pytest.mark.slow
def test_sandbox_opens_its_window_and_fires_a_shot():
    xvfb = shutil.which("Xvfb")
    if xvfb is None:
        pytest.skip("Xvfb is not installed here (.ci/run installs it)")
    display = ":97"
    server = subprocess.Popen([xvfb, display, "-screen", "0", "1024x768x24"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        time.sleep(1.5)
        done = subprocess.run([sys.executable, "-m", "sim.cli", "sandbox", "--auto-fire", "1"],
                              capture_output=True, text=True,
                              env={**os.environ, "DISPLAY": display}, timeout=180)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert done.returncode == 0, done.stderr[-500:]
    assert "Sandbox open" in done.stdout
    assert "Shot 1: yaw 0.0, pitch 0.0 -> struck" in done.stdout
    assert "knocked out:" in done.stdout
