"""What a design search searches and what it scores: the fields and their ranges
(``--param FIELD=LOW:HIGH[:log|:int]``), the designs they make, and the objectives
measured on a design's hit map, each with its 95 % interval.

The objectives are computed from the rows of the hit map that ``design compare``
measures (per space P(target knocked out) and its interval), so whatever sampler
and intervals the hit maps use flow into the search unchanged:

- ``mean-p``: the mean P over the searched spaces; a space out of reach counts as
  P = 0 (a piggy there cannot be knocked out). Interval: the mean of independent
  estimates (:func:`models.stats.mean_interval`), each space's variance read
  from its own 95 % interval.
- ``far-rows``: the same over the spaces of the rows farthest from the tractor
  (:func:`far_rows`).
- ``flat``: the spread of P across rows (the standard deviation of the rows' mean
  P; smaller: every row about as hard). No closed form gives its interval: a
  seeded parametric bootstrap draws each space's P from a normal with its own
  variance and takes the 2.5 and 97.5 percentiles of the spread. Sampling noise
  adds to a spread, so a spread near zero reads a little high.
- ``energy``: the bale's kinetic energy at the muzzle, J (sim/studies/designs/safety.py);
  exact, its interval is the value itself.
"""

from __future__ import annotations

import hashlib
import json
import math
import tomllib
from dataclasses import dataclass

from models.board import Board, space_name
from models.design import RANGES, Design, design_from_dict, design_toml
from models.errors import InputError
from models.numbers import ascii_decimal
from models.text import shown
from sim.defaults import OBJECTIVES

#: The longest design name (models/design_checks.py).
NAME_MAX = 64
#: Most fields searched at once (every corner of their box is checked up front).
MAX_PARAMS = 8
#: Draws of the parametric bootstrap of ``flat``.
_BOOTSTRAP = 2000


@dataclass(frozen=True)
class SearchParam:
    """One searched field: ``field`` ("section.key"), its range, and its scale."""

    field: str
    low: float
    high: float
    log: bool = False
    integer: bool = False

    def to_dict(self) -> dict:
        return {
            "field": self.field,
            "low": self.low,
            "high": self.high,
            "log": self.log,
            "integer": self.integer,
        }


def field_of(name: str) -> str:
    """A design field by its full name, its key without the section, or the key
    without its unit (``pivot_height``), when that names one field only."""
    matches = [
        k
        for k in RANGES
        if k == name
        or k.split(".")[1] == name
        or k.split(".")[1].rsplit("_", 2)[0] == name
        or k.split(".")[1].startswith(name + "_")
    ]
    if len(matches) != 1:
        raise InputError(
            f"unknown or ambiguous design field '{shown(name)}': fields are {', '.join(RANGES)}"
        )
    return matches[0]


def parse_param(text: str, base: Design) -> SearchParam:
    """``FIELD=LOW:HIGH``, with ``:log`` (a log scale, LOW above 0) or ``:int``
    (whole numbers; a whole-number field always is), inside the field's allowed range."""
    name, _, span = text.partition("=")
    field = field_of(name.strip())
    pieces = span.split(":")
    scale = pieces[2].strip() if len(pieces) == 3 else ""
    bounds = [ascii_decimal(p.strip()) for p in pieces[:2]]  # ASCII digits only
    low, high = (b if b is not None else math.nan for b in [*bounds, None][:2])
    if (
        len(pieces) > 3
        or scale not in ("", "log", "int")
        or not (math.isfinite(low) and math.isfinite(high))
    ):
        raise InputError(
            f"--param must look like FIELD=LOW:HIGH, optionally :log or :int "
            f"(e.g. pivot_height=40:120); got {shown(text)}"
        )
    allowed_low, allowed_high = RANGES[field]
    if not allowed_low <= low < high <= allowed_high:
        raise InputError(
            f"--param {field}: {low:g}:{high:g} must be a range from low to high "
            f"within the field's allowed range [{allowed_low:g}, {allowed_high:g}]"
        )
    section, key = field.split(".")
    integer = scale == "int" or isinstance(getattr(getattr(base, section), key), int)
    if integer and math.floor(high) < math.ceil(low):
        raise InputError(f"--param {field}: {low:g}:{high:g} holds no whole number")
    if scale == "log" and low <= 0:
        raise InputError(f"--param {field}: a log scale needs LOW above 0, got {low:g}")
    return SearchParam(field, low, high, log=scale == "log", integer=integer)


def parse_params(texts: list[str], base: Design) -> list[SearchParam]:
    """Every ``--param``, each field once, and every design of their box valid."""
    if not texts:
        raise InputError("give at least one --param FIELD=LOW:HIGH")
    if len(texts) > MAX_PARAMS:
        raise InputError(f"at most {MAX_PARAMS} --param at once, got {len(texts)}")
    params = [parse_param(t, base) for t in texts]
    fields = [p.field for p in params]
    for index, field in enumerate(fields):
        if field in fields[:index]:
            raise InputError(f"--param names {field} twice")
    for corner in range(2 ** len(params)):  # a field's limit alone or with another's
        values = {p.field: (p.high if corner >> i & 1 else p.low) for i, p in enumerate(params)}
        with_values(base, values, "at a corner of the --param ranges")
    return params


def parse_objectives(text: str) -> list[str]:
    names = [t.strip() for t in text.split(",") if t.strip()]
    unknown = [n for n in names if n not in OBJECTIVES]
    if not names or unknown:
        raise InputError(
            f"unknown objective '{shown(unknown[0] if unknown else text)}': "
            f"allowed are {', '.join(OBJECTIVES)}"
        )
    if len(set(names)) != len(names):
        raise InputError(f"--objective names an objective twice: {shown(text)}")
    return names


def with_values(base: Design, values: dict[str, float], name: str) -> Design:
    """``base`` with the fields of ``values`` set (whole numbers for whole-number
    fields), named ``name``; an invalid combination raises :class:`InputError`."""
    data = tomllib.loads(design_toml(base))
    for field, value in values.items():
        section, key = field.split(".")
        data[section][key] = (
            round(value) if isinstance(getattr(getattr(base, section), key), int) else float(value)
        )
    data["name"] = name
    return design_from_dict(data, source=name)


def trial_name(base: Design, values: dict[str, float]) -> str:
    """A trial's design name: the base's and what changed, e.g.
    ``stock+width11.23+pivot78.64`` (each field by the first word of its name, its
    section's too where two share it; 4 significant digits). The same values give
    the same name, so the hit-map cache finds a design tried before. A name over
    the 64 characters a design's may have keeps the base's and a digest of the
    values instead."""
    firsts = [field.split(".")[1].split("_")[0] for field in values]
    changes = "".join(
        f"+{short if firsts.count(short) == 1 else field.split('.')[0] + '-' + short}{value:.4g}"
        for (field, value), short in zip(values.items(), firsts, strict=True)
    )
    if len(changes) <= NAME_MAX - 8:
        return base.name[: NAME_MAX - len(changes)] + changes
    digest = hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:8]
    return f"{base.name[:48]} opt-{digest}"


# --- objectives -----------------------------------------------------------------------------
def far_rows(board: Board) -> tuple[int, ...]:
    """The rows farthest from the tractor: those whose centre line lies within one
    space of the farthest row's (on the stock board rows 0, 1, 9 and 10)."""
    distance = {r: abs(float(board.space_center_mm((r, 0))[1])) for r in range(board.rows)}
    farthest = max(distance.values())
    return tuple(r for r, d in distance.items() if d >= farthest - board.space_mm * 1.01)


def objective_spaces(board: Board, spaces: tuple[str, ...], objective: str) -> tuple[str, ...]:
    """The spaces an objective is measured on (of the searched spaces); refused when
    it would be measured on none."""
    if objective != "far-rows":
        return spaces
    rows = far_rows(board)
    chosen = tuple(s for s in spaces if board.parse_space(s)[0] in rows)
    if not chosen:
        far = ", ".join(space_name(s) for s in board.spaces if s[0] in rows)
        raise InputError(
            f"objective far-rows: --spaces names no space of the rows farthest "
            f"from the tractor (rows {', '.join(map(str, rows))}: {far})"
        )
    return chosen


def check_objectives(board: Board, spaces: tuple[str, ...], objectives: list[str]) -> None:
    for objective in objectives:
        objective_spaces(board, spaces, objective)
    if "flat" in objectives and len({board.parse_space(s)[0] for s in spaces}) < 2:
        raise InputError("objective flat compares rows: --spaces must span at least two rows")


def _space_estimates(rows: list[dict]) -> dict[str, tuple[float, float]]:
    """Per space, P(target knocked out) and its sampling variance read from its 95 %
    interval; a space out of reach: (0, 0)."""
    from models.stats import Z_95  # numpy's: imported once there are rows (a fast start)

    out = {}
    for row in rows:
        if not row["reachable"] or not row["shots"]:
            out[row["space"]] = (0.0, 0.0)
            continue
        half = (row["p_target_ci_high"] - row["p_target_ci_low"]) / 2
        out[row["space"]] = (float(row["p_target"]), (half / Z_95) ** 2)
    return out


def _mean_p(estimates: dict, spaces) -> tuple[float, float, float]:
    from models.stats import mean_interval

    mean, low, high = mean_interval(
        [estimates[s][0] for s in spaces], [estimates[s][1] for s in spaces]
    )
    return mean, max(low, 0.0), min(high, 1.0)


def _flat(board: Board, estimates: dict) -> tuple[float, float, float]:
    import numpy as np  # here: --param is parsed before numpy is loaded (a fast start)

    names = list(estimates)
    rows = np.array([board.parse_space(s)[0] for s in names])
    labels = np.unique(rows)
    p = np.array([estimates[s][0] for s in names])
    sd = np.sqrt([estimates[s][1] for s in names])

    def spread(values: np.ndarray) -> np.ndarray:  # (..., spaces) -> (...)
        means = np.stack([values[..., rows == r].mean(axis=-1) for r in labels], axis=-1)
        return means.std(axis=-1)

    draws = np.clip(np.random.default_rng(0).normal(p, sd, (_BOOTSTRAP, len(p))), 0.0, 1.0)
    low, high = np.percentile(spread(draws), [2.5, 97.5])
    return float(spread(p)), float(low), float(high)


def objective_values(
    board: Board, rows: list[dict], objectives: list[str], energy_j: float
) -> dict[str, tuple[float, float, float]]:
    """Each objective as (value, low, high) from one design's hit-map rows."""
    estimates = _space_estimates(rows)
    spaces = tuple(estimates)
    out: dict[str, tuple[float, float, float]] = {}
    for objective in objectives:
        if objective == "energy":
            out[objective] = (energy_j, energy_j, energy_j)
        elif objective == "flat":
            out[objective] = _flat(board, estimates)
        else:
            out[objective] = _mean_p(estimates, objective_spaces(board, spaces, objective))
    return {k: _rounded(values) for k, values in out.items()}


def _rounded(values: tuple[float, float, float]) -> tuple[float, float, float]:
    value, low, high = (round(float(v), 6) for v in values)
    return value, low, high


def worst_value(objective: str) -> float:
    """What a trial that fired no shot (an unsafe or invalid design) scores."""
    return {"mean-p": 0.0, "far-rows": 0.0, "flat": 0.5}.get(objective, 1e9)
