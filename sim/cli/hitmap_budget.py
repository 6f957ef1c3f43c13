"""``piggy hitmap --budget SECONDS``: the map in the time given. Every space gets its
first shots at the first look, and each look narrows the worst interval
(sim/studies/maps/map_looks.py); the map is written at the last look that fits, with
what precision it reached and about how long the precision aimed at would take."""

from __future__ import annotations

import math
from pathlib import Path

from models.errors import InputError
from models.text import shown
from sim.cli.common import finite_number

#: The precision a budget aims at where ``--precision`` is not given: the docs'
#: usual hit map (docs/hitmap.md, "What a precision costs").
BUDGET_PRECISION = 0.05


def budget_options(p) -> None:
    """``hitmap --budget`` and ``--resume``, which goes on from a budget's parts."""
    p.add_argument(
        "--resume",
        action="store_true",
        help="finish an interrupted sweep, or go on from a --budget's (to any --precision)",
    )
    p.add_argument(
        "--budget",
        type=finite_number(0, above=True),
        metavar="SECONDS",
        help="the whole command's time, counted from its start: every space is fired "
        "at look by look toward --precision (default ±0.05), and the map is written at "
        "the last look that fits, with the precision reached; --resume goes on from it",
    )


def check_budget_args(args) -> None:
    """What a budget cannot be given with, refused before any shot; the precision it
    aims at (:data:`BUDGET_PRECISION` where none is given) set."""
    if args.budget is None:
        return
    if args.aim_sd_scan:
        raise InputError(
            "--budget is a hit map's (its looks span the board): leave it out with "
            "--aim-sd-scan, or cap the shots with --shots"
        )
    if args.precision is None:
        args.precision = BUDGET_PRECISION


def fire_map(args, spec, out_fmt: tuple[Path, str], workers, design: str):
    """The map fired (sim/studies/maps/map_looks.py's ``run_map``) after its start line,
    its progress shown: space by space, or in looks within ``args.budget`` seconds from
    the command's start (``args.began``), one budget over every worker. The outcome,
    and how far the looks got (None: no looks)."""
    from models.design import load_design
    from sim.cli import start_lines
    from sim.cli.common import progress_bar
    from sim.studies.maps import map_looks
    from sim.studies.running.budget import Budget

    start = start_lines.hitmap(spec, workers, design=design)
    start_lines.say_if_warp_on_cpu(spec, [load_design(spec.design)], start_lines.about_shots(spec))
    start += f"; budget {args.budget:g} s, in looks over the board" if args.budget else ""
    looks = "look" if args.budget else None
    progress = progress_bar(
        len(spec.spaces), not args.json, "space", "hitmap", pass_name=looks, start=start
    )
    if args.budget and args.plot:  # matplotlib now, so that the looks' time left counts it
        import sim.views.hitmap_picture  # noqa: F401
    budget = Budget(args.budget, began=args.began)
    how = (args.resume, args.per_shot, args.sensitivity)
    done = map_looks.run_map(spec, out_fmt[0], out_fmt[1], workers, budget, how, progress)
    progress(None)
    return done


def budget_summary(args, spec, rows: list[dict], done) -> dict:
    """The summary's ``budget`` (:func:`reached`), where one was given."""
    return {"budget": reached(spec, rows, done, args.budget)} if args.budget else {}


def reached(spec, rows: list[dict], done, budget_s: float) -> dict:
    """What the ``--json`` summary says of a budget's map: the budget, the looks
    fired, whether every space stopped, the precision reached at the board's worst
    space (its interval's half-width) and, where short of the precision aimed at,
    about how many more seconds that takes at the rate the last look was fired at."""
    reachable = [r for r in rows if r["reachable"] and r["shots"]]
    halves = {r["space"]: (r["p_target_ci_high"] - r["p_target_ci_low"]) / 2 for r in reachable}
    worst = max(halves, key=halves.__getitem__) if halves else None
    more = (
        _more_shots(reachable, spec.precision, spec.shots) / done.rate
        if done.rate and not done.finished
        else None
    )
    return {
        "budget_s": budget_s,
        "looks": done.looks,
        "finished": done.finished,
        "precision_aimed": spec.precision,
        "precision_reached": round(halves[worst], 4) if worst else None,
        "precision_reached_at": worst,
        "more_seconds": math.ceil(more) if more is not None else None,
    }


def _more_shots(rows: list[dict], precision: float, cap: int) -> int:
    """About the shots still needed for ±``precision`` at every space: an interval's
    half-width falling as one over the square root of the shots (plain Monte Carlo's
    rate; RQMC's is often faster, so this errs long), each space at most to the cap."""
    more = 0
    for r in rows:
        half = (r["p_target_ci_high"] - r["p_target_ci_low"]) / 2
        if half > precision and r["shots"] < cap:
            more += min(cap, math.ceil(r["shots"] * (half / precision) ** 2)) - r["shots"]
    return more


def budget_words(said: dict, out: Path) -> str:
    """The budget's line: the precision reached at the worst space and what the one
    aimed at needs, or that every space reached it within the time."""
    aimed = said["precision_aimed"]
    if said["finished"]:
        return f"within --budget {said['budget_s']:g} s: every space to ±{aimed:g}"
    if said["precision_reached"] is None:
        return f"--budget {said['budget_s']:g} s fired no look: nothing measured"
    more = (
        f"about {said['more_seconds']:,} more seconds for ±{aimed:g}"
        if said["more_seconds"] is not None
        else f"not yet ±{aimed:g}"
    )
    return (
        f"--budget {said['budget_s']:g} s: ±{said['precision_reached']:.2f} at the board's "
        f"worst space ({said['precision_reached_at']}) after {said['looks']} "
        f"look{'s' if said['looks'] != 1 else ''}; {more} (its shots are kept in "
        f"{shown(str(out))}.parts: the same command with --precision {aimed:g} --resume and "
        "no --budget goes on from them)"
    )
