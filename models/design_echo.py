"""A design as it was read, for ``piggy design check``: every section's fields with
their units (:func:`field_lines`), and the derived quantities that did not follow a
change from the stock design (:func:`unfollowed`): a bale grown or shrunk with the
stock bale's mass keeps no longer the stock bale's density."""

from __future__ import annotations

import dataclasses

from models.design import Design, load_design

#: Unit of a field, by the end of its name (the longest ending first).
UNITS = (
    ("_kg_m3", "kg/m³"),
    ("_mm_s", "mm/s"),
    ("_deg_s", "deg/s"),
    ("_n_m", "N/m"),
    ("_per_s", "/s"),
    ("_mm", "mm"),
    ("_deg", "deg"),
    ("_g", "g"),
    ("_s", "s"),
)
SECTIONS = ("launcher", "bale", "piggy", "tractor", "surfaces", "physics")
#: A launcher's fields derived from its spring, when it has one.
_FROM_SPRING = ("muzzle_speed_mm_s", "speed_sd_mm_s")
#: A mesh's settings, shown only with a mesh.
_MESH_SETTINGS = ("mesh_units", "mesh_threshold", "mesh_max_parts")
#: The relative change in a bale's block volume below which its density is unchanged.
_SAME = 1e-9


def unit_of(field: str) -> str:
    """The unit a field's name ends in ("" for a plain number, a switch or a name)."""
    return next((unit for end, unit in UNITS if field.endswith(end)), "")


def _shown(field: str, value) -> str:
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, float):
        text = f"{value:g}"
    elif isinstance(value, str):
        text = f'"{value}"'
    else:
        text = str(value)
    unit = unit_of(field)
    return f"{field} = {text}" + (f" {unit}" if unit else "")


def section_fields(design: Design, section: str) -> list[str]:
    """``field = value unit`` for each field the section sets (a spring's fields and a
    mesh's settings only when given)."""
    part = getattr(design, section)
    shown = []
    for field in dataclasses.fields(part):
        value = getattr(part, field.name)
        if value is None or (field.name in _MESH_SETTINGS and getattr(part, "mesh", None) is None):
            continue
        derived = section == "launcher" and design.launcher.has_spring
        note = " (from the spring)" if derived and field.name in _FROM_SPRING else ""
        shown.append(_shown(field.name, value) + note)
    return shown


def field_lines(design: Design, width: int = 96) -> list[str]:
    """Each section's fields, wrapped to ``width``: ``[bale] length_mm = 11 mm, ...``."""
    lines = []
    for section in SECTIONS:
        line = f"{'[' + section + ']':11s}"
        fields = section_fields(design, section) or ["the stock part"]
        for i, text in enumerate(fields):
            text += "," if i < len(fields) - 1 else ""
            if len(line) + 1 + len(text) > width and line.strip():
                lines.append(line)
                line = " " * 11
            line += ("" if line.endswith(" ") else " ") + text
        lines.append(line)
    return lines


def _block_mm3(design: Design) -> float:
    bale = design.bale
    return bale.length_mm * bale.width_mm * bale.height_mm


def unfollowed(design: Design) -> list[str]:
    """Derived quantities that stayed the stock design's while what they derive from
    changed: a block bale's density, when its size changed and its mass did not."""
    stock = load_design("stock")
    bale, base = design.bale, stock.bale
    if bale.mesh is not None or bale.mass_g != base.mass_g:
        return []
    volume, base_volume = _block_mm3(design), _block_mm3(stock)
    if abs(volume / base_volume - 1) < _SAME:
        return []
    density, base_density = bale.mass_g / volume * 1000, base.mass_g / base_volume * 1000
    same_density_g = base.mass_g * volume / base_volume
    return [
        f"bale: its block is {bale.length_mm:g} x {bale.width_mm:g} x {bale.height_mm:g} mm, "
        f"{volume / base_volume - 1:+.0%} in volume on stock's, but mass_g = "
        f"{bale.mass_g:g} g as stock's: its density is {density:.2f} g/cm³ "
        f"(stock's {base_density:.2f}); as dense as stock's it would weigh "
        f"{same_density_g:.2f} g (set bale.mass_g)"
    ]
