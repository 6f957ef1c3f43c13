"""The process's world cache (sim/physics/world_cache.py): a world is reused for
the same board and design content, and no more than the bound are ever alive, those
let go closed as they go."""

import dataclasses
import gc

import pytest

from models.design import DESIGNS_DIR, load_design
from sim.physics.registry import resolve
from sim.physics.world_cache import WorldCache
from tests.helpers import pybullet_connections


def faster(design, speed_mm_s: float):
    """The design with its launcher's muzzle speed changed: another design by content."""
    return dataclasses.replace(
        design, launcher=dataclasses.replace(design.launcher, muzzle_speed_mm_s=speed_mm_s)
    )


def test_the_same_content_gets_the_same_world_whatever_its_file(board, design, tmp_path):
    cache = WorldCache()
    world = cache.world(board, design)
    copy = tmp_path / "copy.toml"
    copy.write_text((DESIGNS_DIR / "stock.toml").read_text())
    assert cache.world(board, load_design(copy)) is world
    assert cache.world(board, resolve(design, "bullet")) is world  # the design's own engine
    assert len(cache) == 1
    cache.clear()


def test_another_design_hit_rule_or_bale_rule_gets_another_world(board, design):
    cache = WorldCache(bound=8)
    worlds = [
        cache.world(board, design),
        cache.world(board, faster(design, 2100.0)),
        cache.world(board, design, hit_rule="cleared"),
        cache.world(board, design, bale_to_rest=False),
    ]
    assert len({id(w) for w in worlds}) == len(worlds) == len(cache)
    assert worlds[1].design.launcher.muzzle_speed_mm_s == 2100.0
    assert worlds[2].hit_rule == "cleared"
    assert not worlds[3].bale_to_rest
    cache.clear()


def test_another_engine_gets_another_world(board, design):
    pytest.importorskip("mujoco")
    cache = WorldCache()
    bullet = cache.world(board, design)
    mujoco = cache.world(board, resolve(design, "mujoco"))
    assert mujoco is not bullet and mujoco.engine == "mujoco" and bullet.engine == "bullet"
    assert cache.world(board, resolve(design, "mujoco")) is mujoco
    cache.clear()


@pytest.fixture
def opened():
    """How many PyBullet connections the test has opened (less those it closed). The
    garbage collector is held off meanwhile: a world the test holds can then only be
    disconnected by being closed, never by being collected."""
    gc.collect()
    gc.disable()
    start = pybullet_connections()
    yield lambda: pybullet_connections() - start
    gc.enable()


def test_more_designs_than_the_bound_keep_the_bound_and_close_the_least_recently_used(
    board, design, opened
):
    cache = WorldCache(bound=2)
    worlds = [cache.world(board, faster(design, 1500.0 + 100.0 * i)) for i in range(5)]
    assert len(cache) == 2 and opened() == 2  # all five held here, three closed
    assert cache.world(board, faster(design, 1800.0)) is worlds[3]
    assert cache.world(board, faster(design, 1900.0)) is worlds[4]
    # used again, the older of the two is kept and the other goes
    assert cache.world(board, faster(design, 1800.0)) is worlds[3]
    cache.world(board, design)
    assert cache.world(board, faster(design, 1800.0)) is worlds[3]
    assert opened() == 2
    rebuilt = cache.world(board, faster(design, 1500.0))  # the first, closed, comes anew
    assert rebuilt is not worlds[0] and opened() == 2
    cache.clear()
    assert len(cache) == 0 and opened() == 0


def test_room_for_keeps_every_world_held_then_goes_back_to_the_bound(board, design, opened):
    cache = WorldCache(bound=2)
    with cache.room_for(4):
        held = [cache.world(board, faster(design, 1500.0 + 100.0 * i)) for i in range(4)]
        assert len(cache) == 4 and opened() == 4
        assert all(cache.world(board, w.design) is w for w in held)
    assert len(cache) == 2 and opened() == 2
    assert cache.world(board, held[3].design) is held[3]
    cache.clear()


def test_discard_closes_the_world_and_the_next_ask_builds_it_again(board, design, opened):
    cache = WorldCache()
    world = cache.world(board, design)
    cache.discard(board, design)
    assert len(cache) == 0 and opened() == 0
    cache.discard(board, design)  # nothing kept: nothing to do
    assert cache.world(board, design) is not world and opened() == 1
    cache.clear()


def test_a_bound_under_one_is_refused():
    with pytest.raises(ValueError, match="at least one"):
        WorldCache(bound=0)
