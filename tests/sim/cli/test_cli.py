"""The piggy command: happy paths and the error paths (exit 2, one line)."""

import itertools
import json
import os
import shutil
import subprocess
import sys

import pytest

from models.errors import install_hint
from sim.cli import main
from tests.helpers import ROOT, run


def test_shoot_json_has_the_documented_fields(capsys, tmp_path):
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps({"board": "stock", "stacks": {"r9c5": ["blue-1"]}}))
    code, out, _ = run(capsys, "shoot", "--layout", str(layout), "--at", "blue-1", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["knocked"] == ["blue-1"]
    piggy = data["piggies"]["blue-1"]
    assert {"space", "moved_mm", "knocked", "reason"} <= set(piggy)
    bale = data["bale"]
    assert {"first_contact_mm", "rest_mm", "contacts"} <= set(bale)
    assert bale["contacts"][0] == "blue-1" and len(bale["first_contact_mm"]) == 3
    assert len(bale["contact_points_mm"]) == len(bale["contacts"])
    assert bale["contact_points_mm"][0] == bale["first_contact_mm"]
    assert data["sim_time_s"] > 0 and data["aim"]["target"] == "blue-1"


def test_shoot_by_hand_is_byte_identical_for_a_seed(capsys):
    args = ("shoot", "--yaw", "20", "--pitch", "10", "--seed", "3", "--json")
    first = run(capsys, *args)[1]
    assert first == run(capsys, *args)[1]
    assert first != run(capsys, "shoot", "--yaw", "20", "--pitch", "10", "--seed", "4", "--json")[1]


@pytest.mark.slow
def test_shoot_prints_a_readable_verdict_and_a_picture(capsys, tmp_path):
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps({"stacks": {"r8c3": ["gold-2", "pink-1"]}}))
    png = tmp_path / "shot.png"
    code, out, _ = run(capsys, "shoot", "--layout", str(layout), "--at", "r8c3", "--png", str(png))
    assert code == 0
    assert "Knocked out:" in out and "pink-1" in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_aim_lists_both_arcs(capsys):
    code, out, _ = run(capsys, "aim", "--at", "r10c6", "--json")
    assert code == 0
    assert [s["arc"] for s in json.loads(out)["solutions"]] == ["low", "high"]


def test_board_show_and_design_check(capsys, tmp_path):
    code, out, _ = run(capsys, "board", "show", "--png", str(tmp_path / "board.png"))
    assert code == 0 and "TROUGH" in out and (tmp_path / "board.png").exists()
    assert out.splitlines()[-1] == f"Wrote {tmp_path / 'board.png'}"  # as every command says it
    code, out, _ = run(capsys, "design", "check", "fast-spring")
    assert code == 0 and "is valid" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["shoot", "--at", "r42c1"], "off board"),
        (["shoot", "--at", "r5c3"], "is a hole"),
        (["shoot", "--at", "gold-2"], "not on the board"),
        (["shoot", "--at", "purple-9"], "unknown piggy"),
        (["shoot", "--yaw", "10", "--pitch", "80"], "pitch 80 deg is out of range"),
        (["shoot", "--yaw", "400", "--pitch", "10"], "yaw 400 deg is out of range"),
        (["shoot", "--yaw", "10"], "give --yaw and --pitch"),
        (["shoot", "--yaw", "10", "--pitch", "5", "--hit-rule", "close"], "invalid choice"),
        (["shoot", "--design", "turbo", "--yaw", "1", "--pitch", "1"], "unknown design 'turbo'"),
        (["shoot", "--board", "tiny", "--yaw", "1", "--pitch", "1"], "unknown board 'tiny'"),
        (["aim", "--at", "r0c0", "--design", "stock"], None),
        (["shoot", "--yaw", "1", "--pitch", "1", "--png", "/no/such/dir/x.png"], "does not exist"),
        (["shoot", "--yaw", "1", "--pitch", "1", "--png", "shot.gif"], "must end in .png"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    if message is None:  # a control: this one is fine
        assert code == 0
        return
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("piggy: error:")
    assert message in err


def test_bad_files_exit_2(capsys, tmp_path):
    three = tmp_path / "three.json"
    three.write_text(json.dumps({"stacks": {"r8c3": ["gold-1", "gold-2", "gold-3"]}}))
    code, _, err = run(capsys, "shoot", "--layout", str(three), "--yaw", "0", "--pitch", "0")
    assert code == 2 and "at most 2 may stack" in err
    broken = tmp_path / "broken.toml"
    broken.write_text("[launcher]\nmuzzle_speed_mm_s = -5\n")
    code, _, err = run(capsys, "design", "check", str(broken))
    assert code == 2 and "'launcher.muzzle_speed_mm_s' = -5 is out of range" in err
    code, _, err = run(
        capsys, "shoot", "--layout", str(tmp_path / "none.json"), "--yaw", "0", "--pitch", "0"
    )
    assert code == 2 and "does not exist" in err


@pytest.mark.slow  # fires shots: over a second
def test_a_hit_map_of_an_empty_space_on_a_full_layout_says_what_to_do(capsys, tmp_path):
    """On the crowded layout every piggy stands somewhere: an empty space has no lone
    piggy to stand there, and the error says so and what to measure instead."""
    argv = ["hitmap", "--layout", "crowded", "--spaces", "r8c3,r9c3"]
    code, _, err = run(capsys, *argv, "--out", str(tmp_path / "h.csv"))
    assert code == 2 and err.count("\n") == 1
    assert err == (
        "piggy: error: r9c3 is empty and gold-1, the piggy a sweep stands alone on an empty "
        "space, is already on the board: measure spaces that have a piggy, or take gold-1 "
        "off the layout\n"
    )


def test_out_of_reach_target_is_a_clear_error(capsys, tmp_path):
    design = tmp_path / "weak.toml"
    design.write_text('name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 600.0\n')
    code, _, err = run(capsys, "shoot", "--design", str(design), "--at", "r10c0")
    assert code == 2 and "r10c0 is out of reach" in err and "reaches" in err


@pytest.mark.slow
def test_demo_writes_its_folder(capsys, tmp_path):
    import re

    from PIL import Image

    out_dir = tmp_path / "demo"
    code, out, err = run(capsys, "demo", "--out", str(out_dir))
    assert code == 0 and str(out_dir.resolve()) in out
    # whose shot it is, as piggy shoot says it (the demo's hit map is a child's)
    assert (
        "\nAimed by: perfect (no aim error: the launcher's own noise only)\nAimed at gold-2" in out
    )
    assert err.splitlines()[0] == (  # the start line: what it will do, its shots
        f"piggy: demo into {out_dir}: a shot with its videos, a hit map of 10 spaces x 6 "
        "shots (60 shots), a short bots-only game; about half a minute of CPU"
    )
    data = json.loads((out_dir / "shot.json").read_text())
    assert data["knocked"]  # the demo shot hits
    for name in (
        "shot.png",
        "shot.gif",
        "shot.mp4",
        "shot.html",
        "hitmap.csv",
        "hitmap.png",
        "game.jsonl",
        "game.gif",
        "index.html",
        "layout.json",
    ):
        assert (out_dir / name).stat().st_size > 100, name
    assert Image.open(out_dir / "shot.gif").n_frames > 20
    assert Image.open(out_dir / "game.gif").n_frames > 5
    index = (out_dir / "index.html").read_text()
    linked = set(re.findall(r'(?:src|href)=["\']([^"\']+)["\']', index))
    assert linked >= {
        "shot.gif",
        "shot.mp4",
        "shot.png",
        "shot.html",
        "hitmap.png",
        "hitmap.csv",
        "game.gif",
        "game.jsonl",
    }
    assert all((out_dir / name).exists() for name in linked)
    rows = (out_dir / "hitmap.csv").read_text().splitlines()
    assert rows[0].startswith(
        "space,row,col,x_mm,y_mm,distance_mm,reachable,arc,target,shots,"
        "p_target,p_target_ci_low,p_target_ci_high"
    )
    assert len(rows) == 1 + 10


def test_demo_into_an_unwritable_place_is_a_clear_error(capsys, tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, _, err = run(capsys, "demo", "--out", str(blocker / "demo"))
    assert code == 2 and f"folder {blocker} is not a folder" in err


@pytest.mark.slow
def test_installed_command_runs_quietly():
    """The installed console script ``piggy`` (not ``python -m sim.cli``): it prints
    help, pybullet's banner does not leak, and bad input is one line with exit 2."""
    piggy = shutil.which("piggy")
    if piggy is None:
        pytest.skip("the piggy command is not on PATH (pip install -e . puts it there)")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]),
    }  # this checkout's code
    done = subprocess.run([piggy, "--help"], capture_output=True, text=True, check=True, env=env)
    assert "shoot" in done.stdout and done.stderr == ""
    done = subprocess.run(
        [piggy, "shoot", "--yaw", "0", "--pitch", "99"], capture_output=True, text=True, env=env
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and done.stdout == ""
    assert done.stderr.startswith("piggy: error: pitch 99 deg is out of range")


@pytest.mark.parametrize(
    "argv",
    [
        [],
        ["shoot"],
        ["aim"],
        ["design", "check"],
        ["board", "show"],
        ["demo"],
        ["play"],
        ["replay"],
        ["tournament"],
        ["serve"],
    ],
)
def test_every_command_has_help(capsys, argv):
    with pytest.raises(SystemExit) as done:
        main([*argv, "--help"])
    assert done.value.code == 0
    assert "usage: piggy" in capsys.readouterr().out


def test_a_shots_text_says_repeated_strikes_once_with_their_count(capsys, tmp_path):
    """The demo's shot strikes the board twice on r8c3 in a row: said once, ×2."""
    from sim.studies.demo import DEMO_LAYOUT

    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(DEMO_LAYOUT))
    code, out, _ = run(capsys, "shoot", "--layout", str(layout), "--at", "gold-2")
    struck = next(line for line in out.splitlines() if line.startswith("The bale struck"))
    assert code == 0 and "-> the board on r8c3 ×2;" in struck, struck
    assert struck.count("the board on r8c3") == 1


def test_shoot_says_where_the_bale_struck_and_came_to_rest(capsys):
    from models.board import load_board, space_name

    code, out, _ = run(capsys, "shoot", "--yaw", "10", "--pitch", "5")
    assert code == 0
    assert "The bale struck, in order: the board in the trough -> the table (off the board)" in out
    assert "came to rest off the board" in out
    assert "Knocked out: nobody (no piggy on the board)" in out  # the default layout: empty
    code, out, _ = run(capsys, "shoot", "--at", "r9c5", "--exact", "--json")
    bale = json.loads(out)["bale"]
    board = load_board("stock")
    first = board.space_at_mm(bale["contact_points_mm"][0][:2])
    assert bale["contacts"][0] == "board" and space_name(first) == "r9c5"  # where it aimed
    code, out, _ = run(capsys, "shoot", "--at", "r9c5", "--exact")
    assert "struck, in order: the board on r9c5 -> " in out
    x_min, x_max, y_min, y_max = board.surface_extent_mm
    x, y = bale["rest_mm"][:2]
    assert bale["rest_on"] == "off-board" and "came to rest off the board" in out
    assert not (x_min <= x <= x_max and y_min <= y <= y_max)  # it left over the far end


@pytest.mark.parametrize(
    ("argv", "told"),
    [
        (["shoot", "--yaw", "0", "--pitch", "0", "--layout"], "is a design file, not a layout"),
        (["hitmap", "--spaces", "r8c3", "--layout"], "is a design file, not a layout"),
        (["calibrate"], "is a design file, not a shots file: use --design"),
    ],
)
def test_a_design_given_to_the_wrong_option_is_told_so_in_one_line(capsys, tmp_path, argv, told):
    """A design TOML read as a layout or as shots: not "not valid JSON" or "unknown
    column", but what the file is and where it goes, exit 2."""
    design = tmp_path / "mine.toml"
    design.write_text((ROOT / "models" / "designs" / "stock.toml").read_text())
    code, out, err = run(capsys, *argv, str(design))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"{design} {told}" in err and "not valid" not in err


def test_a_shot_at_an_empty_space_says_nobody_stood_there(capsys, tmp_path):
    """ "Knocked out: nobody" alone reads as a miss; at an empty space the shot says
    there was nobody to knock out, and at an occupied one it does not."""
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps({"stacks": {"r8c3": ["gold-1"]}}))
    code, out, _ = run(capsys, "shoot", "--layout", str(layout), "--at", "r0c3", "--exact")
    assert code == 0 and "Knocked out: nobody (no piggy stood on r0c3)\n" in out
    code, out, _ = run(capsys, "shoot", "--layout", str(layout), "--at", "r8c3", "--exact")
    assert code == 0 and "no piggy" not in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["shoot", "--at", "r2c1", "--arc", "high"], "no high arc reaches r2c1"),
        (["shoot", "--yaw", "1", "--pitch", "1", "--arc", "low"], "it goes with --at"),
    ],
)
def test_an_arc_that_cannot_be_fired_is_refused(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_design_check_gives_the_reach_on_the_board(capsys, tmp_path):
    code, out, _ = run(capsys, "design", "check", "fast-spring", "--json")
    data = json.loads(out)
    far = data["reach_open_ground_mm"][1]
    high = data["reach_on_board_mm"][1]
    span_high = data["board_span_mm"][1]
    assert far > span_high and high == span_high  # clipped to the board's farthest space
    assert len(data["spaces_in_reach"]) == data["spaces"] == 68
    weak = tmp_path / "weak.toml"
    weak.write_text('name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 1200.0\n')
    code, out, _ = run(capsys, "design", "check", str(weak))
    reach = next(line for line in out.splitlines() if "reach on board 'stock'" in line)
    assert code == 0 and " of 68 spaces" in reach and "too far: r0c0" in out
    assert "[launcher] muzzle_speed_mm_s = 1200 mm/s" in out  # the field as the file names it


def test_design_check_echoes_every_section_with_units_and_a_density_left_behind(capsys, tmp_path):
    """A designer sees that ``width_mm = 11`` was read, with every other field of each
    section and its unit, and that the bale's mass stayed stock's while it grew."""
    wide = tmp_path / "wide.toml"
    wide.write_text('name = "wide"\n[bale]\nwidth_mm = 11\n')
    code, out, _ = run(capsys, "design", "check", str(wide))
    assert code == 0
    for section in ("[launcher]", "[bale]", "[piggy]", "[tractor]", "[surfaces]", "[physics]"):
        assert f"  {section}" in out, section
    for field in (
        "width_mm = 11 mm",
        "mass_g = 1.5 g",
        "pivot_height_mm = 70 mm",
        "restitution = 0.3",
        "steps_per_s = 1000 /s",
        "air_density_kg_m3 = 1.2 kg/m³",
    ):
        assert field in out, field
    lines = out[out.index("note: bale:") :].splitlines()
    note = " ".join([lines[0], *itertools.takewhile(lambda s: s.startswith("    "), lines[1:])])
    note = " ".join(note.split())
    assert "+57% in volume" in note and "mass_g = 1.5 g as stock's" in note
    assert "would weigh 2.36 g" in note
    # mass given with the size, or the stock bale: nothing to note
    wide.write_text('name = "wide"\n[bale]\nwidth_mm = 11\nmass_g = 2.4\n')
    assert "note:" not in run(capsys, "design", "check", str(wide))[1]
    assert "note:" not in run(capsys, "design", "check", "stock")[1]
    spring = run(capsys, "design", "check", "spring-stock")[1]
    assert "muzzle_speed_mm_s = 1979.9 mm/s (from the spring)" in spring


def test_a_wait_without_steps_shows_its_time_on_a_terminal_only(monkeypatch, capsys, tmp_path):
    import io

    class Terminal(io.StringIO):
        def isatty(self):
            return True

    argv = ["shoot", "--yaw", "0", "--pitch", "0", "--html", str(tmp_path / "shot.html")]
    monkeypatch.setattr("sys.stderr", Terminal())
    assert main(argv) == 0
    assert "building the 3D page" in sys.stderr.getvalue()
    monkeypatch.setattr("sys.stderr", Terminal())
    assert main([*argv, "--json"]) == 0
    assert sys.stderr.getvalue() == ""


def test_the_cluster_mode_without_dask_says_how_to_install_it(capsys, tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)  # as if not installed
    code, _, err = run(
        capsys,
        "hitmap",
        "--scheduler",
        "tcp://127.0.0.1:1",
        "--spaces",
        "r8c3",
        "--shots",
        "1",
        "--out",
        str(tmp_path / "h.csv"),
    )
    assert code == 2 and err.count("\n") == 1
    assert f"Dask, an optional extra: {install_hint('cluster')}" in err


def test_a_one_space_hit_map_says_one_space(capsys, tmp_path):
    """The summary counts as a reader would: "1 space", not "1 spaces"."""
    argv = ["hitmap", "--spaces", "r8c3", "--shots", "2", "--workers", "1"]
    code, out, _ = run(capsys, *argv, "--out", str(tmp_path / "h.csv"))
    assert code == 0
    assert out.startswith("1 space, 1 in reach, rqmc, 2 shots a space (2 shots), aimer child:")


@pytest.mark.slow  # fires shots: over a second
def test_a_precision_the_cap_cut_short_is_not_claimed(capsys, tmp_path):
    """At most 10 shots cannot give ±0.05: the summary says which spaces stopped at the
    cap first instead of letting "to ±0.05" stand for them."""
    argv = ["hitmap", "--spaces", "r8c3,r2c3", "--precision", "0.05", "--shots", "10"]
    code, out, _ = run(capsys, *argv, "--workers", "1", "--out", str(tmp_path / "h.csv"))
    assert code == 0
    assert out.splitlines()[1] == (
        "not to ±0.05 on 2 of 2 spaces (r8c3, r2c3): they stopped at the cap of 10 shots "
        "first (raise --shots)"
    )
    code, out, _ = run(capsys, *argv, "--json", "--out", str(tmp_path / "j.csv"))
    assert code == 0 and json.loads(out)["capped_spaces"] == ["r8c3", "r2c3"]
    argv = ["hitmap", "--spaces", "r8c3", "--precision", "0.3", "--shots", "100"]
    code, out, _ = run(capsys, *argv, "--workers", "1", "--out", str(tmp_path / "k.csv"))
    assert code == 0 and "not to ±" not in out  # reached before the cap: nothing to say
