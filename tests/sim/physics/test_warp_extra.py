"""The gpu extra (MuJoCo Warp) is never a default: without it, the warp batch says so
on one line with the command that installs it. Needs neither MuJoCo Warp nor MuJoCo
(their imports are made to fail)."""

import sys

import pytest

from models.errors import InputError
from sim.physics.warp import batch as warp_batch


@pytest.mark.parametrize("missing", ["mujoco_warp", "warp"])
def test_a_missing_mujoco_warp_is_one_line_with_the_install_command(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # import then raises ImportError
    with pytest.raises(InputError) as refused:
        warp_batch.check_warp()
    message = str(refused.value)
    assert "\n" not in message
    assert "pip install -e '.[gpu]'" in message and "go-piggy-go-sandbox[gpu]" in message
    with pytest.raises(InputError):
        warp_batch.default_device("cpu")


def test_the_gpu_extra_is_no_default_and_not_in_dev():
    import tomllib
    from pathlib import Path

    project = tomllib.loads((Path(__file__).parents[3] / "pyproject.toml").read_text())["project"]
    extras = project["optional-dependencies"]
    assert extras["gpu"] == ["mujoco-warp>=4.0"]
    assert not any("warp" in d for d in project["dependencies"] + extras["dev"])


def test_a_batch_fires_the_hit_maps_shots():
    """The noise a batch fires at a space is the hit map's, shot for shot."""
    from models.board import load_board
    from sim.physics.shoot import Aim
    from sim.studies.shots import rqmc
    from sim.studies.shots.space_shots import SweepSpec, shot_seed
    from sim.studies.shots.warp_space import space_shots

    spec = SweepSpec(
        board="stock", design="stock", stacks={}, spaces=("r0c3",), shots=40, sampler="mc"
    )
    space = load_board("stock").parse_space("r0c3")
    aim = Aim(3.0, 20.0)
    mc = space_shots(spec, "r0c3", aim)
    assert [shot.seed for shot in mc] == [shot_seed(0, space, i) for i in range(40)]
    assert {(shot.yaw_deg, shot.pitch_deg, shot.aimer) for shot in mc} == {(3.0, 20.0, spec.aimer)}
    rq = SweepSpec(**{**spec.__dict__, "sampler": "rqmc"})
    shots = space_shots(rq, "r0c3", aim)
    scrambles, _, points = rqmc.plan(40, None)
    assert len(shots) == scrambles * points
    first = rqmc.to_deviates(rqmc.scramble_points(rqmc.scramble_seed(0, space, 0), 3, 1))[0]
    assert shots[0].deviates is not None and shots[0].deviates.yaw == float(first[0])
    with pytest.raises(InputError, match="precision"):
        space_shots(SweepSpec(**{**spec.__dict__, "precision": 0.05}), "r0c3", aim)


@pytest.mark.parametrize(
    "argv",
    [
        ["hitmap", "--engine", "mujoco-warp", "--spaces", "r0c3", "--out", "map.csv"],
        ["design", "compare", "stock", "stock", "--engine", "mujoco-warp", "--shots", "8"],
        ["design", "compare", "stock", "stock", "--engines", "mujoco,mujoco-warp"],
    ],
)
def test_the_warp_engine_without_its_extra_is_one_line_before_any_work(
    capsys, monkeypatch, tmp_path, argv
):
    """``--engine mujoco-warp`` where MuJoCo Warp is not installed: exit 2, one line
    naming the gpu extra, and nothing written (no shot was fired)."""
    from tests.helpers import run

    monkeypatch.setitem(sys.modules, "mujoco_warp", None)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("piggy: error:")
    assert "the mujoco-warp engine needs MuJoCo Warp" in err and "'.[gpu]'" in err
    assert list(tmp_path.iterdir()) == []


def test_a_hit_map_on_the_warp_engine_with_vary_says_its_shots_were_fired_singly():
    """--vary has no batch form: the provenance says the shots were fired one by one
    on the CPU engine (needs no Warp: nothing of it is asked)."""
    from sim.studies.shots.space_shots import SweepSpec, engine_provenance

    spec = SweepSpec(
        board="stock",
        design="stock",
        stacks={},
        spaces=("r0c3",),
        shots=8,
        engine="mujoco-warp",
        vary={"friction": 0.1},
    )
    told = engine_provenance(spec)
    assert told["engine"] == "mujoco-warp"
    assert told["warp_batch"].startswith("not used: --vary has no batch form")
    assert "singly by MuJoCo on the CPU" in told["warp_batch"] and "warp_device" not in told


def test_shots_with_no_batch_form_are_the_cpu_engines_shot_for_shot():
    """The warp engine fires --vary's shots on the CPU MuJoCo engine: the same results
    as MujocoWorld, never a silently different batch (no Warp needed)."""
    pytest.importorskip("mujoco")
    from models.aimer import load_aimer
    from models.board import load_board
    from models.design import load_design
    from models.layout import layout_from_dict
    from sim.physics.launch import AimedShot
    from sim.physics.mujoco.world import MujocoWorld
    from sim.physics.warp.world import WarpWorld

    board, design = load_board("stock"), load_design("stock")
    layout = layout_from_dict({"stacks": {"r2c3": ["gold-1"]}}, board=board, source="test")
    child, vary = load_aimer("child"), {"friction": 0.2}
    shots = [AimedShot(-2.0, 8.0, seed=s, aimer=child, vary=vary) for s in (1, 2, 3)]
    cpu = MujocoWorld(board, design, layout, bale_to_rest=False).fire(shots)
    warp = WarpWorld(board, design, layout, bale_to_rest=False)
    fired = warp.fire(shots)
    assert warp._batch is None  # no batch was made: nothing of Warp was asked
    for a, b in zip(cpu, fired, strict=True):
        assert (a.knocked, a.contacts, a.sim_time_s, a.rest_mm, a.materials) == (
            b.knocked,
            b.contacts,
            b.sim_time_s,
            b.rest_mm,
            b.materials,
        )
