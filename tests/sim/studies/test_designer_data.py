"""Hit-probability data a designer can act on: who aims, precision-driven sampling,
the guessed physics varied, what made a file, paired comparisons."""

import json
import math

import numpy as np
import pytest
from scipy import stats

from models.aimer import load_aimer
from models.board import load_board
from models.design import load_design
from models.tables import read_table
from sim.physics.bullet import pb
from sim.physics.bullet.world import BulletWorld
from sim.physics.launch import AimedShot
from sim.physics.materials import NOMINAL, draw_materials, parse_vary
from sim.studies.maps.hitmap import sweep
from sim.studies.shots.datafiles import read_provenance
from sim.studies.shots.space_shots import SweepSpec
from tests.helpers import run

PROVENANCE_KEYS = {
    "board",
    "layout",
    "design",
    "design_sha256",
    "aimer",
    "aim_sd_deg",
    "vary",
    "seed",
    "hit_rule",
    "shots_cap",
    "shots_fired",
    "precision",
    "version",
    "design_file",
    "design_file_sha256",
}


def spec(**changes):
    return SweepSpec(
        **{
            "board": "stock",
            "design": "stock",
            "stacks": {},
            "spaces": ("r5c1",),
            "shots": 2,
            "seed": 3,
            "sampler": "mc",
            **changes,
        }
    )


@pytest.fixture(scope="module")
def world():
    with BulletWorld(load_board("stock"), load_design("stock")) as w:
        yield w


def test_a_perfect_aimer_fires_as_before(world):
    """Only the launcher's spread: the fired yaw is the asked yaw plus the first normal
    draw of the shot's generator times the design's 0.8 degrees, as before aimers."""
    shot = world.shoot(AimedShot(10.0, 5.0, seed=42))
    d_yaw, d_pitch, _ = np.random.default_rng(42).standard_normal(3)
    assert shot.yaw_deg == 10.0 + d_yaw * 0.8
    assert shot.pitch_deg == 5.0 + d_pitch * 0.8


@pytest.mark.slow
def test_the_fired_spread_is_the_launcher_and_the_aimer_together(tmp_path):
    """120 shots at one space with the child: the sample sd of the fired yaw and pitch
    lie inside the 99.9 % chi-square interval of sqrt(0.8^2 + aimer sd^2)."""
    child = load_aimer("child")
    out = tmp_path / "m.csv"
    sweep(spec(shots=120, aimer=child), out, "csv", per_shot=True)
    shots = read_table(tmp_path / "m.shots.csv")
    n = len(shots)
    for column, sd in (("yaw_deg", child.yaw_sd_deg), ("pitch_deg", child.pitch_sd_deg)):
        expected = math.hypot(0.8, sd)
        sample = np.std([s[column] for s in shots], ddof=1)
        low, high = (
            expected * math.sqrt(stats.chi2.ppf(q, n - 1) / (n - 1)) for q in (0.0005, 0.9995)
        )
        assert low < sample < high, column


@pytest.mark.slow
def test_precision_fires_more_where_the_answer_is_uncertain(tmp_path):
    """Precision ±0.1: a perfect aim at a near space (P = 1) stops after the first
    batch; a child's aim at a far space (P near 0.4) goes on to the cap. The file
    is the same whatever the worker count."""
    base = spec(spaces=("r5c1", "r0c3"), shots=60, precision=0.1)
    one, two = tmp_path / "one.csv", tmp_path / "two.csv"
    rows = {r["space"]: r for r in sweep(base, one, "csv", workers=1)}
    sweep(base, two, "csv", workers=2)
    assert one.read_bytes() == two.read_bytes()
    assert rows["r5c1"]["p_target"] == 1.0 and rows["r5c1"]["shots"] == 20
    child = {
        r["space"]: r
        for r in sweep(
            SweepSpec(**{**base.__dict__, "aimer": load_aimer("child")}),
            tmp_path / "child.csv",
            "csv",
        )
    }
    assert child["r0c3"]["shots"] > 20
    assert child["r0c3"]["p_target_ci_high"] < 0.9  # a child's aim makes the far space hard
    # ...and the near one easier than the far one: P falls with distance.
    assert child["r5c1"]["p_target"] > child["r0c3"]["p_target"]


@pytest.mark.slow
@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_every_file_says_what_made_it(tmp_path, fmt):
    out = tmp_path / f"map.{fmt}"
    sweep(spec(aimer=load_aimer("adult"), vary={"friction": 0.1}), out, fmt, per_shot=True)
    for path in (out, tmp_path / f"map.shots.{fmt}"):
        made_by = read_provenance(path)
        assert set(made_by) >= PROVENANCE_KEYS
        assert (made_by["aimer"], made_by["aim_sd_deg"]) == ("adult", [1.0, 1.2])
        assert made_by["vary"] == {"friction": 0.1} and made_by["seed"] == 3
        assert len(made_by["design_sha256"]) == 64
    row = read_table(out)[0]
    assert (row["x_mm"], row["y_mm"], row["distance_mm"]) == (-110.0, 0.0, 110.0)
    assert all(-180 < s["yaw_deg"] <= 180 for s in read_table(tmp_path / f"map.shots.{fmt}"))


def test_vary_draws_within_its_ranges_from_the_seed():
    vary = parse_vary("friction=0.2,restitution=0.2,mass=0.1")
    draws = [draw_materials(vary, np.random.default_rng(s)) for s in range(300)]
    for name, half in vary.items():
        values = [getattr(m, name) for m in draws]
        assert 1 - half <= min(values) < 1 - 0.8 * half and 1 + 0.8 * half < max(values) <= 1 + half
    assert draw_materials(vary, np.random.default_rng(7)) == draw_materials(
        vary, np.random.default_rng(7)
    )
    assert draw_materials({}, np.random.default_rng(7)) == NOMINAL


def test_vary_reaches_the_physics(world):
    """The drawn factors are the coefficients Bullet uses for that shot, and a shot
    without --vary puts the design's own back."""
    surfaces = world.design.surfaces
    shot = world.shoot(AimedShot(10.0, 5.0, seed=5, vary={"friction": 0.5, "restitution": 0.5}))
    board = world.scene.static_bodies[0]
    info = pb.getDynamicsInfo(board, -1, physicsClientId=world.client)
    assert info[1] == pytest.approx(surfaces.friction * shot.materials.friction)
    assert info[5] == pytest.approx(surfaces.restitution * shot.materials.restitution)
    assert shot.to_dict()["materials"]["friction"] == round(shot.materials.friction, 4)
    plain = world.shoot(AimedShot(10.0, 5.0, seed=5))
    info = pb.getDynamicsInfo(board, -1, physicsClientId=world.client)
    assert plain.materials == NOMINAL and info[1] == pytest.approx(surfaces.friction)


@pytest.mark.slow
def test_a_design_compared_with_itself_shows_no_difference(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "design",
        "compare",
        "stock",
        "stock",
        "--spaces",
        "r5c1,r0c3",
        "--shots",
        "20",
        "--cache",
        str(tmp_path),
        "--json",
        "--workers",
        "1",
    )
    data = json.loads(out)
    assert code == 0
    # 20 pairs a space and no δ: the board mean 0 within its interval (the pseudo-pairs'
    # width, z²/40 = 0.096: no pair discordant), nothing decided
    assert data["verdict"] == (
        "On average stock against stock is not decided at the cap: +0.000 [-0.096, "
        "+0.096] (95 %); space by space, stock knocks out more on 0 spaces, fewer on 0 "
        "(family-wise 95 % over the spaces and looks, Holm), not decided at the cap on 2"
    )
    for row in data["spaces"]:
        assert row["diff"] == 0 and row["p_value_adjusted"] == 1 and not row["significant"]
        assert {"p_a", "p_b", "diff_ci_low", "diff_ci_high"} <= set(row)


@pytest.mark.slow
def test_the_aim_spread_scan(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "hitmap",
        "--spaces",
        "r0c3",
        "--aim-sd-scan",
        "0:6:2",
        "--shots",
        "30",
        "--out",
        str(tmp_path / "scan.csv"),
        "--json",
        "--plot",
        str(tmp_path / "scan.png"),
        "--workers",
        "1",
    )
    data = json.loads(out)
    assert code == 0 and data["aim_sd_deg"] == [0.0, 6.0]
    sharp, wide = data["rows"]
    assert sharp["p_target_ci_low"] > wide["p_target_ci_high"]  # P falls as the spread grows
    assert read_provenance(tmp_path / "scan.csv")["aim_sd_scan_deg"] == [0.0, 6.0]
    assert (tmp_path / "scan.png").stat().st_size > 10_000


@pytest.mark.slow
def test_the_aim_spread_scan_overlays_designs_and_never_overwrites_its_own_file(
    capsys, tmp_path, monkeypatch
):
    import matplotlib.pyplot as plt

    from sim.views.design_pictures import scan_figure

    monkeypatch.chdir(tmp_path)
    argv = (
        "hitmap",
        "--spaces",
        "r0c3",
        "--aim-sd-scan",
        "0:6:2",
        "--shots",
        "10",
        "--design",
        "stock",
        "--design",
        "fast-spring",
        "--workers",
        "1",
    )
    code, out, _ = run(capsys, *argv)
    assert code == 0 and "design stock" in out and "design fast-spring" in out
    rows = read_table(tmp_path / "aim-sd-scan.csv")
    assert [(r["design"], r["aim_sd_deg"]) for r in rows] == [
        ("stock", 0),
        ("stock", 6),
        ("fast-spring", 0),
        ("fast-spring", 6),
    ]
    code, _, err = run(capsys, *argv)  # the file it named itself is kept
    assert code == 2 and "aim-sd-scan.csv exists and --out was not given" in err
    figure = scan_figure(rows, "test")
    labels = figure.axes[0].get_legend_handles_labels()[1]
    assert labels == ["r0c3, stock", "r0c3, fast-spring"]
    marks = [t.get_text() for t in figure.axes[0].texts]
    assert any(t.startswith("adult") for t in marks) and any(t.startswith("child") for t in marks)
    plt.close(figure)
    code, _, err = run(
        capsys,
        "hitmap",
        "--spaces",
        "r0c3",
        "--design",
        "stock",
        "--design",
        "fast-spring",
        "--out",
        str(tmp_path / "h.csv"),
    )
    assert code == 2 and "--design is given once for a hit map" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["hitmap", "--aimer", "toddler"], "unknown aimer 'toddler'"),
        (["hitmap", "--aim-sd=-1,2"], "out of range"),
        (["hitmap", "--aim-sd", "3"], "--aim-sd takes YAW,PITCH"),
        (["hitmap", "--vary", "friction"], "--vary takes name=half-range"),
        (["hitmap", "--vary", "gravity=0.1"], "--vary takes name=half-range"),
        (["hitmap", "--vary", "mass=x"], "is not a number"),
        (["hitmap", "--precision", "0"], "--precision 0 is out of range"),
        (["hitmap", "--precision", "0.5"], "--precision 0.5 is out of range"),
        (["design", "compare", "stock", "--precision", "-0.1"], "out of range"),
        (["design", "compare", "stock", "--aimer", "nobody"], "unknown aimer"),
        (["shoot", "--at", "r5c1", "--aimer", "nobody"], "unknown aimer"),
        (
            [
                "tournament",
                "go-piggy-go",
                "--seats",
                "greedy,random",
                "--shots",
                "physics",
                "--aim-sd",
                "x,1",
            ],
            "--aim-sd takes YAW,PITCH",
        ),
        (["hitmap", "--aim-sd-scan", "0:6"], "--aim-sd-scan must look like START:STOP:COUNT"),
        (["hitmap", "--aim-sd-scan", "0:6:3"], "--aim-sd-scan measures the spaces of --spaces"),
        (["hitmap", "--out", "x.csv", "--format", "parquet"], "ends in .csv but --format is"),
    ],
)
def test_bad_designer_input_exits_2_with_one_line(capsys, tmp_path, monkeypatch, argv, message):
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv)
    assert code == 2 and message in err and err.count("\n") == 1
