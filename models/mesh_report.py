"""What ``piggy design check`` says about a design's own meshes: for each, its file,
sha256, size, volume, collision parts, mass and inertia, and the repairs made."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from models.decompose import DecompositionSettings, collision_parts, mesh_mass_properties
from models.mesh_files import check_piggy_fits, design_meshes

if TYPE_CHECKING:
    from models.design import Design


def mesh_report(design: Design, space_mm: float | None = None) -> dict[str, dict]:
    """Each of the design's meshes as a dict, by part (empty without meshes).

    Parameters
    ----------
    design : the design.
    space_mm : the board's space size, mm: an own piggy must fit it
        (:class:`~models.errors.InputError` otherwise); ``None`` skips that check.

    Returns
    -------
    part -> ``file``, ``sha256``, ``size_mm`` [x, y, z], ``volume_mm3``, ``parts``
    (convex collision parts), ``hull_vertices`` (their vertices, all together: what
    a collision with them costs), ``mass_g`` and ``principal_moments_g_mm2`` [3] (a solid
    of the design's mass; ``None`` for the tractor, which does not move), ``notes``.
    """
    report = {}
    for part, mesh_file in design_meshes(design).items():
        section = getattr(design, part)
        if part == "piggy" and space_mm is not None:
            check_piggy_fits(mesh_file, space_mm)
        settings = DecompositionSettings(section.mesh_threshold, section.mesh_max_parts)
        props = mesh_mass_properties(mesh_file.mesh)
        parts = collision_parts(mesh_file, settings)
        mass_g = getattr(section, "mass_g", None)
        moments = (
            None
            if mass_g is None
            else [
                round(float(m) * mass_g / props.volume_mm3, 4) for m in props.principal_moments_mm5
            ]
        )
        report[part] = {
            "file": str(mesh_file.path),
            "sha256": mesh_file.sha256,
            "units": section.mesh_units,
            "size_mm": [round(v, 3) for v in mesh_file.size_mm],
            "volume_mm3": round(props.volume_mm3, 3),
            "parts": len(parts),
            "hull_vertices": sum(len(p.vertices) for p in parts),
            "threshold": section.mesh_threshold,
            "max_parts": section.mesh_max_parts,
            "mass_g": mass_g,
            "principal_moments_g_mm2": moments,
            "notes": list(mesh_file.notes),
        }
    return report


def format_mesh_report(report: dict[str, dict]) -> list[str]:
    """The report as lines for the terminal, two or more per mesh."""
    lines = []
    for part, mesh in report.items():
        size = " x ".join(f"{v:g}" for v in mesh["size_mm"])
        lines.append(f"{part} mesh: {_from_here(mesh['file'])} (sha256 {mesh['sha256']})")
        line = (
            f"  {size} mm, {mesh['volume_mm3']:.1f} mm³, {mesh['parts']} convex "
            f"part{'s' if mesh['parts'] != 1 else ''} (threshold {mesh['threshold']:g}, "
            f"at most {mesh['max_parts']}; {mesh['hull_vertices']:,} hull vertices)"
        )
        if mesh["mass_g"] is not None:
            moments = ", ".join(f"{m:.4g}" for m in mesh["principal_moments_g_mm2"])
            line += f", {mesh['mass_g']:g} g, principal moments {moments} g·mm²"
        lines.append(line)
        lines.extend(f"  note: {note}" for note in mesh["notes"])
    return lines


def _from_here(file: str) -> str:
    """A mesh file's path as the user would type it: relative to the current folder
    when it lies under it (the JSON keeps the absolute path)."""
    path = Path(file)
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return file
