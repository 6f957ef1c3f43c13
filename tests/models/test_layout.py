import json

import pytest

from models.errors import InputError
from models.layout import ALL_PIGGIES, check_piggy, layout_from_dict, load_layout


def test_layout_round_trip(board):
    layout = layout_from_dict({"stacks": {"r8c3": ["gold-2", "pink-1"], "r5c1": ["green-1"]}},
                              board=board)
    assert layout.space_of("pink-1") == (8, 3)
    assert layout.level_of("pink-1") == 1 and layout.level_of("gold-2") == 0
    assert layout.to_dict() == {"board": "stock", "stacks": {"r5c1": ["green-1"],
                                                             "r8c3": ["gold-2", "pink-1"]}}


def test_twelve_piggies_in_four_colours():
    assert len(ALL_PIGGIES) == 12 and "blue-3" in ALL_PIGGIES
    with pytest.raises(InputError, match="unknown piggy 'purple-1'"):
        check_piggy("purple-1")
    with pytest.raises(InputError, match="unknown piggy 'gold-4'"):
        check_piggy("gold-4")


@pytest.mark.parametrize(("stacks", "message"), [
    ({"r8c3": ["gold-1", "gold-2", "gold-3"]}, "at most 2 may stack"),
    ({"r8c3": ["gold-1"], "r9c3": ["gold-1"]}, "stands on two spaces"),
    ({"r5c3": ["gold-1"]}, "is a hole"),
    ({"r99c3": ["gold-1"]}, "off board"),
    ({"r8c3": ["wolf-1"]}, "unknown piggy"),
])
def test_bad_layouts_are_refused(board, stacks, message):
    with pytest.raises(InputError, match=message):
        layout_from_dict({"stacks": stacks}, board=board)


def test_layout_files(tmp_path, board):
    assert load_layout("empty", board=board).stacks == {}
    good = tmp_path / "layout.json"
    good.write_text(json.dumps({"board": "stock", "stacks": {"r1c1": ["blue-1"]}}))
    assert load_layout(good).piggies == ["blue-1"]
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_layout(bad)
    with pytest.raises(InputError, match="does not exist"):
        load_layout(tmp_path / "missing.json")
