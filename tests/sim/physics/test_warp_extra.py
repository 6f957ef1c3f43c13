"""The gpu extra (MuJoCo Warp) is never a default: without it, the warp batch says so
on one line with the command that installs it. Needs neither MuJoCo Warp nor MuJoCo
(their imports are made to fail)."""

import sys

import pytest

from models.errors import InputError
from sim.physics import warp_batch


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
