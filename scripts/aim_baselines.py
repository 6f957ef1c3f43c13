"""Two policies for ``piggy/Aim-v0`` (docs/gym.md): the aim solver, and a learner.

    python scripts/aim_baselines.py solver --target r9c5 --aim-sd 4,4 [--shots 400]
                                           [--hitmap] [--seed 0] [--json]
    python scripts/aim_baselines.py learn  --target r9c5 --aim-sd 2,2 [--seed 0] [--json]

``solver`` fires the aim solver's aim at one target (the hit maps' aim: the bale's
centre through the piggy's centre) and reports its success rate with a 95 %
Wilson interval; ``--hitmap`` also measures the hit map's P(target) for that
space with the same noise and the same aimer (sim/studies/maps/hitmap.py) and
compares the two with a two-proportion z-test (the hit map aims at the top piggy
of the target's space).

``learn`` is a cross-entropy-method learner that knows nothing but the rewards:
no solver, no ballistics, not even the observation (the target is fixed). Until
its first hit it fires uniformly over the whole action box; then it fits a
normal distribution (a circular one in yaw) to the best shots of each
generation. After every generation the mean aim is measured with evaluation
shots (not learned from); the run reports the training shots it took until that
mean hit at least 90 % as often as the solver's aim in two generations running.
The default run takes about 75 s of one core.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

import gymnasium
import numpy as np

from models.design import design_toml
from models.errors import InputError
from models.stats import wilson_interval

# The script's only imports of sim modules (their paths move with issue 12).
from sim.envs.aim import AimEnv, solver_action
from sim.studies.shots.space_firing import run_space
from sim.studies.shots.space_shots import SweepSpec

ENV_ID = "sim.envs:piggy/Aim-v0"
#: The learner counts as there once its mean aim hits this fraction as often as the solver's.
GOAL_FRACTION = 0.9


# --- the aim solver as a policy ----------------------------------------------------------
def solver_success(env: gymnasium.Env, target: str, shots: int, seed: int) -> tuple[int, int]:
    """(hits, shots) of the solver's aim at ``target``; the env's noise, seeded."""
    hits = 0
    env.reset(seed=seed, options={"target": target})
    for _ in range(shots):
        observation, _ = env.reset(options={"target": target})
        *_, info = env.step(solver_action(env, observation))
        hits += info["target_knocked"]
    return hits, shots


def hitmap_success(env: gymnasium.Env, space: str, shots: int, seed: int) -> tuple[int, int]:
    """(hits, shots) of the hit map's P(target) for one empty space of ``env``'s
    board, with the env's design, aimer and base layout (sim/studies/maps/hitmap.py)."""
    unwrapped = env.unwrapped
    if not isinstance(unwrapped, AimEnv):
        raise TypeError(f"the hit map is measured for piggy/Aim-v0, not {type(unwrapped).__name__}")
    design = unwrapped.design
    stacks = unwrapped.layout.to_dict()["stacks"]
    with tempfile.TemporaryDirectory(prefix="aim-baselines-") as folder:
        path = Path(folder) / f"{design.name}.toml"
        path.write_text(design_toml(design))
        part = run_space(
            SweepSpec(
                board=str(unwrapped.board.name),
                design=str(path),
                stacks=stacks,
                spaces=(space,),
                shots=shots,
                seed=seed,
                aimer=unwrapped.aimer,
                sampler="mc",  # the baselines as measured before RQMC was the default
            ),
            space,
        )
    if not part.reachable:
        raise InputError(f"{space} is out of reach of design '{design.name}'")
    return sum(row.target_knocked for row in part.shots), shots


def two_proportion_z(hits_a: int, n_a: int, hits_b: int, n_b: int) -> float:
    """z of the pooled two-proportion test of p_a = p_b (0 when both are 0 or 1)."""
    pooled = (hits_a + hits_b) / (n_a + n_b)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n_a + 1 / n_b))
    return 0.0 if se == 0 else (hits_a / n_a - hits_b / n_b) / se


# --- the cross-entropy-method learner ------------------------------------------------------
@dataclass(frozen=True)
class CEMConfig:
    """The learner's settings; spreads are in action units (the box is [-1, 1]²;
    one unit is 180 deg of yaw or half the pitch range)."""

    population: int = 40  # training shots per generation
    elite: int = 8  # at most this many best shots (with reward > 0) are fitted
    generations: int = 25
    smoothing: float = 0.7  # weight of the new fit against the old distribution
    min_sd: float = 0.01  # floor of the spreads, to keep exploring (1.8 deg of yaw)
    eval_shots: int = 60  # shots at the mean aim after each generation


@dataclass
class Generation:
    shots: int  # training shots fired so far
    hits: int  # of them, in this generation
    mean: list[float] | None  # the mean aim (action units), once something was hit
    sd: list[float] | None
    eval_rate: float | None  # success of the mean aim over eval_shots


def cem_learn(env: gymnasium.Env, target: str, config: CEMConfig, seed: int) -> list[Generation]:
    """Learn to aim at ``target`` from rewards alone; the history, one row a generation."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed, options={"target": target})
    mean: np.ndarray | None = None  # the mean aim, once something was hit
    sd = np.full(2, 0.1)  # its spread: one hit says where, not how wide
    history, fired = [], 0
    for _ in range(config.generations):
        if mean is None:
            actions = rng.uniform(-1.0, 1.0, (config.population, 2))
        else:
            actions = mean + sd * rng.standard_normal((config.population, 2))
            actions[:, 0] = _wrap(actions[:, 0])
            actions[:, 1] = np.clip(actions[:, 1], -1.0, 1.0)
        rewards = np.array([_fire(env, target, a)[0] for a in actions])
        fired += config.population
        order = rng.permutation(config.population)  # ties broken at random
        best = order[np.argsort(-rewards[order], kind="stable")][: config.elite]
        best = best[rewards[best] > 0]
        if len(best):
            fit_mean, fit_sd = _fit(actions[best])
            if mean is None or len(best) == 1:  # one hit says where, not how wide
                mean = fit_mean
            else:
                yaw_step = _wrap(np.array([fit_mean[0] - mean[0]]))[0]
                mean = np.array(
                    [
                        _wrap(np.array([mean[0] + config.smoothing * yaw_step]))[0],
                        mean[1] + config.smoothing * (fit_mean[1] - mean[1]),
                    ]
                )
                sd = np.maximum(
                    config.smoothing * fit_sd + (1 - config.smoothing) * sd, config.min_sd
                )
        rate = None
        if mean is not None:
            eval_hits = sum(_fire(env, target, mean)[1] for _ in range(config.eval_shots))
            rate = eval_hits / config.eval_shots
        history.append(
            Generation(
                fired,
                int((rewards > 0).sum()),
                None if mean is None else mean.round(5).tolist(),
                None if mean is None else sd.round(5).tolist(),
                rate,
            )
        )
    return history


def _fire(env: gymnasium.Env, target: str, action) -> tuple[float, bool]:
    env.reset(options={"target": target})
    _, reward, *_, info = env.step(np.asarray(action, dtype=np.float32))
    return float(reward), bool(info["target_knocked"])


def _wrap(yaw: np.ndarray) -> np.ndarray:
    """Yaw in action units into [-1, 1): the tractor turns all the way round."""
    return (yaw + 1.0) % 2.0 - 1.0


def _fit(actions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and sd of aims: circular in yaw, plain in pitch."""
    angles = actions[:, 0] * math.pi
    yaw = math.atan2(np.sin(angles).mean(), np.cos(angles).mean()) / math.pi
    yaw_sd = float(np.sqrt(np.mean(_wrap(actions[:, 0] - yaw) ** 2)))
    return np.array([yaw, actions[:, 1].mean()]), np.array([yaw_sd, actions[:, 1].std()])


def shots_to_goal(history: list[Generation], solver_rate: float) -> int | None:
    """Training shots fired by the end of the second of the first two generations
    running whose mean aim hit at least the goal (one alone may be luck), or None."""
    goal = GOAL_FRACTION * solver_rate
    passed = [g.eval_rate is not None and g.eval_rate >= goal for g in history]
    return next(
        (history[i].shots for i in range(1, len(history)) if passed[i - 1] and passed[i]), None
    )


# --- command line ---------------------------------------------------------------------------
def _aim_sd(text: str) -> tuple[float, float]:
    try:
        yaw, pitch = (float(v) for v in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not YAW,PITCH in degrees") from None
    return yaw, pitch


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("mode", choices=("solver", "learn"))
    parser.add_argument("--target", default="r9c5", help="space or piggy (default r9c5)")
    parser.add_argument("--layout", default="empty", help="layout file, empty or crowded")
    parser.add_argument("--design", default="stock")
    parser.add_argument(
        "--aim-sd",
        type=_aim_sd,
        default=(2.0, 2.0),
        metavar="YAW,PITCH",
        help="aiming error, 1 sd in degrees (default 2,2)",
    )
    parser.add_argument(
        "--shots",
        type=int,
        default=400,
        help="shots of the solver (and of the hit map) (default 400)",
    )
    parser.add_argument(
        "--hitmap",
        action="store_true",
        help="solver: also measure the hit map's P(target) and compare",
    )
    parser.add_argument(
        "--generations",
        type=int,
        default=CEMConfig.generations,
        help=f"learn: generations of {CEMConfig.population} training shots "
        f"(default {CEMConfig.generations})",
    )
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", action="store_true", help="one JSON object on stdout")
    args = parser.parse_args(argv)
    if args.shots < 1 or args.generations < 1:
        parser.error("--shots and --generations must be at least 1")
    try:
        out = run(args)
    except InputError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(out))
    else:
        _print(out)
    return 0


def run(args) -> dict:
    """What ``main`` reports, for parsed arguments."""
    env = gymnasium.make(
        ENV_ID, design=args.design, layout=args.layout, target=args.target, aim_sd_deg=args.aim_sd
    )
    with env:
        out = {"target": args.target, "aim_sd_deg": list(args.aim_sd), "seed": args.seed}
        hits, n = solver_success(env, args.target, args.shots, args.seed)
        out["solver"] = _rate(hits, n)
        if args.mode == "solver" and args.hitmap:
            space = env.reset(options={"target": args.target})[1]["target_space"]
            map_hits, map_n = hitmap_success(env, space, args.shots, args.seed)
            out["hitmap"] = _rate(map_hits, map_n)
            out["z"] = round(two_proportion_z(hits, n, map_hits, map_n), 3)
        if args.mode == "learn":
            config = CEMConfig(generations=args.generations)
            history = cem_learn(env, args.target, config, args.seed)
            final = history[-1].mean
            final_hits = (
                0
                if final is None
                else sum(_fire(env, args.target, final)[1] for _ in range(args.shots))
            )
            out.update(
                config=asdict(config),
                goal=round(GOAL_FRACTION * hits / n, 4),
                shots_to_goal=shots_to_goal(history, hits / n),
                history=[asdict(g) for g in history],
                learned=_rate(final_hits, args.shots),
                z=round(two_proportion_z(final_hits, args.shots, hits, n), 3),
            )
    return out


def _rate(hits: int, n: int) -> dict:
    lo, hi = wilson_interval(hits, n)
    return {
        "hits": hits,
        "shots": n,
        "rate": round(hits / n, 4),
        "ci95": [round(lo, 4), round(hi, 4)],
    }


def _print(out: dict) -> None:
    def line(name, r):
        print(
            f"{name}: {r['hits']}/{r['shots']} = {r['rate']:.3f} "
            f"(95 % CI {r['ci95'][0]:.3f}-{r['ci95'][1]:.3f})"
        )

    print(f"target {out['target']}, aiming error {out['aim_sd_deg']} deg (1 sd)")
    line("solver's aim", out["solver"])
    if "hitmap" in out:
        line("hit map P(target)", out["hitmap"])
        print(
            f"solver - hit map: two-proportion z = {out['z']:+.2f} (|z| < 1.96: no "
            "difference at 5 %)"
        )
    for g in out.get("history", []):
        rate = "-" if g["eval_rate"] is None else f"{g['eval_rate']:.3f}"
        print(
            f"  {g['shots']:5d} shots  hits {g['hits']:2d}  mean {g['mean']}  sd {g['sd']}  "
            f"mean aim's success {rate}"
        )
    if "history" in out:
        reached = out["shots_to_goal"]
        print(
            f"goal {out['goal']:.3f} (90 % of the solver's): "
            + (f"reached after {reached} training shots" if reached else "not reached")
        )
        line("learned aim (the last mean)", out["learned"])
        print(f"learned - solver: two-proportion z = {out['z']:+.2f}")


if __name__ == "__main__":
    sys.exit(main())
