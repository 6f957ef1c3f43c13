"""Fuzzing the ``piggy`` command line (issue 13): every subcommand driven with
malformed values, files and paths.

The promise under test (docs/architecture.md, "The command line"): bad input gives
exit code 2 and exactly one line on standard error naming the problem, before any
work starts (nothing is written); valid input gives exit code 0.

Two parts:

- a table of cases, at least one per class of bad input the hostile pass found
  (numbers and names, files, outputs, parameters, designs, workers and parts,
  memory and time bounds), each run in this process through ``sim.cli.main``
  (those that could read a device for ever run in a subprocess with a timeout),
  with valid controls beside them;
- a seeded property-based pass (hypothesis, derandomized) over every option of
  every command that parses a number: arbitrary text is either refused on one
  line or parsed to a value within the option's range, and a test that every such
  option of the parser is covered here.

The third round's classes (issue 21: ASCII digits, empty values, two runs on one
output, parts and caches by shape, states the rules cannot make, memory bounds,
calibration) are in ``tests/sim/cli/test_fuzz_classes.py`` and
``tests/sim/cli/test_fuzz_shapes.py``.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.errors import InputError
from models.seeds import SEED_MAX
from sim.cli import build_parser
from sim.cli.common import MAX_WORKERS
from sim.studies.shots.space_shots import MAX_SHOTS
from tests.helpers import ROOT, RULES_BOARD, run
from tests.sim.cli.fuzz_support import files_under

DIGITS = "9" * 5000
LONG = "x" * 5000
ESC = "\x1b"


@pytest.fixture(scope="module")
def place(tmp_path_factory) -> Path:
    """A folder of malformed and valid input files, shared by the cases."""
    folder = tmp_path_factory.mktemp("fuzz")
    stock = (ROOT / "models" / "boards" / "stock.toml").read_text()
    files = {
        "deep.json": "[" * 100_000 + "]" * 100_000,
        "digits.json": json.dumps({"stacks": {f"r{DIGITS}c3": ["gold-1"]}}),
        "newline_piggy.json": json.dumps({"stacks": {"r8c3": ["gold-1\n"]}}),
        "escape_piggy.json": json.dumps({"stacks": {"r8c3": [f"gold-1{ESC}[2J"]}}),
        "repeated_key.json": '{"stacks": {"r8c3": ["gold-1"], "r8c3": ["gold-2"]}}',
        "zero_padded.json": json.dumps({"stacks": {"r8c3": ["gold-1"], "r08c3": ["gold-2"]}}),
        "rules.toml": RULES_BOARD,
        "on_rules.json": json.dumps({"board": "rules.toml", "stacks": {"r1c1": ["gold-1"]}}),
        "board_math.toml": stock.replace('name = "stock"', 'name = "$\\\\frac{$"'),
        "board_escape.toml": stock.replace('name = "stock"', 'name = "st\\u001b[2Jock"'),
        "design_math.toml": 'name = "$\\\\frac{$"\n',
        "design_long_name.toml": f'name = "{"n" * 200_000}"\n',
        "design_below.toml": "[launcher]\npivot_height_mm = 10.0\nbarrel_length_mm = 200.0\n"
        "pitch_min_deg = -60.0\n",
        "weak.toml": 'name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 500.0\n',
        "weaker.toml": 'name = "weaker"\n[launcher]\nmuzzle_speed_mm_s = 480.0\n',
        "record_outside.jsonl": _record("/etc/passwd"),
        "record_parent.jsonl": _record("../rules.toml"),
        "record_not_text.jsonl": _record(5),
        "record_beside.jsonl": _record("rules.toml"),
        "record_pig_out.jsonl": json.dumps({"game": "pig_out", "params": {}}) + "\n",
        "table_no_space.csv": "where,p_target\nr1c1,0.5\n",
        "table_bad_p.csv": "space,reachable,p_target\nr1c1,True,abc\n",
        "blocker": "a file where a folder is wanted",
    }
    for name, text in files.items():
        (folder / name).write_text(text)
    (folder / "a-folder.png").mkdir()
    (folder / "a-folder.csv").mkdir()
    os.mkfifo(folder / "fifo")
    return folder


def _record(board) -> str:
    return json.dumps({"game": "go_piggy_go", "params": {"players": 2, "board": board}}) + "\n"


# --- bad input: exit 2, one line, nothing written ---------------------------------------------
# Each case: (id, argv made from the input folder ``p`` and an empty output folder ``o``,
# text the one line must hold). The ids name the class of the issue they belong to.
SHOOT = ["shoot", "--yaw", "0", "--pitch", "10"]
SWEEP = ["--spaces", "r8c3", "--shots", "1", "--workers", "1"]
BOTS = ["--seats", "greedy,random", "--shots", "scripted", "--games", "2"]
BAD = [
    # numbers and names
    *[
        (
            f"numbers: --seed -1 on {' '.join(argv[:2])}",
            [*argv, "--seed", "-1"],
            "argument --seed: -1 is out of range",
        )
        for argv in (
            SHOOT,
            ["hitmap", *SWEEP],
            ["design", "compare", "stock", *SWEEP],
            ["design", "sweep", "--param", "muzzle_speed=1500:3000:3", *SWEEP],
            ["play", "go-piggy-go", "--seats", "greedy,random"],
            ["tournament", "go-piggy-go", *BOTS],
            ["demo"],
            ["sandbox"],
            ["design", "game", "stock"],
        )
    ],
    ("numbers: a seed past 2^63", [*SHOOT, "--seed", str(2**63)], "out of range"),
    ("numbers: a seed of 5000 digits", [*SHOOT, "--seed", DIGITS], "is not a whole number"),
    ("numbers: full-width digits", ["hitmap", "--shots", "\uff11\uff12"], "not a whole number"),
    ("numbers: --yaw nan", ["shoot", "--yaw", "nan", "--pitch", "1"], "not a finite number"),
    ("numbers: --pitch 1e999", ["shoot", "--yaw", "0", "--pitch", "1e999"], "not a finite"),
    (
        "numbers: --size of 5000 digits",
        [*SHOOT, "--gif", "{o}/s.gif", "--size", f"9x{DIGITS}"],
        "must look like 640x480",
    ),
    ("numbers: --aim-sd nan", [*SHOOT, "--aim-sd", "nan,1"], "ASCII digits"),
    ("numbers: --vary nan", ["hitmap", *SWEEP, "--vary", "friction=nan"], "ASCII digits"),
    ("names: a space of 5000 digits", ["shoot", "--at", f"r{DIGITS}c3"], "not a space name"),
    ("names: --spaces of 5000 digits", ["hitmap", "--spaces", f"r{DIGITS}c3"], "not a space"),
    ("names: --spaces twice", ["hitmap", "--spaces", "r8c3,r9c5,r8c3"], "names r8c3 twice"),
    ("names: --spaces zero-padded", ["hitmap", "--spaces", "r8c3,r08c3"], "write r8c3"),
    ("names: --spaces full-width", ["hitmap", "--spaces", "r\uff18c3"], "not a space name"),
    ("names: --spaces newline", ["hitmap", "--spaces", "r8c3\n"], "not a space name"),
    ("names: piggy with a newline", ["shoot", "--at", "gold-1\n"], "gold-1\\n"),
    ("names: design with ESC", [*SHOOT, "--design", f"st{ESC}[2Jock"], "unknown design"),
    ("names: board with ESC", [*SHOOT, "--board", f"{ESC}]0;title\a"], "unknown board"),
    ("names: layout with a newline", [*SHOOT, "--layout", "a\nb.json"], "does not exist"),
    ("names: aimer with a newline", [*SHOOT, "--aimer", "child\n"], "aimer"),
    (
        "names: camera with ESC",
        [*SHOOT, "--gif", "{o}/s.gif", "--camera", f"{ESC}[31m"],
        "unknown camera",
    ),
    ("names: game with ESC", ["play", f"go-piggy-go{ESC}[2J"], "unknown game"),
    (
        "names: bot with ESC",
        ["play", "go-piggy-go", "--seats", f"greedy,{ESC}[2J", "--shots", "scripted"],
        "unknown bot",
    ),
    (
        "names: a bot of 5000 digits",
        ["tournament", "pig-out", "--seats", f"random,hold-at-{DIGITS}"],
        "each seat is a name",
    ),
    (
        "names: --param name with a newline",
        ["play", "go-piggy-go", "--param", "x\n=1"],
        "must look like name=value",
    ),
    ("names: design file with ESC", ["design", "check", f"x{ESC}[2J"], "unknown design"),
    (
        "names: layout piggy with a newline",
        [*SHOOT, "--layout", "{p}/newline_piggy.json"],
        "gold-1",
    ),
    ("names: layout piggy with ESC", [*SHOOT, "--layout", "{p}/escape_piggy.json"], "gold-1"),
    ("names: layout space twice", [*SHOOT, "--layout", "{p}/repeated_key.json"], "twice"),
    ("names: layout r8c3 and r08c3", [*SHOOT, "--layout", "{p}/zero_padded.json"], "r08c3"),
    ("names: layout space of 5000 digits", [*SHOOT, "--layout", "{p}/digits.json"], "digits"),
    (
        "names: board named with ESC",
        ["board", "show", "--board", "{p}/board_escape.toml"],
        "control character",
    ),
    # files
    ("files: --layout a FIFO", [*SHOOT, "--layout", "{p}/fifo"], "not a regular file"),
    ("files: --board /dev/zero", [*SHOOT, "--board", "/dev/zero"], "not a regular file"),
    ("files: --design /dev/zero", [*SHOOT, "--design", "/dev/zero"], "not a regular file"),
    ("files: --aimer /dev/zero", [*SHOOT, "--aimer", "/dev/zero"], "not a regular file"),
    ("files: design check /dev/zero", ["design", "check", "/dev/zero"], "not a regular file"),
    ("files: calibrate /dev/zero", ["calibrate", "/dev/zero"], "not a regular file"),
    ("files: calibrate a FIFO", ["calibrate", "{p}/fifo"], "not a regular file"),
    ("files: replay a FIFO", ["replay", "{p}/fifo"], "not a regular file"),
    (
        "files: table /dev/zero",
        ["tournament", "go-piggy-go", *BOTS[:2], "--shots", "table:/dev/zero"],
        "not a regular file",
    ),
    *[
        (f"files: 5000-character {what}", argv, "too long")
        for what, argv in (
            ("--board", [*SHOOT, "--board", LONG]),
            ("--design", [*SHOOT, "--design", LONG]),
            ("--layout", [*SHOOT, "--layout", LONG]),
            ("--aimer", [*SHOOT, "--aimer", LONG]),
            ("record", ["replay", LONG]),
            ("table", ["tournament", "go-piggy-go", *BOTS[:2], "--shots", f"table:{LONG}"]),
            ("design check", ["design", "check", LONG]),
            ("--out", ["hitmap", "--out", LONG + ".csv"]),
            ("--png", [*SHOOT, "--png", LONG + ".png"]),
        )
    ],
    ("files: layout nested 100000 deep", [*SHOOT, "--layout", "{p}/deep.json"], "nested"),
    (
        "files: layout's board against --board",
        ["board", "show", "--layout", "{p}/on_rules.json", "--board", "stock"],
        "is for board 'rules'",
    ),
    ("files: record naming /etc/passwd", ["replay", "{p}/record_outside.jsonl"], "--board"),
    ("files: record naming ../", ["replay", "{p}/record_parent.jsonl"], "beside"),
    ("files: record naming a number", ["replay", "{p}/record_not_text.jsonl"], "a string"),
    (
        "files: --board on a pig-out record",
        ["replay", "{p}/record_pig_out.jsonl", "--board", "stock"],
        "--board applies to go-piggy-go records",
    ),
    (
        "files: table without a space column",
        ["tournament", "go-piggy-go", *BOTS[:2], "--shots", "table:{p}/table_no_space.csv"],
        "columns",
    ),
    (
        "files: table with p_target abc",
        ["tournament", "go-piggy-go", *BOTS[:2], "--shots", "table:{p}/table_bad_p.csv"],
        "p_target 'abc'",
    ),
    # outputs, checked before any work
    ("outputs: --png a folder", [*SHOOT, "--png", "{p}/a-folder.png"], "is a folder"),
    ("outputs: --png wrong suffix", [*SHOOT, "--png", "{o}/shot.gif"], "must end in .png"),
    ("outputs: --gif missing folder", [*SHOOT, "--gif", "{o}/none/s.gif"], "does not exist"),
    ("outputs: --mp4 unwritable", [*SHOOT, "--mp4", "/proc/s.mp4"], "not writable"),
    ("outputs: --html under a file", [*SHOOT, "--html", "{p}/blocker/s.html"], "not a folder"),
    ("outputs: --out a folder", ["hitmap", *SWEEP, "--out", "{p}/a-folder.csv"], "is a folder"),
    ("outputs: --out unwritable", ["hitmap", *SWEEP, "--out", "/proc/h.csv"], "not writable"),
    (
        "outputs: --out missing folder",
        ["hitmap", *SWEEP, "--out", "{o}/none/h.csv"],
        "does not exist",
    ),
    ("outputs: --out a .txt", ["hitmap", *SWEEP, "--out", "{o}/h.txt"], "must end in"),
    (
        "outputs: --out .csv as parquet",
        ["hitmap", *SWEEP, "--out", "{o}/h.csv", "--format", "parquet"],
        "ends in .csv",
    ),
    (
        "outputs: --plot unwritable",
        ["hitmap", *SWEEP, "--out", "{o}/h.csv", "--plot", "/proc/h.png"],
        "not writable",
    ),
    (
        "outputs: --per-shot file a folder",
        ["hitmap", *SWEEP, "--out", "{p}/a-folder.csv", "--per-shot"],
        "is a folder",
    ),
    (
        "outputs: --cache a file",
        ["design", "compare", "stock", *SWEEP, "--cache", "{p}/blocker"],
        "is not a folder",
    ),
    (
        "compare: an unknown rule",
        ["design", "compare", "stock", "fast-spring", *SWEEP, "--rule", "sequential"],
        "unknown rule 'sequential': allowed are mean, spaces, per-map (paired: spaces' old name)",
    ),
    (
        "compare: --delta with the per-map rule",
        [
            "design",
            "compare",
            "stock",
            "fast-spring",
            *SWEEP,
            "--rule",
            "per-map",
            "--delta",
            "0.1",
        ],
        "--delta is the mean and spaces rules': leave it out with --rule per-map",
    ),
    (
        "compare: --budget with the spaces rule",
        ["design", "compare", "stock", "fast-spring", *SWEEP, "--rule", "spaces", "--budget", "60"],
        "--budget is the mean rule's (its looks are fixed over the whole board): leave it out "
        "with --rule spaces",
    ),
    (
        "compare: --budget too small for the first look",
        ["design", "compare", "stock", "fast-spring", "--budget", "1", "--workers", "1"],
        "--budget 1 is too small for the first look: give at least 16 s (10 pairs a space, "
        "2 designs, at 90 shots/s a worker)",
    ),
    (
        "outputs: compare --plot a folder",
        ["design", "compare", "stock", *SWEEP, "--plot", "{p}/a-folder.png"],
        "is a folder",
    ),
    (
        "outputs: --record a folder",
        ["play", "go-piggy-go", "--seats", "greedy,random", "--record", "{p}/a-folder.csv"],
        "is a folder",
    ),
    (
        "outputs: replay --gif missing folder",
        ["replay", "{p}/record_beside.jsonl", "--gif", "{o}/none/g.gif"],
        "does not exist",
    ),
    (
        "outputs: replay --html wrong suffix",
        ["replay", "{p}/record_beside.jsonl", "--html", "{o}/g.htm"],
        "must end in .html",
    ),
    ("outputs: board --png unwritable", ["board", "show", "--png", "/proc/b.png"], "writable"),
    ("outputs: demo --out under a file", ["demo", "--out", "{p}/blocker/demo"], "not a folder"),
    (
        "outputs: calibrate --out a .txt",
        ["calibrate", "{p}/table_bad_p.csv", "--out", "{o}/fit.txt"],
        "must end in .toml",
    ),
    (
        "outputs: calibrate --plot unwritable",
        ["calibrate", "{p}/table_bad_p.csv", "--plot", "/proc/fit.png"],
        "not writable",
    ),
    (
        "outputs: design game --cache under a file",
        ["design", "game", "stock", "--cache", "{p}/blocker/cache"],
        "not a folder",
    ),
    # parameters
    (
        "parameters: --param players against --seats",
        ["play", "go-piggy-go", "--seats", "greedy,random", "--param", "players=3"],
        "--param players=3 but --seats names 2 seats",
    ),
    (
        "parameters: --param players against --players",
        ["play", "go-piggy-go", "--players", "2", "--param", "players=3"],
        "--players 2",
    ),
    (
        "parameters: tournament --param players",
        ["tournament", "go-piggy-go", *BOTS, "--param", "players=4"],
        "--seats names 2",
    ),
    (
        "parameters: --param resolver",
        ["tournament", "go-piggy-go", *BOTS, "--param", "resolver=x"],
        "--shots",
    ),
    (
        "parameters: compare --workers -3",
        ["design", "compare", "stock", "--workers", "-3"],
        "argument --workers: -3 is out of range",
    ),
    ("parameters: hitmap --workers 0", ["hitmap", "--workers", "0"], "out of range"),
    (
        "parameters: --workers past the cap",
        ["hitmap", "--workers", str(MAX_WORKERS + 1)],
        "out of range",
    ),
    (
        "parameters: --games 0",
        ["tournament", "go-piggy-go", *BOTS[:4], "--games", "0"],
        "out of range",
    ),
    ("parameters: --precision 0.7", ["hitmap", *SWEEP, "--precision", "0.7"], "out of range"),
    ("parameters: --slowmo 100", [*SHOOT, "--slowmo", "100"], "out of range"),
    ("parameters: --seconds 0", ["sandbox", "--seconds", "0"], "out of range"),
    ("parameters: serve --port 70000", ["serve", "--port", "70000"], "out of range"),
    ("parameters: serve --workers 1", ["serve", "--workers", "1"], "out of range"),
    ("names: serve --design nope", ["serve", "--design", "nope"], "unknown design 'nope'"),
    ("parameters: --hold-at 0", ["solve", "pig-out", "--hold-at", "0"], "out of range"),
    (
        "parameters: --measurement-sd nan",
        ["calibrate", "x.csv", "--measurement-sd", "nan"],
        "not a finite number",
    ),
    (
        "parameters: --limit-energy-j -1",
        ["design", "check", "stock", "--limit-energy-j=-1"],
        "out of range",
    ),
    (
        "parameters: design game --games 0",
        ["design", "game", "stock", "--games", "0"],
        "out of range",
    ),
    # designs
    (
        "designs: the muzzle under the board",
        ["design", "check", "{p}/design_below.toml"],
        "under the board surface",
    ),
    (
        "designs: a 200000-character name",
        ["design", "check", "{p}/design_long_name.toml"],
        "characters long",
    ),
    # workers and parts
    (
        "parts: a corrupted part",
        ["hitmap", *SWEEP, "--out", "{o}/cut.csv", "--resume"],
        "part file {o}/cut.csv.parts/r8c3.json is corrupted",
    ),
    # memory and time bounds
    (
        "bounds: --shots 1000000000",
        ["hitmap", "--shots", "1000000000"],
        f"out of range (allowed: from 1 to {MAX_SHOTS})",
    ),
    (
        "bounds: sweep of 1000000000 values",
        ["design", "sweep", "--param", "muzzle_speed=1500:3000:1000000000"],
        "the count must be 2 to 50",
    ),
    (
        "bounds: scan of 1000000000 spreads",
        ["hitmap", "--spaces", "r8c3", "--aim-sd-scan", "0:6:1000000000", "--out", "{o}/s.csv"],
        "the count must be 2 to 50",
    ),
    (
        "bounds: sweep of nan",
        ["design", "sweep", "--param", "muzzle_speed=1500:nan:3"],
        "must look like",
    ),
    (
        "bounds: --games 10^12",
        ["tournament", "go-piggy-go", *BOTS[:4], "--games", str(10**12)],
        "out of range",
    ),
    (
        "bounds: solve to 100000",
        ["solve", "pig-out", "--preset", "pig", "--param", "target=100000"],
        "GiB of memory",
    ),
    # design optimise: refused before any shot
    *[
        (
            f"optimise: {what}",
            [
                "design",
                "optimise",
                "stock",
                *SWEEP,
                "--cache",
                "{o}/c",
                "--storage",
                "sqlite:///{o}/s.db",
                *argv,
            ],
            message,
        )
        for what, argv, message in (
            ("no --param", [], "give at least one --param"),
            (
                "an unknown pruner",
                ["--param", "pivot_height=40:80", "--pruner", "median"],
                "unknown pruner 'median': allowed are wilcoxon, none",
            ),
            (
                "a fidelity past the shots",
                ["--param", "pivot_height=40:80", "--fidelity", "20"],
                "--fidelity 20 must be a multiple of 1 from 1 to 1",
            ),
            ("an unknown field", ["--param", "wings=1:2"], "unknown or ambiguous design field"),
            ("a range outside", ["--param", "pivot_height=5:100"], "allowed range [10, 300]"),
            ("an empty range", ["--param", "pivot_height=80:80"], "from low to high"),
            ("a range of nan", ["--param", "pivot_height=nan:80"], "must look like"),
            ("a log range from 0", ["--param", "speed_sd=0:10:log"], "LOW above 0"),
            (
                "a field twice",
                ["--param", "pivot_height=40:80", "--param", "launcher.pivot_height_mm=50:60"],
                "twice",
            ),
            (
                "a box with invalid corners",
                ["--param", "pivot_height=10:100", "--param", "barrel_length=40:200"],
                "under the board",
            ),
            (
                "an unknown objective",
                ["--param", "pivot_height=40:80", "--objective", "mean-p,speed"],
                "unknown objective 'speed'",
            ),
            (
                "far rows of no far space",
                ["--param", "pivot_height=40:80", "--objective", "far-rows"],
                "names no space of the rows farthest",
            ),
            (
                "--min-reach past the spaces",
                ["--param", "pivot_height=40:80", "--min-reach", "5"],
                "more than the 1 spaces",
            ),
            (
                "--out a .txt",
                ["--param", "pivot_height=40:80", "--out", "{o}/b.txt"],
                "must end in .toml",
            ),
            (
                "--table a folder",
                ["--param", "pivot_height=40:80", "--table", "{p}/a-folder.csv"],
                "is a folder",
            ),
            (
                "--study with ESC",
                ["--param", "pivot_height=40:80", "--study", f"s{ESC}[2J"],
                "--study",
            ),
        )
    ],
    (
        "optimise: an unreachable storage",
        [
            "design",
            "optimise",
            "stock",
            *SWEEP,
            "--param",
            "pivot_height=40:80",
            "--cache",
            "{o}/c",
            "--storage",
            "sqlite:///{o}/none/s.db",
        ],
        "cannot open the study storage",
    ),
    (
        "optimise: a storage URL of nonsense",
        [
            "design",
            "optimise",
            "stock",
            *SWEEP,
            "--param",
            "pivot_height=40:80",
            "--cache",
            "{o}/c",
            "--storage",
            "nonsense",
        ],
        "cannot open the study storage",
    ),
]


@pytest.mark.parametrize(("argv", "message"), [c[1:] for c in BAD], ids=[c[0] for c in BAD])
def test_bad_input_is_one_line_and_exit_2_before_any_work(capsys, place, tmp_path, argv, message):
    argv = [a.format(p=place, o=tmp_path) for a in argv]
    if "--resume" in argv:  # an interrupted sweep whose part was cut short
        (tmp_path / "cut.csv.parts").mkdir()
        (tmp_path / "cut.csv.parts" / "r8c3.json").write_text('{"piggy_part": 1, "sett')
    before_out, before_in = files_under(tmp_path), files_under(place)
    code, out, err = run(capsys, *argv)
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith("piggy: error: "), err
    assert ESC not in err and out == ""
    assert message.format(p=place, o=tmp_path) in err
    assert files_under(tmp_path) == before_out and files_under(place) == before_in


@pytest.mark.slow
@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["shoot", "--layout", "/dev/zero", "--yaw", "0", "--pitch", "1"], "not a regular file"),
        (["replay", "/dev/urandom"], "not a regular file"),
        (["hitmap", "--seed", "-1", "--out", "{o}/h.csv"], "argument --seed"),
    ],
    ids=["layout /dev/zero", "replay /dev/urandom", "hitmap --seed -1"],
)
def test_bad_input_in_a_process_of_its_own(tmp_path, argv, message):
    """Endless files in a process of its own (a regression would read for ever)."""
    argv = [a.format(o=tmp_path) for a in argv]
    done = subprocess.run(
        [sys.executable, "-m", "sim.cli", *argv],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=tmp_path,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and message in done.stderr
    assert list(tmp_path.iterdir()) == []  # no <out>.parts/ left behind


# --- valid input: exit 0 ----------------------------------------------------------------------
def strict_json(text: str):
    """JSON as the standard has it: NaN and Infinity are not JSON."""

    def refuse(constant):
        raise AssertionError(f"{constant} in JSON output")

    return json.loads(text, parse_constant=refuse)


GOOD = [
    ("a shot, exact", [*SHOOT, "--exact", "--json"], "json"),
    ("the aim", ["aim", "--at", "r8c3", "--json"], "json"),
    ("the layout's own board", ["board", "show", "--layout", "{p}/on_rules.json"], "board 'rules'"),
    (
        "a board named in mathtext, drawn",
        ["board", "show", "--board", "{p}/board_math.toml", "--png", "{o}/board.png"],
        "$\\frac{$",
    ),
    ("a design named in mathtext", ["design", "check", "{p}/design_math.toml"], "is valid"),
    ("design check --json", ["design", "check", "stock", "--json"], "json"),
    (
        "a hit map of a design named in mathtext, drawn",
        [
            "hitmap",
            *SWEEP,
            "--design",
            "{p}/design_math.toml",
            "--out",
            "{o}/h.csv",
            "--plot",
            "{o}/h.png",
        ],
        "Wrote",
    ),
    (
        "--param players agreeing with --seats",
        ["tournament", "go-piggy-go", *BOTS, "--param", "players=2"],
        "2 games",
    ),
    ("a record with its board beside it", ["replay", "{p}/record_beside.jsonl"], "No winner"),
    (
        "a record's board replaced by --board",
        ["replay", "{p}/record_outside.jsonl", "--board", "stock"],
        "No winner",
    ),
    ("a one-shot hit map", ["hitmap", *SWEEP, "--out", "{o}/h.csv", "--json"], "json"),
    (
        "designs with no space in reach",
        [
            "design",
            "compare",
            "{p}/weak.toml",
            "{p}/weaker.toml",
            "--spaces",
            "r10c0",
            "--shots",
            "2",
            "--workers",
            "1",
            "--cache",
            "{o}",
            "--json",
        ],
        "json",
    ),
    (
        "solve a small game",
        ["solve", "pig-out", "--preset", "pig", "--param", "target=20", "--json"],
        "json",
    ),
    (
        "a one-trial design search",
        [
            "design",
            "optimise",
            "stock",
            *SWEEP,
            "--param",
            "pivot_height=40:80",
            "--trials",
            "1",
            "--cache",
            "{o}/c",
            "--storage",
            "sqlite:///{o}/s.db",
            "--out",
            "{o}/b.toml",
            "--json",
        ],
        "json",
    ),
]


#: The valid cases that run a whole design search: over a second each.
SLOW_GOOD = {"a one-trial design search"}


@pytest.mark.parametrize(
    ("argv", "expect"),
    [
        pytest.param(*c[1:], id=c[0], marks=[pytest.mark.slow] if c[0] in SLOW_GOOD else [])
        for c in GOOD
    ],
)
def test_valid_input_exits_0(capsys, place, tmp_path, argv, expect):
    code, out, err = run(capsys, *[a.format(p=place, o=tmp_path) for a in argv])
    assert code == 0, err
    if expect == "json":
        data = strict_json(out)
        if argv[:2] == ["design", "compare"]:  # nothing to estimate: null, with the reason
            assert data["designs"][0]["mean_p_target"] is None
            assert (
                data["designs"][0]["null_reason"] == "no selected space is in reach of this design"
            )
            assert data["comparisons"][0]["null_reason"].startswith("no selected space")
    else:
        assert expect in out


def test_json_output_refuses_nan_loudly(capsys):
    """NaN is not JSON: a figure that cannot be computed must be null with a reason, and
    one that slips through fails the command instead of printing invalid JSON."""
    from sim.cli.common import json_out

    with pytest.raises(ValueError, match="not JSON compliant"):
        json_out({"p": math.nan})
    assert capsys.readouterr().out == ""


def test_a_design_that_never_comes_down_has_a_null_reach_with_the_reason(capsys, monkeypatch):
    monkeypatch.setattr("sim.physics.aim.reach_mm", lambda design, height: (math.nan, math.nan))
    code, out, _ = run(capsys, "design", "check", "stock", "--json")
    data = strict_json(out)
    assert code == 0 and data["reach_on_board_mm"] is None
    assert data["reach_open_ground_mm"] is None and "never comes down" in data["reach_reason"]
    code, out, _ = run(capsys, "design", "check", "stock")
    assert code == 0 and "nan" not in out and "never comes down" in out


# --- every numeric option, property-based ------------------------------------------------------
def whole(low, high):
    return lambda v: isinstance(v, int) and low <= v <= high


def finite(low=-math.inf, high=math.inf, above=False):
    return lambda v: (
        isinstance(v, float) and math.isfinite(v) and low <= v <= high and not (above and v == low)
    )


SEED = whole(0, SEED_MAX)
#: (the command up to the option, the option, what a parsed value must satisfy)
NUMERIC = [
    *[
        (argv, "--seed", SEED)
        for argv in (
            ["shoot"],
            ["hitmap"],
            ["design", "compare", "stock"],
            ["design", "sweep", "--param", "muzzle_speed=1:2:3"],
            ["play", "go-piggy-go"],
            ["tournament", "go-piggy-go", "--seats", "greedy,random"],
            ["demo"],
            ["sandbox"],
        )
    ],
    *[
        (argv, "--shots", whole(1, MAX_SHOTS))
        for argv in (
            ["hitmap"],
            ["design", "compare", "stock"],
            ["design", "sweep", "--param", "muzzle_speed=1:2:3"],
        )
    ],
    *[
        (argv, "--workers", whole(1, MAX_WORKERS))
        for argv in (
            ["hitmap"],
            ["design", "compare", "stock"],
            ["design", "sweep", "--param", "muzzle_speed=1:2:3"],
        )
    ],
    *[
        (argv, "--precision", finite())
        for argv in (
            ["hitmap"],
            ["design", "compare", "stock"],
            ["design", "sweep", "--param", "muzzle_speed=1:2:3"],
        )
    ],
    (["shoot"], "--yaw", finite()),
    (["shoot"], "--pitch", finite()),
    (["shoot"], "--slowmo", finite(0.1, 20)),
    (["sandbox"], "--slowmo", finite(0.1, 20)),
    (["sandbox"], "--seconds", finite(0, 7 * 24 * 3600, above=True)),
    (["sandbox"], "--auto-fire", whole(0, 10_000)),
    (["play", "go-piggy-go"], "--players", whole(1, 99)),
    (["tournament", "go-piggy-go", "--seats", "greedy,random"], "--games", whole(1, 1_000_000)),
    (["solve", "pig-out"], "--hold-at", lambda v: v is None or all(map(whole(1, 100_000), v))),
    (["replay", "game.jsonl"], "--turn", whole(1, 1_000_000)),
    *[
        (["design", "check", "stock"], option, finite(0, 1e9, above=True))
        for option in ("--limit-energy-j", "--limit-energy-per-area-j-m2")
    ],
    (["design", "game", "stock"], "--games", whole(1, 1_000_000)),
    (["design", "game", "stock"], "--shots", whole(1, MAX_SHOTS)),
    (["design", "game", "stock"], "--precision", finite()),
    (["design", "game", "stock"], "--seed", SEED),
    (["design", "game", "stock"], "--workers", whole(1, MAX_WORKERS)),
    (["calibrate", "shots.csv"], "--measurement-sd", finite(0, 50, above=True)),
    (["calibrate", "--check=m.csv", "--layout=crowded"], "--refires", whole(20, 10_000)),
    (["calibrate", "--check=m.csv", "--layout=crowded"], "--seed", SEED),
    (["calibrate", "--check=m.csv", "--layout=crowded"], "--workers", whole(1, MAX_WORKERS)),
    *[
        (argv, "--readout", lambda v: v is None or finite(-1, 1)(v))  # None: "estimate"
        for argv in (
            ["calibrate", "shots.csv"],
            ["measure", "shots.csv", "--angles=a.csv", "--out=m.csv"],
        )
    ],
    (["design", "compare", "stock"], "--scale", finite(0, 1, above=True)),
    (["design", "compare", "stock"], "--delta", finite(0, 1, above=True)),
    (["design", "compare", "stock"], "--budget", finite(0, above=True)),
    (["hitmap"], "--budget", finite(0, above=True)),
    (["serve"], "--port", whole(0, 65535)),
    (["serve"], "--workers", whole(2, 64)),
    (["markers", "--out=sheet.png"], "--dpi", whole(72, 1200)),
    *[
        # the required options as single words (the list above reads the command's name
        # from the words that do not start with "-")
        (
            ["film", "--design=stock", "--angles=a.csv", "--out=f.mp4", "--camera-at=0,-1,1"],
            option,
            allowed,
        )
        for option, allowed in (
            ("--seed", SEED),
            ("--camera-at", lambda v: len(v) == 3 and all(finite()(x) for x in v)),
            ("--look-at", lambda v: len(v) == 3 and all(finite()(x) for x in v)),
            ("--fov", finite()),
            ("--fps", whole(1, 2000)),
            (
                "--size",
                lambda v: (
                    whole(32, 7680)(v[0]) and whole(32, 4320)(v[1]) and v[0] % 2 == v[1] % 2 == 0
                ),
            ),
            ("--exposure", finite(0, 1)),
            ("--blur-samples", whole(1, 64)),
            ("--noise", finite(0, 50)),
            ("--rolling-shutter", finite(0, 1)),
            ("--crf", whole(0, 51)),
            ("--gap", finite(0.01, 10)),
            ("--shot-seconds", finite(0.05, 10)),
            ("--gradient", finite(0, 1)),
            ("--vignette", finite(0, 1)),
        )
    ],
    *[
        (["design", "optimise", "stock"], option, allowed)
        for option, allowed in (
            ("--seed", SEED),
            ("--search-seed", SEED),
            ("--shots", whole(1, MAX_SHOTS)),
            ("--workers", whole(1, MAX_WORKERS)),
            ("--precision", finite()),
            ("--verify-precision", finite()),
            ("--fidelity", whole(1, MAX_SHOTS)),
            ("--remeasure", whole(0, 100)),
            ("--in-flight", whole(1, 64)),
            ("--trials", whole(1, 10_000)),
            ("--in-flight", whole(1, 64)),
            ("--min-reach", whole(1, 100_000)),
            ("--limit-energy-j", finite(0, 1e9, above=True)),
            ("--limit-energy-per-area-j-m2", finite(0, 1e9, above=True)),
        )
    ],
]

NUMBERISH = st.one_of(
    st.integers(-(10**30), 10**30).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "-1",
            "0",
            "1",
            "-0",
            "+3",
            " 5",
            "1_000",
            "0x10",
            "1e3",
            "1e999",
            "nan",
            "-inf",
            "\uff19",
            "\u0665",
            "\u00b2",
            "\u2460",
            "\uff11\uff12",
            "\u0663",
            "1.5\u0665",
            DIGITS,
            "",
            "2.5",
            str(2**63),
            str(2**63 - 1),
        ]
    ),
    st.text(max_size=30),
)
PARSER = build_parser()


@pytest.mark.parametrize(
    ("argv", "option", "allowed"),
    [n for n in NUMERIC],
    ids=[f"{' '.join(n[0][:2])} {n[1]}" for n in NUMERIC],
)
@settings(max_examples=60, derandomize=True, deadline=None)
@given(text=NUMBERISH)
def test_numeric_options_refuse_on_one_line_or_parse_within_range(argv, option, allowed, text):
    try:
        args = PARSER.parse_args([*argv, f"{option}={text}"])
    except InputError as exc:
        assert "\n" not in str(exc) and ESC not in str(exc)
        assert f"argument {option}" in str(exc)
        return
    value = getattr(args, option.lstrip("-").replace("-", "_"))
    assert allowed(value), (text, value)
    # ASCII digits only (issue 21): no other script's digits, no underscores
    assert text.isascii() and "_" not in text, (text, value)


#: Options with a parser of their own that reads text, not a number (each has its own
#: tests: a host name is checked in tests/sim/serve/).
PARSED_AS_TEXT = {(("serve",), "--allow-host")}


def _options_that_parse_numbers(parser, path=()) -> set[tuple]:
    found = set()
    for action in parser._actions:
        if action.choices and isinstance(action.choices, dict):  # subcommands
            for name, sub in action.choices.items():
                found |= _options_that_parse_numbers(sub, (*path, name))
        elif action.type is not None and action.option_strings:
            assert action.type not in (int, float), (path, action.option_strings)
            if (path, action.option_strings[-1]) not in PARSED_AS_TEXT:
                found.add((path, action.option_strings[-1]))
    return found


def test_every_numeric_option_is_fuzzed_and_checked_when_parsed():
    """A new numeric option must parse through sim/cli/common.py's checked types (never
    a bare int or float, which take -1, nan or 5000 digits) and be listed above."""
    listed = {
        (
            tuple(
                a
                for a in argv
                if not a.startswith("-")
                and a
                not in (
                    "stock",
                    "go-piggy-go",
                    "pig-out",
                    "greedy,random",
                    "muzzle_speed=1:2:3",
                    "game.jsonl",
                    "shots.csv",
                )
            )[:2],
            option,
        )
        for argv, option, _ in NUMERIC
    }
    assert _options_that_parse_numbers(PARSER) == listed


# --- a write that fails half-way (a full disk) -------------------------------------------------
def _frames():
    import numpy as np

    return [np.full((64, 64, 3), shade, np.uint8) for shade in (0, 128, 255)]


def _write_gif(path):
    from sim.views.video_files import write_gif

    write_gif(_frames(), path)


def _write_mp4(path):
    from sim.views.video_files import write_mp4

    write_mp4(_frames(), path)


def _write_png(path):
    import matplotlib.pyplot as plt

    from sim.views.pictures import save_figure

    save_figure(plt.subplots()[0], path)


def _write_parquet(path):
    from sim.studies.shots.datafiles import write_table

    write_table([{"space": "r8c3", "p_target": 0.5}] * 2000, path, "parquet")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full (Linux)")
@pytest.mark.parametrize(
    ("name", "write", "tmp_suffix"),
    [
        ("shot.gif", _write_gif, ".tmp.gif"),
        ("shot.mp4", _write_mp4, ".tmp.mp4"),
        ("shot.png", _write_png, ".tmp.png"),
        ("map.parquet", _write_parquet, ".tmp"),
    ],
)
def test_a_write_that_fails_half_way_is_one_line_and_leaves_no_tmp_file(
    tmp_path, capfd, name, write, tmp_suffix
):
    """The temporary file every writer writes first points at /dev/full, as on a full
    disk: one line naming the file, nothing from ffmpeg on the terminal, and neither
    the file nor its temporary left behind."""
    tmp = tmp_path / f".{name}.{os.getpid()}{tmp_suffix}"
    tmp.symlink_to("/dev/full")
    with pytest.raises(InputError) as raised:
        write(tmp_path / name)
    message = str(raised.value)
    assert message.startswith(f"cannot write {tmp_path / name}: ") and "\n" not in message
    assert capfd.readouterr().err == ""  # ffmpeg's own lines stay quiet
    assert list(tmp_path.iterdir()) == []
