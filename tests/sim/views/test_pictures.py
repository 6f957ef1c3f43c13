"""The still pictures: a shot's PNG, the hit map, the replay of a game."""

import itertools

import numpy as np
import pytest
from matplotlib.patches import Polygon, Rectangle
from matplotlib.text import Text

from models.layout import layout_from_dict
from sim.physics import shoot
from sim.physics.bullet.world import BulletWorld
from sim.physics.geometry import PiggyModel
from sim.physics.launch import AimedShot
from sim.studies import demo
from sim.views import hitmap_picture, pictures, shot_picture


@pytest.fixture(scope="module")
def demo_figure(board, design):
    """The demo's shot and its picture, with where its piggies stood as drawn."""
    layout = layout_from_dict(demo.DEMO_LAYOUT, board=board, source="demo layout")
    with BulletWorld(board, design, layout) as world:
        aim = shoot.solve_aim(world, demo.DEMO_TARGET)
        result = shoot.fire(world, AimedShot(aim.yaw_deg, aim.pitch_deg, 0))
    # drawn once the simulation is gone: the result and the board are all it needs
    figure = shot_picture.shot_figure(board, design, result)
    starts, _ = shot_picture._footprints(PiggyModel.for_design(design), result)
    figure.canvas.draw()
    yield result, figure, starts
    import matplotlib.pyplot as plt

    plt.close(figure)


def extents(texts, renderer):
    return [t.get_window_extent(renderer) for t in texts]


def test_the_shot_pictures_labels_never_overlap(demo_figure):
    result, figure, _ = demo_figure
    renderer = figure.canvas.get_renderer()
    _, close, section = figure.axes
    for ax in (close, section):
        placed = [t for t in ax.texts if t.get_bbox_patch() is not None]
        numbers = [t.get_text() for t in placed if t.get_text().isdigit()]
        assert numbers == [str(n) for n in range(1, len(result.contacts) + 1)]
        boxes = extents(placed, renderer)
        assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))


def test_the_legend_covers_no_view(demo_figure):
    _, figure, _ = demo_figure
    renderer = figure.canvas.get_renderer()
    legend = figure.legends[0].get_window_extent(renderer)
    # the axes with their tick labels and titles
    assert not any(legend.overlaps(ax.get_tightbbox(renderer)) for ax in figure.axes)


@pytest.mark.slow
def test_space_labels_are_readable(demo_figure, board):
    _, figure, _ = demo_figure
    names = [
        t for t in figure.axes[0].texts if t.get_text().startswith("r") and "c" in t.get_text()
    ]
    assert len(names) == len(board.spaces) and min(t.get_fontsize() for t in names) >= 6


def test_both_piggies_of_a_stack_show_from_above(demo_figure):
    _, _, starts = demo_figure
    bottom, top = starts["gold-2"][1], starts["pink-1"][1]  # the demo's stack on r8c3
    assert np.hypot(*(top - bottom)[:2]) >= 0.9 * np.hypot(*shot_picture.STACK_OFFSET_MM)


def test_the_section_shows_the_tractor_the_fence_and_the_stack(demo_figure):
    _, figure, _ = demo_figure
    section = figure.axes[2]
    colours = {
        tuple(np.round(p.get_facecolor()[:3], 2)) for p in section.patches if isinstance(p, Polygon)
    }

    def rgb(hex_colour):
        return tuple(np.round([int(hex_colour[i : i + 2], 16) / 255 for i in (1, 3, 5)], 2))

    for colour in ("gold", "pink", "blue"):
        assert rgb(pictures.PIGGY_COLOURS[colour]) in colours, colour
    assert rgb("#707070") in colours  # the tractor
    # the fence between r7c3 and r8c3 crosses the aim between the tractor and the stack
    fences = [
        p
        for p in section.patches
        if isinstance(p, Rectangle)
        and p.get_facecolor()[:3] == pytest.approx(rgb(pictures.FENCE_COLOUR), abs=0.01)
    ]
    assert any(130 < f.get_x() < 145 and f.get_height() == pytest.approx(22.0) for f in fences)


# --- the hit map -------------------------------------------------------------------------------
def row(space, hits, shots=6, reachable=True, blocked=0, missed=0):
    from models.stats import wilson_interval
    from sim.studies.shots.dead_zones import dead_zone

    out = {"space": space, "reachable": reachable, "shots": shots if reachable else 0}
    for key, k in (("p_target", hits), ("p_blocked", blocked), ("p_missed", missed)):
        low, high = wilson_interval(k, shots)
        out.update(
            {
                key: k / shots if reachable else None,
                f"{key}_ci_low": low if reachable else None,
                f"{key}_ci_high": high if reachable else None,
            }
        )
    out["dead_zone"] = dead_zone(out)
    return out


def test_a_fence_behind_a_space_is_found_from_the_board(board):
    # r7c3 lies straight ahead of the tractor with the r7c3|r8c3 fence on its far side,
    # r2c3 straight behind it with the r1c3|r2c3 fence on its far side; r8c3 and r1c3
    # are just beyond those fences, with nothing behind them
    assert hitmap_picture.fence_behind(board, (7, 3))
    assert hitmap_picture.fence_behind(board, (2, 3))
    assert not hitmap_picture.fence_behind(board, (8, 3))
    assert not hitmap_picture.fence_behind(board, (1, 3))
    # r3c1 lies exactly diagonal from the tractor: a shot pushes it toward a corner
    assert not hitmap_picture.fence_behind(board, (3, 1))


def test_the_hit_map_explains_its_low_spaces(board):
    rows = [
        row("r7c3", 0),
        row("r8c3", 6),
        row("r9c5", 0, reachable=False),
        row("r10c3", 1, blocked=5),
        row("r1c1", 0),
        row("r9c2", 62, shots=100),
        row("r2c3", 97, shots=100),
        row("r0c5", 0, shots=60, missed=50),
        row("r4c5", 0, shots=60),
    ]
    assert hitmap_picture.marks(board, rows[0]) == ["fence"]
    assert hitmap_picture.marks(board, rows[5]) == ["fence"]  # held back in a third
    assert hitmap_picture.marks(board, rows[6]) == []  # as often as an open space
    assert hitmap_picture.marks(board, rows[3]) == []  # 5 of 6 blocked: too few to say "most"
    assert hitmap_picture.marks(board, rows[4]) == []  # low, but nothing known explains it
    assert hitmap_picture.marks(board, rows[7]) == ["missed"]
    assert hitmap_picture.marks(board, rows[8]) == ["never_out"]  # 0 of 60: surely rare
    rows[3] = row("r10c3", 1, shots=40, blocked=35)
    assert hitmap_picture.marks(board, rows[3]) == ["blocked"]
    figure = hitmap_picture.heatmap_figure(board, rows, "test", interval="Wilson")
    ax = figure.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert {"0%", "100%", "0-39", "61-100", "no aim", "F", "B", "M", "0"} <= set(texts)
    legend = figure.legends[0]
    labels = [t.get_text() for t in legend.get_texts()]
    for start in ("held by a fence", "blocked", "missed", "never out", "out of reach"):
        assert any(t.startswith(start) for t in labels), start
    # each mark's legend entry is drawn as the letter the map shows, not a blob
    letters = [a.get_text() for a in legend.findobj(Text) if a not in legend.get_texts()]
    assert {"F", "B", "M", "0"} <= set(letters)
    # a map with every space in reach and none marked lists neither
    handles, handlers = hitmap_picture.legend_handles(board, [rows[1], rows[6]], "Wilson")
    assert handlers == {} and not any(h.get_label().startswith("out of reach") for h in handles)
    # the fences and checkpoints are drawn over the colours
    colours = [
        p.get_zorder() for p in ax.patches if isinstance(p, Rectangle) and p.get_zorder() == 2
    ]
    lines = [line.get_zorder() for line in ax.lines]
    assert colours and min(lines) > max(colours)
    import matplotlib.pyplot as plt

    plt.close(figure)


# --- game replays -------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_replay_shows_the_shots_the_die_and_the_seats(board):
    import referee
    from referee.bots import make_bot
    from referee.match import play
    from referee.records import replay
    from sim.views.game_pictures import game_frames

    game = referee.load_game("go_piggy_go", players=2)
    final = play(game, [make_bot("greedy", game, 1), make_bot("random", game, 2)], seed=3)
    frames = game_frames(
        replay("go_piggy_go", game.params, final.history), game.board, ["greedy", "random"]
    )
    turns, current = [], []
    for action in final.history:
        current.append(action)
        if not action.startswith(("die", "fire", "knock")) or action.startswith("knock"):
            turns.append(current)
            current = []
    shots = [k for k, t in enumerate(turns) if any(a.startswith("fire") for a in t)]
    quiet = [k for k, t in enumerate(turns) if not any(a.startswith("fire") for a in t)]
    assert shots and quiet and len(turns) == len(frames)

    def red(frame):  # the shot's arrow, burst, outline and caption (left of the side panel)
        board = frame[:, : int(0.67 * frame.shape[1])]
        return int(((board[..., 0] > 170) & (board[..., 1] < 40) & (board[..., 2] < 40)).sum())

    assert min(red(frames[k]) for k in shots) > 200
    assert max(red(frames[k]) for k in quiet) < 50
    # the legend on the right shows each seat's colour
    panel = frames[0][:, int(0.68 * frames[0].shape[1]) :]
    for colour in ("green", "gold"):
        rgb = np.array([int(pictures.PIGGY_COLOURS[colour][i : i + 2], 16) for i in (1, 3, 5)])
        assert (np.abs(panel.astype(int) - rgb).sum(axis=2) < 30).sum() > 100, colour


def test_the_section_draws_a_strike_off_the_board_on_the_table(board, design):
    """Fired over the trough's edge, the bale ends on the table: the section's board
    ends at the board's edge, the table lies past it, and the last strike sits on
    the table, past the board."""
    import matplotlib.pyplot as plt

    from sim.views.shot_section import TABLE_COLOUR, along_aim, draw_section

    with BulletWorld(board, design, layout_from_dict({"stacks": {}}, board=board)) as world:
        result = shoot.fire(world, AimedShot(10.0, 5.0, 0))
    assert result.contacts[-1] == "table"
    figure, ax = plt.subplots()
    draw_section(ax, board, design, result)
    colour = {"board": pictures.BOARD_COLOUR, "table": TABLE_COLOUR}
    bands = {
        what: [p for p in ax.patches if isinstance(p, Rectangle) and p.get_facecolor()[:3] == rgb]
        for what, rgb in ((w, matplotlib_rgb(c)) for w, c in colour.items())
    }
    board_end = max(p.get_x() + p.get_width() for p in bands["board"])
    table_start = min(p.get_x() for p in bands["table"] if p.get_x() > 0)
    assert board_end == pytest.approx(table_start)
    last = float(np.dot(result.contact_points_mm[-1][:2], along_aim(result)))
    assert last > board_end  # on the table, past the board's edge
    plt.close(figure)


def matplotlib_rgb(colour: str) -> tuple[float, float, float]:
    from matplotlib.colors import to_rgb

    return to_rgb(colour)
