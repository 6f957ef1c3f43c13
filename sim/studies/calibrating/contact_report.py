"""The contact fit (sim/studies/calibrating/contact_fit.py) as text, and in the fitted
design's file: the bale's fitted coefficients put in, each with its 95 % interval as
a comment, and what the video cannot determine said in words, never as a number.
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from models.design import Design, design_toml
from models.files import write_text_atomic
from sim.studies.calibrating.contact_fit import (
    COEFFICIENTS,
    MIN_SECOND_TOUCHES,
    SEARCH,
    ContactEstimate,
    ContactFit,
)
from sim.studies.calibrating.fitted_file import header, supported, with_values
from sim.studies.calibrating.result import CalibrationResult

#: What no video of the bale on the board can tell, said with every fit.
PRODUCT_NOTE = (
    "the engine multiplies the bale's and the board's coefficients, so a video of the "
    "bale on the board determines only their product: how it splits between the bale "
    "and the board cannot be determined (the board's are kept, the bale's fitted); the "
    "bale's values also set its contacts with the fences, the tractor and the piggies, "
    "which the video did not show"
)


def fitted_values(fit: ContactFit) -> dict[str, float]:
    """The determined coefficients, rounded to what their intervals support."""
    return {
        name: supported(e.value, (e.high - e.low) / (2 * 1.96))
        for name, e in fit.estimates.items()
        if e.value is not None
    }


def with_contact(design: Design, fit: ContactFit) -> Design:
    """``design`` with the bale's determined coefficients fitted."""
    values = fitted_values(fit)
    bale = design.bale
    return replace(
        design,
        bale=replace(
            bale,
            restitution=values.get("restitution", bale.restitution),
            friction=values.get("friction", bale.friction),
        ),
    )


def undetermined_note(name: str, fit: ContactFit, kept: float) -> str:
    """Why a coefficient has no value, and what the design keeps."""
    e = fit.estimates[name]
    lo, hi = SEARCH[name]
    seen = f"{fit.second_touches} second touches and {fit.rests} rests"
    if name == "restitution" and fit.second_touches < MIN_SECOND_TOUCHES:
        return (
            f"the bale's restitution is not determined: {fit.second_touches} second touches "
            f"of {fit.shots} shots (at least {MIN_SECOND_TOUCHES}), and a bounce the "
            f"camera did not see cannot be told from none; the design keeps {kept:g}"
        )
    return (
        f"the bale's {name} is not determined: {seen} of {fit.shots} shots leave it "
        f"anywhere in [{e.low:.2g}, {e.high:.2g}] of the range searched [{lo:g}, {hi:g}] "
        f"at 95 %; the design keeps {kept:g}"
        + ("; shots that come to rest on the board would show it" if name == "friction" else "")
    )


def one_sided(e: ContactEstimate) -> str:
    """A one-sided estimate in words: its bound at 95 %, and that beyond it the film
    shows no difference (no number for where in that span the bale lies)."""
    beyond = "higher" if e.side == "at least" else "lower"
    return f"{e.side} {e.bound:.3f} (95 %); {beyond} values look the same on film"


def contact_lines(fit: ContactFit, base: Design) -> list[str]:
    """The fit as text lines."""
    lines = [
        f"Contact with the board, fitted to {fit.second_touches} second touches and "
        f"{fit.rests} rests of {fit.shots} shots ({fit.sandbox_shots:,} sandbox shots, "
        f"{fit.cpu_s:.0f} s of CPU):"
    ]
    for name in COEFFICIENTS:
        e = fit.estimates[name]
        if e.value is None:
            continue
        lines.append(
            f"  bale {name:11s} {one_sided(e)}  "
            f"(bale x board {e.bound * e.surface:.3f}; board {e.surface:g}, kept)"
            if e.side
            else f"  bale {name:11s} {e.value:6.3f}  95 % [{e.low:.3f}, {e.high:.3f}]  "
            f"(bale x board {e.value * e.surface:.3f}; board {e.surface:g}, kept)"
        )
    lines.append(f"  {PRODUCT_NOTE}")
    lines += [
        f"  {undetermined_note(name, fit, getattr(base.bale, name))}"
        for name in COEFFICIENTS
        if fit.estimates[name].value is None
    ]
    return lines


def contact_comments(fit: ContactFit, base: Design) -> str:
    """What the contact fit found, as comment lines for the design file's top."""
    out = [f"# contact: {line.strip()}" for line in contact_lines(fit, base)]
    return "\n".join(out) + "\n"


def write_contact_design(
    result: CalibrationResult, fit: ContactFit, path, base_file=None
) -> Design:
    """The fitted design (launcher and bale's contact) as a TOML file, atomically:
    :func:`sim.studies.calibrating.fitted_file.write_fitted_design`'s file with the
    bale's fitted coefficients put in, each line commented with its interval. Returns
    the design written."""
    design = with_contact(result.design, fit)
    base_text = Path(base_file).read_text() if base_file else design_toml(result.base)
    values = {"name": design.name, "description": design.description, **design.file_dict()}
    text = with_values(base_text, values)
    for name, value in fitted_values(fit).items():
        e = fit.estimates[name]
        said = (
            f"fitted: {one_sided(e)}"
            if e.side
            else f"fitted: 95 % [{e.low:.3f}, {e.high:.3f}], bale x board {value * e.surface:.3g}"
        )
        text = _commented(text, "bale", name, said)
    write_text_atomic(path, header(result) + contact_comments(fit, result.base) + text)
    return design


def _commented(text: str, section: str, key: str, comment: str) -> str:
    """``text`` (TOML) with the line ``key = ...`` of ``[section]`` commented."""
    lines, current = text.split("\n"), None
    for i, line in enumerate(lines):
        heading = re.match(r"^\s*\[([A-Za-z_]+)\]", line)
        if heading:
            current = heading.group(1)
        elif current == section and re.match(rf"^\s*{key}\s*=", line):
            lines[i] = f"{line.split('#')[0].rstrip()}   # {comment}"
    return "\n".join(lines)


def contact_dict(fit: ContactFit, base: Design) -> dict:
    """The fit for ``--json``: the coefficients (a value only where determined), the
    notes in words."""
    notes = [PRODUCT_NOTE] + [
        undetermined_note(name, fit, getattr(base.bale, name))
        for name in COEFFICIENTS
        if fit.estimates[name].value is None
    ]
    return {"fitted": True, **fit.to_dict(), "notes": notes}
