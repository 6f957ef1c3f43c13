"""What a launcher design does to the game: Go Piggy Go! tournaments played with a
design's hit map as the table resolver, and the game's figures with 95 % intervals.

A design's child-aim hit map of the whole board (``piggy design compare`` makes the
same maps and caches them) becomes a :class:`~referee.shots.TableResolver`: a shot
knocks its target out with the P measured for the space it stands on. A space out
of the design's reach is in the table with P = 0: the tractor may still fire there,
and misses. Then many games between bots, the seats rotated (referee/match.py), and
per game: its length, the tractor's use, the knock-outs, who won from which seat,
and how often the leader was knocked back.

**The leader.** At the moment of a shot each player's progress is the sum over
their three piggies of how far along each is: a piggy on row r counts r + 1, in
the trough the board's rows + 1, in a Mud Pit the first row beside that pit (0 for
the start pit), as the greedy bot measures it (referee/bots.py). The leader is the
player with the greatest progress at that moment (on a tie, every tied player). A
shot *knocks the leader back* when it knocks out a piggy of a leader, whoever fired.

**Intervals.** Games are independent. Per-game means (turns, shots, leader
knock-backs) get the normal interval mean ± 1.96·sd/√n; a proportion of games (the
first seat winning) the Wilson interval; a rate over turns or shots (shots per
turn, shots that knock out) is a ratio of two per-game sums, with the delta-method
interval of a ratio estimator over games (its turns and shots are not independent
within a game, so they are not counted as independent trials).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

import numpy as np

from models.board import Board, space_name
from models.errors import InputError
from models.stats import Z_95, wilson_interval
from referee import load_game
from referee.bots import GoPiggyGoGreedyBot, make_bot
from referee.match import tournament
from referee.shots import TableResolver


def design_maps(
    spec, board: Board, designs: list, workers, cache: Path, progress=None
) -> tuple[list[dict[str, float]], list[dict]]:
    """Each design's hit map of ``spec`` (design compare's, from its cache at ``cache``
    when there): its table (space -> P) and what it is (file, spaces, in reach,
    shots). ``progress`` counts spaces over every design."""
    from sim.studies.comparing import cached_maps

    tables, maps = [], []
    spaces = len(spec.spaces)
    for k, design in enumerate(designs):
        measured = cached_maps.design_parts(
            spec, design, workers, cache, progress and partial(_offset, progress, k * spaces)
        )
        rows = [m.row.to_dict() for m in measured]
        path = cached_maps.cached_hitmap_path(spec, design, cache)
        tables.append(table_of(board, rows, f"hit map {path}"))
        maps.append(
            {
                "file": str(path),
                "spaces": len(rows),
                "in_reach": sum(1 for r in rows if r["reachable"]),
                "shots": sum(int(r["shots"]) for r in rows),
            }
        )
    return tables, maps


def play_designs(
    designs: list, tables: list, maps: list[dict], settings: dict, progress=None
) -> list[dict]:
    """Each design's tournaments on its table (``settings``: games, seats, seed and
    the game's params, every design the same seeds): its hit map, the game's figures
    and each bot's win rate. ``progress`` counts games over every design."""
    games, seats = settings["games"], settings["seats"]
    results = []
    for k, (design, table, made) in enumerate(zip(designs, tables, maps, strict=True)):
        figures, played = play_design(
            table,
            seats,
            games,
            settings["seed"],
            settings["params"],
            on_game=progress and partial(_offset, progress, k * games),
        )
        mean_p = sum(table.values()) / len(table)
        results.append(
            {
                "design": design.name,
                "hitmap": made | {"mean_p_over_board": round(mean_p, 4)},
                **summary(figures, len(seats)),
                "win_rates": played["win_rates"],
            }
        )
    return results


def _offset(progress, offset: int, done: int, **told) -> None:
    """``progress`` of a count over every design, told one design's count (and the
    shots fired)."""
    progress(offset + done, **told)


def table_of(board: Board, rows: list[dict], source: str) -> dict[str, float]:
    """Every space of the board -> P(target knocked out) from a hit map's rows; a space
    out of reach is P = 0 (the shot misses). The map must cover the whole board."""
    by_space = {r["space"]: r for r in rows}
    missing = [space_name(s) for s in board.spaces if space_name(s) not in by_space]
    if missing:
        raise InputError(
            f"{source} does not cover {', '.join(missing[:5])}"
            f"{' ...' if len(missing) > 5 else ''}: a game may fire at any space, "
            "measure the whole board"
        )
    return {
        name: (float(r["p_target"]) if r["reachable"] and r["p_target"] is not None else 0.0)
        for name, r in by_space.items()
    }


@dataclass
class GameFigures:
    """Per game, in the order played."""

    turns: list[int] = field(default_factory=list)
    shots: list[int] = field(default_factory=list)
    tractor_rolls: list[int] = field(default_factory=list)
    knocking_shots: list[int] = field(default_factory=list)  # shots that knocked out anyone
    leader_knockbacks: list[int] = field(default_factory=list)
    #: The winner's place in the order of play (0: moved first); None: undecided.
    winner_order: list[int | None] = field(default_factory=list)

    def add(self, game, final_state) -> None:
        """Count one finished game, replaying its actions to see each shot's moment."""
        ruler = GoPiggyGoGreedyBot(game)
        state = game.new_initial_state()
        shots = rolls = knocking = knockbacks = 0
        for action in final_state.history:
            if action == "die tractor":
                rolls += 1
            elif action.startswith("fire "):
                shots += 1
            elif action.startswith("knock ") and action != "knock none":
                knocking += 1
                leaders = _leaders(game, ruler, state.observation(0)["pieces"])
                knocked = action[len("knock ") :].split(",")
                knockbacks += any(game.seat_of(p) in leaders for p in knocked)
            state.apply_known_legal(action)
        returns = final_state.returns()
        self.turns.append(final_state.turn)
        self.shots.append(shots)
        self.tractor_rolls.append(rolls)
        self.knocking_shots.append(knocking)
        self.leader_knockbacks.append(knockbacks)
        first, n = game.params["first_player"], game.num_players
        self.winner_order.append(
            (returns.index(max(returns)) - first) % n if max(returns) > 0 else None
        )


def _leaders(game, ruler: GoPiggyGoGreedyBot, pieces: dict[str, str]) -> set[int]:
    """The players furthest along (sum of their piggies' progress); all of them on a tie."""
    totals = [0.0] * game.num_players
    for piggy, where in pieces.items():
        totals[game.seat_of(piggy)] += ruler.progress(where)
    top = max(totals)
    return {seat for seat, total in enumerate(totals) if total == top}


def play_design(
    table: dict[str, float],
    seats: list[str],
    games: int,
    seed: int = 0,
    params: dict | None = None,
    on_game: Callable[[int], None] | None = None,
) -> tuple[GameFigures, dict]:
    """``games`` games of Go Piggy Go! with ``table`` as the shot resolver; the
    figures of each game and the tournament's win rates by bot."""
    game = load_game(
        "go_piggy_go",
        **{**(params or {}), "players": len(seats)},
        resolver=TableResolver(table, source="the design's hit map"),
    )
    figures = GameFigures()

    def each(index, state):
        figures.add(game, state)
        if on_game:
            on_game(index + 1)

    result = tournament(
        game, lambda name, s: make_bot(name, game, s), list(seats), games, seed=seed, on_game=each
    )
    return figures, result.to_dict()


def summary(figures: GameFigures, players: int) -> dict:
    """The figures of :func:`play_design` with 95 % intervals (see the module)."""
    n = len(figures.turns)
    undecided = sum(1 for w in figures.winner_order if w is None)
    by_order = []
    for order in range(players):
        wins = sum(1 for w in figures.winner_order if w == order)
        low, high = wilson_interval(wins, n)
        by_order.append({"value": round(wins / n, 4), "ci95": [round(low, 4), round(high, 4)]})
    return {
        "games": n,
        "game_length_turns": _mean(figures.turns),
        "tractor_shots_per_game": _mean(figures.shots),
        "tractor_shots_per_turn": _ratio(figures.shots, figures.turns),
        "tractor_rolls_fired": _ratio(figures.shots, figures.tractor_rolls, proportion=True),
        "shots_knocking_out": _ratio(figures.knocking_shots, figures.shots, proportion=True),
        "knock_outs_per_game": _mean(figures.knocking_shots),
        "leader_knocked_back_per_game": _mean(figures.leader_knockbacks),
        "knock_outs_hitting_the_leader": _ratio(
            figures.leader_knockbacks, figures.knocking_shots, proportion=True
        ),
        "first_to_move_wins": by_order[0] | {"fair_share": round(1 / players, 4)},
        "wins_by_order_of_play": by_order,
        "undecided": undecided,
    }


def _mean(values: list[int]) -> dict:
    """Mean and its normal 95 % interval over games."""
    x = np.asarray(values, float)
    mean = float(x.mean())
    half = Z_95 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else math.inf
    return {
        "value": round(mean, 4),
        "ci95": [round(max(0.0, mean - half), 4), round(mean + half, 4)],
    }


def _ratio(numerators: list[int], denominators: list[int], proportion: bool = False) -> dict:
    """Σy/Σx over games with the delta-method 95 % interval of a ratio estimator:
    var R ≈ Σ(y_i − R·x_i)² / (n·(n − 1)·x̄²), clipped to [0, 1] for a proportion.
    None when Σx = 0."""
    y, x = np.asarray(numerators, float), np.asarray(denominators, float)
    n = len(x)
    if x.sum() == 0:
        return {"value": None, "ci95": [None, None]}
    ratio = float(y.sum() / x.sum())
    if n > 1:
        half = (
            Z_95 * math.sqrt(float(np.sum((y - ratio * x) ** 2)) / (n * (n - 1))) / float(x.mean())
        )
    else:
        half = math.inf
    top = 1.0 if proportion else math.inf
    return {
        "value": round(ratio, 4),
        "ci95": [round(max(0.0, ratio - half), 4), round(min(top, ratio + half), 4)],
    }
