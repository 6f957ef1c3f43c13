"""What every command group shares: the one-line argument errors, the options that
pick a board, design and layout, JSON output, progress bars, writable paths."""

from __future__ import annotations

import argparse
import json
import os
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

from models.board import Board, load_board
from models.design import load_design
from models.errors import InputError
from models.layout import load_layout


class Parser(argparse.ArgumentParser):
    """argparse that reports bad usage on one line, with exit code 2."""

    def error(self, message: str):
        where = "" if self.prog == "piggy" else f"{self.prog}: "
        raise InputError(f"{where}{message} (see {self.prog} --help)")


def world_args(p: argparse.ArgumentParser, layout: bool = True) -> None:
    p.add_argument("--board", default="stock",
                   help="board name in models/boards/ or a path to a board file (default: stock)")
    p.add_argument("--design", default="stock",
                   help="launcher design name in models/designs/ or a path (default: stock)")
    if layout:
        p.add_argument("--layout", default="empty",
                       help="layout JSON file of who stands where, 'empty' (default) or "
                            "'crowded' (all 12 piggies)")


def json_out(data: dict) -> None:
    sys.stdout.write(json.dumps(data, indent=2) + "\n")


def load_scene(args) -> tuple[Board, object, object]:
    board = load_board(args.board)
    design = load_design(args.design)
    layout = load_layout(args.layout, board=board) if hasattr(args, "layout") else None
    return board, design, layout


def progress_bar(total: int | None, enabled: bool, unit: str = "game", label: str | None = None):
    """A progress bar (rate and time left) on standard error when it is a terminal.

    Returns ``update(done, total=None)``: call it with the number done so far (and the
    total, once it is known or when it changes), or with None to close the bar."""
    if not (enabled and sys.stderr.isatty()):
        return lambda done, total=None: None
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, desc=label, file=sys.stderr)

    def update(done, total=None):
        if done is None:
            bar.close()
            return
        if total is not None and total != bar.total:
            bar.total = total
        bar.update(done - bar.n)

    return update


@contextmanager
def waiting(label: str, enabled: bool = True):
    """For a wait with no steps to count: ``label`` and the time elapsed on standard
    error, refreshed twice a second, while the block runs (a terminal only)."""
    if not (enabled and sys.stderr.isatty()):
        yield
        return
    from tqdm import tqdm

    bar = tqdm(total=None, desc=label, file=sys.stderr, bar_format="{desc} {elapsed}")
    stop = threading.Event()

    def tick():
        while not stop.wait(0.5):
            bar.refresh()

    ticker = threading.Thread(target=tick, daemon=True)
    ticker.start()
    try:
        yield
    finally:
        stop.set()
        ticker.join()
        bar.close()


def check_writable(path: str) -> None:
    folder = Path(path).parent
    if not folder.is_dir() or not os.access(folder, os.W_OK):
        raise InputError(f"cannot write {path}: folder {folder} does not exist or is not "
                         "writable")


def aimer_args(p: argparse.ArgumentParser, default: str, vary: bool = False) -> None:
    """Who aims (and, for studies, which physical guesses vary)."""
    p.add_argument("--aimer", default=default,
                   help="who aims: perfect, adult, child (models/aimers/) or a path to an aimer "
                        f"file (default: {default})")
    p.add_argument("--aim-sd", metavar="YAW,PITCH",
                   help="the aimer's spread, 1 sd in degrees, overriding the aimer file's")
    if vary:
        p.add_argument("--vary", metavar="NAME=HALF,...",
                       help="vary the guessed physics per shot by a relative half-range, "
                            "e.g. friction=0.2,restitution=0.2,mass=0.1")


def load_aimer_args(args):
    """The :class:`models.aimer.Aimer` of ``--aimer`` and ``--aim-sd``."""
    from models.aimer import load_aimer, parse_aim_sd

    aimer = load_aimer(args.aimer)
    if args.aim_sd is not None:
        aimer = aimer.with_spread(*parse_aim_sd(args.aim_sd))
    return aimer
