"""Signs of life: a long command's start line (what, the cap, the shots) and, off a
terminal, a progress line now and then; on a terminal the bar, not the lines."""

from __future__ import annotations

import dataclasses
import io
import os
import re
import subprocess
import sys

import pytest

from sim.cli import progress as progress_module
from sim.cli.progress import Progress
from sim.studies.comparing.comparison_rule import RULES
from tests.helpers import ROOT, read_terminal, run, said_lines

#: The line format off a terminal: done/total units, shots (once some are fired),
#: elapsed, left.
LINE = re.compile(
    r"^piggy: (?P<label>[a-z ]+): (?:look \d+: )?(?P<done>\d+)/(?P<total>\d+) spaces, "
    r"(?:(?P<shots>[\d,]+) shots, )?(?P<elapsed>.+) elapsed, (?P<left>about .+ left|time left not"
    r" known yet)"
)


class Clock:
    """A clock the test moves by hand: no test waits on a timer."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_off_a_terminal_a_line_comes_each_interval_with_shots_elapsed_and_left():
    clock, stream = Clock(), io.StringIO()
    update = Progress("hitmap", 10, "space", stream=stream, interval_s=20, clock=clock)
    clock.now = 5
    update(1, fired=100)
    assert stream.getvalue() == ""  # not yet: the interval has not passed
    clock.now = 20
    update(2, fired=100)
    assert stream.getvalue() == (  # one space since the first (which had the set-up)
        "piggy: hitmap: 2/10 spaces, 200 shots, 20 s elapsed, time left not known yet\n"
    )
    clock.now = 30
    update(3, fired=50)
    assert stream.getvalue().count("\n") == 1  # 10 s since the last line: none
    clock.now = 125
    update(5, fired=250)
    assert stream.getvalue().splitlines()[-1] == (
        "piggy: hitmap: 5/10 spaces, 500 shots, 2m05s elapsed, about 2m30s left"
    )  # 4 spaces in the 120 s since the first: 30 s a space
    update(None)
    assert stream.getvalue().splitlines()[-1] == (
        "piggy: hitmap: finished: 5/10 spaces, 500 shots in 2m05s"
    )
    update(6)  # after closing: nothing more
    assert stream.getvalue().count("\n") == 3


def test_a_note_is_written_at_once_and_a_count_that_goes_back_starts_the_next_look():
    clock, stream = Clock(), io.StringIO()
    update = Progress("design compare", 4, stream=stream, pass_name="look", clock=clock)
    clock.now = 8
    update(4, fired=80)
    update(4, note="mean +0.040 [+0.010, +0.070] at 10 pairs")
    assert stream.getvalue() == (
        "piggy: design compare: look 1: 4/4 spaces, 80 shots, 8 s elapsed, about 0 s left "
        "of this look; mean +0.040 [+0.010, +0.070] at 10 pairs\n"
    )
    clock.now = 30
    update(0)  # the next look counts the spaces again: its rate is its own
    clock.now = 50
    update(1, fired=80)
    assert (
        stream.getvalue()
        .splitlines()[-1]
        .startswith(
            "piggy: design compare: look 2: 1/4 spaces, 160 shots, 50 s elapsed, time left not"
        )
    )
    update = Progress("design compare", 8, stream=stream, pass_name="look", clock=clock)
    clock.now = 60
    update(8, fired=80)
    update(0)
    for done in range(1, 5):
        clock.now += 10
        update(done, note=f"note {done}")
    assert (
        stream.getvalue()
        .splitlines()[-1]
        .startswith(
            "piggy: design compare: look 2: 4/8 spaces, 80 shots, 50 s elapsed, about 40 s left"
        )
    )  # 10 s a space from the look's first


def test_a_line_comes_on_time_while_a_long_space_is_fired():
    clock, stream = Clock(), io.StringIO()
    update = Progress("hitmap", 4, stream=stream, interval_s=20, clock=clock, ticking=False)
    clock.now = 10
    update(1, fired=30)
    clock.now = 15
    update.tick()
    assert stream.getvalue() == ""  # 15 s: not yet
    clock.now = 45  # no space has finished since: the clock's thread asks all the same
    update.tick()
    assert stream.getvalue() == (
        "piggy: hitmap: 1/4 spaces, 30 shots, 45 s elapsed, time left not known yet\n"
    )


def test_the_clock_thread_asks_on_time_until_stopped_or_the_progress_is_gone():
    import weakref

    from sim.cli.progress import keep_time

    class Stop:  # the event's wait: times out twice, then is set
        def __init__(self) -> None:
            self.waits = iter([False, False, True])

        def wait(self, seconds: float) -> bool:
            return next(self.waits)

    class Asked:
        ticks = 0

        def tick(self) -> None:
            self.ticks += 1

    asked = Asked()
    keep_time(weakref.ref(asked), Stop(), 20.0)
    assert asked.ticks == 2
    gone = Asked()
    reference = weakref.ref(gone)
    del gone
    keep_time(reference, Stop(), 20.0)  # ends at once: nothing left to ask


@pytest.mark.parametrize(("terminal", "ticking"), [(False, True), (True, False)])
def test_off_a_terminal_a_clock_thread_runs_from_the_first_call_until_closed(terminal, ticking):
    import threading

    before = set(threading.enumerate())
    update = Progress("hitmap", 2, stream=io.StringIO(), terminal=terminal, interval_s=3600)
    assert set(threading.enumerate()) == before  # none before the work starts
    update(0)
    started = [t for t in set(threading.enumerate()) - before if t.name == "piggy-progress"]
    assert len(started) == (1 if ticking else 0)  # a bar draws itself: no thread
    update(None)
    for thread in started:
        thread.join(timeout=60)  # closing stops it at once: no wait for the interval
        assert not thread.is_alive()


def test_without_a_total_the_time_left_is_said_to_be_unknown():
    stream = io.StringIO()
    Progress("games", None, "game", stream=stream, interval_s=0, clock=Clock())(3)
    assert stream.getvalue() == "piggy: games: 3 games, 0 s elapsed, time left not known yet\n"


def test_on_a_terminal_the_bar_is_drawn_and_no_line_is_written():
    stream = io.StringIO()
    update = Progress("hitmap", 4, "space", stream=stream, terminal=True, interval_s=0)
    update(2, fired=40)
    update(None)
    drawn = stream.getvalue()
    assert "hitmap:" in drawn and "2/4" in drawn and "40 shots" in drawn
    assert "elapsed" not in drawn and "finished" not in drawn


def test_json_output_keeps_standard_error_for_what_went_wrong():
    stream = io.StringIO()
    update = Progress("hitmap", 4, stream=stream, enabled=False, interval_s=0)
    update(1, fired=10)
    update(None)
    assert stream.getvalue() == ""


HITMAP = ["hitmap", "--spaces", "r1c1,r2c5", "--shots", "20", "--workers", "1"]


def test_a_hitmap_piped_says_what_it_will_fire_then_how_far_it_is(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(progress_module, "LINE_INTERVAL_S", 0.0)  # a line at every space,
    monkeypatch.setattr(progress_module, "keep_time", lambda *_: None)  # and only then
    code, out, err = run(capsys, *HITMAP, "--out", str(tmp_path / "h.csv"))
    assert code == 0 and "Wrote" in out
    start, *lines, last = err.splitlines()
    assert start == (
        "piggy: a hit map of stock: 2 spaces, 20 shots a space (rqmc): 40 shots on 1 worker"
    )
    matched = [LINE.match(line) for line in lines]
    assert len(lines) == 3 and all(matched), lines
    assert [(m["done"], m["total"], m["shots"]) for m in matched if m] == [
        ("0", "2", None),  # before the first shot
        ("1", "2", "20"),
        ("2", "2", "40"),
    ]
    assert last.startswith("piggy: hitmap: finished: 2/2 spaces, 40 shots in ")
    assert "error" not in err and "warning" not in err.lower()


def test_a_refusal_from_inside_the_study_comes_alone_without_a_start_line(capsys, tmp_path):
    (tmp_path / "h.csv.parts").write_text("")  # where the sweep keeps its parts: a file
    code, _, err = run(capsys, *HITMAP, "--out", str(tmp_path / "h.csv"))
    assert code == 2 and err.count("\n") == 1
    assert err.startswith("piggy: error: ") and "is not a folder" in err


@pytest.mark.slow
def test_a_comparison_says_its_rule_its_looks_and_the_most_shots(capsys, tmp_path):
    argv = ["design", "compare", "stock", "fast-spring", "--spaces", "r1c1,r2c5"]
    code, _, err = run(
        capsys, *argv, "--shots", "20", "--workers", "1", "--cache", str(tmp_path / "cache")
    )
    assert code == 0
    start, *_, last = err.splitlines()
    # 2 spaces: the first look would be 340 pairs a space (680 over the board), above the
    # cap of 20, so the cap is the one look: 20 pairs x 2 spaces x 2 designs
    assert start == (
        "piggy: design compare stock vs fast-spring: the board mean until its sign (mean "
        "rule), 80 shots at the first look, at most 80 in 1 look on 1 worker"
    )
    assert last.startswith("piggy: design compare: finished: 2/2 spaces, 80 shots in ")


def test_a_precision_start_line_gives_the_cap_and_where_its_cost_is_told(capsys, tmp_path):
    argv = [*HITMAP[:3], "--precision", "0.3", "--shots", "20", "--workers", "1"]
    code, _, err = run(capsys, *argv, "--out", str(tmp_path / "h.csv"))
    assert code == 0
    assert err.splitlines()[0] == (
        "piggy: a hit map of stock: 2 spaces, each to ±0.3, at most 20 shots a space "
        "(rqmc): at most 40 shots, about 22 or fewer (11 a space where P is near 0.5, fewer "
        'elsewhere: docs/hitmap.md, "What a precision costs") on 1 worker'
    )


def test_a_precision_start_line_estimates_the_shots_of_a_coin():
    """1.96² x 0.25 / δ² shots a space where P is 0.5: 385 at ±0.05, 97 at ±0.1, the
    cap when it is lower."""
    from sim.cli import start_lines
    from sim.studies.shots.space_shots import SweepSpec

    spec = SweepSpec(board="stock", design="stock", stacks={}, spaces=("r8c3",) * 68, shots=1000)
    line = start_lines.hitmap(dataclasses.replace(spec, precision=0.05), 2)
    assert "at most 68,000 shots, about 26,180 or fewer (385 a space" in line
    line = start_lines.hitmap(dataclasses.replace(spec, precision=0.1, shots=50), 2)
    assert "about 3,400 or fewer (50 a space" in line


@pytest.mark.slow
def test_on_a_terminal_a_hitmap_draws_its_bar_not_the_lines(tmp_path):
    """Through a pseudo-terminal, as a person sees it."""
    import fcntl
    import pty
    import struct
    import termios

    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    argv = [sys.executable, "-m", "sim.cli", *HITMAP, "--out", str(tmp_path / "h.csv")]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=follower, env=env, timeout=300)
    os.close(follower)
    shown = read_terminal(leader)
    text = shown.decode()
    assert done.returncode == 0
    assert text.startswith("piggy: a hit map of stock: 2 spaces")
    assert "hitmap: 100%" in text and "2/2" in text and "40 shots" in text
    assert "elapsed" not in text and "finished" not in text


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(0.4, "0 s"), (59.4, "59 s"), (65, "1m05s"), (3725, "1h02m")],
)
def test_durations_read_at_a_glance(seconds, words):
    assert progress_module.duration(seconds) == words


@pytest.mark.parametrize("command", [["hitmap"], ["design", "compare"]])
def test_help_says_what_a_precision_costs_and_where_the_table_is(capsys, command):
    with pytest.raises(SystemExit):
        run(capsys, *command, "--help")
    shown = " ".join(capsys.readouterr().out.split())  # argparse's wrapping undone
    assert "±0.05 about 11,800 and 2,700" in shown
    assert 'docs/hitmap.md, "What a precision costs"' in shown
    document = (ROOT / "docs" / "hitmap.md").read_text(encoding="utf-8")
    assert "\n### What a precision costs\n" in document
    assert "](docs/hitmap.md#what-a-precision-costs)" in (ROOT / "README.md").read_text("utf-8")


def test_each_rule_of_a_comparison_says_its_question_its_looks_and_the_most_shots():
    from sim.cli import start_lines
    from sim.studies.comparing.comparison_rule import comparison_rule
    from tests.helpers import cli_spec

    spec = cli_spec(["hitmap", "--precision", "0.05"])  # the stock board's 68 spaces
    names = ["stock", "fast-spring"]
    said = {r: start_lines.compare(spec, names, comparison_rule(spec, r), 2) for r in RULES}
    # a pair is a shot of each design: 136 shots a space's pair over the board
    assert said["mean"] == (
        "design compare stock vs fast-spring: the board mean to ±0.025 (mean rule), 1,360 "
        "shots at the first look, at most 136,000 in 8 looks on 2 workers"
    )
    assert said["spaces"] == (
        "design compare stock vs fast-spring: each space until its sign is decided or "
        "within ±0.05 (spaces rule), at least 5,440 shots, at most 136,000 in 6 looks on 2 "
        "workers"
    )
    assert said["per-map"] == (
        "design compare stock vs fast-spring: each map on its own (per-map rule), each to "
        "±0.05, at most 1,000 shots a space: at most 136,000 shots on 2 workers"
    )
    budget = comparison_rule(spec, "mean", budget_s=20)
    assert start_lines.compare(spec, names, budget, 2, engines=2).endswith(
        "in each of 2 engines: the board mean to ±0.025 (mean rule), 2,720 shots at the "
        "first look, at most 272,000 in 8 looks on 2 workers; budget 20 s"
    )


@pytest.mark.parametrize("busy", [False, True])
def test_a_comparison_of_one_design_says_it_measures_its_hit_map_alone(
    capsys, tmp_path, monkeypatch, busy
):
    """One design has no partner: no pairs, no looks, its map at 50 shots a space. On
    a busy machine (here: a progress line due at every space) the lines are the same
    but for the progress lines between them."""
    if busy:
        monkeypatch.setattr(progress_module, "LINE_INTERVAL_S", 0.0)
        monkeypatch.setattr(progress_module, "keep_time", lambda *_: None)
    argv = ["design", "compare", "stock", "--spaces", "r1c1,r2c5", "--shots", "3"]
    code, _, err = run(capsys, *argv, "--workers", "1", "--cache", str(tmp_path / "cache"))
    assert code == 0
    start, last = said_lines(err)
    assert start == (
        "piggy: design compare stock: one design, nothing to compare with: its hit map "
        "alone, 3 shots a space: at most 6 shots on 1 worker"
    )
    assert last.startswith("piggy: design compare: finished: 2/2 spaces, 6 shots in ")


def test_a_design_game_and_a_scan_count_every_map_they_fire():
    from sim.cli import start_lines
    from tests.helpers import cli_spec

    spec = cli_spec(["hitmap", "--spaces", "r1c1,r2c5,r7c3", "--shots", "40"])
    assert start_lines.design_game(spec, ["stock", "fast-spring"], 500, 2) == (
        "design game stock, fast-spring: 2 hit maps: 3 spaces, 40 shots a space (rqmc): "
        "240 shots on 2 workers; then 500 games a design on the maps (no shot fired)"
    )
    assert start_lines.scan(spec, ["stock"], 7, 1) == (
        "aim spread scan of stock: 7 spreads, 7 hit maps: 3 spaces, 40 shots a space "
        "(rqmc): 840 shots on 1 worker"
    )


def _seconds(said: str) -> float:
    """A duration as the lines write it (45 s, 3m05s, 1h02m), in seconds."""
    if match := re.fullmatch(r"(\d+) s", said):
        return float(match[1])
    if match := re.fullmatch(r"(\d+)m(\d+)s", said):
        return 60.0 * int(match[1]) + int(match[2])
    match = re.fullmatch(r"(\d+)h(\d+)m", said)
    assert match, said
    return 3600.0 * int(match[1]) + 60.0 * int(match[2])


@pytest.mark.parametrize(("units", "each_s"), [(978, 0.1), (500, 0.06), (77, 4.0)])
def test_a_first_unit_100_times_slower_gives_no_estimate_3_times_off(units, each_s):
    """The first unit carries the one-off set-up (a film's still scene, a tournament's
    policy solved): 100 times the others. Every time left said is within 3 times the
    truth, and one is said before a tenth of the work is done."""
    clock, stream = Clock(), io.StringIO()
    update = Progress("film", units, "frame", stream=stream, interval_s=1.0, clock=clock)
    update(0)
    for done in range(1, units + 1):
        clock.now += each_s * (100 if done == 1 else 1)
        update(done)
    estimates = []
    for line in stream.getvalue().splitlines():
        match = re.search(r"(\d+)/\d+ frames, .* elapsed, about (.+) left", line)
        if match:
            truth = (units - int(match[1])) * each_s
            estimates.append((int(match[1]), _seconds(match[2]), truth))
    assert estimates and estimates[0][0] <= units / 10, stream.getvalue()
    for done, said, truth in estimates:
        assert truth / 3 - 1 <= said <= 3 * truth + 1, (done, said, truth)
