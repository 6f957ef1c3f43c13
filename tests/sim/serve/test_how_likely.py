"""``piggy serve``'s "how likely?": the hit map's own measurement of one space, look
by look, driven in this process through the app's ASGI interface (as uvicorn calls
it), its lifespan and its worker processes included."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json

import pytest

from tests.helpers import ROOT, run

pytest.importorskip("starlette")

from sim.serve.app import Server  # after the check: it needs starlette
from tests.sim.serve.in_process import LAYOUT, WAIT_S, InProcess, Looks, aimed_sandbox


async def _measure(seed: int, precision: float) -> tuple[dict, dict, list[tuple[int, dict]]]:
    """ "How likely?" run to its end: what it answered at the start and at the end, and
    its looks."""
    async with InProcess(Server(LAYOUT["stacks"], workers=2)) as client:
        sid = await aimed_sandbox(client)
        looks = Looks(client, sid)
        status, started = await client.request(
            f"/api/{sid}/likely", {"precision": precision, "seed": seed}
        )
        assert status == 200, started
        await asyncio.wait_for(client.server.tasks[sid], WAIT_S)
        _, final = await client.request(f"/api/{sid}/likely")
        return started, final, looks.of(seed)


@pytest.mark.slow
def test_how_likely_is_the_hit_maps_measurement_reported_look_by_look(tmp_path, capsys):
    """The same space, seed, precision, layout and aimer give the sandbox and
    ``piggy hitmap --json`` the same P, interval and shots; the page's progress grows
    at every look, each look going on from the shots fired before it."""
    started, final, looks = asyncio.run(_measure(seed=7, precision=0.1))
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(LAYOUT))
    code, out, err = run(
        capsys,
        *("hitmap", "--spaces", "r9c3", "--precision", "0.1", "--seed", "7"),
        *("--aimer", "child", "--layout", str(layout), "--json"),
        *("--out", str(tmp_path / "map.csv"), "--workers", "1"),
    )
    assert code == 0, err
    hitmap = json.loads(out)
    assert hitmap["sampler"] == "rqmc" and hitmap["in_reach"] == 1
    assert started == {
        **{"running": True, "space": "r9c3", "target": "blue-1", "label": "blue-1 on r9c3"},
        **{"shots": 0, "most": 1000, "precision": 0.1},
    }
    assert final["running"] is False and final["target"] == "blue-1"
    assert final["shots"] == hitmap["shots"]
    assert final["p"] == hitmap["worst_p_target"]
    assert final["interval"] == hitmap["worst_p_target_ci"]
    # look by look: each goes on from the shots the page showed, which only grow
    fired = [count for count, _ in looks]
    shown = [progress["shots"] for _, progress in looks]
    assert len(looks) >= 3 and fired == shown
    assert fired[0] == 0 and all(a < b for a, b in itertools.pairwise(fired))
    assert fired[-1] < final["shots"]
    assert all(p["running"] and p["most"] == 1000 for _, p in looks)
    assert all(p["p"] is not None for _, p in looks[1:])


async def _cancelled() -> tuple[list, list, dict, bool]:
    """A long estimate replaced by a new one after its second look is sent; the new
    one's tab closed after its first look is sent."""
    async with InProcess(Server(LAYOUT["stacks"], workers=2)) as client:
        sid = await aimed_sandbox(client)
        looks = Looks(client, sid)
        await client.request(f"/api/{sid}/likely", {"precision": 0.05, "seed": 1})
        first = client.server.tasks[sid]
        await looks.until(seed=1, count=2)
        await client.request(f"/api/{sid}/likely", {"precision": 0.05, "seed": 2})
        second = client.server.tasks[sid]
        await looks.until(seed=2, count=1)
        cancelled = first.done() and first.cancelled()
        status, reply = await client.request(f"/api/{sid}/close", {})
        assert (status, reply) == (200, {"closed": True})
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.wait_for(second, WAIT_S)
        cancelled = cancelled and second.cancelled()
        return looks.of(1), looks.of(2), dict(client.server.tasks), cancelled


@pytest.mark.slow
def test_a_new_estimate_or_a_closed_tab_stops_the_last_at_its_next_look():
    first, second, tasks, cancelled = asyncio.run(_cancelled())
    assert cancelled and tasks == {}
    assert [fired for fired, _ in first] == [0, 20]  # no look sent after the new one
    assert [fired for fired, _ in second] == [0]  # nor after the tab closed


async def _aimed_at(at: str) -> tuple[dict, dict]:
    """ "How likely?" at precision 0.2 aimed at ``at`` on :data:`LAYOUT`: what it
    answered at the start and at the end."""
    async with InProcess(Server(LAYOUT["stacks"], workers=2)) as client:
        sid = await aimed_sandbox(client)
        status, reply = await client.request(f"/api/{sid}/aim", {"at": at})
        assert status == 200, reply
        status, started = await client.request(f"/api/{sid}/likely", {"precision": 0.2})
        assert status == 200, started
        await asyncio.wait_for(client.server.tasks[sid], WAIT_S)
        return started, (await client.request(f"/api/{sid}/likely"))[1]


@pytest.mark.slow
def test_how_likely_measures_the_piggy_aimed_at_under_another():
    """gold-2 at the bottom of r8c3, pink-1 on it: gold-2 is measured (it measured
    pink-1, the top piggy, the hit map's target on that space)."""
    started, final = asyncio.run(_aimed_at("gold-2"))
    assert started["label"] == "gold-2 on r8c3" and started["target"] == "gold-2"
    assert final["running"] is False and final["target"] == "gold-2" and final["shots"] > 0
    assert final["label"] == "gold-2 on r8c3"


@pytest.mark.slow
def test_how_likely_on_an_empty_space_says_a_lone_piggy():
    """On an empty space the measurement stands a piggy there alone (the hit maps'
    gold-1, not on this board): the page says "a lone piggy on r0c3", not gold-1."""
    started, final = asyncio.run(_aimed_at("r0c3"))
    assert started["label"] == final["label"] == "a lone piggy on r0c3"
    assert final["running"] is False and final["space"] == "r0c3" and final["shots"] > 0
    script = (ROOT / "sim" / "views" / "web" / "sandbox.js").read_text()
    assert "${estimate.label}: P(knocked out)" in script


def test_an_empty_space_is_measured_with_a_piggy_that_is_not_on_the_board():
    """gold-1 on the board: another free piggy stands alone on the empty space; with
    all twelve on the board, one line says to take one off."""
    from models.errors import InputError
    from models.layout import CROWDED_STACKS
    from sim.serve.sessions import Sandbox

    sandbox = Sandbox("stock", "stock", {"r3c6": ["gold-1"], "r8c3": ["gold-2", "pink-1"]})
    sandbox.set_aim({"at": "r0c3"})
    assert sandbox.measured() == ("r0c3", "green-1", True)
    sandbox.set_aim({"at": "gold-2"})
    assert sandbox.measured() == ("r8c3", "gold-2", False)
    sandbox.set_aim({"at": "r8c3"})
    assert sandbox.measured() == ("r8c3", "pink-1", False)
    crowded = Sandbox("stock", "stock", {s: list(p) for s, p in CROWDED_STACKS.items()})
    crowded.set_aim({"at": "r0c3"})
    with pytest.raises(InputError, match=r"every piggy is on the board: .* take one off first"):
        crowded.measured()
