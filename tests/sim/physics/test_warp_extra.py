"""The gpu extra (MuJoCo Warp) is never a default: without it, the warp batch says so
on one line with the command that installs it. Needs neither MuJoCo Warp nor MuJoCo
(their imports are made to fail)."""

import os
import sys
import types

import pytest

from models.design import load_design
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


def _fake_warp(monkeypatch, device: str) -> None:
    """MuJoCo Warp as if installed (the registry's check imports ``mujoco_warp``) on
    ``device``: no Warp needed."""
    monkeypatch.setitem(sys.modules, "mujoco_warp", types.ModuleType("mujoco_warp"))
    monkeypatch.setattr(warp_batch, "default_device", lambda device_=None: device)


class _NoShot(Exception):
    """Raised where the first shot would be fired: what was said before it is seen."""


@pytest.mark.parametrize(
    "argv, fires, said",
    [  # the shots are the start line's: 1 to 3 a second
        (
            "hitmap --engine mujoco-warp --spaces r0c3 --shots 40 --out m.csv",
            "sim.studies.maps.map_looks.run_map",
            "this run's about 40 shots take about 13 s to 40 s",
        ),
        (  # the mean rule's last look: 100 pairs a space, 68 spaces
            "design compare stock stock --engine mujoco-warp --json",
            "sim.studies.comparing.engines_verdict.compare_in_engines",
            "this run's at most 6,800 shots take up to 37m47s to 1h53m",
        ),
        (  # 3 spreads of 50 shots
            "hitmap --engine mujoco-warp --spaces r0c3 --aim-sd-scan 0:4:3",
            "sim.studies.maps.scan.scan_designs",
            "this run's about 150 shots take about 50 s to 2m30s",
        ),
        (  # 3 maps of 68 spaces, 50 shots each
            "design sweep --param muzzle_speed=1500:3000:3 --engine mujoco-warp",
            "sim.studies.comparing.design_tools.compare_designs",
            "this run's about 10,200 shots take about 56m40s to 2h50m",
        ),
        (  # 2 maps of 68 spaces at ±0.1: 97 shots where P is 0.5
            "design game stock stock --engine mujoco-warp --games 10",
            "sim.studies.comparing.design_game.design_maps",
            "this run's about 13,192 shots take about 1h13m to 3h39m",
        ),
        (  # 20 trials of 68 spaces at ±0.1 (its search precision)
            "design optimise stock --param muzzle_speed=1500:3000 --engine mujoco-warp",
            "sim.studies.optimising.run.run_search",
            "this run's about 131,920 shots take about 12h12m to 36h38m",
        ),
    ],
)
@pytest.mark.parametrize("device", ["cpu", "cuda"])
def test_the_warp_engine_on_its_cpu_device_says_so_and_the_time_before_any_shot(
    capsys, monkeypatch, tmp_path, argv, fires, said, device
):
    """No CUDA GPU: one line before the first shot says Warp runs on its CPU device,
    about how long the run's shots take, and that --engine mujoco is faster (--json
    too); on a GPU nothing is said."""
    from tests.helpers import run

    _fake_warp(monkeypatch, device)

    def no_shot(*args, **kwargs):
        raise _NoShot

    monkeypatch.setattr(fires, no_shot)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv.split())
    assert code != 0 and "_NoShot" in err.splitlines()[-1], err  # stopped at the first shot
    told = [line for line in err.splitlines() if "no CUDA GPU" in line]
    if device == "cuda":
        assert told == []
        return
    assert len(told) == 1
    line = told[0]
    assert line.startswith("piggy: no CUDA GPU: MuJoCo Warp runs on its CPU device")
    assert "1-3 shots a second against --engine mujoco's 60-90 (docs/gpu.md)" in line
    assert "(and about 2 minutes more the first time, compiling Warp's kernels)" in line
    assert "--engine mujoco gives the same P far faster" in line
    assert said in line


def test_warps_own_lines_as_it_starts_never_reach_the_user(capfd, monkeypatch):
    """Warp's native library writes to the process's stdout and stderr as it starts
    ("Warp CUDA warning: ..." with no GPU) and its banner below LOG_WARNING: a
    fake Warp that does both says nothing the user sees, and still starts."""
    warp = types.ModuleType("warp")
    warp.LOG_INFO, warp.LOG_WARNING = 20, 30  # Warp 1.19's, and its default level
    warp.config = types.SimpleNamespace(log_level=warp.LOG_INFO)
    started = []

    def init():
        os.write(2, b"Warp CUDA warning: Could not find or load the NVIDIA CUDA driver.\n")
        os.write(1, b"Warp CUDA error 999 (in function init_cuda_driver)\n")
        if warp.config.log_level <= warp.LOG_INFO:  # as Warp 1.19 does
            print("Warp 1.19.0 initialized:")
        started.append(True)

    warp.init = init
    monkeypatch.setitem(sys.modules, "warp", warp)
    monkeypatch.setitem(sys.modules, "mujoco_warp", types.ModuleType("mujoco_warp"))
    warp_batch.check_warp()
    print("piggy: the command's own line")
    out, err = capfd.readouterr()
    assert started == [True]
    assert (out, err) == ("piggy: the command's own line\n", "")


def test_a_warp_run_with_no_batch_form_says_nothing_of_warps_cpu_device(capsys, monkeypatch):
    """--vary's shots are fired singly by MuJoCo on the CPU, never by Warp: no line of
    Warp's rate (the provenance says how they were fired)."""
    from sim.cli import start_lines
    from sim.studies.shots.space_shots import SweepSpec

    _fake_warp(monkeypatch, "cpu")
    spec = SweepSpec(
        board="stock", design="stock", stacks={}, spaces=("r0c3",), shots=8, engine="mujoco-warp"
    )
    designs = [load_design("stock")]
    varied = SweepSpec(**{**spec.__dict__, "vary": {"friction": 0.1}})
    start_lines.say_if_warp_on_cpu(varied, designs, 8)
    assert capsys.readouterr().err == ""
    start_lines.say_if_warp_on_cpu(spec, designs, 8)
    assert "no CUDA GPU" in capsys.readouterr().err
