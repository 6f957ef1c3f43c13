"""Where a design search keeps its study: an Optuna RDB storage, opened so that a
study survives its crashes and its company.

- **Crashes.** Every trial beats a heartbeat into the storage and says which
  process runs it. A trial whose process died (``kill -9``, Ctrl-C, a machine
  lost) is failed and tried again with the same values, once its process is known
  dead (a process of this machine: at once) or its heartbeat is older than
  :data:`GRACE_S` (any machine): Optuna's heartbeat and
  ``RetryHeartbeatStaleTrialCallback``. Trial 0, BASE itself, is retried as any other, so a
  study killed in any trial resumes to the best design an unkilled one picks.
- **Company.** Several processes may open one new study at the same instant: the
  schema and the study are made under a lock (an SQLite file's lock on the file, a
  PostgreSQL or MySQL server's advisory lock), so each finds the other's (a study's
  BASE trial is queued once).
- **Secrets.** A storage URL is only ever shown with its password hidden.
- **Refusals.** A storage that cannot hold trials (``?mode=ro``) is refused on one
  line before any shot, and so is one never reached (a closed port, a wrong
  password, an unknown user or database): "cannot open", the database's reason
  whole, and no word of waiting for it.
- **Faults.** A storage lost mid-search (a PostgreSQL server stopped, a connection
  reset, SQLite's disk full) ends the search with one line naming the storage
  (:func:`losing_storage`); the trials it finished stay in the study, and the trial
  it was running is queued again when the study is resumed.
"""

from __future__ import annotations

import fcntl
import os
import socket
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress

from models.errors import InputError, install_hint
from models.text import shown

#: Seconds between a running trial's heartbeats, and since the last one after
#: which a trial of another machine counts as lost.
HEARTBEAT_S = 10
GRACE_S = 30
#: Times a lost trial is tried again.
MAX_RETRY = 2
#: The user attribute that says which process runs a trial: [host, pid].
PROCESS_ATTR = "process"
#: The key of the PostgreSQL advisory lock under which studies are made (any number
#: no other program on the database uses: "piggy" in ASCII).
ADVISORY_LOCK = 0x7069676779
#: Characters of a database's reason kept in a refusal: its whole message (a driver's
#: runs to about 250 over several addresses), yet never megabytes.
REASON_MAX_CHARS = 600


def redacted(url: str) -> str:
    """A storage URL as it may be shown: its password hidden (a text that is no URL
    at all, shown up to its scheme)."""
    from sqlalchemy.engine import make_url

    try:
        parsed = make_url(url)
    except Exception:  # sqlalchemy's ArgumentError, and whatever else a bad URL raises
        return url.split("://")[0] + "://..." if "://" in url else url
    return _scrubbed(parsed.render_as_string(hide_password=True), parsed.password)


def _scrubbed(text: str, password: str | None) -> str:
    """``text`` with ``password`` hidden wherever it is (as written and as a URL
    quotes it): a driver's message, or a URL's other parts, may hold it too."""
    from urllib.parse import quote_plus

    for form in (password, quote_plus(password or "")):
        if form:
            text = text.replace(form, "***")
    return text


def _password(url: str) -> str | None:
    from sqlalchemy.engine import make_url

    try:
        return make_url(url).password
    except Exception:
        return None


def with_driver(url: str) -> str:
    """A storage URL with the database driver that is installed: a plain
    ``postgresql://`` means psycopg2 to SQLAlchemy; where only psycopg (3, the
    ``cluster`` extra's) is there, it is named. Without either, one line saying how
    to install it."""
    from importlib.util import find_spec

    parsed = _parsed(url)
    if parsed.get_backend_name() != "postgresql":
        return url
    module = parsed.get_driver_name()  # SQLAlchemy 2.1: psycopg; 2.0: psycopg2
    if find_spec(module) is not None:
        return url
    if parsed.drivername == "postgresql" and find_spec("psycopg") is not None:
        return parsed.set(drivername="postgresql+psycopg").render_as_string(hide_password=False)
    raise InputError(
        f"the study storage {shown(redacted(url))} needs a PostgreSQL driver ({module}): "
        f"{install_hint('cluster')}"
    )


def _reason(url: str, exc: BaseException) -> str:
    """What the database said, whole, on one line (a driver's message runs over
    several: "connection failed: ...", then the server's "password authentication
    failed", or each address tried), its password nowhere in it."""
    orig = getattr(exc, "orig", None)  # SQLAlchemy's wrapper adds its class and a link
    lines = [" ".join(line.split()) for line in str(orig or exc).splitlines()]
    reason = "; ".join(line for line in lines if line) or type(exc).__name__
    return shown(_scrubbed(reason, _password(url)), REASON_MAX_CHARS)


def _refusal(url: str, exc: BaseException) -> InputError:
    """The one line for a storage that cannot be opened (never reached: a closed port,
    a wrong password, an unknown user or database, a bad URL): nothing to wait for."""
    return InputError(f"cannot open the study storage {shown(redacted(url))}: {_reason(url, exc)}")


def _parsed(url: str):
    """SQLAlchemy's reading of a storage URL, or the one line refusing it."""
    from sqlalchemy.engine import make_url

    try:
        return make_url(url)
    except Exception as exc:
        raise _refusal(url, exc) from None


def _sqlite_file(url: str) -> str | None:
    """The file of an SQLite storage URL (None for another database, or in memory);
    a read-only one is refused."""
    parsed = _parsed(url)
    if parsed.get_backend_name() != "sqlite":
        return None
    if parsed.query.get("mode") == "ro":
        raise InputError(
            f"the study storage {shown(redacted(url))} is read-only (mode=ro): a design "
            "search writes its trials there; give a storage it may write"
        )
    return parsed.database if parsed.database not in (None, "", ":memory:") else None


@contextmanager
def creating(url: str) -> Iterator[None]:
    """Hold the storage's creation lock (an SQLite file's: the file itself, made if
    missing; a PostgreSQL database's: an advisory lock of its own; none elsewhere)
    while its schema and a study are made."""
    path = _sqlite_file(url)
    if path is None:
        with _database_lock(url):
            yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise _refusal(url, exc) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # SQLite's own locks are fcntl's: independent
        yield
    finally:
        os.close(fd)


@contextmanager
def _database_lock(url: str) -> Iterator[None]:
    """PostgreSQL's session-level advisory lock :data:`ADVISORY_LOCK` (a MySQL
    server's named lock alike), held on a connection of its own; no lock for
    another database."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    backend = _parsed(url).get_backend_name()
    statements = {
        "postgresql": (
            f"SELECT pg_advisory_lock({ADVISORY_LOCK})",
            f"SELECT pg_advisory_unlock({ADVISORY_LOCK})",
        ),
        "mysql": (
            "SELECT GET_LOCK('piggy-study-storage', -1)",
            "SELECT RELEASE_LOCK('piggy-study-storage')",
        ),
    }
    if backend not in statements:
        yield
        return
    lock, unlock = statements[backend]
    try:
        engine = create_engine(url, poolclass=NullPool)
        connection = engine.connect()
        connection.execute(text(lock))
    except Exception as exc:  # the driver missing, the server refusing, a bad URL
        raise _refusal(url, exc) from None
    try:
        yield
    finally:
        with suppress(Exception):  # the lock ends with the connection anyway
            connection.execute(text(unlock))
        connection.close()
        engine.dispose()


def open_storage(optuna, url: str):
    """The storage, with heartbeats and retries, and its studies by name."""
    try:
        with warnings.catch_warnings():  # heartbeats are "experimental" (Optuna 5)
            warnings.simplefilter("ignore", optuna.exceptions.ExperimentalWarning)
            retry = optuna.storages.RetryHeartbeatStaleTrialCallback(max_retry=MAX_RETRY)
            storage = optuna.storages.RDBStorage(
                url,
                heartbeat_interval=HEARTBEAT_S,
                grace_period=GRACE_S,
                heartbeat_stale_trial_callback=retry,
            )
        return storage, {s.study_name: s for s in optuna.get_all_study_summaries(storage)}
    except Exception as exc:  # sqlalchemy's and the database drivers' own errors
        raise _refusal(url, exc) from None


def claim(trial) -> None:
    """Say, in the storage, which process runs ``trial``."""
    trial.set_user_attr(PROCESS_ATTR, [socket.gethostname(), os.getpid()])


def _dead_here(trial) -> bool:
    """Whether a running trial's process was of this machine and is gone."""
    host, pid = (trial.user_attrs.get(PROCESS_ATTR) or [None, None])[:2]
    if host != socket.gethostname() or not isinstance(pid, int) or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # alive, another user's
        return False
    return False


def retry_lost(optuna, study) -> None:
    """Fail the running trials whose process on this machine is dead, and queue each
    failed trial again with its values (at most :data:`MAX_RETRY` times), unless it
    has been already. Run under :func:`creating`, so that two processes resuming at
    once queue it once."""
    states = optuna.trial.TrialState
    storage = study._storage
    for trial in study.get_trials(deepcopy=False, states=(states.RUNNING,)):
        if _dead_here(trial):
            with suppress(optuna.exceptions.UpdateFinishedTrialError):  # it ended meanwhile
                storage.set_trial_state_values(trial._trial_id, state=states.FAIL)
    trials = study.get_trials(deepcopy=False)
    retried = {n for t in trials for n in t.system_attrs.get("retry_history", [])}
    retry = storage.get_heartbeat_stale_trial_callback()
    for trial in trials:
        if trial.state == states.FAIL and trial.number not in retried:
            retry(study, trial)


def _fault(exc: BaseException) -> BaseException | None:
    """The database's own error behind ``exc`` when ``exc`` says the storage was lost
    or cannot be written (SQLAlchemy's OperationalError and InterfaceError: the
    server gone, the connection reset, the disk full), as raised or wrapped in
    Optuna's StorageInternalError; None for any other error."""
    from sqlalchemy.exc import InterfaceError, OperationalError

    seen: BaseException | None = exc
    for _ in range(8):  # a short chain: StorageInternalError from OperationalError
        if seen is None:
            return None
        if isinstance(seen, (OperationalError, InterfaceError)):
            return seen.orig if isinstance(seen.orig, BaseException) else seen
        seen = seen.__cause__ or seen.__context__
    return None


@contextmanager
def losing_storage(url: str) -> Iterator[None]:
    """Turn the storage lost mid-search into one line naming it (its password hidden)
    and how to go on; what the study holds stays there."""
    try:
        yield
    except InputError:  # a storage never reached (:func:`_refusal`) is no storage lost
        raise
    except Exception as exc:
        fault = _fault(exc)
        if fault is None:
            raise
        raise InputError(
            f"lost the study storage {shown(redacted(url))} ({_reason(url, fault)}): the trials "
            "finished are kept in it; run the same command when it is back to resume the study"
        ) from None


@contextmanager
def beating(storage, trial_id: int) -> Iterator[None]:
    """Beat a trial's heartbeat into ``storage`` every :data:`HEARTBEAT_S` from a
    thread while the body runs (Optuna's own loop does; its ask and tell leave it to
    the caller). A storage lost stops the beats quietly: the body meets the loss on
    its next write and says so (:func:`losing_storage`)."""
    stop = threading.Event()

    def beat() -> None:
        while True:
            try:
                storage.record_heartbeat(trial_id)
            except Exception as exc:
                if _fault(exc) is None:
                    raise
                return
            if stop.wait(storage.get_heartbeat_interval()):
                return

    thread = threading.Thread(target=beat, name="piggy-heartbeat", daemon=True)
    try:
        thread.start()
        yield
    finally:
        # joined whatever happened, even a Ctrl-C inside start() (which waits for the
        # thread to run); one not started yet has nothing to join
        stop.set()
        with suppress(RuntimeError):
            thread.join()
