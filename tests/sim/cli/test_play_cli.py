"""piggy play, replay and tournament."""

import io
import json
import re
import subprocess
import sys

import pytest

from referee.records import read_record
from sim.cli import main
from sim.cli.terminal import human_seat, parse_params
from tests.helpers import read_terminal, run, said_lines
from tests.referee.positions import position


def test_bots_only_game_with_a_record_then_replay(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    code, out, _ = run(
        capsys,
        "play",
        "go-piggy-go",
        "--seats",
        "greedy,random",
        "--shots",
        "scripted",
        "--seed",
        "4",
        "--record",
        str(record),
    )
    assert code == 0 and "Winner:" in out and "T1 " in out
    name, params, actions = read_record(record)
    assert name == "go_piggy_go" and params["players"] == 2 and actions
    code, out, _ = run(capsys, "replay", str(record))
    played = [line for line in out.splitlines() if line.startswith("T")]
    assert code == 0 and played[0].startswith("T1 ") and "rolled" in played[0]
    assert out.count("TROUGH") == 1  # piped: the log, then the final board once
    assert out.strip().splitlines()[-1].startswith("Winner:")


def test_replay_shows_the_board_after_a_chosen_turn(capsys, tmp_path):
    record = tmp_path / "game.jsonl"
    run(
        capsys,
        "play",
        "go-piggy-go",
        "--seats",
        "greedy,random",
        "--shots",
        "scripted",
        "--seed",
        "4",
        "--quiet",
        "--record",
        str(record),
    )
    code, out, _ = run(capsys, "replay", str(record), "--turn", "3")
    lines = out.strip().splitlines()
    assert code == 0 and [line.split()[0] for line in lines[:3]] == ["T1", "T2", "T3"]
    assert "Turn 4:" in out and lines[-1].startswith("(turn 3 of ")
    code, _, err = run(capsys, "replay", str(record), "--turn", "999")
    assert code == 2 and "--turn 999: the game has turns 1-" in err


def test_replay_of_a_record_that_stops_inside_the_hidden_deal(capsys, tmp_path):
    """A By Golly! record cut after two of its hidden deal moves has one turn with no
    log lines: replay shows the board and the result, not an internal error."""
    record = tmp_path / "game.jsonl"
    run(capsys, "play", "by_golly", "--seats", "memory,memory", "--quiet", "--record", str(record))
    header, *moves = record.read_text().splitlines()
    record.write_text("\n".join([header, *moves[:2]]) + "\n")
    code, out, _ = run(capsys, "replay", str(record))
    assert code == 0 and out.strip().splitlines()[-1] == "No winner after 0 turns"
    code, out, _ = run(capsys, "replay", str(record), "--turn", "1")
    assert code == 0 and out.strip().splitlines()[-1] == "(turn 1 of 1)"


def test_replay_steps_turn_by_turn_at_a_terminal(capsys, tmp_path, monkeypatch):
    record = tmp_path / "game.jsonl"
    run(
        capsys,
        "play",
        "go-piggy-go",
        "--seats",
        "greedy,random",
        "--shots",
        "scripted",
        "--seed",
        "4",
        "--quiet",
        "--record",
        str(record),
    )

    monkeypatch.setattr("sys.stdin", _Terminal("\n\nq\n"))
    monkeypatch.setattr("sys.stdout", _Terminal())
    code = main(["replay", str(record)])
    out = sys.stdout.getvalue()
    assert code == 0 and out.count("TROUGH") == 3  # turns 1, 2 and 3, then q
    assert "T4 " not in out and "[turn 3 of " in out


def test_play_says_where_knocked_piggies_went_and_what_decided_the_shots(capsys):
    code, out, _ = run(
        capsys,
        "play",
        "go-piggy-go",
        "--seats",
        "greedy,random,random",
        "--shots",
        "scripted:0.9",
        "--seed",
        "2",
    )
    assert code == 0 and out.startswith("Shots decided by a script")
    knocks = [line.strip() for line in out.splitlines() if line.strip().startswith("knock ")]
    assert knocks and all(": " in k for k in knocks)
    hits = [k for k in knocks if k != "knock none: nobody knocked out"]
    piggy = hits[0].split()[1].rstrip(":")
    assert f"{piggy} to pit" in hits[0]


def test_quiet_game_prints_only_the_result(capsys):
    code, out, _ = run(
        capsys,
        "play",
        "go_piggy_go",
        "--seats",
        "greedy,greedy,random",
        "--shots",
        "scripted:0.9",
        "--quiet",
        "--seed",
        "2",
    )
    assert code == 0 and out.strip().splitlines() == [out.strip()] and "Winner" in out


def test_same_seed_same_game_at_the_command_line(capsys, tmp_path):
    for name in ("a", "b"):
        run(
            capsys,
            "play",
            "go-piggy-go",
            "--seats",
            "random,random",
            "--shots",
            "scripted",
            "--seed",
            "9",
            "--quiet",
            "--record",
            str(tmp_path / f"{name}.jsonl"),
        )
    assert (tmp_path / "a.jsonl").read_text() == (tmp_path / "b.jsonl").read_text()


def test_tournament_json(capsys):
    code, out, _ = run(
        capsys,
        "tournament",
        "go-piggy-go",
        "--seats",
        "greedy,random,random",
        "--games",
        "30",
        "--json",
    )
    assert code == 0
    data = json.loads(out)
    assert data["games"] == 30 and data["undecided"] == 0
    greedy = data["win_rates"]["greedy"]
    assert greedy["seats_played"] == 30 and greedy["ci95"][0] <= greedy["win_rate"]
    assert data["win_rates"]["random"]["seats_played"] == 60
    assert data["tractor_shots_per_game"] > 0 and 0 <= data["shots_knocking_out_fraction"] <= 1
    assert data["mean_turns"] > 10
    assert data["shots"] == {"resolver": "scripted", "hit_probability": 0.5}
    code, out, _ = run(
        capsys,
        "tournament",
        "go-piggy-go",
        "--seats",
        "greedy,random",
        "--games",
        "3",
        "--shots",
        "scripted:0.8",
    )
    assert "Shots decided by a script: the target alone is knocked out with P 0.80" in out


def test_cooperative_tournament_counts_games_not_seats(capsys):
    from models.stats import wilson_interval

    code, out, _ = run(
        capsys,
        "tournament",
        "woolfy",
        "--seats",
        "careful,careful,careful",
        "--games",
        "12",
        "--json",
    )
    data = json.loads(out)
    team = data["team"]
    assert code == 0 and data["cooperative"] and "win_rates" not in data
    assert team["games"] == 12 and 0 <= team["wins"] <= 12
    assert team["ci95"] == [round(v, 4) for v in wilson_interval(team["wins"], 12)]
    code, out, _ = run(
        capsys, "tournament", "woolfy", "--seats", "careful,careful,careful", "--games", "12"
    )
    assert f"the table won {team['wins']} of 12 games" in out


class _Terminal(io.StringIO):
    """A stream that says it is a terminal."""

    def isatty(self):
        return True


@pytest.mark.parametrize(
    "argv",
    [
        ["tournament", "woolfy", "--seats", "careful,careful", "--games", "4"],
        ["solve", "pig_out", "--preset", "pig", "--param", "target=30"],
    ],
)
def test_progress_bars_on_a_terminal_and_never_under_json(monkeypatch, capsys, argv):
    monkeypatch.setattr("sys.stderr", _Terminal())
    assert main(argv) == 0
    shown = sys.stderr.getvalue()
    assert "100%" in shown and "/s]" in shown  # a bar that reached its end, with its rate
    capsys.readouterr()
    monkeypatch.setattr("sys.stderr", _Terminal())
    assert main([*argv, "--json"]) == 0
    assert sys.stderr.getvalue() == ""
    json.loads(capsys.readouterr().out)


@pytest.mark.slow
def test_progress_bar_on_a_real_terminal_and_quiet_when_piped():
    """Through a pseudo-terminal, as a person sees it; piped, the start line and the
    last progress line, nothing else on stderr."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    argv = [
        sys.executable,
        "-m",
        "sim.cli",
        "tournament",
        "woolfy",
        "--seats",
        "careful,careful",
        "--games",
        "3",
    ]
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))  # 80 columns
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=follower, text=True)
    os.close(follower)
    shown = read_terminal(leader)
    assert done.returncode == 0 and b"3/3" in shown and b"game" in shown
    piped = subprocess.run(argv, capture_output=True, text=True)
    assert piped.returncode == 0
    start, finished = said_lines(piped.stderr)
    assert start == "piggy: tournament of woolfy: 3 games, seats careful, careful"
    assert re.fullmatch(r"piggy: tournament: finished: 3/3 games in \d+ s", finished)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["play", "chess"], "unknown game 'chess'"),
        (["play", "go-piggy-go", "--seats", "greedy,wizard"], "unknown bot 'wizard'"),
        (["play", "go-piggy-go", "--seats", "greedy,greedy", "--players", "3"], "names 2 seats"),
        (["play", "go-piggy-go", "--seats", "greedy,greedy,greedy,greedy,greedy"], "2, 3 or 4"),
        (
            ["play", "go-piggy-go", "--seats", "greedy,greedy", "--shots", "magic"],
            "unknown --shots",
        ),
        (
            ["play", "go-piggy-go", "--seats", "greedy,greedy", "--param", "die_faces"],
            "must look like name=value",
        ),
        (
            ["play", "go-piggy-go", "--seats", "greedy,greedy", "--param", "dice=3"],
            "unknown parameter 'dice'",
        ),
        (
            ["play", "go-piggy-go", "--seats", "greedy,greedy", "--record", "/no/dir/g.jsonl"],
            "cannot write",
        ),
        (["tournament", "go-piggy-go", "--seats", "human,greedy"], "bots only"),
        (
            ["tournament", "go-piggy-go", "--seats", "greedy,random", "--games", "0"],
            "argument --games: 0 is out of range (allowed: from 1 to 1000000)",
        ),
        (["replay", "/no/such/record.jsonl"], "does not exist"),
    ],
)
def test_bad_input_exits_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1


def test_params_parse_numbers_booleans_and_text():
    assert parse_params(["tractor_move=3", "checkpoints_stick=false", "die_faces=1,2,tractor"]) == {
        "tractor_move": 3,
        "checkpoints_stick": False,
        "die_faces": "1,2,tractor",
    }


def test_human_seat_reprompts_after_wrong_entries_and_takes_numbers_or_text(make_game):
    state = position(make_game(), {"green-1": "r1c1"}, die="1")
    legal = state.legal_actions()
    shown = []
    entries = iter(["99", "move green-1 r0c0", "", "2"])
    choose = human_seat(read=lambda prompt: next(entries), write=shown.append)
    assert choose(state) == legal[1]
    assert sum("is not one of your" in line for line in shown) == 3
    entries = iter(["  move green-1   r2c1 "])
    assert (
        human_seat(read=lambda p: next(entries), write=shown.append)(state) == "move green-1 r2c1"
    )


def test_human_at_end_of_input_abandons_the_game_with_an_error(capsys, monkeypatch, tmp_path):
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n"))
    record = tmp_path / "game.jsonl"
    code, _, err = run(
        capsys,
        "play",
        "go-piggy-go",
        "--seats",
        "human,greedy",
        "--shots",
        "scripted",
        "--record",
        str(record),
    )
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("piggy: game abandoned: standard input ended") and "Your move" not in err
    assert not record.exists()


@pytest.mark.slow
def test_abandoned_game_exit_code_from_a_closed_stdin():
    """The installed command, its standard input closed at once: non-zero, one line."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "sim.cli",
            "play",
            "go-piggy-go",
            "--seats",
            "human,greedy",
            "--shots",
            "scripted",
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 1 and done.stderr.count("\n") == 1
    assert "game abandoned" in done.stderr


@pytest.mark.parametrize(
    ("game", "seats", "params"),
    [
        ("pig-out", "hold-at-25,random", []),
        pytest.param(  # the optimal bot solves the game first: over a second
            "pig-out", "optimal,hold-at-20", ["--param", "preset=pig"], marks=pytest.mark.slow
        ),
        ("woolfy", "careful,careful,random", []),
        ("by-golly", "memory,forgetful,random", []),
    ],
)
def test_every_game_plays_records_and_replays(capsys, tmp_path, game, seats, params):
    record = tmp_path / "game.jsonl"
    code, out, _ = run(
        capsys, "play", game, "--seats", seats, "--seed", "1", "--record", str(record), *params
    )
    assert code == 0 and ("Winner" in out or "Everyone" in out)
    code, replayed, _ = run(capsys, "replay", str(record))
    assert code == 0 and replayed.strip().splitlines()[-1] == out.strip().splitlines()[-2]


def test_the_by_golly_log_never_shows_the_hidden_deal(capsys):
    code, out, _ = run(capsys, "play", "by-golly", "--seats", "memory,memory", "--seed", "3")
    assert code == 0 and "run " not in out and "deal " not in out and "start " in out


@pytest.mark.slow
def test_solve_reproduces_the_published_pig_figures(capsys):
    code, out, _ = run(capsys, "solve", "pig_out", "--preset", "pig", "--hold-at", "20", "--json")
    data = json.loads(out)
    assert code == 0
    assert round(data["first_player_win_probability"], 4) == 0.5306
    assert round(data["hold_at_first_player_win_probability"]["20"], 4) == 0.5347
    assert data["policy_states"] == 100**3 and data["solve_time_s"] > 0


@pytest.mark.slow
@pytest.mark.parametrize("target", [40, 80])
def test_the_solver_s_memory_estimate_bounds_what_it_allocates(target):
    """The estimate ``piggy solve`` checks against the free memory is an upper bound of
    what the solver allocates (numpy's arrays, seen by tracemalloc), and a tight one."""
    import tracemalloc

    from referee import load_game, pig_solver
    from referee.pig_solver import solve_memory_bytes

    game = load_game("pig_out", preset="pig", target=target)
    tracemalloc.start()
    try:
        pig_solver.solve(game)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert 0.6 * solve_memory_bytes(target) <= peak <= solve_memory_bytes(target)


def test_solve_refuses_what_will_not_fit_before_it_starts(capsys, monkeypatch):
    from referee import pig_solver as solve

    free = 2 * 2**30
    monkeypatch.setattr(solve, "available_memory_bytes", lambda: free)
    monkeypatch.setattr(
        "referee.pig_solver.solve", lambda *a, **k: pytest.fail("the solve started")
    )
    code, out, err = run(capsys, "solve", "pig-out", "--preset", "pig", "--param", "target=1000")
    largest = max(t for t in range(1, 1001) if solve.solve_memory_bytes(t) <= free)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert (
        f"needs about {solve.solve_memory_bytes(1000) / 2**30:,.1f} GiB of memory "
        "(1000^3 states), and 2.0 GiB is available: choose a target of at most "
        f"{largest}"
    ) in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["solve", "pig_out"], "add --param deck=infinite"),
        (["solve", "pig_out", "--preset", "pig-out-2"], "physical deck cannot be solved"),
        (["solve", "woolfy"], "only pig_out can be solved"),
        (["solve", "pig_out", "--preset", "pig", "--param", "players=3"], "two players only"),
        (["tournament", "woolfy", "--seats", "careful,wolf"], "unknown bot 'wolf'"),
        (["play", "pig-out", "--seats", "hold-at-x,random"], "hold-at-N takes a whole number"),
        (
            ["tournament", "go-piggy-go", "--seats", "greedy,random", "--design", "nope"],
            "--design nope is for physical shots, and these are scripted",
        ),
        (
            [
                "play",
                "go-piggy-go",
                "--seats",
                "greedy,random",
                "--shots",
                "scripted:0.5",
                "--design",
                "wide-piggy",
            ],
            "--design wide-piggy is for physical shots",
        ),
    ],
)
def test_bad_input_for_the_other_games_exits_2(capsys, argv, message):
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err


def test_a_go_piggy_go_tournament_start_line_says_what_decides_the_shots_in_words():
    """The start line of a Go Piggy Go! tournament names what decides the tractor's
    shots as the summary does ("a script"), not the resolver's internal key."""
    argv = ["tournament", "go-piggy-go", "--seats", "greedy,random", "--games", "2"]
    piped = subprocess.run(
        [sys.executable, "-m", "sim.cli", *argv],
        capture_output=True,
        text=True,
    )
    assert piped.returncode == 0
    start = piped.stderr.splitlines()[0]
    assert start == (
        "piggy: tournament of go_piggy_go: 2 games, seats greedy, random; "
        "the tractor's shots decided by a script"
    )
