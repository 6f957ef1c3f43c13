"""The gpu extra (MuJoCo Warp) is never a default: without it, the warp batch says so
on one line with the command that installs it. Needs neither MuJoCo Warp nor MuJoCo
(their imports are made to fail)."""

import sys

import pytest

from models.errors import InputError
from sim.physics.mujoco import warp_batch


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
    from sim.studies.shots import rqmc
    from sim.studies.shots.space_shots import SweepSpec, shot_seed
    from sim.studies.shots.warp_space import space_noises

    spec = SweepSpec(
        board="stock", design="stock", stacks={}, spaces=("r0c3",), shots=40, sampler="mc"
    )
    space = load_board("stock").parse_space("r0c3")
    assert space_noises(spec, "r0c3") == [{"seed": shot_seed(0, space, i)} for i in range(40)]
    rq = SweepSpec(**{**spec.__dict__, "sampler": "rqmc"})
    noises = space_noises(rq, "r0c3")
    scrambles, _, points = rqmc.plan(40, None)
    assert len(noises) == scrambles * points
    first = rqmc.to_deviates(rqmc.scramble_points(rqmc.scramble_seed(0, space, 0), 3, 1))[0]
    assert noises[0]["deviates"].yaw == float(first[0])
    with pytest.raises(InputError, match="precision"):
        space_noises(SweepSpec(**{**spec.__dict__, "precision": 0.05}), "r0c3")
