"""The bale's contact physics on the board fitted to measured shots
(``piggy calibrate --contact``; docs/real-toy.md, "Fitting the contact physics").

What can be fitted. The engine gives a bale-on-board contact the product of the
bale's and the board's coefficients (:func:`sim.physics.bodies.pair_restitution`),
so shots on the board show only those products. The fit keeps the board's values
and fits the bale's: restitution and friction, each with a 95 % interval.

How. The measured launches are fired again in the sandbox: each shot at its set
angles plus the fitted launcher's scale offsets, with the fitted launcher's spreads
(its measured speed where a chronograph gave one), ``repeats`` times, the same
launch errors for every candidate (common random numbers: the candidates'
differences are not drowned by the launches'). What the shots show past their first
touch is set against the measured shots group by group, a group the shots of one
pitch and one yaw either side (sim/studies/calibrating/contact_stats.py: a
synthetic likelihood).

The search, in shots a couple of minutes of CPU can afford (a shot on the empty
board costs 2-5 ms):

1. a coarse grid over the allowed range (7 x 7 candidates, 2 launches per shot),
   whose best candidate centres
2. a local 5 x 5 grid (``repeats`` launches per shot), over which each group's mean
   is fitted by a quadratic in the two coefficients (an emulator: smooth, so
   scipy.optimize finds its maximum and profiles it, where the shots themselves,
   chaotic past the first touch, would jump); its covariance is pooled over the
   grid. The grid moves to where the maximum is, or widens where an interval
   runs out of it; once it holds both intervals it is narrowed about the maximum
   (to :data:`NARROWED` profile half-widths: over the first grid, a sixth of each
   range either side, the slides are far from quadratic, and the quadratic's misfit
   biases the estimate and widens its interval), at most :data:`ROUNDS` grids.

Each 95 % interval is where the profile of the synthetic log likelihood lies within
χ²₁(0.95)/2 = 1.92 of its maximum, widened where the grid's own firings, fitted as
if measured, err by more (sim/studies/calibrating/contact_emulator.py). A
coefficient whose interval runs out of the allowed range at both ends is not
determined: no value is given for it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from models.board import Board
from models.design import RANGES, Design
from models.seeds import split_seed
from sim.physics.launch import AimedShot
from sim.physics.noise import Deviates
from sim.studies.calibrating import contact_stats
from sim.studies.calibrating.contact_emulator import Z_95, Emulator
from sim.studies.calibrating.result import CalibrationResult
from sim.studies.calibrating.shots_csv import MeasuredShots

#: The fitted coefficients of the bale, in the order of the search's axes.
COEFFICIENTS = ("restitution", "friction")
#: Each coefficient's search range: its allowed range (models/design_parts.py), from
#: a little above 0 (a bale that neither bounces nor grips is no bale).
SEARCH = {name: (0.02, RANGES[f"bale.{name}"][1]) for name in COEFFICIENTS}
#: The coarse grid's candidates per axis, and launches per measured shot there.
COARSE_POINTS, COARSE_REPEATS = 7, 2
#: Launches per measured shot at each local candidate (the fit's default).
REPEATS = 6
#: Local grids at most (the first, then moved, widened or narrowed).
ROUNDS = 5
#: The narrowed grid's half-width, in profile half-widths (the profile's 95 % ends a
#: third of the way in from its edges: the replicates' fits at its inner
#: candidates, half-way out, have room to err), and its least.
NARROWED, NARROWEST = 3.0, 0.03
#: Fewest shots showing a second touch or a rest that the fit takes.
MIN_SHOWN = 8
#: Fewest second touches for the bale's restitution to be given a value. The fit no
#: longer reads a bounce the camera missed as none (contact_stats.py compares the
#: hops seen, not their number; before, a video of restitution 0.7 showing no second
#: touch fitted 0.02 [0.02, 0.16]), but with fewer hops seen the restitution rests
#: on the rests' slides alone, which also grow as the friction falls: not shown to
#: hold its 95 % interval, so no value is given.
MIN_SECOND_TOUCHES = 4


class ContactNotFitted(Exception):
    """The shots cannot fit the contact; the message says why, on one line."""


@dataclass(frozen=True)
class ContactEstimate:
    """One of the bale's coefficients: the value (None: not determined) and its 95 %
    interval (an end at the allowed range's bound where the profile ran out there),
    with the board's coefficient it is multiplied by in the engine."""

    name: str
    value: float | None
    low: float
    high: float
    surface: float

    @property
    def determined(self) -> bool:
        return self.value is not None

    @property
    def side(self) -> str:
        """ "at least" where the interval runs to the top of the range searched (higher
        values look the same on film: a bale that grips so hard sticks wherever it
        lands), "at most" where it runs to the bottom, else "" (two-sided)."""
        bottom, top = SEARCH[self.name]
        if self.value is None or (self.low <= bottom) == (self.high >= top):
            return ""
        return "at least" if self.high >= top else "at most"

    @property
    def bound(self) -> float:
        """The one-sided bound (:attr:`side`), else NaN."""
        return {"at least": self.low, "at most": self.high}.get(self.side, math.nan)

    def to_dict(self) -> dict:
        rounded = None if self.value is None else round(self.value, 3)
        one_sided = {self.side.replace(" ", "_"): round(self.bound, 3)} if self.side else {}
        return {
            "value": rounded,
            **one_sided,
            "interval_95": [round(self.low, 3), round(self.high, 3)],
            "surface": self.surface,
            "bale_on_board": None if self.value is None else round(self.value * self.surface, 4),
            "determined": self.determined,
        }


@dataclass(frozen=True)
class ContactFit:
    """The fit: each coefficient, what the shots showed, and what it cost."""

    estimates: dict[str, ContactEstimate]  # by COEFFICIENTS
    shots: int
    second_touches: int
    rests: int
    sandbox_shots: int
    cpu_s: float

    def to_dict(self) -> dict:
        return {
            "coefficients": {name: e.to_dict() for name, e in self.estimates.items()},
            "shots": self.shots,
            "second_touches": self.second_touches,
            "rests": self.rests,
            "sandbox_shots": self.sandbox_shots,
            "cpu_s": round(self.cpu_s, 1),
        }


def check_shown(shots: MeasuredShots) -> tuple[int, int]:
    """The counts of second touches and rests seen; :class:`ContactNotFitted` when
    the file has no such columns or they show too few."""
    from sim.studies.calibrating.shots_csv import CONTACT

    missing = [name for name in CONTACT if name not in shots.columns]
    if missing or shots.rest_mm is None or shots.second_mm is None:
        raise ContactNotFitted(
            f"{shots.source} lacks the columns {', '.join(missing)}: the contact needs the "
            "second touches and rests that piggy measure writes"
        )
    seconds = int(np.all(np.isfinite(shots.second_mm), axis=1).sum())
    rests = int(np.all(np.isfinite(shots.rest_mm), axis=1).sum())
    if seconds + rests < MIN_SHOWN:
        raise ContactNotFitted(
            f"{shots.source} shows {seconds} second touches and {rests} rests on the "
            f"board, fewer than the {MIN_SHOWN} the contact needs: film the bale until "
            "it rests, with the board in view"
        )
    return seconds, rests


def groups(pitch_deg: np.ndarray, yaw_deg: np.ndarray) -> list[np.ndarray]:
    """The shots' indices by setting: the same pitch and the same yaw either side of
    straight ahead (the board is a mirror image about its middle line, and a bale that
    lands 10 deg aside slides to rest where one 28 deg aside hops on: shots so
    different are not pooled)."""
    settings = np.column_stack([np.round(pitch_deg, 1), np.round(np.abs(yaw_deg), 1)])
    _, which = np.unique(settings, axis=0, return_inverse=True)
    return [np.flatnonzero(which.ravel() == k) for k in range(int(which.max()) + 1)]


class _Sandbox:
    """The measured launches fired again for candidate coefficients, the same launch
    errors for every candidate; what they show, by group (set pitch)."""

    def __init__(
        self,
        shots: MeasuredShots,
        fit: CalibrationResult,
        board: Board,
        seed: int,
        blind_spots: Sequence[contact_stats.Box],
    ):
        self.board, self.seed, self.blind_spots = board, seed, blind_spots
        self.design: Design = fit.design
        self.offsets = (
            fit.estimates["pitch_offset_deg"].value,
            fit.estimates["yaw_offset_deg"].value,
        )
        self.shots = shots
        self.groups = groups(shots.pitch_deg, shots.yaw_deg)
        first = np.stack([shots.x_mm, shots.y_mm], -1)
        measured = contact_stats.shown(first, shots.second_mm, shots.rest_mm, blind_spots)
        self.observed = [measured[g] for g in self.groups]
        self.fired = 0

    def _deviates(self, shot: int, repeat: int) -> Deviates:
        """Shot ``shot``'s launch errors in its ``repeat``-th firing (its chronograph's
        speed kept where it has one)."""
        rng = np.random.default_rng(split_seed(self.seed, shot, repeat))
        yaw, pitch, speed = rng.standard_normal(3)
        measured = self.shots.speed_mm_s[shot]
        launcher = self.design.launcher
        if math.isfinite(measured) and launcher.speed_sd_mm_s > 0:
            speed = (measured - launcher.muzzle_speed_mm_s) / launcher.speed_sd_mm_s
        return Deviates(float(yaw), float(pitch), float(speed))

    def shown(self, restitution: float, friction: float, repeats: int) -> list[np.ndarray]:
        """Each group's z (repeats x its shots, 4) at these bale coefficients."""
        from sim.physics.registry import make_world

        bale = replace(self.design.bale, restitution=restitution, friction=friction)
        d_pitch, d_yaw = self.offsets
        out = []
        with make_world(self.board, replace(self.design, bale=bale)) as world:
            for group in self.groups:
                fired = [
                    world.shoot(
                        AimedShot(
                            float(self.shots.yaw_deg[i] + d_yaw),
                            float(self.shots.pitch_deg[i] + d_pitch),
                            deviates=self._deviates(int(i), r),
                        )
                    )
                    for r in range(repeats)
                    for i in group
                ]
                out.append(contact_stats.shown_by_shots(fired, self.board, self.blind_spots))
        self.fired += repeats * len(self.shots)
        return out

    def log_likelihood(self, restitution: float, friction: float, repeats: int) -> float:
        """The synthetic log likelihood straight from the shots (the coarse grid's)."""
        terms = [
            contact_stats.group_terms(z, sim, repeats)
            for z, sim in zip(
                self.observed, self.shown(restitution, friction, repeats), strict=True
            )
        ]
        return contact_stats.log_likelihood(terms)


def fit_contact(
    shots: MeasuredShots,
    launcher_fit: CalibrationResult,
    board: Board,
    *,
    seed: int = 0,
    repeats: int = REPEATS,
    blind_spots: Sequence[contact_stats.Box] = (),
) -> ContactFit:
    """Fit the bale's restitution and friction on the board to the measured shots'
    second touches and rests, the launcher as ``launcher_fit`` found it; a second
    touch in one of the ``blind_spots`` (where the measurement gives none) is left
    out, measured and fired alike. Raises :class:`ContactNotFitted` when the shots
    show too few of them. Same seed, same fit.
    """
    seconds, rests = check_shown(shots)
    started = time.process_time()
    sandbox = _Sandbox(shots, launcher_fit, board, seed, blind_spots)
    estimate, intervals = _search(sandbox, repeats)
    estimates = {}
    for k, name in enumerate(COEFFICIENTS):
        low, high = intervals[k]
        determined = is_determined(name, low, high, seconds)
        estimates[name] = ContactEstimate(
            name,
            float(estimate[k]) if determined else None,
            low if math.isfinite(low) else SEARCH[name][0],
            high if math.isfinite(high) else SEARCH[name][1],
            float(getattr(launcher_fit.design.surfaces, name)),
        )
    return ContactFit(
        estimates=estimates,
        shots=len(shots),
        second_touches=seconds,
        rests=rests,
        sandbox_shots=sandbox.fired,
        cpu_s=time.process_time() - started,
    )


def is_determined(name: str, low: float, high: float, second_touches: int) -> bool:
    """Whether a coefficient gets a value: its 95 % interval ends inside the range
    searched (not the whole of it), and for restitution at least
    :data:`MIN_SECOND_TOUCHES` bounces were seen."""
    everywhere = low <= SEARCH[name][0] and high >= SEARCH[name][1]
    if name == "restitution" and second_touches < MIN_SECOND_TOUCHES:
        return False
    return math.isfinite(low) and math.isfinite(high) and not everywhere


def _search(sandbox: _Sandbox, repeats: int) -> tuple[np.ndarray, list[list[float]]]:
    """The maximum of the synthetic likelihood and each coefficient's 95 % interval
    [low, high] (an end the profile never reached: NaN), by the coarse grid and then
    the local grids: the profile's interval, widened to the replicates' where that is
    wider (sim/studies/calibrating/contact_emulator.py)."""
    lows = np.array([SEARCH[n][0] for n in COEFFICIENTS])
    highs = np.array([SEARCH[n][1] for n in COEFFICIENTS])
    axes = [np.linspace(lo, hi, COARSE_POINTS) for lo, hi in zip(lows, highs, strict=True)]
    coarse = {
        (r, f): sandbox.log_likelihood(r, f, COARSE_REPEATS) for r in axes[0] for f in axes[1]
    }
    centre = np.array(max(coarse, key=coarse.__getitem__))
    half = (highs - lows) / (COARSE_POINTS - 1)
    narrowed = False
    for round_ in range(ROUNDS):
        lo, hi = np.maximum(lows, centre - half), np.minimum(highs, centre + half)
        emulator = Emulator(sandbox.shown, sandbox.observed, lo, hi, repeats)
        u_hat, peak = emulator.maximum()
        centre = emulator.at(u_hat)
        last = round_ == ROUNDS - 1
        beyond = (u_hat < -0.98) & (lo > lows) | (u_hat > 0.98) & (hi < highs)
        if beyond.any() and not last:  # the maximum lies past the grid: go there
            continue
        # An end the profile did not reach within the grid is the range's end where
        # the grid reaches it; else the grid widens that way.
        intervals = [
            [
                math.nan if end is None and edge != limit else float(limit if end is None else end)
                for end, edge, limit in zip(
                    (emulator.bound(k, u_hat[k], peak, side) for side in (-1, 1)),
                    (lo[k], hi[k]),
                    (lows[k], highs[k]),
                    strict=True,
                )
            ]
            for k in range(len(COEFFICIENTS))
        ]
        open_axes = [k for k, ends in enumerate(intervals) if not np.all(np.isfinite(ends))]
        if open_axes and not last:
            half = half.copy()
            half[open_axes] *= 2
            continue
        if not narrowed and not last:  # both intervals held: narrow the grid about them
            narrowed = True
            profile_half = np.array([(high - low) / 2 for low, high in intervals])
            half = np.minimum(half, np.maximum(NARROWED * profile_half, NARROWEST))
            continue
        spread = Z_95 * emulator.replicate_spread()
        return centre, [  # an open end (NaN) stays open
            [
                low if math.isnan(low) else max(lows[k], min(low, centre[k] - spread[k])),
                high if math.isnan(high) else min(highs[k], max(high, centre[k] + spread[k])),
            ]
            for k, (low, high) in enumerate(intervals)
        ]
    raise AssertionError("the last round returns")
