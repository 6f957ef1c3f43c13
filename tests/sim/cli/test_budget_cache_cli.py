"""What the command line says of a budget and of the cache: ``hitmap --budget``'s
options, its map and words, and a ``design compare`` answered from the cache saying
so (its end line, ``--json``), a budget too."""

import json
import subprocess
import sys
import time

import pytest

from tests.helpers import ROOT, run

COMPARE = ["design", "compare", "stock", "fast-spring", "--spaces", "r2c3,r9c2"]
COMPARE += ["--shots", "20", "--sampler", "mc", "--workers", "1"]


def test_a_budget_is_refused_with_an_aim_spread_scan_before_any_shot(capsys, tmp_path):
    code, out, err = run(
        capsys, "hitmap", "--spaces", "r0c3", "--aim-sd-scan", "0:6:2", "--budget", "30",
        "--out", str(tmp_path / "s.csv"),
    )  # fmt: skip
    assert (code, out) == (2, "")
    assert err == (
        "piggy: error: --budget is a hit map's (its looks span the board): leave it out "
        "with --aim-sd-scan, or cap the shots with --shots\n"
    )
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_a_budget_map_that_fits_says_every_space_reached_its_precision(capsys, tmp_path):
    """A budget far longer than two spaces to ±0.2 take: every look fired, the map
    written, its parts gone, and the words and --json say the precision was reached."""
    out = tmp_path / "m.csv"
    argv = ["hitmap", "--spaces", "r0c3,r5c1", "--precision", "0.2", "--budget", "600"]
    code, said, err = run(capsys, *argv, "--workers", "1", "--out", str(out), "--json")
    assert code == 0 and err == ""
    budget = json.loads(said)["budget"]
    assert budget["finished"] and budget["more_seconds"] is None
    assert budget["precision_aimed"] == 0.2 and budget["precision_reached"] <= 0.2
    assert out.exists() and not (tmp_path / "m.csv.parts").exists()


@pytest.mark.slow
def test_a_compare_answered_from_the_cache_says_so_a_budget_too(capsys, tmp_path):
    """The second run of the same comparison fires nothing: its end line and --json
    say that every shot came from the cache, and with --budget, that the budget fired
    none of them."""
    cache = ["--cache", str(tmp_path)]
    code, first, _ = run(capsys, *COMPARE, *cache)
    assert code == 0 and f"Hit maps cached in {tmp_path} (--cache" in first
    code, again, _ = run(capsys, *COMPARE, *cache, "--json")
    said = json.loads(again)["from_cache"]
    assert code == 0 and said["wholly"] and said["shots_fired_now"] == 0
    assert said["shots_read"] == said["shots"] > 0
    code, budget, _ = run(capsys, *COMPARE, *cache, "--budget", "600")
    assert (
        code == 0
        and (
            f"Answered from the cache: all {said['shots']:,} shots were read from {tmp_path} "
            "(--cache chooses another folder), fired by an earlier run; none fired now"
        )
        in budget
    )


def test_a_budget_counts_from_the_commands_start():
    """The interpreter's and the imports' start count against a budget: the clock of
    a command whose process has run half a second already says so."""
    code = (
        "import time; time.sleep(0.5); from sim.cli import command_began; "
        "print(time.monotonic() - command_began(None))"
    )
    started = time.monotonic()
    gone = float(subprocess.check_output([sys.executable, "-c", code], cwd=ROOT, text=True))
    # the kernel counts a process's start in ticks of 10 ms: its age is read up to one long
    assert 0.5 <= gone <= time.monotonic() - started + 0.01
