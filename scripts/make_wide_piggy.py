"""Write models/designs/wide-piggy.obj, the mesh of the wide-piggy example design: a
piggy of our own, wider and lower than the stock one (30 mm wide, 36 mm long,
about 21 mm tall against the stock 23 x 44 x 35 mm), standing on four stubby legs
with an arched belly between them and a head bump at the front (+y). One closed
surface, not convex (the belly's arch, the head), so the sandbox splits it into
convex parts. Written the same on every run.

    python scripts/make_wide_piggy.py
    python scripts/make_wide_piggy.py --grid 60,216 --out dense-piggy.obj  # 51,840 faces

The second is the same piggy as a dense CAD export would give it, for the speed
bench (docs/physics.md, "An own piggy's shot").

How it is built: over an elliptic footprint, a top surface (a dome with a bump
for the head) and a bottom surface (the belly, drawn down to the board where the
legs are), joined by a short wall round the rim. Polar grid, so the surface is
closed by construction.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
import trimesh

OUT = Path(__file__).resolve().parent.parent / "models" / "designs" / "wide-piggy.obj"

HALF_WIDTH_MM, HALF_LENGTH_MM = 15.0, 18.0  # the footprint's ellipse (x, y)
RIM_TOP_MM, DOME_MM = 10.0, 9.0  # top at the rim, and how much higher at the middle
BELLY_MM = 6.0  # the belly's height above the board between the legs
LEGS_XY_MM = (8.0, 10.0)  # legs at (+-x, +-y)
LEG_RADIUS_MM, LEG_FLARE_MM = 3.0, 1.5  # a leg's foot, and how far it widens to the belly
HEAD_Y_MM, HEAD_MM = 11.0, 5.0  # the head bump: where along +y, how high
RINGS, SECTORS = 20, 72  # the polar grid


def _smoothstep(t: np.ndarray) -> np.ndarray:
    t = np.clip(t, 0.0, 1.0)
    return t * t * (3 - 2 * t)


def _top_mm(x: np.ndarray, y: np.ndarray, rho: np.ndarray) -> np.ndarray:
    head = HEAD_MM * np.exp(-((x / 7.0) ** 2) - ((y - HEAD_Y_MM) / 5.0) ** 2)
    return RIM_TOP_MM + DOME_MM * np.sqrt(np.clip(1 - rho**2, 0, 1)) + head


def _bottom_mm(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    lx, ly = LEGS_XY_MM
    to_leg = np.hypot(np.abs(x) - lx, np.abs(y) - ly)
    return BELLY_MM * _smoothstep((to_leg - LEG_RADIUS_MM) / LEG_FLARE_MM)


def wide_piggy(rings: int = RINGS, sectors: int = SECTORS) -> trimesh.Trimesh:
    """The piggy, mm, in the piggy frame (lowest point on z = 0, footprint centred),
    on a polar grid of ``rings`` x ``sectors``."""
    rho = np.arange(1, rings + 1) / rings
    theta = np.arange(sectors) * 2 * np.pi / sectors
    r, t = np.meshgrid(rho, theta, indexing="ij")  # (rings, sectors)
    x, y = HALF_WIDTH_MM * r * np.cos(t), HALF_LENGTH_MM * r * np.sin(t)
    top = np.column_stack([x.ravel(), y.ravel(), _top_mm(x, y, r).ravel()])
    bottom = np.column_stack([x.ravel(), y.ravel(), _bottom_mm(x, y).ravel()])
    centre_top = [0.0, 0.0, float(_top_mm(np.zeros(1), np.zeros(1), np.zeros(1))[0])]
    centre_bottom = [0.0, 0.0, float(_bottom_mm(np.zeros(1), np.zeros(1))[0])]
    vertices = np.vstack([top, bottom, [centre_top, centre_bottom]])
    n = rings * sectors
    top_at = np.arange(n).reshape(rings, sectors)
    bottom_at = top_at + n
    centre_top_at, centre_bottom_at = 2 * n, 2 * n + 1
    nxt = np.roll(np.arange(sectors), -1)
    faces = []
    for j in range(sectors):  # the fans round the centres
        faces.append([centre_top_at, top_at[0, j], top_at[0, nxt[j]]])
        faces.append([centre_bottom_at, bottom_at[0, nxt[j]], bottom_at[0, j]])
    for k in range(rings - 1):  # the rings
        for j in range(sectors):
            a, b = top_at[k, j], top_at[k, nxt[j]]
            c, d = top_at[k + 1, nxt[j]], top_at[k + 1, j]
            faces += [[a, d, c], [a, c, b]]
            a, b = bottom_at[k, j], bottom_at[k, nxt[j]]
            c, d = bottom_at[k + 1, nxt[j]], bottom_at[k + 1, j]
            faces += [[a, c, d], [a, b, c]]
    for j in range(sectors):  # the wall round the rim
        a, b = top_at[-1, j], top_at[-1, nxt[j]]
        c, d = bottom_at[-1, nxt[j]], bottom_at[-1, j]
        faces += [[a, d, c], [a, c, b]]
    piggy = trimesh.Trimesh(vertices, np.array(faces), process=False)
    piggy.fix_normals()
    assert piggy.is_watertight and piggy.is_volume, "the piggy's surface must be closed"
    return piggy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--grid", default=f"{RINGS},{SECTORS}", help="RINGS,SECTORS")
    parser.add_argument("--out", type=Path, default=OUT, help=f"the OBJ file (default {OUT})")
    args = parser.parse_args()
    rings, sectors = (int(v) for v in args.grid.split(","))
    piggy = wide_piggy(rings, sectors)
    lines = ["# wide-piggy: made by scripts/make_wide_piggy.py; mm, +y toward the snout, +z up"]
    lines += [f"v {x:.4f} {y:.4f} {z:.4f}" for x, y, z in piggy.vertices]
    lines += [f"f {a + 1} {b + 1} {c + 1}" for a, b, c in piggy.faces]
    args.out.write_text("\n".join(lines).replace("-0.0000 ", "0.0000 ") + "\n")
    w, length, h = piggy.extents
    print(f"wrote {args.out} ({len(piggy.faces)} faces, {w:.1f} x {length:.1f} x {h:.1f} mm)")


if __name__ == "__main__":
    main()
