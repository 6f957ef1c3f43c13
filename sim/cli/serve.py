"""``piggy serve``: the sandbox in the browser (sim/serve/), one URL with a token."""

from __future__ import annotations

import argparse
import errno
import ipaddress
import os
import signal
import socket
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from models.board import BOARDS_DIR, load_board
from models.design import known_designs, load_design
from models.errors import InputError, install_hint
from models.files import known_names
from models.text import shown
from sim.cli.common import (
    board_reference,
    engine_arg,
    load_layout_args,
    sandbox_scene_args,
    whole_number,
)
from sim.physics.registry import resolve
from sim.serve.hosts import LOCAL_HOSTS, allowed_host
from sim.serve.sources import LAYOUT_WORDS

if TYPE_CHECKING:
    from sim.studies.running.workers import Pool

#: What the web extra brings; without it the command says how to get it.
WEB_EXTRA = install_hint("web")
LOOPBACK = "127.0.0.1"


def cmd_serve(args) -> int:
    load_design(args.design)  # first: a mistyped name is told at once
    board, layout = _scene_of(args)  # a bad file told before the web app is imported
    resolve(load_design(args.design), args.engine)  # heavy: after the files; jobs resolve theirs
    engine = args.engine or None
    try:
        import uvicorn

        from sim.serve.app import Server
    except ImportError as exc:
        raise InputError(
            f"piggy serve needs the web extra ({exc.name} is missing): {WEB_EXTRA}"
        ) from None
    design = args.design if args.design in known_designs() else os.path.abspath(args.design)
    listening = _bind(args.host, args.port)
    port = listening.getsockname()[1]
    if args.host != LOOPBACK:
        _warn_open(args.host)
    with _estimates_on(args) as cluster:
        server = Server(
            layout,
            workers=args.workers,
            board=board,
            design=design,
            engine=engine,
            hosts=_hosts(args),
            cluster=cluster,
        )
        # uvicorn's own logging setup (dictConfig) would close and replace every handler
        # the process already has (absl's, when OpenSpiel is loaded): only its levels are set
        config = uvicorn.Config(
            server.app(), log_config=None, log_level="warning", timeout_graceful_shutdown=2
        )
        url = f"http://{url_host(args.host)}:{port}/?token={server.token}"
        _serve_until_interrupted(uvicorn.Server(config), listening, url)
    return 0


def url_host(host: str) -> str:
    """The host of the URL to print for a server listening on ``host``: this machine's
    name for every address at once (0.0.0.0, ::), which no browser can open; an IPv6
    address in brackets."""
    try:
        if ipaddress.ip_address(host).is_unspecified:
            return socket.gethostname()
    except ValueError:
        pass  # a name: as given
    return f"[{host}]" if ":" in host else host


def _warn_open(host: str) -> None:
    print(
        f"piggy serve: warning: listening on {shown(host)}, not only this machine: "
        "anyone who can reach it and has the URL can use it (an SSH tunnel is safer: "
        "docs/serve.md)",
        file=sys.stderr,
    )


def _scene_of(args) -> tuple[str, str | None]:
    """The board (a name, or a path from the root) and the layout (``empty``,
    ``crowded``, a path from the root, or None: the demo's piggies where they fit on
    the board) each new tab reads (sim/serve/sources.py), checked now: a bad file is
    refused before the server starts."""
    if args.layout:
        load_layout_args(args)
        board = board_reference(args)
    else:
        board = args.board or "stock"
        load_board(board)
    if board not in known_names(BOARDS_DIR):
        board = os.path.abspath(board)
    layout = args.layout
    if layout and layout not in LAYOUT_WORDS:
        layout = os.path.abspath(layout)
    return board, layout


@contextmanager
def _estimates_on(args) -> Iterator[Pool | None]:
    """The Dask cluster of ``--scheduler``, connected and checked before the server
    starts (sim/studies/running/cluster.py); None without it."""
    if not args.scheduler:
        yield None
        return
    from sim.studies.running.cluster import Cluster
    from sim.studies.running.workers import pool_for

    with pool_for(Cluster(args.scheduler)) as pool:
        yield pool


def _serve_until_interrupted(serving, listening: socket.socket, url: str) -> None:
    """Say where to open the server, run it until Ctrl-C, then raise
    KeyboardInterrupt (exit code 130).

    Ctrl-C is ours from before the URL is printed, not only once uvicorn has put in
    its own handler. Before that it went to asyncio's (a cancel of its task that
    uvicorn's start-up could lose: the server ran on, seen on a loaded machine), or
    nowhere in a process started with Ctrl-C ignored (a background job): uvicorn
    then handed the signal back to "ignore" and the server ended with 0. Ours tells
    the server to stop, at whatever point it has reached; uvicorn hands the signal
    back to it once shut down."""
    interrupted = []

    def stop(signum, frame) -> None:
        interrupted.append(signum)
        serving.should_exit = True

    previous = signal.signal(signal.SIGINT, stop)
    print(f"Open {url}", flush=True)
    try:
        serving.run(sockets=[listening])
    finally:
        signal.signal(signal.SIGINT, previous)
    if interrupted:
        raise KeyboardInterrupt


def _hosts(args) -> frozenset[str] | None:
    """The Host names a server on loopback answers to: the local names and those of
    ``--allow-host``; None (any) on another address, which the user chose to open."""
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    if not loopback:
        return None
    return LOCAL_HOSTS | frozenset(args.allow_host or ())


def _allowed_host(text: str) -> str:
    """An argparse ``type``: a host name or an IP literal (sim/serve/hosts.py)."""
    try:
        return allowed_host(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _bind(host: str, port: int) -> socket.socket:
    """The listening socket, or an :class:`InputError` saying why there is none."""
    try:
        info = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except (socket.gaierror, UnicodeError):
        raise InputError(f"--host '{shown(host)}' is not an address of this machine") from None
    sock = socket.socket(info[0], socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(info[4])
    except OSError as exc:
        sock.close()
        why = (
            "is in use: choose another with --port"
            if exc.errno == errno.EADDRINUSE
            else f"cannot be opened ({os.strerror(exc.errno or 0)})"
        )
        raise InputError(f"port {port} on {shown(host)} {why}") from None
    sock.listen(128)
    return sock


def add_serve(sub) -> None:
    """The ``serve`` command."""
    p = sub.add_parser(
        "serve",
        help="the sandbox in a browser: place piggies, aim, fire, see the shot in 3D",
        description="Start a local web app and print the one URL (with its "
        "token) to open: the board in 3D, piggies placed by "
        "clicking, the aim, FIRE, the verdict, 'how likely?'. No "
        "display needed here; Ctrl-C stops it. Needs the web "
        f"extra ({WEB_EXTRA}).",
    )
    _add_address_options(p)
    sandbox_scene_args(p)
    p.add_argument(
        "--workers",
        type=whole_number(2, 64),
        default=max(2, min(4, os.cpu_count() or 2)),
        help="worker processes for shots and estimates, 2 to 64 (default: the CPUs, 2 to 4)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help='run the estimates ("how likely?") on this Dask distributed cluster '
        "(tcp://host:8786; its workers started with --nthreads 1; docs/cluster.md)",
    )
    engine_arg(p)
    p.set_defaults(func=cmd_serve)


def _add_address_options(p) -> None:
    """Where the server listens and which Host names it answers to."""
    p.add_argument(
        "--port",
        type=whole_number(0, 65535),
        default=8765,
        help="port to listen on, 0 for any free one (default 8765)",
    )
    p.add_argument(
        "--host",
        default=LOOPBACK,
        help=f"address to listen on (default {LOOPBACK}, this machine only; "
        "another prints a warning)",
    )
    p.add_argument(
        "--allow-host",
        action="append",
        metavar="NAME",
        type=_allowed_host,
        help="a Host name to answer besides localhost, 127.0.0.1 and [::1] when listening on "
        "this machine only (repeatable; requests naming another are refused, against DNS "
        "rebinding)",
    )
