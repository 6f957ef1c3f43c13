"""Pictures of Go Piggy Go! games: the board from above after each turn, piggies
in their colours with their numbers (stacks, pits, trough), the tractor turned
to its last shot, the turn's die roll, each shot drawn with what it knocked out
and where to, and a legend of the seats — as an animated GIF or a
self-contained HTML page with a slider.
"""

from __future__ import annotations

import base64
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path

import matplotlib.patheffects as effects
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.patches import FancyBboxPatch, Rectangle
from PIL import Image

from models.board import Board
from models.files import write_text_atomic
from models.layout import COLOURS
from models.meshes import load_parts
from sim.physics.knockout import transform
from sim.views.pictures import PIGGY_COLOURS, draw_board, draw_footprint, draw_tractor

_PIGGY_PARTS = [m.vertices for m in load_parts("piggy").values()]
_TRACTOR_PARTS = [m.vertices for m in load_parts("tractor").values()]
#: How far the top piggy of a stack is drawn from the bottom one, mm.
_STACK_OFFSET = np.array([7.0, -7.0, 0.0])
_SHOT_COLOUR = "#c00000"
#: Pips of each die face, in a unit square.
_PIPS = {
    1: [(0.5, 0.5)],
    2: [(0.25, 0.75), (0.75, 0.25)],
    3: [(0.25, 0.75), (0.5, 0.5), (0.75, 0.25)],
    4: [(0.25, 0.25), (0.25, 0.75), (0.75, 0.25), (0.75, 0.75)],
    5: [(0.25, 0.25), (0.25, 0.75), (0.5, 0.5), (0.75, 0.25), (0.75, 0.75)],
    6: [(0.25, y) for y in (0.2, 0.5, 0.8)] + [(0.75, y) for y in (0.2, 0.5, 0.8)],
}


@dataclass
class Turn:
    """What happened in one turn, for its picture."""

    seat: int | None = None
    die: str | None = None
    action: str = ""
    shot: tuple[str, str] | None = None  # (target, its space when fired at)
    knocked: list[str] = field(default_factory=list)


def _place(board: Board, where: str, index: int) -> np.ndarray:
    """Where to draw a piggy that is in a pit or the trough: in a row inside it, mm."""
    x0, x1, y0, y1 = board.surface_extent_mm
    gx0, gx1, gy0, gy1 = board.grid_extent_mm
    s = board.space_mm
    step = 28.0
    if where == "trough":
        return np.array([gx0 + 20 + index * step, (gy1 + y1) / 2, 0.0])
    if where == "pit":
        return np.array([gx0 + 20 + index * step, (y0 + gy0) / 2, 0.0])
    rows = board.pit_left_rows if where == "pit-left" else board.pit_right_rows
    x = (x0 + gx0) / 2 if where == "pit-left" else (gx1 + x1) / 2
    return np.array([x, gy0 + min(rows) * s + 15 + index * step, 0.0])


def draw_position(ax, board: Board, view: dict, turn: Turn | None = None) -> None:
    """A Go Piggy Go! position (a state's JSON) on a top-view axes: piggies with their
    numbers, the tractor turned to this turn's shot, the shot as a red arrow."""
    draw_board(ax, board, labels=False)
    yaw = 0.0
    if turn and turn.shot and turn.shot[1].startswith("r"):
        x, y = board.space_center_mm(board.parse_space(turn.shot[1]))
        yaw = math.degrees(math.atan2(-x, y))
        ax.annotate(
            "",
            xy=(x, y),
            xytext=(0, 0),
            zorder=9,
            arrowprops={"arrowstyle": "-|>", "color": _SHOT_COLOUR, "lw": 2.5},
        )
        if turn.knocked:  # a burst where the shot knocked someone out, a ring where not
            ax.plot(x, y, marker=(8, 1, 0), ms=30, color=_SHOT_COLOUR, alpha=0.35, zorder=4)
        else:
            ax.plot(
                x, y, marker="o", ms=26, mfc="none", mec=_SHOT_COLOUR, mew=2, alpha=0.6, zorder=4
            )
    draw_tractor(ax, yaw, _TRACTOR_PARTS)
    counts: dict[str, int] = {}
    for piggy, where in sorted(view["pieces"].items()):
        if where.startswith("r"):
            stack = view["stacks"][where]
            centre = np.append(board.space_center_mm(board.parse_space(where)), 0.0)
            if stack.index(piggy) == 1:
                centre = centre + _STACK_OFFSET
        else:
            centre = _place(board, where, counts.get(where, 0))
            counts[where] = counts.get(where, 0) + 1
        knocked = turn is not None and piggy in turn.knocked
        draw_footprint(
            ax,
            [transform(p * 0.8, centre, np.eye(3)) for p in _PIGGY_PARTS],
            piggy,
            edge=_SHOT_COLOUR if knocked else "black",
            zorder=7 if knocked else 6,
        )
        ax.text(
            centre[0],
            centre[1] - 2,
            piggy.split("-")[1],
            ha="center",
            va="center",
            fontsize=8,
            weight="bold",
            color="white",
            zorder=8,
            path_effects=[effects.withStroke(linewidth=2, foreground="black")],
        )


def _draw_die(ax, face: str | None, colour: str) -> None:
    """The turn's die roll, as a die, on a side panel (axes units 0..1)."""
    w = 0.3
    h = w * ax.bbox.width / ax.bbox.height
    x, y = 0.04, 0.97 - h
    ax.add_patch(
        FancyBboxPatch(
            (x, y), w, h, boxstyle="round,pad=0,rounding_size=0.04", fc="white", ec=colour, lw=2.5
        )
    )
    if face is None:
        return
    if face.isdigit():
        for px, py in _PIPS[int(face)]:
            ax.plot(x + px * w, y + py * h, "o", color="black", ms=6)
    else:
        ax.text(
            x + w / 2,
            y + h / 2,
            face.upper(),
            ha="center",
            va="center",
            fontsize=7,
            weight="bold",
            color=_SHOT_COLOUR,
        )


def _side_panel(ax, view: dict, turn: Turn | None, players: list[str] | None) -> None:
    ax.axis("off")
    seat = turn.seat if turn and turn.seat is not None else view["player"]
    colour = PIGGY_COLOURS[COLOURS[seat]]
    _draw_die(ax, turn.die if turn else None, colour)
    if turn and turn.die:
        ax.text(0.4, 0.9, f"{COLOURS[seat]}\nrolled {turn.die}", fontsize=10, va="center")
    y = 0.7
    ax.text(0.02, y, "seats", fontsize=10, weight="bold")
    trough = {
        c: sum(w == "trough" and p.startswith(c) for p, w in view["pieces"].items())
        for c in COLOURS
    }
    for k in range(view["params"]["players"]):
        y -= 0.075
        ax.add_patch(
            Rectangle(
                (0.02, y - 0.012), 0.09, 0.045, fc=PIGGY_COLOURS[COLOURS[k]], ec="black", lw=0.5
            )
        )
        who = f" ({players[k]})" if players and k < len(players) else ""
        ax.text(
            0.15,
            y + 0.01,
            f"{COLOURS[k]}: seat {k}{who}\n{trough[COLOURS[k]]}/3 in the trough",
            fontsize=8,
            va="center",
            weight="bold" if k == seat else "normal",
        )
    ax.text(
        0.02,
        0.02,
        "white number: which piggy\nred arrow: the turn's shot\n"
        "red burst: it knocked out\nred ring: nobody out\nred outline: knocked out\n"
        "upper piggy of a stack:\n  drawn offset",
        fontsize=9,
        color="#333333",
        linespacing=1.3,
    )
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)


def _caption(view: dict, turn: Turn | None, final: str | None) -> tuple[str, str]:
    """(the turn's line, the shot's line) under the picture."""
    if turn is None:
        return "the start: every piggy in the start Mud Pit", ""
    line = f"turn {view['turn']}: {turn.action}" if final is None else final
    if not turn.shot:
        return line, ""
    target = turn.shot[0]
    if not turn.knocked:
        return line, f"fired at {target}: nobody knocked out"
    gone = ", ".join(f"{p} -> {view['pieces'][p]}" for p in turn.knocked)
    return line, f"fired at {target}: knocked out {gone}"


def position_image(
    board: Board,
    view: dict,
    turn: Turn | None = None,
    players: list[str] | None = None,
    final: str | None = None,
) -> np.ndarray:
    """One position as an RGB image (h, w, 3)."""
    fig = plt.figure(figsize=(7.2, 7.0), dpi=80)
    ax = fig.add_axes((0.01, 0.1, 0.66, 0.88))
    draw_position(ax, board, view, turn)
    ax.axis("off")
    _side_panel(fig.add_axes((0.68, 0.1, 0.31, 0.86)), view, turn, players)
    line, shot = _caption(view, turn, final)
    fig.text(0.02, 0.055, line, fontsize=11)
    fig.text(0.02, 0.015, shot, fontsize=10, color=_SHOT_COLOUR)
    # the canvas's own pixels: the same as a PNG written and read back, at half the CPU
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    image = np.asarray(canvas.buffer_rgba())[..., :3].copy()
    plt.close(fig)
    return image


def game_frames(states, board: Board, players: list[str] | None = None) -> list[np.ndarray]:
    """One image per turn of a replayed game. ``states`` yields the state after each
    action (``referee.records.replay``: one state object, changed as it goes);
    ``players``: who played each seat (bot names), for the legend, when known."""
    frames = []
    previous_turn = None
    turn = Turn()
    for state in states:
        view = json.loads(state.to_json())
        last = state.history[-1] if state.history else ""
        if last.startswith("die "):
            turn.seat, turn.die = view["player"], last[len("die ") :]
        elif last.startswith("fire "):
            target = last[len("fire ") :]
            turn.shot, turn.action = (target, view["pieces"][target]), last
        elif last.startswith("knock "):
            body = last[len("knock ") :]
            turn.knocked = [] if body == "none" else body.split(",")
        elif last:
            turn.action = last
        if view["turn"] != previous_turn or state.is_terminal():
            if previous_turn is not None or state.is_terminal():
                final = state.describe().splitlines()[-1] if state.is_terminal() else None
                frames.append(position_image(board, view, turn, players, final))
                turn = Turn()
            previous_turn = view["turn"]
    return frames


def write_game_page(frames: list[np.ndarray], path, title: str) -> Path:
    """A self-contained page with the frames and a slider (no network)."""
    images = []
    for frame in frames:
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG", optimize=True)
        images.append("data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode())
    html = (
        "<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>"
        + title
        + "</title><style>body{font:14px sans-serif;margin:12px}</style></head><body>"
        f"<h3>{title}</h3><button id='play'>Play</button> "
        f"<input id='turn' type='range' min='0' max='{len(images) - 1}' value='0' "
        "style='width:420px'> <span id='n'></span><br><img id='board'>"
        "<script>const F=" + repr(images).replace("'", '"') + ";"
        "const s=document.getElementById('turn'),img=document.getElementById('board'),"
        "n=document.getElementById('n');let t=null;"
        "function show(i){s.value=i;img.src=F[i];n.textContent=(+i+1)+' / '+F.length;}"
        "s.oninput=()=>show(s.value);document.getElementById('play').onclick=()=>{"
        "if(t){clearInterval(t);t=null;return;}t=setInterval(()=>{let i=+s.value+1;"
        "if(i>=F.length){clearInterval(t);t=null;return;}show(i);},600);};show(0);"
        "</script></body></html>"
    )
    return write_text_atomic(path, html)
