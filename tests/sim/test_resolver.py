"""Go Piggy Go! with shots decided by PyBullet."""

import pytest

import referee
from models.design import load_design
from referee.bots import make_bot
from referee.match import play
from referee.records import record_lines, replay
from sim.physics.world_cache import WORLDS
from sim.resolver import PhysicalResolver


def test_physical_resolver_knocks_out_a_lone_piggy_it_aims_at(board):
    resolver = PhysicalResolver(load_design("stock"))
    outcomes = resolver.outcomes(board, {"r9c5": ["blue-1"], "r2c1": ["green-1"]}, 0, "blue-1", 0)
    assert outcomes == [(("blue-1",), 1.0)]
    assert resolver.last.first_contact_with == "blue-1"
    resolver.close()


def test_physical_resolver_is_reproducible_and_seeded_by_shot_number(board):
    resolver = PhysicalResolver(load_design("stock"), seed=3)
    stacks = {"r8c3": ["gold-2", "pink-1"], "r9c3": ["blue-1"]}
    first = resolver.outcomes(board, stacks, 0, "pink-1", 4)
    speed = resolver.last.speed_mm_s
    assert resolver.outcomes(board, stacks, 0, "pink-1", 4) == first
    assert resolver.last.speed_mm_s == speed
    resolver.outcomes(board, stacks, 0, "pink-1", 5)
    assert resolver.last.speed_mm_s != speed  # another shot, other noise
    resolver.close()


def test_resolvers_of_one_design_share_its_world_and_close_lets_it_go(board):
    WORLDS.clear()
    first, second = (
        PhysicalResolver(load_design("stock"), seed=3),
        PhysicalResolver(load_design("stock"), seed=5),
    )
    stacks = {"r8c3": ["gold-2", "pink-1"], "r9c3": ["blue-1"]}
    outcome = first.outcomes(board, stacks, 0, "pink-1", 4)
    speed = first.last.speed_mm_s
    second.outcomes(board, {"r9c5": ["blue-1"]}, 0, "blue-1", 0)
    assert len(WORLDS) == 1  # the second fired in the first's world
    # another layout and shot fired in it between: the same shot again
    assert first.outcomes(board, stacks, 0, "pink-1", 4) == outcome
    assert first.last.speed_mm_s == speed
    first.close()
    assert len(WORLDS) == 0
    second.close()  # its world is gone already: nothing to do


def test_out_of_reach_target_knocks_nobody(tmp_path):
    weak = tmp_path / "weak.toml"
    weak.write_text('name = "weak"\n[launcher]\nmuzzle_speed_mm_s = 500.0\n')
    resolver = PhysicalResolver(load_design(weak))
    game_board = referee.load_game("go_piggy_go").board
    assert resolver.outcomes(game_board, {"r10c0": ["gold-1"]}, 0, "gold-1", 0) == [((), 1.0)]
    resolver.close()


@pytest.mark.slow
def test_games_with_physical_shots_end_and_replay_without_physics():
    resolver = PhysicalResolver(load_design("stock"), seed=1)
    game = referee.load_game("go_piggy_go", players=3, resolver=resolver)
    shots = 0
    for seed in range(3):
        final = play(game, [make_bot("random", game, seed * 3 + i) for i in range(3)], seed=seed)
        assert final.is_terminal()
        shots += sum(a.startswith("fire ") for a in final.history)
        # replayed with a resolver that would fail if asked: records need no physics
        lines = record_lines(final)
        import json

        head = json.loads(lines[0])
        actions = [json.loads(line) for line in lines[1:]]
        *_, again = replay(head["game"], head["params"], actions, resolver=_NoPhysics())
        assert again.to_json() == final.to_json()
    assert shots >= 3
    resolver.close()


class _NoPhysics:
    def outcomes(self, *args):
        raise AssertionError("a replay asked for a shot to be simulated")
