"""The safety report against the closed form, and its flags."""

import dataclasses
import math

import pytest

from models.design import Bale, Physics, load_design
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.studies.designs.safety import SafetyLimits, format_safety, safety_report


def test_the_stock_figures_are_the_closed_form():
    """Stock: m = 1.5 g, v0 = 2000 mm/s; the muzzle at the top of the range is
    70 + (40 + 5.5)·sin 75° = 113.95 mm up, the centre comes down to 3 mm (half the
    smallest side): v² = v0² + 2·g·110.95 mm; the smallest face is 7 × 6 mm less
    (4 - π)·1.5² for its rounded corners."""
    design = load_design("stock")
    report = safety_report(design)
    drop = 70 + 45.5 * math.sin(math.radians(75)) - 3.0
    fastest = math.sqrt(2000.0**2 + 2 * GRAVITY_MM_S2 * drop)
    energy_max = 0.5 * 1.5e-3 * (fastest / 1e3) ** 2
    face = 7 * 6 - (4 - math.pi) * 1.5**2
    data = report.to_dict()
    assert data["kinetic_energy_j"] == pytest.approx(0.5 * 1.5e-3 * 2.0**2, rel=1e-4)
    assert data["kinetic_energy_max_j"] == pytest.approx(energy_max, rel=1e-4)
    assert data["kinetic_energy_per_area_j_m2"] == pytest.approx(
        energy_max / (face * 1e-6), rel=1e-3
    )
    assert data["fastest_pitch_deg"] == 75.0 and report.over_limits == []
    assert data["limits"]["kinetic_energy_j"] == 0.08
    assert "not a certification" in data["limits"]["source"]


def test_a_design_over_a_limit_is_flagged_not_refused():
    stock = load_design("stock")
    heavy = dataclasses.replace(stock, bale=dataclasses.replace(stock.bale, mass_g=50.0))
    report = safety_report(heavy)  # 0.1 J at the muzzle
    assert report.over_limits == ["kinetic_energy_j", "kinetic_energy_per_area_j_m2"]
    assert "OVER THE LIMIT" in "\n".join(format_safety(report))
    strict = safety_report(stock, SafetyLimits(kinetic_energy_j=0.004))
    assert strict.over_limits == ["kinetic_energy_j"]
    assert "within the reference limits" in "\n".join(format_safety(safety_report(stock)))


def test_with_drag_the_bale_is_slower_and_may_be_fastest_at_the_muzzle():
    stock = load_design("stock")
    with_drag = dataclasses.replace(stock, physics=Physics(air_drag=True))
    assert safety_report(with_drag).kinetic_energy_max_j < safety_report(stock).kinetic_energy_max_j
    # A feather-light bale in thick air: terminal speed far below the muzzle speed.
    feather = dataclasses.replace(
        with_drag,
        bale=Bale(mass_g=0.05),
        physics=Physics(air_drag=True, drag_coefficient=5.0, air_density_kg_m3=5.0),
    )
    report = safety_report(feather)
    assert report.method == "drag integration"
    assert report.fastest_speed_mm_s == pytest.approx(2000.0)
    assert report.kinetic_energy_max_j == pytest.approx(report.kinetic_energy_j)


def test_a_round_bale_is_judged_on_its_round_end_not_its_bounding_square():
    """The round-bale example is a 16-sided prism 8 mm across (circumradius 4 mm):
    its end is ½·16·4²·sin(2π/16) mm² (to the STL's 1e-6 mm digits), not its 8 x 8 mm
    bounding square."""
    report = safety_report(load_design("round-bale"))
    end = 0.5 * 16 * 4.0**2 * math.sin(2 * math.pi / 16)
    assert report.smallest_face_mm2 == pytest.approx(end, rel=1e-6)
    assert report.kinetic_energy_per_area_j_m2 == pytest.approx(
        report.kinetic_energy_max_j / (report.smallest_face_mm2 * 1e-6), rel=1e-12
    )
