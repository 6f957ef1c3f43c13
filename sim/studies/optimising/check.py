"""The end of a design search: the best design against BASE by ``design compare``'s
default rule (the board mean: sim/studies/comparing/comparison_rule.py), and the best design
written as a design file that says what made it.

The verification fires *new* shots (its own seed, by default the search's plus
one): the best trial was chosen because its shots went well, and the same shots
would carry that luck into the comparison (the winner's curse). On the objective's
spaces, BASE and the best design fire the same new shots (common random numbers)
at the stated precision; the result is the compare's verdict line and its mean
difference with its interval, and whether the improvement is detectable. When the
best trial is BASE's own values nothing is fired: with the same shots the same
design has the same outcomes, a difference of exactly 0.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path

from models.design import design_toml
from models.files import write_text_atomic
from models.text import shown
from sim.studies.comparing import cached_maps, design_tools
from sim.studies.comparing.comparison_rule import comparison_rule
from sim.studies.designs import search as design_search
from sim.studies.designs.safety import safety_report
from sim.studies.optimising import optimise
from sim.studies.running.cluster import StudyWorkers
from sim.studies.shots.space_shots import SweepSpec


def verify(
    search: optimise.Search,
    trial,
    design,
    spec: SweepSpec,
    workers: StudyWorkers,
    cache: Path,
    progress: Callable[..., None] | None = None,
) -> dict:
    """BASE and the trial's ``design`` fired with the same new shots of ``spec`` (its
    seed and precision) on the first objective's spaces."""
    objective = search.objectives[0]
    spaces = design_search.objective_spaces(search.board, search.spec.spaces, objective)
    spec = dataclasses.replace(spec, spaces=spaces)
    facts = {
        "seed": spec.seed,
        "precision": spec.precision,
        "shots": spec.shots,
        "spaces": list(spaces),
        "objective": objective,
    }
    if optimise.is_base(search, trial):  # the same design fires the same shots: no shot needed
        return {
            "verdict": f"{design.name} is {search.base.name} itself: the same shots, the "
            "same outcomes on every space",
            "mean_diff": 0.0,
            "mean_diff_ci_low": 0.0,
            "mean_diff_ci_high": 0.0,
            **facts,
            "better": False,
            "conclusion": f"nothing better found: the best trial is {search.base.name}'s "
            "own values",
            "shots_fired": 0,
        }
    rule = comparison_rule(spec)
    cached = cached_maps.comparison_cached(spec, [search.base, design], rule, cache)
    _, comparisons, maps = design_tools.compare_designs(
        spec, search.board, [search.base, design], workers, cache, progress, rule
    )
    comparison = comparisons[0].to_dict()
    low, high = comparison["mean_diff_ci"]
    out = {
        "verdict": comparison["verdict"],
        "mean_diff": comparison["mean_diff"],
        "mean_diff_ci_low": low,
        "mean_diff_ci_high": high,
        **facts,
        "shots_fired": 0 if cached else sum(int(r["shots"] or 0) for rows in maps for r in rows),
    }
    if objective in ("mean-p", "far-rows"):
        better = low is not None and low > 0
        what = (
            f"{objective} mean difference {_signed(comparison['mean_diff'])} "
            f"[{_signed(low)}, {_signed(high)}]"
        )
    else:
        energy = [safety_report(d, search.limits).kinetic_energy_j for d in (search.base, design)]
        figures = [
            design_search.objective_values(search.board, rows, [objective], e)[objective]
            for rows, e in zip(maps, energy, strict=True)
        ]
        (base_value, base_low, _), (value, _, high_best) = figures
        out[f"{objective}_base"], out[f"{objective}_best"] = list(figures[0]), list(figures[1])
        better = value < base_value if objective == "energy" else high_best < base_low
        what = f"{objective} {value:.4g} against {base_value:.4g} for {search.base.name}"
    text = "detectably better than" if better else "nothing detectably better found than"
    return out | {
        "better": better,
        "conclusion": f"{text} {search.base.name} on new shots ({what}, 95 %)",
    }


def _signed(value) -> str:
    return "-" if value is None else f"{value:+.3f}"


def write_best(path: Path, design, made_by: dict) -> Path:
    """The design file of a trial, with what made it in comments on top: ``design
    check`` and ``design compare`` read it as any design."""
    header = [f"# {key}: {shown(str(value), 500)}" for key, value in made_by.items()]
    return write_text_atomic(
        path,
        "\n".join(["# made by piggy design optimise", *header]) + "\n" + design_toml(design),
    )
