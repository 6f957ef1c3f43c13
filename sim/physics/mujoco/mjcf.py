"""The toy as a MuJoCo model: MJCF written from what every engine's scene is made
of (:mod:`sim.physics.bodies`), with the settings the matching experiments chose.
The scene that loads it is :mod:`sim.physics.mujoco.scene`.

- **Units.** SI inside (m, kg, s); every interface speaks mm, g, s and degrees.
- **Bodies.** The board, the table and the fences are boxes of the world body; the
  tractor a mocap body of its convex parts, turned for each shot; each piggy a free
  body of its convex parts in its principal frame, with its mass and principal
  moments; the bale a free body of its parts with its mass and moments.
- **Materials.** The design's coefficients are per material, and a contact's are
  the products of its two materials' (Bullet's rule, :mod:`sim.physics.bodies`).
  MuJoCo combines two geoms' friction as their maximum and their ``solref`` as their
  mean, so: the bale touches nothing by itself, and each of its contacts is an
  explicit pair with that pair's friction and damping; a piggy's geoms carry the
  piggy-on-surface friction and a surface's none, so that the maximum is the
  product; piggy on piggy then takes the piggy-on-surface friction too (the one
  pair that differs from Bullet: stacks only). Restitution is the contact's
  damping ratio: a linear spring-damper bounces back with e = exp(-π ζ / √(1 -
  ζ²)), and :data:`MujocoSettings` holds what the matching experiments chose
  (docs/physics.md, "A second engine: MuJoCo").
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from models.board import Board
from models.design import Design
from sim.physics.ballistics import GRAVITY_MM_S2
from sim.physics.bodies import (
    bale_inertia_g_mm2,
    bale_parts,
    pair_friction,
    pair_restitution,
    piggy_inertia_g_mm2,
    static_boxes,
    tractor_parts,
)
from sim.physics.geometry import BodyPose, PiggyModel, quaternion_from_matrix
from sim.physics.materials import NOMINAL, Materials

#: MuJoCo's lengths (m) per mm, and masses (kg) per g.
M_PER_MM = 1e-3
KG_PER_G = 1e-3
#: Where the bale waits between shots, far from everything, m.
PARKING_M = (30.0, 30.0, 5.0)


@dataclass(frozen=True)
class MujocoSettings:
    """What MuJoCo is run with, chosen by the matching experiments
    (``scripts/engine_match.py``, docs/physics.md): the time step is the design's,
    as Bullet's; the contacts' time constant (MuJoCo's ``solref[0]``, their
    stiffness) is ``timeconst_steps`` steps and their impedance ``solimp``; the
    damping ratio the spring-damper formula gives for a restitution is raised by
    ``damping_gain`` (MuJoCo's soft contacts bounce back more than a linear
    spring-damper: 0.32 for 0.25 on the drop without it, 0.24 with it, 0.21 in
    Bullet); the friction cone; ``impratio``; and the island sleeping of bodies at
    rest (a piggy the shot does not touch costs next to nothing, as Bullet's idle
    stand-ins)."""

    timeconst_steps: float = 4.0
    solimp: tuple[float, float, float, float, float] = (0.9, 0.95, 0.001, 0.5, 2.0)
    damping_gain: float = 1.25
    cone: str = "elliptic"  # the contacts' normal force is then one row: read so
    impratio: float = 1.0
    sleep: bool = True


SETTINGS = MujocoSettings()


def damping_ratio(restitution: float) -> float:
    """The damping ratio of a linear spring-damper that bounces back with
    ``restitution`` (1 at 0: critically damped, no bounce)."""
    if restitution <= 0.0:
        return 1.0
    log_e = math.log(min(restitution, 0.999))
    return -log_e / math.sqrt(math.pi * math.pi + log_e * log_e)


@dataclass(frozen=True)
class Coefficients:
    """The contact coefficients a MuJoCo scene carries for a design under ``--vary``'s
    factors (module docstring): the bale's pairs' friction and damping ratio by the
    other's material, the piggies' geoms' friction and damping ratio, and the
    surfaces' damping ratio (their friction is 0: the piggies' is the maximum)."""

    bale_friction: dict[str, float]
    bale_ratio: dict[str, float]
    piggy_friction: float
    piggy_ratio: float
    surface_ratio: float

    @classmethod
    def of(cls, design: Design, materials: Materials, damping_gain: float = 1.0) -> Coefficients:
        def friction(a: str, b: str) -> float:
            return pair_friction(design, a, b) * materials.pair_friction(a, b)

        def ratio(a: str, b: str) -> float:
            e = min(1.0, pair_restitution(design, a, b) * materials.pair_restitution(a, b))
            return min(1.0, damping_gain * damping_ratio(e))

        piggy_surface, piggy_piggy = ratio("piggy", "surface"), ratio("piggy", "piggy")
        return cls(
            bale_friction={m: friction("bale", m) for m in ("surface", "piggy")},
            bale_ratio={m: ratio("bale", m) for m in ("surface", "piggy")},
            piggy_friction=friction("piggy", "surface"),
            piggy_ratio=piggy_piggy,
            # the mean of a surface's and a piggy's is the piggy-on-surface ratio
            surface_ratio=max(0.01, 2 * piggy_surface - piggy_piggy),
        )


def _vertices(parts: list[np.ndarray]) -> list[str]:
    return [" ".join(f"{x * M_PER_MM:.9g}" for x in np.asarray(p).ravel()) for p in parts]


def _quat(rotation: np.ndarray) -> str:
    x, y, z, w = quaternion_from_matrix(rotation)
    return f"{w:.12g} {x:.12g} {y:.12g} {z:.12g}"


def _vec(values) -> str:
    return " ".join(f"{v:.12g}" for v in values)


def mjcf(
    board: Board,
    design: Design,
    model: PiggyModel,
    poses: dict[str, BodyPose],
    materials: Materials = NOMINAL,
    settings: MujocoSettings = SETTINGS,
) -> str:
    """The scene as MJCF: the static boxes, the tractor, a piggy at each of ``poses``
    (its body pose, mm) and the bale parked; every contact's coefficients from the
    design's materials times ``materials``' factors (``--vary``)."""

    c = Coefficients.of(design, materials, settings.damping_gain)
    dt = 1.0 / design.physics.steps_per_s
    tc = settings.timeconst_steps * dt
    solimp = _vec(settings.solimp)
    assets, world, pairs = [], [], []
    surface = f'friction="0 0 0" solref="{tc} {c.surface_ratio:.9g}" solimp="{solimp}"'
    statics = []
    for i, box in enumerate(static_boxes(board)):
        name = f"{box.name}{i}"
        statics.append(name)
        world.append(
            f'<geom name="{name}" type="box" size="{_vec(np.array(box.half_mm) * M_PER_MM)}" '
            f'pos="{_vec(np.array(box.centre_mm) * M_PER_MM)}" euler="0 0 {box.yaw_rad:.12g}" '
            f"{surface}/>"
        )
    tractor = []
    for i, v in enumerate(_vertices(tractor_parts(design))):
        assets.append(f'<mesh name="tractor{i}" vertex="{v}"/>')
        tractor.append(f'<geom name="tractor{i}" type="mesh" mesh="tractor{i}" {surface}/>')
        statics.append(f"tractor{i}")
    world.append(f'<body name="tractor" mocap="true">{"".join(tractor)}</body>')
    for i, v in enumerate(_vertices(list(model.parts_mm))):
        assets.append(f'<mesh name="piggy{i}" vertex="{v}"/>')
    piggy_mass = design.piggy.mass_g * materials.mass * KG_PER_G
    inertia = piggy_inertia_g_mm2(design, model, materials.mass) * KG_PER_G * M_PER_MM**2
    piggy_geom = (
        f'friction="{c.piggy_friction:.9g} 0 0" solref="{tc} {c.piggy_ratio:.9g}" solimp="{solimp}"'
    )
    piggy_geoms: list[str] = []
    for name, pose in sorted(poses.items()):
        geoms = []
        for i in range(len(model.parts_mm)):
            geoms.append(f'<geom name="{name}:{i}" type="mesh" mesh="piggy{i}" {piggy_geom}/>')
            piggy_geoms.append(f"{name}:{i}")
        world.append(
            f'<body name="{name}" pos="{_vec(pose.position_mm * M_PER_MM)}" '
            f'quat="{_quat(pose.rotation)}"><freejoint/>'
            f'<inertial pos="0 0 0" mass="{piggy_mass:.12g}" diaginertia="{_vec(inertia)}"/>'
            f"{''.join(geoms)}</body>"
        )
    bale_geoms = []
    for i, v in enumerate(_vertices(bale_parts(design))):
        assets.append(f'<mesh name="bale{i}" vertex="{v}"/>')
        bale_geoms.append(f"bale{i}")
    bale_inertia = bale_inertia_g_mm2(design) * KG_PER_G * M_PER_MM**2
    world.append(
        f'<body name="bale" pos="{_vec(PARKING_M)}"><freejoint/>'
        f'<inertial pos="0 0 0" mass="{design.bale.mass_g * KG_PER_G:.12g}" '
        f'diaginertia="{_vec(bale_inertia)}"/>'
        + "".join(
            f'<geom name="{g}" type="mesh" mesh="{g}" contype="0" conaffinity="0"/>'
            for g in bale_geoms
        )
        + "</body>"
    )
    for bale in bale_geoms:
        for other, material in [(s, "surface") for s in statics] + [
            (p, "piggy") for p in piggy_geoms
        ]:
            mu = c.bale_friction[material]
            pairs.append(
                f'<pair name="{bale}/{other}/{material}" geom1="{bale}" geom2="{other}" '
                f'condim="3" friction="{mu:.9g} {mu:.9g} 0 0 0" '
                f'solref="{tc} {c.bale_ratio[material]:.9g}" solimp="{solimp}"/>'
            )
    flags = '<flag sleep="enable"/>' if settings.sleep else ""
    g = GRAVITY_MM_S2 * M_PER_MM
    return (
        '<mujoco model="go-piggy-go">'
        # angles in radians (MJCF's default is degrees: a fence turned by pi/2 stood
        # 1.57 degrees off the row's line, across the spaces it should border)
        '<compiler angle="radian"/>'
        f'<option timestep="{dt:.12g}" gravity="0 0 {-g:.12g}" '
        f'integrator="implicitfast" cone="{settings.cone}" impratio="{settings.impratio}">'
        f"{flags}</option>"
        '<default><geom condim="3"/></default>'
        f"<asset>{''.join(assets)}</asset>"
        f"<worldbody>{''.join(world)}</worldbody>"
        f"<contact>{''.join(pairs)}</contact>"
        "</mujoco>"
    )
