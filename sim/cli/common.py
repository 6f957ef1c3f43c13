"""What every command group shares: the one-line argument errors, numeric options
checked when parsed, the options that pick a board, design and layout, JSON
output, progress bars, and output paths checked before any work."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from models.errors import InputError, install_hint
from models.files import read_json, resolve_named_file
from models.numbers import ascii_decimal, ascii_whole
from models.seeds import SEED_MAX
from models.text import shown
from sim.cli.outputs import OPTIONS_OF, written

# The output checks live in sim/cli/outputs.py; every command group imports them from here.
from sim.cli.outputs import check_folder_writable as check_folder_writable
from sim.cli.outputs import check_output as check_output
from sim.cli.outputs import check_output_folder as check_output_folder
from sim.cli.outputs import check_table_output as check_table_output
from sim.cli.outputs import given_files as given_files

if TYPE_CHECKING:
    from models.board import Board
    from models.design import Design
    from models.layout import Layout

#: Local worker processes at most (each builds its own physics world).
MAX_WORKERS = 256

#: The namespace attribute naming the command whose arguments were left unread.
_UNREAD_BY = "_unread_by"
#: A value that starts with a minus and holds only numbers, commas and colons: a
#: point left of the board (``--camera-at -480,-700,850``), a range. argparse takes
#: only a lone negative number for a value, anything else starting with "-" for an
#: option ("expected one argument"); no option of ours looks like this.
_NUMBERS_STARTING_WITH_MINUS = re.compile(r"-\.?\d[\d.eE+\-,:]*")


class Parser(argparse.ArgumentParser):
    """argparse that reports bad usage on one line, with exit code 2."""

    def error(self, message: str):
        where = "" if self.prog == "piggy" else f"{self.prog}: "
        raise InputError(f"{where}{message} (see {self.prog} --help)")

    def parse_known_args(self, args=None, namespace=None):
        """As argparse's, with the innermost command that left arguments unread
        remembered, so that "unrecognized arguments" points at its --help (argparse
        reports them from ``piggy`` itself)."""
        parsed, extras = super().parse_known_args(args, namespace)
        if extras and not hasattr(parsed, _UNREAD_BY):
            setattr(parsed, _UNREAD_BY, self.prog)
        if not hasattr(parsed, OPTIONS_OF):  # the innermost command parses first
            setattr(parsed, OPTIONS_OF, tuple(written(a) for a in self._actions if a.dest))
        return parsed, extras

    def parse_args(self, args=None, namespace=None):
        parsed, extras = self.parse_known_args(args, namespace)
        if extras:
            command = getattr(parsed, _UNREAD_BY, self.prog)
            raise InputError(
                f"unrecognized arguments: {shown(' '.join(extras))} (see {command} --help)"
            )
        return parsed

    def _parse_optional(self, arg_string):
        """Numbers that start with a minus (``-480,-700,850``) are a value, not an option."""
        if _NUMBERS_STARTING_WITH_MINUS.fullmatch(arg_string):
            return None
        return super()._parse_optional(arg_string)

    def _get_value(self, action, arg_string):
        """Every value given on the command line is refused when empty or blank: an
        empty ``--spaces`` or ``--board`` is a mistake, never "the default"."""
        if action.nargs not in (argparse.PARSER, argparse.REMAINDER) and not arg_string.strip():
            raise argparse.ArgumentError(
                action,
                f"{shown(arg_string)!r} is empty: give a "
                "value, or leave the option out for its "
                "default",
            )
        return super()._get_value(action, arg_string)


def whole_number(low: int, high: int | None = None):
    """An argparse ``type``: a whole number (ASCII digits) from ``low`` to ``high``,
    refused on one line, with what is allowed, when the command line is parsed."""
    allowed = f"from {low} to {high}" if high is not None else f"{low} or more"

    def parse(text: str) -> int:
        value = ascii_whole(text.strip(), signed=True)
        if value is None:
            raise argparse.ArgumentTypeError(
                f"{shown(text, 40)} is not a whole number in ASCII digits (allowed: {allowed})"
            )
        if value < low or (high is not None and value > high):
            raise argparse.ArgumentTypeError(f"{value} is out of range (allowed: {allowed})")
        return value

    return parse


def finite_number(low: float = -math.inf, high: float = math.inf, *, above: bool = False):
    """An argparse ``type``: a finite number from ``low`` to ``high`` (strictly above
    ``low`` with ``above``)."""
    if above:
        allowed = f"more than {low:g}" + (f", at most {high:g}" if high < math.inf else "")
    elif math.isfinite(low) or math.isfinite(high):
        allowed = f"from {low:g} to {high:g}"
    else:
        allowed = "a finite number"

    def parse(text: str) -> float:
        value = ascii_decimal(text.strip())
        if value is None or not math.isfinite(value):
            raise argparse.ArgumentTypeError(
                f"{shown(text, 40)} is not a finite number in ASCII digits (allowed: {allowed})"
            )
        if value < low or value > high or (above and value == low):
            raise argparse.ArgumentTypeError(f"{value:g} is out of range (allowed: {allowed})")
        return value

    return parse


def engine_arg(p: argparse.ArgumentParser) -> None:
    """``--engine``: the physics engine, where not the design's own."""
    p.add_argument(
        "--engine",
        metavar="ENGINE",
        help="the physics engine: bullet, mujoco or mujoco-warp (MuJoCo with a hit map's "
        "spaces fired as batches on MuJoCo Warp, on a CUDA GPU where there is one) "
        "(default: the design's [physics] engine, bullet unless it says otherwise; "
        f"mujoco needs {install_hint('mujoco')}, mujoco-warp {install_hint('gpu')})",
    )


def seed_arg(p: argparse.ArgumentParser, what: str) -> None:
    """The ``--seed`` option: 0 to :data:`models.seeds.SEED_MAX`."""
    p.add_argument(
        "--seed", type=whole_number(0, SEED_MAX), default=0, help=f"{what} (0 to 2^63-1, default 0)"
    )


def workers_arg(p: argparse.ArgumentParser, help_text: str) -> None:
    """``--workers`` (local processes) and ``--scheduler`` (a Dask cluster instead)."""
    p.add_argument("--workers", type=whole_number(1, MAX_WORKERS), help=help_text)
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="run on this Dask distributed cluster instead (tcp://host:8786; its workers "
        "started with --nthreads 1; see docs/cluster.md)",
    )


def world_args(p: argparse.ArgumentParser, layout: bool = True, design_help: str = "") -> None:
    """``--board``, ``--design`` and ``--layout``; with ``design_help`` ``--design`` may
    be given more than once (a list, ``None`` when not given), that help said."""
    p.add_argument(
        "--board",
        help="board name in models/boards/ or a path to a board file (default: the "
        "layout file's own board, else stock)",
    )
    if design_help:
        p.add_argument("--design", action="append", help=design_help)
    else:
        p.add_argument(
            "--design",
            default="stock",
            help="launcher design name in models/designs/ or a path (default: stock)",
        )
    if layout:
        p.add_argument(
            "--layout",
            default="empty",
            help="layout JSON file of who stands where, 'empty' (default) or "
            "'crowded' (all 12 piggies)",
        )


def sandbox_scene_args(p: argparse.ArgumentParser) -> None:
    """``--board``, ``--design`` and ``--layout`` of the two sandboxes (the window and
    the browser's): one design, the demo's piggies by default."""
    p.add_argument(
        "--board", help="board name or path (default: the layout file's own board, else stock)"
    )
    p.add_argument("--design", default="stock", help="launcher design (default: stock)")
    p.add_argument(
        "--layout", help="layout JSON file, 'empty' or 'crowded' (default: the demo's piggies)"
    )


def json_out(data: dict) -> None:
    """``data`` as JSON on standard output. NaN and infinities are refused (they are
    not JSON): a number that cannot be computed is written as null, with a reason."""
    sys.stdout.write(json.dumps(data, indent=2, allow_nan=False) + "\n")


def load_layout_args(args):
    """The layout of ``--layout`` on the board of ``--board``, or, without ``--board``,
    on the layout file's own board (else stock); a conflict is refused. The board
    is ``layout.board``."""
    from models.board import load_board
    from models.layout import load_layout

    given = load_board(args.board) if args.board else None
    return load_layout(args.layout, board=given)


def board_reference(args) -> str:
    """What names the board of ``load_layout_args(args)`` for another process to load
    it: ``--board``, else the layout file's ``board`` (a known name, or its path made
    absolute), else ``stock``."""
    from models.board import BOARDS_DIR

    if args.board:
        return args.board
    if args.layout in ("empty", "crowded"):
        return "stock"
    data = read_json(args.layout, "layout")
    if not isinstance(data, dict) or "board" not in data:
        return "stock"
    path = resolve_named_file(data["board"], BOARDS_DIR, "board", base_dir=Path(args.layout).parent)
    return data["board"] if path.parent == BOARDS_DIR else os.path.abspath(path)


def load_scene(args) -> tuple[Board, Design, Layout | None]:
    """Board, design and (for commands with ``--layout``) layout of the options."""
    from models.board import load_board
    from models.design import load_design

    design = load_design(args.design)
    if not hasattr(args, "layout"):
        return load_board(args.board or "stock"), design, None
    layout = load_layout_args(args)
    return layout.board, design, layout


def progress_bar(
    total: int | None,
    enabled: bool,
    unit: str = "game",
    label: str | None = None,
    *,
    lines: bool = True,
    pass_name: str | None = None,
    start: str | None = None,
):
    """How far the work is (sim/cli/progress.py): a bar on standard error when it is
    a terminal, else a line now and then (``lines`` False: none), after the command's
    ``start`` line; nothing when not ``enabled`` (``--json``).

    Returns ``update(done, total=None, note=None, fired=0)``: call it with the number
    done so far (and the total, once it is known or when it changes; a ``note`` shown
    after the bar, e.g. a running estimate; ``fired``, the shots fired since the last
    call), or with None to close it."""
    from sim.cli.progress import Progress

    return Progress(
        label or f"{unit}s",
        total,
        unit,
        enabled=enabled,
        lines=lines,
        pass_name=pass_name,
        start=start,
    )


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


def aimer_args(p: argparse.ArgumentParser, default: str, vary: bool = False) -> None:
    """Who aims (and, for studies, which physical guesses vary)."""
    p.add_argument(
        "--aimer",
        default=default,
        help="who aims: perfect, adult, child (models/aimers/) or a path to an aimer "
        f"file (default: {default})",
    )
    p.add_argument(
        "--aim-sd",
        metavar="YAW,PITCH",
        help="the aimer's spread, 1 sd in degrees, overriding the aimer file's",
    )
    if vary:
        p.add_argument(
            "--vary",
            metavar="NAME=HALF,...",
            help="vary the guessed physics per shot by a relative half-range, "
            "e.g. friction=0.2,restitution=0.2,mass=0.1 (every body), or each material's: "
            "bale_friction, bale_restitution, piggy_friction, piggy_restitution, "
            "surface_friction, surface_restitution",
        )


def load_aimer_args(args):
    """The :class:`models.aimer.Aimer` of ``--aimer`` and ``--aim-sd``."""
    from models.aimer import load_aimer, parse_aim_sd

    aimer = load_aimer(args.aimer)
    if args.aim_sd is not None:
        aimer = aimer.with_spread(*parse_aim_sd(args.aim_sd))
    return aimer
