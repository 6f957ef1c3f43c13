"""``piggy serve`` keys by content: a board or design file edited while the server
runs changes nothing for an open tab (its shots, its scene, its estimates rest on
the content it opened with, and it is told of the change), and a tab opened after
the edit has the new content. Driven in this process (tests/sim/serve/in_process.py)."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from tests.helpers import ROOT

pytest.importorskip("starlette")

from sim.serve.app import Server  # after the check: it needs starlette
from tests.sim.serve.in_process import LAYOUT, WAIT_S, InProcess, Looks, aimed_sandbox

#: Piggies 20 times heavier: a bale hardly moves them.
HEAVY = ("mass_g = 2.5\n", "mass_g = 50.0\n")
#: Higher fences: the scene drawn differs.
HIGHER = ("fence_height_mm = 22.0\n", "fence_height_mm = 30.0\n")


def _copy(source: Path, folder: Path, name: str) -> Path:
    path = folder / name
    path.write_text(source.read_text())
    return path


def _edit(path: Path, change: tuple[str, str]) -> None:
    old, new = change
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


async def _fire(client: InProcess, sid: str, seed: int) -> dict:
    status, reply = await client.request(f"/api/{sid}/fire", {"seed": seed})
    assert status == 200, reply
    return reply["shot"]


def _served(tmp_path: Path, named: str, monkeypatch) -> tuple[Path, Path, dict]:
    """The board and design served, and the server's arguments: files given by
    path, or the known name ``stock`` read from a copy of the installation's folders
    (a test never edits the checkout's own)."""
    if named == "path":
        board = _copy(ROOT / "models" / "boards" / "stock.toml", tmp_path, "b.toml")
        design = _copy(ROOT / "models" / "designs" / "stock.toml", tmp_path, "d.toml")
        return board, design, {"board": str(board), "design": str(design)}
    import models.board
    import models.design
    import sim.serve.sources

    for kind, module, name in (
        ("boards", models.board, "BOARDS_DIR"),
        ("designs", models.design, "DESIGNS_DIR"),
    ):
        folder = tmp_path / kind
        shutil.copytree(ROOT / "models" / kind, folder)
        monkeypatch.setattr(module, name, folder)
        monkeypatch.setattr(sim.serve.sources, name, folder)
    board, design = tmp_path / "boards" / "stock.toml", tmp_path / "designs" / "stock.toml"
    return board, design, {"board": "stock", "design": "stock"}


async def _between_two_fires(tmp_path: Path, named: str, edited: str, monkeypatch) -> dict:
    board, design, given = _served(tmp_path, named, monkeypatch)
    server = Server(LAYOUT["stacks"], workers=2, **given)
    async with InProcess(server) as client:
        opened = await aimed_sandbox(client)
        before = {
            "shot": await _fire(client, opened, seed=5),
            "scene": (await client.request(f"/api/{opened}/scene"))[1],
        }
        if edited == "design":
            _edit(design, HEAVY)
        else:
            _edit(board, HIGHER)
        _, told = await client.request(f"/api/{opened}/aim", {"at": "blue-1"})
        after = {
            "shot": await _fire(client, opened, seed=5),
            "scene": (await client.request(f"/api/{opened}/scene"))[1],
        }
        later = await aimed_sandbox(client)
        _, fresh = await client.request(f"/api/{later}/aim", {"at": "blue-1"})
        new = {
            "shot": await _fire(client, later, seed=5),
            "scene": (await client.request(f"/api/{later}/scene"))[1],
        }
    names = {"board": board.name, "design": design.name}
    return {"before": before, "after": after, "new": new, "told": told, "fresh": fresh} | {
        "name": names[edited]
    }


@pytest.mark.slow
@pytest.mark.parametrize("edited", ["board", "design"])
@pytest.mark.parametrize("named", ["path", "known"])
def test_a_file_edited_between_two_fires_changes_nothing_in_an_open_tab(
    tmp_path, monkeypatch, named, edited
):
    """The board alone or the design alone edited, served by path (b.toml, d.toml) or
    by the known name stock: the same seed in the same tab gives the same shot and
    the same scene, and the tab is told which file changed; a tab opened after the
    edit has the new content (a higher fence drawn; heavier piggies hit otherwise)
    under another scene key, and is told nothing."""
    seen = asyncio.run(_between_two_fires(tmp_path, named, edited, monkeypatch))
    assert seen["after"] == seen["before"]
    changed = "scene" if edited == "board" else "shot"
    assert seen["new"][changed] != seen["before"][changed]
    told = seen["told"]["changed"]
    assert told is not None and told.startswith(f"{seen['name']} changed on disk: reload"), told
    assert seen["fresh"]["changed"] is None
    assert seen["fresh"]["scene_key"] != seen["told"]["scene_key"]


async def _estimate(client: InProcess, sid: str, seed: int) -> dict:
    """ "How likely?" at precision 0.2, run to its end: its last answer."""
    status, started = await client.request(f"/api/{sid}/likely", {"precision": 0.2, "seed": seed})
    assert status == 200, started
    await asyncio.wait_for(client.server.tasks[sid], WAIT_S)
    return (await client.request(f"/api/{sid}/likely"))[1]


async def _across_an_edit(tmp_path: Path) -> tuple[dict, dict, dict, int]:
    design = _copy(ROOT / "models" / "designs" / "stock.toml", tmp_path, "d.toml")
    async with InProcess(Server(LAYOUT["stacks"], workers=2, design=str(design))) as client:
        opened = await aimed_sandbox(client)
        looks = Looks(client, opened)
        status, _ = await client.request(f"/api/{opened}/likely", {"precision": 0.2, "seed": 3})
        assert status == 200
        await looks.until(seed=3, count=1)
        _edit(design, HEAVY)  # while the estimate's first look runs
        await asyncio.wait_for(client.server.tasks[opened], WAIT_S)
        spanning = (await client.request(f"/api/{opened}/likely"))[1]
        again = await _estimate(client, opened, seed=3)  # all of it after the edit
        new = await _estimate(client, await aimed_sandbox(client), seed=3)
    return spanning, again, new, len(looks.of(3))


@pytest.mark.slow
def test_an_estimate_across_an_edit_finishes_on_the_content_it_started_with(tmp_path):
    """An estimate running while d.toml is edited gives what the same tab gives after
    the edit (its start content throughout, not a mix); a tab opened after the edit
    measures the new content and gets another answer."""
    spanning, again, new, looks = asyncio.run(_across_an_edit(tmp_path))
    assert looks >= 2  # the edit came between two looks
    assert spanning["running"] is False and spanning["target"] == "blue-1"
    measured = ("shots", "p", "interval")
    assert {k: spanning[k] for k in measured} == {k: again[k] for k in measured}
    assert {k: new[k] for k in measured} != {k: spanning[k] for k in measured}


async def _broken_while_open(tmp_path: Path) -> tuple[tuple, tuple, tuple]:
    board = _copy(ROOT / "models" / "boards" / "stock.toml", tmp_path, "b.toml")
    async with InProcess(Server(LAYOUT["stacks"], workers=2, board=str(board))) as client:
        status, state = await client.request("/api/new", {})
        assert status == 200, state
        board.write_text('name = "half-saved"\n')
        refused = await client.request("/api/new", {})
        still = await client.request(f"/api/{state['id']}/reset", {})
        scene = await client.request(f"/api/{state['id']}/scene")
    return refused, still, scene


@pytest.mark.slow
def test_a_file_broken_on_disk_refuses_new_tabs_on_one_line_and_open_ones_go_on(tmp_path):
    """A board file saved half-way: a new tab is refused with the loader's one line;
    the tab opened before goes on with its own content, told of the change."""
    (status, reply), (still_status, state), (scene_status, _) = asyncio.run(
        _broken_while_open(tmp_path)
    )
    assert status == 400 and reply["error"].endswith("b.toml: missing key 'space_mm'"), reply
    assert still_status == 200 and state["stacks"] == LAYOUT["stacks"]
    assert state["changed"].startswith("b.toml changed on disk")
    assert scene_status == 200


def test_a_designs_mesh_is_kept_with_it_and_its_edit_is_told(tmp_path):
    """A design read for a tab keeps its mesh's content too (a copy beside the
    design's), and an edit of the mesh is told as an edit of the design is."""
    from models.design import load_design
    from sim.serve.sources import Sources

    for name in ("wide-piggy.toml", "wide-piggy.obj"):
        _copy(ROOT / "models" / "designs" / name, tmp_path, name)
    sources = Sources(design=str(tmp_path / "wide-piggy.toml"))
    try:
        start = sources.read()
        kept = load_design(start.design).piggy.mesh
        assert kept != str(tmp_path / "wide-piggy.obj")
        assert Path(kept).read_bytes() == (tmp_path / "wide-piggy.obj").read_bytes()
        assert sources.changed(start.files) is None
        with (tmp_path / "wide-piggy.obj").open("a") as mesh:
            mesh.write("# edited\n")
        told = sources.changed(start.files)
        assert told is not None and told.startswith("wide-piggy.obj changed on disk")
        assert Path(kept).read_bytes() != (tmp_path / "wide-piggy.obj").read_bytes()
    finally:
        sources.cleanup()


def test_a_known_design_chosen_in_a_tab_is_kept_by_content(tmp_path, monkeypatch):
    """Choosing fast-spring by name gives the tab a copy of the file as it is now: an
    edit of models/designs/fast-spring.toml afterwards (here, of a copy of the
    folder) does not reach the tab, as it would if the workers loaded it by name."""
    import models.design
    import sim.serve.sources
    from models.design import load_design
    from sim.serve.sessions import Sandbox
    from sim.serve.sources import Sources
    from sim.serve.uploads import Uploads

    designs = tmp_path / "designs"
    shutil.copytree(ROOT / "models" / "designs", designs)
    monkeypatch.setattr(models.design, "DESIGNS_DIR", designs)
    monkeypatch.setattr(sim.serve.sources, "DESIGNS_DIR", designs)
    sources = Sources()
    uploads = Uploads(sources.known)
    try:
        sandbox = Sandbox(board="stock", design="stock", stacks={})
        uploads.choose(sandbox, {"design": "fast-spring"})
        chosen = load_design(sandbox.design)
        assert sandbox.design_label == "fast-spring" and chosen.name == "fast-spring"
        text = (designs / "fast-spring.toml").read_text()
        (designs / "fast-spring.toml").write_text(
            text.replace('name = "fast-spring"', 'name = "x"')
        )
        assert load_design(sandbox.design) == chosen
        assert load_design("fast-spring").name == "x"  # the edit is real
    finally:
        uploads.cleanup()
        sources.cleanup()
