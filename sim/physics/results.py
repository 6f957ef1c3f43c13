"""What a shot returns: a frozen, complete record of it. The aim as fired, the speed
and the materials drawn, what the bale struck and where, every piggy's pose before and
after and its verdict, and (when asked) the recorded poses for pictures. Made whole by
the physics, drawn by the views with nothing else but the static scene data
(:mod:`sim.physics.geometry`). Positions in mm in the board frame, angles in degrees,
times in s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from sim.physics.geometry import BodyPose
from sim.physics.materials import NOMINAL, Materials


@dataclass(frozen=True)
class PiggyResult:
    """What happened to one piggy in a shot; its poses are its body (principal) frame's
    (:class:`~sim.physics.geometry.PiggyModel` turns them into collision parts)."""

    piggy: str
    space: str
    level: int  # 0 bottom or alone, 1 top of a stack
    moved_mm: float  # horizontal distance its centre of mass moved
    knocked: bool
    reason: str
    final_position_mm: list[float]
    tilt_deg: float  # angle between its up axis and the vertical at rest
    start_pose: BodyPose  # settled on the layout, before the shot
    final_pose: BodyPose  # at the end of the shot

    def to_dict(self) -> dict:
        return {
            "space": self.space,
            "level": self.level,
            "moved_mm": round(self.moved_mm, 2),
            "knocked": self.knocked,
            "reason": self.reason,
            "final_position_mm": [round(v, 2) for v in self.final_position_mm],
            "tilt_deg": round(self.tilt_deg, 1),
        }


@dataclass(frozen=True)
class Recording:
    """Poses of the moving bodies every ``dt_s`` of simulated time, for pictures and
    replays. Positions in mm (board frame), orientations as (x, y, z, w) quaternions;
    piggies in their principal (body) frame, as in piggy_principal.obj."""

    dt_s: float
    bale_mm: np.ndarray  # (n, 3)
    bale_quat: np.ndarray  # (n, 4)
    bale_in_play: np.ndarray  # (n,) bool
    piggies_mm: dict[str, np.ndarray]  # name -> (n, 3)
    piggies_quat: dict[str, np.ndarray]  # name -> (n, 4)

    @property
    def frames(self) -> int:
        return len(self.bale_mm)


@dataclass(frozen=True)
class ShotResult:
    """The outcome of one shot: who was knocked out, and what the bale did."""

    yaw_deg: float  # as fired, noise included
    pitch_deg: float  # as fired, noise included
    speed_mm_s: float
    release_mm: list[float]
    first_contact_mm: list[float] | None
    first_contact_with: str | None
    first_contact_centre_mm: list[float] | None  # the bale's centre at that moment
    rest_mm: list[float]
    contacts: list[str]
    contact_points_mm: list[list[float]]  # where each strike of ``contacts`` happened
    sim_time_s: float
    settled: bool  # False when the time cap ended the shot
    piggies: dict[str, PiggyResult]
    hit_rule: str
    recording: Recording | None = field(default=None, repr=False)
    #: factors on friction, restitution and piggy mass this shot drew (``--vary``)
    materials: Materials = NOMINAL

    @property
    def trajectory_mm(self) -> np.ndarray | None:
        """The bale's centre at each recorded frame while it was in play; (n, 3), mm."""
        if self.recording is None:
            return None
        return self.recording.bale_mm[self.recording.bale_in_play]

    @property
    def knocked(self) -> list[str]:
        return sorted(p for p, r in self.piggies.items() if r.knocked)

    def to_dict(self) -> dict:
        def rounded(v):
            return None if v is None else [round(float(x), 2) for x in v]

        return {
            "knocked": self.knocked,
            "hit_rule": self.hit_rule,
            "piggies": {p: self.piggies[p].to_dict() for p in sorted(self.piggies)},
            "bale": {
                "yaw_deg": round(self.yaw_deg, 4),
                "pitch_deg": round(self.pitch_deg, 4),
                "speed_mm_s": round(self.speed_mm_s, 2),
                "release_mm": rounded(self.release_mm),
                "first_contact_mm": rounded(self.first_contact_mm),
                "first_contact_with": self.first_contact_with,
                "first_contact_centre_mm": rounded(self.first_contact_centre_mm),
                "rest_mm": rounded(self.rest_mm),
                "contacts": self.contacts,
                "contact_points_mm": [rounded(p) for p in self.contact_points_mm],
            },
            "sim_time_s": round(self.sim_time_s, 4),
            "settled": self.settled,
        } | ({} if self.materials == NOMINAL else {"materials": self.materials.to_dict()})
