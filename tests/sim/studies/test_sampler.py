"""The samplers on the real physics: plain Monte Carlo fires exactly the seeded shots
it always has; RQMC fires each scramble's points, paired across designs, the same
whatever the worker count; both are recorded and checked on the command line."""

import dataclasses
import json
import math

import pytest

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.layout import layout_from_dict
from models.tables import read_table
from sim.cli import main
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.physics.noise import Deviates
from sim.physics.shoot import solve_aim
from sim.studies.comparing import compare
from sim.studies.maps.hitmap import sweep
from sim.studies.shots import rqmc
from sim.studies.shots.datafiles import read_provenance
from sim.studies.shots.space_firing import normalised_yaw, run_space
from sim.studies.shots.space_shots import SweepSpec, shot_seed

CHILD = load_aimer("child")


def spec(**changes):
    return SweepSpec(
        **{
            "board": "stock",
            "design": "stock",
            "stacks": {},
            "spaces": ("r8c3", "r9c5"),
            "shots": 20,
            "seed": 7,
            "aimer": CHILD,
            "sampler": "rqmc",
            **changes,
        }
    )


@pytest.fixture(scope="module")
def world():
    return BulletWorld(load_board("stock"), load_design("stock"))


def test_plain_monte_carlo_rows_are_the_seeded_shots(world):
    """--sampler mc fires what seeded BulletWorld.shoot fires: its files are those made
    before there was a sampler to choose."""
    part = run_space(spec(sampler="mc", shots=3, spaces=("r8c3",)), "r8c3")
    world.set_layout(
        layout_from_dict({"stacks": {"r8c3": ["gold-1"]}}, board=world.board, source="test")
    )
    aim = solve_aim(world, "gold-1", "low")
    for row in part.shots:
        assert row.seed == shot_seed(7, (8, 3), row.shot) and "scramble" not in row.to_dict()
        shot = world.shoot(AimedShot(aim.yaw_deg, aim.pitch_deg, seed=row.seed, aimer=CHILD))
        assert (row.yaw_deg, row.pitch_deg, row.speed_mm_s, row.knocked) == (
            round(normalised_yaw(shot.yaw_deg), 4),
            round(shot.pitch_deg, 4),
            round(shot.speed_mm_s, 2),
            ",".join(shot.knocked),
        )


def test_rqmc_rows_are_the_scrambles_points(world):
    rows = run_space(spec(), "r8c3").shots
    assert len(rows) == 20  # 10 scrambles of 2 points
    assert sorted({r.scramble for r in rows}) == list(range(10))
    first = rows[0]
    seed = rqmc.scramble_seed(7, (8, 3), first.scramble)
    assert first.seed == seed
    z = rqmc.to_deviates(rqmc.scramble_points(seed, 3, 2))[first.point]
    launcher = load_design("stock").launcher
    assert first.speed_mm_s == pytest.approx(
        launcher.muzzle_speed_mm_s + z[2] * launcher.speed_sd_mm_s, abs=0.01
    )


def test_deviates_combine_the_launcher_s_and_the_aimer_s_spread(world):
    result = world.shoot(AimedShot(0.0, 20.0, aimer=CHILD, deviates=Deviates(1.0, -1.0, 0.0)))
    launcher = world.design.launcher
    assert result.yaw_deg == pytest.approx(math.hypot(launcher.yaw_sd_deg, CHILD.yaw_sd_deg))
    assert result.pitch_deg == pytest.approx(
        20.0 - math.hypot(launcher.pitch_sd_deg, CHILD.pitch_sd_deg)
    )
    assert result.speed_mm_s == pytest.approx(launcher.muzzle_speed_mm_s)
    varied = world.shoot(
        AimedShot(0.0, 20.0, deviates=Deviates(0.0, 0.0, 0.0, (1.0,)), vary={"mass": 0.1})
    )
    assert varied.materials.mass == pytest.approx(1.1) and varied.materials.friction == 1.0


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_rqmc_files_do_not_depend_on_the_worker_count(tmp_path, fmt):
    one, two = tmp_path / f"one.{fmt}", tmp_path / f"two.{fmt}"
    sweep(spec(), one, fmt, workers=1, per_shot=True)
    sweep(spec(), two, fmt, workers=2, per_shot=True)
    assert one.read_bytes() == two.read_bytes()
    assert (tmp_path / f"one.shots.{fmt}").read_bytes() == (
        tmp_path / f"two.shots.{fmt}"
    ).read_bytes()
    made = read_provenance(one)
    assert (made["sampler"], made["scrambles"]) == ("rqmc", rqmc.SCRAMBLES)


def test_the_sampler_is_part_of_a_sweep_s_settings():
    assert spec().key() != spec(sampler="mc").key()
    assert "sampler" not in json.loads(spec(sampler="mc").key())  # as before the choice


def test_a_design_compared_with_itself_differs_nowhere():
    parts = [run_space(spec(), name) for name in ("r8c3", "r9c5")]
    result = compare.compare_parts("stock", "stock", parts, parts)
    for row in result.spaces:
        assert row.diff == 0 and row.p_value == 1.0 and not row.significant


def test_two_designs_share_every_point():
    fast = dataclasses.replace(spec(), design="fast-spring")
    a, b = run_space(spec(), "r8c3").shots, run_space(fast, "r8c3").shots
    assert [(r.scramble, r.point, r.seed) for r in a] == [(r.scramble, r.point, r.seed) for r in b]
    # the aims differ (another speed, another arc); the errors added to them do not
    for key in ("yaw_deg", "pitch_deg"):
        offsets = [getattr(x, key) - getattr(y, key) for x, y in zip(a, b, strict=True)]
        assert max(offsets) - min(offsets) < 2e-3


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--sampler", "sobol"], "unknown sampler 'sobol': allowed are rqmc, mc"),
        (["--precision", "0.7"], "--precision 0.7 is out of range"),
    ],
)
def test_bad_sampler_input_exits_2_with_one_line(capsys, tmp_path, argv, message):
    code = main(["hitmap", "--spaces", "r8c3", *argv, "--out", str(tmp_path / "x.csv")])
    err = capsys.readouterr().err
    assert code == 2 and message in err and err.count("\n") == 1


def test_hitmap_command_with_rqmc_reports_its_sampler(capsys, tmp_path):
    out = tmp_path / "h.csv"
    assert (
        main(
            [
                "hitmap",
                "--spaces",
                "r8c3",
                "--shots",
                "20",
                "--workers",
                "1",
                "--out",
                str(out),
                "--json",
            ]
        )
        == 0
    )
    summary = json.loads(capsys.readouterr().out)
    assert summary["sampler"] == "rqmc" and summary["shots"] == 20
    row = read_table(out)[0]
    assert row["p_target_ci_low"] <= row["p_target"] <= row["p_target_ci_high"]


@pytest.mark.parametrize(
    ("sampler", "shots", "named"),
    [
        pytest.param("rqmc", "20", "Student's t over the RQMC scrambles", marks=pytest.mark.slow),
        ("mc", "4", "Wilson"),
    ],
)
def test_a_hit_map_names_the_interval_its_sampler_gave_everywhere(
    capsys, tmp_path, monkeypatch, sampler, shots, named
):
    """The default sampler's interval is not Wilson's: the file's provenance, the
    summary, the worst space's line and the picture's legend each name the one the
    map was measured with."""
    from sim.views import hitmap_picture

    drawn = []
    monkeypatch.setattr(hitmap_picture, "save_figure", lambda fig, path: drawn.append(fig))
    out = tmp_path / "h.csv"
    argv = ["hitmap", "--spaces", "r8c3", "--shots", shots, "--workers", "1"]
    argv += ["--sampler", sampler, "--out", str(out), "--plot", str(tmp_path / "h.png")]
    assert main(argv) == 0
    text = capsys.readouterr().out
    assert f"(95 %, {named})" in text.splitlines()[0]
    assert read_provenance(out)["interval"] == named
    legend = [t.get_text() for t in drawn[0].legends[0].get_texts()]
    assert f"under the %: its 95 % interval ({named})" in legend
    assert not any("Wilson" in t for t in legend) or sampler == "mc"
    assert main([*argv[:-2], "--json", "--out", str(tmp_path / "again.csv")]) == 0
    assert json.loads(capsys.readouterr().out)["interval"] == named
