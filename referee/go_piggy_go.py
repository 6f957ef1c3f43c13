"""Go Piggy Go! (Mattel): the rulebook, with our rulings 1-9 where it is silent or
ambiguous; docs/rules/go-piggy-go.md says both in our words.

Actions (docs/rules/go-piggy-go.md): chance ``die 1`` ... ``die 5``, ``die tractor``; after a
shot ``knock gold-1,pink-3`` (sorted) or ``knock none``. Players ``move <piggy>
<space>``, ``move <piggy> trough``, ``fire <piggy>``, ``pass``.

A turn: the die (chance), then the player's action; a ``fire`` is followed by the
shot's outcome (chance), supplied by the game's shot resolver.
"""

from __future__ import annotations

from models.board import Space, load_board
from models.errors import InputError
from models.grid import HIT_RULES, PITS, TROUGH
from models.layout import COLOURS, PIGGIES_PER_COLOUR
from referee.api import CHANCE, TERMINAL, Game, State, winner_returns
from referee.board_steps import Steps
from referee.go_piggy_go_load import PHASE_MOVE, PHASE_OVER, PHASE_ROLL, PHASE_SHOT, load
from referee.shots import ScriptedResolver, ShotResolver
from referee.validate import (
    FLAG,
    TURN_CAP,
    Spec,
    is_whole,
    listed,
    one_of,
    quoted,
    text,
    whole,
    whole_text,
)

#: The largest die face and tractor move accepted.
MAX_STEPS = 20

# --- parameters (each ruling that reads the rulebook one way is one) -----------------
DEFAULTS = {
    "players": 2,  # 2-4, seats in colour order green, gold, pink, blue
    "board": "stock",  # a board name or path (ruling 2)
    "die_faces": "1,2,3,4,5,tractor",  # ruling 1
    "tractor_move": 2,  # the tractor face's move (ruling 6)
    "diagonal_fences": "block",  # ruling 3: a fence touching the corner blocks a
    # diagonal step ("block"), or fences never do ("allow")
    "checkpoints_stick": True,  # ruling 8: once passed, a checkpoint stays passed;
    # False: judged by the row the piggy is on when hit
    "first_player": 0,  # ruling 9: seat 0 ("youngest") starts
    "hit_rule": "touches-line",  # ruling 7, for the physical shot resolver
    "max_turns": 2000,  # our addition: a game this long ends undecided
}


def _is_face(item: str) -> bool:
    return item == "tractor" or 1 <= (whole_text(item) or 0) <= MAX_STEPS


SPECS = {
    "players": Spec("2, 3 or 4", lambda v: is_whole(v) and 2 <= v <= 4),
    "board": text(4096),
    "die_faces": listed(_is_face, f"1,2,3,4,5,tractor (numbers 1-{MAX_STEPS} or tractor)"),
    "tractor_move": whole(0, MAX_STEPS),
    "diagonal_fences": one_of("block", "allow"),
    "checkpoints_stick": FLAG,
    "first_player": whole(0, 3),  # and a seat of the game: checked with 'players'
    "hit_rule": one_of(*HIT_RULES),
    "max_turns": TURN_CAP,
}


class GoPiggyGoGame(Game):
    """Go Piggy Go! with its parameters; ``resolver`` decides what shots knock out
    (default: a :class:`~referee.shots.ScriptedResolver` that hits half the time)."""

    name = "go_piggy_go"
    defaults = DEFAULTS
    specs = SPECS

    def __init__(self, resolver: ShotResolver | None = None, **params):
        super().__init__(**params)
        p = self.params
        faces = [f.strip() for f in str(p["die_faces"]).split(",") if f.strip()]
        if len(set(faces)) != len(faces):
            raise InputError(
                f"go_piggy_go: parameter 'die_faces' must list distinct faces, "
                f"got {quoted(p['die_faces'])}"
            )
        if all(f == "tractor" for f in faces) and p["tractor_move"] == 0:
            raise InputError(
                "go_piggy_go: no face of the die moves a piggy (die_faces "
                f"{quoted(p['die_faces'])} with tractor_move 0): the game could "
                "never end; give a number face or a tractor_move of 1 or more"
            )
        if p["first_player"] >= p["players"]:
            raise InputError(
                f"go_piggy_go: parameter 'first_player' must be a seat "
                f"0-{p['players'] - 1}, got {p['first_player']}"
            )
        if resolver is not None and not callable(getattr(resolver, "outcomes", None)):
            raise InputError(
                f"go_piggy_go: 'resolver' must be a shot resolver (an object with "
                f"an outcomes(...) method), got {quoted(resolver)}"
            )
        self.faces = faces
        self.board = load_board(p["board"])
        self.geometry = Steps.of(self.board, p["diagonal_fences"] == "allow")
        self.resolver = resolver or ScriptedResolver()
        if hasattr(self.resolver, "check_board"):
            self.resolver.check_board(self.board)  # e.g. a hit map made for another board
        self.seats = [COLOURS[s] for s in range(p["players"])]

    @property
    def num_players(self) -> int:
        return self.params["players"]

    def piggies_of(self, seat: int) -> list[str]:
        return [f"{self.seats[seat]}-{n}" for n in range(1, PIGGIES_PER_COLOUR + 1)]

    def seat_of(self, piggy: str) -> int:
        return COLOURS.index(piggy.split("-")[0])

    def new_initial_state(self) -> GoPiggyGoState:
        return GoPiggyGoState(self)


class GoPiggyGoState(State):
    """A Go Piggy Go! position."""

    game: GoPiggyGoGame  # the concrete game, with its board, dice and seats

    def __init__(self, game: GoPiggyGoGame):
        super().__init__(game)
        self.place: dict[str, Space | str] = {
            p: "pit" for seat in range(game.num_players) for p in game.piggies_of(seat)
        }
        self.stacks: dict[Space, list[str]] = {}
        self.passed: dict[str, int] = dict.fromkeys(self.place, 0)
        self.phase = PHASE_ROLL
        self.player = game.params["first_player"]
        self.die: str | None = None
        self.target: str | None = None
        self.turn = 0
        self.shots_fired = 0
        self.winner: int | None = None
        self.capped = False
        self._shot_outcomes: list[tuple[str, float]] | None = None

    # --- whose turn ----------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == PHASE_OVER:
            return TERMINAL
        if self.phase in (PHASE_ROLL, PHASE_SHOT):
            return CHANCE
        return self.player

    def returns(self) -> list[float]:
        return winner_returns(self.winner, self.game.num_players)

    # --- chance ------------------------------------------------------------------------
    def _chance_outcomes(self) -> list[tuple[str, float]]:
        if self.phase == PHASE_ROLL:
            faces = self.game.faces
            return [(f"die {face}", 1.0 / len(faces)) for face in faces]
        if self._shot_outcomes is None:
            if self.target is None:
                raise ValueError("go_piggy_go: a shot's outcomes asked for with no target")
            game = self.game
            raw = game.resolver.outcomes(
                game.board, self.layout_stacks(), self.player, self.target, self.shots_fired
            )
            merged: dict[str, float] = {}
            for knocked, probability in raw:
                key = _knock_string(knocked)
                merged[key] = merged.get(key, 0.0) + probability
            self._shot_outcomes = sorted(merged.items())
        return self._shot_outcomes

    def _is_legal_chance_outcome(self, action: str) -> bool:
        if self.phase != PHASE_SHOT:
            return super()._is_legal_chance_outcome(action)
        # A record may hold any outcome the physics produced: any set of piggies on the
        # board, written sorted.
        if not action.startswith("knock "):
            return False
        body = action[len("knock ") :]
        if body == "none":
            return True
        names = body.split(",")
        return names == sorted(set(names)) and all(
            isinstance(self.place.get(p), tuple) for p in names
        )

    # --- player actions ------------------------------------------------------------------
    def _legal_actions(self) -> list[str]:
        game = self.game
        geometry = game.geometry
        die = self.die
        if die is None:
            raise ValueError("go_piggy_go: legal moves asked for before the die is rolled")
        steps = game.params["tractor_move"] if die == "tractor" else int(die)
        actions = ["pass"]
        for piggy in game.piggies_of(self.player):
            where = self.place[piggy]
            if where == TROUGH:
                continue
            carrying = False
            if isinstance(where, tuple):
                stack = self.stacks[where]
                carrying = len(stack) == 2 and stack[0] == piggy
            spaces, trough = geometry.reachable(where, steps)
            for space in spaces:
                occupants = self.stacks.get(space)
                if not occupants or (len(occupants) == 1 and not carrying):
                    actions.append(f"move {piggy} {geometry.names[space]}")
            if trough:
                actions.append(f"move {piggy} trough")
        if die == "tractor":
            actions.extend(
                f"fire {p}" for p, where in self.place.items() if isinstance(where, tuple)
            )
        actions.sort()
        return actions

    # --- applying -------------------------------------------------------------------------
    def _apply(self, action: str) -> None:
        if self.phase == PHASE_ROLL:
            self.die = action[len("die ") :]
            self.phase = PHASE_MOVE
        elif self.phase == PHASE_SHOT:
            body = action[len("knock ") :]
            self._knock_out([] if body == "none" else body.split(","))
            self.shots_fired += 1
            self._shot_outcomes = None
            self.target = None
            self._next_turn()
        elif action == "pass":
            self._next_turn()
        elif action.startswith("fire "):
            self.target = action[len("fire ") :]
            self.phase = PHASE_SHOT
        else:
            _, piggy, destination = action.split(" ")
            self._move(piggy, destination)
            if self.phase != PHASE_OVER:
                self._next_turn()

    def _move(self, piggy: str, destination: str) -> None:
        where = self.place[piggy]
        unit = [piggy]
        if isinstance(where, tuple):
            stack = self.stacks[where]
            unit = stack[stack.index(piggy) :]  # the bottom carries the top
            del stack[stack.index(piggy) :]
            if not stack:
                del self.stacks[where]
        if destination == TROUGH:
            for p in unit:
                self.place[p] = TROUGH
        else:
            space = self.game.geometry.by_name[destination]
            self.stacks.setdefault(space, []).extend(unit)
            passed = self.game.board.checkpoints_passed(space)
            for p in unit:
                self.place[p] = space
                self.passed[p] = max(self.passed[p], passed)
        self._check_winner(first=self.player)

    def _check_winner(self, first: int) -> None:
        """The first player, from ``first`` in seat order, with all 3 in the trough wins."""
        n = self.game.num_players
        for k in range(n):
            seat = (first + k) % n
            if all(self.place[p] == TROUGH for p in self.game.piggies_of(seat)):
                self.winner = seat
                self.phase = PHASE_OVER
                return

    def _knock_out(self, piggies: list[str]) -> None:
        board = self.game.board
        for piggy in piggies:
            space = self.place[piggy]
            if not isinstance(space, tuple):
                raise ValueError(
                    f"go_piggy_go: {piggy} knocked out from the {space}, not "
                    "from a space of the board"
                )
            stack = self.stacks[space]
            stack.remove(piggy)  # a top piggy left alone stays on the space (ruling 8)
            if not stack:
                del self.stacks[space]
            passed = (
                self.passed[piggy]
                if self.game.params["checkpoints_stick"]
                else board.checkpoints_passed(space)
            )
            self.place[piggy] = "pit-left" if passed >= 2 else "pit-right" if passed else "pit"

    def _next_turn(self) -> None:
        self.turn += 1
        self.die = None
        if self.turn >= self.game.params["max_turns"]:
            self.phase, self.capped = PHASE_OVER, True
            return
        self.player = (self.player + 1) % self.game.num_players
        self.phase = PHASE_ROLL

    # --- views -----------------------------------------------------------------------------
    def layout_stacks(self) -> dict[str, list[str]]:
        """The board's stacks in the layout-file shape (space name -> bottom first)."""
        names = self.game.geometry.names
        return {names[s]: list(self.stacks[s]) for s in sorted(self.stacks)}

    def _to_dict(self) -> dict:
        names = self.game.geometry.names
        return {
            "pieces": {p: names[w] if isinstance(w, tuple) else w for p, w in self.place.items()},
            "stacks": self.layout_stacks(),
            "passed_checkpoints": dict(self.passed),
            "phase": self.phase,
            "player": self.player,
            "die": self.die,
            "target": self.target,
            "turn": self.turn,
            "shots_fired": self.shots_fired,
            "winner": self.winner,
            "capped": self.capped,
        }

    def _load(self, data: dict) -> None:
        load(self, data)

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        """The board as text, with whose turn it is."""
        lines = [self.game.board.text_map(self.layout_stacks())]
        places: dict[str, list[str]] = {}
        for piggy, where in sorted(self.place.items()):
            if isinstance(where, str):
                places.setdefault(where, []).append(piggy)
        for where in (*PITS, TROUGH):
            if where in places:
                lines.append(f"{where:10s} {', '.join(places[where])}")
        if self.phase == PHASE_OVER:
            lines.append(
                "Game over: "
                + (
                    f"{self.game.seats[self.winner]} (seat {self.winner}) wins"
                    if self.winner is not None
                    else f"no winner after {self.turn} turns"
                )
            )
        else:
            seat = self.player
            lines.append(
                f"Turn {self.turn + 1}: {self.game.seats[seat]} (seat {seat})"
                + (f", rolled {self.die}" if self.die else "")
                + (f", firing at {self.target}" if self.target else "")
            )
        return "\n".join(lines)


def tractor_use(history: list[str]) -> tuple[int, int]:
    """A game's tractor shots (its ``fire`` actions) and, of them, those that knocked
    a piggy out (a ``knock`` other than ``knock none``)."""
    fired = sum(a.startswith("fire ") for a in history)
    knocks = sum(a.startswith("knock ") and a != "knock none" for a in history)
    return fired, knocks


def _knock_string(knocked) -> str:
    return "knock " + (",".join(sorted(knocked)) if knocked else "none")
