"""What a CPU batch of MuJoCo shots (:mod:`sim.physics.mujoco.batch`) keeps of each
shot, and the chunks that step it: :class:`SensedBook` is the GPU batch's
:class:`~sim.physics.mujoco.shot_book.ShotBook` (the world's rules at every check
for rest, on the whole batch) fed by the contact sensors
(:mod:`sim.physics.mujoco.batch_sensors`) instead of each step's contacts. The
early verdict is asked of a probe holding the shot's positions and velocities (the
batch's, after the same steps as the world's) and told its contacts with the
ground by the sensors (:class:`SensedVerdict`): no copy of a whole MjData.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

import numpy as np

from models.design import Design
from sim.physics.early_verdict import LayoutBounds
from sim.physics.mujoco.batch_sensors import ChunkContacts, ContactSensors
from sim.physics.mujoco.early_verdict import EarlyVerdict
from sim.physics.mujoco.mjcf import M_PER_MM
from sim.physics.mujoco.scene import MujocoScene
from sim.physics.mujoco.shot_book import BatchPoses, ShotBook
from sim.physics.shot_log import REST_CHECK_S, StrikeLog

#: What each chunk records of every step: the sensors, which bodies are awake
#: (whether a sensor is current) and the bodies' positions (the bale's at a strike).
_RECORDED = ("sensordata", "body_awake", "xpos")


@dataclass
class Ends:
    """Each shot's end: its bodies' poses (xpos, xmat, m), its steps, whether it
    left the batch to be fired alone; ``view`` is what the judge reads."""

    view: BatchPoses
    xpos: np.ndarray
    xmat: np.ndarray
    steps: np.ndarray
    alone: np.ndarray


class SensedBook(ShotBook):
    """The records of a batch's shots, sims ``0`` to ``shots - 1`` of ``batch``
    (module docstring); :meth:`run` steps them to their ends."""

    def __init__(
        self,
        scene: MujocoScene,
        design: Design,
        bale_to_rest: bool,
        bounds: LayoutBounds,
        sensors: ContactSensors,
        batch: Any,
        shots: int,
    ):
        self.check_every = max(1, round(REST_CHECK_S / scene.dt))
        self.sensors, self.batch, self._bounds = sensors, batch, bounds
        super().__init__(scene, design, shots, self.check_every, bale_to_rest)
        self._outer_mm = self._bounds.bale_outline.outer_radius_mm
        self._beyond_mm = self._bounds.beyond_mm
        self._centres = np.array([self._bounds.centres[p] for p in self.piggies])
        self._gap = StrikeLog.gap_steps(scene.dt)
        self._last_touch = np.full((shots, len(sensors.keys)), -self._gap)
        self._pairs = np.array(sensors.pairs, dtype=int).reshape(-1, 2)
        self._xpos = np.zeros((shots, sensors.model.nbody, 3))

    def _probe_of(self, scene: MujocoScene) -> tuple[MujocoScene, EarlyVerdict]:
        """The probe on the sensors' model, the early verdict on it told its contacts
        by the sensors (:class:`SensedVerdict`)."""
        import mujoco

        probe = copy.copy(scene)
        probe.mj_model, probe.data = self.sensors.model, mujoco.MjData(self.sensors.model)
        self._sensed = SensedVerdict(probe, self.sensors, len(self.done), self._bounds)
        return probe, self._sensed

    def run(self) -> Ends:
        """Step every shot to its end (the rest rule, the cap, or leaving the batch)."""
        scene, batch, n = self.scene, self.batch, len(self.done)
        max_steps = round(self.design.physics.max_time_s / scene.dt)
        nbody = self.sensors.model.nbody
        ends = Ends(
            BatchPoses(scene),
            np.zeros((n, nbody, 3)),
            np.zeros((n, nbody, 3, 3)),
            np.full(n, max_steps),
            np.zeros(n, dtype=bool),
        )
        q_bale, v_bale = scene.addresses(scene.bale)
        parked = scene.data.qpos[q_bale : q_bale + 7].copy()  # the world's reset parks it
        qpos, qvel, mocap = batch.bind("qpos"), batch.bind("qvel"), batch.bind("mocap_quat")
        self._geom_xpos = batch.bind("geom_xpos")
        awake = batch.bind("body_awake")[:n].copy()
        warnings = batch.warning[:n].copy()
        step, chunks = 0, None  # the first chunk's records: every later full chunk's
        while step < max_steps and not self.done.all():
            run = np.flatnonzero(~self.done)
            count = min(self.check_every, max_steps - step)
            into = None
            if chunks is not None and count == self.check_every:
                into = {item: chunks[item][: len(run)] for item in _RECORDED}
            records = batch.rollout(count, record=_RECORDED, ids=run, out=into)
            if chunks is None and count == self.check_every:
                chunks = records  # every shot's: room for any later chunk's
            warned = (batch.warning[run] != warnings[run]).reshape(len(run), -1).any(axis=1)
            contacts = self.sensors.read(records["sensordata"], records["body_awake"], awake[run])
            awake[run] = records["body_awake"][:, -1]
            self._sensed.last_step(run, contacts)
            unsure = warned | contacts.unsure | self._log(run, step, contacts, records["xpos"])
            ends.alone[run[unsure]] = self.done[run[unsure]] = True
            step += count
            if step % self.check_every:
                break  # the cap between two checks
            self._xpos = np.array(batch.bind("xpos")[:n])
            out = np.flatnonzero(self._out_of_play(scene.board.surface_extent_mm))
            if out.size:
                qpos[out, q_bale : q_bale + 7] = parked
                qvel[out, v_bale : v_bale + 6] = 0.0
            states = (qpos[:n], qvel[:n], mocap[:n])
            newly = self.check(self.check_every, self._xpos, batch.bind("xquat")[:n], states)
            if newly.any():
                self._end(ends, newly, step)
                self.done |= newly
        self._end(ends, ~self.done, step)
        return ends

    def _end(self, ends: Ends, shots: np.ndarray, step: int) -> None:
        """These shots end now, at ``step``: their poses kept for the judge."""
        ends.steps[shots] = step
        ends.xpos[shots] = self.batch.bind("xpos")[: len(shots)][shots]
        ends.xmat[shots] = self.batch.bind("xmat")[: len(shots)][shots].reshape(
            -1, *ends.xmat.shape[1:]
        )

    def _out_of_play(self, extent_mm: tuple[float, float, float, float]) -> np.ndarray:
        """The shots whose bale left play at this check (beside the board's surface
        and below its top, in mm as the world judges it), each noted where it left:
        the caller parks them."""
        x0, x1, y0, y1 = extent_mm
        position = self._xpos[:, self.scene.bale] / M_PER_MM
        x, y, z = position.T
        beside = ~((x0 <= x) & (x <= x1) & (y0 <= y) & (y <= y1))
        out = self.in_play & ~self.done & beside & (z < 0)
        for shot in np.flatnonzero(out):
            self.left_at[shot] = position[shot]
        self.in_play &= ~out
        return out

    # --- every step of a chunk ---------------------------------------------------
    def _log(
        self, run: np.ndarray, step: int, contacts: ChunkContacts, xpos: np.ndarray
    ) -> np.ndarray:
        """A chunk's strikes and woken piggies, for the shots ``run`` (which went on
        from step ``step``); the shots it cannot settle: two new strikes in one step
        (their order is the contacts'), or a spread among piggies that depends on the
        contacts' order. A touch is a new strike where the thing's last touch (this
        chunk's or before) is :data:`~sim.physics.shot_log.STRIKE_GAP_S` ago."""
        pushed = contacts.pushed & self.in_play[run, None, None]
        unsure = np.zeros(len(run), dtype=bool)
        if pushed.any():
            number = (step + 1 + np.arange(pushed.shape[1]))[None, :, None]
            last = self._last_touch[run][:, None, :]
            latest = np.maximum.accumulate(np.where(pushed, number, last), axis=1)
            before = np.concatenate([last, latest[:, :-1]], axis=1)
            new = pushed & (number - before >= self._gap)
            self._last_touch[run] = latest[:, -1]
            twice = new.sum(axis=2) > 1
            unsure |= twice.any(axis=1)
            for row, s, thing in zip(*np.nonzero(new & ~twice[..., None]), strict=True):
                self._strike(
                    int(run[row]), int(thing), contacts.points[row, s, thing], xpos[row, s]
                )
        touched = contacts.touched[..., self.sensors.piggies]
        woken = self.woken[run]
        across = woken[:, self._pairs[:, 0]] != woken[:, self._pairs[:, 1]]
        if not (contacts.linked & across[:, None]).any() and not touched.any():
            return unsure  # no piggy the bale touched, none touching a woken one
        if not contacts.linked.any():
            self.woken[run] |= touched.any(axis=1)
            return unsure
        for s in range(touched.shape[1]):  # the spread goes step by step
            self.woken[run] |= touched[:, s]
            unsure |= self._spread(run, contacts.linked[:, s])
        return unsure

    def _strike(self, shot: int, thing: int, point_m: np.ndarray, xpos: np.ndarray) -> None:
        """A new strike of ``thing`` in ``shot``: its name, its point, the bale's
        centre at the first."""
        log = self.strikes[shot]
        log.struck.append(self.sensors.names[thing])
        log.points_mm.append((point_m / M_PER_MM).tolist())
        if log.first_centre_mm is None:
            log.first_centre_mm = [float(v) for v in xpos[self.scene.bale] / M_PER_MM]

    def _spread(self, run: np.ndarray, linked: np.ndarray) -> np.ndarray:
        """A step's piggy pairs that touched (``linked``, (k, pairs)): a piggy touching
        a woken one is woken, the contacts taken in MuJoCo's order, which the sensors
        do not give: settled when that order cannot matter (one touch away from the
        woken is everything within reach), else the shot is unsure."""
        unsure = np.zeros(len(run), dtype=bool)
        woken = self.woken[run]
        a, b = self._pairs[:, 0], self._pairs[:, 1]
        across = linked & (woken[:, a] != woken[:, b])
        for row in np.flatnonzero(across.any(axis=1)):
            edges = self._pairs[linked[row]]
            near = woken[row].copy()
            near[edges[woken[row][edges].any(axis=1)].ravel()] = True
            reach = near.copy()
            while True:
                more = reach.copy()
                more[edges[reach[edges].any(axis=1)].ravel()] = True
                if (more == reach).all():
                    break
                reach = more
            if (reach != near).any():
                unsure[row] = True
            self.woken[run[row]] = near
        return unsure

    # --- every check -------------------------------------------------------------
    def _surely_moving(
        self, restless: np.ndarray, bale_quiet: np.ndarray, early: bool
    ) -> np.ndarray:
        """The shots :meth:`_moving` would find moving before its probe, on the
        positions and contacts already read: a restless piggy without the early
        verdict, or not sealed by the early verdict's first tests (still within the
        sure knock-out's distance of its space's centre along every axis, or not on
        the ground); or a bale not quiet that must come to rest, or is not spent by
        the early verdict's first tests (above the board, or not touching it),
        whatever the piggies."""
        position = self._xpos / M_PER_MM
        anyone = restless.any(axis=1)
        piggies = anyone
        if early and len(self._centres):
            at = position[:, self.piggy_body, : self._centres.shape[1]]
            near = (np.abs(at - self._centres) < self._beyond_mm).all(axis=2)
            piggies = (restless & (near | ~self._sensed.grounded)).any(axis=1)
        aloft = position[:, self.scene.bale, 2] > self._outer_mm
        spent_not = aloft | ~self._sensed.on_board()
        return piggies | (~bale_quiet & (self.bale_to_rest | spent_not))

    def _probe_world(self, world: int, states: tuple) -> None:
        """The probe holds what the early verdict reads of the shot now: its bodies'
        and geoms' positions, its velocities, its contacts with the ground."""
        data = self._probe.data
        data.xpos[:], data.geom_xpos[:] = self._xpos[world], self._geom_xpos[world]
        data.qvel[:] = states[1][world]
        self._sensed.shot = world


class SensedVerdict(EarlyVerdict):
    """The early verdict on a probe scene (:meth:`SensedBook._probe_world`), its
    contacts with the ground those the sensors saw in the chunk's last step (the step
    whose contacts the world's data holds at a check) for the probe's :attr:`shot`."""

    def __init__(
        self, scene: MujocoScene, sensors: ContactSensors, shots: int, bounds: LayoutBounds
    ):
        super().__init__(scene, bounds)
        self.sensors, self.shot = sensors, 0
        #: each shot's contacts in its last chunk's last step: the bale's with each
        #: thing, each piggy's with the ground
        self.bale_touching = np.zeros((shots, len(sensors.keys)), dtype=bool)
        self.grounded = np.zeros((shots, len(scene.piggy_bodies)), dtype=bool)
        self._piggy_index = {body: i for i, body in enumerate(scene.piggy_bodies.values())}
        self._board_things = [sensors.keys.index(-1 - g) for g in sorted(self._board)]

    def last_step(self, run: np.ndarray, contacts: ChunkContacts) -> None:
        """The contacts of a chunk's last step, for the shots ``run``."""
        self.bale_touching[run] = contacts.touched[:, -1]
        self.grounded[run] = contacts.grounded

    def on_board(self) -> np.ndarray:
        """Whether each shot's bale touched the board in its last step."""
        return np.any(self.bale_touching[:, self._board_things], axis=1)

    def _touching(self, body: int, geoms: set[int]) -> bool:
        if body == self.scene.bale:
            things = [self.sensors.keys.index(-1 - g) for g in geoms]
            return bool(self.bale_touching[self.shot, things].any())
        if geoms != self.sensors.ground:
            raise ValueError("the sensors tell a piggy's contacts with the ground only")
        return bool(self.grounded[self.shot, self._piggy_index[body]])
