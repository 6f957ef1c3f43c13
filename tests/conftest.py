"""Shared fixtures: the stock toy, and small boards made for a test."""

import os
import sys

# The suite keeps its compiled bytecode even where PYTHONDONTWRITEBYTECODE is set:
# without it every pytest worker, every `piggy` a test starts and every spawned
# worker compiles the whole project again (about 2.5 s of CPU a worker, 0.3 s a
# process), run after run. Set before the imports below, so that they are kept too;
# the caches go to __pycache__ folders, which git ignores.
sys.dont_write_bytecode = False

import pytest  # noqa: E402

import referee  # noqa: E402
from models.board import board_from_dict, load_board  # noqa: E402
from models.design import load_design  # noqa: E402
from tests import signs_of_life  # noqa: E402
from tests.helpers import RULES_BOARD, SMALL_BOARD  # noqa: E402


def pytest_configure(config):
    """A line each twentieth of the tests, with the time and CPU gone (tests/signs_of_life.py)."""
    signs_of_life.configure(config)


def pytest_xdist_auto_num_workers(config):
    """``-n auto``: one worker a core for the fast loop (``-m "not slow"``), one more
    for a run with the slow tests. Many slow tests wait on a process they started (a
    server, a cluster, a child ``piggy``); a third worker fills that time on two cores:
    the whole suite in 637 s with 3 workers, 677 s with 2 (2 idle cores, issue 43). The
    fast loop's tests run in the worker itself, so a third worker only adds its own
    collection and imports: 38 s (69 s of CPU) with 2, 49 s (88 s) with 3."""
    cores = os.cpu_count() or 1
    fast_loop = "not slow" in (config.getoption("markexpr") or "")
    return cores if fast_loop else cores + 1


@pytest.fixture(scope="session")
def board():
    return load_board("stock")


@pytest.fixture(scope="session")
def design():
    return load_design("stock")


@pytest.fixture(scope="session")
def small_board():
    return board_from_dict(dict(SMALL_BOARD), source="small test board")


@pytest.fixture(scope="session")
def open_small_board():
    """The small board without its fence."""
    return board_from_dict(dict(SMALL_BOARD, fences=[]), source="open test board")


@pytest.fixture(scope="session")
def rules_board_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("boards") / "rules.toml"
    path.write_text(RULES_BOARD)
    return str(path)


@pytest.fixture
def make_game(rules_board_path):
    def make(players=2, **params):
        return referee.load_game("go_piggy_go", players=players, board=rules_board_path, **params)

    return make


@pytest.fixture(autouse=True)
def _user_cache_in_a_temporary_folder(tmp_path_factory, monkeypatch):
    """Commands that cache in the user's cache folder (design compare and sweep without
    --cache) write under a temporary one, never the real one (platformdirs reads
    XDG_CACHE_HOME on Linux)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp() / "user-cache"))
