"""Woolfy (Djeco, 2009): the Hungarian rule sheet, read in our English translation,
with our Woolfy rulings 1-8. Cooperative: everyone wins or loses together.
docs/rules/woolfy.md says it in our words.

Piglets: ``red``, ``yellow``, ``blue``, each with its own die (1, 2, 3, wolf,
wolf, house). Actions:

- the player: ``roll <piglet>`` (choose a piglet and roll its die), on a rescue
  turn ``rescue <piglet>`` (roll a potted piglet's die); after a number
  ``move <piglet> <square>`` or ``move <piglet> <house>``; after "house"
  ``house <piglet> <house>`` or ``stay <piglet>``;
- chance: ``die 1``, ``die 2``, ``die 3``, ``die wolf``, ``die house``.

Squares are numbered clockwise 0 .. track_length-1; houses are ``straw``,
``stick`` and ``brick``.
"""

from __future__ import annotations

from models.errors import InputError
from referee.api import CHANCE, TERMINAL, Game, State
from referee.validate import (
    TURN_CAP,
    Spec,
    is_whole,
    list_items,
    listed,
    one_of,
    quoted,
    whole,
    whole_text,
)
from referee.woolfy_load import load
from referee.woolfy_terms import (
    CHOOSE,
    DIE,
    DIE_FACES,
    HOUSE,
    HOUSES,
    MAX_TRACK,
    MOVE,
    OVER,
    PIGLETS,
    POT,
)

# --- parameters (ruling 1: every position is one) ------------------------------------
DEFAULTS = {
    "players": 2,  # 1-6, all on the same side
    "track_length": 24,
    "start_square": 0,
    "wolf_squares": "2,5,8,11,14,17,20,23",  # the wolf jumps between these, clockwise
    "wolf_start": 14,
    "pot_exits": "4,16",  # "leave the pot" squares (ruling 7)
    "straw_square": 7,  # the square in front of each house
    "stick_square": 19,
    "brick_square": 10,
    "straw_capacity": 1,
    "stick_capacity": 2,
    "brick_capacity": 3,
    "brick_parts": 4,  # 3 walls and the roof (ruling 5)
    "die_faces": "1,2,3,wolf,wolf,house",
    "max_turns": 500,  # ruling 8: then the game is lost
    "same_piglet_exception": "sheet",  # ruling 6: the piglet rolled last turn may be
    # rolled again when both others are in the pot
    # or both in houses ("sheet"), or when each is
    # in the pot or a house ("pot-or-house")
}


_SQUARE = whole(0, MAX_TRACK - 1)
_SQUARES = listed(lambda item: whole_text(item) is not None, "4,16 (square numbers)")
SPECS = {
    "players": whole(1, 6),
    "track_length": whole(6, MAX_TRACK),
    "start_square": _SQUARE,
    "wolf_squares": _SQUARES,
    "wolf_start": _SQUARE,
    "pot_exits": _SQUARES,
    **{f"{h}_square": _SQUARE for h in HOUSES},
    "straw_capacity": whole(0, 3),
    "stick_capacity": whole(0, 3),
    "brick_capacity": Spec(
        "3 (the game is won with all three piglets in the brick house)",
        lambda v: is_whole(v) and v == len(PIGLETS),
    ),
    "brick_parts": whole(0, 10),
    "die_faces": listed(lambda face: face in DIE_FACES, "1,2,3,wolf,wolf,house (1-6, wolf, house)"),
    "max_turns": TURN_CAP,
    "same_piglet_exception": one_of("sheet", "pot-or-house"),
}


class WoolfyGame(Game):
    name = "woolfy"
    defaults = DEFAULTS
    specs = SPECS
    cooperative = True

    def __init__(self, **params):
        super().__init__(**params)
        p = self.params
        self.length = length = p["track_length"]
        squares = {
            key: [int(v) for v in list_items(p[key])] for key in ("wolf_squares", "pot_exits")
        }
        squares.update(
            {
                key: [p[key]]
                for key in ("start_square", "wolf_start", *(f"{h}_square" for h in HOUSES))
            }
        )
        for key, values in squares.items():
            if max(values) >= length or len(set(values)) != len(values):
                raise InputError(
                    f"woolfy: parameter '{key}' = {quoted(p[key])} must be distinct "
                    f"squares 0-{length - 1} (track_length {length})"
                )
        self.wolf_squares = tuple(sorted(squares["wolf_squares"]))
        if p["wolf_start"] not in self.wolf_squares:
            raise InputError(
                f"woolfy: parameter 'wolf_start' = {p['wolf_start']} must be one "
                f"of the wolf squares {p['wolf_squares']}"
            )
        self.pot_exits = tuple(squares["pot_exits"])
        self.fronts = {h: p[f"{h}_square"] for h in HOUSES}
        # the start square, the squares in front of the houses and the exits: all different
        special = {"start_square": p["start_square"]}
        for key in (*(f"{h}_square" for h in HOUSES), "pot_exits"):
            for square in squares[key]:
                clash = next((k for k, q in special.items() if q == square), None)
                if clash:
                    raise InputError(
                        f"woolfy: parameter '{key}' puts square {square} where "
                        f"'{clash}' is: the start square, the squares in front of "
                        "the houses and the exits must all differ"
                    )
                special[key] = square
        self.capacity = {h: p[f"{h}_capacity"] for h in HOUSES}
        faces = list_items(p["die_faces"])
        counts = {f: faces.count(f) for f in dict.fromkeys(faces)}
        self.die = [(f"die {f}", n / len(faces)) for f, n in counts.items()]
        self.seats = [f"player {i + 1}" for i in range(p["players"])]
        self.sweeps = {}
        for index, w in enumerate(self.wolf_squares):
            nxt = self.wolf_squares[(index + 1) % len(self.wolf_squares)]
            steps = (nxt - w) % length or length
            self.sweeps[w] = (nxt, frozenset((w + s) % length for s in range(1, steps + 1)))

    @property
    def num_players(self) -> int:
        return self.params["players"]

    def new_initial_state(self) -> WoolfyState:
        return WoolfyState(self)


class WoolfyState(State):
    game: WoolfyGame  # the concrete game, with its parameters read

    def __init__(self, game: WoolfyGame):
        super().__init__(game)
        self.where: dict[str, int | str] = dict.fromkeys(PIGLETS, game.params["start_square"])
        self.wolf = game.params["wolf_start"]
        self.brick = 0  # parts of the brick house built
        self.left_start: list[str] = []  # piglets that have ever left the start square
        self.last_die: str | None = None  # the piglet whose die was rolled last turn
        self.rescue_armed = False
        self.phase = CHOOSE
        self.player = 0
        self.chosen: str | None = None
        self.rolled: str | None = None
        self.rescuing = False
        self.turn = 0
        self.result: str | None = None  # "won" or "lost"
        self.capped = False

    # --- whose turn ------------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        return CHANCE if self.phase == DIE else self.player

    def returns(self) -> list[float]:
        value = 1.0 if self.result == "won" else -1.0 if self.result == "lost" else 0.0
        return [value] * self.game.num_players

    # --- helpers ---------------------------------------------------------------------------
    def in_house(self, house: str) -> list[str]:
        return [p for p in PIGLETS if self.where[p] == house]

    def house_open(self, house: str) -> bool:
        if house == "brick" and self.brick < self.game.params["brick_parts"]:
            return False  # the brick house must be built first
        return len(self.in_house(house)) < self.game.capacity[house]

    def start_closed(self) -> bool:
        """The start square may be entered again only while some piglet has never left
        it; once all three have left it, never again (ruling 2, the sheet's words)."""
        return len(self.left_start) == len(PIGLETS)

    def _rescue_turn(self) -> bool:
        return self.rescue_armed and POT in self.where.values()

    def choosable(self) -> list[str]:
        """Piglets the player may roll for now (ruling 6), or potted ones on a rescue turn."""
        if self._rescue_turn():
            potted = [p for p in PIGLETS if self.where[p] == POT]
            others = [p for p in potted if p != self.last_die]
            return others or potted
        free = [p for p in PIGLETS if self.where[p] != POT]
        if self.last_die in free and not self.may_roll_again():
            free.remove(self.last_die)
        return free

    def may_roll_again(self) -> bool:
        """Ruling 6's exception: the piglet rolled last turn may be rolled again when both
        others are in the pot or both in houses (the sheet), or, with
        ``same_piglet_exception="pot-or-house"``, when each is in the pot or a house."""
        places = [self.where[p] for p in PIGLETS if p != self.last_die]
        potted = [w == POT for w in places]
        housed = [w in HOUSES for w in places]
        if self.game.params["same_piglet_exception"] == "sheet":
            return all(potted) or all(housed)
        return all(a or b for a, b in zip(potted, housed, strict=True))

    def destinations(
        self, piglet: str, steps: int, starts: tuple[int, ...] | None = None
    ) -> list[str]:
        """Where a piglet can end moving exactly ``steps``, either way (ruling 2)."""
        game = self.game
        length = game.length
        here = self.where[piglet]
        if starts is None:
            if isinstance(here, int):
                starts = (here,)
            elif here in HOUSES:  # the square in front counts as the first step
                starts, steps = (game.fronts[here],), steps - 1
            else:
                raise ValueError(
                    f"woolfy: {piglet} is in the {here}: give the squares its move starts from"
                )
        squares, houses = set(), set()
        closed = self.start_closed()
        for start in starts:
            for direction in (1, -1):
                end = (start + direction * steps) % length
                if not (closed and end == game.params["start_square"]):
                    squares.add(end)
                if steps >= 1:
                    before = (start + direction * (steps - 1)) % length
                    for house, front in game.fronts.items():
                        if front == before and here != house and self.house_open(house):
                            houses.add(house)
        return [str(q) for q in sorted(squares)] + sorted(houses)

    # --- actions -------------------------------------------------------------------------------
    def _legal_actions(self) -> list[str]:
        piglet = self.chosen
        if self.phase == CHOOSE:
            verb = "rescue" if self._rescue_turn() else "roll"
            actions = [f"{verb} {p}" for p in self.choosable()]
            return sorted(actions) or ["pass"]
        if piglet is None or self.rolled is None:
            raise ValueError(f"woolfy: phase {self.phase} with no piglet chosen or no roll")
        if self.phase == HOUSE:
            options = [
                f"house {piglet} {h}"
                for h in HOUSES
                if self.house_open(h) and self.where[piglet] != h
            ]
            if not self.rescuing or not options:
                options.append(f"stay {piglet}")
            return sorted(options)
        starts = self.game.pot_exits if self.rescuing else None
        options = [
            f"move {piglet} {d}" for d in self.destinations(piglet, int(self.rolled), starts)
        ]
        return sorted(options) or [f"stay {piglet}"]

    def _chance_outcomes(self) -> list[tuple[str, float]]:
        return self.game.die

    def _apply(self, action: str) -> None:
        words = action.split()
        if self.phase == DIE:
            self.rolled = words[1]
            if self.rolled == "wolf":
                self._move_wolf()
                self._end_turn()
            elif self.rolled == "house":
                self.phase = HOUSE
            else:
                self.phase = MOVE
            return
        if words[0] in ("roll", "rescue"):
            self.chosen, self.rescuing = words[1], words[0] == "rescue"
            self.rescue_armed = False
            self.phase = DIE
            return
        if words[0] == "move":
            self._land(words[1], words[2])
        elif words[0] == "house":
            self.where[words[1]] = words[2]
        self._end_turn()

    def _land(self, piglet: str, destination: str) -> None:
        game = self.game
        if self.where[piglet] == game.params["start_square"] and piglet not in self.left_start:
            self.left_start.append(piglet)  # a move leaves the start, even a lap back to it
        if destination in HOUSES:
            self.where[piglet] = destination
            return
        square = int(destination)
        self.where[piglet] = square
        if square == game.fronts["brick"] and self.brick < game.params["brick_parts"]:
            self.brick += 1  # a wall, or at last the roof (ruling 5)
        if square in game.pot_exits and POT in self.where.values():
            self.rescue_armed = True  # the next player rolls for a potted piglet (ruling 7)

    def _move_wolf(self) -> None:
        nxt, path = self.game.sweeps[self.wolf]
        for piglet, where in self.where.items():
            if where in path:  # on a square, not in a house: into the pot (ruling 4)
                self.where[piglet] = POT
        self.wolf = nxt

    def _end_turn(self) -> None:
        start = self.game.params["start_square"]
        self.left_start = [p for p in PIGLETS if p in self.left_start or self.where[p] != start]
        self.last_die = self.chosen
        self.chosen = self.rolled = None
        self.rescuing = False
        self.turn += 1
        places = list(self.where.values())
        if places.count("brick") == len(places):
            self.result, self.phase = "won", OVER
        elif places.count(POT) == len(places):
            self.result, self.phase = "lost", OVER
        elif self.turn >= self.game.params["max_turns"]:
            self.result, self.phase, self.capped = "lost", OVER, True
        else:
            self.player = (self.player + 1) % self.game.num_players
            self.phase = CHOOSE

    # --- views ------------------------------------------------------------------------------------
    def _to_dict(self) -> dict:
        return {
            "piglets": dict(self.where),
            "wolf": self.wolf,
            "brick_parts": self.brick,
            "left_start": list(self.left_start),
            "last_die": self.last_die,
            "rescue_armed": self.rescue_armed,
            "phase": self.phase,
            "player": self.player,
            "chosen": self.chosen,
            "rolled": self.rolled,
            "rescuing": self.rescuing,
            "turn": self.turn,
            "result": self.result,
            "capped": self.capped,
        }

    def _load(self, data: dict) -> None:
        load(self, data)

    def describe(self) -> str:
        game = self.game
        track = []
        for square in range(game.length):
            here = [p[0].upper() for p in PIGLETS if self.where[p] == square]
            mark = "W" if square == self.wolf else ""
            label = {game.fronts[h]: h for h in HOUSES}.get(square, "")
            if square in game.pot_exits:
                label = "exit"
            track.append(f"{square}{label and '(' + label + ')'}:{mark}{''.join(here) or '.'}")
        lines = ["Track: " + " ".join(track)]
        houses = ", ".join(
            f"{h} [{''.join(p[0].upper() for p in self.in_house(h)) or '-'}]" for h in HOUSES
        )
        lines.append(
            f"Houses: {houses}; brick house {self.brick}/"
            f"{game.params['brick_parts']} built; pot: "
            f"{', '.join(p for p in PIGLETS if self.where[p] == POT) or 'empty'}"
        )
        if self.phase == OVER:
            verdict = "everyone wins" if self.result == "won" else "the wolf wins"
            lines.append(f"Game over: {verdict}")
        else:
            lines.append(
                f"Turn {self.turn + 1}: {game.seats[self.player]}"
                + (f", rolled {self.rolled} for {self.chosen}" if self.rolled else "")
            )
        return "\n".join(lines)
