"""The suite's signs of life (tests/signs_of_life.py): a line each twentieth of the
tests with the count, the share, the time and CPU gone and the failures, written by
the process that reports, with pytest-xdist's workers too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.signs_of_life import SignsOfLife

ROOT = Path(__file__).resolve().parents[1]


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_line_each_twentieth_and_at_least_every_30_s():
    clock, lines = Clock(), []
    life = SignsOfLife(lines.append, clock, cpu=lambda: 95.0)
    life.total = 2_000
    for _ in range(100):  # a twentieth: 100 tests
        clock.now += 0.25
        life.finished()
    life.failed.add("a_test_module.py::test_y")
    assert lines == ["tests: 100/2,000 done (5 %), 0m25s gone, 1m35s of CPU; 0 failed"]
    clock.now += 75  # one slow test: a line as it ends, though not a twentieth on
    life.finished()
    assert lines[-1] == "tests: 101/2,000 done (5 %), 1m40s gone, 1m35s of CPU; 1 failed"
    life = SignsOfLife(lines.append, clock, cpu=lambda: None)  # no psutil: no CPU said
    life.total = 2_000
    for _ in range(100):
        life.finished()
    assert lines[-1] == "tests: 100/2,000 done (5 %), 0m00s gone; 0 failed"


@pytest.mark.slow
def test_the_lines_come_from_a_run_on_two_xdist_workers(tmp_path):
    (tmp_path / "conftest.py").write_text(
        "from tests import signs_of_life\n\n\n"
        "def pytest_configure(config):\n    signs_of_life.configure(config)\n"
    )
    (tmp_path / "test_many.py").write_text(
        "import pytest\n\n\n@pytest.mark.parametrize('n', range(30))\n"
        "def test_n(n):\n    assert n != 7\n"
    )
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "-p", "no:cacheprovider", str(tmp_path)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("tests: ")]
    assert [line.split(" done")[0] for line in lines] == [
        "tests: 10/30",
        "tests: 20/30",
        "tests: 30/30",
    ], done.stdout
    assert lines[-1].endswith("; 1 failed") and "(100 %)" in lines[-1]


@pytest.mark.slow
def test_the_suites_own_run_writes_them():
    """tests/conftest.py wires them in: a run of some of the suite's fast tests."""
    fast = ["-n", "2", "-m", "not slow", "-p", "no:cacheprovider"]
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *fast, "tests/sim/cli/test_progress.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("tests: ")]
    assert lines and lines[0].startswith("tests: 10/"), done.stdout
