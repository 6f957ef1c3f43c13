"""The hostile pass's sixth round (issue 51): an output never overwrites an input.

Every command's every output option is walked against each file the command is
given: named the same, through a symbolic link, through a hard link, and (a board,
a design) by a known name. Each is refused on one line, exit 2, before any work,
with the input's bytes as they were and nothing written. A last check keeps the
walk whole: every output option the parser has is in it.
"""

from __future__ import annotations

import argparse
import os
import shutil
from pathlib import Path

import pytest

from models.board import BOARDS_DIR
from models.design import DESIGNS_DIR
from sim.cli import build_parser
from tests.helpers import ROOT
from tests.sim.cli.fuzz_support import refused

MESSAGE = "an output never overwrites an input"

#: What each kind of input file holds: a file the command reads without complaint.
_CONTENT = {
    "design": (DESIGNS_DIR / "stock.toml").read_text(),
    "board": (BOARDS_DIR / "stock.toml").read_text(),
    "aimer": (ROOT / "models" / "aimers" / "child.toml").read_text(),
    "layout": '{"board": "stock", "stacks": {"r8c3": ["blue-1"]}}\n',
    "angles": "pitch_deg,yaw_deg\n20,0\n",
    "shots": "pitch_deg,yaw_deg,x_mm,y_mm\n20,0,0,300\n",
    "video": "not a video\n",
    "camera": '{"fx": 1000, "fy": 1000, "cx": 960, "cy": 540}\n',
    "record": '{"game": "go-piggy-go"}\n',
}

#: Each command: its arguments (``{kind}``: an input file of that kind, the
#: option before it naming it), and its outputs: (option, suffix).
COMMANDS = {
    "shoot": (
        "shoot --yaw 0 --pitch 10 --design {design} --board {board} --layout {layout} "
        "--aimer {aimer}",
        (("--png", ".png"), ("--gif", ".gif"), ("--mp4", ".mp4"), ("--html", ".html")),
    ),
    "design check": ("design check {design} --board {board}", (("--png", ".png"),)),
    "design compare": (
        "design compare stock {design} --board {board} --layout {layout} --aimer {aimer} "
        "--spaces r8c3 --shots 3",
        (("--plot", ".png"), ("--html", ".html")),
    ),
    "design sweep": (
        "design sweep --param pivot_height=40:60:2 --design {design} --board {board} "
        "--layout {layout} --aimer {aimer} --spaces r8c3 --shots 3",
        (("--plot", ".png"),),
    ),
    "design optimise": (
        "design optimise {design} --param pivot_height=40:120 --board {board} "
        "--layout {layout} --aimer {aimer} --spaces r8c3 --shots 3",
        (("--out", ".toml"), ("--table", ".csv"), ("--plot", ".png")),
    ),
    "board show": ("board show --board {board} --layout {layout}", (("--png", ".png"),)),
    "play": (
        "play go-piggy-go --board {board} --design {design} --aimer {aimer}",
        (("--record", ".json"),),
    ),
    "replay": ("replay {record} --board {board}", (("--gif", ".gif"), ("--html", ".html"))),
    "hitmap": (
        "hitmap --design {design} --board {board} --layout {layout} --aimer {aimer} "
        "--spaces r8c3 --shots 3",
        (("--out", ".csv"), ("--plot", ".png")),
    ),
    "calibrate": (
        "calibrate {shots} --design {design} --board {board}",
        (("--out", ".toml"), ("--plot", ".png")),
    ),
    "calibrate --video": (
        "calibrate --video {video} --angles {angles} --camera-file {camera} "
        "--design {design} --board {board}",
        (("--measured", ".csv"), ("--overlay", ".mp4"), ("--out", ".toml"), ("--plot", ".png")),
    ),
    "markers": ("markers --board {board}", (("--out", ".png"),)),
    "film": (
        "film --design {design} --angles {angles} --board {board} --camera-at 0,-900,700",
        (("--out", ".mp4"), ("--truth", ".csv")),
    ),
    "measure": (
        "measure {video} --angles {angles} --camera-file {camera} --board {board} "
        "--design {design}",
        (("--out", ".csv"), ("--overlay", ".mp4")),
    ),
}


def _inputs(template: str) -> list[tuple[str, str]]:
    """(the option as written, the kind) of each input of a command's arguments."""
    words = template.split()
    return [
        (words[i - 1] if words[i - 1].startswith("--") else "positional", word[1:-1])
        for i, word in enumerate(words)
        if word.startswith("{")
    ]


def _argv(template: str, files: dict[str, Path], outputs: dict[str, Path]) -> list[str]:
    argv = [w.format(**{k: str(p) for k, p in files.items()}) for w in template.split()]
    for option, path in outputs.items():
        argv += [option, str(path)]
    return argv


def _files(folder: Path) -> dict[str, Path]:
    files = {}
    for kind, text in _CONTENT.items():
        files[kind] = folder / f"{kind}-input.txt"
        files[kind].write_text(text)
    return files


def _others(outputs, option: str, folder: Path) -> dict[str, Path]:
    """The command's other outputs, each given a fresh name (the output must be
    refused for the input alone)."""
    return {o: folder / f"other{suffix}" for o, suffix in outputs if o != option}


CASES = [
    (command, option, suffix, given, kind)
    for command, (template, outputs) in COMMANDS.items()
    for option, suffix in outputs
    for given, kind in _inputs(template)
]


@pytest.mark.parametrize(("command", "option", "suffix", "given", "kind"), CASES)
def test_an_output_named_as_an_input_is_refused_before_any_work(
    capsys, tmp_path, command, option, suffix, given, kind
):
    """The input renamed to the output's suffix (its content unchanged, so that it is
    read without complaint) and named again as the output."""
    template, outputs = COMMANDS[command]
    files = _files(tmp_path)
    shared = tmp_path / f"shared{suffix}"
    files[kind].rename(shared)
    files[kind] = shared
    argv = _argv(template, files, {option: shared, **_others(outputs, option, tmp_path)})
    err = refused(capsys, argv, MESSAGE, folder=tmp_path)
    assert f"{option} {shared} is the same file as" in err
    assert shared.read_text() == _CONTENT[kind]


@pytest.mark.parametrize("link", ["symbolic", "hard"])
@pytest.mark.parametrize(
    ("command", "option", "kind"),
    [
        ("measure", "--overlay", "video"),
        ("film", "--truth", "angles"),
        ("calibrate", "--out", "design"),
    ],
)
def test_an_output_linked_to_an_input_is_refused(capsys, tmp_path, command, option, kind, link):
    template, outputs = COMMANDS[command]
    files = _files(tmp_path)
    suffix = dict(outputs)[option]
    alias = tmp_path / f"alias{suffix}"
    (os.symlink if link == "symbolic" else os.link)(files[kind], alias)
    argv = _argv(template, files, {option: alias, **_others(outputs, option, tmp_path)})
    refused(capsys, argv, MESSAGE, folder=tmp_path)
    assert files[kind].read_text() == _CONTENT[kind]


@pytest.fixture
def known_folders(tmp_path, monkeypatch):
    """The known boards and designs, copied: a test that fails must not write over
    the checkout's own."""
    import models.board
    import models.design

    boards, designs = tmp_path / "boards", tmp_path / "designs"
    shutil.copytree(BOARDS_DIR, boards)
    shutil.copytree(DESIGNS_DIR, designs)
    monkeypatch.setattr(models.board, "BOARDS_DIR", boards)
    monkeypatch.setattr(models.design, "DESIGNS_DIR", designs)
    return boards, designs


def test_an_output_over_a_design_or_board_given_by_its_known_name_is_refused(
    capsys, tmp_path, known_folders
):
    boards, designs = known_folders
    shots = tmp_path / "shots.csv"
    shots.write_text(_CONTENT["shots"])
    before = (designs / "stock.toml").read_bytes()
    out = designs / "stock.toml"
    err = refused(capsys, ["calibrate", str(shots), "--out", str(out)], MESSAGE, folder=tmp_path)
    assert "is the same file as --design stock" in err
    assert out.read_bytes() == before
    # the base design of a search, and a board given by name
    optimise = ["design", "optimise", "stock", "--param", "pivot_height=40:120"]
    refused(capsys, [*optimise, "--out", str(out)], "the same file as BASE stock", tmp_path)
    out = boards / "stock.toml"
    argv = [*optimise, "--board", "stock", "--out", str(out)]
    refused(capsys, argv, "the same file as --board stock", tmp_path)


def test_an_output_over_the_board_a_layout_names_is_refused(capsys, tmp_path):
    board = tmp_path / "mine.toml"
    shutil.copy(BOARDS_DIR / "stock.toml", board)
    layout = tmp_path / "layout.json"
    layout.write_text('{"board": "mine.toml", "stacks": {}}\n')
    argv = ["design", "optimise", "stock", "--param", "pivot_height=40:120"]
    err = refused(capsys, [*argv, "--layout", str(layout), "--out", str(board)], MESSAGE, tmp_path)
    assert f"the same file as --layout {layout}" in err


@pytest.mark.slow
def test_an_existing_output_of_another_name_is_written_over_as_before(capsys, tmp_path):
    """The guard refuses inputs only: a previous run's output is replaced, as ever."""
    from tests.helpers import run

    out = tmp_path / "sheet.png"
    out.write_bytes(b"an old sheet")
    code, _, err = run(capsys, "markers", "--out", str(out))
    assert code == 0, err
    assert out.read_bytes().startswith(b"\x89PNG")


#: Options that write a file, by their dest: the walk above must name each.
_OUTPUT_DESTS = {"png", "gif", "mp4", "html", "plot", "out", "table", "record", "truth"}
_OUTPUT_DESTS |= {"overlay", "measured"}


def test_the_walk_names_every_output_option_of_every_command():
    """A command or output option added later must join the walk (``demo --out`` is
    a folder, checked as one)."""
    walked = {(c.split(" --")[0], o) for c, (_, outputs) in COMMANDS.items() for o, _ in outputs}
    found = set()

    def visit(parser: argparse.ArgumentParser, name: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub, child in action.choices.items():
                    visit(child, f"{name} {sub}".strip())
            elif action.dest in _OUTPUT_DESTS and name != "demo":
                found.add((name, action.option_strings[-1]))

    visit(build_parser(), "")
    assert found == walked
