"""A real PostgreSQL server for the tests that share a design search through one: the
Debian ``postgresql`` package's binaries (which ``.ci/run`` installs), a database
cluster made in a temporary folder, a server on a free port of the loopback, stopped
and removed afterwards. Run as the ``postgres`` user where the tests run as root
(PostgreSQL refuses root)."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

#: Generous cap on the server's start and stop (a busy machine), s.
START_S = 120


def _binaries() -> Path | None:
    """The folder of ``initdb`` and ``pg_ctl``: on the PATH, else Debian's newest."""
    found = shutil.which("initdb")
    if found:
        return Path(found).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    return Path(versions[-1]).parent if versions else None


def _version(path: str) -> tuple[int, ...]:
    number = Path(path).parent.parent.name
    return tuple(int(p) for p in number.split(".") if p.isdigit())


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """A running server: its SQLAlchemy URL, and its stop and start again (the tests of a
    database lost mid-search)."""

    def __init__(self, binaries: Path, data: Path, as_user: list[str], options: str, port: int):
        self.url = f"postgresql+psycopg://piggy@127.0.0.1:{port}/postgres"
        self._run = lambda *command: subprocess.run(
            [*as_user, *command], check=True, capture_output=True, timeout=START_S
        )
        self._pg_ctl = (str(binaries / "pg_ctl"), "-D", str(data))
        self._start = ("-o", options, "-l", str(data / "log"), "-t", str(START_S), "-w", "start")

    def start(self) -> None:
        self._run(*self._pg_ctl, *self._start)

    def stop(self) -> None:
        """Stopped at once, as a server lost is: its clients' connections cut."""
        self._run(*self._pg_ctl, "-m", "immediate", "-w", "stop")


@contextmanager
def postgres_server() -> Iterator[str]:
    """A running server; yields its SQLAlchemy URL (psycopg 3, user ``piggy``, trusted
    on the loopback). Skips, saying why, where PostgreSQL or psycopg is missing."""
    with postgres() as server:
        yield server.url


@contextmanager
def postgres(password: str | None = None) -> Iterator[Server]:
    """A running :class:`Server`, stopped and removed afterwards; skips as
    :func:`postgres_server`. With ``password``, user ``piggy`` must give it
    (scram-sha-256), and :attr:`Server.url` holds it."""
    pytest.importorskip("psycopg", reason="psycopg (the cluster extra's driver) is missing")
    binaries = _binaries()
    if binaries is None:
        pytest.skip("PostgreSQL is not installed (Debian: apt-get install postgresql)")
    as_user: list[str] = []
    owner = None
    if os.geteuid() == 0:
        try:
            owner = pwd.getpwnam("postgres")
        except KeyError:
            pytest.skip("running as root and no 'postgres' user to run PostgreSQL as")
        as_user = ["runuser", "-u", "postgres", "--"]
    folder = Path(tempfile.mkdtemp(prefix="piggy-postgres-"))
    folder.chmod(0o755)
    data, sockets = folder / "data", folder / "sockets"
    for made in (data, sockets):
        made.mkdir()
        if owner is not None:
            os.chown(made, owner.pw_uid, owner.pw_gid)
    port = _free_port()
    options = f"-p {port} -k {sockets} -c listen_addresses=127.0.0.1 -c fsync=off"
    server = Server(binaries, data, as_user, options, port)
    auth = ["-A", "trust"]
    if password is not None:
        server.url = server.url.replace("piggy@", f"piggy:{password}@")
        pwfile = folder / "pwfile"
        pwfile.write_text(password + "\n")
        if owner is not None:
            os.chown(pwfile, owner.pw_uid, owner.pw_gid)
        auth = ["-A", "scram-sha-256", f"--pwfile={pwfile}"]
    try:
        server._run(str(binaries / "initdb"), "-D", str(data), "-U", "piggy", *auth, "--no-sync")
        server.start()
        try:
            yield server
        finally:
            with suppress(subprocess.CalledProcessError):  # a test may have stopped it
                server.stop()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
