"""Bots: each chooses an action from what ``state.observation(player)`` shows and
the legal actions, never from the state itself. All are seeded.

    bot = make_bot("greedy", game, seed=1)
    action = bot.choose(state.observation(seat), state.legal_actions())
"""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from models.errors import InputError
from models.numbers import ascii_whole
from models.text import shown
from referee.api import Game
from referee.by_golly import remembered_run
from referee.shots import ScriptedResolver, TableResolver
from referee.woolfy import HOUSES

if TYPE_CHECKING:  # the games' own types, for the bots that know one game
    from referee.go_piggy_go import GoPiggyGoGame
    from referee.pig_out import PigOutGame
    from referee.woolfy import WoolfyGame

#: A knock-out's chance the greedy bot assumes when it weighs a shot.
GREEDY_ASSUMED_HIT_PROBABILITY = 0.5


class Bot:
    """Base: a seeded random generator and the game (its public parameters)."""

    def __init__(self, game: Game, seed: int | None = 0):
        import numpy as np  # here: the command line lists the bots without it

        self.game = game
        self.rng = np.random.default_rng(seed)

    def choose(self, observation: dict, legal: list[str]) -> str:
        raise NotImplementedError

    def best(self, legal: list[str], value) -> str:
        """The legal action of highest ``value``; ties broken by the bot's generator."""
        if len(legal) == 1:
            return legal[0]
        best, top = [], -float("inf")
        for action in legal:
            score = value(action)
            if score > top + 1e-9:
                best, top = [action], score
            elif score >= top - 1e-9:
                best.append(action)
        return best[0] if len(best) == 1 else best[int(self.rng.integers(len(best)))]


class RandomBot(Bot):
    """Uniformly random among the legal actions."""

    def choose(self, observation, legal):
        return legal[int(self.rng.integers(len(legal)))]


class GoPiggyGoGreedyBot(Bot):
    """A sensible Go Piggy Go! heuristic, one move deep.

    A move is worth the rows it gains (entering the trough counts as the furthest
    row, plus a bonus); stacking on a rival's piggy is worth a little (the rival
    then carries it), carrying a rival's piggy costs a little. A shot is worth the
    progress it would cost its target's owner, times the chance of a hit, more if
    that owner is leading; the bot fires when that beats its best move.
    """

    TROUGH_BONUS = 3.0
    STACK_ON_RIVAL = 1.0
    CARRY_RIVAL = -1.0
    LEADER_FACTOR = 1.5

    game: GoPiggyGoGame

    def __init__(self, game: GoPiggyGoGame, seed: int | None = 0):
        super().__init__(game, seed)
        board = game.board
        self.rows = board.rows
        self.pit_rows = {
            "pit": 0.0,
            "pit-right": float(min(board.pit_right_rows)),
            "pit-left": float(min(board.pit_left_rows)),
        }

    def progress(self, where: str) -> float:
        """How far along a place is: rows from the start pit (trough: past the end)."""
        if where == "trough":
            return self.rows + 1.0
        if where in self.pit_rows:
            return self.pit_rows[where]
        return int(where[1 : where.index("c")]) + 1.0

    def _knocked_to(self, piggy: str, observation: dict) -> str:
        passed = observation["passed_checkpoints"][piggy]
        return "pit-left" if passed >= 2 else "pit-right" if passed else "pit"

    def score(self, action: str, observation: dict) -> float:
        me = observation["observer"]
        pieces, stacks = observation["pieces"], observation["stacks"]
        seat_of = self.game.seat_of
        if action == "pass":
            return -0.5
        if action.startswith("fire "):
            target = action[5:]
            owner = seat_of(target)
            loss = self.progress(pieces[target]) - self.progress(
                self._knocked_to(target, observation)
            )
            value = GREEDY_ASSUMED_HIT_PROBABILITY * loss
            if owner == me:
                return -value
            totals: dict[int, float] = {}
            for piggy, where in pieces.items():
                totals[seat_of(piggy)] = totals.get(seat_of(piggy), 0.0) + self.progress(where)
            leader = max((s for s in totals if s != me), key=lambda s: totals[s])
            return value * (self.LEADER_FACTOR if owner == leader else 1.0)
        _, piggy, destination = action.split(" ")
        origin = pieces[piggy]
        unit = [piggy]
        if origin in stacks:
            stack = stacks[origin]
            unit = stack[stack.index(piggy) :]
        gain = self.progress(destination) - self.progress(origin)
        value = gain + (self.TROUGH_BONUS if destination == "trough" else 0.0)
        for carried in unit[1:]:
            value += gain if seat_of(carried) == me else self.CARRY_RIVAL
        below = stacks.get(destination)
        if below and seat_of(below[0]) != me:
            value += self.STACK_ON_RIVAL
        return value

    def choose(self, observation, legal):
        return self.best(legal, lambda action: self.score(action, observation))


class HoldAtBot(Bot):
    """Pig-Out: keep rolling until the turn's spots reach N (or would win), then hold."""

    def __init__(self, game: Game, seed: int | None = 0, hold_at: int = 20):
        super().__init__(game, seed)
        self.hold_at = hold_at

    def choose(self, observation, legal):
        me = observation["observer"]
        total = observation["turn_total"]
        reached = observation["scores"][me] + total >= self.game.params["target"]
        return "hold" if total >= self.hold_at or reached else "roll"


class PigOptimalBot(Bot):
    """Pig-Out with two players, no cards or an infinite deck: optimal play, from
    the value-iteration solution (Neller & Presser 2004)."""

    game: PigOutGame

    def __init__(self, game: PigOutGame, seed: int | None = 0):
        from referee.pig_solver import optimal_policy

        super().__init__(game, seed)
        self.rolls = optimal_policy(game)  # solved once per parameters, then shared

    def choose(self, observation, legal):
        me = observation["observer"]
        scores = observation["scores"]
        mine, total = scores[me], observation["turn_total"]
        if mine + total >= self.game.params["target"]:
            return "hold"
        return "roll" if self.rolls[mine, scores[1 - me], total] else "hold"


class WoolfyCarefulBot(Bot):
    """Woolfy: weighs the wolf's threat. It rolls for the piglet the wolf's next jump
    would catch; it keeps piglets off the squares that jump passes, hides in houses,
    builds the brick house and waits within a roll of it, and steps on a "leave the
    pot" square when a piglet is in the pot."""

    game: WoolfyGame

    def choose(self, observation, legal):
        if len(legal) == 1:
            return legal[0]
        game = self.game
        piglets = observation["piglets"]
        danger = game.sweeps[observation["wolf"]][1]
        built = observation["brick_parts"] >= game.params["brick_parts"]
        potted = any(w == "pot" for w in piglets.values())

        def value(action: str) -> float:
            words = action.split()
            if words[0] in ("roll", "rescue"):
                where = piglets[words[1]]
                return (3.0 if where in danger else 0.0) + (1.0 if where not in HOUSES else 0.0)
            if words[0] == "stay":
                where = piglets[words[1]]
                return -4.0 if where in danger else 0.0
            target = words[2]
            if target == "brick":
                return 10.0
            if target in HOUSES:
                return 5.0 if not built else 2.0
            square = int(target)
            score = -6.0 if square in danger else 0.0
            brick = game.fronts["brick"]
            if square == brick and not built:
                score += 3.0
            gap = min((square - brick) % game.length, (brick - square) % game.length)
            if 0 < gap <= 3 or (built and gap == 0):
                score += 1.5  # within a roll of building or entering the brick house
            if potted and square in game.pot_exits:
                score += 2.5
            return score

        return self.best(legal, value)


class ByGollyMemoryBot(Bot):
    """By Golly!: remembers what it has seen turned over (and every swap), from the
    public log in its observation; ``memory`` events back (None: all of them).

    It plays an animal it knows the place of (the one it holds most of, for a lucky
    break, which it always takes), turns over that place, else an unknown card, and
    plays on after a match; after chicken poop it turns a known shovel, else turns
    nothing where that is allowed (else an unknown card); it draws penalty cards
    from the player furthest from winning (drawing helps the one drawn from); it
    never swaps.
    """

    def __init__(self, game: Game, seed: int | None = 0, memory: int | None = None):
        super().__init__(game, seed)
        self.memory = memory

    def known(self, events: list) -> dict[int, str]:
        """Position -> card, as far as this bot remembers."""
        return remembered_run(events if self.memory is None else events[-self.memory :])

    def choose(self, observation, legal):
        if len(legal) == 1:
            return legal[0]
        phase = observation["phase"]
        if phase == "draw":
            sizes = [
                h + s
                for h, s in zip(observation["hand_sizes"], observation["stack_sizes"], strict=True)
            ]
            return max(legal, key=lambda a: (sizes[int(a.split()[1])], -int(a.split()[1])))
        if phase == "swap":
            return "done"
        if phase == "lucky":  # fewer cards to get rid of
            return next((a for a in legal if a.startswith("discard ")), legal[0])
        known = self.known(observation["events"])
        down = set(observation["face_down"])
        hidden_known = {p: c for p, c in known.items() if p in down}
        if phase == "play":  # it plays on after a match: a miss costs nothing
            hand = Counter(observation["hand"])
            findable = [a for a in hand if a in hidden_known.values()]
            pool = findable or list(hand)
            most = max(hand[a] for a in pool)
            choices = sorted(a for a in pool if hand[a] == most)
            return f"play {choices[int(self.rng.integers(len(choices)))]}"
        # turning a card over
        wanted = "shovel" if phase == "poop-turn" else observation["played"]
        targets = sorted(p for p, c in hidden_known.items() if c == wanted)
        if targets:
            return f"turn {targets[0]}"
        if "done" in legal:  # after chicken poop with no shovel in mind: risk no penalty
            return "done"
        unknown = sorted(p for p in down if p not in known)
        pool = unknown or sorted(p for p in down if known.get(p) != "poop") or sorted(down)
        return f"turn {pool[int(self.rng.integers(len(pool)))]}"


class ByGollyForgetfulBot(ByGollyMemoryBot):
    """The memory bot that recalls only the last 8 things it saw."""

    def __init__(self, game: Game, seed: int | None = 0):
        super().__init__(game, seed, memory=8)


#: Bots by game and name; "random" works for every game. ``hold-at-N`` takes any N.
BOTS: dict[str, dict[str, type[Bot]]] = {
    "go_piggy_go": {"random": RandomBot, "greedy": GoPiggyGoGreedyBot},
    "pig_out": {"random": RandomBot, "hold-at-20": HoldAtBot, "optimal": PigOptimalBot},
    "woolfy": {"random": RandomBot, "careful": WoolfyCarefulBot},
    "by_golly": {"random": RandomBot, "memory": ByGollyMemoryBot, "forgetful": ByGollyForgetfulBot},
}


def bot_names(game_name: str) -> list[str]:
    return sorted(BOTS.get(game_name, {"random": RandomBot}))


def check_bot(name: str, game_name: str) -> None:
    """Refuse a bot name the game has not, naming the ones it has: before any game
    or bot is made (a command tells the mistake at once)."""
    if game_name == "pig_out" and name.startswith("hold-at-"):
        _hold_at(name)
    elif name not in BOTS.get(game_name, {"random": RandomBot}):
        raise InputError(
            f"unknown bot '{shown(name)}' for {game_name}: bots are "
            f"{', '.join(bot_names(game_name))} (or 'human' at the table)"
        )


def _hold_at(name: str) -> int:
    """``hold-at-N``'s N, or :class:`InputError`."""
    number = ascii_whole(name[len("hold-at-") :])
    if number is None or number < 1:
        raise InputError(
            f"bot '{shown(name)}': hold-at-N takes a whole number N >= 1 in ASCII digits"
        )
    return number


def make_bot(name: str, game: Game, seed: int | None = 0) -> Bot:
    """A bot by name for a game; an unknown name is refused with the known ones."""
    check_bot(name, game.name)
    if game.name == "pig_out" and name.startswith("hold-at-"):
        return HoldAtBot(game, seed, _hold_at(name))
    return BOTS.get(game.name, {"random": RandomBot})[name](game, seed)


class GoPiggyGoExpectedGainBot(GoPiggyGoGreedyBot):
    """Go Piggy Go!: fires the tractor when a shot's expected gain beats its best move.

    A shot at a rival's piggy is worth P(knocked out) for the space it stands on,
    read from the hit table, times the rows it would fall back (to its Mud Pit);
    a move is worth what the greedy bot says. The bot takes the best of the two,
    from the observation and the table only.

    ``table`` maps space names to P(target knocked out); by default it is the
    game's own: a :class:`~referee.shots.TableResolver`'s map (``--shots table:FILE``)
    or a scripted resolver's one probability. A space missing from the table is
    taken as out of reach (P = 0).
    """

    def __init__(
        self, game: GoPiggyGoGame, seed: int | None = 0, table: dict[str, float] | None = None
    ):
        super().__init__(game, seed)
        if table is None:
            resolver = game.resolver
            if isinstance(resolver, TableResolver):
                table = resolver.probabilities
            elif isinstance(resolver, ScriptedResolver) and resolver.script is None:
                # scripted without a script: one probability everywhere
                table = dict.fromkeys(game.geometry.names.values(), resolver.hit_probability)
            else:
                raise InputError(
                    "the expected-gain bot needs a table of hit probabilities: "
                    "play with --shots table:FILE (a hit map) or scripted:P"
                )
        self.table = dict(table)

    def expected_gain(self, target: str, observation: dict) -> float:
        """P(knocked out) x rows it would fall back; negative for the bot's own piggy."""
        where = observation["pieces"][target]
        fall = self.progress(where) - self.progress(self._knocked_to(target, observation))
        gain = self.table.get(where, 0.0) * fall
        return -gain if self.game.seat_of(target) == observation["observer"] else gain

    def score(self, action: str, observation: dict) -> float:
        if action.startswith("fire "):
            return self.expected_gain(action[len("fire ") :], observation)
        return super().score(action, observation)


BOTS["go_piggy_go"]["expected-gain"] = GoPiggyGoExpectedGainBot
