"""Reading a saved By Golly! state: every field, and the rules a position must
satisfy — the 19 chicken-run cards, at most 3 of each animal, the deal, the phase
and the fields that go with it, and the public log agreeing with the cards face up
(docs/rules/by-golly.md).

Below the game's module (referee.by_golly), which plays from the position this
reads: what it needs of the state and the game is named here by their fields
(:class:`ByGollyPosition`, :class:`ByGollyRules`), never by importing the module
that imports this one; the cards and phases come from referee.by_golly_terms.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Protocol

from referee.by_golly_terms import (
    ANIMAL_CARDS,
    ANIMALS,
    DRAW,
    HAND,
    LUCKY,
    OVER,
    PENALTY,
    PHASES,
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
from referee.validate import FLAG, Fields, Spec, is_whole, list_of, one_of, or_none, quoted, whole


class ByGollyRules(Protocol):
    """What the reader needs of the game (referee.by_golly's ``ByGollyGame``)."""

    params: dict[str, Any]
    deal_size: int

    @property
    def num_players(self) -> int: ...


class ByGollyPosition(Protocol):
    """The state as the reader fills it in (referee.by_golly's ``ByGollyState``): its
    fields, so that the type checker holds the state to them where it is passed."""

    @property
    def game(self) -> ByGollyRules: ...

    run: list[str]
    face_up: list[int]
    hands: list[list[str]]
    stacks: list[list[str]]
    events: list[list]
    phase: str
    player: int
    played: str | None
    draws_left: int
    swaps_left: int
    turn: int
    winner: int | None
    capped: bool


_ANIMAL = one_of(*ANIMALS)
_CARDS = list_of(_ANIMAL, 0, sum(ANIMAL_CARDS.values()))


def load(state: ByGollyPosition, data: dict) -> None:
    """Set ``state`` from a saved state's fields, or a one-line InputError."""
    game, field = state.game, Fields("by_golly", data)
    n = game.num_players
    state.run = field("run", list_of(one_of(*RUN_CARDS), 0, RUN_SIZE))
    extra = Counter(state.run) - RUN_CARDS
    field.require(
        not extra,
        f"the chicken run holds {sum(extra.values())} card(s) too many "
        f"of {', '.join(sorted(extra))}: it has one of each animal, "
        "2 poop and 2 shovels",
    )
    state.phase = phase = field("phase", one_of(*PHASES))
    field.require(
        (len(state.run) == RUN_SIZE) == (phase != SETUP_RUN),
        f"a chicken run of {len(state.run)} cards in phase {phase} (it has "
        f"{RUN_SIZE} once laid out)",
    )
    state.hands = field("hands", list_of(_CARDS, n, n))
    state.stacks = field("stacks", list_of(_CARDS, n, n))
    state.played = field("played", or_none(_ANIMAL, "no card played"))
    state.player = field("player", whole(0, n - 1))
    state.face_up = field("face_up", list_of(whole(0, RUN_SIZE - 1), 0, RUN_SIZE))
    state.draws_left = field("draws_left", whole(0, max(PENALTY.values())))
    state.swaps_left = field("swaps_left", whole(0, RUN_SIZE - 1))
    state.turn = field("turn", whole(0, game.params["max_turns"]))
    state.winner = field("winner", or_none(whole(0, n - 1), "no winner yet"))
    state.capped = field("capped", FLAG)
    state.events = field(
        "events",
        Spec(
            'a list of events: ["reveal", position, card], '
            '["swap", p, q], ["draw", from, to] or ["hide"]',
            lambda v: isinstance(v, list) and all(_is_event(e, n) for e in v),
        ),
    )
    _check_cards(state, field)
    if phase in SETUP_PHASES:
        field.require(
            not (
                state.face_up
                or state.events
                or state.played
                or state.draws_left
                or state.swaps_left
                or state.turn
                or state.capped
            )
            and state.winner is None,
            f"play under way in set-up phase {phase}",
        )
        return
    _check_phase(state, field)
    _check_log(state, field)
    _check_history(state, field)


def _is_event(event, players: int) -> bool:
    if (
        not isinstance(event, list)
        or not event
        or event[0] not in ("reveal", "swap", "draw", "hide")
    ):
        return False
    if event[0] == "hide":
        return len(event) == 1
    if len(event) != 3:
        return False
    if event[0] == "reveal":
        return _is_position(event[1]) and event[2] in RUN_CARDS
    if event[0] == "swap":
        return _is_position(event[1]) and _is_position(event[2])
    return all(is_whole(s) and 0 <= s < players for s in event[1:])


def _is_position(value) -> bool:
    return is_whole(value) and 0 <= value < RUN_SIZE


def _check_cards(state: ByGollyPosition, field: Fields) -> None:
    """At most 3 of each animal; the deal, while it lasts, round and round."""
    game, phase = state.game, state.phase
    cards = Counter(c for pile in (*state.hands, *state.stacks) for c in pile)
    cards.update([state.played] if state.played else [])
    extra = cards - ANIMAL_CARDS
    field.require(
        not extra,
        f"{', '.join(f'{cards[a]} {a}' for a in sorted(extra))} cards in "
        "play: there are 3 of each animal",
    )
    total, n = sum(cards.values()), game.num_players
    dealt = n * game.deal_size
    if phase in (SETUP_RUN, SETUP_DEAL):
        most = dealt - 1 if phase == SETUP_DEAL else 0
        field.require(
            not any(state.hands)
            and total <= most
            and all(
                len(s) == total // n + (seat < total % n) for seat, s in enumerate(state.stacks)
            ),
            f"{total} cards dealt in phase {phase}, not one by one round the table",
        )
    elif phase == SETUP_START:
        field.require(
            all(len(h) == HAND for h in state.hands)
            and all(len(s) == game.deal_size - HAND for s in state.stacks),
            f"hands of {[len(h) for h in state.hands]} and stacks of "
            f"{[len(s) for s in state.stacks]} cards after the deal",
        )
    else:
        field.require(total <= dealt, f"{total} animal cards in play, but {dealt} were dealt")


def _check_phase(state: ByGollyPosition, field: Fields) -> None:
    """The fields each phase goes with."""
    phase, run, up, played = state.phase, state.run, state.face_up, state.played
    last = run[up[-1]] if up else None
    field.require(len(set(up)) == len(up), f"face-up positions {up} repeat")
    needs_played = phase in (TURN, POOP_TURN, DRAW)
    rules = {
        "a card played": (played is not None) == needs_played,
        "draws left": (state.draws_left > 0) == (phase == DRAW),
        "swaps left": state.swaps_left < len(up) if phase == SWAP else state.swaps_left == 0,
        "the last card turned": {
            PLAY: all(run[p] in ANIMALS for p in up),
            TURN: all(run[p] in ANIMALS for p in up),
            LUCKY: all(run[p] in ANIMALS for p in up) and bool(state.hands[state.player]),
            POOP_TURN: last == POOP,
            DRAW: last not in (SHOVEL, None) and len(up) >= 2 and run[up[-2]] == POOP,
        }.get(phase, True),
        "the end": (phase == OVER) == (state.capped or state.winner is not None)
        and state.capped == (state.turn >= state.game.params["max_turns"]),
        "the winner's cards": state.winner is None
        or not (state.hands[state.winner] or state.stacks[state.winner] or played),
    }
    broken = [rule for rule, holds in rules.items() if not holds]
    field.require(
        not broken,
        f"phase {phase} does not go with {broken[0] if broken else ''} "
        f"(played {quoted(played)}, face up {up}, draws left "
        f"{state.draws_left}, swaps left {state.swaps_left})",
    )
    for seat, hand in enumerate(state.hands):
        empty = not hand and not (seat == state.player and played)
        field.require(
            not empty or (seat == state.winner and not state.stacks[seat]),
            f"seat {seat} holds no card, yet has not won",
        )


def _check_log(state: ByGollyPosition, field: Fields) -> None:
    """The public log: one "hide" per turn ended, and since the last one, the cards
    turned over (moved by any swaps) are those face up now."""
    events = state.events
    hides = sum(e[0] == "hide" for e in events)
    field.require(
        hides == state.turn, f"{hides} turns ended in the log, but 'turn' is {state.turn}"
    )
    since = len(events) - next(
        (i for i, e in enumerate(reversed(events)) if e[0] == "hide"), len(events)
    )
    seen: dict[int, str] = {}
    order: list[int] = []
    for event in events[since:]:
        if event[0] == "reveal":
            seen[event[1]] = event[2]
            order.append(event[1])
        elif event[0] == "swap":
            p, q = event[1], event[2]
            field.require(p in seen and q in seen, f"the log swaps {p} and {q}, not both face up")
            seen[p], seen[q] = seen[q], seen[p]
    field.require(
        order == state.face_up and all(state.run[p] == c for p, c in seen.items()),
        f"the cards face up {state.face_up} do not match those the log shows "
        f"turned over this turn ({order})",
    )


def _check_history(state: ByGollyPosition, field: Fields) -> None:
    """The whole log as play makes it, turn by turn: a draw is the player of its turn
    taking from another seat; a card turned over was face down; a swap is of two
    face-up cards; and each card turned over is the one its position held then (the
    run as it is now, the later swaps undone)."""
    n, last = state.game.num_players, state.turn - 1 if state.capped else state.turn
    turn, up = 0, set[int]()
    for event in state.events:
        if event[0] == "hide":
            turn, up = turn + 1, set()
        elif event[0] == "draw":
            player = (state.player - (last - turn)) % n
            field.require(
                event[2] == player != event[1],
                f"the log's turn {turn} has a draw from seat {event[1]} to seat {event[2]}: "
                f"the player of that turn, seat {player}, draws from another seat",
            )
        elif event[0] == "reveal":
            field.require(event[1] not in up, f"the log's turn {turn} turns over {event[1]} twice")
            up.add(event[1])
        else:
            field.require(
                {event[1], event[2]} <= up,
                f"the log's turn {turn} swaps {event[1]} and {event[2]}, not both face up",
            )
    run = list(state.run)
    for event in reversed(state.events):
        if event[0] == "swap":
            run[event[1]], run[event[2]] = run[event[2]], run[event[1]]
        elif event[0] == "reveal":
            field.require(
                run[event[1]] == event[2],
                f"the log turns over {event[2]} at position {event[1]}, where the run held "
                f"{run[event[1]]}",
            )
