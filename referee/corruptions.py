"""Saved states corrupted on purpose, for referee.checks: ways a state's JSON can be
wrong, each of which ``state_from_json`` must refuse with a one-line error.

``generic(data)`` works for any game; ``BY_GAME[name](game, data)`` knows the
game's rules. Each yields ``(what, corrupted data)`` for the corruptions that
apply to the position given (a state's JSON as a dict; ``history`` empty, so that
only the position's own rules can catch them).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator

Corruption = Iterator[tuple[str, dict]]
#: A number far beyond anything a state holds (and beyond 64 bits).
HUGE = 10**40


def _changed(data: dict, what: str, change: Callable[[dict], None]) -> Corruption:
    bad = copy.deepcopy(data)
    change(bad)
    if bad != data:
        yield what, bad


def generic(data: dict) -> Corruption:
    """Unknown and missing fields, a field of the wrong type or far out of range, and an
    out-of-range player."""
    yield from _changed(data, "an unknown field", lambda d: d.update(surprise=1))
    for key in data:
        if key in ("game", "history"):
            continue
        yield from _without(data, f"no field {key!r}", key)
        wrong = [] if isinstance(data[key], dict) else {"x": 1}
        yield from _with(data, f"{key!r} of the wrong type", key, wrong)
        yield from _with(data, f"{key!r} a huge number", key, HUGE)
    for player in (-1, 99, True, "0"):
        yield from _with(data, f"player {player!r}", "player", player)


# The field and value are parameters here, not loop variables a lambda would read late.
def _with(data: dict, what: str, key: str, value: object) -> Corruption:
    return _changed(data, what, lambda d: d.update({key: value}))


def _with_fields(data: dict, what: str, values: dict) -> Corruption:
    return _changed(data, what, lambda d: d.update(values))


def _without(data: dict, what: str, key: str) -> Corruption:
    return _changed(data, what, lambda d: d.pop(key))


# --- Go Piggy Go! ----------------------------------------------------------------------------
def _go_piggy_go(game, data: dict) -> Corruption:
    pieces, stacks = data["pieces"], data["stacks"]
    piggy = sorted(pieces)[0]
    empty, other = [s for s in sorted(game.geometry.by_name) if s not in stacks][:2]

    def on_space_without_stack(d):
        d["pieces"][piggy] = empty

    def three_high(d):
        trio = sorted(pieces)[:3]
        for p in trio:
            d["pieces"][p] = empty
            for stack in d["stacks"].values():
                if p in stack:
                    stack.remove(p)
        d["stacks"] = {s: st for s, st in d["stacks"].items() if st}
        d["stacks"][empty] = trio

    def in_two_places(d):
        d["pieces"][piggy] = empty
        d["stacks"][empty] = [piggy]
        d["stacks"][other] = [piggy]

    yield from _changed(data, "a piggy on a space with no stack", on_space_without_stack)
    yield from _changed(data, "a stack of three", three_high)
    yield from _changed(data, "a piggy in two stacks", in_two_places)
    yield from _changed(data, "an unknown piggy", lambda d: d["pieces"].update({"purple-1": "pit"}))
    yield from _changed(
        data, "a piggy off the board", lambda d: d["pieces"].update({piggy: "r999c3"})
    )
    yield from _changed(
        data,
        "a space name with a leading zero",
        lambda d: d["stacks"].update({empty.replace("r", "r0"): [piggy]}),
    )
    yield from _changed(
        data,
        "a piggy named with a newline",
        lambda d: d["pieces"].update({piggy + "\n": d["pieces"].pop(piggy)}),
    )
    yield from _changed(
        data, "3 checkpoints passed", lambda d: d["passed_checkpoints"].update({piggy: 3})
    )
    yield from _changed(data, "a die of 6", lambda d: d.update(die="6"))
    yield from _changed(
        data, "a shot with no target", lambda d: d.update(phase="shot", target=None)
    )
    yield from _changed(
        data, "more shots than turns", lambda d: d.update(shots_fired=d["turn"] + 1)
    )
    if data["winner"] is not None:
        yield from _changed(data, "a win with no die rolled", lambda d: d.update(die=None))
        yield from _changed(
            data,
            "a win by a seat that neither moved nor was carried in",
            lambda d: d.update(
                player=(d["winner"] + 1) % game.num_players,
                pieces={
                    **d["pieces"],
                    **dict.fromkeys(game.piggies_of((d["winner"] + 1) % game.num_players), "pit"),
                },
                stacks={},
            ),
        )


# --- Pig-Out -------------------------------------------------------------------------------
def _pig_out(game, data: dict) -> Corruption:
    yield from _changed(data, "player 5", lambda d: d.update(player=5))
    yield from _changed(data, "a negative score", lambda d: d["scores"].__setitem__(0, -10))
    yield from _changed(
        data,
        "a score past the target without a winner",
        lambda d: d.update(winner=None) or d["scores"].__setitem__(0, 10**6),
    )
    yield from _changed(
        data,
        "a turn total during the roll for the first player",
        lambda d: d.update(phase="rolloff", turn_total=7),
    )
    yield from _changed(
        data, "a decision before any roll", lambda d: d.update(phase="decide", turn_total=0)
    )
    yield from _changed(data, "a turn total below any roll", lambda d: d.update(turn_total=1))
    yield from _changed(data, "a fifth ace", lambda d: d["deck"].update(A=5))
    yield from _changed(
        data, "scores for another number of players", lambda d: d["scores"].append(0)
    )
    if game.params["cards"]:
        for spots in range(1, 2 * game.params["dice"] * 6):
            if spots not in game.scoring_spots:
                yield from _with_fields(
                    data, f"spots {spots}, which no roll makes", {"phase": "card", "spots": spots}
                )
    if data["winner"] is not None:
        yield from _changed(
            data,
            "a winner who did not bank",
            lambda d: d.update(player=(d["winner"] + 1) % game.num_players),
        )


# --- Woolfy --------------------------------------------------------------------------------
def _woolfy(game, data: dict) -> Corruption:
    yield from _changed(data, "a piglet on square 99", lambda d: d["piglets"].update(red=99))
    yield from _changed(
        data,
        "two piglets in the straw house",
        lambda d: d["piglets"].update(red="straw", yellow="straw"),
    )
    yield from _changed(
        data,
        "a piglet in the brick house before it is built",
        lambda d: d.update(brick_parts=0) or d["piglets"].update(red="brick"),
    )
    yield from _changed(data, "an unknown piglet", lambda d: d["piglets"].update(pink=3))
    yield from _changed(data, "the wolf off its squares", lambda d: d.update(wolf=3))
    yield from _changed(data, "a move with no roll", lambda d: d.update(phase="move", rolled=None))
    yield from _changed(
        data,
        "a win with a piglet outside",
        lambda d: d.update(
            phase="over", result="won", piglets={"red": "brick", "yellow": "brick", "blue": 5}
        ),
    )
    faces = {text.split()[1] for text, _ in game.die}
    for face in ("1", "2", "3", "4", "5", "6", "house"):
        if face not in faces:
            yield from _with_fields(
                data,
                f"a roll of {face}, which this die does not have",
                {
                    "phase": "move",
                    "chosen": "red",
                    "rolled": face,
                    "rescuing": data["piglets"]["red"] == "pot",
                },
            )
    if "pot" not in data["piglets"].values():
        yield from _changed(
            data, "a rescue armed with nobody in the pot", lambda d: d.update(rescue_armed=True)
        )


# --- By Golly! -----------------------------------------------------------------------------
def _by_golly(game, data: dict) -> Corruption:
    hand = data["hands"][0]
    yield from _changed(data, "a fourth fox", lambda d: d["hands"][0].extend(["fox"] * 4))
    yield from _changed(data, "an unknown card", lambda d: d["hands"][1].append("unicorn"))
    if len(data["run"]) == 19:
        yield from _changed(data, "a card too many in the run", lambda d: d["run"].append("fox"))
        yield from _changed(data, "a 5-card run", lambda d: d.update(run=d["run"][:5]))
        yield from _changed(
            data,
            "an animal twice in the run",
            lambda d: d["run"].__setitem__(0, "worm" if d["run"][1] != "worm" else "fox"),
        )
    if data["phase"] not in ("run", "deal", "start"):
        yield from _changed(
            data,
            "more cards than were dealt",
            lambda d: d["stacks"][0].extend(["bunny", "bunny", "bunny"] * 30),
        )
        yield from _changed(
            data, "a turn the log does not show", lambda d: d.update(turn=d["turn"] + 1)
        )
        yield from _changed(
            data,
            "a card face up the log never showed",
            lambda d: d.update(
                face_up=[*d["face_up"], next(p for p in range(19) if p not in d["face_up"])]
            ),
        )
        if hand:
            yield from _changed(
                data,
                "a card played in the play phase",
                lambda d: d.update(played=hand[0], phase="play"),
            )


BY_GAME: dict[str, Callable[..., Corruption]] = {
    "by_golly": _by_golly,
    "go_piggy_go": _go_piggy_go,
    "pig_out": _pig_out,
    "woolfy": _woolfy,
}
