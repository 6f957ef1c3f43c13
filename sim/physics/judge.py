"""The engine's judge: the knock-out test (docs/rules/go-piggy-go.md, ruling 7) on the
scene's piggies as they stand, each against where it stood before the shot
(:mod:`sim.physics.knockout` holds the geometry; docs/physics.md, "The knock-out
test").
"""

from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from models.board import space_name
from sim.physics import knockout
from sim.physics.engine import JudgedScene
from sim.physics.results import PiggyResult


class Judge:
    """Judges a scene's piggies (any engine's) against their poses when it was made.

    Make one once the layout has settled and its piggies stand where every shot
    starts from; :attr:`at_rest` holds the verdicts on the layout as it stands (a
    piggy no shot disturbs keeps its verdict)."""

    def __init__(self, scene: JudgedScene):
        self.scene = scene
        self._start_poses = {n: scene.piggy_pose(n) for n in scene.piggy_bodies}
        self._start_parts_mm = {n: scene.model.parts_at(p) for n, p in self._start_poses.items()}
        self.at_rest = self.verdicts(scene.layout.piggies)

    def after_shot(self, disturbed: Iterable[str]) -> dict[str, PiggyResult]:
        """Every piggy's verdict after a shot: the ``disturbed`` ones judged as they
        stand now, the others keeping their verdicts on the layout."""
        piggies = dict(self.at_rest)
        piggies.update(self.verdicts(sorted(disturbed)))
        return piggies

    def knocked_out(self, piggy: str, against_start: bool = True) -> knockout.Verdict:
        """The knock-out test on a piggy as it stands now, against where it stood
        before the shot (or, ``against_start=False``, on its own place alone)."""
        scene, board = self.scene, self.scene.board
        return knockout.verdict_on(
            scene.model.parts_at(scene.piggy_pose(piggy)),
            board.space_center_mm(scene.layout.space_of(piggy)),
            board.space_mm,
            board.line_mm,
            board.surface_extent_mm,
            scene.hit_rule,
            self._start_parts_mm[piggy] if against_start else None,
        )

    def verdicts(self, piggies: Iterable[str]) -> dict[str, PiggyResult]:
        """The verdict on each of these piggies as it stands now, with how far it
        moved (mm, its centre of mass across the board) and how far it tilts (deg)."""
        scene, results = self.scene, {}
        for piggy in piggies:
            verdict = self.knocked_out(piggy)
            pose = scene.piggy_pose(piggy)
            position, rotation = scene.model.own_frame(pose)
            start = self._start_poses[piggy]
            moved = float(np.linalg.norm(pose.position_mm[:2] - start.position_mm[:2]))
            tilt = math.degrees(math.acos(float(np.clip(rotation[2, 2], -1.0, 1.0))))
            results[piggy] = PiggyResult(
                piggy,
                space_name(scene.layout.space_of(piggy)),
                scene.layout.level_of(piggy),
                moved,
                verdict.knocked,
                verdict.reason,
                list(position),
                tilt,
                start,
                pose,
            )
        return results
