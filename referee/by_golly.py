"""By Golly! (the rule sheet; Zoch's Au Backe!) with our By Golly! rulings
1-7: a memory game of hidden information. docs/rules/by-golly.md says it in our
words.

Actions:
- chance, at the start: ``run <card>`` for chicken-run positions 0-18 in turn,
  ``deal <animal>`` for each card dealt (seat 0, 1, ... round and round; the first
  card dealt to a player is the top of their stack), ``start <seat>`` (by lot);
- the player: ``play <animal>`` (a hand card, face up), ``turn <position>`` (a
  face-down run card), ``draw <seat>`` (a penalty card from that player's stack),
  ``swap <p> <q>`` (two face-up run cards, after chicken poop), ``done`` (end the
  turn: after a match, after chicken poop instead of turning a card, or after the
  swaps), ``discard <animal>`` / ``keep <animal>`` (the lucky break, offered after
  every match while the hand holds a card: the other cards of the animal just
  matched set aside, or kept; only ``keep`` when the hand holds none of them).
  With ``optional_steps = "compulsory"`` the sheet's "may" steps are always taken:
  no ``done`` after a match or chicken poop, and the lucky break is automatic.

``observation(player)`` shows what that player has seen: their hand, everyone's
card counts, the run cards face up now, and the public log of every card turned
over and every swap. Hands, stacks and the face-down cards stay in the state.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from referee.api import CHANCE, TERMINAL, Game, State, winner_returns
from referee.by_golly_load import load
from referee.by_golly_terms import (
    ANIMAL_CARDS,
    DEAL,
    DRAW,
    HAND,
    LUCKY,
    OVER,
    PENALTY,
    PLAY,
    POOP,
    POOP_TURN,
    RUN_CARDS,
    RUN_SIZE,
    SETUP_DEAL,
    SETUP_PHASES,
    SETUP_RUN,
    SETUP_START,
    SHOVEL,
    SWAP,
    TURN,
)
from referee.validate import TURN_CAP, one_of, whole

DEFAULTS = {
    "players": 2,  # 2-6
    "max_turns": 5000,  # ours: a game this long ends undecided
    "optional_steps": "choice",  # what the sheet says a player *may* do is a choice:
    # turning a card after chicken poop, the lucky break,
    # going on after a match; "compulsory": always done
}
SPECS = {
    "players": whole(2, 6),
    "max_turns": TURN_CAP,
    "optional_steps": one_of("choice", "compulsory"),
}


class ByGollyGame(Game):
    name = "by_golly"
    defaults = DEFAULTS
    specs = SPECS

    def __init__(self, **params):
        super().__init__(**params)
        self.deal_size = DEAL[self.params["players"]]
        self.seats = [f"seat {i}" for i in range(self.params["players"])]
        self.optional = self.params["optional_steps"] == "choice"

    @property
    def num_players(self) -> int:
        return self.params["players"]

    def is_public_chance(self, outcome: str) -> bool:
        return outcome.startswith("start ")  # the run's layout and the deal are hidden

    def new_initial_state(self) -> ByGollyState:
        return ByGollyState(self)


def remembered_run(events) -> dict[int, str]:
    """Position -> the card last seen there, from the public log (swaps followed)."""
    seen: dict[int, str] = {}
    for event in events:
        if event[0] == "reveal":
            seen[event[1]] = event[2]
        elif event[0] == "swap":
            p, q = event[1], event[2]
            a, b = seen.pop(p, None), seen.pop(q, None)
            if a is not None:
                seen[q] = a
            if b is not None:
                seen[p] = b
    return seen


def _draw_outcomes(pool: Counter, prefix: str) -> list[tuple[str, float]]:
    total = sum(pool.values())
    return [(f"{prefix} {card}", n / total) for card, n in sorted(pool.items()) if n]


class ByGollyState(State):
    game: ByGollyGame  # the concrete game, with its parameters read

    def __init__(self, game: ByGollyGame):
        super().__init__(game)
        n = game.num_players
        self.run: list[str] = []  # the chicken-run card at each position
        self.face_up: list[int] = []  # positions turned over this turn, in order
        self.hands: list[list[str]] = [[] for _ in range(n)]
        self.stacks: list[list[str]] = [[] for _ in range(n)]  # top first
        self.events: list[list] = []  # the public log: reveals, swaps, hides, draws
        self.phase = SETUP_RUN
        self.player = 0
        self.played: str | None = None
        self.draws_left = 0
        self.swaps_left = 0
        self.turn = 0
        self.winner: int | None = None
        self.capped = False

    # --- whose turn ---------------------------------------------------------------
    def current_player(self) -> int:
        if self.phase in SETUP_PHASES:
            return CHANCE
        return TERMINAL if self.phase == OVER else self.player

    def returns(self) -> list[float]:
        return winner_returns(self.winner, self.game.num_players)

    # --- chance: the set-up -------------------------------------------------------
    def _chance_outcomes(self) -> list[tuple[str, float]]:
        if self.phase == SETUP_RUN:
            return _draw_outcomes(RUN_CARDS - Counter(self.run), "run")
        if self.phase == SETUP_DEAL:
            dealt = Counter(c for stack in self.stacks for c in stack)
            return _draw_outcomes(ANIMAL_CARDS - dealt, "deal")
        n = self.game.num_players
        return [(f"start {s}", 1.0 / n) for s in range(n)]

    # --- the player's actions ---------------------------------------------------------
    def face_down(self) -> list[int]:
        up = set(self.face_up)
        return [p for p in range(len(self.run)) if p not in up]

    def _legal_actions(self) -> list[str]:
        optional = self.game.optional
        if self.phase == PLAY:  # after a match (cards face up) the player may stop
            actions = [f"play {a}" for a in set(self.hands[self.player])]
            if optional and self.face_up:
                actions.append("done")
            return sorted(actions)
        if self.phase in (TURN, POOP_TURN):  # after chicken poop, turning one is a choice
            actions = [f"turn {p}" for p in self.face_down()]
            if optional and self.phase == POOP_TURN:
                actions.append("done")
            return sorted(actions)
        if self.phase == LUCKY:  # offered after every match: entering it reveals nothing
            animal = self.run[self.face_up[-1]]
            held = animal in self.hands[self.player]
            return [f"discard {animal}", f"keep {animal}"] if held else [f"keep {animal}"]
        if self.phase == DRAW:
            return [f"draw {s}" for s in self._penalty_sources()]
        up = sorted(self.face_up)
        swaps = [f"swap {p} {q}" for i, p in enumerate(up) for q in up[i + 1 :]]
        return sorted(["done", *swaps]) if self.swaps_left > 0 else ["done"]

    def _penalty_sources(self) -> list[int]:
        """Other players whose stacks still have cards (ruling 4)."""
        return [s for s in range(self.game.num_players) if s != self.player and self.stacks[s]]

    # --- applying ------------------------------------------------------------------------
    def _apply(self, action: str) -> None:
        verb, _, rest = action.partition(" ")
        _ON_VERB.get(verb, ByGollyState._on_done)(self, rest)

    def _on_run(self, card: str) -> None:
        self.run.append(card)
        if len(self.run) == RUN_SIZE:
            self.phase = SETUP_DEAL

    def _on_deal(self, card: str) -> None:
        n = self.game.num_players
        dealt = sum(len(s) for s in self.stacks)
        self.stacks[dealt % n].append(card)
        if dealt + 1 == n * self.game.deal_size:
            for seat in range(n):  # each player draws the top 5 into their hand
                self.hands[seat] = self.stacks[seat][:HAND]
                self.stacks[seat] = self.stacks[seat][HAND:]
            self.phase = SETUP_START

    def _on_start(self, seat: str) -> None:
        self.player = int(seat)
        self._begin_turn()

    def _on_play(self, card: str) -> None:
        self.hands[self.player].remove(card)
        self.played = card
        self._to_turn(TURN)

    def _on_turn(self, position: str) -> None:
        self._reveal(int(position))

    def _on_draw(self, seat: str) -> None:
        card = self.stacks[int(seat)].pop(0)
        self.hands[self.player].append(card)
        self.events.append(["draw", int(seat), self.player])
        self.draws_left -= 1
        if self.draws_left == 0 or not self._penalty_sources():
            self._after_poop()

    def _on_swap(self, positions: str) -> None:
        p, q = (int(x) for x in positions.split())
        self.run[p], self.run[q] = self.run[q], self.run[p]
        self.events.append(["swap", p, q])
        self.swaps_left -= 1

    def _on_discard(self, card: str) -> None:  # the lucky break taken
        self.hands[self.player] = [c for c in self.hands[self.player] if c != card]
        self._after_match()

    def _on_keep(self, card: str) -> None:  # the lucky break not taken
        self._after_match()

    def _on_done(self, _: str) -> None:
        """Stop after a match, turn no card after chicken poop, or end the swaps."""
        self._take_back()
        self._end_turn()

    def _to_turn(self, phase: str) -> None:
        """Turn over a face-down run card next; with none left, the played card goes back."""
        if self.face_down():
            self.phase = phase
        else:
            self._take_back()
            self._end_turn()

    def _reveal(self, position: int) -> None:
        card = self.run[position]
        self.face_up.append(position)
        self.events.append(["reveal", position, card])
        hand = self.hands[self.player]
        if self.phase == POOP_TURN:
            if card == SHOVEL:
                self._after_poop()
            else:
                self.draws_left = PENALTY[POOP if card == POOP else "animal"]
                if self._penalty_sources():
                    self.phase = DRAW
                else:
                    self._after_poop()
        elif card == POOP:
            self._to_turn(POOP_TURN)  # a shovel is needed at once
        elif card == self.played:
            # a match: the played card goes, and every other one of that animal may go
            # too: the lucky break (ruling 2). It is offered after every match while the
            # hand holds a card, whether or not one is of that animal ("keep" is then all
            # there is): entering it tells the other players nothing about the hand.
            self.played = None
            if hand and self.game.optional:
                self.phase = LUCKY
                return
            self.hands[self.player] = [c for c in hand if c != card]
            self._after_match()
        else:  # another animal, or a shovel turned over directly (ruling 3)
            self._take_back()
            self._end_turn()

    def _after_match(self) -> None:
        """An empty hand ends the turn, or wins with an empty stack (ruling 6); else the
        player plays on."""
        if self.hands[self.player]:
            self.phase = PLAY
        elif self.stacks[self.player]:
            self._end_turn()
        else:
            self.winner, self.phase = self.player, OVER

    def _take_back(self) -> None:
        if self.played is not None:
            self.hands[self.player].append(self.played)
            self.played = None

    def _after_poop(self) -> None:
        self._take_back()
        self.draws_left = 0
        self.swaps_left = max(0, len(self.face_up) - 1)
        self.phase = SWAP

    def _end_turn(self) -> None:
        self.events.append(["hide"])  # every run card face down again (ruling 5)
        self.face_up, self.swaps_left = [], 0
        stack, hand = self.stacks[self.player], self.hands[self.player]
        refill = max(0, HAND - len(hand))
        hand.extend(stack[:refill])
        del stack[:refill]
        self.turn += 1
        if self.turn >= self.game.params["max_turns"]:
            self.phase, self.capped = OVER, True
            return
        self.player = (self.player + 1) % self.game.num_players
        self._begin_turn()

    def _begin_turn(self) -> None:
        self.phase = PLAY
        self.swaps_left = 0

    # --- views ---------------------------------------------------------------------------
    def observation(self, player: int) -> dict:
        """What ``player`` has seen (ruling 7). ``events`` is the public log, shared:
        do not change it."""
        return {
            "observer": player,
            "player": self.player,
            "phase": self.phase,
            "hand": sorted(self.hands[player]),
            "hand_sizes": [len(h) for h in self.hands],
            "stack_sizes": [len(s) for s in self.stacks],
            "face_up": {p: self.run[p] for p in self.face_up},
            "face_down": self.face_down() if self.run else [],
            "played": self.played,
            "draws_left": self.draws_left,
            "swaps_left": self.swaps_left,
            "events": self.events,
            "turn": self.turn,
            "winner": self.winner,
        }

    def _to_dict(self) -> dict:
        return {
            "run": list(self.run),
            "face_up": list(self.face_up),
            "hands": [list(h) for h in self.hands],
            "stacks": [list(s) for s in self.stacks],
            "events": [list(e) for e in self.events],
            "phase": self.phase,
            "player": self.player,
            "played": self.played,
            "draws_left": self.draws_left,
            "swaps_left": self.swaps_left,
            "turn": self.turn,
            "winner": self.winner,
            "capped": self.capped,
        }

    def _load(self, data: dict) -> None:
        load(self, data)

    def describe(self, player: int | None = None) -> str:
        """The table as ``player`` sees it (the player to move by default)."""
        seat = self.player if player is None else player
        view = self.observation(seat)
        run = " ".join(f"{p}:{view['face_up'].get(p, '?')}" for p in range(len(self.run)))
        counts = ", ".join(
            f"seat {s}: {h} in hand, {st} in stack"
            for s, (h, st) in enumerate(zip(view["hand_sizes"], view["stack_sizes"], strict=True))
        )
        lines = [
            f"Chicken run: {run}",
            f"Cards: {counts}",
            f"Seat {seat}'s hand: {', '.join(view['hand']) or 'empty'}",
        ]
        if self.played:
            lines.append(f"Played: {self.played}")
        if self.phase == OVER:
            lines.append(
                "Game over: "
                + (
                    f"seat {self.winner} wins"
                    if self.winner is not None
                    else f"no winner after {self.turn} turns"
                )
            )
        return "\n".join(lines)


#: What each action's verb does to the state; ``done`` is the rest.
_ON_VERB: dict[str, Callable[[ByGollyState, str], None]] = {
    "run": ByGollyState._on_run,
    "deal": ByGollyState._on_deal,
    "start": ByGollyState._on_start,
    "play": ByGollyState._on_play,
    "turn": ByGollyState._on_turn,
    "draw": ByGollyState._on_draw,
    "swap": ByGollyState._on_swap,
    "discard": ByGollyState._on_discard,
    "keep": ByGollyState._on_keep,
    "done": ByGollyState._on_done,
}
