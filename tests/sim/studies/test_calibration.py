"""Calibration from measured shots: the sandbox's own shots fitted back, the
closed forms it must reproduce, and the refusals."""

import dataclasses
import math
import re

import numpy as np
import pytest

from models.design import Physics, load_design
from models.errors import InputError
from sim.physics.ballistics import landing_point_mm
from sim.studies.calibrating.calibration import (
    PARAMETERS,
    _Model,
    calibrate,
)
from sim.studies.calibrating.fitted_file import supported, write_fitted_design
from sim.studies.calibrating.report import format_calibration
from sim.studies.calibrating.shots_csv import MeasuredShots, parse_shots, read_shots
from sim.views.calibration_picture import save_residuals_plot
from tests.helpers import closed_form_shots


def with_launcher(design, **fields):
    return dataclasses.replace(design, launcher=dataclasses.replace(design.launcher, **fields))


@pytest.mark.slow
def test_sandbox_shots_are_fitted_back_within_three_standard_errors(tmp_path):
    """40 PyBullet shots (5 pitches x 8) from a launcher of known speed and spreads,
    its pitch scale reading 1 deg low and its yaw scale 0.7 deg high."""
    from sim.studies.calibrating.sandbox_shots import sandbox_shots_csv

    stock = load_design("stock")
    truth = {
        "muzzle_speed_mm_s": 1850.0,
        "speed_sd_mm_s": 45.0,
        "yaw_sd_deg": 1.2,
        "pitch_sd_deg": 1.0,
        "pitch_offset_deg": 1.0,
        "yaw_offset_deg": -0.7,
    }
    launcher = with_launcher(stock, **{k: v for k, v in truth.items() if "offset" not in k})
    text = sandbox_shots_csv(launcher, seed=4, pitch_offset_deg=1.0, yaw_offset_deg=-0.7)
    (tmp_path / "shots.csv").write_text(text)
    result = calibrate(read_shots(tmp_path / "shots.csv"), stock)
    for name in PARAMETERS:
        estimate = result.estimates[name]
        assert estimate.se is not None and estimate.se > 0, name
        assert abs(estimate.value - truth[name]) < 3 * estimate.se, (name, estimate)
    write_fitted_design(result, tmp_path / "fitted.toml")
    fitted = load_design(tmp_path / "fitted.toml").launcher
    for field, name in (
        ("muzzle_speed_mm_s", "muzzle_speed_mm_s"),
        ("pitch_sd_deg", "pitch_sd_deg"),
    ):  # rounded to what its error supports
        estimate = result.estimates[name]
        assert getattr(fitted, field) == supported(estimate.value, estimate.se)
        assert abs(getattr(fitted, field) - estimate.value) <= estimate.se / 2
    save_residuals_plot(result, tmp_path / "residuals.png")
    assert (tmp_path / "residuals.png").stat().st_size > 50_000
    assert "muzzle speed" in format_calibration(result)


def test_chronograph_readings_give_the_speed_and_its_spread_in_closed_form():
    """With every shot timed the landings say nothing more about the speed: the
    fit is the readings' mean and their (maximum-likelihood) standard deviation."""
    shots = closed_form_shots(load_design("stock"), seed=2, timed=True)
    result = calibrate(shots, load_design("stock"))
    assert result.estimates["muzzle_speed_mm_s"].value == pytest.approx(
        np.mean(shots.speed_mm_s), abs=0.05
    )
    assert result.estimates["speed_sd_mm_s"].value == pytest.approx(
        np.std(shots.speed_mm_s), rel=1e-3
    )
    assert result.estimates["speed_sd_mm_s"].se == pytest.approx(
        np.std(shots.speed_mm_s) / math.sqrt(2 * len(shots)), rel=0.02
    )


def test_the_linearised_landing_spread_matches_monte_carlo():
    """The delta method's covariance of a landing against 20 000 exact flights with
    the stock spreads; tolerance 4 % on each sd (sampling error about 0.5 %)."""
    design = load_design("stock")
    launcher = design.launcher
    rng = np.random.default_rng(7)
    n = 20_000
    for pitch in (-25.0, 8.0, 70.0):
        points = landing_point_mm(
            design,
            28.0 + launcher.yaw_sd_deg * rng.standard_normal(n),
            pitch + launcher.pitch_sd_deg * rng.standard_normal(n),
            launcher.muzzle_speed_mm_s + launcher.speed_sd_mm_s * rng.standard_normal(n),
        )
        one = MeasuredShots(*(np.array([v]) for v in (pitch, 28.0, 0.0, 100.0, math.nan, math.nan)))
        model = _Model(one, design, measurement_sd_mm=1e-6)
        q = [
            launcher.muzzle_speed_mm_s / 1e3,
            *np.log([launcher.speed_sd_mm_s, launcher.yaw_sd_deg, launcher.pitch_sd_deg]),
            0.0,
            0.0,
        ]
        mean, cov = model.landing(np.array(q))
        assert np.linalg.norm(points.mean(axis=0) - mean[0]) < 0.5  # mm
        assert np.sqrt(np.diag(np.cov(points.T))) == pytest.approx(
            np.sqrt(np.diag(cov[0])), rel=0.04
        )


@pytest.mark.slow
def test_drag_is_allowed_for_when_the_base_design_has_it():
    stock = load_design("stock")
    dragged = dataclasses.replace(stock, physics=Physics(air_drag=True))
    shots = closed_form_shots(dragged, seed=1)
    with_drag = calibrate(shots, dragged).estimates["muzzle_speed_mm_s"]
    without = calibrate(shots, stock).estimates["muzzle_speed_mm_s"]
    assert abs(with_drag.value - 2000.0) < 3 * with_drag.se
    assert without.value < with_drag.value - 5.0  # drag shortens: a drag-free fit is too slow


def test_a_spring_base_stays_a_spring_with_the_fitted_speed():
    spring = load_design("spring-stock")
    slower = with_launcher(spring, efficiency=0.40)  # about 1867 mm/s
    result = calibrate(closed_form_shots(slower, seed=3), spring)
    launcher = result.design.launcher
    assert launcher.has_spring and launcher.spring_rate_n_m == 200.0
    # the spring's efficiency and draw spread, rounded to what the data supports, give
    # the fitted speed and spread within a fifth of their standard errors
    for name in ("muzzle_speed_mm_s", "speed_sd_mm_s"):
        estimate = result.estimates[name]
        assert abs(getattr(launcher, name) - estimate.value) < estimate.se / 5, name
    assert any("spring kept" in note for note in result.notes)


def test_a_mistyped_landing_is_listed_as_far_from_the_fit():
    shots = closed_form_shots(load_design("stock"), seed=4)
    x = shots.x_mm.copy()
    x[17] += 60.0  # row 19 of the file (the header is row 1)
    result = calibrate(dataclasses.replace(shots, x_mm=x), load_design("stock"))
    assert result.outlier_rows == (19,)
    assert result.to_dict()["outlier_rows"] == [19]


@pytest.mark.parametrize(
    ("pitches", "per_pitch", "message"),
    [
        (
            (8.0,),
            40,
            r"all 40 shots were fired at pitch 8 deg: .* cannot tell the speed spread from "
            r"the pitch spread.*fire at 3 or more pitches",
        ),
        ((-25.0, 64.0), 20, "all 40 shots were fired at pitch -25 and 64 deg"),
        ((-25.0, 8.0, 64.0), 3, "9 shots; a calibration needs at least 10"),
        ((-25.0, 1.0, 64.0), 8, r"row 10: pitch 1 is within 3 deg of level"),
    ],
)
def test_shots_that_cannot_determine_the_launcher_are_refused_in_one_line(
    pitches, per_pitch, message
):
    shots = closed_form_shots(load_design("stock"), pitches=pitches, per_pitch=per_pitch)
    with pytest.raises(InputError, match=message) as error:
        calibrate(shots, load_design("stock"))
    assert "\n" not in str(error.value)


GOOD = "pitch_deg,yaw_deg,x_mm,y_mm\n-25,28,-50.1,95.2\n"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty; the header must name pitch_deg, yaw_deg, x_mm, y_mm"),
        ("pitch_deg,yaw_deg,x_mm\n1,2,3\n", "missing column 'y_mm'"),
        ("pitch_deg,yaw_deg,x_mm,y_mm,note\n", "unknown column 'note'"),
        (GOOD + "-25,28,abc,90\n", r"row 3, column 'x_mm': 'abc' is not a number"),
        (GOOD + "-25,28,-50\n", "row 3: 3 values, the header has 4"),
        (GOOD + "95,28,-50,90\n", r"row 3, column 'pitch_deg': 95 is out of range \[-60, 85\]"),
        (GOOD + "-25,,-50,90\n", "row 3, column 'yaw_deg': empty"),
        (GOOD + "-25,28,nan,90\n", "row 3, column 'x_mm': 'nan' is not a number"),
        (GOOD + "-25,28,0,0\n", "row 3: the landing .* is at the tractor's pivot"),
        (
            "pitch_deg,yaw_deg,x_mm,y_mm,speed_mm_s\n-25,28,-50,90,5\n",
            r"row 2, column 'speed_mm_s': 5 is out of range \[100, 20000\]",
        ),
    ],
)
def test_a_malformed_csv_is_refused_naming_the_row_and_the_column(text, message):
    with pytest.raises(InputError, match=message) as error:
        parse_shots(text, source="shots.csv")
    assert "\n" not in str(error.value) and str(error.value).startswith("shots.csv")


def test_optional_columns_may_be_left_empty_and_a_missing_file_is_named(tmp_path):
    shots = parse_shots(
        "pitch_deg,yaw_deg,x_mm,y_mm,speed_mm_s,pivot_height_mm\n"
        "-25,28,-50,95,2010,\n-25,-28,50,95,,72\n"
    )
    assert np.isnan(shots.speed_mm_s[1]) and shots.speed_mm_s[0] == 2010.0
    assert np.isnan(shots.pivot_height_mm[0]) and shots.pivot_height_mm[1] == 72.0
    with pytest.raises(InputError, match=r"shots file '.*nowhere\.csv' does not exist"):
        read_shots(tmp_path / "nowhere.csv")


def test_the_example_file_calibrates():
    """docs/examples/measured-shots.csv (scripts/make_calibration_example.py: the
    stock design, seed 6) fits close to the stock launcher it was made with."""
    result = calibrate(read_shots("docs/examples/measured-shots.csv"), load_design("stock"))
    speed = result.estimates["muzzle_speed_mm_s"]
    assert abs(speed.value - 2000.0) < 3 * speed.se
    assert set(result.to_dict()["parameters"]) == set(PARAMETERS)


def test_the_fitted_file_keeps_the_bases_comments_and_says_what_the_fit_found(tmp_path):
    from models.design import DESIGNS_DIR

    assert supported(2006.0370919460172, 9.8) == 2006.0
    assert supported(0.8816838724916247, 0.13) == 0.88
    assert supported(0.461912345, None) == 0.4619
    spring = load_design("spring-stock")
    result = calibrate(closed_form_shots(with_launcher(spring, efficiency=0.40), seed=3), spring)
    path = tmp_path / "fitted.toml"
    write_fitted_design(result, path, DESIGNS_DIR / "spring-stock.toml")
    text = path.read_text()
    assert "# shot-to-shot spread of the draw (1 sd)" in text  # the base's comments
    for name, estimate in result.estimates.items():  # offsets and errors as comments
        assert f"#   {name} = {estimate.value:.4g} ± {estimate.se:.2g}" in text
    assert not re.search(r"\d\.\d{6,}", text)  # no 16-digit floats
    assert load_design(path).launcher == result.design.launcher


@pytest.mark.slow
def test_a_marking_error_that_hides_every_spread_fits_in_a_few_times_the_work(monkeypatch):
    """At a marking error of 50 mm the example's spreads all fit as zero, each with a
    profile upper bound; the work (likelihood evaluations, a count, not a clock) stays
    within a few times the default fit's, where the bounds once started their
    simplexes at -inf and ran into the evaluations' cap (MAX_EVALUATIONS)."""
    from sim.studies.calibrating import calibration

    evaluations = []
    counted = calibration._Model.negative_log_likelihood
    monkeypatch.setattr(
        calibration._Model,
        "negative_log_likelihood",
        lambda self, q: evaluations.append(1) or counted(self, q),
    )
    shots = read_shots("docs/examples/measured-shots.csv")
    calibrate(shots, load_design("stock"))
    default = len(evaluations)
    evaluations.clear()
    result = calibrate(shots, load_design("stock"), measurement_sd_mm=50.0)
    assert len(evaluations) < 10 * default
    for name in ("speed_sd_mm_s", "yaw_sd_deg", "pitch_sd_deg"):
        estimate = result.estimates[name]
        assert estimate.value == 0.0 and 0 < estimate.upper_95 < math.inf
