"""What a design search measures with (``piggy design optimise``): everything
checked before any shot, and what a study's trials depend on."""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass

from models.board import Board
from models.design import Design, design_content_sha256
from sim.studies import datafiles, design_search, racing, space_shots
from sim.studies.safety import SafetyLimits


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
