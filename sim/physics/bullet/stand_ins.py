"""The engine's stand-ins: idle piggies as static bodies, woken when something
moving comes near and frozen back when they have come to rest (docs/physics.md,
"Idle piggies: static stand-ins, woken before anything touches them").

A static stand-in costs Bullet nothing a step; a dynamic piggy costs a lot. A
stand-in that comes within two steps' travel of a moving body's bounding box is
swapped for a dynamic body, at rest, before anything can touch it; a woken piggy
at rest, with nothing in play near it, goes back to its stand-in where it lies.
Lengths inside are cm, as in :mod:`sim.physics.bullet.scene`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from sim.physics.bullet import pb
from sim.physics.bullet.scene import REST_CHECK_EVERY, Scene, parking_cm

#: A bounding box: its (low, high) corners, cm.
Box = tuple[tuple[float, float, float], tuple[float, float, float]]


class StandIns:
    """The stand-ins of a scene's piggies, and the piggies woken in this shot.

    Make one after the scene's layout has settled: it swaps every piggy's dynamic
    body for a static stand-in at its resting pose. Between shots, :meth:`reset`
    takes the scene back to that state.

    Attributes
    ----------
    woken : piggy -> its dynamic body, for the piggies awake now, in waking order.
    disturbed : the piggies woken in this shot (those whose verdict may change).
    look_at : the step of the next look for stand-ins to wake.
    """

    def __init__(self, scene: Scene):
        self.scene = scene
        piggy = scene.design.piggy
        self._proxies: dict[str, int] = {}
        for name, body in scene.piggy_bodies.items():
            scene.remove(body)
            position, orientation = scene.rest_poses_cm[name]
            proxy = scene.call(
                pb.createMultiBody,
                0,
                scene.piggy_shape,
                basePosition=position,
                baseOrientation=orientation,
                useMaximalCoordinates=True,
            )
            scene.call(
                pb.changeDynamics,
                proxy,
                -1,
                **scene.surface(piggy.friction, piggy.restitution, "piggy"),
            )
            self._proxies[name] = proxy
            scene.names[proxy] = name
        self._rest_boxes: dict[str, Box] = {
            name: scene.call(pb.getAABB, p) for name, p in self._proxies.items()
        }
        scene.piggy_bodies = dict(self._proxies)
        self._clear()

    def _clear(self) -> None:
        self._stand_in_boxes = dict(self._rest_boxes)  # where each stand-in is now
        self._in_play: list[tuple[str, Box]] | None = None  # stand-ins in play, when known
        self.woken: dict[str, int] = {}
        self.disturbed: set[str] = set()
        self._made: list[int] = []  # dynamic bodies made in this shot, oldest first
        self.look_at = 0

    @property
    def parking_slots(self) -> int:
        """Parking slots the stand-ins use (slot 0 is the bale's, then one for each
        piggy); slots beyond are free."""
        return 1 + len(self._proxies)

    def remove_made(self) -> None:
        """Remove the dynamic bodies made in this shot, newest first, so that Bullet's
        body arrays return to the order they had."""
        for body in reversed(self._made):
            self.scene.remove(body)

    def reset(self) -> None:
        """The disturbed stand-ins back to their resting poses, nobody awake (after
        :meth:`remove_made`)."""
        scene = self.scene
        for piggy in self.disturbed:
            scene.call(
                pb.resetBasePositionAndOrientation,
                self._proxies[piggy],
                *scene.rest_poses_cm[piggy],
            )
            scene.piggy_bodies[piggy] = self._proxies[piggy]
        self._clear()

    def apply_materials(self) -> None:
        """The stand-ins' contact coefficients under the scene's material factors."""
        piggy = self.scene.design.piggy
        for proxy in self._proxies.values():
            self.scene.call(
                pb.changeDynamics,
                proxy,
                -1,
                **self.scene.surface(piggy.friction, piggy.restitution, "piggy"),
            )

    def wake_all(self) -> None:
        """Every piggy woken (a design that keeps every piggy dynamic)."""
        for piggy in self._proxies:
            self.wake(piggy)

    def wake(self, piggy: str) -> int:
        """Swap a piggy's static stand-in for a new dynamic body at rest at the same
        pose; return that body."""
        scene, proxy = self.scene, self._proxies[piggy]
        pose = scene.call(pb.getBasePositionAndOrientation, proxy)
        scene.call(
            pb.resetBasePositionAndOrientation,
            proxy,
            parking_cm(1 + list(self._proxies).index(piggy)),
            [0, 0, 0, 1],
        )
        self._in_play = None
        body = scene.make_piggy(piggy, *pose)
        self._made.append(body)
        scene.piggy_bodies[piggy] = body
        self.woken[piggy] = body
        self.disturbed.add(piggy)
        return body

    def freeze(self, piggy: str) -> None:
        """Swap a woken piggy that has come to rest back for its static stand-in,
        where it now lies (Bullet's sleeping, at no cost at all)."""
        scene = self.scene
        body = self.woken.pop(piggy)
        pose = scene.call(pb.getBasePositionAndOrientation, body)
        # parked, not removed: bodies are removed only newest first (see remove_made)
        scene.park(body, self.parking_slots + self._made.index(body))
        scene.call(pb.resetBasePositionAndOrientation, self._proxies[piggy], *pose)
        scene.piggy_bodies[piggy] = self._proxies[piggy]
        self._stand_in_boxes[piggy] = scene.call(pb.getAABB, self._proxies[piggy])
        self._in_play = None

    def freeze_quiet(
        self,
        quiet: dict[str, int],
        restless: set[int],
        in_play: set[int],
        reach_cm: float,
        quiet_steps_needed: int,
    ) -> None:
        """Freeze the woken piggies that have been at rest for ``quiet_steps_needed``
        steps, as groups: a piggy goes only if every other body in play within reach
        of it goes too (a body left in play would wake it again at once).

        ``quiet`` (piggy -> steps it has been at rest) is counted on here, called
        once every ``REST_CHECK_EVERY`` steps."""
        for piggy, body in self.woken.items():
            quiet[piggy] = 0 if body in restless else quiet.get(piggy, 0) + REST_CHECK_EVERY
        going = {
            body: piggy for piggy, body in self.woken.items() if quiet[piggy] >= quiet_steps_needed
        }
        near = {body: self._near(body, reach_cm, in_play - {body}) for body in going}
        while True:
            staying = [body for body in going if not near[body] <= going.keys()]
            if not staying:
                break
            for body in staying:
                del going[body]
        for piggy in sorted(going.values()):
            self.freeze(piggy)
            del quiet[piggy]  # woken again, it starts counting anew

    def _near(self, body: int, reach_cm: float, others: set[int]) -> set[int]:
        """Those of ``others`` within ``reach_cm`` of a body's bounding box."""
        low, high = self.scene.call(pb.getAABB, body)
        near = self.scene.call(
            pb.getOverlappingObjects, [c - reach_cm for c in low], [c + reach_cm for c in high]
        )
        return {other for other, _ in near or () if other in others}

    def wake_near(self, movers: Iterable[int], step: int, reach_cm: float) -> None:
        """Wake every stand-in within ``reach_cm`` (two steps' travel at the fastest)
        of a moving body's bounding box, so that it is dynamic before anything can
        touch it.

        The next look (:attr:`look_at`) is due when a moving body could have closed
        the smallest gap to within one reach: the piggies woken, and when, are those
        a look at every step would wake.
        """
        if self._in_play is None:
            self._in_play = [
                (name, self._stand_in_boxes[name])
                for name, proxy in self._proxies.items()
                if self.scene.piggy_bodies[name] == proxy
            ]
        movers = list(movers)
        if not movers or not self._in_play:
            self.look_at = step + 1
            return
        # plain Python: a few boxes, called on a third of the steps (numpy was slower)
        nearest, reached = math.inf, set()
        client = self.scene.client
        for body in movers:
            (l0, l1, l2), (h0, h1, h2) = pb.getAABB(body, physicsClientId=client)
            for name, ((a0, a1, a2), (b0, b1, b2)) in self._in_play:
                # the gap between the boxes along the axis where they lie farthest apart
                gap = max(a0 - h0, a1 - h1, a2 - h2, l0 - b0, l1 - b1, l2 - b2)
                if gap <= reach_cm:
                    reached.add(name)
                nearest = min(nearest, gap)
        if reached:
            # in a fixed order: creation order steers the solver
            for piggy in sorted(reached):
                self.wake(piggy)
            self.look_at = step + 1
        else:
            self.look_at = step + max(1, int((nearest - reach_cm) / (reach_cm / 2)) - 1)
