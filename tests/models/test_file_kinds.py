"""A file given to the wrong option is told what it is, by its content, and which
option takes it; a file of the right kind, or of none the project knows, keeps the
loader's own words."""

import json
import re
import shutil

import pytest

from models.aimer import AIMERS_DIR
from models.board import BOARDS_DIR
from models.design import DESIGNS_DIR, load_design
from models.errors import InputError
from models.file_kinds import kind_of_bytes, kind_of_text
from models.layout import load_layout
from referee.records import read_record

HIT_MAP_HEADER = "space,row,col,x_mm,y_mm,distance_mm,reachable,arc,target,shots,p_target,"
HIT_MAP_HEADER += "p_target_ci_low,p_target_ci_high\n"


@pytest.fixture
def files(tmp_path):
    """One file of each kind, named so that the name says nothing of the kind."""
    made = {
        "design": shutil.copy(DESIGNS_DIR / "stock.toml", tmp_path / "a.toml"),
        "board": shutil.copy(BOARDS_DIR / "stock.toml", tmp_path / "b.toml"),
        "aimer": shutil.copy(AIMERS_DIR / "child.toml", tmp_path / "c.toml"),
    }
    for name, text in {
        "layout": json.dumps({"stacks": {"r8c3": ["gold-1"]}}),
        "shots": "pitch_deg,yaw_deg,x_mm,y_mm\n10,0,0,300\n",
        "hit map": HIT_MAP_HEADER + "r8c3,8,3,0,0,0,true,low,gold-1,20,0.5,0.3,0.7\n",
        "comparison": json.dumps({"verdict": "...", "spaces": [], "comparisons": []}),
        # piggy shoot --json's keys, its "bale" a table as a design's is
        "shot": json.dumps(
            {
                **{"board": "stock", "design": "stock", "layout": {"r8c3": ["gold-1"]}},
                **{"aim": {"yaw_deg": 0.0}, "seed": 0, "knocked": ["gold-1"]},
                **{"piggies": [], "bale": {"rest": "r8c3"}, "settled": True},
            },
            indent=2,
        ),
        "record": '{"game": "pig_out", "params": {"preset": "pig"}}\n"roll 3"\n',
    }.items():
        made[name] = tmp_path / f"{name.replace(' ', '-')}.txt"
        made[name].write_text(text)
    return made


def test_each_kind_is_told_by_its_content(files):
    for name, path in files.items():
        assert kind_of_text(path.read_text()).name == name
    assert kind_of_text("{not json") is None and kind_of_text("") is None
    assert kind_of_bytes(b"PAR1\x15\x04") is not None and kind_of_bytes(b"\x89PNG") is None


def test_a_design_given_as_a_layout_says_use_design_not_not_valid_json(files):
    with pytest.raises(InputError) as refused:
        load_layout(files["design"])
    said = str(refused.value)
    assert said == f"layout file {files['design']} is a design file, not a layout file: " + (
        "use --design (or piggy design check)"
    )
    assert "not valid JSON" not in said


@pytest.mark.parametrize(
    ("kind", "given", "told"),
    [
        ("design", "layout", "is a layout file, not a design file: use --layout"),
        ("design", "board", "is a board file, not a design file: use --board"),
        ("design", "aimer", "is an aimer file, not a design file: use --aimer"),
        ("design", "hit map", "is a hit map table (piggy hitmap's output), not a design file"),
        ("record", "layout", "is a layout file, not a record file: use --layout"),
        ("record", "shot", "is a shot's JSON (piggy shoot --json), not a record file"),
        ("record", "design", "is a design file, not a record file"),
        ("record", "hit map", "is a hit map table (piggy hitmap's output), not a record file"),
    ],
)
def test_another_file_given_as_a_design_or_a_record_is_named(files, kind, given, told):
    """Named by what it is, not "not valid JSON" or "not valid TOML"."""
    load = {"design": load_design, "record": read_record}[kind]
    with pytest.raises(InputError, match="^" + re.escape(f"{kind} file {files[given]} {told}")):
        load(files[given])


def test_a_results_json_given_as_a_layout_is_named(files):
    with pytest.raises(InputError, match="is the --json of a design comparison, not a layout"):
        load_layout(files["comparison"])


def test_a_shots_json_given_as_a_layout_or_a_design_is_named_as_a_shot(files):
    """A shot's JSON holds a "bale" table, as a design does: it is named a shot, not
    a design (whose --design would then say "not valid TOML")."""
    for load, expected in ((load_layout, "layout"), (load_design, "design")):
        with pytest.raises(InputError) as refused:
            load(files["shot"])
        assert str(refused.value) == (
            f"{expected} file {files['shot']} is a shot's JSON (piggy shoot --json), not a "
            f"{expected} file: it is a result, read by no option"
        )


def test_a_record_given_as_a_layout_says_use_replay(files):
    told = "is a game record (piggy play --record), not a layout file: use piggy replay"
    with pytest.raises(InputError, match=re.escape(told)):
        load_layout(files["record"])


@pytest.mark.parametrize(("kind", "load"), [("record", read_record), ("layout", load_layout)])
def test_a_parquet_table_given_as_a_record_or_a_layout_is_named(tmp_path, kind, load):
    table = tmp_path / "h.parquet"
    table.write_bytes(b"PAR1\x15\x04\x15\xf0\x01" + bytes(range(128, 256)))
    with pytest.raises(InputError, match=f"is a Parquet table, not a {kind} file"):
        load(table)


def test_a_record_keeps_the_readers_words_for_its_own_mistakes(tmp_path, files):
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"game": "pig_out"}\n{"roll": 3}\n')
    with pytest.raises(InputError, match="line 2 must be an action string"):
        read_record(broken)
    assert read_record(files["record"]) == ("pig_out", {"preset": "pig"}, ["roll 3"])


def test_a_file_of_the_right_kind_or_of_none_keeps_the_loaders_words(tmp_path, files):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_layout(bad)
    typo = tmp_path / "typo.json"
    typo.write_text(json.dumps({"stacks": {"r8c3": ["gold-9"]}}))
    with pytest.raises(InputError, match="unknown piggy 'gold-9'"):
        load_layout(typo)
