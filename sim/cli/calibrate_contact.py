"""``piggy calibrate --contact``: the bale's contact with the board fitted after the
launcher (sim/studies/calibrating/contact_fit.py). Shots that cannot fit it leave
the launcher's fit as it is, with one NOTE line saying why: not a failure."""

from __future__ import annotations

from typing import TYPE_CHECKING

from models.board import load_board
from models.errors import InputError

if TYPE_CHECKING:  # numpy's modules: imported with the work, not the parser
    from models.design import Design
    from sim.studies.calibrating.contact_fit import ContactFit
    from sim.studies.calibrating.result import CalibrationResult
    from sim.studies.calibrating.shots_csv import MeasuredShots

#: How the fit's absence begins its line.
NOTE = "NOTE: the contact is not fitted, the launcher alone:"


def contact_note(shots: MeasuredShots) -> str | None:
    """Why these shots cannot fit the contact (one line), or None when they can;
    asked before the launcher's fit."""
    from sim.studies.calibrating.contact_fit import ContactNotFitted, check_shown

    try:
        check_shown(shots)
    except ContactNotFitted as why:
        return f"{NOTE} {why}"
    return None


def fit_contact_after(shots: MeasuredShots, result: CalibrationResult, board: str) -> ContactFit:
    """The contact fitted to the shots with the launcher ``result`` found, the second
    touches by the markers left out (``piggy measure`` gives none there)."""
    from sim.real_toy.markers import landing_blind_spots, marker_layout
    from sim.studies.calibrating.contact_fit import fit_contact

    board_shape = load_board(board)
    try:
        layout = marker_layout(board_shape)
    except InputError:  # a board too narrow for markers: measured by hand, no blind spot
        return fit_contact(shots, result, board_shape)
    reach = result.design.bale.length_mm / 2
    return fit_contact(shots, result, board_shape, blind_spots=landing_blind_spots(layout, reach))


def write_design(result: CalibrationResult, fit: ContactFit, path: str, base_file) -> None:
    """The fitted design with the contact's coefficients (``--out``)."""
    from sim.studies.calibrating.contact_report import write_contact_design

    write_contact_design(result, fit, path, base_file)


def contact_text(fit: ContactFit | None, note: str | None, base: Design) -> list[str]:
    """The contact's lines of the text output."""
    from sim.studies.calibrating.contact_report import contact_lines

    return [note or NOTE] if fit is None else contact_lines(fit, base)


def contact_json(fit: ContactFit | None, note: str | None, base: Design) -> dict:
    """The contact's entry of ``--json``."""
    from sim.studies.calibrating.contact_report import contact_dict

    return {"fitted": False, "note": note} if fit is None else contact_dict(fit, base)
