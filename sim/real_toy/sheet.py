"""The printable marker sheet (``piggy markers``): every marker of a board's layout
at its true size on an A4 page, with its id and where to tape it.

The page is drawn in millimetres on a figure exactly 210 x 297 mm, with no margin
added when saved: a PDF prints at true scale ("actual size", not "fit to page"),
and a PNG has ``dpi`` pixels an inch, written in its metadata, so that a marker of
40 mm is 40 / 25.4 x dpi pixels across. A 10 cm scale bar checks the print.
"""

from __future__ import annotations

import os
from pathlib import Path

from models.errors import InputError
from models.text import shown
from sim.real_toy.defaults import DPI
from sim.real_toy.markers import MarkerLayout, marker_modules

#: The page, mm (A4 portrait).
PAGE_MM = (210.0, 297.0)
MM_PER_INCH = 25.4


def write_sheet(layout: MarkerLayout, path: str | Path, dpi: int = DPI) -> Path:
    """Draw the sheet and write it as PDF or PNG (by the suffix), atomically."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure
    from matplotlib.patches import Rectangle

    # a board's name is drawn as it is: a "$" in it must not start mathtext
    matplotlib.rcParams.update({"text.parse_math": False, "text.usetex": False})

    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".pdf", ".png"):
        raise InputError(f"--out {shown(str(path))} must end in .pdf or .png")
    width, height = PAGE_MM
    fig = Figure(figsize=(width / MM_PER_INCH, height / MM_PER_INCH))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)  # y down the page, mm from its top
    ax.set_axis_off()
    ax.text(
        15,
        14,
        f"Go Piggy Go! markers for board '{layout.board}' (ArUco {layout.dictionary})",
        fontsize=11,
        va="top",
    )
    ax.text(
        15,
        21,
        "Print at actual size (100 %, not 'fit to page'); the bar below must measure 100 mm.\n"
        "Cut along the grey squares and tape each marker flat, its 'trough' edge toward the\n"
        "food trough (+y), its centre at the board-frame position written under it.",
        fontsize=7.5,
        va="top",
        linespacing=1.4,
    )
    ax.plot([15, 115], [36, 36], color="black", linewidth=1.2)
    for tick in (15, 115):
        ax.plot([tick, tick], [34, 38], color="black", linewidth=1.2)
    ax.text(120, 36, "100 mm", fontsize=7, va="center")
    columns, cell_w, cell_h, top = 2, 90.0, 83.0, 44.0
    for n, marker in enumerate(layout.markers):
        cx = 15 + cell_w * (n % columns) + cell_w / 2
        cy = top + cell_h * (n // columns) + 34
        paper = marker.paper_mm
        modules = marker_modules(layout, marker.id)
        ax.imshow(
            modules,
            cmap="gray",
            vmin=0,
            vmax=255,
            interpolation="nearest",
            extent=(cx - paper / 2, cx + paper / 2, cy + paper / 2, cy - paper / 2),
        )
        ax.add_patch(
            Rectangle(
                (cx - paper / 2, cy - paper / 2),
                paper,
                paper,
                fill=False,
                edgecolor="0.6",
                linewidth=0.5,
            )
        )
        ax.text(cx, cy - paper / 2 - 1.5, "trough (+y)", fontsize=6, ha="center", va="bottom")
        x, y = marker.centre_mm
        ax.text(
            cx,
            cy + paper / 2 + 2,
            f"id {marker.id}: centre at x = {x:g}, y = {y:g} mm\n{marker.where}, "
            f"side {marker.side_mm:g} mm",
            fontsize=7,
            ha="center",
            va="top",
            linespacing=1.4,
        )
    ax.set_xlim(0, width)
    ax.set_ylim(height, 0)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp{suffix}")
    try:
        if suffix == ".png":
            fig.savefig(tmp, dpi=dpi, format="png")
        else:
            fig.savefig(tmp, format="pdf")
        tmp.replace(path)
    except BaseException as exc:  # no .tmp file is left behind, whatever failed
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise InputError(f"cannot write {shown(str(path))}: {exc.strerror or exc}") from None
        raise
    return path
