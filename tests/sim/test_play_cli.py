"""piggy play, replay and tournament."""

import json

import pytest

from referee.records import read_record
from sim.cli.terminal import human_seat, parse_params
from tests.referee.positions import position
from tests.sim.test_cli import run


def test_bots_only_game_with_a_record_then_replay(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    code, out, _ = run(capsys, "play", "go-piggy-go", "--seats", "greedy,random",
                       "--shots", "scripted", "--seed", "4", "--record", str(record))
    assert code == 0 and "Winner:" in out and "T1 " in out
    name, params, actions = read_record(record)
    assert name == "go_piggy_go" and params["players"] == 2 and actions
    code, out, _ = run(capsys, "replay", str(record))
    assert code == 0 and out.count("--- after") >= 5 and "TROUGH" in out
    assert out.strip().splitlines()[-1].startswith("Winner:")


def test_quiet_game_prints_only_the_result(capsys):
    code, out, _ = run(capsys, "play", "go_piggy_go", "--seats", "greedy,greedy,random",
                       "--shots", "scripted:0.9", "--quiet", "--seed", "2")
    assert code == 0 and out.strip().splitlines() == [out.strip()] and "Winner" in out


def test_same_seed_same_game_at_the_command_line(capsys, tmp_path):
    for name in ("a", "b"):
        run(capsys, "play", "go-piggy-go", "--seats", "random,random", "--shots", "scripted",
            "--seed", "9", "--quiet", "--record", str(tmp_path / f"{name}.jsonl"))
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


def test_tournament_json(capsys):
    code, out, _ = run(capsys, "tournament", "go-piggy-go", "--seats", "greedy,random,random",
                       "--games", "30", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 30 and data["undecided"] == 0
    greedy = data["win_rates"]["greedy"]
    assert greedy["seats_played"] == 30 and greedy["ci95"][0] <= greedy["win_rate"]
    assert data["win_rates"]["random"]["seats_played"] == 60
    assert data["tractor_shots_per_game"] > 0 and 0 <= data["shots_knocking_out_fraction"] <= 1
    assert data["mean_turns"] > 10


@pytest.mark.parametrize(("argv", "message"), [
    (["play", "chess"], "unknown game 'chess'"),
    (["play", "go-piggy-go", "--seats", "greedy,wizard"], "unknown bot 'wizard'"),
    (["play", "go-piggy-go", "--seats", "greedy,greedy", "--players", "3"], "names 2 seats"),
    (["play", "go-piggy-go", "--seats", "greedy,greedy,greedy,greedy,greedy"], "2, 3 or 4"),
    (["play", "go-piggy-go", "--seats", "greedy,greedy", "--shots", "magic"], "unknown --shots"),
    (["play", "go-piggy-go", "--seats", "greedy,greedy", "--param", "die_faces"],
     "must look like name=value"),
    (["play", "go-piggy-go", "--seats", "greedy,greedy", "--param", "dice=3"],
     "unknown parameter 'dice'"),
    (["play", "go-piggy-go", "--seats", "greedy,greedy", "--record", "/no/dir/g.jsonl"],
     "cannot write"),
    (["tournament", "go-piggy-go", "--seats", "human,greedy"], "bots only"),
    (["tournament", "go-piggy-go", "--seats", "greedy,random", "--games", "0"],
     "argument --games: 0 is out of range (allowed: from 1 to 1000000)"),
    (["replay", "/no/such/record.jsonl"], "does not exist"),
])
def test_bad_input_exits_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_params_parse_numbers_booleans_and_text():
    assert parse_params(["tractor_move=3", "checkpoints_stick=false", "die_faces=1,2,tractor"]) \
        == {"tractor_move": 3, "checkpoints_stick": False, "die_faces": "1,2,tractor"}


def test_human_seat_reprompts_after_wrong_entries_and_takes_numbers_or_text(make_game):
    state = position(make_game(), {"green-1": "r1c1"}, die="1")
    legal = state.legal_actions()
    shown = []
    entries = iter(["99", "move green-1 r0c0", "", "2"])
    choose = human_seat(read=lambda prompt: next(entries), write=shown.append)
    assert choose(state) == legal[1]
    assert sum("is not one of your" in line for line in shown) == 3
    entries = iter(["  move green-1   r2c1 "])
    assert human_seat(read=lambda p: next(entries), write=shown.append)(state) == \
        "move green-1 r2c1"


def test_human_at_end_of_input_abandons_the_game_cleanly(capsys, monkeypatch):
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    code, _, err = run(capsys, "play", "go-piggy-go", "--seats", "human,greedy",
                         "--shots", "scripted")
    assert code == 0 and "game abandoned" in err and "Your move" not in err


@pytest.mark.parametrize(("game", "seats", "params"), [
    ("pig-out", "hold-at-25,random", []),
    ("pig-out", "optimal,hold-at-20", ["--param", "preset=pig"]),
    ("woolfy", "careful,careful,random", []),
    ("by-golly", "memory,forgetful,random", []),
])
def test_every_game_plays_records_and_replays(capsys, tmp_path, game, seats, params):
    record = tmp_path / "game.jsonl"
    code, out, _ = run(capsys, "play", game, "--seats", seats, "--seed", "1", "--record",
                       str(record), *params)
    assert code == 0 and ("Winner" in out or "Everyone" in out)
    code, replayed, _ = run(capsys, "replay", str(record))
    assert code == 0 and replayed.strip().splitlines()[-1] == out.strip().splitlines()[-2]


def test_the_by_golly_log_never_shows_the_hidden_deal(capsys):
    code, out, _ = run(capsys, "play", "by-golly", "--seats", "memory,memory", "--seed", "3")
    assert code == 0 and "run " not in out and "deal " not in out and "start " in out


def test_solve_reproduces_the_published_pig_figures(capsys):
    code, out, _ = run(capsys, "solve", "pig_out", "--preset", "pig", "--hold-at", "20",
                       "--json")
    data = json.loads(out)
    assert code == 0
    assert round(data["first_player_win_probability"], 4) == 0.5306
    assert round(data["hold_at_first_player_win_probability"]["20"], 4) == 0.5347
    assert data["policy_states"] == 100 ** 3 and data["solve_time_s"] > 0


@pytest.mark.parametrize(("argv", "message"), [
    (["solve", "pig_out"], "only the infinite deck"),
    (["solve", "woolfy"], "only pig_out can be solved"),
    (["solve", "pig_out", "--preset", "pig", "--param", "players=3"], "two players only"),
    (["tournament", "woolfy", "--seats", "careful,wolf"], "unknown bot 'wolf'"),
    (["play", "pig-out", "--seats", "hold-at-x,random"], "hold-at-N takes a whole number"),
])
def test_bad_input_for_the_other_games_exits_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err
