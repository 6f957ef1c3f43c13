"""The bale's contact with the board fitted to measured shots (``piggy calibrate
--contact``): the columns it reads, what a shot shows, the fitted design's file, the
refusals that leave the launcher's fit alone, and a hidden bale fitted back."""

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

from models.design import load_design
from models.errors import InputError
from sim.studies.calibrating.calibration import calibrate
from sim.studies.calibrating.contact_fit import (
    MIN_SHOWN,
    ContactEstimate,
    ContactFit,
    ContactNotFitted,
    check_shown,
    is_determined,
)
from sim.studies.calibrating.contact_report import write_contact_design
from sim.studies.calibrating.contact_stats import LENGTH_UNIT_MM, in_boxes, shown
from sim.studies.calibrating.shots_csv import parse_shots
from tests.helpers import closed_form_shots, run

EXAMPLE = Path("docs/examples/measured-shots.csv")
CONTACT_HEADER = "pitch_deg,yaw_deg,x_mm,y_mm,rest_x_mm,rest_y_mm,second_x_mm,second_y_mm"


def with_bale(design, **fields):
    return dataclasses.replace(design, bale=dataclasses.replace(design.bale, **fields))


def example_with_contact(seconds: int) -> str:
    """The example shots with the contact columns, ``seconds`` of them showing a
    second touch 50 mm beyond the first, none a rest."""
    lines = EXAMPLE.read_text().splitlines()[1:]
    rows = []
    for i, line in enumerate(lines):
        x, y = (float(v) for v in line.split(",")[2:4])
        second = f"{x:.1f},{y + 50:.1f}" if i < seconds else ","
        rows.append(f"{line},,,{second}")
    return CONTACT_HEADER + "\n" + "\n".join(rows) + "\n"


def test_rests_and_second_touches_are_read_as_points_empty_where_not_seen():
    shots = parse_shots(f"{CONTACT_HEADER}\n-30,28,-46,88,-60,300,-90,170\n8,28,-150,300,,,,\n")
    assert shots.rest_mm[0].tolist() == [-60.0, 300.0]
    assert shots.second_mm[0].tolist() == [-90.0, 170.0]
    assert np.isnan(shots.rest_mm[1]).all() and np.isnan(shots.second_mm[1]).all()
    assert shots.columns == tuple(CONTACT_HEADER.split(","))


def test_half_a_contact_point_is_refused_naming_its_row_and_columns():
    with pytest.raises(InputError, match=r"row 3: give both rest_x_mm and rest_y_mm"):
        parse_shots(f"{CONTACT_HEADER}\n-30,28,-46,88,,,,\n8,28,-150,300,-60,,,\n")


def test_a_shot_shows_its_hop_and_slide_from_its_first_touch():
    """z = (second seen, hop, rest seen, slide), lengths in units of 100 mm."""
    nan = math.nan
    z = shown([[0, 100], [10, 100]], [[30, 140], [nan, nan]], [[nan, nan], [10, 350]])
    assert z.tolist() == [
        [1.0, 50.0 / LENGTH_UNIT_MM, 0.0, 0.0],
        [0.0, 0.0, 1.0, 250.0 / LENGTH_UNIT_MM],
    ]


def test_shots_without_the_contact_columns_or_showing_too_few_are_not_fitted():
    with pytest.raises(ContactNotFitted, match="lacks the columns rest_x_mm, rest_y_mm, second_x"):
        check_shown(parse_shots(EXAMPLE.read_text(), source="measured.csv"))
    few = parse_shots(example_with_contact(MIN_SHOWN - 1), source="few.csv")
    with pytest.raises(ContactNotFitted, match=f"shows {MIN_SHOWN - 1} second touches and 0 rests"):
        check_shown(few)
    enough = parse_shots(example_with_contact(MIN_SHOWN), source="enough.csv")
    assert check_shown(enough) == (MIN_SHOWN, 0)


@pytest.fixture(scope="module")
def launcher_fit():
    """A launcher fitted to closed-form shots of the stock design (no physics)."""
    stock = load_design("stock")
    return calibrate(closed_form_shots(stock, seed=1), stock)


def test_the_fitted_file_has_the_bale_values_with_intervals_and_keeps_the_undetermined(
    launcher_fit, tmp_path
):
    fit = ContactFit(
        estimates={
            "restitution": ContactEstimate("restitution", 0.6834, 0.627, 0.742, 0.5),
            "friction": ContactEstimate("friction", None, 0.02, 2.0, 0.5),
        },
        shots=40,
        second_touches=24,
        rests=0,
        sandbox_shots=9920,
        cpu_s=41.0,
    )
    path = tmp_path / "fitted.toml"
    write_contact_design(launcher_fit, fit, path)
    fitted = load_design(path)
    assert fitted.bale.restitution == 0.683  # rounded to what ±0.03 supports
    assert fitted.bale.friction == load_design("stock").bale.friction  # kept
    assert fitted.surfaces == load_design("stock").surfaces  # the board's values kept
    text = path.read_text()
    assert "restitution = 0.683   # fitted: 95 % [0.627, 0.742], bale x board 0.342" in text
    assert "the bale's friction is not determined" in text and "the design keeps 0.5" in text
    assert "cannot be determined (the board's are kept" in text
    assert "friction = 0.5\n" in text  # no number claimed for it


def test_restitution_needs_bounces_seen_and_says_so_rather_than_a_number():
    """A measured CSV cannot tell a bounce the camera missed from none: measured from
    a side film of a bale of restitution 0.7 with no second touch seen, the fit read
    0.02 [0.02, 0.16]. With fewer than 4 second touches restitution gets no value;
    friction, read from the rests, still does."""
    assert not is_determined("restitution", 0.02, 0.16, second_touches=3)
    assert is_determined("restitution", 0.6, 0.8, second_touches=4)
    assert is_determined("friction", 0.76, 0.94, second_touches=0)
    assert not is_determined("friction", 0.0, 5.0, second_touches=20)  # the whole range
    from sim.studies.calibrating.contact_report import undetermined_note

    fit = ContactFit(
        estimates={
            "restitution": ContactEstimate("restitution", None, 0.02, 0.156, 0.5),
            "friction": ContactEstimate("friction", 0.846, 0.756, 0.942, 0.5),
        },
        shots=32,
        second_touches=0,
        rests=8,
        sandbox_shots=7936,
        cpu_s=43.0,
    )
    note = undetermined_note("restitution", fit, 0.5)
    assert "0 second touches of 32 shots" in note and "cannot be told from none" in note


def test_calibrate_contact_without_the_columns_fits_the_launcher_and_says_why(capsys, tmp_path):
    out = tmp_path / "fitted.toml"
    code, text, err = run(capsys, "calibrate", str(EXAMPLE), "--contact", "--out", str(out))
    assert code == 0 and err == ""
    note = [line for line in text.splitlines() if line.startswith("NOTE:")]
    assert note == [
        "NOTE: the contact is not fitted, the launcher alone: measured-shots.csv lacks the "
        "columns rest_x_mm, rest_y_mm, second_x_mm, second_y_mm: the contact needs the "
        "second touches and rests that piggy measure writes"
    ]
    assert load_design(out).bale == load_design("stock").bale  # the launcher alone
    assert f"Wrote {out} (fitted design)" in text


def test_calibrate_contact_with_too_few_touches_fits_the_launcher_json(capsys, tmp_path):
    shots = tmp_path / "few.csv"
    shots.write_text(example_with_contact(3))
    code, text, _ = run(capsys, "calibrate", str(shots), "--contact", "--json")
    assert code == 0
    data = json.loads(text)
    assert data["contact"]["fitted"] is False
    assert "shows 3 second touches and 0 rests on the board" in data["contact"]["note"]
    assert data["parameters"]["muzzle_speed_mm_s"]["se"] > 0  # the launcher was fitted


HIDDEN = {"restitution": 0.7, "friction": 0.3}


@pytest.fixture(scope="module")
def hidden_fit(tmp_path_factory):
    """40 sandbox shots at the example's settings from a bale of restitution 0.7 and
    friction 0.3 (stock 0.5, 0.5), fitted from the stock design: the exit code, the
    ``--json`` contact entry and the fitted design's bale."""
    import contextlib
    import io

    from sim.cli import main
    from sim.studies.calibrating.sandbox_shots import sandbox_shots_csv

    folder = tmp_path_factory.mktemp("hidden")
    shots, out = folder / "measured.csv", folder / "fitted.toml"
    shots.write_text(
        sandbox_shots_csv(with_bale(load_design("stock"), **HIDDEN), contact=True, seed=1)
    )
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        code = main(["calibrate", str(shots), "--contact", "--json", "--out", str(out)])
    return code, json.loads(text.getvalue())["contact"], load_design(out).bale


@pytest.mark.slow
def test_a_hidden_bale_is_fitted_back_within_its_intervals(hidden_fit):
    """Each 95 % interval holds the hidden value; the values are written, rounded."""
    code, contact, fitted = hidden_fit
    assert code == 0
    for name, value in HIDDEN.items():
        e = contact["coefficients"][name]
        low, high = e["interval_95"]
        assert low <= value <= high, (name, e)
        assert e["bale_on_board"] == pytest.approx(e["value"] * 0.5, abs=1e-3)
        assert abs(getattr(fitted, name) - e["value"]) < 0.01  # written, rounded
    assert any("cannot be determined" in note for note in contact["notes"])


@pytest.mark.slow
@pytest.mark.xfail(
    strict=True,
    reason="issue 50's ±0.1 is not met at these 40 shots, which show 24 hops and no "
    "rest: restitution 0.696 [0.593, 0.800], friction 0.296 [0.192, 0.400]; 80 shots at "
    "the contact angles come within it (docs/real-toy.md, 'The grid narrowed')",
)
def test_a_hidden_bales_intervals_are_at_most_a_tenth_wide(hidden_fit):
    """Issue 50's target: each 95 % interval at most ±0.1 wide."""
    _, contact, _ = hidden_fit
    for name in HIDDEN:
        low, high = contact["coefficients"][name]["interval_95"]
        assert high - low <= 0.2, (name, low, high)


def test_the_replicates_spread_is_the_estimates_own_spread():
    """The emulator's leave-one-firing-out spread against the true spread of its
    estimate, on a model with no physics (two groups whose hops are linear in the
    coefficients plus noise of sd 0.2). The firings share their errors across the
    grid's candidates (common random numbers), so the spread rests on about 6 draws:
    within a factor 2 is what it can promise (seeded: the same each run)."""
    from sim.studies.calibrating.contact_emulator import Emulator
    from sim.studies.calibrating.contact_stats import hops, summary

    def shown(restitution, friction, repeats, seed=0):
        rng = np.random.default_rng(seed)
        groups = []
        for a, b in ((1.5, -0.5), (0.5, 1.0)):
            z = np.zeros((repeats * 8, 4))
            z[:, 0] = 1.0
            z[:, 1] = a * restitution + b * friction + rng.normal(0, 0.2, repeats * 8)
            groups.append(z)
        return groups

    truth = np.array([0.7, 0.3])
    emulator = Emulator(
        shown, shown(*truth, 1, seed=99), np.array([0.55, 0.1]), np.array([0.85, 0.5]), 6
    )
    errors = []
    for k in range(200):  # measurements of the truth, fitted
        measured = shown(*truth, 1, seed=1000 + k)
        u, _ = emulator.maximum([summary(z, len(hops(z))) for z in measured])
        errors.append(emulator.at(u) - truth)
    true_rms = np.sqrt(np.mean(np.square(errors), axis=0))
    ratio = emulator.replicate_spread() / true_rms
    assert np.all((ratio > 0.5) & (ratio < 2.0)), ratio


def test_bounces_the_camera_missed_do_not_read_as_a_deader_bale():
    """A camera sees 3 of a group's 8 hops (the others too low to show, or over a
    marker). Its group is set against the sandbox's hops at the truth and at a less
    bouncy bale's (hops 20 % shorter): the truth is the likelier. Counting the unseen
    hops as none (the mean of seen x hop), the shorter hops would be."""
    from sim.studies.calibrating.contact_stats import group_terms, log_likelihood

    rng = np.random.default_rng(5)

    def fired(mean_hop: float, shots: int) -> np.ndarray:
        z = np.zeros((shots, 4))
        z[:, 0], z[:, 1] = 1.0, rng.normal(mean_hop, 0.12, shots)
        return z

    measured = np.zeros((8, 4))
    measured[:3, 0], measured[:3, 1] = 1.0, [0.95, 1.05, 1.15]  # five bounces not seen
    truth, deader = fired(1.05, 48), fired(0.84, 48)
    at_truth = log_likelihood([group_terms(measured, truth, 6)])
    at_deader = log_likelihood([group_terms(measured, deader, 6)])
    assert at_truth > at_deader + 2.0


def test_shots_are_grouped_by_pitch_and_yaw_either_side():
    from sim.studies.calibrating.contact_fit import groups

    pitch = np.array([-30, -30, -30, -30, 70, 70])
    yaw = np.array([10, -10, 28, -28, 28, -28])
    assert [g.tolist() for g in groups(pitch, yaw)] == [[0, 1], [2, 3], [4, 5]]


def test_a_friction_the_film_cannot_bound_above_is_given_as_at_least(launcher_fit, tmp_path):
    """Where the profile does not drop by the top of the range searched (a bale that
    grips so hard it sticks wherever it lands looks the same with any higher value),
    the fit says "at least X" and gives no ± number."""
    from sim.studies.calibrating.contact_report import contact_dict, contact_lines

    fit = ContactFit(
        estimates={
            "restitution": ContactEstimate("restitution", 0.42, 0.37, 0.47, 0.5),
            "friction": ContactEstimate("friction", 0.9, 0.68, 2.0, 0.5),
        },
        shots=80,
        second_touches=20,
        rests=30,
        sandbox_shots=20000,
        cpu_s=80.0,
    )
    stock = load_design("stock")
    lines = contact_lines(fit, stock)
    assert any(
        "bale friction    at least 0.680 (95 %); higher values look the same on film" in line
        for line in lines
    ), lines
    assert not any("[0.680, 2.000]" in line for line in lines)
    assert any("restitution  0.420  95 % [0.370, 0.470]" in line for line in lines)
    friction = contact_dict(fit, stock)["coefficients"]["friction"]
    assert (
        friction["at_least"] == 0.68
        and "at_least" not in contact_dict(fit, stock)["coefficients"]["restitution"]
    )
    path = tmp_path / "fitted.toml"
    write_contact_design(launcher_fit, fit, path)
    assert "# fitted: at least 0.680 (95 %); higher values look the same on film" in (
        path.read_text()
    )


def test_more_hops_on_film_than_in_the_sandbox_speak_against_it_fewer_do_not():
    """A camera misses bounces, never makes one up. Film showing every shot hop rules
    out a bale that hops on a quarter of them; film of one group showing a quarter
    hop is as likely from a bale that always hops (seen by a camera that sees a
    quarter of the hops) as from one that hops on a quarter (the hops' lengths alike)."""
    from sim.studies.calibrating.contact_stats import group_terms, log_likelihood

    def shots(hopping: int, total: int) -> np.ndarray:
        z = np.zeros((total, 4))
        z[:hopping, 0], z[:hopping, 1] = 1.0, np.linspace(0.95, 1.15, hopping)
        return z

    def fit(measured, fired):
        return log_likelihood([group_terms(measured, fired, 6)])

    always, rarely = shots(48, 48), shots(12, 48)
    assert fit(shots(8, 8), always) > fit(shots(8, 8), rarely) + 10.0
    assert fit(shots(2, 8), always) == pytest.approx(fit(shots(2, 8), rarely), abs=1.0)


def test_one_camera_sees_the_same_share_of_every_groups_hops():
    """A film shows every hop of one group and 2 of 8 of another's. A bale whose
    shots all hop in both groups would need a camera that sees one group's hops and
    misses most of the other's: the bale that hops on a quarter of the second
    group's shots is the likelier. Compared group by group, one way, the two were
    alike (each group's camera free), and a bale hopping everywhere fitted any film."""
    from sim.studies.calibrating.contact_stats import group_terms, log_likelihood

    def shots(hopping: int, total: int) -> np.ndarray:
        z = np.zeros((total, 4))
        z[:hopping, 0], z[:hopping, 1] = 1.0, np.linspace(0.95, 1.15, hopping)
        return z

    def fit(measured, fired):
        return log_likelihood([group_terms(m, f, 6) for m, f in zip(measured, fired, strict=True)])

    film = [shots(8, 8), shots(2, 8)]
    everywhere = [shots(48, 48), shots(48, 48)]
    as_filmed = [shots(48, 48), shots(12, 48)]
    assert fit(film, as_filmed) > fit(film, everywhere) + 5.0


def test_hops_landing_in_a_blind_spot_are_left_out_measured_and_fired_alike():
    """A steep group's hops land by a marker, where piggy measure gives no landing:
    left out of the sandbox's too, they do not read as a camera that misses half
    the hops (the camera's share stays 1)."""
    from sim.studies.calibrating.contact_stats import camera_share, group_terms

    nan = math.nan
    first = [[0.0, 100.0]] * 8
    low_hops = [[0.0, 180.0]] * 8  # 80 mm ahead, in view
    steep_hops = [[220.0, 330.0]] * 8  # by the marker at (222.5, 337.5)
    blind = [(190.0, 255.0, 305.0, 370.0)]
    rests = [[nan, nan]] * 8
    measured = [shown(first, low_hops, rests), shown(first, [[nan, nan]] * 8, rests)]
    sandbox_low = shown(first * 6, low_hops * 6, rests * 6)

    def share(blind_spots):
        steep = shown(first * 6, steep_hops * 6, rests * 6, blind_spots)
        return camera_share(
            [group_terms(m, f, 6) for m, f in zip(measured, (sandbox_low, steep), strict=True)]
        )

    assert share(blind) == pytest.approx(1.0)
    assert share(()) < 0.7


def test_calibrate_contact_leaves_out_the_landings_measure_cannot_see(monkeypatch, launcher_fit):
    """``piggy calibrate --contact`` hands the fit the markers' blind spots, where
    ``piggy measure`` gives no landing: on the stock board a steep shot's hop lands
    there, and counted in the sandbox alone it reads as a camera that misses hops."""
    import sim.studies.calibrating.contact_fit as contact_fit
    from models.board import load_board
    from sim.cli.calibrate_contact import fit_contact_after
    from sim.real_toy.markers import marker_layout

    seen = {}
    monkeypatch.setattr(contact_fit, "fit_contact", lambda *a, **kw: seen.update(kw))
    fit_contact_after(parse_shots(example_with_contact(8)), launcher_fit, "stock")
    spots = np.array(seen["blind_spots"])
    assert len(spots) == len(marker_layout(load_board("stock")).markers) == 6
    by_the_right_marker = np.array([[220.0, 330.0]])  # the steep shots' landings, 28° aside
    assert in_boxes(by_the_right_marker, spots)[0]
    assert not in_boxes(np.array([[0.0, 310.0]]), spots)[0]  # a 75° shot's, straight ahead
