"""The rule of a design comparison, built once and carried with it: how the shots
are fired and when they stop, read by the comparison's record, its provenance, the
report page, the JSON and the command line.

- ``mean`` (the default): the board mean is the question (models/mean_rule.py; the
  shots: sim/studies/comparing/board_mean.py), δ the mean's (by default half the precision);
- ``spaces``: each space until its sign is decided or its difference lies within
  ±δ (models/sequential.py; sim/studies/comparing/paired.py), δ by default the precision;
  ``paired``, its name before, is accepted for it;
- ``per-map``: each design's hit map to ±precision on its own, then paired.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

from models.errors import InputError

if TYPE_CHECKING:  # the rules' statistics import numpy: a bad --rule is told before it
    from models.mean_rule import MeanRule
    from models.sequential import PairedRule
    from sim.studies.running.cluster import StudyWorkers
    from sim.studies.shots.space_shots import SweepSpec

#: The rules of ``design compare``, the default first.
RULES = ("mean", "spaces", "per-map")
DEFAULT_RULE = RULES[0]
#: Older names still accepted, and the rule each names now.
ALIASES = {"paired": "spaces"}
#: δ of the board mean, as a share of the precision: a mean over m spaces is measured
#: about √m times more closely than a space, and a whole board moved by the precision
#: would be a large change; half of it still asks little (docs/hitmap.md).
MEAN_DELTA_SHARE = 0.5


def check_rule(name: str, delta: float | None = None, budget_s: float | None = None) -> str:
    """A rule's name (an older name as the rule it names now) with the options it
    takes: an unknown name, a δ for per-map or a budget for a rule other than the
    mean is refused on one line. Plain text: the command line calls it before any
    study module is imported."""
    name = ALIASES.get(name, name)
    if name not in RULES:
        raise InputError(
            f"unknown rule '{name}': allowed are {', '.join(RULES)} (paired: spaces' old name)"
        )
    if delta is not None and name == "per-map":
        raise InputError("--delta is the mean and spaces rules': leave it out with --rule per-map")
    if budget_s is not None and name != "mean":
        raise InputError(
            "--budget is the mean rule's (its looks are fixed over the whole board): "
            f"leave it out with --rule {name}, or cap the shots with --shots"
        )
    return name


def default_delta(name: str, precision: float | None) -> float | None:
    """δ when none is given: the precision for ``spaces``, half of it for ``mean``
    (None without a precision: no stop as equivalent)."""
    if precision is None or name == "per-map":
        return None
    return precision * (MEAN_DELTA_SHARE if name == "mean" else 1.0)


@dataclass(frozen=True)
class ComparisonRule:
    """A comparison's rule: its name, δ, the rule's constants (``mean`` or ``spaces``;
    neither for ``per-map``) and the seconds given (``budget_s``: the mean rule's)."""

    name: str
    delta: float | None = None
    mean: MeanRule | None = None
    spaces: PairedRule | None = None
    budget_s: float | None = None

    @property
    def sequential(self) -> bool:
        """Whether the designs fire together (mean, spaces), not each on its own."""
        return self.name != "per-map"

    def provenance(self) -> dict:
        """What a comparison's provenance records of its rule: its name, and its
        constants with its looks (and the budget given) under ``mean_rule`` or
        ``paired_rule``."""
        if self.mean is not None:
            constants = dataclasses.asdict(self.mean) | {"looks": list(self.mean.looks())}
            return {"rule": self.name, "mean_rule": constants | {"budget_s": self.budget_s}}
        if self.spaces is not None:
            constants = dataclasses.asdict(self.spaces) | {"looks": list(self.spaces.looks())}
            return {"rule": self.name, "paired_rule": constants}
        return {"rule": self.name}

    def cache_key(self) -> str:
        """What of the rule makes the shots (the budget does not: it chooses only how
        many looks are taken); the spaces rule's as before its rename, so that its
        cached maps are found again."""
        import json

        if self.mean is not None:
            return "mean|" + json.dumps(dataclasses.asdict(self.mean), sort_keys=True)
        assert self.spaces is not None
        constants = dataclasses.asdict(self.spaces)
        constants["rounds"] = constants.pop("streams")
        return "paired|" + json.dumps(constants, sort_keys=True)


#: The per-map rule (it has no constants).
PER_MAP = ComparisonRule("per-map")


def streams_of(spec: SweepSpec) -> int:
    """Pairs come a point of every RQMC scramble at a time, or a shot at a time."""
    from sim.studies.shots import rqmc

    return rqmc.plan(spec.shots, spec.precision)[0] if spec.sampler == "rqmc" else 1


def comparison_rule(
    spec: SweepSpec,
    name: str = DEFAULT_RULE,
    delta: float | None = None,
    budget_s: float | None = None,
) -> ComparisonRule:
    """The rule ``name`` for a comparison of ``spec``'s spaces, at most ``spec.shots``
    pairs a space (a whole number of rounds); ``delta`` None: :func:`default_delta`."""
    name = check_rule(name, delta, budget_s)
    if delta is None:
        delta = default_delta(name, spec.precision)
    if name == "per-map":
        return ComparisonRule(name)
    from models.mean_rule import MeanRule
    from models.sequential import PairedRule

    streams = streams_of(spec)
    cap = streams * (spec.shots // streams)
    spaces = len(spec.spaces)
    if name == "spaces":
        return ComparisonRule(name, delta, spaces=PairedRule(cap, delta, spaces, streams))
    return ComparisonRule(
        name, delta, mean=MeanRule(cap, delta, spaces, streams), budget_s=budget_s
    )


def check_budget(rule: ComparisonRule, designs: int, workers: StudyWorkers) -> ComparisonRule:
    """``rule`` when its budget (the mean rule's) can hold its first look: ``designs``
    designs at every space, at the rate a worker fires about
    (sim/studies/running/workers.py); a budget too small is refused on one line,
    naming the smallest that fits, before any shot."""
    if rule.mean is None or rule.budget_s is None:
        return rule
    from sim.studies.running.workers import SHOTS_PER_S_A_WORKER, shots_seconds

    first_look = rule.mean.looks()[0]
    smallest = shots_seconds(first_look * rule.mean.spaces * designs, workers)
    if rule.budget_s < smallest:
        raise InputError(
            f"--budget {rule.budget_s:g} is too small for the first look: give at least "
            f"{math.ceil(smallest)} s ({first_look} pairs a space, "
            f"{designs} designs, at {SHOTS_PER_S_A_WORKER:g} shots/s a worker)"
        )
    return rule
