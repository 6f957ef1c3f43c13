"""The hostile pass's third round (issue 21): what piggy reads back is checked by
shape, not only by checksum — a sweep's parts and the design-compare cache (their
fields, counts, seeds) — and saved states hold only what the rules can produce
(a key twice refused, in states and records).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.errors import InputError
from sim.cli import main
from tests.helpers import cli_spec
from tests.sim.cli.fuzz_support import refused


# --- parts and caches checked by shape ---------------------------------------------------------
def _doubled(part):
    part["shots"] += part["shots"]


def _seed_changed(part):
    part["shots"][1]["seed"] += 1


def _flipped(part):
    part["shots"][0]["target_knocked"] = not part["shots"][0]["target_knocked"]


def _row_key_gone(part):
    del part["shots"][2]["ricochets"]


def _row_key_added(part):
    part["shots"][2]["note"] = 1


def _yaw_as_text(part):
    part["shots"][0]["yaw_deg"] = str(part["shots"][0]["yaw_deg"])


def _renumbered(part):
    part["shots"][0]["shot"] = 7


def _count_as_float(part):
    part["shots"][1]["collateral"] = 0.0


#: Edits of a part as its file holds it, its checksum recomputed after each, and what
#: the one line says.
PART_EDITS = [
    (lambda c: c.update(shots="many"), "'shots' must be a list"),
    (_doubled, "6 shots where this sweep makes 3"),
    (lambda c: c.update(shots=c["shots"][:2]), "2 shots where this sweep makes 3"),
    (lambda c: c.update(reachable="maybe"), "'reachable' must be true or false"),
    (lambda c: c.update(reachable=False), "neither"),
    (lambda c: c.update(space="r9c5"), "not the part of space r8c3"),
    (lambda c: c.update(target="pink-2"), "not the part of space r8c3 aimed at"),
    (lambda c: c.pop("arc"), "a part has the keys arc, reachable, shots, space, target"),
    (lambda c: c.update(arc="sideways"), "'arc' must be low, high or null"),
    (_count_as_float, "shot 1: its 'collateral' must be a whole number"),
    (_seed_changed, "shot 1: its seed"),
    (_flipped, "shot 0: target_knocked against knocked"),
    (_row_key_gone, "shot 2: a shot row has the keys"),
    (_row_key_added, "shot 2: a shot row has the keys"),
    (_yaw_as_text, "shot 0: its 'yaw_deg' must be a finite number"),
    (_renumbered, "shot 0: its index"),
]
SWEEP_ARGV = [
    "hitmap",
    "--spaces",
    "r8c3,r9c5",
    "--shots",
    "3",
    "--workers",
    "1",
    "--format",
    "csv",
]


@pytest.fixture(scope="module")
def r8c3_part():
    from sim.studies.shots.space_firing import run_space

    spec = cli_spec([*SWEEP_ARGV, "--out", "x.csv"])
    return spec, run_space(spec, "r8c3")


def edited_part(folder: Path, spec, part, edit) -> Path:
    """The part file of r8c3 in ``folder``, its part edited by ``edit`` as a file
    holds it, and checksummed again (a hand edit that knows the format)."""
    from sim.studies.running.parts import PART_FORMAT, content_hash, settings_hash, write_part

    folder.mkdir(exist_ok=True)
    path = write_part(folder, spec.key(), part)
    record = json.loads(path.read_text())
    edit(record["chunk"])
    record["content_sha256"] = content_hash(record["chunk"])
    assert (record["piggy_part"], record["settings_sha256"]) == (
        PART_FORMAT,
        settings_hash(spec.key()),
    )
    path.write_text(json.dumps(record))
    return path


@pytest.mark.parametrize(("edit", "message"), PART_EDITS)
def test_a_part_edited_and_checksummed_again_is_refused_before_any_shot(
    capsys, tmp_path, r8c3_part, edit, message
):
    edited_part(tmp_path / "h.csv.parts", *r8c3_part, edit)
    refused(
        capsys,
        [*SWEEP_ARGV, "--out", str(tmp_path / "h.csv"), "--resume"],
        "r8c3.json is corrupted (",
        tmp_path,
    )


@pytest.mark.parametrize(("edit", "message"), PART_EDITS)
def test_what_a_part_edit_is_refused_for(tmp_path, r8c3_part, edit, message):
    from sim.studies.running.parts import read_part
    from sim.studies.shots.space_shots import expected_part

    spec, _ = r8c3_part
    path = edited_part(tmp_path, *r8c3_part, edit)
    with pytest.raises(InputError, match="is corrupted") as caught:
        read_part(path, spec.key(), expected_part(spec, "r8c3"))
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_part_read_back_is_the_part_written(tmp_path, r8c3_part):
    from sim.studies.running.parts import read_part, write_part
    from sim.studies.shots.space_shots import expected_part

    spec, part = r8c3_part
    path = write_part(tmp_path, spec.key(), part)
    assert read_part(path, spec.key(), expected_part(spec, "r8c3")) == part


COMPARE = ["design", "compare", "stock", "--spaces", "r8c3,r9c5", "--shots", "3", "--workers", "1"]


@pytest.fixture(scope="module")
def compare_cache(tmp_path_factory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    assert main([*COMPARE, "--cache", str(cache), "--json"]) == 0
    return cache


def _cut(text: str) -> str:
    return text[: len(text) * 2 // 3]


def _edit_p(text: str) -> str:
    header, first, *rest = text.splitlines(keepends=True)
    cells = first.split(",")
    column = header.split(",").index("p_target")
    cells[column] = "0.999" if cells[column] != "0.999" else "0.5"
    return "".join([header, ",".join(cells), *rest])


def _dead_zone_made_up(text: str) -> str:
    header, first, *rest = text.splitlines(keepends=True)
    cells = first.split(",")
    cells[header.strip().split(",").index("dead_zone")] = "swamp\n"
    return "".join([header, ",".join(cells), *rest])


def _drop_shot(text: str) -> str:
    lines = text.splitlines(keepends=True)
    return "".join(lines[:2] + lines[3:])


def _knock_more(text: str) -> str:
    header, first, *rest = text.splitlines(keepends=True)
    cells = first.split(",")
    cells[header.split(",").index("knocked")] = '"pink-1,pink-1"'
    return "".join([header, ",".join(cells), *rest])


@pytest.mark.parametrize(
    ("which", "edit", "message"),
    [
        ("hitmap", _cut, "cut or edited"),
        ("hitmap", _edit_p, "does not match its shots"),
        ("hitmap", _dead_zone_made_up, "'dead_zone' must be one of out_of_reach"),
        ("shots", _cut, "cut or edited"),
        ("shots", _drop_shot, "shot"),
        ("shots", _knock_more, "'knocked' must be"),
    ],
    ids=[
        "rows cut",
        "rows edited",
        "a dead zone made up",
        "shots cut",
        "a shot dropped",
        "a shot edited",
    ],
)
def test_an_edited_compare_cache_is_refused_naming_it_before_any_shot(
    capsys, tmp_path, compare_cache, which, edit, message
):
    import shutil

    cache = tmp_path / "cache"
    shutil.copytree(compare_cache, cache)
    path = next(
        p for p in cache.glob("hitmap-*.csv") if p.name.endswith(".shots.csv") == (which == "shots")
    )
    path.write_text(edit(path.read_text()))
    assert path.name in refused(capsys, [*COMPARE, "--cache", str(cache)], message, tmp_path)


# --- saved states that could never happen --------------------------------------------------
def _state(name: str, **params) -> tuple:
    import referee

    game = referee.load_game(name, **params)
    return game, json.loads(game.new_initial_state().to_json())


def _gpg_won(player: int, winner: int, die) -> dict:
    game, data = _state("go_piggy_go")
    data["pieces"].update(dict.fromkeys(game.piggies_of(winner), "trough"))
    data["passed_checkpoints"].update(dict.fromkeys(game.piggies_of(winner), 2))
    data.update(phase="over", winner=winner, player=player, die=die)
    return data


@pytest.mark.parametrize(
    ("name", "params", "change", "message"),
    [
        (
            "woolfy",
            {},
            lambda d: d.update(phase="move", chosen="red", rolled="6"),
            "field 'rolled' must be",
        ),
        (
            "woolfy",
            {"die_faces": "1,1,2,2,3,3"},
            lambda d: d.update(phase="house", chosen="red", rolled="house"),
            "field 'rolled' must be",
        ),
        ("woolfy", {}, lambda d: d.update(rescue_armed=True), "a rescue armed"),
        (
            "go_piggy_go",
            {},
            lambda d: d.update(_gpg_won(player=0, winner=0, die=None)),
            "winner 0 after seat 0's move with die null",
        ),
        (
            "go_piggy_go",
            {},
            lambda d: d.update(_gpg_won(player=1, winner=0, die="2")),
            "winner 0 after seat 1's move",
        ),
        (
            "pig_out",
            {},
            lambda d: d.update(phase="card", spots=1, rollers=[], rolloff=[]),
            "spots 1: no roll of 2 dice",
        ),
        (
            "pig_out",
            {},
            lambda d: d.update(phase="card", spots=12, rollers=[], rolloff=[]),
            "spots 12: no roll",
        ),
        (
            "pig_out",
            {"preset": "pig"},
            lambda d: d.update(scores=[100, 3], winner=0, player=1, phase="over"),
            "won by the player who",
        ),
    ],
    ids=[
        "woolfy 6 on a 1-2-3 die",
        "woolfy house on a die without one",
        "woolfy armed rescue",
        "go no die",
        "go winner neither moved nor carried",
        "pig-out spots 1",
        "pig-out spots 12",
        "pig winner who did not bank",
    ],
)
def test_a_position_by_hand_is_held_to_what_the_rules_can_make(name, params, change, message):
    game, data = _state(name, **params)
    change(data)
    with pytest.raises(InputError, match="state") as caught:
        game.state_from_json(json.dumps(data))
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize("name", ["go_piggy_go", "pig_out", "woolfy", "by_golly"])
def test_a_key_twice_in_a_saved_state_is_refused(name):
    game, data = _state(name)
    text = '{"turn": 0, ' + json.dumps(data)[1:]
    with pytest.raises(InputError, match="'turn' appears twice"):
        game.state_from_json(text)


def test_a_key_twice_in_a_record_s_first_line_is_refused(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    record.write_text('{"game": "woolfy", "game": "pig_out", "params": {}}\n"roll red"\n')
    refused(capsys, ["replay", str(record)], "'game' appears twice", tmp_path)
