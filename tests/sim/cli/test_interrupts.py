"""Ctrl-C is never lost (issue 51): from main()'s first line, while the command
groups are still being imported, it ends in "piggy: interrupted" and exit 130, not
a traceback; and a KeyboardInterrupt that a library swallows (trimesh's optional
imports catch BaseException) still stops the work at its next step, nothing written.
"""

from __future__ import annotations

import builtins
import contextlib
import signal

import pytest

from tests.helpers import run


def test_ctrl_c_while_the_commands_are_imported_is_piggy_interrupted(capsys, monkeypatch):
    """A Ctrl-C that lands in the import of the command groups (the first second of
    a command on a cold machine)."""
    importing = builtins.__import__

    def interrupted_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name == "sim.cli" and fromlist and "film" in fromlist:
            raise KeyboardInterrupt
        return importing(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", interrupted_import)
    code, out, err = run(capsys, "markers", "--out", "never.png")
    assert (code, out, err) == (130, "", "piggy: interrupted\n")


def _swallowing_library() -> None:
    """What trimesh's optional imports do with a Ctrl-C: catch BaseException, go on."""
    with contextlib.suppress(BaseException):
        signal.raise_signal(signal.SIGINT)  # the handler runs here, in the main thread


@pytest.mark.slow
def test_a_ctrl_c_a_library_swallows_still_stops_film_before_it_writes(
    capsys, tmp_path, monkeypatch
):
    pytest.importorskip("cv2")
    import sim.real_toy.whole_film

    angles = tmp_path / "a.csv"
    angles.write_text("pitch_deg,yaw_deg\n20,0\n25,0\n")
    checked = sim.real_toy.whole_film.check_pitches

    def check_then_swallow(*args):
        checked(*args)
        _swallowing_library()

    monkeypatch.setattr(sim.real_toy.whole_film, "check_pitches", check_then_swallow)
    argv = ["film", "--design", "stock", "--angles", str(angles), "--camera-at", "0,-900,700"]
    argv += ["--size", "64x48", "--fps", "30", "--out", str(tmp_path / "f.mp4")]
    code, _, err = run(capsys, *argv)
    assert code == 130 and err.endswith("piggy: interrupted\n"), err
    assert "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv"]


def test_ctrl_c_inside_an_exec_of_a_string_still_exits_130_under_python_m(tmp_path):
    """A Ctrl-C that lands where Python builds code from a string (a dataclass's
    methods, while a module is imported) is caught as any other; CPython then
    remembers it as uncaught and, run as ``python -m``, ended the process by SIGINT
    (-2) after "piggy: interrupted" (seen once in four study kills)."""
    import subprocess
    import sys

    from tests.helpers import ROOT

    (tmp_path / "interrupted_in_exec.py").write_text(
        "import sys\n"
        "import sim.cli\n\n\n"
        "def importing_a_dataclass(argv, began):\n"
        "    exec('import os, signal\\nos.kill(os.getpid(), signal.SIGINT)\\nimport time\\n"
        "time.sleep(30)')\n\n\n"
        "sim.cli._main = importing_a_dataclass\n"
        "sys.exit(sim.cli.main([]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "interrupted_in_exec"],
        cwd=tmp_path,
        env={"PYTHONPATH": f"{tmp_path}:{ROOT}"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert (done.returncode, done.stderr) == (130, "piggy: interrupted\n")
