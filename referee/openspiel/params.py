"""Game parameters through OpenSpiel's game strings, ``python_woolfy(players=3,...)``.

OpenSpiel's parameters are typed (int, bool, str; a value that looks like a
number is read as one) and its game strings split on commas, so three of our
parameters are written differently there:

- lists (``die_faces``, ``wolf_squares``, ``pot_exits``) separate their items with
  ``;`` instead of ``,`` (``die_faces=1;2;3;4;5;tractor``); a one-item list keeps a
  trailing ``;`` (``pot_exits=4;``), else OpenSpiel reads it as a number;
- pig_out's preset-dependent parameters take ``-1`` for "the preset's value"
  (``target``, ``dice``, ``cards``, ``first_player``; ``cards`` is otherwise 0 or 1,
  ``first_player`` a seat or ``-2`` for the roll-off), and ``pig_faces`` writes its
  faces as digits (``1``, ``6``, ``16`` for 1 and 6);
- Go Piggy Go!'s shot resolver is the string ``shots``: ``scripted`` (the target
  knocked out half the time), ``scripted:P``, or ``table:FILE`` (a hit map file,
  CSV or Parquet, from ``piggy hitmap``). Never the physics: the referee does not
  import PyBullet.

One parameter is the adapter's own: pig_out's ``horizon``, the player moves
after which the game ends undecided (a Pig turn may have any number of rolls, and
OpenSpiel needs a longest game). Every other parameter is the game's, with its
default.
"""

from __future__ import annotations

from models.errors import InputError
from referee.by_golly import DEFAULTS as BY_GOLLY
from referee.go_piggy_go import DEFAULTS as GO_PIGGY_GO
from referee.pig_out import DEFAULTS as PIG_OUT
from referee.shots import ScriptedResolver, TableResolver, parse_shots
from referee.woolfy import DEFAULTS as WOOLFY

LIST_SEPARATOR = ";"
PRESET_VALUE = -1
ROLL_OFF = -2
#: pig_out: the default number of player moves (rolls and holds) before the game ends
#: undecided; OpenSpiel's own Pig's ``horizon`` default, and counted the same way.
PIG_HORIZON = 1000
DEFAULT_SHOTS = "scripted"
_PIG_PRESET_KEYS = ("target", "dice", "pig_faces", "cards", "first_player")


def _spec_value(value):
    if isinstance(value, str):
        return value.replace(",", LIST_SEPARATOR)
    return value


#: OpenSpiel parameter specifications (name -> default), by our game name.
SPECS: dict[str, dict] = {
    "go_piggy_go": {
        **{k: _spec_value(v) for k, v in GO_PIGGY_GO.items() if k != "hit_rule"},
        "shots": DEFAULT_SHOTS,
    },
    "pig_out": {
        **{
            k: (PRESET_VALUE if k in _PIG_PRESET_KEYS else _spec_value(v))
            for k, v in PIG_OUT.items()
        },
        "horizon": PIG_HORIZON,
    },
    "woolfy": {k: _spec_value(v) for k, v in WOOLFY.items()},
    "by_golly": dict(BY_GOLLY),
}


def to_referee(name: str, params: dict) -> tuple[dict, dict]:
    """OpenSpiel parameters -> (our game's parameters, the adapter's options).

    The options: ``resolver`` (go_piggy_go) and ``horizon`` (pig_out).
    """
    ours, options = {}, {}
    for key, value in params.items():
        if key == "shots" and name == "go_piggy_go":
            options["resolver"] = make_resolver(value)
        elif key == "horizon" and name == "pig_out":
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InputError(f"pig_out: 'horizon' must be a whole number >= 1, got {value!r}")
            options["horizon"] = value
        elif isinstance(value, str):
            ours[key] = value.replace(LIST_SEPARATOR, ",").strip(",")
        else:
            ours[key] = value
    if name == "pig_out":
        _pig_out_presets(ours)
    return ours, options


def _pig_out_presets(params: dict) -> None:
    """-1 -> None (the preset's value); the other special spellings to ours."""
    for key in _PIG_PRESET_KEYS:
        value = params.get(key, PRESET_VALUE)
        if value == PRESET_VALUE and not isinstance(value, bool):
            params[key] = None
    faces = params.get("pig_faces")
    if faces is not None:
        if isinstance(faces, bool) or not isinstance(faces, int) or faces < 1:
            raise InputError(
                "pig_out: 'pig_faces' must be the faces as digits (6, 1, 16) or -1 "
                f"for the preset's, got {faces!r}"
            )
        params["pig_faces"] = ",".join(str(faces))
    cards = params.get("cards")
    if cards is not None:
        if cards not in (0, 1) or isinstance(cards, bool):
            raise InputError(f"pig_out: 'cards' must be 0, 1 or -1 (the preset's), got {cards!r}")
        params["cards"] = bool(cards)
    if params.get("first_player") == ROLL_OFF:
        params["first_player"] = "roll"


def make_resolver(text: str):
    """``scripted``, ``scripted:P`` or ``table:FILE`` (referee.shots.parse_shots's
    grammar, less ``physics``) -> a shot resolver."""
    if not isinstance(text, str):
        raise InputError(
            f"go_piggy_go: 'shots' must be scripted, scripted:P or table:FILE, got {text!r}"
        )
    named = parse_shots(text)
    if named is not None and named[0] == "scripted":
        if named[1] is None:
            raise InputError(f"go_piggy_go: shots={text}: the hit probability must be a number 0-1")
        return ScriptedResolver(hit_probability=float(named[1]))
    if named is not None and named[0] == "table" and named[1]:
        return TableResolver.from_file(str(named[1]))
    raise InputError(
        f"go_piggy_go: unknown shots '{text}': allowed are scripted, scripted:P, "
        "table:FILE (physical shots need PyBullet, which the referee never imports)"
    )
