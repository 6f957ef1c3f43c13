"""What several test modules share: the checkout's root, running ``piggy`` in this
process, the small boards made for tests, the sweep settings a command line makes,
measured shots drawn from the calibration's closed forms, a comparison's row made
by hand, and the count of PyBullet connections open, and scripts/layer_graph.py as a module.

Test modules import from here (or from a named helper module: ``tests/browser.py``,
``tests/referee/positions.py``, ``tests/sim/cli/fuzz_support.py``), never from
another test module or from ``conftest.py``.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sim.studies.shots.records import ComparisonRow

if TYPE_CHECKING:
    import pytest

    from models.design import Design
    from sim.studies.calibrating.shots_csv import MeasuredShots
    from sim.studies.shots.space_shots import SweepSpec

#: The checkout's root folder (the one holding pyproject.toml).
ROOT = Path(__file__).resolve().parents[1]


def layer_graph_script():
    """scripts/layer_graph.py as a module: the layers, the engines kept apart and the
    reading of the imports that the repository's rules and the layer graph share."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "layer_graph", ROOT / "scripts" / "layer_graph.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def piggy_process(argv: list[str], cwd: Path, ignore_sigint: bool = False) -> subprocess.Popen:
    """``piggy ARGV`` in a process of its own, run from ``cwd``, its output piped;
    ``ignore_sigint``: started as a shell starts a background job, Ctrl-C ignored
    (which piggy must undo)."""
    return subprocess.Popen(
        [sys.executable, "-m", "sim.cli", *argv],
        cwd=cwd,
        text=True,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        preexec_fn=_ignore_sigint if ignore_sigint else None,
    )


def read_terminal(leader: int) -> bytes:
    """Everything a pseudo-terminal's program wrote, read from its ``leader`` end once
    the program has ended and the ``follower`` end is closed; closes ``leader``."""
    shown = b""
    while True:
        try:
            chunk = os.read(leader, 4096)
        except OSError:  # the terminal's other end is closed: all read
            break
        if not chunk:
            break
        shown += chunk
    os.close(leader)
    return shown


def _ignore_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """Run ``piggy *argv`` in this process.

    Returns
    -------
    tuple of (int, str, str)
        The exit code, what it printed on stdout and on stderr.
    """
    from sim.cli import main  # here, so that models' tests need not import the engine

    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


#: A progress line off a terminal (sim/cli/progress.py): the count done, then the time
#: gone ("piggy: measuring: 2,950/6,823 frames, 20 s elapsed, about 27 s left").
PROGRESS_LINE = re.compile(
    r"piggy: [^:]+: (?:[a-z]+ \d+: )?[\d,]+(?:/[\d,]+)? [a-z]+, .* elapsed, "
)


def said_lines(err: str) -> list[str]:
    """The lines of ``err`` less the progress lines, which come every 20 s: on a busy
    machine a run of seconds takes more and writes one, so a test that counts the
    lines (the start line, a refusal, the last line) counts these (issue 53)."""
    return [line for line in err.splitlines() if not PROGRESS_LINE.match(line)]


def cli_spec(argv: Sequence[str]) -> SweepSpec:
    """The sweep settings ``piggy`` makes of a ``hitmap`` command line."""
    from sim.cli import build_parser
    from sim.cli.common import load_layout_args
    from sim.cli.hitmap import sweep_spec

    args = build_parser().parse_args(list(argv))
    return sweep_spec(args, load_layout_args(args))


#: A small board for physics tests: 5 x 9 spaces, the tractor in a 3 x 3 hole,
#: one tall fence straight ahead of it at the r6c2/r7c2 line.
SMALL_BOARD: dict[str, Any] = {
    "name": "small",
    "space_mm": 55.0,
    "rows": 9,
    "cols": 5,
    "holes": [[r, c] for r in (3, 4, 5) for c in (1, 2, 3)],
    "tractor": [137.5, 247.5],
    "fences": [[[6, 2], [7, 2]]],
    "fence_height_mm": 80.0,
    "checkpoints": [3, 6],
    "pit_left_rows": [6],
    "pit_right_rows": [2],
}

#: 5 columns x 6 rows, no holes. A fence straight ahead of r2c2 (between r2c2 and
#: r3c2); r1c4's triangle points left. Checkpoints at rows 2 and 4; the right
#: side pit beside row 2, the left one beside row 4.
RULES_BOARD = """
name = "rules"
space_mm = 50.0
rows = 6
cols = 5
holes = []
tractor = [125.0, 150.0]
fences = [[[2, 2], [3, 2]]]
checkpoints = [2, 4]
pit_left_rows = [4]
pit_right_rows = [2]
[forward]
r1c4 = "left"
"""

#: Launch pitches (deg) of the closed-form shots: low, flat and lobbed arcs.
PITCHES = (-30.0, -25.0, 8.0, 64.0, 70.0)


def closed_form_shots(
    design: Design,
    pitches: Sequence[float] = PITCHES,
    yaws: Sequence[float] = (28.0, -28.0),
    per_pitch: int = 8,
    seed: int = 0,
    marking_sd_mm: float = 1.5,
    timed: bool = False,
) -> MeasuredShots:
    """Shots drawn from the calibration's own model (no PyBullet): exact flights
    with normal errors of the design's spreads, and a marking error.

    Parameters
    ----------
    design : Design
        The launcher whose spreads (speed in mm/s, yaw and pitch in deg) are drawn.
    pitches, yaws : sequence of float
        Aims (deg); ``per_pitch`` shots at each pitch, the yaws taken in turn.
    per_pitch : int
        Shots at each pitch.
    seed : int
        Seed of the draws: the same seed gives the same shots.
    marking_sd_mm : float
        Standard deviation (mm) of the error in marking each landing point.
    timed : bool
        Whether the shots carry a chronograph speed (mm/s); NaN otherwise.

    Returns
    -------
    MeasuredShots
        ``len(pitches) * per_pitch`` shots, their landings in mm.
    """
    from sim.physics.ballistics import landing_point_mm
    from sim.studies.calibrating.shots_csv import MeasuredShots

    rng = np.random.default_rng(seed)
    pitch = np.repeat(np.array(pitches, float), per_pitch)
    yaw = np.array([yaws[k % len(yaws)] for _ in pitches for k in range(per_pitch)], float)
    launcher = design.launcher
    speed = launcher.muzzle_speed_mm_s + launcher.speed_sd_mm_s * rng.standard_normal(len(pitch))
    point = landing_point_mm(
        design,
        yaw + launcher.yaw_sd_deg * rng.standard_normal(len(yaw)),
        pitch + launcher.pitch_sd_deg * rng.standard_normal(len(pitch)),
        speed,
    )
    point = point + marking_sd_mm * rng.standard_normal(point.shape)
    missing = np.full(len(pitch), np.nan)
    return MeasuredShots(
        pitch,
        yaw,
        point[:, 0],
        point[:, 1],
        speed if timed else missing,
        missing,
        source="synthetic",
    )


def comparison_row(
    space: str, diff: float, significant: bool, shots: int = 200, stop: str | None = None
) -> ComparisonRow:
    """One space of a comparison made by hand (no physics): ``diff`` with an interval of
    ±0.05, flagged or not, and why the paired rule stopped there (None: per-map)."""
    return ComparisonRow(
        space=space,
        reachable_a=True,
        reachable_b=True,
        shots=shots,
        p_a=0.5,
        p_b=0.5 + diff,
        diff=diff,
        diff_ci_low=diff - 0.05,
        diff_ci_high=diff + 0.05,
        a_only=0,
        b_only=0,
        p_value=0.001 if significant else 0.6,
        p_value_adjusted=0.003 if significant else 0.9,
        significant=significant,
        stop=stop,
    )


#: pybullet's most connections at once (MAX_PHYSICS_CLIENTS in its pybullet.c).
_MAX_PYBULLET_CLIENTS = 1024


def pybullet_connections() -> int:
    """How many PyBullet connections this process has open: one per live Bullet world
    (a closed world's id is handed to the next connection, so an id alone cannot say
    whether its world was closed)."""
    import pybullet as pb

    return sum(pb.isConnected(client) for client in range(_MAX_PYBULLET_CLIENTS))


def stock_with_bale(folder: Path, name: str, friction: float, restitution: float) -> Path:
    """The stock design with its bale's friction and restitution set, written as
    ``folder/name.toml``: the hidden bale a film of the contact is made with."""
    from models.design import DESIGNS_DIR

    stock = (DESIGNS_DIR / "stock.toml").read_text()
    bale = stock.index("[bale]")
    changed = stock[:bale] + re.sub(
        r"friction = 0\.5\nrestitution = 0\.5",
        f"friction = {friction}\nrestitution = {restitution}",
        stock[bale:],
        count=1,
    )
    assert changed != stock
    path = folder / f"{name}.toml"
    path.write_text(changed)
    return path


def film_with_truth(
    folder: Path, design: Path, angles: str, film: list[str], seed: int
) -> list[dict]:
    """``piggy film`` of ``angles`` (CSV text) with ``design`` into ``folder/shots.mp4``
    (its angles in ``folder/angles.csv``); the rows of its ``--truth`` CSV."""
    import csv

    from sim.cli import main

    (folder / "angles.csv").write_text(angles)
    args = ["film", "--design", str(design), "--angles", str(folder / "angles.csv"), *film]
    args += ["--seed", str(seed), "--out", str(folder / "shots.mp4")]
    assert main([*args, "--truth", str(folder / "truth.csv"), "--json"]) == 0
    with open(folder / "truth.csv") as handle:
        return list(csv.DictReader(handle))
