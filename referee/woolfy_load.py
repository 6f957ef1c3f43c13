"""Reading a saved Woolfy state: every field, and the rules a position must satisfy:
the piglets on squares, in houses (each within its capacity, the brick house built)
or in the pot, the start square left in order, the phase and the fields that go
with it, and the result agreeing with where the piglets are (docs/rules/woolfy.md).

Below the game's module (referee.woolfy), which plays from the position this reads:
what it needs of the state and the game is named here by their fields
(:class:`WoolfyPosition`, :class:`WoolfyRules`), never by importing the module that
imports this one; the terms come from referee.woolfy_terms.
"""

from __future__ import annotations

from typing import Any, Protocol

from referee.validate import (
    FLAG,
    OBJECT,
    Fields,
    Spec,
    is_whole,
    list_of,
    one_of,
    or_none,
    quoted,
    whole,
)
from referee.woolfy_terms import CHOOSE, DIE, HOUSE, HOUSES, MOVE, OVER, PIGLETS, POT


class WoolfyRules(Protocol):
    """What the reader needs of the game (referee.woolfy's ``WoolfyGame``)."""

    params: dict[str, Any]
    length: int
    wolf_squares: tuple[int, ...]
    capacity: dict[str, int]
    die: list[tuple[str, float]]

    @property
    def num_players(self) -> int: ...


class WoolfyPosition(Protocol):
    """The state as the reader fills it in (referee.woolfy's ``WoolfyState``): its
    fields, so that the type checker holds the state to them where it is passed."""

    @property
    def game(self) -> WoolfyRules: ...

    where: dict[str, int | str]
    wolf: int
    brick: int
    left_start: list[str]
    last_die: str | None
    rescue_armed: bool
    phase: str
    player: int
    chosen: str | None
    rolled: str | None
    rescuing: bool
    turn: int
    result: str | None
    capped: bool

    def in_house(self, house: str) -> list[str]: ...

    def may_roll_again(self) -> bool: ...


def load(state: WoolfyPosition, data: dict) -> None:
    """Set ``state`` from a saved state's fields, or a one-line InputError."""
    game, field = state.game, Fields("woolfy", data)
    p, cap = game.params, game.params["max_turns"]
    piglets = field("piglets", OBJECT)
    field.require(
        set(piglets) == set(PIGLETS), f"'piglets' must place exactly {', '.join(PIGLETS)}"
    )
    place = Spec(
        f"a square 0-{game.length - 1}, a house ({', '.join(HOUSES)}) or the pot",
        lambda v: v in (*HOUSES, POT) or (is_whole(v) and 0 <= v < game.length),
    )
    state.where = {pig: field.item(f"piglets.{pig}", piglets[pig], place) for pig in PIGLETS}
    state.wolf = field(
        "wolf",
        Spec(
            f"a wolf square ({p['wolf_squares']})",
            lambda v: is_whole(v) and v in game.wolf_squares,
        ),
    )
    state.brick = field("brick_parts", whole(0, p["brick_parts"]))
    for house in HOUSES:
        inside = state.in_house(house)
        field.require(
            len(inside) <= game.capacity[house]
            and not (house == "brick" and inside and state.brick < p["brick_parts"]),
            f"{', '.join(inside)} in the {house} house, which holds "
            f"{game.capacity[house]}" + (" once built" if house == "brick" else ""),
        )
    state.left_start = field("left_start", list_of(one_of(*PIGLETS), 0, len(PIGLETS)))
    field.require(
        state.left_start == [p for p in PIGLETS if p in state.left_start]
        and all(
            state.where[pig] == p["start_square"] or pig in state.left_start for pig in PIGLETS
        ),
        f"'left_start' {quoted(state.left_start)} must list, in the order "
        f"{', '.join(PIGLETS)}, every piglet that is off the start square",
    )
    piglet = or_none(one_of(*PIGLETS), "none")
    state.last_die, state.chosen = field("last_die", piglet), field("chosen", piglet)
    faces = sorted({text.split()[1] for text, _ in game.die} - {"wolf"})
    state.rolled = field("rolled", or_none(one_of(*faces), "not rolled (this game's die)"))
    state.rescue_armed, state.rescuing = field("rescue_armed", FLAG), field("rescuing", FLAG)
    state.phase = field("phase", one_of(CHOOSE, DIE, MOVE, HOUSE, OVER))
    state.player = field("player", whole(0, game.num_players - 1))
    state.turn = field("turn", whole(0, cap))
    state.result = field("result", or_none(one_of("won", "lost"), "not over"))
    state.capped = field("capped", FLAG)
    phase, chosen = state.phase, state.chosen
    field.require(
        not state.rescue_armed
        or (POT in state.where.values() and (phase == CHOOSE or (phase == OVER and state.capped))),
        f"a rescue armed in phase {phase} with "
        f"{'a piglet' if POT in state.where.values() else 'no piglet'} in the "
        "pot: it is armed by landing on an exit while one is, for the next turn",
    )
    field.require(
        (chosen is not None) == (phase in (DIE, MOVE, HOUSE))
        and (state.rolled is not None) == (phase in (MOVE, HOUSE))
        and (phase != HOUSE or state.rolled == "house")
        and (phase != MOVE or state.rolled != "house")
        and (  # a rescue is of the piglet chosen, in the pot, and only while one is
            (state.where[chosen] == POT) == state.rescuing
            if chosen is not None
            else not state.rescuing
        ),
        f"phase {phase} with piglet {quoted(chosen)} (rescuing {state.rescuing}) "
        f"and roll {quoted(state.rolled)}",
    )
    if chosen is not None and chosen == state.last_die:  # ruling 6, as it was at the choice
        others_potted = [p for p in PIGLETS if p != chosen and state.where[p] == POT]
        exception = state.game.params["same_piglet_exception"]
        field.require(
            not others_potted if state.rescuing else state.may_roll_again(),
            f"{chosen} chosen in phase {phase}, the piglet rolled last turn: ruling 6 allows "
            + (
                f"that on a rescue only with no other in the pot ({', '.join(others_potted)})"
                if state.rescuing
                else f"that only when the other two are in the pot or in houses "
                f"(same_piglet_exception {exception})"
            ),
        )
    places = list(state.where.values())
    won, potted = places.count("brick") == len(places), places.count(POT) == len(places)
    capped = state.turn >= cap and not won and not potted
    ends = "won" if won else "lost" if potted or capped else None
    field.require(
        (phase == OVER) == (state.result is not None)
        and state.result == ends
        and state.capped == capped,
        f"result {quoted(state.result)} (capped {state.capped}) in phase {phase}, "
        f"turn {state.turn} of {cap}, with the piglets at {places}",
    )
