"""One design search shared by several optimiser processes through a real PostgreSQL
server (tests/postgres.py starts and stops it): no trial lost or numbered twice,
BASE tried once, and the best design the one the study's trials make best."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from models.errors import InputError
from tests.postgres import postgres_server

optuna = pytest.importorskip("optuna")

#: Generous cap on a search process (a busy machine), s.
SEARCH_S = 600
STUDY = "shared"


def search(url: str, folder: Path, seed: int, trials: int) -> subprocess.Popen:
    """An optimiser process adding ``trials`` trials to the shared study."""
    folder.mkdir(exist_ok=True)
    return subprocess.Popen(
        [
            *(sys.executable, "-m", "sim.cli", "design", "optimise", "stock"),
            *("--spaces", "r9c1,r1c5", "--shots", "6", "--workers", "1"),
            *("--param", "pivot_height=60:100", "--trials", str(trials), "--remeasure", "0"),
            *("--storage", url, "--study", STUDY, "--search-seed", str(seed)),
            *("--cache", str(folder / "cache"), "--out", str(folder / "best.toml"), "--json"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finished(process: subprocess.Popen) -> dict:
    out, err = process.communicate(timeout=SEARCH_S)
    assert process.returncode == 0, err
    return json.loads(out)


@pytest.mark.slow
def test_two_searches_share_one_study_on_postgresql(tmp_path):
    with postgres_server() as url:
        first = search(url, tmp_path / "a", seed=1, trials=3)
        second = search(url, tmp_path / "b", seed=2, trials=3)
        done = [finished(first), finished(second)]
        assert [d["new_trials"] for d in done] == [3, 3]
        study = optuna.load_study(study_name=STUDY, storage=url)
        trials = study.get_trials()
        # every trial kept, numbered once, each run by one of the two processes
        assert [t.number for t in trials] == list(range(6))
        assert all(t.state == optuna.trial.TrialState.COMPLETE for t in trials)
        pids = [t.user_attrs["process"][1] for t in trials]
        assert sorted(set(pids)) == sorted({first.pid, second.pid})
        assert pids.count(first.pid) == pids.count(second.pid) == 3
        # BASE (pivot 70 lies in the range) queued once, though both made the study
        assert sum(t.params["launcher.pivot_height_mm"] == 70.0 for t in trials) == 1
        # a third process resuming the study picks the best of all its trials
        third = finished(search(url, tmp_path / "c", seed=3, trials=1))
        trials = optuna.load_study(study_name=STUDY, storage=url).get_trials()
    candidates = [t for t in trials if t.user_attrs["feasible"] and not t.user_attrs["pruned"]]
    best = max(candidates, key=lambda t: (t.values[0], -t.number))
    assert third["trials"] == 7 and third["best"]["trial"] == best.number
    assert third["best"]["params"] == best.params


def test_a_plain_postgresql_url_uses_the_driver_installed(monkeypatch):
    from sqlalchemy.engine import make_url

    from sim.studies.optimising import study_storage

    installed = {"psycopg"}
    monkeypatch.setattr(
        "importlib.util.find_spec", lambda name: object() if name in installed else None
    )
    url = "postgresql://piggy:secret@db.example/piggy"
    # psycopg (the cluster extra's) whichever SQLAlchemy's default for a plain URL
    assert make_url(study_storage.with_driver(url)).get_driver_name() == "psycopg"
    assert study_storage.with_driver("sqlite:///s.db") == "sqlite:///s.db"
    installed.clear()
    with pytest.raises(InputError) as refused:
        study_storage.with_driver(url)
    message = str(refused.value)
    assert (
        "needs a PostgreSQL driver (psycopg" in message and "pip install -e '.[cluster]'" in message
    )
    assert "secret" not in message


def _trial_states(url: str) -> list[str]:
    """The states of the study's trials as the database holds them (none yet: []), a
    running trial's ``RUNNING`` once it beats its heartbeat (measured: its values
    drawn)."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.exc import ProgrammingError
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            rows = connection.execute(
                text(
                    "SELECT state, EXISTS (SELECT 1 FROM trial_heartbeats h "
                    "WHERE h.trial_id = t.trial_id) FROM trials t ORDER BY number"
                )
            )
            states = [(str(state).rsplit(".", 1)[-1], beating) for state, beating in rows]
            return [
                state if beating or state != "RUNNING" else "ASKED" for state, beating in states
            ]
    except ProgrammingError:  # the schema not made yet
        return []
    finally:
        engine.dispose()


def _reset_connections(url: str) -> None:
    """Cut every other client's connection to the server, which stays up."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool)
    query = (
        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
        "WHERE pid <> pg_backend_pid() AND backend_type = 'client backend'"
    )
    try:
        with engine.connect() as connection:
            assert connection.execute(text(query)).scalar() >= 1
    finally:
        engine.dispose()


@pytest.mark.slow
@pytest.mark.parametrize("lost", ["stopped", "reset"])
def test_a_postgresql_server_stopped_mid_trial_is_one_line_and_the_study_resumes(tmp_path, lost):
    """The server stopped under a running trial (then started again), or the
    optimiser's connections cut while the server stays up."""
    from tests.postgres import postgres

    with postgres() as server:
        running = search(server.url, tmp_path / "a", seed=1, trials=500)
        try:
            # a trial finished, the next one running: stop the server under it
            for _ in range(SEARCH_S * 20):  # a cap on the polls, not a timer
                states = _trial_states(server.url)
                if "COMPLETE" in states and states[-1] == "RUNNING":
                    break
                assert running.poll() is None, running.communicate()
            server.stop() if lost == "stopped" else _reset_connections(server.url)
            out, err = running.communicate(timeout=SEARCH_S)
        finally:
            running.kill()
        lines = err.strip().splitlines()
        assert running.returncode == 2 and out == "" and len(lines) == 1, err
        assert lines[0].startswith(f"piggy: error: lost the study storage {server.url} (")
        assert "run the same command when it is back to resume the study" in lines[0]
        # the study intact: its finished trials there; resumed, the lost one runs again
        if lost == "stopped":
            server.start()
        kept = _trial_states(server.url)
        # the lost trial left running, or failed where the server could still be told
        assert kept.count("COMPLETE") >= 1 and kept[-1] in ("RUNNING", "FAIL")
        again = finished(search(server.url, tmp_path / "b", seed=1, trials=1))
        trials = optuna.load_study(study_name=STUDY, storage=server.url).get_trials()
    assert trials[len(kept) - 1].state == optuna.trial.TrialState.FAIL
    assert again["trials"] == kept.count("COMPLETE") + 1
    assert trials[-1].params == trials[len(kept) - 1].params  # the lost trial queued again


@pytest.mark.slow
def test_an_sqlite_storage_whose_disk_is_full_is_one_line_and_other_errors_pass(tmp_path):
    from sqlalchemy import event

    from sim.studies.optimising.study_storage import losing_storage

    url = f"sqlite:///{tmp_path / 'full.db'}"
    storage = optuna.storages.RDBStorage(url)
    study = optuna.create_study(storage=storage, study_name="full")
    with storage.engine.connect() as connection:
        pages = connection.exec_driver_sql("PRAGMA page_count").scalar()

    # SQLite's own "disk full" (SQLITE_FULL): the file may grow no further
    @event.listens_for(storage.engine, "connect")
    def no_more_pages(connection, _):
        connection.execute(f"PRAGMA max_page_count = {pages}")

    storage.engine.dispose()
    with pytest.raises(InputError) as refused, losing_storage(url):
        for number in range(10_000):  # a cap: the file is full long before
            study.enqueue_trial({"x": number}, user_attrs={"pad": "x" * 10_000})
    message = str(refused.value)
    assert message.startswith(f"lost the study storage {url} (database or disk is full)")
    assert "resume the study" in message
    with pytest.raises(ValueError, match="not the storage's"), losing_storage(url):
        raise ValueError("not the storage's")


def _small_search():
    """A search over the launcher's yaw spread on two spaces (no shot is fired here)."""
    from models.board import load_board
    from models.design import load_design
    from sim.studies.designs.safety import SafetyLimits
    from sim.studies.designs.search import parse_params
    from sim.studies.notebook import plain_spec
    from sim.studies.optimising.search_settings import Search

    base = load_design("stock")
    spec = plain_spec("stock", ["r2c3", "r5c1"], 10)
    params = parse_params(["yaw_sd=0:10"], base)
    return Search(base, params, ["mean-p"], spec, load_board("stock"), SafetyLimits(), 0)


def _trial_of_another_host(search, study, heartbeat_age_s: float):
    """A running trial claimed by a process of another machine, whose last heartbeat
    is ``heartbeat_age_s`` old."""
    from datetime import timedelta

    from optuna.storages._rdb.models import TrialHeartbeatModel

    from sim.studies.optimising import optimise
    from sim.studies.optimising.study_storage import PROCESS_ATTR

    trial, _ = optimise._ask(search, study)
    trial.set_user_attr(PROCESS_ATTR, ["another-host.example", 4242])
    storage = study._storage
    storage.record_heartbeat(trial._trial_id)
    with storage._backend.scoped_session() as session:
        beat = session.query(TrialHeartbeatModel).filter_by(trial_id=trial._trial_id).one()
        beat.heartbeat -= timedelta(seconds=heartbeat_age_s)
        session.commit()
    return trial


@pytest.mark.slow
@pytest.mark.parametrize("stale", [True, False], ids=["stale", "beating"])
def test_a_trial_of_another_host_is_tried_again_once_its_heartbeat_is_stale(tmp_path, stale):
    from sim.studies.optimising import optimise
    from sim.studies.optimising.study_storage import GRACE_S

    search = _small_search()
    study = optimise.open_study(search, f"sqlite:///{tmp_path / 's.db'}", "shared", 0)
    base, _ = optimise._ask(search, study)  # BASE, queued first
    study.tell(base, [0.5])
    lost = _trial_of_another_host(search, study, GRACE_S + 30 if stale else GRACE_S / 3)
    # another process (this one, resumed) opens the study and asks for a trial
    again = optimise.open_study(search, f"sqlite:///{tmp_path / 's.db'}", "shared", 0)
    asked, values = optimise._ask(search, again)
    state = again.get_trials(deepcopy=False)[lost.number].state
    if stale:  # failed, and its values measured again by the next trial asked
        assert state == optuna.trial.TrialState.FAIL
        assert values == lost.params and asked.number == lost.number + 1
    else:  # a machine whose heartbeat beats is never taken for dead
        assert state == optuna.trial.TrialState.RUNNING
        assert values != lost.params


def _waiting_on_the_lock(url: str) -> bool:
    """Whether a connection of the server waits for an advisory lock it was not granted."""
    from sqlalchemy import create_engine, text
    from sqlalchemy.pool import NullPool

    engine = create_engine(url, poolclass=NullPool)
    try:
        with engine.connect() as connection:
            query = "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"
            return connection.execute(text(query)).scalar() > 0
    finally:
        engine.dispose()


@pytest.mark.slow
def test_two_processes_making_one_study_on_postgresql_at_once_queue_base_once(monkeypatch):
    """The race forced: each opener, once it has read the storage (no study there
    yet), waits until the other has read it too, or is seen waiting for the lock.
    Under the lock the second reads after the first made the study: BASE is queued
    once. Without it both read an empty storage and both queue BASE."""
    import threading

    from sim.studies.optimising import optimise, study_storage

    search, read, opened, ended = _small_search(), [], [], []
    real_open = study_storage.open_storage

    def open_then_wait(optuna_module, url):
        found = real_open(optuna_module, url)
        read.append(threading.get_ident())
        for _ in range(SEARCH_S * 20):  # a cap on the polls, not a timer
            if len(read) == 2 or ended or _waiting_on_the_lock(url):
                return found
        raise AssertionError("the other opener neither read the storage nor waited")

    monkeypatch.setattr(study_storage, "open_storage", open_then_wait)
    with postgres_server() as url:

        def opener() -> None:
            try:
                opened.append(optimise.open_study(search, url, STUDY, 0))
            finally:
                ended.append(threading.get_ident())  # the other waits no more

        threads = [threading.Thread(target=opener) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(SEARCH_S)
        assert len(opened) == 2
        trials = optuna.load_study(study_name=STUDY, storage=url).get_trials()
    assert [t.state for t in trials] == [optuna.trial.TrialState.WAITING]  # BASE, once


@pytest.mark.slow
def test_a_server_that_refuses_the_user_is_one_line_that_it_cannot_be_opened(capsys, tmp_path):
    """A wrong password, an unknown user, a missing database: the server was reached
    and said no, so "cannot open" with its reason whole, the password hidden, and
    no word of waiting for the storage to come back."""
    from tests.helpers import run
    from tests.postgres import postgres

    with postgres(password="right-pw-1") as server:
        good = server.url
        wrong = {
            "wrong password": good.replace("right-pw-1", "wrong-pw-2"),
            "unknown user": good.replace("piggy:", "nobody:"),
            "missing database": good.replace("/postgres", "/nosuchdb"),
        }
        said = {}
        for case, url in wrong.items():
            code, out, err = run(
                capsys,
                *("design", "optimise", "stock", "--param", "pivot_height=60:100"),
                *("--spaces", "r9c1", "--shots", "2", "--workers", "1", "--trials", "1"),
                *("--storage", url, "--study", STUDY, "--cache", str(tmp_path / "cache")),
                *("--out", str(tmp_path / "best.toml")),
            )
            assert code == 2 and out == "" and err.count("\n") == 1, (case, err)
            assert err.startswith("piggy: error: cannot open the study storage "), err
            assert "when it is back" not in err and "-pw-" not in err, err
            said[case] = err
    assert 'password authentication failed for user "piggy"' in said["wrong password"]
    assert 'password authentication failed for user "nobody"' in said["unknown user"]
    assert 'database "nosuchdb" does not exist' in said["missing database"]
    assert not (tmp_path / "best.toml").exists()
