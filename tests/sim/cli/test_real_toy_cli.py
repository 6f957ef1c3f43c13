"""The real toy on the command line: piggy calibrate, the spring and the safety
figures of piggy design check, and sweeps over a spring field."""

import json
import math
from pathlib import Path

import pytest

from models.design import load_design
from sim.physics.ballistics import GRAVITY_MM_S2
from tests.helpers import run

EXAMPLE = "docs/examples/measured-shots.csv"


@pytest.mark.slow
def test_calibrate_prints_writes_and_plots_the_fit(capsys, tmp_path):
    out, plot = tmp_path / "fitted.toml", tmp_path / "residuals.png"
    code, text, err = run(capsys, "calibrate", EXAMPLE, "--out", str(out), "--plot", str(plot))
    assert code == 0 and err == ""
    assert text.startswith("Calibrated 'stock' from 40 shots at 5 pitches (measured-shots.csv)")
    for label in (
        "muzzle speed",
        "speed spread",
        "yaw spread",
        "pitch spread",
        "pitch offset",
        "yaw offset",
    ):
        assert f"  {label}" in text
    assert f"Wrote {out} (fitted design)" in text and plot.stat().st_size > 50_000
    fitted = load_design(str(out))  # a design file every command reads
    assert fitted.name == "stock-calibrated"
    assert abs(fitted.launcher.muzzle_speed_mm_s - 2000.0) < 30  # the example's launcher
    code, checked, _ = run(capsys, "design", "check", str(out))
    assert code == 0 and "'stock-calibrated' is valid" in checked


def test_calibrate_json_is_the_result_with_standard_errors(capsys):
    code, text, _ = run(capsys, "calibrate", EXAMPLE, "--json")
    assert code == 0
    data = json.loads(text)
    assert data["shots"] == 40 and data["pitches_deg"] == [-30.0, -25.0, 8.0, 64.0, 70.0]
    speed = data["parameters"]["muzzle_speed_mm_s"]
    assert abs(speed["value"] - 2000.0) < 3 * speed["se"] and speed["base"] == 2000.0
    assert data["files"] == {"design": None, "plot": None}


def _two_pitches(tmp_path):
    rows = [
        line
        for line in Path(EXAMPLE).read_text().splitlines()[1:]
        if line.startswith(("-30,", "8,"))
    ]
    path = tmp_path / "two.csv"
    path.write_text("pitch_deg,yaw_deg,x_mm,y_mm\n" + "\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["nowhere.csv"], "shots file 'nowhere.csv' does not exist"),
        (["README.md"], "README.md: unknown column"),
        ([EXAMPLE, "--out", "/no/such/folder/f.toml"], "cannot write --out /no/such/folder/f.toml"),
        ([EXAMPLE, "--out", "fitted.txt"], "must end in .toml"),
        ([EXAMPLE, "--plot", "residuals.jpg"], "must end in .png"),
        ([EXAMPLE, "--design", "nope"], "unknown design 'nope'"),
        ([EXAMPLE, "--measurement-sd", "0"], "argument --measurement-sd: 0 is out of range"),
        (["TWO"], "fired at pitch -30 and 8 deg: so few pitches cannot tell the speed spread"),
    ],
)
def test_calibrate_refuses_bad_input_in_one_line_and_keeps_the_old_file(
    capsys, tmp_path, argv, message
):
    old = tmp_path / "fitted.toml"
    old.write_text("# an earlier fit\n")
    argv = [str(_two_pitches(tmp_path)) if a == "TWO" else a for a in argv]
    if "--out" not in argv:
        argv += ["--out", str(old)]
    code, out, err = run(capsys, "calibrate", *argv)
    assert code == 2 and out == ""
    assert message in err and err.count("\n") == 1
    assert old.read_text() == "# an earlier fit\n"


def test_design_check_derives_a_spring_speed_by_hand(capsys):
    """spring-stock: v = d·√(η·k/(m_bale + m_plunger)) = 0.014 m × √(0.45 × 200 N/m /
    0.0045 kg) = 1.97990 m/s, sd_v = v·0.2/14; within 1 % through the command line."""
    by_hand = 0.014 * math.sqrt(0.45 * 200 / 0.0045) * 1000
    code, out, _ = run(capsys, "design", "check", "spring-stock", "--json")
    data = json.loads(out)
    assert code == 0 and data["speed_from_spring"] is True
    assert data["muzzle_speed_mm_s"] == pytest.approx(by_hand, rel=0.01)
    assert data["design"]["launcher"]["speed_sd_mm_s"] == pytest.approx(
        by_hand * 0.2 / 14, rel=0.01
    )
    code, out, _ = run(capsys, "design", "check", "spring-stock")
    assert "speed from the spring: 1980 ± 28 mm/s, from a 200 N/m spring drawn 14 ± 0.2 mm" in out
    code, out, _ = run(capsys, "design", "check", "stock")
    assert "spring" not in out.split("\n", 2)[2]  # a speed design has no spring line


def test_design_check_safety_figures_are_the_closed_form(capsys):
    """fast-spring, no drag: 1.5 g at 2800 mm/s; fastest from the top of the pitch
    range, the muzzle 70 + 45.5·sin 75° mm up, the centre down to 3 mm; the smallest
    face 7 × 6 mm less (4 − π)·1.5² for its rounded corners."""
    code, out, _ = run(capsys, "design", "check", "fast-spring", "--json")
    data = json.loads(out)
    fastest = math.sqrt(
        2800.0**2 + 2 * GRAVITY_MM_S2 * (70 + 45.5 * math.sin(math.radians(75)) - 3.0)
    )
    energy_max = 0.5 * 1.5e-3 * (fastest / 1e3) ** 2
    face_m2 = (7 * 6 - (4 - math.pi) * 1.5**2) * 1e-6
    assert code == 0
    assert data["kinetic_energy_j"] == pytest.approx(0.5 * 1.5e-3 * 2.8**2, rel=1e-4)
    assert data["kinetic_energy_max_j"] == pytest.approx(energy_max, rel=1e-4)
    assert data["kinetic_energy_per_area_j_m2"] == pytest.approx(energy_max / face_m2, rel=1e-3)
    assert data["limits"]["kinetic_energy_j"] == 0.08
    assert data["limits"]["kinetic_energy_per_area_j_m2"] == 1600.0
    assert data["over_limits"] == []
    code, text, _ = run(capsys, "design", "check", "fast-spring")
    assert "safety: within the reference limits" in text and "not a certification" in text


def test_a_design_over_a_configured_limit_is_flagged_not_refused(capsys):
    code, out, err = run(capsys, "design", "check", "stock", "--limit-energy-j", "0.004")
    assert code == 0 and err == ""
    flag = [line for line in out.splitlines() if "FLAG" in line]
    assert flag == [
        "  FLAG: safety: OVER THE LIMIT: kinetic energy 0.0046 J > 0.004 J (flagged, not refused)"
    ]
    code, out, _ = run(
        capsys, "design", "check", "stock", "--json", "--limit-energy-per-area-j-m2", "100"
    )
    data = json.loads(out)
    assert data["over_limits"] == ["kinetic_energy_per_area_j_m2"]
    assert data["limits"]["kinetic_energy_per_area_j_m2"] == 100.0
    for bad in ("0", "-1", "nan"):
        code, out, err = run(capsys, "design", "check", "stock", "--limit-energy-j", bad)
        assert code == 2 and out == "" and "--limit-energy-j" in err and err.count("\n") == 1


def test_design_sweep_over_the_spring_rate(capsys, tmp_path):
    """A weaker spring cannot reach the far space: the sweep sees it."""
    code, out, _ = run(
        capsys,
        "design",
        "sweep",
        "--design",
        "spring-stock",
        "--param",
        "spring_rate=100:400:3",
        "--spaces",
        "r8c3,r10c0",
        "--shots",
        "1",
        "--workers",
        "1",
        "--cache",
        str(tmp_path / "c"),
        "--json",
    )
    data = json.loads(out)
    assert code == 0 and data["field"] == "launcher.spring_rate_n_m"
    assert data["values"] == [100.0, 250.0, 400.0]
    assert [r["in_reach"] for r in data["results"]] == [1, 2, 2]
    code, _, err = run(
        capsys,
        "design",
        "sweep",
        "--design",
        "stock",
        "--param",
        "spring_rate=100:400:3",
        "--spaces",
        "r8c3",
        "--shots",
        "1",
    )
    assert code == 2 and "not both" in err
