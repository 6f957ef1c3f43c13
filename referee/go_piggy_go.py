"""Go Piggy Go! (Mattel): the rulebook, with our rulings 1-9 where it is silent or
ambiguous; docs/rules/go-piggy-go.md says both in our words.

Actions (docs/rules/go-piggy-go.md): chance ``die 1`` ... ``die 5``, ``die tractor``; after a
shot ``knock gold-1,pink-3`` (sorted) or ``knock none``. Players ``move <piggy>
<space>``, ``move <piggy> trough``, ``fire <piggy>``, ``pass``.

A turn: the die (chance), then the player's action; a ``fire`` is followed by the
shot's outcome (chance), supplied by the game's shot resolver.
"""

from __future__ import annotations

from functools import lru_cache

from models.board import DIRECTIONS, Board, Space, load_board, space_name
from models.errors import InputError
from models.layout import COLOURS, PIGGIES_PER_COLOUR, check_piggy
from referee.api import CHANCE, TERMINAL, Game, State, winner_returns
from referee.shots import ScriptedResolver, ShotResolver

# --- parameters (each ruling that reads the rulebook one way is one) -----------------
DEFAULTS = {
    "players": 2,                      # 2-4, seats in colour order green, gold, pink, blue
    "board": "stock",                  # a board name or path (ruling 2)
    "die_faces": "1,2,3,4,5,tractor",  # ruling 1
    "tractor_move": 2,                 # the tractor face's move (ruling 6)
    "diagonal_fences": "block",        # ruling 3: a fence touching the corner blocks a
                                       # diagonal step ("block"), or fences never do ("allow")
    "checkpoints_stick": True,         # ruling 8: once passed, a checkpoint stays passed;
                                       # False: judged by the row the piggy is on when hit
    "first_player": 0,                 # ruling 9: seat 0 ("youngest") starts
    "hit_rule": "touches-line",        # ruling 7, for the physical shot resolver
    "max_turns": 2000,                 # our addition: a game this long ends undecided
}

PITS = ("pit", "pit-left", "pit-right")
TROUGH = "trough"
_PHASE_ROLL, _PHASE_MOVE, _PHASE_SHOT, _PHASE_OVER = "roll", "move", "shot", "over"


class GoPiggyGoGame(Game):
    """Go Piggy Go! with its parameters; ``resolver`` decides what shots knock out
    (default: a :class:`~referee.shots.ScriptedResolver` that hits half the time)."""

    name = "go_piggy_go"
    defaults = DEFAULTS

    def __init__(self, resolver: ShotResolver | None = None, **params):
        super().__init__(**params)
        p = self.params
        players = p["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise InputError(f"go_piggy_go: 'players' must be 2, 3 or 4, got {players!r}")
        faces = [f.strip() for f in str(p["die_faces"]).split(",") if f.strip()]
        for face in faces:
            if face != "tractor" and not (face.isdigit() and 1 <= int(face) <= 20):
                raise InputError(f"go_piggy_go: die face '{face}' must be a number 1-20 "
                                 "or 'tractor'")
        if not faces or len(set(faces)) != len(faces):
            raise InputError("go_piggy_go: 'die_faces' must list distinct faces, "
                             "e.g. 1,2,3,4,5,tractor")
        if p["diagonal_fences"] not in ("block", "allow"):
            raise InputError("go_piggy_go: 'diagonal_fences' must be block or allow")
        if not (isinstance(p["first_player"], int) and 0 <= p["first_player"] < players):
            raise InputError(f"go_piggy_go: 'first_player' must be a seat 0-{players - 1}")
        if not (isinstance(p["tractor_move"], int) and 0 <= p["tractor_move"] <= 20):
            raise InputError("go_piggy_go: 'tractor_move' must be a whole number 0-20")
        if not (isinstance(p["max_turns"], int) and p["max_turns"] >= 1):
            raise InputError("go_piggy_go: 'max_turns' must be a positive whole number")
        self.faces = faces
        self.board = load_board(p["board"])
        self.geometry = _Geometry.of(self.board, p["diagonal_fences"] == "allow")
        self.resolver = resolver or ScriptedResolver()
        self.seats = [COLOURS[s] for s in range(players)]

    @property
    def num_players(self) -> int:
        return self.params["players"]

    def piggies_of(self, seat: int) -> list[str]:
        return [f"{self.seats[seat]}-{n}" for n in range(1, PIGGIES_PER_COLOUR + 1)]

    def seat_of(self, piggy: str) -> int:
        return COLOURS.index(piggy.split("-")[0])

    def new_initial_state(self) -> GoPiggyGoState:
        return GoPiggyGoState(self)


class _Geometry:
    """Where a piggy may step on a board: precomputed once per board (ruling 3)."""

    def __init__(self, board: Board, diagonals_ignore_fences: bool):
        self.board = board
        self.steps: dict[Space, tuple[Space, ...]] = {
            s: self._steps_from(s, diagonals_ignore_fences) for s in board.spaces}
        rows, cols = board.rows, board.cols
        self.entries = {
            "pit": tuple(s for s in ((0, c) for c in range(cols)) if board.is_space(s)),
            "pit-left": tuple(s for s in ((r, 0) for r in board.pit_left_rows)
                              if board.is_space(s)),
            "pit-right": tuple(s for s in ((r, cols - 1) for r in board.pit_right_rows)
                               if board.is_space(s)),
        }
        self.last_row = frozenset(s for s in board.spaces if s[0] == rows - 1)
        self.names = {s: space_name(s) for s in board.spaces}
        self.by_name = {name: s for s, name in self.names.items()}
        self.reachable = lru_cache(maxsize=None)(self._reachable)

    @classmethod
    @lru_cache(maxsize=16)
    def of(cls, board: Board, diagonals_ignore_fences: bool) -> _Geometry:
        return cls(board, diagonals_ignore_fences)

    def _steps_from(self, s: Space, diagonals_ignore_fences: bool) -> tuple[Space, ...]:
        board = self.board
        fr, fc = DIRECTIONS[board.forward.get(s, "up")]
        sides = ((fc, fr), (-fc, -fr))
        out = []
        for dr, dc in ((fr, fc), *sides, *((fr + a, fc + b) for a, b in sides)):
            t = (s[0] + dr, s[1] + dc)
            if not board.is_space(t):
                continue
            if dr == 0 or dc == 0:
                if board.fence_between(s, t):
                    continue
            elif not diagonals_ignore_fences:
                a, b = (s[0] + dr, s[1]), (s[0], s[1] + dc)  # the two cells beside the corner
                edges = ((s, a), (s, b), (a, t), (b, t))
                if any(board.fence_between(x, y) for x, y in edges):
                    continue
            out.append(t)
        return tuple(sorted(out))

    def _reachable(self, start: Space | str, n: int) -> tuple[tuple[Space, ...], bool]:
        """Spaces a path of 1..n steps from ``start`` (a space or a pit) can end on,
        and whether the trough can be reached.

        Paths may not revisit a space; that does not change what is reachable, since
        cutting a loop out of a walk leaves a shorter legal path to the same end.
        """
        if n <= 0:
            return (), False
        if isinstance(start, str):
            frontier, dist = set(self.entries[start]), 1
        else:
            frontier, dist = set(self.steps[start]), 1
        seen = {start} if not isinstance(start, str) else set()
        reached: set[Space] = set()
        trough = False
        while frontier and dist <= n:
            reached |= frontier - seen
            if dist < n and frontier & self.last_row:
                trough = True
            seen |= frontier
            frontier = {t for s in frontier for t in self.steps[s]} - seen
            dist += 1
        reached.discard(start)
        if start in self.last_row:
            trough = True
        return tuple(sorted(reached)), trough


class GoPiggyGoState(State):
    """A Go Piggy Go! position."""

    def __init__(self, game: GoPiggyGoGame):
        super().__init__(game)
        self.place: dict[str, Space | str] = {
            p: "pit" for seat in range(game.num_players) for p in game.piggies_of(seat)}
        self.stacks: dict[Space, list[str]] = {}
        self.passed: dict[str, int] = dict.fromkeys(self.place, 0)
        self.phase = _PHASE_ROLL
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
        if self.phase == _PHASE_OVER:
            return TERMINAL
        if self.phase in (_PHASE_ROLL, _PHASE_SHOT):
            return CHANCE
        return self.player

    def returns(self) -> list[float]:
        return winner_returns(self.winner, self.game.num_players)

    # --- chance ------------------------------------------------------------------------
    def _chance_outcomes(self) -> list[tuple[str, float]]:
        if self.phase == _PHASE_ROLL:
            faces = self.game.faces
            return [(f"die {face}", 1.0 / len(faces)) for face in faces]
        if self._shot_outcomes is None:
            game = self.game
            raw = game.resolver.outcomes(game.board, self.layout_stacks(), self.player,
                                         self.target, self.shots_fired)
            merged: dict[str, float] = {}
            for knocked, probability in raw:
                key = _knock_string(knocked)
                merged[key] = merged.get(key, 0.0) + probability
            self._shot_outcomes = sorted(merged.items())
        return self._shot_outcomes

    def _is_legal_chance_outcome(self, action: str) -> bool:
        if self.phase != _PHASE_SHOT:
            return super()._is_legal_chance_outcome(action)
        # A record may hold any outcome the physics produced: any set of piggies on the
        # board, written sorted.
        if not action.startswith("knock "):
            return False
        body = action[len("knock "):]
        if body == "none":
            return True
        names = body.split(",")
        return (names == sorted(set(names))
                and all(isinstance(self.place.get(p), tuple) for p in names))

    # --- player actions ------------------------------------------------------------------
    def _legal_actions(self) -> list[str]:
        game = self.game
        geometry = game.geometry
        die = self.die
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
            actions.extend(f"fire {p}" for p, where in self.place.items()
                           if isinstance(where, tuple))
        actions.sort()
        return actions

    # --- applying -------------------------------------------------------------------------
    def _apply(self, action: str) -> None:
        if self.phase == _PHASE_ROLL:
            self.die = action[len("die "):]
            self.phase = _PHASE_MOVE
        elif self.phase == _PHASE_SHOT:
            body = action[len("knock "):]
            self._knock_out([] if body == "none" else body.split(","))
            self.shots_fired += 1
            self._shot_outcomes = None
            self.target = None
            self._next_turn()
        elif action == "pass":
            self._next_turn()
        elif action.startswith("fire "):
            self.target = action[len("fire "):]
            self.phase = _PHASE_SHOT
        else:
            _, piggy, destination = action.split(" ")
            self._move(piggy, destination)
            if self.phase != _PHASE_OVER:
                self._next_turn()

    def _move(self, piggy: str, destination: str) -> None:
        where = self.place[piggy]
        unit = [piggy]
        if isinstance(where, tuple):
            stack = self.stacks[where]
            unit = stack[stack.index(piggy):]  # the bottom carries the top
            del stack[stack.index(piggy):]
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
                self.phase = _PHASE_OVER
                return

    def _knock_out(self, piggies: list[str]) -> None:
        board = self.game.board
        for piggy in piggies:
            space = self.place[piggy]
            stack = self.stacks[space]
            stack.remove(piggy)  # a top piggy left alone stays on the space (ruling 8)
            if not stack:
                del self.stacks[space]
            passed = (self.passed[piggy] if self.game.params["checkpoints_stick"]
                      else board.checkpoints_passed(space))
            self.place[piggy] = "pit-left" if passed >= 2 else "pit-right" if passed else "pit"

    def _next_turn(self) -> None:
        self.turn += 1
        self.die = None
        if self.turn >= self.game.params["max_turns"]:
            self.phase, self.capped = _PHASE_OVER, True
            return
        self.player = (self.player + 1) % self.game.num_players
        self.phase = _PHASE_ROLL

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
            "phase": self.phase, "player": self.player, "die": self.die,
            "target": self.target, "turn": self.turn, "shots_fired": self.shots_fired,
            "winner": self.winner, "capped": self.capped,
        }

    def _load(self, data: dict) -> None:
        board = self.game.board
        try:
            pieces = data["pieces"]
            if set(pieces) != set(self.place):
                raise InputError("go_piggy_go state: 'pieces' must list every piggy in play")
            self.place = {p: (board.parse_space(w) if w not in (*PITS, TROUGH) else w)
                          for p, w in pieces.items()}
            self.stacks = {board.parse_space(s): [check_piggy(p) for p in stack]
                           for s, stack in data["stacks"].items()}
            self.passed = {p: int(k) for p, k in data["passed_checkpoints"].items()}
            self.phase, self.player, self.die = data["phase"], data["player"], data["die"]
            self.target, self.turn = data["target"], data["turn"]
            self.shots_fired, self.winner = data["shots_fired"], data["winner"]
            self.capped = data["capped"]
            self.history = list(data.get("history", []))
        except (KeyError, TypeError, ValueError) as exc:
            raise InputError(f"go_piggy_go state: missing or bad field ({exc})") from None
        for space, stack in self.stacks.items():
            if any(self.place.get(p) != space for p in stack) or not 1 <= len(stack) <= 2:
                raise InputError(f"go_piggy_go state: stack on {space_name(space)} does not "
                                 "match 'pieces'")
        self._shot_outcomes = None

    def __str__(self) -> str:
        return self.describe()

    def describe(self) -> str:
        """The board as text, with whose turn it is."""
        lines = [self.game.board.text_map(self.layout_stacks())]
        places = {}
        for piggy, where in sorted(self.place.items()):
            if isinstance(where, str):
                places.setdefault(where, []).append(piggy)
        for where in (*PITS, TROUGH):
            if where in places:
                lines.append(f"{where:10s} {', '.join(places[where])}")
        if self.phase == _PHASE_OVER:
            lines.append("Game over: " + (f"{self.game.seats[self.winner]} (seat "
                                          f"{self.winner}) wins" if self.winner is not None
                                          else f"no winner after {self.turn} turns"))
        else:
            seat = self.player
            lines.append(f"Turn {self.turn + 1}: {self.game.seats[seat]} (seat {seat})"
                         + (f", rolled {self.die}" if self.die else "")
                         + (f", firing at {self.target}" if self.target else ""))
        return "\n".join(lines)


def _knock_string(knocked) -> str:
    return "knock " + (",".join(sorted(knocked)) if knocked else "none")
