"""``piggy serve``: the sandbox in the browser, its token, its checks, its tabs."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import os
import socket
import sys
import time
from pathlib import Path

import pytest

from models.errors import InputError, install_hint
from sim.cli import main
from sim.serve.pool import Workers
from sim.serve.sessions import Sandbox, Store
from tests import browser
from tests.helpers import ROOT

pytest.importorskip("starlette")
pytest.importorskip("uvicorn")

LAYOUT = {"board": "stock", "stacks": {"r8c3": ["gold-2", "pink-1"], "r9c3": ["blue-1"]}}


def _load_script():
    spec = importlib.util.spec_from_file_location("load_serve", ROOT / "scripts" / "load_serve.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


load_serve = _load_script()


@pytest.fixture(scope="module")
def layout_file(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("serve") / "layout.json"
    path.write_text(json.dumps(LAYOUT))
    return path


@pytest.fixture(scope="module")
def served(layout_file):
    server = load_serve.Served("--workers", "2", "--layout", str(layout_file))
    yield server
    server.stop()


def new_sandbox(served) -> str:
    status, state = served.request("/api/new", {})
    assert status == 200
    return state["id"]


@pytest.mark.slow
def test_without_the_token_every_request_gets_403_and_nothing_else(served):
    sid = new_sandbox(served)
    for path, body in (
        ("/", None),
        ("/api/new", {}),
        (f"/api/{sid}/scene", None),
        (f"/api/{sid}/fire", {"seed": 0}),
    ):
        status, content = served.request(path, body, token=False)
        assert (status, content) == (403, b""), path
    status, content = served.request("/?token=" + "x" * len(served.token), token=False)
    assert (status, content) == (403, b"")
    status, content = served.request("/?token=" + served.token, token=False)
    assert status == 200 and b"<title>Go Piggy Go! sandbox</title>" in content
    assert b"http://" not in content and b"https://" not in content  # works offline


@pytest.mark.slow
def test_the_page_places_a_piggy_fires_and_shows_piggy_shoots_verdict(served, tmp_path, capsys):
    with browser.Browser(tmp_path / "profile") as page:
        page.open(served.url)
        page.wait_for("sandbox.view && Object.keys(sandbox.view.piggies).length === 3")
        page.run("document.querySelector('#colour').value = 'gold'")
        page.click(*page.run("sandbox.view.onPage('r9c5')"))  # a click places gold-1
        page.wait_for("!!(sandbox.state.stacks.r9c5 && sandbox.view.piggies['gold-1'])")
        page.run("document.querySelector('input[value=aim]').checked = true")
        page.click(*page.run("sandbox.view.onPage('gold-1')"))  # and one aims at it
        page.wait_for("sandbox.state.aim.at")
        assert page.run("sandbox.state.aim") == {"at": "gold-1"}
        page.run("document.querySelector('#fire').click()")
        page.wait_for("!!sandbox.shot")
        shown = page.run(
            "({shot: sandbox.shot.shot, verdict: document.querySelector('#verdict').textContent})"
        )
        assert page.errors == []
        sid = page.run("sandbox.state.id")
        page.run(f"act('{sid}/choose', {{design: 'nope'}})")
        message = page.wait_for("document.querySelector('#message').textContent")
        status, saved = served.request(f"/api/{sid}/save/shot.html")  # the offline page of it
        assert status == 200 and b"new Board3D(" in saved and b"http://" not in saved
        page.open("about:blank")  # the tab goes: its sandbox is let go
        end = time.monotonic() + 600
        while served.request(f"/api/{sid}/scene")[0] == 200 and time.monotonic() < end:
            time.sleep(0.5)
        assert served.request(f"/api/{sid}/scene")[0] == 400
    layout = tmp_path / "placed.json"
    layout.write_text(
        json.dumps({"board": "stock", "stacks": {**LAYOUT["stacks"], "r9c5": ["gold-1"]}})
    )
    shoot = ["shoot", "--layout", str(layout), "--at", "gold-1", "--seed", "0", "--aimer", "child"]
    assert main([*shoot, "--json"]) == 0
    assert shown["shot"] == json.loads(capsys.readouterr().out)
    assert main(shoot) == 0
    assert shown["verdict"] + "\n" == capsys.readouterr().out
    assert "gold-1" in shown["shot"]["knocked"] or "stays" in shown["verdict"]
    assert message.startswith("unknown design 'nope': known designs are")


@pytest.mark.slow
@pytest.mark.parametrize(
    ("path", "body", "status", "message"),
    [
        ("aim", {"yaw_deg": 500, "pitch_deg": 10}, 400, "yaw 500 deg is out of range [-360, 360]"),
        ("aim", {"yaw_deg": 0, "pitch_deg": 89}, 400, "pitch 89 deg is out of range for design"),
        ("aim", {"at": "r99c1"}, 400, "r99c1"),
        ("choose", {"design": "nope"}, 400, "unknown design 'nope': known designs are"),
        ("choose", {"board": "/etc/passwd"}, 400, "unknown board '/etc/passwd'"),
        ("fire", {"seed": -1}, 400, "seed -1 is out of range"),
        ("fire", {"seed": "1e3"}, 400, "seed 1e3 is out of range"),
        (
            "upload",
            {"kind": "design", "text": "# " + "x" * 300_000},
            400,
            "the uploaded design is larger than 256 KiB",
        ),
        ("upload", {"kind": "design", "text": "x = ["}, 400, "uploaded design"),
        (
            "upload",
            {"kind": "layout", "text": '{"board": "../../etc/x", "stacks": {}}'},
            400,
            "unknown board '../../etc/x'",
        ),
        (
            "upload",
            {"kind": "layout", "text": '{"stacks": {}, "extra": 1}'},
            400,
            "uploaded layout: unknown key 'extra'",
        ),
        ("edit", {"op": "place", "colour": "gold", "space": "r8c3"}, 400, "at most 2 may stack"),
        ("undo", {}, 400, "nothing to undo"),
    ],
)
def test_bad_input_gets_one_line_and_the_app_keeps_serving(served, path, body, status, message):
    sid = new_sandbox(served)
    got, reply = served.request(f"/api/{sid}/{path}", body)
    assert got == status and message in reply["error"] and "\n" not in reply["error"]
    got, state = served.request(
        f"/api/{sid}/edit", {"op": "place", "colour": "green", "space": "r9c5"}
    )
    assert got == 200 and state["stacks"]["r9c5"] == ["green-1"]


@pytest.mark.slow
def test_a_request_over_the_cap_is_refused_by_its_length_and_the_app_keeps_serving(served):
    """Refused on its Content-Length, before a byte of the body is read: the body is not
    sent here, so that the refusal is read whole (a client still sending a body the
    server will not read may see its pipe broken first)."""
    import http.client
    from urllib.parse import urlsplit

    sid = new_sandbox(served)
    where = urlsplit(served.base)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=600)
    connection.putrequest("POST", f"/api/{sid}/upload")
    for name, value in (
        ("X-Piggy-Token", served.token),
        ("Content-Type", "application/json"),
        ("Content-Length", "1000000"),
    ):
        connection.putheader(name, value)
    connection.endheaders()
    reply = connection.getresponse()
    error = json.loads(reply.read())["error"]
    connection.close()
    assert reply.status == 413 and "the request is larger than" in error and "\n" not in error
    got, state = served.request(
        f"/api/{sid}/edit", {"op": "place", "colour": "green", "space": "r9c5"}
    )
    assert got == 200 and state["stacks"]["r9c5"] == ["green-1"]


@pytest.mark.slow
def test_each_tab_has_its_own_sandbox_undo_reset_and_a_closed_one_is_gone(served):
    first, second = new_sandbox(served), new_sandbox(served)
    served.request(f"/api/{first}/edit", {"op": "remove", "piggy": "blue-1"})
    _, state = served.request(
        f"/api/{first}/edit", {"op": "move", "piggy": "pink-1", "space": "r9c3"}
    )
    assert state["stacks"] == {"r8c3": ["gold-2"], "r9c3": ["pink-1"]} and state["undo"] == 2
    _, other = served.request(f"/api/{second}/aim", {"yaw_deg": 0, "pitch_deg": 10})
    assert other["stacks"] == LAYOUT["stacks"]
    _, state = served.request(f"/api/{first}/undo", {})
    assert state["stacks"] == {"r8c3": ["gold-2", "pink-1"]}
    _, state = served.request(f"/api/{first}/reset", {})
    assert state["stacks"] == LAYOUT["stacks"]
    assert served.request(f"/api/{first}/close", {}) == (200, {"closed": True})
    status, reply = served.request(f"/api/{first}/scene")
    assert status == 400 and "this sandbox is closed" in reply["error"]
    assert served.request(f"/api/{second}/scene")[0] == 200


@pytest.mark.slow
def test_the_first_views_names_do_not_overlap(tmp_path):
    """The demo's six piggies, four of them within two spaces (a stack among them),
    seen from afar: each name has a place of its own, fanned out round them (they
    stood in one column before)."""
    server = load_serve.Served("--workers", "2")  # the demo's piggies
    try:
        with browser.Browser(tmp_path / "profile") as page:
            page.open(server.url)
            page.wait_for("sandbox.view && Object.keys(sandbox.view.piggies).length === 6")
            boxes = page.wait_for(
                "(sandbox.view.tagBoxes || []).length === 6 && sandbox.view.tagBoxes"
            )
            assert page.errors == []
    finally:
        server.stop()
    for i, (x, y, w, h) in enumerate(boxes):
        for x2, y2, w2, h2 in boxes[i + 1 :]:
            assert x + w <= x2 or x2 + w2 <= x or y + h <= y2 or y2 + h2 <= y, boxes
    # no column of names: at most two boxes over a name's middle within three rows of it
    for x, y, w, _ in boxes:
        column = [b for b in boxes if b[0] <= x + w / 2 <= b[0] + b[2] and abs(b[1] - y) <= 54]
        assert len(column) <= 2, [[round(v) for v in b] for b in boxes]


#: In the page: the view's size, the board's corners and each piggy's outline (every
#: vertex of its mesh) on the view, and the names' boxes, in CSS pixels.
_SEEN = """(() => {
  const v = sandbox.view, w = v.container.clientWidth, h = v.container.clientHeight;
  const screen = (x, y, z) => {
    const q = new THREE.Vector3(x, y, z).project(v.camera);
    return [(q.x + 1) / 2 * w, (1 - q.y) / 2 * h];
  };
  const [x0, x1, y0, y1] = v.S.extent_mm;
  const corners = [[x0, y0], [x1, y0], [x0, y1], [x1, y1]].map(([x, y]) => screen(x, y, 0));
  const piggies = {};
  for (const [name, mesh] of Object.entries(v.piggies)) {
    mesh.updateMatrixWorld();
    const at = mesh.geometry.attributes.position, xs = [], ys = [];
    for (let i = 0; i < at.count; i++) {
      const p = new THREE.Vector3(at.getX(i), at.getY(i), at.getZ(i))
        .applyMatrix4(mesh.matrixWorld);
      const [x, y] = screen(p.x, p.y, p.z);
      xs.push(x); ys.push(y);
    }
    piggies[name] = [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
  }
  return {w, h, corners, piggies, names: v.tagBoxes};
})()"""


@pytest.mark.slow
def test_the_crowded_layouts_first_view_shows_the_whole_board_and_no_name_over_a_piggy(tmp_path):
    """All twelve piggies, four of them in the r8 corner's stacks and spaces: the first
    view has every corner of the board in it (row 0 was cut off under the timeline),
    and no name box covers any piggy (one sat over a piggy in the r8 corner)."""
    server = load_serve.Served("--workers", "2", "--layout", "crowded")
    try:
        with browser.Browser(tmp_path / "profile") as page:
            page.open(server.url)
            page.wait_for("sandbox.view && Object.keys(sandbox.view.piggies).length === 12")
            page.wait_for("(sandbox.view.tagBoxes || []).length === 12")
            seen = page.run(_SEEN)
            assert page.errors == []
    finally:
        server.stop()
    for x, y in seen["corners"]:
        assert 0 <= x <= seen["w"] and 0 <= y <= seen["h"], seen["corners"]
    for x, y, w, h in seen["names"]:
        for name, (left, top, right, bottom) in seen["piggies"].items():
            apart = x + w <= left or right <= x or y + h <= top or bottom <= y
            assert apart, (name, [round(v) for v in (x, y, w, h)])


@pytest.mark.slow
def test_the_page_says_when_a_file_it_opened_with_changed_on_disk(tmp_path):
    """b.toml edited while a tab is open: at its next change the page says so above
    the board, and the tab keeps drawing what it opened with."""
    board = tmp_path / "b.toml"
    board.write_text((ROOT / "models" / "boards" / "stock.toml").read_text())
    server = load_serve.Served("--workers", "2", "--board", str(board))
    try:
        with browser.Browser(tmp_path / "profile") as page:
            page.open(server.url)
            page.wait_for("sandbox.view && sandbox.state")
            key = page.run("sandbox.sceneKey")
            assert page.run("document.querySelector('#message').textContent") == ""
            board.write_text(
                board.read_text().replace("fence_height_mm = 22.0", "fence_height_mm = 30.0")
            )
            page.run("act(sandbox.state.id + '/aim', {yaw_deg: 5, pitch_deg: 20})")
            message = page.wait_for("document.querySelector('#message').textContent")
            assert page.run("sandbox.sceneKey") == key and page.errors == []
    finally:
        server.stop()
    assert message == (
        "b.toml changed on disk: reload the page for a tab with the new content "
        "(this tab keeps what it opened with)"
    )


@pytest.mark.slow
def test_a_new_sandbox_aims_as_the_hit_maps_do_and_says_so_beside_fire(served):
    """The sandbox's default aimer is the hit maps' (child), and the page names the
    aimer beside FIRE."""
    status, state = served.request("/api/new", {})
    assert status == 200 and state["aimer"] == "child"
    page = (ROOT / "sim" / "views" / "web" / "sandbox.html").read_text()
    assert '<button id="fire">FIRE</button>' in page and 'id="fireAimer"' in page
    script = (ROOT / "sim" / "views" / "web" / "sandbox.js").read_text()
    assert "$('fireAimer').textContent = 'aimed by: ' + state.aimer" in script


@pytest.mark.slow
def test_shoot_and_the_sandbox_say_who_aimed_first_in_their_words(served, tmp_path, capsys):
    """`piggy shoot` aims as perfect by default, the sandbox as child: one seed gives
    two shots, and each one's words begin by naming its aimer."""
    sid = new_sandbox(served)
    served.request(f"/api/{sid}/aim", {"at": "blue-1"})
    status, fired = served.request(f"/api/{sid}/fire", {"seed": 4})
    assert status == 200, fired
    child = "Aimed by: child (aim spread (1 sd) yaw 3 deg, pitch 3.5 deg)"
    assert fired["text"].splitlines()[0] == child
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(LAYOUT))
    shoot = ["shoot", "--layout", str(layout), "--at", "blue-1", "--seed", "4"]
    assert main(shoot) == 0
    by_default = capsys.readouterr().out
    assert by_default.splitlines()[0] == (
        "Aimed by: perfect (no aim error: the launcher's own noise only)"
    )
    assert main([*shoot, "--aimer", "child"]) == 0
    assert capsys.readouterr().out == fired["text"] + "\n" != by_default


@pytest.mark.slow
def test_uploads_are_checked_then_used_and_saves_come_back(served):
    sid = new_sandbox(served)
    status, state = served.request(
        f"/api/{sid}/upload",
        {"kind": "layout", "text": json.dumps({"board": "stock", "stacks": {"r9c5": ["blue-2"]}})},
    )
    assert status == 200 and state["stacks"] == {"r9c5": ["blue-2"]}
    design = (ROOT / "models" / "designs" / "fast-spring.toml").read_text()
    status, state = served.request(f"/api/{sid}/upload", {"kind": "design", "text": design})
    assert status == 200 and state["design"].endswith("(uploaded)")
    status, saved = served.request(f"/api/{sid}/save/layout.json")
    assert status == 200 and saved["stacks"] == {"r9c5": ["blue-2"]}
    status, reply = served.request(f"/api/{sid}/save/shot.json")
    assert status == 400 and "no shot to save yet" in reply["error"]
    status, reply = served.request(f"/api/{sid}/save/..%2F..%2Fetc%2Fpasswd")
    assert status in (400, 404)


@pytest.mark.slow
def test_a_small_load_answers_every_shot_for_its_own_tab(served):
    outcome = load_serve.load(served, clients=3, shots=2, seconds=600)
    assert outcome == {"answered": 6, "refused": [], "mixed": [], "unanswered": 0}


@pytest.mark.slow
def test_how_likely_gives_a_probability_with_its_interval(served):
    sid = new_sandbox(served)
    served.request(f"/api/{sid}/aim", {"at": "blue-1"})
    status, started = served.request(f"/api/{sid}/likely", {"precision": 0.2})
    assert status == 200 and started["running"] and started["space"] == "r9c3"
    end = time.monotonic() + 600
    while time.monotonic() < end:
        _, estimate = served.request(f"/api/{sid}/likely")
        if not estimate["running"]:
            break
        time.sleep(1)
    low, high = estimate["interval"]
    assert estimate["target"] == "blue-1" and estimate["shots"] >= 20
    assert low <= estimate["p"] <= high and high - low <= 0.4 + 1e-9


@pytest.mark.slow
@pytest.mark.parametrize("when", ["serving", "starting", "serving, started in the background"])
def test_ctrl_c_stops_the_server_and_its_workers(layout_file, when):
    """Ctrl-C gives 130 and leaves no process, whenever it comes: once the workers
    have answered, or as soon as the server says where to open it (its workers and
    its app still starting); and in a server started as a background job, which
    begins with Ctrl-C ignored (it gave 0: uvicorn handed the signal back to that)."""
    server = load_serve.Served(
        "--workers", "2", "--layout", str(layout_file), background="background" in when
    )
    if when.startswith("serving"):
        status, state = server.request("/api/new", {})
        assert status == 200 and state["poses"]  # the workers have started
    code, left = server.stop(timeout_s=300)
    assert code == 130 and not left


def _wait_for_file(path: str) -> str:
    while not os.path.exists(path):
        time.sleep(0.05)
    return "estimate"


def _shot() -> str:
    return "shot"


@pytest.mark.slow
def test_estimates_leave_a_worker_free_for_shots(tmp_path):
    """Estimates that do not end until told: a shot from another tab is answered."""
    go = str(tmp_path / "go")

    async def scenario():
        workers = Workers(2)
        try:
            estimates = [
                asyncio.create_task(workers.run_estimate("a", _wait_for_file, go)) for _ in range(3)
            ]
            shot = await asyncio.wait_for(workers.run("b", _shot), 600)
            waiting = [not t.done() for t in estimates]
            Path(go).touch()
            return shot, waiting, await asyncio.gather(*estimates)
        finally:
            workers.close()

    shot, waiting, estimates = asyncio.run(scenario())
    assert shot == "shot" and all(waiting) and estimates == ["estimate"] * 3


def test_a_port_in_use_is_refused_on_one_line(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["serve", "--port", str(port)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"port {port} on 127.0.0.1 is in use" in err


def test_another_host_than_loopback_is_warned_of(monkeypatch, capsys):
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets: None)  # no serving
    assert main(["serve", "--host", "127.0.0.2", "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("Open http://127.0.0.2:") and "?token=" in out
    assert err.startswith("piggy serve: warning: listening on 127.0.0.2") and "SSH tunnel" in err


def test_serve_without_the_web_extra_says_how_to_get_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)
    assert main(["serve"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and install_hint("web") in err


def test_the_store_keeps_a_bounded_number_of_sandboxes():
    store = Store(capacity=2, idle_s=3600)
    keys = [store.add(Sandbox(board="stock", design="stock", stacks={}))[0] for _ in range(2)]
    store.get(keys[0])  # the first is used again: the second is now the oldest
    third, gone = store.add(Sandbox(board="stock", design="stock", stacks={}))
    assert gone == [keys[1]] and len(store) == 2
    with pytest.raises(InputError, match="closed"):
        store.get(keys[1])
    assert len({keys[0], third}) == 2 and len(third) >= 20


def test_a_sandbox_unused_for_the_idle_time_is_let_go(monkeypatch):
    from sim.serve import sessions

    store = Store(capacity=2, idle_s=1800)
    key, _ = store.add(Sandbox(board="stock", design="stock", stacks={}))
    later = time.monotonic() + 1801
    monkeypatch.setattr(sessions.time, "monotonic", lambda: later)
    with pytest.raises(InputError, match="idle too long"):
        store.get(key)
    assert len(store) == 0
