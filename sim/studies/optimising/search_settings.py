"""What a design search measures with (``piggy design optimise``): everything
checked before any shot, and what a study's trials depend on."""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass

from models.board import Board
from models.design import Design, design_content_sha256
from sim.studies.designs import search as design_search
from sim.studies.designs.safety import SafetyLimits
from sim.studies.optimising import racing
from sim.studies.shots import datafiles, space_shots

#: A best value this close to an end of its search range (a fraction of the range's
#: width, on its scale) is "at the edge": the best may lie beyond it, and only a wider
#: range can say (19.7 mm in 5:20 is 2 % from the top).
EDGE_FRACTION = 0.05


def at_edge(params: list, values: dict[str, float]) -> list[dict]:
    """The searched fields whose value in ``values`` (a trial's) lies at an end of
    its range, within :data:`EDGE_FRACTION` of the range's width (on a log range, of
    its logarithm's): each as ``field``, ``value``, ``edge`` (``low`` or ``high``)
    and ``range``."""
    found = []
    for param in params:
        value = values.get(param.field)
        if value is None:
            continue
        scale = math.log if param.log else float
        low, high, at = scale(param.low), scale(param.high), scale(value)
        for edge, distance in (("low", at - low), ("high", high - at)):
            if distance <= EDGE_FRACTION * (high - low):
                found.append(
                    {
                        "field": param.field,
                        "value": value,
                        "edge": edge,
                        "range": [param.low, param.high],
                    }
                )
    return found


def edge_words(edge: dict) -> str:
    """One field :func:`at_edge` found, in words: "at the edge of the range:
    launcher.pivot_height_mm = 19.7, the top of 5:20: widen it?"."""
    low, high = edge["range"]
    end = "top" if edge["edge"] == "high" else "bottom"
    return (
        f"at the edge of the range: {edge['field']} = {edge['value']:.4g}, the {end} of "
        f"{low:g}:{high:g}: widen it?"
    )


@dataclass(frozen=True)
class Search:
    """Everything a search measures with, checked before any shot."""

    base: Design
    params: list
    objectives: list
    spec: space_shots.SweepSpec
    board: Board
    limits: SafetyLimits
    min_reach: int
    fidelity: int = 10
    pruner: str = "wilcoxon"
    remeasure: int = racing.REMEASURE

    def settings(self) -> dict:
        """What a study's trials depend on: a study resumed must have the same."""
        return {
            "base_sha256": design_content_sha256(self.base),
            "params": [p.to_dict() for p in self.params],
            "objectives": self.objectives,
            "hitmaps": json.loads(dataclasses.replace(self.spec, design="").key()),
            "limits": [self.limits.kinetic_energy_j, self.limits.kinetic_energy_per_area_j_m2],
            "min_reach": self.min_reach,
            "fidelity": self.fidelity,
            "pruner": self.pruner if self.raced else "none",
        }

    @property
    def raced(self) -> bool:
        """Whether trials race (one mean-type objective, and a pruner asked for)."""
        return self.pruner != "none" and racing.races(self.objectives)

    @property
    def fired_spaces(self) -> tuple[str, ...]:
        """The spaces a trial fires at: those its objectives are measured on (none
        for the energy alone: reach is known without a shot)."""
        wanted: set[str] = set()
        for objective in self.objectives:
            if objective != "energy":
                spaces = design_search.objective_spaces(self.board, self.spec.spaces, objective)
                wanted.update(spaces if objective != "flat" else self.spec.spaces)
        return tuple(s for s in self.spec.spaces if s in wanted)

    @property
    def full_is_search(self) -> bool:
        """Whether the low fidelity is the full precision already (``--shots N`` no
        more than the fidelity, without ``--precision``): nothing to measure again."""
        return self.spec.precision is None and self.spec.shots <= self.fidelity

    def default_study(self) -> str:
        return "optimise-" + datafiles.sha256_text(json.dumps(self.settings(), sort_keys=True))[:16]
