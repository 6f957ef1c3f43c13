"""One trial of a design search, measured: what is known without physics first,
then its spaces at the search's low fidelity, raced (sim/studies/optimising/racing.py); and
the few best trials measured again at full precision.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from models.design import Design, design_toml
from models.errors import InputError
from models.files import write_text_atomic
from sim.studies.designs import search as design_search
from sim.studies.designs.safety import safety_report
from sim.studies.optimising import racing
from sim.studies.optimising.search_settings import Search
from sim.studies.shots import datafiles
from sim.studies.shots.records import SpaceShots
from sim.studies.shots.space_firing import summarise
from sim.studies.shots.space_shots import target_and_stacks


def measure(search: Search, values: dict, trial, pool, cache: Path) -> tuple[dict, dict]:
    """One trial: what it is (its design's name), its safety figures, feasibility,
    the reason when infeasible, its constraint values and objectives, how it was
    measured; and its low-fidelity shots by space."""
    name = design_search.trial_name(search.base, values)
    spaces = len(search.spec.spaces)
    out: dict[str, Any] = {  # the trial as its JSON line has it
        "design": name,
        "feasible": False,
        "reason": None,
        "reason_key": None,
        "safety": None,
        "in_reach": None,
        "shots": 0,
        "fidelity": search.fidelity,
        "spaces_fired": 0,
        "pruned": False,
        "pruned_against": None,
        "constraints": [1.0, 1.0, 1.0],
        "objectives": {o: [design_search.worst_value(o)] * 3 for o in search.objectives},
    }
    try:
        design = design_search.with_values(search.base, values, name)
    except InputError as exc:
        return out | {"reason": f"invalid design: {exc}", "reason_key": "invalid_design"}, {}
    report = safety_report(design, search.limits)
    limits = search.limits
    out["safety"] = {
        "kinetic_energy_j": round(report.kinetic_energy_j, 6),
        "kinetic_energy_max_j": round(report.kinetic_energy_max_j, 6),
        "kinetic_energy_per_area_j_m2": round(report.kinetic_energy_per_area_j_m2, 1),
    }
    energy = report.kinetic_energy_j
    if "energy" in search.objectives:
        out["objectives"]["energy"] = [round(energy, 6)] * 3
    safety = [
        report.kinetic_energy_max_j - limits.kinetic_energy_j,
        report.kinetic_energy_per_area_j_m2 - limits.kinetic_energy_per_area_j_m2,
    ]
    if report.over_limits:
        key = report.over_limits[0]
        text = (
            f"kinetic energy {report.kinetic_energy_max_j:.4f} J over the limit "
            f"{limits.kinetic_energy_j:g} J"
            if key == "kinetic_energy_j"
            else f"energy per area {report.kinetic_energy_per_area_j_m2:.0f} J/m² over the "
            f"limit {limits.kinetic_energy_per_area_j_m2:g} J/m²"
        )
        return out | {"reason": text, "reason_key": key, "constraints": [*safety, 0.0]}, {}
    required = search.min_reach or spaces
    spec = replace(search.spec, design=str(design_file(cache, design)))
    reachable = racing.reach_before_shots(design, search.board, spec, pool)
    if len(reachable) < required:
        return out | {
            "in_reach": len(reachable),
            "reason": f"{len(reachable)} of {spaces} spaces in reach (the aim solver's, "
            f"before any shot), {required} required",
            "reason_key": "reach",
            "constraints": [*safety, float(required - len(reachable))],
        }, {}
    spec = racing.low_fidelity(spec, search.fidelity)
    index = {s: i for i, s in enumerate(search.spec.spaces)}
    to_fire = tuple(s for s in search.fired_spaces if s in reachable)
    raced = racing.race(spec, to_fire, index, trial, pool, search.raced)
    in_reach = len(reachable) - sum(not p.reachable for p in raced.parts.values())
    out.update(
        {
            "in_reach": in_reach,
            "shots": sum(len(p.shots) for p in raced.parts.values()),
            "spaces_fired": len(raced.parts),
            "pruned": raced.pruned,
            "pruned_against": raced.against,
            "constraints": [*safety, float(required - in_reach)],
        }
    )
    if raced.pruned:
        estimate = racing.pruned_estimate(trial, raced, index)
        out["objectives"] = {search.objectives[0]: [round(v, 6) for v in estimate]}
    else:
        rows = map_rows(search, raced.parts)
        objectives = design_search.objective_values(search.board, rows, search.objectives, energy)
        out["objectives"] = {k: list(v) for k, v in objectives.items()}
    shots = {s: p.shots for s, p in raced.parts.items()}
    if in_reach < required:
        return out | {
            "reason": f"{in_reach} of {spaces} spaces in reach, {required} required",
            "reason_key": "reach",
        }, shots
    return out | {"feasible": True}, shots


def map_rows(search: Search, parts: dict[str, SpaceShots]) -> list[dict]:
    """A trial's hit-map rows on the spaces its objectives are measured on; a space
    it did not fire at (out of reach before any shot) or did not reach counts as
    P = 0 in the objectives."""
    rows = []
    for name in search.fired_spaces:
        target = target_and_stacks(search.spec, name)[0]
        part = parts.get(name) or SpaceShots(name, False, None, target, ())
        rows.append(summarise(part, search.board).to_dict())
    return rows


def design_file(cache: Path, design: Design) -> Path:
    """The design's file in the cache folder, by its content (the workers load it)."""
    text = design_toml(design)
    cache.mkdir(parents=True, exist_ok=True)
    return write_text_atomic(cache / f"design-{datafiles.sha256_text(text)[:16]}.toml", text)


# --- the few best, at full precision ---------------------------------------------------------
def remeasure(
    search: Search,
    study,
    best_first: list,
    fired: dict[int, dict],
    pool,
    cache: Path,
    progress=None,
) -> dict[int, dict]:
    """The :attr:`Search.remeasure` first of the trials ``best_first`` measured at
    full precision (the search's own hit-map rule, each space going on from the
    trial's low-fidelity shots where this run fired them), kept in the study's user
    attribute ``full_precision``: trial number -> {"objectives": {name: [value, low,
    high]}, "shots": shots its spaces took in all}. Trials measured so before (a
    resumed study) are not measured again. Empty when the fidelity is the full
    precision already."""
    known = {int(k): v for k, v in study.user_attrs.get("full_precision", {}).items()}
    if search.full_is_search:
        return {}
    chosen = [t for t in best_first[: search.remeasure] if t.number not in known]
    for done, trial in enumerate(chosen):
        values = {p.field: trial.params[p.field] for p in search.params}
        design = design_search.with_values(search.base, values, trial.user_attrs["design"])
        spec = replace(
            search.spec, design=str(design_file(cache, design)), spaces=search.fired_spaces
        )
        parts = racing.full_parts(spec, fired.get(trial.number, {}), pool)
        energy = safety_report(design, search.limits).kinetic_energy_j
        rows = map_rows(search, parts)
        objectives = design_search.objective_values(search.board, rows, search.objectives, energy)
        known[trial.number] = {
            "objectives": {k: list(v) for k, v in objectives.items()},
            "shots": sum(len(p.shots) for p in parts.values()),
        }
        study.set_user_attr("full_precision", {str(k): v for k, v in sorted(known.items())})
        if progress:
            progress(done + 1, len(chosen))
    return known
