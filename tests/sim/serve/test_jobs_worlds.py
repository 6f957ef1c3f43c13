"""A long-lived sandbox worker's worlds (sim/serve/jobs.py through the process's
world cache, sim/physics/world_cache.py): however many designs its pages ask for,
no more than the cache's bound stay alive, and a shot is the same whichever worlds
came and went before it."""

import gc

import pytest

from sim.physics.world_cache import BOUND, WORLDS
from sim.serve import jobs
from tests.helpers import pybullet_connections

STACKS = {"r9c3": ["blue-1"]}
AIM = {"at": "blue-1"}


@pytest.fixture
def designs(tmp_path):
    """More designs than the bound, each the stock one with another muzzle speed."""
    paths = []
    for i in range(BOUND + 2):
        path = tmp_path / f"speed-{i}.toml"
        path.write_text(f'name = "speed-{i}"\n[launcher]\nmuzzle_speed_mm_s = {1600 + 50 * i}.0\n')
        paths.append(str(path))
    return paths


@pytest.fixture
def empty_cache():
    """The process's cache emptied before and after (other tests' worlds closed)."""
    WORLDS.clear()
    gc.collect()
    yield
    WORLDS.clear()


def test_a_worker_cycling_through_designs_keeps_at_most_the_bound_alive(designs, empty_cache):
    start = pybullet_connections()
    first = jobs.fire("stock", designs[0], STACKS, AIM, 3, True, "child")
    for _ in range(2):
        for design in designs:
            assert jobs.look("stock", design, STACKS, AIM)["aim_error"] is None
            assert len(WORLDS) <= BOUND
            assert pybullet_connections() - start <= BOUND
    # the first design's world was closed and built again: the same shot
    again = jobs.fire("stock", designs[0], STACKS, AIM, 3, True, "child")
    assert again["shot"] == first["shot"] and again["replay"] == first["replay"]
