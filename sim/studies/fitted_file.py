"""The fitted design as a file a person can read (``piggy calibrate --out``): the base
design's own file with the fitted values put in, its comments and layout kept, and
what the fit found written as comments at the top (each estimate with its standard
error, the offsets of the angle scales, which belong to the person, not the launcher).

Fitted values are rounded to what the data supports (sim/studies/calibration.py:
:func:`~sim.studies.calibration.supported`), so the file shows no 16-digit floats.
"""

from __future__ import annotations

import json
import re

#: ``key = value   # comment`` on one line of a TOML file.
_ASSIGNMENT = re.compile(r"^(\s*)([A-Za-z_][A-Za-z0-9_]*)(\s*=\s*)(.*?)(\s*#.*)?$")
_SECTION = re.compile(r"^\s*\[([A-Za-z_][A-Za-z0-9_]*)\]")


def toml_value(value) -> str:
    """A value as TOML writes it (strings quoted, booleans lower-case)."""
    if isinstance(value, str):
        return json.dumps(value)
    return str(value).lower() if isinstance(value, bool) else str(value)


def with_values(base_text: str, values: dict) -> str:
    """``base_text`` (a design file) with ``values`` put in: ``{"name": ..., "launcher":
    {...}, ...}``; a key the base has and ``values`` lacks is commented out, a key
    ``values`` has and the base lacks is added at the end of its section."""
    lines, section, done = [], None, set()

    def close(section):
        for key, value in (values.get(section) or {}).items() if section else ():
            if (section, key) not in done:
                lines.append(f"{key} = {toml_value(value)}")
                done.add((section, key))

    for line in base_text.splitlines():
        header = _SECTION.match(line)
        if header:
            close(section)
            section = header.group(1)
            lines.append(line)
            continue
        match = _ASSIGNMENT.match(line)
        if not match or line.lstrip().startswith("#"):
            lines.append(line)
            continue
        indent, key, equals, old, comment = match.groups()
        table = values.get(section) if section else values
        if not isinstance(table, dict) or key not in table:
            lines.append(f"# {line.strip()}   (not in the fitted design)")
            continue
        text = toml_value(table[key])
        if comment:  # the comment stays in its column
            gap = len(comment) - len(comment.lstrip())
            text += " " * max(1, len(old) + gap - len(text)) + comment.lstrip()
        lines.append(f"{indent}{key}{equals}{text}")
        done.add((section, key))
    close(section)
    for name, table in values.items():  # sections the base file lacks
        if isinstance(table, dict) and not any(s == name for s, _ in done):
            lines.append(f"\n[{name}]")
            lines += [f"{k} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"


def header(result) -> str:
    """What the fit found, as comment lines."""
    out = [
        f"# Fitted by piggy calibrate from {len(result.shots)} measured shots "
        f"({result.shots.source}), base design '{result.base.name}'.",
        "# Each fitted value is rounded to what the data supports; estimate ± standard error:",
    ]
    for name, e in result.estimates.items():
        spread = (
            f"± {e.se:.2g}" if e.se is not None else f"fits as 0, below {e.upper_95:.3g} at 95 %"
        )
        out.append(f"#   {name} = {e.value:.4g} {spread}")
    out.append(
        "# The offsets belong to the person's angle scales, not to the launcher: add them to the"
    )
    out.append("# readings of those scales (they are not in the design).")
    out += [f"# note: {note}" for note in result.notes]
    return "\n".join(out) + "\n"
