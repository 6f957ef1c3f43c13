"""The ``piggy`` command: the parser assembled from one module per command group.

Conventions (docs/architecture.md, "The command line"): every command has
``--help``; commands that report take ``--json``; anything random takes
``--seed``. Exit codes: 0 success, 2 bad input (one line on stderr naming the
problem), 1 an internal failure, 130 interrupted (Ctrl-C, SIGINT).
"""

from __future__ import annotations

import argparse
import os
import sys
import time

# Only the standard library (and interrupts.py, which needs nothing else) here: main()
# holds Ctrl-C from its first line, and imports the command groups after it.
from sim.cli.interrupts import forget, interruptible, was_interrupted


def build_parser() -> argparse.ArgumentParser:
    """The whole ``piggy`` parser, its commands in the order ``--help`` lists them."""
    from sim.cli.common import Parser

    parser = Parser(prog="piggy", description="Go Piggy Go! physics sandbox and referee.")
    parser.add_argument(
        "--version", action=_Version, help="print the installed package's name and version"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    for add in _adders():
        add(sub)
    return parser


def _adders() -> tuple:
    """Each command group's ``add_*``, in the order ``--help`` lists them (the groups
    imported here, once main() holds Ctrl-C)."""
    from sim.cli import (
        board,
        calibrate,
        demo,
        design,
        film,
        games,
        hitmap,
        markers,
        measure,
        replay,
        serve,
        shots,
        solve,
    )

    return (
        shots.add_shoot,
        shots.add_aim,
        design.add_design,
        board.add_board,
        games.add_play,
        replay.add_replay,
        games.add_tournament,
        hitmap.add_hitmap,
        shots.add_sandbox,
        serve.add_serve,
        solve.add_solve,
        calibrate.add_calibrate,
        markers.add_markers,
        film.add_film,
        measure.add_measure,
        demo.add_demo,
    )


def main(argv: list[str] | None = None) -> int:
    began = command_began(argv)
    interruptible()
    try:
        code = _main(argv, began)
        if was_interrupted() and code != 130:  # a Ctrl-C that a library swallowed
            raise KeyboardInterrupt
        return code
    except KeyboardInterrupt:
        print("piggy: interrupted", file=sys.stderr)
        return 130
    finally:
        forget()


def command_began(argv: list[str] | None) -> float:
    """When the command began, on ``time.monotonic()``'s clock: for ``piggy`` itself
    (``argv`` None: the command line), when its process started (Linux: /proc), so
    that a ``--budget`` counts the interpreter's and the imports' start as the user
    waits for them; for a call from Python, now."""
    now = time.monotonic()
    if argv is not None or not sys.platform.startswith("linux"):
        return now
    try:
        with open("/proc/self/stat", encoding="ascii") as stat:
            ticks = int(stat.read().rsplit(")", 1)[1].split()[19])  # field 22, starttime
        since_boot = time.clock_gettime(time.CLOCK_BOOTTIME)
        age = since_boot - ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return now
    return now - age if 0 <= age < 60 else now  # a process reused (an embedded one): now


def _main(argv: list[str] | None, began: float) -> int:
    from models.errors import InputError
    from models.text import shown
    from sim.cli.common import given_files

    _quiet_libraries()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if not hasattr(args, "func"):
            parser.print_help()
            return 0 if not argv else 2
        args.began = began  # a --budget's clock: from the command's start
        with given_files(args):
            return args.func(args)
    except InputError as exc:
        print(f"piggy: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # the reader went away (piggy ... | head): not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except Exception as exc:  # an internal failure: say so, briefly, unless debugging
        if os.environ.get("PIGGY_DEBUG"):
            raise
        print(
            f"piggy: internal error: {type(exc).__name__}: {shown(str(exc))} "
            "(set PIGGY_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return 1


#: Libraries whose own warnings are not the user's business: imageio-ffmpeg's "We had
#: to kill ffmpeg to stop it" (a reader closed before the video's end, as meant) or
#: "The frame size for reading ... is different"; a command's one line says what
#: matters. Their errors still show.
_QUIET_LOGGERS = ("imageio_ffmpeg",)


def _quiet_libraries() -> None:
    import logging

    for name in _QUIET_LOGGERS:
        logging.getLogger(name).setLevel(logging.ERROR)


class _Version(argparse.Action):
    """``piggy --version``: the installed package's name and version, read from its
    metadata only when asked (the parser is built for every command)."""

    def __init__(self, option_strings: list[str], dest: str, help: str) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, help=help)

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        from importlib import metadata

        from models.errors import PACKAGE

        try:
            version = metadata.version(PACKAGE)
        except metadata.PackageNotFoundError:  # run from a checkout never installed
            version = "unknown (not installed: pip install -e .)"
        print(f"{PACKAGE} {version}")
        parser.exit(0)
