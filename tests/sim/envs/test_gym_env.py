"""piggy/Aim-v0 (sim/envs, docs/gym.md) and its baselines (scripts/aim_baselines.py)."""

import functools
import importlib.util
import math
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium")

from gymnasium.error import ResetNeeded  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from scipy.stats import chi2  # noqa: E402

from models.errors import InputError  # noqa: E402
from sim.envs.aim import solver_action  # noqa: E402
from tests.helpers import ROOT  # noqa: E402

ENV_ID = "sim.envs:piggy/Aim-v0"


def make(**kwargs):
    return gymnasium.make(ENV_ID, **kwargs)


@functools.cache
def baselines():
    """scripts/aim_baselines.py as a module (scripts/ is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "aim_baselines", ROOT / "scripts" / "aim_baselines.py"
    )
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_gymnasium_make_imports_the_environment_itself():
    """A fresh interpreter that imported nothing of ours makes the env by its id."""
    code = (
        "import sys, gymnasium\n"
        "assert not [m for m in sys.modules if m == 'sim' or m.startswith('sim.')]\n"
        "env = gymnasium.make('sim.envs:piggy/Aim-v0', target='r8c3')\n"
        "observation, info = env.reset(seed=0)\n"
        "print(env.spec.id, info['target_space'])\n"
    )
    run = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["piggy/Aim-v0", "r8c3"]


@pytest.mark.slow
def test_gymnasium_check_env_passes_without_a_warning():
    env = make(
        layout="crowded", target="random-piggy", render_mode="rgb_array", frame_size=(96, 72)
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env.unwrapped)
    env.close()
    assert [str(w.message) for w in caught] == []


def test_observation_holds_the_target_relative_to_the_tractor_and_the_occupancy():
    env = make(layout="crowded", target="r8c3")
    observation, info = env.reset(seed=0)
    board = env.unwrapped.board
    assert (info["target"], info["target_space"]) == ("pink-3", "r8c3")  # top of the stack
    centre = board.space_center_mm(board.parse_space("r8c3"))
    assert np.allclose(observation["target"][:2], centre, atol=5.0)  # the tractor is at 0, 0
    assert observation["target"][2] > 30  # on top of pink-2, not on the board
    occupancy = observation["occupancy"]
    assert occupancy.shape == (board.rows, board.cols)
    assert occupancy.sum() == 12 and occupancy[8, 3] == 2 and occupancy[3, 6] == 2
    assert occupancy[5, 3] == 0  # a hole under the tractor
    env.close()


@pytest.mark.slow
def test_seeded_resets_repeat_observations_and_rewards():
    def episodes(seed):
        env = make(aim_sd_deg=(3, 3))
        out = []
        observation, info = env.reset(seed=seed)
        for _ in range(4):
            _, reward, terminated, _, step_info = env.step(solver_action(env, observation))
            out.append(
                (
                    observation["target"].tolist(),
                    info["target_space"],
                    reward,
                    step_info["knocked"],
                    step_info["fired_deg"],
                )
            )
            assert terminated
            observation, info = env.reset()
        env.close()
        return out

    first = episodes(11)
    assert episodes(11) == first
    other = episodes(12)
    assert [e[1] for e in other] != [e[1] for e in first]  # random targets follow the seed
    assert [e[4] for e in other] != [e[4] for e in first]  # and so does the noise


def test_random_targets_stand_on_the_spaces_asked_for_or_are_the_layouts_piggies():
    env = make(spaces=["r8c3", "r9c5"])
    env.reset(seed=0)
    drawn = {env.reset()[1]["target_space"] for _ in range(12)}
    assert drawn == {"r8c3", "r9c5"}
    env.close()
    stacks = {"r8c3": ["pink-1", "pink-2"], "r2c0": ["blue-1"]}
    env = make(layout={"stacks": stacks}, target="random-piggy")
    env.reset(seed=0)
    for _ in range(12):
        _, info = env.reset()
        assert info["stacks"] == stacks  # nobody added
        drawn.add(info["target"])
    assert {"pink-1", "pink-2", "blue-1"} <= drawn
    env.close()


def test_actions_outside_the_box_are_clipped_and_bad_ones_refused():
    env = make(target="r8c3")
    pitch_min = env.unwrapped.design.launcher.pitch_min_deg
    env.reset(seed=5)
    *_, inside = env.step(np.array([1.0, -1.0], np.float32))
    env.reset(seed=5)
    *_, outside = env.step(np.array([3.0, -7.5], np.float32))
    assert inside["aim_deg"] == outside["aim_deg"] == (180.0, pitch_min)
    assert inside == outside
    env.reset(seed=5)
    with pytest.raises(InputError, match="not finite"):
        env.step(np.array([np.nan, 0.0], np.float32))
    with pytest.raises(InputError, match="shape"):
        env.step(np.zeros(3, np.float32))
    env.step(np.zeros(2, np.float32))
    with pytest.raises(ResetNeeded):  # one shot an episode
        env.unwrapped.step(np.zeros(2, np.float32))
    env.close()


def test_actions_and_angles_round_trip():
    env = make().unwrapped
    for yaw, pitch in ((0.0, -30.0), (-26.6, -2.0), (179.0, 75.0), (-135.0, 10.0)):
        back = env.to_angles(env.to_action(yaw, pitch))
        assert back == pytest.approx((yaw, pitch), abs=1e-4)
    assert env.to_angles(env.to_action(190.0, 0.0))[0] == pytest.approx(-170.0, abs=1e-4)
    with pytest.raises(InputError, match="pitch"):
        env.to_action(0.0, 80.0)
    env.close()


@pytest.mark.slow
def test_rgb_array_frames_show_the_board_before_and_after_the_shot():
    env = make(layout="crowded", target="r8c3", render_mode="rgb_array", frame_size=(160, 120))
    observation, _ = env.reset(seed=0)
    before = env.render()
    env.step(solver_action(env, observation))
    after = env.render()
    env.close()
    for frame in (before, after):
        assert frame.shape == (120, 160, 3) and frame.dtype == np.uint8
        assert len(np.unique(frame.reshape(-1, 3), axis=0)) > 50  # a picture, not a fill
    assert np.abs(before.astype(int) - after.astype(int)).sum(axis=2).astype(bool).mean() > 0.005
    plain = make(target="r8c3").unwrapped
    plain.reset(seed=0)
    assert plain.render() is None  # no render_mode: no frame
    plain.close()


def test_a_closed_environment_refuses_to_step_or_draw_in_one_line():
    env = make(target="r8c3", render_mode="rgb_array", frame_size=(96, 72)).unwrapped
    env.reset(seed=0)
    env.close()
    with pytest.raises(InputError, match="the environment is closed"):
        env.render()
    with pytest.raises(InputError, match="the environment is closed"):
        env.step(np.zeros(2, np.float32))


def test_each_other_piggy_knocked_out_costs_the_penalty():
    """A stack hit straight on: the top piggy knocks the bottom one out too."""
    rewards = {}
    for penalty in (0.0, 0.3):
        env = make(
            layout={"stacks": {"r8c3": ["pink-1", "pink-2"]}},
            target="pink-2",
            collateral_penalty=penalty,
        )
        observation, _ = env.reset(seed=3)
        _, reward, _, _, info = env.step(solver_action(env, observation))
        rewards[penalty] = reward
        env.close()
    assert info["knocked"] == ["pink-1", "pink-2"] and info["collateral"] == 1
    assert rewards == {0.0: 1.0, 0.3: pytest.approx(0.7)}


@pytest.mark.slow
def test_the_aiming_error_adds_to_the_launchers_spread():
    """Fired minus aimed angles: normal with sd sqrt(0.8² + 3²) = 3.10 deg (stock design
    0.8, aiming error 3), within the 99.9 % chi-square interval; the design alone (0.8)
    or the two spreads added as numbers (3.8) lie far outside it."""
    env = make(target="r8c3", aim_sd_deg=(3.0, 3.0))
    env.reset(seed=0)
    deviations = []
    for _ in range(150):  # fired away from the piggy: quick shots
        env.reset()
        *_, info = env.step(np.array([1.0, 0.0], np.float32))
        deviations += [
            (info["fired_deg"][0] - info["aim_deg"][0] + 180) % 360 - 180,
            info["fired_deg"][1] - info["aim_deg"][1],
        ]
    env.close()
    dof = len(deviations)
    sd = math.sqrt(np.mean(np.square(deviations)))  # the mean deviation is 0
    expected = math.hypot(0.8, 3.0)
    assert (
        expected * math.sqrt(chi2.ppf(0.0005, dof) / dof)
        < sd
        < expected * math.sqrt(chi2.ppf(0.9995, dof) / dof)
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"target": "r4c3"}, "hole"),
        ({"target": "purple-1"}, "unknown piggy"),
        ({"layout": "crowded", "target": "blue-9"}, "unknown piggy"),
        ({"layout": "crowded", "spaces": ["r8c3"]}, "not empty"),
        ({"layout": "crowded"}, "none is left"),
        ({"target": "random-piggy"}, "no piggies"),
        ({"target": "r8c3", "spaces": ["r9c5"]}, "not both"),
        ({"aimer": "toddler"}, "unknown aimer 'toddler'"),
        ({"aim_sd_deg": (-1, 2)}, "out of range"),
        ({"aim_sd_deg": "wide"}, "two numbers"),
        ({"collateral_penalty": float("nan")}, "collateral_penalty"),
        ({"collateral_penalty": "high"}, "collateral_penalty"),
        ({"layout": {"stacks": {"r8c3": ["pink-1", "pink-2", "pink-3"]}}}, "at most 2"),
        ({"render_mode": "ansi"}, "render_mode"),
        ({"design": "no-such-design"}, "no-such-design"),
    ],
)
@pytest.mark.filterwarnings("ignore:.*not in the possible render_modes")
def test_bad_options_are_one_line_errors(options, message):
    with pytest.raises(InputError, match=message) as error:
        make(**options)
    assert "\n" not in str(error.value)


def test_reset_options_choose_one_episodes_target():
    env = make(target="r8c3")
    assert env.reset(seed=0, options={"target": "r9c5"})[1]["target_space"] == "r9c5"
    assert env.reset()[1]["target_space"] == "r8c3"
    with pytest.raises(InputError, match="unknown reset option 'board'"):
        env.reset(options={"board": "stock"})
    env.close()


def test_the_learner_is_reproducible_from_its_seed():
    module = baselines()
    config = module.CEMConfig(population=8, generations=3, eval_shots=4)

    def run(seed):
        env = make(target="r8c3", aim_sd_deg=(2, 2))
        history = module.cem_learn(env, "r8c3", config, seed)
        env.close()
        return history

    first = run(0)
    assert run(0) == first
    assert [g.shots for g in first] == [8, 16, 24]


@pytest.mark.slow
def test_the_solver_policy_succeeds_as_often_as_the_hit_map_says():
    """On two spaces at intermediate P (an aiming error of 4 deg), the solver's aim
    fired through the env and the hit map (sim/studies/maps/hitmap.py, with the same
    aimer) are independent samples of the same
    probability: 200 shots each, pooled two-proportion z-test, |z| < 3 (two tests:
    a false alarm about once in 200 runs). Power: a difference in P of 0.15 gives
    |z| ≈ 3 (found half the time), a bug that drops the aiming error (P near 1)
    gives |z| > 6."""
    module = baselines()
    env = make(aim_sd_deg=(4.0, 4.0))
    for space, seed in (("r9c5", 1), ("r0c3", 2)):
        hits, n = module.solver_success(env, space, 200, seed)
        map_hits, map_n = module.hitmap_success(env, space, 200, seed)
        assert 0.15 < map_hits / map_n < 0.85, (space, map_hits)  # informative spaces
        z = module.two_proportion_z(hits, n, map_hits, map_n)
        assert abs(z) < 3, (space, hits, map_hits, z)
    env.close()


@pytest.mark.slow
@pytest.mark.parametrize("args", [["solver", "--target", "r4c3"], ["learn", "--aim-sd=-1,2"]])
def test_the_baselines_script_refuses_bad_input_in_one_line(args):
    run = subprocess.run(
        [sys.executable, "scripts/aim_baselines.py", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert run.returncode == 2
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr
