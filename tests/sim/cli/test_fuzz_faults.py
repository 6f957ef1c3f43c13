"""The hostile pass's fourth round (issue 33), class by class: a result never rests
on stale inputs (one content identity for every input file), a dead worker never
takes the service down, a study survives its crashes, files a user brings are read
safely, and signals stop every long command the same way. What each class promises
is written down in docs/robustness.md.
"""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from models.board import BOARDS_DIR
from models.design import load_design
from sim.cli import build_parser
from sim.studies.comparing import cached_maps
from sim.studies.maps import hitmap
from sim.studies.shots import space_firing
from tests.helpers import cli_spec, piggy_process, said_lines
from tests.sim.cli.fuzz_support import HITMAP, NOT_ASCII_NUMBERS, refused


# --- a result never rests on stale inputs ------------------------------------------------------
def _board_copy(folder: Path, name: str = "b.toml") -> Path:
    path = folder / name
    shutil.copy(BOARDS_DIR / "stock.toml", path)
    return path


def _thicker(board: Path) -> None:
    text = board.read_text()
    assert "thickness_mm = 6.0" in text
    board.write_text(text.replace("thickness_mm = 6.0", "thickness_mm = 9.0"))


def _keys(board: Path, tmp_path: Path) -> tuple[str, Path, dict]:
    """What a sweep's parts, the compare cache and a design search are keyed by, on
    ``board``."""
    from sim.cli.optimise import _search_of

    spec = cli_spec([*HITMAP, "--board", str(board), "--out", "h.csv"])
    cached = cached_maps.cached_hitmap_path(spec, load_design("stock"), tmp_path)
    optimise = ["design", "optimise", "stock", "--param", "pivot_height=40:120"]
    where = ["--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "best.toml")]
    args = build_parser().parse_args(
        [*optimise, "--board", str(board), "--spaces", "r8c3", "--shots", "3", *where]
    )
    search = _search_of(args)[0]
    return hitmap.Output.of(spec, tmp_path / "h.csv").key, cached, search.settings()


def test_a_board_edited_keys_parts_caches_and_studies_anew_and_a_copy_does_not(tmp_path):
    pytest.importorskip("optuna")
    board = _board_copy(tmp_path)
    before = _keys(board, tmp_path)
    moved = _board_copy(tmp_path, "moved.toml")  # the same content, another path
    assert _keys(moved, tmp_path) == before
    _thicker(board)
    after = _keys(board, tmp_path)
    assert [a != b for a, b in zip(after, before, strict=True)] == [True, True, True]


def test_a_design_edited_keys_a_sweep_anew(tmp_path):
    design = tmp_path / "d.toml"
    design.write_text('name = "d"\n[launcher]\npivot_height_mm = 60.0\n')
    spec = cli_spec([*HITMAP, "--design", str(design), "--out", "h.csv"])
    key = spec.key()
    design.write_text('name = "d"\n[launcher]\npivot_height_mm = 61.0\n')
    assert spec.key() != key
    assert (
        dataclasses.replace(spec, design="").key()
        == dataclasses.replace(cli_spec([*HITMAP, "--out", "h.csv"]), design="").key()
    )


def test_an_edited_board_of_the_same_name_as_its_layout_s_says_which_is_which(capsys, tmp_path):
    board = _board_copy(tmp_path)  # still named "stock"
    _thicker(board)
    layout = tmp_path / "l.json"
    layout.write_text('{"board": "stock", "stacks": {"r8c3": ["green-1"]}}')
    argv = ["shoot", "--yaw", "0", "--pitch", "10", "--board", str(board), "--layout", str(layout)]
    err = refused(capsys, argv, f"the layout is for board 'stock' of {BOARDS_DIR / 'stock.toml'}")
    assert (
        "the board given is another of the same name (thickness_mm 6.0 in the layout's, "
        "9.0 in the one given)" in err
    )


def test_hitmap_resume_refuses_the_parts_of_a_board_since_edited(capsys, tmp_path):
    from sim.studies.running.parts import parts_folder, write_part

    board = _board_copy(tmp_path)
    argv = [*HITMAP, "--board", str(board), "--out", str(tmp_path / "h.csv"), "--resume"]
    spec = cli_spec(argv)
    folder = parts_folder(tmp_path / "h.csv")
    folder.mkdir()
    write_part(folder, spec.key(), space_firing.run_space(spec, "r8c3"))
    _thicker(board)
    refused(capsys, argv, "was made by a sweep with other settings", tmp_path)


# --- the service survives its workers -----------------------------------------------------------
def _load_serve():
    import importlib.util

    from tests.helpers import ROOT

    spec = importlib.util.spec_from_file_location("load_serve", ROOT / "scripts" / "load_serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _pid_then_wait(pid_file: str, go: str) -> str:
    """A job that says which worker runs it, then waits to be told to end."""
    import os
    import time

    Path(pid_file).write_text(str(os.getpid()))
    while not os.path.exists(go):
        time.sleep(0.05)
    return "done"


def _shot() -> str:
    return "shot"


def _wait_for(path: Path, cap_s: float = 300.0) -> str:
    import time

    end = time.monotonic() + cap_s
    while time.monotonic() < end:
        if path.exists() and path.read_text():
            return path.read_text()
        time.sleep(0.05)
    raise AssertionError(f"{path} was not written within {cap_s:g} s")


@pytest.mark.slow
def test_a_worker_killed_under_a_request_fails_that_one_on_one_line_and_the_next_runs(tmp_path):
    import asyncio
    import os
    import signal

    pytest.importorskip("starlette")
    from sim.serve.pool import WorkerLost, Workers

    pid_file, go = tmp_path / "pid", tmp_path / "go"

    async def scenario():
        workers = Workers(2)
        try:
            running = asyncio.create_task(workers.run("a", _pid_then_wait, str(pid_file), str(go)))
            pid = int(await asyncio.to_thread(_wait_for, pid_file))
            os.kill(pid, signal.SIGKILL)
            with pytest.raises(WorkerLost) as lost:
                await running
            return str(lost.value), await asyncio.wait_for(workers.run("b", _shot), 300)
        finally:
            go.touch()
            workers.close()

    message, shot = asyncio.run(scenario())
    assert "a worker process died" in message and "\n" not in message and shot == "shot"


@pytest.fixture
def served(tmp_path):
    pytest.importorskip("starlette")
    pytest.importorskip("uvicorn")
    layout = tmp_path / "layout.json"
    layout.write_text('{"board": "stock", "stacks": {"r9c3": ["blue-1"]}}')
    server = _load_serve().Served("--workers", "2", "--layout", str(layout))
    yield server
    if server.process.poll() is None:
        server.stop()


@pytest.mark.slow
def test_a_server_whose_workers_are_killed_answers_the_next_shot_and_stops_on_ctrl_c(served):
    import psutil

    status, state = served.request("/api/new", {})
    sid = state["id"]
    served.request(f"/api/{sid}/aim", {"at": "blue-1"})
    status, first = served.request(f"/api/{sid}/fire", {"seed": 7})
    assert status == 200
    workers = [
        p
        for p in psutil.Process(served.process.pid).children(recursive=True)
        if "resource_tracker" not in " ".join(p.cmdline())
    ]
    assert workers
    for worker in workers:
        worker.kill()
    psutil.wait_procs(workers, timeout=60)
    status, again = served.request(f"/api/{sid}/fire", {"seed": 7})
    assert status == 200 and again["shot"] == first["shot"]
    code, left = served.stop()
    assert code == 130 and not left


@pytest.mark.slow
def test_a_client_reading_to_the_end_of_its_connection_gets_it(served):
    """The first connection is open while the workers start: none may keep a copy."""
    import socket
    from urllib.parse import urlsplit

    where = urlsplit(served.base)
    with socket.create_connection((where.hostname, where.port), timeout=300) as client:
        client.sendall(
            b"POST /api/new HTTP/1.0\r\nHost: 127.0.0.1\r\nX-Piggy-Token: "
            + served.token.encode()
            + b"\r\nContent-Length: 2\r\n\r\n{}"
        )
        reply = b""
        while chunk := client.recv(65536):  # to the end of the connection
            reply += chunk
    assert reply.startswith(b"HTTP/1.1 200") and b'"poses"' in reply


# --- a study survives its crashes and its company; signals stop long commands ---------------------
def _optimise_argv(tmp_path: Path, db: str, *extra: str) -> list[str]:
    return [
        *("design", "optimise", "stock", "--param", "pivot_height=40:120"),
        *("--spaces", "r9c1,r10c3", "--shots", "4", "--workers", "1", "--trials", "1"),
        *("--study", "s", "--storage", f"sqlite:///{tmp_path / db}", "--json"),
        *("--cache", str(tmp_path / "cache"), "--out", str(tmp_path / f"{db}.toml"), *extra),
    ]


def _until(found, what: str, cap_s: float = 300.0):
    import time

    end = time.monotonic() + cap_s
    while time.monotonic() < end:
        if value := found():
            return value
        time.sleep(0.05)
    raise AssertionError(f"{what} did not happen within {cap_s:g} s")


def _claimed_trial(db: Path) -> bool:
    """Whether a trial of the study in ``db`` is running and has said which process runs it."""
    import sqlite3

    if not db.exists():
        return False
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as connection:
            return bool(
                connection.execute(
                    "SELECT COUNT(*) FROM trials JOIN trial_user_attributes USING (trial_id) "
                    "WHERE trials.state = 'RUNNING' AND trial_user_attributes.key = 'process'"
                ).fetchone()[0]
            )
    except sqlite3.Error:  # not made yet, or being written
        return False


def _best(capsys, argv: list[str]) -> tuple:
    import json

    from tests.helpers import run

    code, out, err = run(capsys, *argv)
    assert code == 0, err
    best = json.loads(out)["best"]
    return best["params"], best["objective"]


@pytest.mark.slow
@pytest.mark.parametrize("how", ["SIGKILL", "SIGINT"])
def test_a_study_killed_in_its_base_trial_resumes_to_the_best_an_unkilled_one_picks(
    capsys, tmp_path, how
):
    import signal

    pytest.importorskip("optuna")
    unkilled = _best(capsys, _optimise_argv(tmp_path, "a.db"))
    process = piggy_process(_optimise_argv(tmp_path, "b.db"), tmp_path, ignore_sigint=True)
    _until(lambda: _claimed_trial(tmp_path / "b.db"), "trial 0 running")
    process.send_signal(getattr(signal, how))
    code = process.wait(timeout=300)
    err = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    if how == "SIGINT":
        assert (code, err) == (130, "piggy: interrupted\n")
    assert _best(capsys, _optimise_argv(tmp_path, "b.db")) == unkilled


@pytest.mark.slow
def test_two_optimisers_started_at_once_on_a_new_study_both_run_and_share_it(capsys, tmp_path):
    import json

    optuna = pytest.importorskip("optuna")
    argv = _optimise_argv(tmp_path, "new.db")
    both = [piggy_process(argv, tmp_path) for _ in range(2)]
    ended = [(p.wait(timeout=600), p.stdout.read(), p.stderr.read()) for p in both]
    for p in both:
        p.stdout.close()
        p.stderr.close()
    assert [code for code, _, _ in ended] == [0, 0], ended
    assert max(json.loads(out)["trials"] for _, out, _ in ended) == 2
    study = optuna.load_study(study_name="s", storage=f"sqlite:///{tmp_path / 'new.db'}")
    trials = study.get_trials(states=(optuna.trial.TrialState.COMPLETE,))
    heights = [t.params["launcher.pivot_height_mm"] for t in trials]
    assert len(trials) == 2 and heights.count(70.0) == 1  # BASE measured once


def test_a_storage_refused_never_shows_its_password(capsys, tmp_path):
    pytest.importorskip("optuna")
    argv = _optimise_argv(tmp_path, "x.db")
    argv[argv.index("--storage") + 1] = "mysql://piggy:hunter2secret@127.0.0.1:1/db"
    err = refused(capsys, argv, "cannot open the study storage mysql://piggy:***@", tmp_path)
    assert "hunter2secret" not in err


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        # a closed port of this machine (1: tcpmux, never served here)
        (
            "postgresql+psycopg://piggy:hunter2secret@127.0.0.1:1/db",
            'connection to server at "127.0.0.1", port 1 failed: Connection refused; '
            "Is the server running on that host",
        ),
        # a host that is no host name at all
        ("postgresql+psycopg://piggy:hunter2secret@[bad/db", "failed to resolve host '[bad'"),
        # the driver's own reason holds the password (the socket folder is named so)
        (
            "postgresql+psycopg://piggy:hunter2secret@/db?host=/nowhere/hunter2secret",
            'connection to server on socket "/nowhere/***/.s.PGSQL.5432" failed',
        ),
    ],
    ids=["closed-port", "bad-host", "password-in-reason"],
)
def test_a_storage_never_reached_is_one_line_that_it_cannot_be_opened(
    capsys, tmp_path, url, reason
):
    """Never reached is not lost: "cannot open", the driver's reason whole, no word of
    waiting for it to come back, and the password nowhere, even where the reason
    holds it."""
    pytest.importorskip("optuna")
    pytest.importorskip("psycopg")
    argv = _optimise_argv(tmp_path, "x.db")
    argv[argv.index("--storage") + 1] = url
    opening = f"cannot open the study storage {url.split('@')[0].replace('hunter2secret', '***')}@"
    err = refused(capsys, argv, opening, tmp_path)
    assert reason in err
    assert "hunter2secret" not in err and "when it is back" not in err and "lost" not in err


def test_a_read_only_sqlite_storage_is_refused_before_any_shot(capsys, tmp_path):
    pytest.importorskip("optuna")
    argv = _optimise_argv(tmp_path, "x.db")
    argv[argv.index("--storage") + 1] += "?mode=ro"
    refused(capsys, argv, "is read-only (mode=ro)", tmp_path)


@pytest.mark.slow
def test_ctrl_c_to_a_hit_map_started_with_it_ignored_stops_it_and_keeps_its_parts(capsys, tmp_path):
    import signal

    from tests.helpers import run

    argv = [*HITMAP, "--spaces", "r8c3,r9c5,r10c1", "--shots", "200", "--workers", "2"]
    argv += ["--sampler", "mc", "--out", str(tmp_path / "h.csv")]
    process = piggy_process(argv, tmp_path, ignore_sigint=True)
    parts = tmp_path / "h.csv.parts"
    _until(lambda: list(parts.glob("r*.json")), "a space finished")
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=120) == 130
    start, *progress, last = process.stderr.read().splitlines()
    assert last == "piggy: interrupted"  # after the signs of life only: no traceback
    assert start.startswith("piggy: a hit map of stock: 3 spaces, 200 shots a space (mc)")
    assert all(line.startswith("piggy: hitmap: ") for line in progress), progress
    process.stdout.close()
    process.stderr.close()
    assert not (tmp_path / "h.csv").exists() and list(parts.glob("r*.json"))
    code, _, err = run(capsys, *argv, "--resume")
    assert code == 0 and "piggy: resumed: " in err and (tmp_path / "h.csv").exists()


@pytest.mark.slow
def test_a_budget_the_first_look_cannot_fit_at_the_rate_measured_is_said_in_words(
    capsys, monkeypatch, tmp_path
):
    """A busy machine: the first space fired (its worlds built first) took 50 s, so the
    first look's 40 shots would take about 100 s, past the 30 s given: said in words
    before the second space is fired, exit 2, the first space's shots kept."""
    from sim.studies.comparing import board_mean
    from tests.helpers import run

    timed = lambda *job: (board_mean.fire_space(*job), 50.0)  # noqa: E731
    monkeypatch.setattr(board_mean, "timed_space", timed)
    argv = ["design", "compare", "stock", "fast-spring", "--spaces", "r1c1,r2c5", "--shots"]
    argv += ["10", "--workers", "1", "--budget", "30", "--cache", str(tmp_path)]
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    start, said = said_lines(err)
    assert start.startswith("piggy: design compare stock vs fast-spring: ")
    assert said.startswith(
        "piggy: error: --budget 30 cannot hold even the first look here: its 40 shots, at "
        "the 0.4 shots a second its first space was fired at just now, take about 100 s, "
    )
    assert " or more at this load (the shots fired are kept" in said
    assert sorted(p.name for p in tmp_path.glob("mean-*.csv.parts/*.json")) == ["r1c1.json"] * 2


# --- files a user brings, read safely ------------------------------------------------------------
def _mesh_design(folder: Path, mesh: str) -> str:
    path = folder / "own.toml"
    path.write_text(f'name = "own"\n[bale]\nmesh = "{mesh}"\n')
    return str(path)


def _box_obj() -> str:
    import trimesh

    return trimesh.creation.box(extents=(7, 11, 6)).export(file_type="obj")


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda f: (f / "loop.stl").symlink_to(f / "loop.stl") or "loop.stl", "symbolic links"),
        (lambda f: "bale\\u0000.stl", "contains a NUL character"),
        (lambda f: "b" * 300 + ".stl", "is too long"),
    ],
    ids=["symlink loop", "NUL", "name too long"],
)
def test_a_mesh_path_that_cannot_be_resolved_is_one_line(capsys, tmp_path, make, message):
    design = _mesh_design(tmp_path, make(tmp_path))
    refused(capsys, ["design", "check", design], message)


@pytest.mark.parametrize("suffix", ["obj", "stl"])
def test_a_mesh_with_a_comment_not_in_utf8_is_read(capsys, tmp_path, suffix):
    import trimesh

    from tests.helpers import run

    box = trimesh.creation.box(extents=(7, 11, 6))
    if suffix == "obj":
        data = b"# made by caf\xe9 CAD\n" + _box_obj().encode()
    else:
        text = box.export(file_type="stl_ascii")
        data = text.replace("solid", "solid caf\xe9", 1).encode("latin-1")
    (tmp_path / f"bale.{suffix}").write_bytes(data)
    code, out, err = run(capsys, "design", "check", _mesh_design(tmp_path, f"bale.{suffix}"))
    assert code == 0 and "bale mesh" in out, err


@pytest.mark.slow
def test_a_file_an_obj_names_is_never_opened(tmp_path):
    """Its mtllib a FIFO no one writes: opened, it would wait for ever."""
    import os

    os.mkfifo(tmp_path / "box.mtl")
    (tmp_path / "bale.obj").write_text("mtllib box.mtl\nusemtl red\n" + _box_obj())
    process = piggy_process(["design", "check", _mesh_design(tmp_path, "bale.obj")], tmp_path)
    assert process.wait(timeout=300) == 0, process.stderr.read()
    process.stdout.close()
    process.stderr.close()


def test_a_glb_whose_geometry_is_in_another_file_is_refused(capsys, tmp_path):
    import json
    import struct

    import trimesh

    glb = trimesh.creation.box(extents=(7, 11, 6)).export(file_type="glb")
    length = struct.unpack("<I", glb[12:16])[0]
    gltf = json.loads(glb[20 : 20 + length])
    gltf["buffers"][0]["uri"] = "/dev/zero"
    text = json.dumps(gltf).encode()
    text += b" " * (-len(text) % 4)
    rest = glb[20 + length :]
    head = struct.pack("<4sII", b"glTF", 2, 20 + len(text) + len(rest))
    (tmp_path / "bale.glb").write_bytes(
        head + struct.pack("<I4s", len(text), b"JSON") + text + rest
    )
    design = _mesh_design(tmp_path, "bale.glb")
    refused(capsys, ["design", "check", design], "its geometry is in another file")


def test_coordinates_near_overflow_are_refused_on_one_line(capsys, tmp_path):
    import trimesh

    box = trimesh.creation.box(extents=(7, 11, 6))
    lines = [f"v {x * 1e299:.6g} {y * 1e299:.6g} {z * 1e299:.6g}" for x, y, z in box.vertices]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in box.faces]
    (tmp_path / "bale.obj").write_text("\n".join(lines) + "\n")
    refused(capsys, ["design", "check", _mesh_design(tmp_path, "bale.obj")], "not finite")


@pytest.fixture
def ring(tmp_path):
    import trimesh

    from models.mesh_files import read_mesh_file

    path = tmp_path / "ring.stl"
    trimesh.creation.annulus(r_min=3, r_max=5, height=4).export(path)
    return read_mesh_file(path, "mm", "bale")


def test_a_user_cache_folder_that_is_a_file_is_one_line(monkeypatch, tmp_path, ring):
    from models import decompose
    from models.errors import InputError

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    (tmp_path / "cache").mkdir()
    (tmp_path / "cache" / "go-piggy-go").write_text("not a folder")
    monkeypatch.setattr(decompose, "_coacd", lambda *a: pytest.fail("decomposed first"))
    with pytest.raises(InputError, match="cannot make the mesh cache folder") as caught:
        decompose.collision_parts(ring, decompose.DecompositionSettings())
    assert "\n" not in str(caught.value)


def _cube_obj(size: float) -> str:
    """A cube of side ``size`` as the body of a mesh-parts cache: one part."""
    corners = [(x, y, z) for x in (0, size) for y in (0, size) for z in (0, size)]
    faces = ((1, 2, 4), (1, 4, 3), (5, 7, 8), (5, 8, 6), (1, 5, 6), (1, 6, 2))
    faces += ((3, 4, 8), (3, 8, 7), (1, 3, 7), (1, 7, 5), (2, 6, 8), (2, 8, 4))
    vertices = "".join(f"v {x:g} {y:g} {z:g}\n" for x, y, z in corners)
    return "o part-0\n" + vertices + "".join(f"f {a} {b} {c}\n" for a, b, c in faces)


@pytest.mark.parametrize(
    "body",
    [
        "o part-0\nv 0 0 0\nv 0 0 0\nv 0 0 0\nv 0 0 0\nf 1 2 3\n",
        "o part-0\nv 1 2 3\nf 1 2 9\n",
        "",
        _cube_obj(1e30),
        _cube_obj(1e200),
        "o part-0\nv 0 0 0\nv 1e30 1e30 1e30\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 2 3\n",
    ],
    ids=[
        "flat",
        "a face past its vertices",
        "no part",
        "a cube of 1e30",
        "a cube of 1e200",
        "a sliver to 1e30",
    ],
)
def test_a_mesh_parts_cache_edited_and_checksummed_again_is_measured_again(
    monkeypatch, tmp_path, ring, body, recwarn
):
    """Measured again, without a word: no warning (numpy's overflow) reaches stderr."""
    import hashlib

    from models import decompose

    settings = decompose.DecompositionSettings()
    header = f"# {ring.sha256} bale {settings.key()}"
    digest = hashlib.sha256(settings.key().encode()).hexdigest()[:8]
    cached = tmp_path / f"bale-{ring.sha256[:16]}-{digest}.obj"
    cached.write_text(f"{header}\n# body {hashlib.sha256(body.encode()).hexdigest()}\n{body}")
    hull = ring.mesh.convex_hull
    monkeypatch.setattr(decompose, "_coacd", lambda *a: [hull])
    (part,) = decompose.collision_parts(ring, settings, tmp_path)
    assert part.volume > 0 and cached.read_text() != body
    assert part.bounds[1].max() < 10  # the ring's own parts, not the cube's
    assert [str(w.message) for w in recwarn] == []


# --- smaller ones -------------------------------------------------------------------------------
@pytest.mark.parametrize("text", NOT_ASCII_NUMBERS)
def test_optimise_param_takes_ascii_digits_only(capsys, tmp_path, text):
    pytest.importorskip("optuna")
    argv = ["design", "optimise", "stock", "--param", f"pivot_height={text}:120"]
    refused(
        capsys, [*argv, "--cache", str(tmp_path / "c")], "must look like FIELD=LOW:HIGH", tmp_path
    )


def test_optimise_will_not_write_the_best_over_base(capsys, tmp_path):
    pytest.importorskip("optuna")
    base = tmp_path / "mine.toml"
    shutil.copy(BOARDS_DIR.parent / "designs" / "stock.toml", base)
    before = base.read_bytes()
    argv = ["design", "optimise", str(base), "--param", "pivot_height=40:120", "--out", str(base)]
    message = "is the same file as BASE"  # as every output that is an input (issue 51)
    refused(capsys, [*argv, "--cache", str(tmp_path / "c")], message, tmp_path)
    assert base.read_bytes() == before


def test_verify_precision_is_named_in_its_refusal(capsys, tmp_path):
    pytest.importorskip("optuna")
    argv = ["design", "optimise", "stock", "--param", "pivot_height=40:120"]
    argv += ["--verify-precision", "0.7", "--cache", str(tmp_path / "c")]
    refused(capsys, argv, "--verify-precision 0.7 is out of range", tmp_path)


def _post(served, path: str, raw: bytes, host: str | None = None) -> tuple[int, dict]:
    import http.client
    import json
    from urllib.parse import urlsplit

    where = urlsplit(served.base)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=300)
    headers = {"X-Piggy-Token": served.token, "Content-Type": "application/json"}
    connection.request("POST", path, raw, headers | ({"Host": host} if host else {}))
    reply = connection.getresponse()
    status, body = reply.status, reply.read()
    connection.close()
    return status, json.loads(body) if body else {}


@pytest.mark.slow
def test_the_server_checks_types_text_and_the_host_name(served):
    status, state = _post(served, "/api/new", b"{}")
    sid = state["id"]
    _post(served, f"/api/{sid}/aim", b'{"at": "blue-1"}')
    status, reply = _post(served, f"/api/{sid}/fire", b'{"exact": "no"}')
    assert status == 400 and "'exact' must be true or false" in reply["error"]
    upload = b'{"kind": "layout", "text": "{\\"stacks\\": {\\"r9c5\\": [\\"\\ud800\\"]}}"}'
    status, reply = _post(served, f"/api/{sid}/upload", upload)
    assert status == 400 and "lone surrogate" in reply["error"] and "\n" not in reply["error"]
    status, reply = _post(served, f"/api/{sid}/aim", b'{"at": "blue-1"}', host="evil.example")
    assert status == 403 and "Host names" in reply["error"]
    port = served.base.rsplit(":", 1)[1]
    for name in (f"localhost:{port}", f"127.0.0.1:{port}"):
        assert _post(served, f"/api/{sid}/aim", b'{"at": "blue-1"}', host=name)[0] == 200


def test_a_woolfy_piglet_that_laps_back_to_the_start_has_left_it():
    import referee

    squares = {"wolf_squares": "3", "wolf_start": 3, "pot_exits": "3"}
    houses = {"straw_square": 1, "stick_square": 2, "brick_square": 4}
    game = referee.load_game("woolfy", track_length=6, die_faces="6", **squares, **houses)
    state = game.new_initial_state()
    for action in ("roll blue", "die 6", "move blue 0"):
        state.apply_action(action)
    assert state.where["blue"] == 0 and state.left_start == ["blue"]


def test_scripted_shots_with_no_probability_after_the_colon_are_refused(capsys, tmp_path):
    argv = ["tournament", "go-piggy-go", "--seats", "greedy,random", "--shots", "scripted:"]
    refused(capsys, argv, "the hit probability must be a number 0-1", tmp_path)


def test_a_csv_whose_sidecar_path_is_a_folder_is_refused_before_any_shot(capsys, tmp_path):
    (tmp_path / "h.csv.json").mkdir()
    refused(capsys, [*HITMAP, "--out", str(tmp_path / "h.csv")], "--out's sidecar", tmp_path)


# --- saved states that could never happen: the By Golly! log against the rest ------------------
def _by_golly_states(seed: int, players: int = 3, **params):
    """The states of a seeded random By Golly! game, as saved (JSON objects), in order."""
    import json
    import random

    import referee

    game = referee.load_game("by_golly", players=players, **params)
    rng, state = random.Random(seed), game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            action = rng.choices([o for o, _ in outcomes], [p for _, p in outcomes])[0]
        else:
            action = rng.choice(state.legal_actions())
        state.apply_action(action)
        yield game, json.loads(state.to_json())


def _first_state(found):
    return next((game, data) for game, data in _by_golly_states(3) if found(data["events"]))


def _draw_to_itself(events: list) -> None:
    draw = next(e for e in events if e[0] == "draw")
    draw[1] = draw[2]


def _reveal_changed(events: list) -> None:
    from referee.by_golly_terms import RUN_CARDS

    reveal = next(e for e in events if e[0] == "reveal")
    reveal[2] = next(c for c in RUN_CARDS if c != reveal[2])


@pytest.mark.parametrize(
    ("needs", "change", "message"),
    [
        (lambda events: any(e[0] == "draw" for e in events), _draw_to_itself, "draws from another"),
        (
            lambda events: sum(e[0] == "hide" for e in events) >= 2,
            _reveal_changed,
            "where the run held",
        ),
    ],
    ids=["a draw from a seat to itself", "a card turned over that was not there"],
)
def test_a_by_golly_log_that_play_could_not_make_is_refused(needs, change, message):
    import json

    from models.errors import InputError

    game, data = _first_state(needs)
    game.state_from_json(json.dumps(data))  # as saved: read
    change(data["events"])
    with pytest.raises(InputError, match=message) as caught:
        game.state_from_json(json.dumps(data))
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("seed", "params"),
    [(1, {"max_turns": 60}), *((seed, {"max_turns": 12, "players": 2}) for seed in range(2, 9))],
)
def test_every_state_a_by_golly_game_passes_through_is_read_back(seed, params):
    import json

    for game, data in _by_golly_states(seed, **params):
        # as it is, with its history replayed, and as a position alone: the same state
        assert json.loads(game.state_from_json(json.dumps(data)).to_json()) == data
        position = {**data, "history": []}
        assert json.loads(game.state_from_json(json.dumps(position)).to_json()) == position


def test_a_4k_mp4_at_slow_motion_20_is_refused_before_the_shot(capsys, tmp_path):
    argv = ["shoot", "--yaw", "0", "--pitch", "10", "--mp4", str(tmp_path / "big.mp4")]
    argv += ["--size", "3840x2160", "--slowmo", "20"]
    refused(capsys, argv, "billion pixels to draw", tmp_path)


def _closed_port() -> int:
    """A port of the loopback that nothing listens on (bound, then let go)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
@pytest.mark.parametrize(
    "command",
    [
        ["design", "compare", "stock", "fast-spring"],
        ["design", "compare", "stock", "fast-spring", "--rule", "per-map"],
        ["design", "sweep", "--param", "pivot_height=60:80:2"],
    ],
    ids=["compare, paired", "compare, per map", "sweep"],
)
def test_an_unreachable_scheduler_writes_nothing_into_the_cache(capsys, tmp_path, command):
    pytest.importorskip("dask.distributed")
    argv = [*command, "--spaces", "r8c3", "--shots", "10", "--cache", str(tmp_path / "cache")]
    argv += ["--scheduler", f"tcp://127.0.0.1:{_closed_port()}"]
    refused(capsys, argv, "cannot reach the Dask scheduler", tmp_path)


@pytest.mark.parametrize("objective", ["mean-p,energy", "flat"])
def test_a_wilcoxon_pruner_asked_for_where_trials_do_not_race_is_refused(
    capsys, tmp_path, objective
):
    pytest.importorskip("optuna")
    argv = ["design", "optimise", "stock", "--param", "pivot_height=60:100", "--trials", "1"]
    argv += ["--objective", objective, "--pruner", "wilcoxon", "--spaces", "r8c3,r2c3"]
    argv += ["--storage", f"sqlite:///{tmp_path / 's.db'}", "--cache", str(tmp_path / "c")]
    argv += ["--out", str(tmp_path / "best.toml")]
    refused(
        capsys, argv, f"and --objective {objective} does not race: leave --pruner out", tmp_path
    )
