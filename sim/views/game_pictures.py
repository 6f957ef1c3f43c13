"""Pictures of Go Piggy Go! games: the board from above after each turn, piggies
in their colours (stacks, pits, trough), each tractor shot drawn — as an animated
GIF or a self-contained HTML page with a slider.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from PIL import Image

from models.board import Board
from models.files import write_text_atomic
from models.meshes import load_parts
from sim.physics.knockout import transform
from sim.views.pictures import draw_board, draw_footprint

_PIGGY_PARTS = [m.vertices for m in load_parts("piggy").values()]
#: How far the top piggy of a stack is drawn from the bottom one, mm.
_STACK_OFFSET = np.array([7.0, -7.0, 0.0])


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


def draw_position(ax, board: Board, view: dict, shot: tuple[str, str] | None = None) -> None:
    """A Go Piggy Go! position (a state's JSON) on a top-view axes.

    ``shot``: ``(target, its space when fired at, outcome)`` of a shot fired this
    turn, drawn as an arrow from the tractor.
    """
    draw_board(ax, board, labels=False)
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
        draw_footprint(ax, [transform(p * 0.8, centre, np.eye(3)) for p in _PIGGY_PARTS], piggy)
    if shot:
        target, where, outcome = shot
        if where.startswith("r"):
            x, y = board.space_center_mm(board.parse_space(where))
            ax.annotate("", xy=(x, y), xytext=(0, 0),
                        arrowprops={"arrowstyle": "->", "color": "#c00000", "lw": 2.5}, zorder=9)
        ax.set_title(f"fire {target} -> {outcome}", color="#c00000", fontsize=11)


def position_image(board: Board, view: dict, caption: str, shot=None) -> np.ndarray:
    """One position as an RGB image (h, w, 3)."""
    fig = plt.figure(figsize=(5.2, 7.0), dpi=80)
    ax = fig.add_axes((0.02, 0.06, 0.96, 0.88))
    draw_position(ax, board, view, shot)
    ax.axis("off")
    fig.text(0.5, 0.02, caption, ha="center", fontsize=10)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=80)
    plt.close(fig)
    return np.asarray(Image.open(buffer).convert("RGB"))


def game_frames(states, board: Board) -> list[np.ndarray]:
    """One image per turn of a replayed game. ``states`` yields the state after each
    action (``referee.records.replay``: one state object, changed as it goes)."""
    import json

    frames = []
    previous_turn = None
    shot = aimed = None
    for state in states:
        view = json.loads(state.to_json())
        last = state.history[-1] if state.history else ""
        if last.startswith("fire "):
            aimed = (last[len("fire "):], view["pieces"][last[len("fire "):]])
        elif last.startswith("knock ") and aimed:
            shot = (*aimed, last)
        if view["turn"] != previous_turn or state.is_terminal():
            if previous_turn is not None or state.is_terminal():
                caption = (state.describe().splitlines()[-1] if state.is_terminal() else
                           f"after turn {view['turn']}: {_last_player_action(state)}")
                frames.append(position_image(board, view, caption, shot))
                shot = None
            previous_turn = view["turn"]
    return frames


def _last_player_action(state) -> str:
    for action in reversed(state.history):
        if not action.startswith(("die ", "knock ")):
            return action
    return ""


def write_game_page(frames: list[np.ndarray], path, title: str) -> Path:
    """A self-contained page with the frames and a slider (no network)."""
    images = []
    for frame in frames:
        buffer = io.BytesIO()
        Image.fromarray(frame).save(buffer, format="PNG", optimize=True)
        images.append("data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode())
    html = ("<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>" + title +
            "</title><style>body{font:14px sans-serif;margin:12px}</style></head><body>"
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
            "</script></body></html>")
    return write_text_atomic(path, html)
