"""The contact sensors a batch of MuJoCo shots (:mod:`sim.physics.mujoco.batch`)
reads its strikes and woken piggies from: the scene's own model compiled again
with sensors added (nothing else changes: the same bodies, geoms, pairs and
options, so the same steps), recorded every step of a chunk with no Python
between the steps.

- **The bale against each thing.** One sensor for each thing the bale can strike,
  as :class:`~sim.physics.mujoco.world.MujocoWorld` keys its strikes: each static
  geom (a fence box is a thing of its own), the tractor, each piggy. It gives how
  many contacts the bale has with the thing, and the first few of them in MuJoCo's
  order (:data:`PIGGY_SLOTS` of a piggy's, :data:`SLOTS` of anything else's), each
  with its force (the normal first: a contact that pushed) and its point.
- **Piggy against piggy.** One sensor for each pair of piggies: whether they touch
  (a piggy touching a woken one is woken).
- **Piggy against the ground.** One for each piggy and each geom of the board and
  the table: whether it lies on them (the early verdict's test of a piggy).
- **Sleep.** A sensor of a sleeping body keeps its last values (MuJoCo does not
  compute it), and a body asleep at a step's start has no contact with a static or
  sleeping thing in that step. So the bale's sensors count in a step only where it
  was awake at the step's start, and a piggy's where it was awake when they were
  computed (at the step's start, or woken within the step, before the sensors: a
  piggy struck asleep touches its stack's other piggy in that step). A sleeping bale
  woken within a step (a piggy rolling into it) may have contacts its sensors did
  not see: that step cannot be settled from the sensors (:attr:`ChunkContacts.
  unsure`), nor can one where the bale's contacts with a thing in its sensor's slots
  pushed none and it has more.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from sim.physics.mujoco.scene import MujocoScene

#: Contacts of the bale with a thing other than a piggy its sensor gives one by one:
#: the bale touches the board, the table, a fence or the tractor at 4 points or fewer
#: (the child's bench shots: the first that pushed was in the first 4 slots every
#: time). Fewer floats recorded every step; a thing with more contacts, none of the
#: first pushing, is unsure.
SLOTS = 4
#: The same for a piggy, whose convex parts touch the bale at up to 9 points (4
#: slots left 8 of the bench's 180 shots unsure against 3 with 8).
PIGGY_SLOTS = 8
#: What the bale's sensors give of a contact: how many there are, its force (3: the
#: normal first), its point (3, m).
_WIDTH = 7
_FORCE, _POINT = 1, 4
#: MuJoCo's ``body_awake`` of a body that is awake.
_AWAKE = 1


@dataclass(frozen=True)
class ChunkContacts:
    """What the sensors say of a chunk of ``s`` steps of ``k`` shots."""

    #: (k, s, things): the bale touched the thing in the step
    touched: np.ndarray
    #: (k, s, things): one of those contacts pushed
    pushed: np.ndarray
    #: (k, s, things, 3): the first contact that pushed, its point, m
    points: np.ndarray
    #: (k, s, pairs): the pair's two piggies touched
    linked: np.ndarray
    #: (k, piggies): the piggy touched the ground in the chunk's last step
    grounded: np.ndarray
    #: (k,): a step the sensors cannot settle (module docstring)
    unsure: np.ndarray


class ContactSensors:
    """The sensors of a scene's model (module docstring): :attr:`model` is the
    model to batch, :attr:`keys` and :attr:`names` the things as the strike log
    keys and names them, :attr:`pairs` the piggy pairs (indices of
    ``scene.piggy_bodies``)."""

    def __init__(self, scene: MujocoScene):
        import mujoco

        m = scene.mj_model
        statics = [g for g in range(m.ngeom) if m.geom_bodyid[g] == 0]
        self.keys = [-1 - g for g in statics] + [scene.tractor, *scene.piggy_bodies.values()]
        self.names = [scene.geom_names[g] for g in statics] + ["tractor", *scene.piggy_bodies]
        others = [f'geom2="{m.geom(g).name}"' for g in statics]
        others += [f'body2="{body}"' for body in ("tractor", *scene.piggy_bodies)]
        #: the things that are piggies: the last of :attr:`keys`, in the scene's order
        self.piggies = np.arange(len(statics) + 1, len(self.keys))
        self.pairs = list(itertools.combinations(range(len(scene.piggy_bodies)), 2))
        #: each thing's slots (:data:`SLOTS`, :data:`PIGGY_SLOTS` for a piggy)
        self.slots = np.full(len(self.keys), SLOTS)
        self.slots[self.piggies] = PIGGY_SLOTS
        sensors = [
            f'<contact body1="bale" {other} data="found force pos" num="{slots}"/>'
            for other, slots in zip(others, self.slots, strict=True)
        ]
        names = list(scene.piggy_bodies)
        sensors += [
            f'<contact body1="{names[a]}" body2="{names[b]}" data="found" num="1"/>'
            for a, b in self.pairs
        ]
        #: the geoms a piggy lies on: the board's and the table's
        self.ground = {g for g in statics if scene.geom_names[g] in ("board", "table")}
        sensors += [
            f'<contact body1="{name}" geom2="{m.geom(g).name}" data="found" num="1"/>'
            for name in names
            for g in sorted(self.ground)
        ]
        xml = scene.xml.replace("</mujoco>", f"<sensor>{''.join(sensors)}</sensor></mujoco>")
        self.model = mujoco.MjModel.from_xml_string(xml)
        #: the bodies whose sleep the reading looks at: the bale, then the piggies
        self._watched = np.array([scene.bale, *scene.piggy_bodies.values()], dtype=int)
        self._pair_index = np.array(self.pairs, dtype=int).reshape(-1, 2)
        starts = np.concatenate([[0], np.cumsum(self.slots * _WIDTH)])
        self._bale_width, self._pairs_end = starts[-1], starts[-1] + len(self.pairs)
        #: each thing's first sensordata column (how many contacts it has), and its
        #: slots' columns, (things, PIGGY_SLOTS, 7): a thing's slots beyond its own
        #: repeat its first column (masked out when read)
        self.found_columns = starts[:-1]
        slot = np.arange(PIGGY_SLOTS)[None, :, None]
        own = slot < self.slots[:, None, None]
        at = starts[:-1, None, None] + slot * _WIDTH + np.arange(_WIDTH)[None, None, :]
        self._columns = np.where(own, at, starts[:-1, None, None])

    def read(
        self, sensordata: np.ndarray, awake: np.ndarray, awake_before: np.ndarray
    ) -> ChunkContacts:
        """A chunk's records, (k, s, ...) each: ``sensordata`` and ``awake`` (each
        body's ``body_awake`` after each step), ``awake_before`` (k, bodies) before
        the chunk's first step."""
        k, s = sensordata.shape[:2]
        now = awake[..., self._watched] == _AWAKE
        before = awake_before[:, None, self._watched] == _AWAKE
        at_start = np.concatenate([before, now[:, :-1]], axis=1)
        bale_on = at_start[..., 0]
        unsure = (~bale_on & now[..., 0]).any(axis=1)
        found = sensordata[..., self.found_columns]
        found[~bale_on] = 0.0
        touched = found > 0
        pushed = np.zeros(found.shape, dtype=bool)
        points = np.zeros((*found.shape, 3))
        touching = np.nonzero(touched)
        if touching[0].size:  # the few steps the bale touches anything
            rows = (touching[0] * s + touching[1])[:, None, None]
            each = sensordata.reshape(k * s, -1)[rows, self._columns[touching[2]]]
            number, slots = found[touching], self.slots[touching[2]]
            held = np.arange(PIGGY_SLOTS) < np.minimum(number, slots)[:, None]
            pushing = held & (each[..., _FORCE] > 0.0)
            pushed[touching] = hit = pushing.any(axis=1)
            first = pushing.argmax(axis=1)
            points[touching] = each[np.arange(len(first)), first, _POINT : _POINT + 3]
            unsure[touching[0][(number > slots) & ~hit]] = True
        # a piggy's sensors are current where it was awake when they were computed:
        # awake at the step's start, or woken within it (before the sensors)
        sensed = at_start[..., 1:] | now[..., 1:]
        linked = np.zeros((k, s, len(self.pairs)), dtype=bool)
        if self.pairs:
            met = sensordata[..., self._bale_width : self._pairs_end] > 0.0
            a, b = self._pair_index[:, 0], self._pair_index[:, 1]
            linked = met & (sensed[..., a] | sensed[..., b])
        ground = sensordata[:, -1, self._pairs_end :] > 0.0
        lying = ground.reshape(k, len(self._watched) - 1, len(self.ground))
        grounded = lying.any(axis=2) & sensed[:, -1]
        return ChunkContacts(touched, pushed, points, linked, grounded, unsure)
