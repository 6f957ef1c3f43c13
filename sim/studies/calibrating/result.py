"""What a calibration returns (sim/studies/calibrating/calibration.py): each fitted parameter
with its standard error (:class:`Estimate`), and the fit as a whole
(:class:`CalibrationResult`).

A module of their own, below the fit: its checks (sim/studies/calibrating/checks.py)
and the fitted design's file (sim/studies/calibrating/fitted_file.py) read them, and the fit
imports both of those, so naming the result in the fit's module would tie them to it
in a circle.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from models.design import Design
from sim.studies.calibrating.shots_csv import MeasuredShots


@dataclass(frozen=True)
class Estimate:
    """One fitted parameter, in its unit: the value and its standard error; a
    spread that fits as zero has no standard error but a one-sided 95 % upper
    bound from the profile likelihood."""

    value: float
    se: float | None
    upper_95: float | None = None

    def to_dict(self) -> dict:
        out = {"value": round(self.value, 4), "se": None if self.se is None else round(self.se, 4)}
        if self.upper_95 is not None:
            out["upper_95"] = round(self.upper_95, 4)
        return out


@dataclass(frozen=True)
class CalibrationResult:
    """The fit: estimates, the fitted design, and each shot's predicted landing."""

    base: Design
    design: Design  # the base design with the fitted launcher
    shots: MeasuredShots
    estimates: dict[str, Estimate]  # by PARAMETERS
    covariance: np.ndarray  # of PARAMETERS, (6, 6)
    log_likelihood: float
    measurement_sd_mm: float
    predicted_mm: np.ndarray  # mean landing of each shot under the fit, (n, 2)
    predicted_cov_mm2: np.ndarray  # its covariance, (n, 2, 2)
    outlier_rows: tuple[int, ...]  # CSV rows (the header is row 1) far off the fit
    notes: tuple[str, ...]

    def to_dict(self) -> dict:
        base = self.base.launcher
        return {
            "shots": len(self.shots),
            "source": self.shots.source,
            "pitches_deg": sorted({round(float(p), 2) for p in self.shots.pitch_deg}),
            "base_design": self.base.name,
            "fitted_design": self.design.name,
            "parameters": {
                name: {**e.to_dict(), "base": getattr(base, name, 0.0)}
                for name, e in self.estimates.items()
            },
            "log_likelihood": round(self.log_likelihood, 3),
            "measurement_sd_mm": self.measurement_sd_mm,
            "outlier_rows": list(self.outlier_rows),
            "notes": list(self.notes),
        }
