"""Write models/designs/round-bale.stl, the mesh of the round-bale example design: a
cylinder 8 mm across and 9 mm long, its axis across the barrel (x), so that it
rolls where it lands. ASCII STL, 64 faces, written the same on every run.

    python scripts/make_round_bale.py
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh

OUT = Path(__file__).resolve().parent.parent / "models" / "designs" / "round-bale.stl"
DIAMETER_MM, LENGTH_MM, SECTIONS = 8.0, 9.0, 16


def round_bale() -> trimesh.Trimesh:
    """The cylinder, centred, axis along x; mm."""
    bale = trimesh.creation.cylinder(radius=DIAMETER_MM / 2, height=LENGTH_MM, sections=SECTIONS)
    bale.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [0, 1, 0]))
    return bale


def main() -> None:
    bale = round_bale()
    # fixed formatting (trimesh's own STL writer prints floats as numpy does)
    lines = ["solid round-bale"]
    for normal, triangle in zip(bale.face_normals, bale.triangles, strict=True):
        lines.append("  facet normal " + " ".join(f"{v:.6f}" for v in normal))
        lines.append("    outer loop")
        lines.extend("      vertex " + " ".join(f"{v:.6f}" for v in p) for p in triangle)
        lines.append("    endloop")
        lines.append("  endfacet")
    lines.append("endsolid round-bale")
    OUT.write_text("\n".join(lines).replace("-0.000000", "0.000000") + "\n")
    print(f"wrote {OUT} ({len(bale.faces)} faces)")


if __name__ == "__main__":
    main()
