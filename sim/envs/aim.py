"""``piggy/Aim-v0``: one shot of the wolf tractor at one piggy, as a Gymnasium
environment (docs/gym.md).

An episode is one shot. The observation is where the target stands (mm, the
board frame: origin at the tractor's pivot, +y straight ahead) and how many
piggies stand on each space; the action is the aim, (yaw, pitch) scaled to
[-1, 1]; the reward is +1 if the target is knocked out, minus a penalty for every
other piggy knocked out. The shot carries the launcher's own noise (the design)
and the aiming error of the person at the tractor (an aimer, models/aimers/).
"""

from __future__ import annotations

import math

import gymnasium
import numpy as np
from gymnasium.error import ResetNeeded
from gymnasium.spaces import Box, MultiDiscrete
from gymnasium.spaces import Dict as DictSpace
from scipy.spatial.transform import Rotation

from models.aimer import Aimer, load_aimer
from models.board import Board, load_board
from models.design import Design, load_design
from models.errors import InputError
from models.layout import MAX_STACK
from models.meshes import load_piggy_mass
from sim.envs.episodes import Episode, TargetSampler, occupancy, parse_layout
from sim.physics.aim import solve
from sim.physics.engine import ShotEngine
from sim.physics.launch import AimedShot
from sim.physics.registry import make_world
from sim.physics.results import Recording, ShotResult
from sim.views.render import CAMERAS, DEFAULT_SIZE, ShotRenderer

#: Steps between two recorded poses of a shot, when frames are to be drawn.
_RECORD_EVERY = 5
#: Keys ``reset(options=...)`` accepts: they override the constructor's for one episode.
RESET_OPTIONS = ("layout", "target", "spaces")


def resolve_aimer(aimer: str | Aimer | None, aim_sd_deg=None) -> Aimer:
    """The person at the tractor: an aimer (a name in models/aimers/, a path, or an
    :class:`~models.aimer.Aimer`; none aims perfectly), its spreads replaced by
    ``aim_sd_deg`` = (yaw sd, pitch sd) in degrees when given."""
    resolved = aimer if isinstance(aimer, Aimer) else load_aimer(aimer or "perfect")
    if aim_sd_deg is None:
        return resolved
    try:
        yaw_sd, pitch_sd = (float(v) for v in aim_sd_deg)
    except (TypeError, ValueError):
        raise InputError(
            f"aim_sd_deg must be two numbers (yaw_sd, pitch_sd) in degrees, not {aim_sd_deg!r}"
        ) from None
    return resolved.with_spread(yaw_sd, pitch_sd)


class AimEnv(gymnasium.Env):
    """One shot at one piggy. Make it with ``gymnasium.make("sim.envs:piggy/Aim-v0")``.

    Parameters
    ----------
    board, design : names (``stock``), file paths, or loaded objects.
    layout : the piggies on the board: ``empty`` (default), ``crowded``, a layout
        file, a layout mapping (``{"stacks": {"r8c3": ["pink-1"]}}``) or a Layout.
    target : ``None`` (default): each episode a random empty space (one of
        ``spaces``, if given) with ``gold-1`` standing alone on it; ``random-piggy``:
        each episode one of the layout's piggies; a piggy name: that piggy of the
        layout; a space name: its top piggy, or ``gold-1`` alone if it is empty.
    aimer : who aims: ``perfect`` (default: the design's own spread alone), ``adult``,
        ``child``, a path to an aimer file, or an Aimer (models/aimers/; docs/hitmap.md).
    aim_sd_deg : (yaw sd, pitch sd), degrees: the aimer's spreads replaced by these.
    collateral_penalty : subtracted from the reward for each other piggy knocked out.
    hit_rule : ``touches-line`` or ``cleared`` (docs/physics.md).
    render_mode : ``None`` or ``rgb_array``.
    camera, frame_size : the renderer's camera preset and (width, height) in pixels.
    """

    # gymnasium.Env declares metadata an instance variable, and gymnasium.make reads it
    # from the class: a plain class attribute, not a ClassVar
    metadata = {"render_modes": ["rgb_array"], "render_fps": 30}  # noqa: RUF012

    def __init__(
        self,
        board="stock",
        design="stock",
        layout="empty",
        target=None,
        spaces=None,
        aim_sd_deg=None,
        aimer=None,
        collateral_penalty: float = 0.5,
        hit_rule: str = "touches-line",
        render_mode: str | None = None,
        camera: str = "overview",
        frame_size=DEFAULT_SIZE,
    ):
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise InputError(f"unknown render_mode '{render_mode}': allowed are None, rgb_array")
        if camera not in CAMERAS:
            raise InputError(f"unknown camera '{camera}': allowed are {', '.join(CAMERAS)}")
        self.frame_size = _check_frame_size(frame_size)
        try:
            penalty = float(collateral_penalty)
        except (TypeError, ValueError):
            penalty = math.nan
        if not (math.isfinite(penalty) and penalty >= 0):
            raise InputError(
                f"collateral_penalty must be finite and >= 0, not {collateral_penalty!r}"
            )
        self.render_mode, self.camera, self.collateral_penalty = render_mode, camera, penalty
        self.board = board if isinstance(board, Board) else load_board(board)
        self.design = design if isinstance(design, Design) else load_design(design)
        self.aimer = resolve_aimer(aimer, aim_sd_deg)
        self.layout = parse_layout(self.board, layout)  # the base layout
        self._defaults = {"layout": self.layout, "target": target, "spaces": spaces}
        self._sampler = TargetSampler(**self._defaults)

        self.action_space = Box(-1.0, 1.0, shape=(2,), dtype=np.float32)
        x0, x1, y0, y1 = self.board.surface_extent_mm
        top = (MAX_STACK + 1) * load_piggy_mass()["height_mm"]
        self.observation_space = DictSpace(
            {
                "target": Box(
                    np.array([x0, y0, 0.0], np.float32), np.array([x1, y1, top], np.float32)
                ),
                "occupancy": MultiDiscrete(
                    np.full((self.board.rows, self.board.cols), MAX_STACK + 1)
                ),
            }
        )
        self.world: ShotEngine | None = make_world(self.board, self.design, hit_rule=hit_rule)
        self._renderer: ShotRenderer | None = None
        self._episode: Episode | None = None
        self._observation: dict | None = None
        self._shot: ShotResult | None = None

    # --- actions -----------------------------------------------------------------------
    def to_angles(self, action) -> tuple[float, float]:
        """(yaw, pitch) in degrees of an action; components beyond [-1, 1] are
        clipped to it (the barrel stops at the ends of its range)."""
        action = np.asarray(action, dtype=float)
        if action.shape != (2,):
            raise InputError(
                f"an action is (yaw, pitch) scaled to [-1, 1], shape (2,); got shape {action.shape}"
            )
        if not np.all(np.isfinite(action)):
            raise InputError(f"action {action.tolist()} is not finite")
        yaw, pitch = np.clip(action, -1.0, 1.0)
        lo, hi = self.design.launcher.pitch_min_deg, self.design.launcher.pitch_max_deg
        return 180.0 * float(yaw), lo + (float(pitch) + 1.0) / 2.0 * (hi - lo)

    def to_action(self, yaw_deg: float, pitch_deg: float) -> np.ndarray:
        """The action of an aim in degrees: any yaw, a pitch within the design's range."""
        lo, hi = self.design.launcher.pitch_min_deg, self.design.launcher.pitch_max_deg
        if not (math.isfinite(yaw_deg) and math.isfinite(pitch_deg) and lo <= pitch_deg <= hi):
            raise InputError(
                f"aim yaw {yaw_deg:g}, pitch {pitch_deg:g} deg: the pitch must lie "
                f"in [{lo:g}, {hi:g}] for design '{self.design.name}'"
            )
        return np.array(
            [_yaw_into_half_turn(yaw_deg) / 180.0, 2.0 * (pitch_deg - lo) / (hi - lo) - 1.0],
            np.float32,
        )

    # --- the Gymnasium API ---------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict | None = None):
        super().reset(seed=seed)
        if self.world is None:
            raise InputError("the environment is closed")
        sampler = self._sampler
        if options:
            unknown = sorted(set(options) - set(RESET_OPTIONS))
            if unknown:
                raise InputError(
                    f"unknown reset option '{unknown[0]}': allowed are {', '.join(RESET_OPTIONS)}"
                )
            chosen = {**self._defaults, **options}
            chosen["layout"] = parse_layout(self.board, chosen["layout"])
            sampler = TargetSampler(**chosen)
        episode = sampler.sample(self.np_random)
        if episode.layout != self.world.layout:
            self.world.set_layout(episode.layout)
        self.world.reset()
        self._episode, self._shot = episode, None
        self._observation = {
            "target": self.world.piggy_centre_mm(episode.target).astype(np.float32),
            "occupancy": occupancy(episode.layout),
        }
        return self._copy_observation(), {
            "target": episode.target,
            "target_space": episode.space,
            "stacks": episode.layout.to_dict()["stacks"],
        }

    def step(self, action):
        if self.world is None:
            raise InputError("the environment is closed")
        if self._episode is None or self._shot is not None:
            raise ResetNeeded("an episode is one shot: call reset() before step()")
        yaw, pitch = self.to_angles(action)
        shot_seed = int(self.np_random.integers(2**63))
        record = _RECORD_EVERY if self.render_mode == "rgb_array" else 0
        self._shot = result = self.world.shoot(
            AimedShot(yaw, pitch, seed=shot_seed, aimer=self.aimer), record_every=record
        )
        target = self._episode.target
        knocked = result.knocked
        hit = target in knocked
        collateral = len(knocked) - int(hit)
        reward = float(hit) - self.collateral_penalty * collateral
        info = {
            "target": target,
            "target_space": self._episode.space,
            "target_knocked": hit,
            "knocked": knocked,
            "collateral": collateral,
            "aim_deg": (yaw, pitch),
            "fired_deg": (_yaw_into_half_turn(result.yaw_deg), float(result.pitch_deg)),
            "speed_mm_s": float(result.speed_mm_s),
            "shot_seed": shot_seed,
        }
        # The episode ends with its one shot: the last observation is the first.
        return self._copy_observation(), reward, True, False, info

    def render(self):
        """The board as the episode left it, an (h, w, 3) uint8 frame: after the shot,
        its last frame (the bale's path, the knocked-out piggies circled); before it,
        the piggies waiting. ``None`` unless ``render_mode="rgb_array"``."""
        if self.render_mode != "rgb_array":
            return None
        if self._episode is None:
            raise ResetNeeded("call reset() before render()")
        if self._renderer is None:
            self._renderer = ShotRenderer(self.board, self.design, self.frame_size)
        if self._shot is not None:
            return self._renderer.frame(self._shot, self._shot.recording.frames - 1, self.camera)
        # frame 0 of 2: the renderer writes the verdict only on a shot's last frame
        return self._renderer.frame(self._waiting(), 0, self.camera)

    def close(self):
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None
        if self.world is not None:
            self.world.close()
            self.world = None

    # --- helpers ---------------------------------------------------------------------------
    def _copy_observation(self) -> dict:
        if self._observation is None:
            raise ResetNeeded("call reset() first")
        return {key: value.copy() for key, value in self._observation.items()}

    def _waiting(self) -> ShotResult:
        """A shot not yet fired, for the renderer: the piggies at rest, the bale
        out of sight, the tractor at yaw 0."""
        world = self.world
        if world is None:
            raise InputError("the environment is closed")
        mass = load_piggy_mass()
        axes, com = np.array(mass["principal_axes"]), np.array(mass["com_mm"])
        positions, quats = {}, {}
        for piggy in world.layout.piggies:
            # a piggy's own frame -> its body (principal) frame, which recordings hold
            position, rotation = world.piggy_pose_mm(piggy)
            positions[piggy] = np.tile(position + rotation @ com, (2, 1))
            quats[piggy] = np.tile(Rotation.from_matrix(rotation @ axes).as_quat(), (2, 1))
        hidden = np.tile([0.0, 0.0, -1000.0], (2, 1))
        recording = Recording(
            dt_s=0.0,
            bale_mm=hidden,
            bale_quat=np.tile([0, 0, 0, 1.0], (2, 1)),
            bale_in_play=np.zeros(2, bool),
            piggies_mm=positions,
            piggies_quat=quats,
        )
        return ShotResult(
            yaw_deg=0.0,
            pitch_deg=0.0,
            speed_mm_s=0.0,
            release_mm=[0.0, 0.0, 0.0],
            first_contact_mm=None,
            first_contact_with=None,
            first_contact_centre_mm=None,
            rest_mm=hidden[0].tolist(),
            contacts=[],
            contact_points_mm=[],
            sim_time_s=0.0,
            settled=True,
            piggies={},
            hit_rule=world.hit_rule,
            recording=recording,
        )


def solver_action(env: gymnasium.Env, observation: dict, arc: str = "low") -> np.ndarray:
    """The aim solver as a policy: the action that puts the bale's centre through
    the target's centre (the hit maps' aim), on the ``arc`` asked for where it
    exists. Raises :class:`sim.physics.aim.OutOfReach` for a target out of reach."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, AimEnv):
        raise TypeError(f"the solver aims piggy/Aim-v0, not {type(unwrapped).__name__}")
    solutions = solve(unwrapped.design, np.asarray(observation["target"], dtype=float))
    chosen = next((s for s in solutions if s.arc == arc), solutions[0])
    return unwrapped.to_action(chosen.yaw_deg, chosen.pitch_deg)


def _yaw_into_half_turn(yaw_deg: float) -> float:
    """The same yaw in (-180, 180] degrees."""
    return float(-((-yaw_deg + 180.0) % 360.0 - 180.0)) + 0.0  # never -0.0


def _check_frame_size(size) -> tuple[int, int]:
    try:
        width, height = (int(v) for v in size)
    except (TypeError, ValueError):
        raise InputError(f"frame_size must be (width, height) in pixels, not {size!r}") from None
    if not (16 <= width <= 4096 and 16 <= height <= 4096):
        raise InputError(f"frame_size {size!r}: width and height must be 16-4096 pixels")
    return width, height
