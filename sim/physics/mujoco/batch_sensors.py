"""The contact sensors a batch of MuJoCo shots (:mod:`sim.physics.mujoco.batch`)
reads its strikes and woken piggies from: the scene's own model compiled again
with sensors added (nothing else changes: the same bodies, geoms, pairs and
options, so the same steps), recorded every step of a chunk with no Python
between the steps.

- **The bale against each thing.** One sensor for each thing the bale can strike,
  as :class:`~sim.physics.mujoco.world.MujocoWorld` keys its strikes: each static
  geom (a fence box is a thing of its own), the tractor, each piggy. It gives how
  many contacts the bale has with the thing, and the first :data:`SLOTS` of them in
  MuJoCo's order, each with its force (the normal first: a contact that pushed) and
  its point.
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
  unsure`), nor can one where the bale's first :data:`SLOTS` contacts with a thing
  pushed none and it has more.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np

from sim.physics.mujoco.scene import MujocoScene

#: Contacts of the bale with one thing its sensor gives one by one (a bale resting
#: on the board touches it at 4 or 5 points).
SLOTS = 8
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
        sensors = [
            f'<contact body1="bale" {other} data="found force pos" num="{SLOTS}"/>'
            for other in others
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
        self._bale = scene.bale
        bodies = list(scene.piggy_bodies.values())
        self._piggy_bodies = np.array(bodies, dtype=int)
        self._pair_index = np.array(self.pairs, dtype=int).reshape(-1, 2)
        self._bale_width = len(self.keys) * SLOTS * _WIDTH
        self._pairs_end = self._bale_width + len(self.pairs)

    def read(
        self, sensordata: np.ndarray, awake: np.ndarray, awake_before: np.ndarray
    ) -> ChunkContacts:
        """A chunk's records, (k, s, ...) each: ``sensordata`` and ``awake`` (each
        body's ``body_awake`` after each step), ``awake_before`` (k, bodies) before
        the chunk's first step."""
        k, s = sensordata.shape[:2]
        at_start = np.concatenate([awake_before[:, None], awake[:, :-1]], axis=1) == _AWAKE
        bale_on = at_start[..., self._bale]
        woke = ~bale_on & (awake[..., self._bale] == _AWAKE)
        contacts = sensordata[..., : self._bale_width].reshape(k, s, len(self.keys), SLOTS, _WIDTH)
        found = np.where(bale_on[..., None], contacts[..., 0, 0], 0.0)
        touching = np.nonzero(found > 0)
        pushed = np.zeros(found.shape, dtype=bool)
        points = np.zeros((*found.shape, 3))
        unsure = woke.any(axis=1)
        if touching[0].size:  # the few steps the bale touches anything
            each = contacts[touching]
            pushing = (np.arange(SLOTS) < found[touching][:, None]) & (each[..., _FORCE] > 0.0)
            pushed[touching] = pushing.any(axis=1)
            first = pushing.argmax(axis=1)
            points[touching] = each[np.arange(len(first)), first, _POINT : _POINT + 3]
            overflow = (found[touching] > SLOTS) & ~pushed[touching]
            unsure[touching[0][overflow]] = True
        # a piggy's sensors are current where it was awake when they were computed:
        # awake at the step's start, or woken within it (before the sensors)
        sensed = at_start[..., self._piggy_bodies] | (awake[..., self._piggy_bodies] == _AWAKE)
        linked = np.zeros((k, s, len(self.pairs)), dtype=bool)
        if self.pairs:
            met = sensordata[..., self._bale_width : self._pairs_end] > 0.0
            a, b = self._pair_index[:, 0], self._pair_index[:, 1]
            linked = met & (sensed[..., a] | sensed[..., b])
        ground = sensordata[:, -1, self._pairs_end :] > 0.0
        lying = ground.reshape(k, len(self._piggy_bodies), len(self.ground))
        grounded = lying.any(axis=2) & sensed[:, -1]
        return ChunkContacts(found > 0, pushed, points, linked, grounded, unsure)
