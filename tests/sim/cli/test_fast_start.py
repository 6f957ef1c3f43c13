"""A fast start: ``piggy --help``, a mistyped option and a misnamed input file are
answered before any heavy library is imported (CONTRIBUTING.md, "A fast start").
Which modules a run imported is read from ``sys.modules`` as the process ends; no
time is asserted."""

import json
import os
import subprocess
import sys

import pytest

from tests.helpers import ROOT

#: ``piggy ARGS`` in a fresh process, one per request: the probe imports what ``piggy``
#: imports before it parses (``sim.cli``) once, then forks a child for each line of
#: JSON it reads (the argv, where to write the child's top-level modules and its
#: standard error), so that each command starts as ``piggy`` would without paying
#: Python's start again (42 commands here: about 5 s of CPU less). It answers each
#: line with the child's exit code.
PROBE = """
import json, os, sys
from sim.cli import main

for line in iter(sys.stdin.readline, ""):
    argv, modules_path, stderr_path = json.loads(line)
    child = os.fork()
    if child == 0:
        os.dup2(os.open(stderr_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC), 2)
        os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        code = 1
        try:
            code = main(argv)
        except SystemExit as exit:
            code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
        finally:
            with open(modules_path, "w") as f:
                json.dump(sorted({name.split(".")[0] for name in sys.modules}), f)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code or 0)
    print(os.waitstatus_to_exitcode(os.waitpid(child, 0)[1]), flush=True)
"""


#: What a command imports only when it has work to do.
HEAVY = (
    "numpy",
    "pybullet",
    "matplotlib",
    "pandas",
    "pyarrow",
    "trimesh",
    "scipy",
    "networkx",
    "optuna",
    "starlette",
    "uvicorn",
    "mujoco",
    "PIL",
    "tqdm",
    "cv2",
)


@pytest.fixture(scope="module")
def probe():
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }
    process = subprocess.Popen(
        [sys.executable, "-c", PROBE],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    yield process
    process.stdin.close()
    process.wait()


@pytest.fixture
def imported_by(probe, tmp_path):
    """``imported_by(*argv)`` runs ``piggy *argv`` as a fresh process: its exit code,
    what it said on standard error and the top-level packages it had imported when it
    ended."""

    def run(*argv: str) -> tuple[int, str, set[str]]:
        modules, stderr = tmp_path / "modules.json", tmp_path / "stderr.txt"
        probe.stdin.write(json.dumps([list(argv), str(modules), str(stderr)]) + "\n")
        probe.stdin.flush()
        code = int(probe.stdout.readline())
        return code, stderr.read_text(), set(json.loads(modules.read_text()))

    return run


def test_the_probe_sees_what_a_command_imports(imported_by):
    """The probe itself: a command that works imports what it needs."""
    code, _, modules = imported_by("aim", "--at", "r5c1")
    assert code == 0 and "numpy" in modules and "pybullet" in modules


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["--version"],
        ["design", "compare", "--help"],
        ["design", "optimise", "--help"],
        ["film", "--help"],
    ],
)
def test_help_imports_no_heavy_module(imported_by, argv):
    code, said, modules = imported_by(*argv)
    assert code == 0 and said == ""
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["shoot", "--bogus"], "unrecognized arguments: --bogus (see piggy shoot --help)"),
        (
            ["design", "sweep", "stock", "--param", "muzzle_speed=1:2:3"],
            "unrecognized arguments: stock (see piggy design sweep --help)",
        ),
        (["hitmap", "--shots", "0"], "--shots: 0 is out of range"),
        (["design", "compare", "stock", "stokc"], "unknown design 'stokc'"),
        (["shoot", "--at", "r5c1", "--board", "nope"], "unknown board 'nope'"),
        (["hitmap", "--layout", "no-such-layout.json"], "layout file 'no-such-layout.json'"),
        (["serve", "--layout", "no-such-layout.json"], "layout file 'no-such-layout.json'"),
        (["design", "check", "nope"], "unknown design 'nope'"),
        (["design", "optimise", "stokc", "--param", "bale.width_mm=10:12"], "unknown design"),
        # a bad input on each command that fires: told before numpy, PyBullet or SciPy
        (["shoot", "--at", "r2c33"], "space r2c33 is off board 'stock'"),
        (
            ["shoot", "--at", "gold-2"],
            "piggy gold-2 is not on the board: the layout is empty (give a layout file with "
            "--layout, or --layout crowded",
        ),
        (["shoot", "--yaw", "500", "--pitch", "5"], "yaw 500 deg is out of range"),
        (["aim", "--at", "r2c33"], "space r2c33 is off board 'stock'"),
        (["play", "nope"], "unknown game 'nope'"),
        (["play", "go-piggy-go", "--seats", "human,nope"], "unknown bot 'nope'"),
        (["play", "go-piggy-go", "--design", "nope"], "unknown design 'nope'"),
        (["play", "go-piggy-go", "--shots", "table:nope.csv"], "table file 'nope.csv'"),
        (["tournament", "go-piggy-go", "--seats", "greedy,nope"], "unknown bot 'nope'"),
        (["tournament", "pig-out", "--seats", "hold-at-0,random"], "hold-at-N takes"),
        (["hitmap", "--precision", "2"], "--precision 2 is out of range"),
        (["hitmap", "--aimer", "nope"], "unknown aimer 'nope'"),
        (["hitmap", "--sampler", "nope"], "unknown sampler 'nope'"),
        (["hitmap", "--vary", "nope=1"], "--vary takes name=half-range pairs"),
        (["hitmap", "--spaces", "r99c1"], "space r99c1 is off board 'stock'"),
        (["hitmap", "--aim-sd-scan", "0:6:7"], "--aim-sd-scan measures the spaces of --spaces"),
        (
            ["hitmap", "--spaces", "r8c3", "--aim-sd-scan", "0:6:7", "--precision", "0.1"],
            "--aim-sd-scan takes none of",
        ),
        (["hitmap", "--spaces", "r8c3", "--aim-sd-scan", "0:6"], "--aim-sd-scan must look like"),
        (["design", "compare", "stock", "fast-spring", "--precision", "0"], "--precision 0"),
        (["design", "game", "stock", "--seats", "greedy,nope"], "unknown bot 'nope'"),
        (["design", "optimise", "stock", "--param", "bale.nope=10:12"], "design field 'bale.nope'"),
        (["design", "optimise", "stock", "--param", "bale.width_mm=12:10"], "must be a range"),
        (["design", "compare", "stock", "fast-spring", "--rule", "nope"], "unknown rule 'nope'"),
        (["design", "compare", "stock", "fast-spring", "--engines", "nope"], "--engines takes"),
        (
            ["design", "compare", "stock", "fast-spring", "--budget", "5", "--rule", "spaces"],
            "--budget is the mean rule's",
        ),
        (["design", "sweep", "--param", "nope=1:2:3"], "design field 'nope'"),
        (["design", "sweep", "--param", "muzzle_speed=1:2:1"], "the count must be 2 to 50"),
        (["markers", "--out", "sheet.svg"], "must end in .pdf or .png"),
        (["hitmap", "--layout", "crowded", "--spaces", "r0c0"], "r0c0 is empty and gold-1"),
        (
            ["measure", "nope.mp4", "--angles", "a.csv", "--out", "m.csv"],
            "video file 'nope.mp4' does not exist",
        ),
        (
            [
                "film",
                "--design",
                "stokc",
                "--angles",
                "a.csv",
                "--camera-at",
                "0,-900,700",
                "--out",
                "f.mp4",
            ],
            "unknown design 'stokc'",
        ),
        (
            [
                "film",
                "--design",
                "stock",
                "--angles",
                "a.csv",
                "--camera-at",
                "0,-900,700",
                "--out",
                "f.mp4",
                "--size",
                "641x480",
            ],
            "641x480 is not allowed",
        ),
        (
            [
                "film",
                "--design",
                "stock",
                "--angles",
                "a.csv",
                "--camera-at",
                "0,-900,700",
                "--out",
                "f.mp4",
                "--fov",
                "175",
            ],
            "--fov 175 is out of range",
        ),
    ],
)
def test_a_mistake_is_told_before_any_heavy_import(imported_by, argv, error):
    """A mistyped option, an out-of-range number, a misnamed design, board or layout
    file: one line, exit 2, and none of the heavy libraries loaded to say so."""
    code, said, modules = imported_by(*argv)
    assert code == 2 and error in said and said.count("\n") == 1, said
    assert modules.isdisjoint(HEAVY), sorted(modules & set(HEAVY))


def test_version_names_the_installed_package(tmp_path):
    """``piggy --version``: the package's name and the version its metadata states,
    exit 0 (and, above, no heavy import)."""
    from importlib import metadata

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli", "--version"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout == f"go-piggy-go-sandbox {metadata.version('go-piggy-go-sandbox')}\n"
