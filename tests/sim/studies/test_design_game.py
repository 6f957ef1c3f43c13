"""piggy design game: a design's hit map as the table resolver of Go Piggy Go!
tournaments, and the game's figures with intervals (sim/studies/comparing/design_game.py)."""

import json

import pytest

import referee
from models.board import load_board, space_name
from models.errors import InputError
from sim.studies.comparing import design_game
from sim.studies.comparing.design_game import GameFigures, play_design, summary, table_of
from tests.helpers import run

SPACES = [space_name(s) for s in load_board("stock").spaces]


def flat(p):
    return dict.fromkeys(SPACES, p)


def test_a_hit_map_becomes_a_table_of_every_space():
    rows = [
        {"space": s, "reachable": s != "r0c0", "p_target": 0.5 if s != "r0c0" else None}
        for s in SPACES
    ]
    table = table_of(load_board("stock"), rows, "hit map h.csv")
    assert table["r0c0"] == 0.0 and table["r5c0"] == 0.5 and len(table) == len(SPACES)
    with pytest.raises(InputError, match=r"h\.csv does not cover r0c0: .*measure the whole"):
        table_of(load_board("stock"), rows[1:], "hit map h.csv")


def _legal(state, prefix):
    return next(a for a in state.legal_actions() if a.startswith(prefix))


def test_the_leader_is_the_player_furthest_along_when_the_shot_is_fired():
    """green-1 on row 2 (3 rows along) leads gold-1 and gold-2 on row 0 (1 each):
    green knocks gold-1 out (not the leader), gold knocks green-1 out (the leader),
    then green fires at gold-2 and misses."""
    game = referee.load_game("go_piggy_go", players=2)
    state = game.new_initial_state()
    for action in (
        "die 3",
        "move green-1 r2",
        "die 1",
        "move gold-1 r0",
        "die 1",
        "pass",
        "die 1",
        "move gold-2 r0",
        "die tractor",
        "fire gold-1",
        "knock gold-1",
        "die tractor",
        "fire green-1",
        "knock green-1",
        "die tractor",
        "fire gold-2",
        "knock none",
    ):
        state.apply_action(_legal(state, action) if action.startswith("move ") else action)
    figures = GameFigures()
    figures.add(game, state)
    assert figures.shots == [3] and figures.tractor_rolls == [3]
    assert figures.knocking_shots == [2] and figures.leader_knockbacks == [1]
    assert figures.turns == [state.turn] and figures.winner_order == [None]


@pytest.mark.slow
def test_shots_knock_out_at_the_tables_rate_and_the_die_shows_the_tractor_a_sixth_of_turns():
    """Every space at P = 0.6: the share of shots that knock out is 0.6 whatever the
    bots aim at; the die's tractor face comes up on 1/6 of the turns. Both inside
    the 95 % intervals (a ratio over games)."""
    figures, rates = play_design(flat(0.6), ["expected-gain", "greedy"], 150, seed=1)
    data = summary(figures, 2)
    low, high = data["shots_knocking_out"]["ci95"]
    assert low < 0.6 < high and high - low < 0.2
    rolls = design_game._ratio(figures.tractor_rolls, figures.turns)
    assert rolls["ci95"][0] < 1 / 6 < rolls["ci95"][1]
    assert data["games"] == 150
    assert sum(r["wins"] for r in rates["win_rates"].values()) == 150 - data["undecided"]
    order = data["wins_by_order_of_play"]
    assert sum(o["value"] for o in order) == pytest.approx(1 - data["undecided"] / 150)
    assert data["first_to_move_wins"]["fair_share"] == 0.5


def test_a_launcher_that_never_knocks_out_is_not_fired_by_the_expected_gain_bot():
    never, _ = play_design(flat(0.0), ["expected-gain", "expected-gain"], 30, seed=2)
    always, _ = play_design(flat(1.0), ["expected-gain", "expected-gain"], 30, seed=2)
    never_data, always_data = summary(never, 2), summary(always, 2)
    assert never_data["knock_outs_per_game"]["value"] == 0
    assert never_data["leader_knocked_back_per_game"]["value"] == 0
    assert always_data["shots_knocking_out"]["value"] == 1.0
    assert (
        always_data["tractor_rolls_fired"]["value"]
        > never_data["tractor_rolls_fired"]["value"] + 0.3
    )
    assert (
        always_data["game_length_turns"]["value"] > never_data["game_length_turns"]["value"]
    )  # knock-outs set players back


def test_same_seed_same_games():
    first = summary(play_design(flat(0.5), ["greedy", "greedy", "greedy"], 20, seed=4)[0], 3)
    again = summary(play_design(flat(0.5), ["greedy", "greedy", "greedy"], 20, seed=4)[0], 3)
    other = summary(play_design(flat(0.5), ["greedy", "greedy", "greedy"], 20, seed=5)[0], 3)
    assert first == again and first != other


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--games", "0"], "argument --games: 0 is out of range"),
        (["--seats", "greedy"], "takes 2 to 4 seats, got 1"),
        (["--seats", "greedy,human"], "unknown bot 'human' for go_piggy_go: bots are"),
        (["--param", "players=3"], "--param players: given by --seats"),
        (["--param", "die_faces=7,7"], "die_faces"),
        (["--precision", "0.7"], "--precision 0.7 is out of range"),
        (["--workers", "0"], "argument --workers: 0 is out of range"),
        (["--cache", "FILE/cache"], "/a-file/cache: folder "),
        (["--aimer", "robot"], "robot"),
    ],
)
def test_bad_input_exits_2_before_any_shot(capsys, tmp_path, argv, message):
    cache = tmp_path / "cache"
    (tmp_path / "a-file").write_text("not a folder")
    argv = [
        "design",
        "game",
        "stock",
        *(str(tmp_path / "a-file" / "cache") if a == "FILE/cache" else a for a in argv),
    ]
    if "--cache" not in argv:
        argv += ["--cache", str(cache)]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1
    assert not cache.exists()  # no hit map was started


@pytest.mark.slow
def test_design_game_on_the_command_line(capsys, tmp_path):
    """One shot a space (the cap of --precision) keeps the hit map cheap; it is
    cached, so the second run only plays the games: the same seed, the same output."""
    argv = (
        "design",
        "game",
        "stock",
        "--shots",
        "1",
        "--games",
        "24",
        "--workers",
        "1",
        "--cache",
        str(tmp_path / "cache"),
        "--seats",
        "expected-gain,greedy",
    )
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0 and err == ""  # quiet under --json
    data = json.loads(out)
    assert data["games"] == 24 and data["seats"] == ["expected-gain", "greedy"]
    assert data["hitmap"] == {"aimer": "child", "precision": 0.1, "shots_cap": 1, "sampler": "rqmc"}
    (stock,) = data["designs"]
    assert stock["design"] == "stock" and stock["hitmap"]["spaces"] == len(SPACES)
    assert stock["hitmap"]["shots"] == len(SPACES)
    for key in (
        "game_length_turns",
        "tractor_shots_per_game",
        "tractor_shots_per_turn",
        "shots_knocking_out",
        "leader_knocked_back_per_game",
        "first_to_move_wins",
    ):
        low, high = stock[key]["ci95"]
        assert low <= stock[key]["value"] <= high
    assert set(stock["win_rates"]) == {"expected-gain", "greedy"}
    code, again, _ = run(capsys, *argv, "--json")
    assert code == 0 and json.loads(again) == data
    code, text, _ = run(capsys, *argv)
    assert code == 0
    assert "game length (turns)" in text and "leader knocked back/game" in text
    assert f"{stock['game_length_turns']['value']:.1f} [" in text
    # The cached map is a hit map file: piggy tournament plays the same games on it.
    code, replayed, _ = run(
        capsys,
        "tournament",
        "go-piggy-go",
        "--seats",
        "expected-gain,greedy",
        "--shots",
        f"table:{stock['hitmap']['file']}",
        "--games",
        "24",
        "--json",
    )
    assert code == 0 and json.loads(replayed)["win_rates"] == stock["win_rates"]
