"""The parts of a shot that need no engine, written once: the log of the bale's
strikes, the rest clock, the recorder of poses, and the result's assembly. Each
engine (sim/physics/bullet/, sim/physics/mujoco/) reads its own simulation and
feeds these."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from models.design import Design
from sim.physics.launch import Launch
from sim.physics.results import PiggyResult, Recording, ShotResult

#: Touches of one body less than this apart are one strike (a rattling bale), s.
STRIKE_GAP_S = 0.02
#: Simulated time between two checks for rest, s (every 10 steps of 1 ms).
REST_CHECK_S = 0.01

#: Every recorded body's pose now, the bale first: (position in the engine's unit,
#: quaternion (x, y, z, w)).
Poses = Callable[[], Sequence[tuple[Sequence[float], Sequence[float]]]]


class StrikeLog:
    """The bale's strikes, in order: what it struck and where (mm), and where its
    centre was at the first one. Touches of one thing less than ``gap_steps`` steps
    apart are one strike (a rattling bale). Any engine's contacts are logged so."""

    def __init__(self, gap_steps: int):
        self._gap_steps = gap_steps
        self._last_touch: dict[object, int] = {}
        self.struck: list[str] = []
        self.points_mm: list[list[float]] = []
        self.first_centre_mm: list[float] | None = None

    @staticmethod
    def gap_steps(dt: float) -> int:
        """:data:`STRIKE_GAP_S` in steps of ``dt`` seconds (at least one)."""
        return max(1, round(STRIKE_GAP_S / dt))

    @classmethod
    def every(cls, dt: float) -> StrikeLog:
        """A log for an engine stepping ``dt`` seconds."""
        return cls(cls.gap_steps(dt))

    def touch(
        self,
        key: object,
        name: str,
        step: int,
        point_mm: Callable[[], list[float]],
        centre_mm: Callable[[], list[float]],
    ) -> None:
        """A pushing contact with the thing ``key`` (called ``name``) in step ``step``
        (counted from 1); ``point_mm()`` gives where it is, ``centre_mm()`` the bale's
        centre now (asked only of a new strike)."""
        if step - self._last_touch.get(key, -self._gap_steps) >= self._gap_steps:
            self.struck.append(name)
            self.points_mm.append(point_mm())
            if self.first_centre_mm is None:
                self.first_centre_mm = centre_mm()
        self._last_touch[key] = step


class RestClock:
    """The rest rule: a shot ends once nothing has moved for the design's rest time,
    counted at the checks for rest (every ``check_every`` steps of ``dt`` s). One
    shot's clock, or with ``shots`` the clocks of a batch's shots at once."""

    def __init__(self, design: Design, dt: float, check_every: int, shots: int | None = None):
        self._check_every = check_every
        self._steps_needed = max(1, round(design.physics.rest_time_s / dt))
        self._steps = np.zeros(() if shots is None else (shots,), dtype=int)

    def settled(self, moving: bool) -> bool:
        """Count one check with something still ``moving`` or not; whether everything
        has now been at rest for the design's rest time."""
        return bool(self.settled_each(np.asarray(moving)))

    def settled_each(self, moving: np.ndarray, steps: int | None = None) -> np.ndarray:
        """:meth:`settled` for each shot of a batch: ``moving`` (shots,) bool, the
        check coming ``steps`` steps after the last (None: ``check_every``; fewer at
        the time cap)."""
        self._steps = np.where(moving, 0, self._steps + (steps or self._check_every))
        return self._steps >= self._steps_needed


class Recorder:
    """The poses of the bale and the piggies (``names``, in the order ``poses`` gives
    them after the bale's) every ``every`` steps of ``dt`` s, for pictures and
    replays; positions come in the engine's unit, ``unit_per_mm`` of them a mm."""

    def __init__(self, every: int, dt: float, names: list[str], poses: Poses, unit_per_mm: float):
        self.every = every
        self._dt, self._names, self._poses, self._unit_per_mm = dt, names, poses, unit_per_mm
        self._frames: list[tuple[bool, Sequence[tuple[Sequence[float], Sequence[float]]]]] = []

    def take(self, bale_in_play: bool) -> None:
        """Record every pose now."""
        self._frames.append((bale_in_play, self._poses()))

    def stepped(self, step: int, bale_in_play: bool) -> None:
        """After step ``step`` (from 1): record when it is one of every ``every``."""
        if step % self.every == 0:
            self.take(bale_in_play)

    def finish(self, step: int, bale_in_play: bool) -> None:
        """The shot ended after step ``step``: record its end if not just recorded."""
        if step % self.every:
            self.take(bale_in_play)

    def recording(self) -> Recording:
        """What was recorded: positions in mm, quaternions, every ``every`` steps."""
        frames = self._frames
        positions = np.array([[p for p, _ in poses] for _, poses in frames]) / self._unit_per_mm
        quats = np.array([[q for _, q in poses] for _, poses in frames])
        return Recording(
            dt_s=self.every * self._dt,
            bale_mm=positions[:, 0],
            bale_quat=quats[:, 0],
            bale_in_play=np.array([in_play for in_play, _ in frames]),
            piggies_mm={n: positions[:, i + 1] for i, n in enumerate(self._names)},
            piggies_quat={n: quats[:, i + 1] for i, n in enumerate(self._names)},
        )


def shot_result(
    launch: Launch,
    strikes: StrikeLog,
    *,
    rest_mm: Sequence[float] | np.ndarray,
    sim_time_s: float,
    settled: bool,
    piggies: dict[str, PiggyResult],
    hit_rule: str,
    recorder: Recorder | None,
) -> ShotResult:
    """A shot's result from its launch, its strikes, where the bale came to rest and
    the judge's verdicts."""
    points = strikes.points_mm
    return ShotResult(
        yaw_deg=launch.yaw_deg,
        pitch_deg=launch.pitch_deg,
        speed_mm_s=launch.speed_mm_s,
        release_mm=launch.release_mm,
        first_contact_mm=points[0] if points else None,
        first_contact_with=strikes.struck[0] if strikes.struck else None,
        first_contact_centre_mm=strikes.first_centre_mm,
        rest_mm=[float(v) for v in rest_mm],
        contacts=strikes.struck,
        contact_points_mm=points,
        sim_time_s=sim_time_s,
        settled=settled,
        piggies=piggies,
        hit_rule=hit_rule,
        recording=recorder.recording() if recorder else None,
        materials=launch.materials,
    )
