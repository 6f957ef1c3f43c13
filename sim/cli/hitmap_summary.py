"""What ``piggy hitmap`` says of the map it measured: the ``--json`` summary (the
spaces in reach, the shots, the mean and worst P with the worst's interval, the
spaces stopped at the cap short of the precision, the dead zones), the same in
words, a map with no space in reach, and a resumed run's reuse. Words and figures
only: the map is measured in sim/studies/maps/hitmap.py."""

from __future__ import annotations

import sys
from pathlib import Path

from models.text import shown
from sim.cli.common import json_out
from sim.cli.hitmap_budget import budget_words
from sim.cli.sensitivity import print_sensitivity


def print_resumed(outcome, out: Path) -> None:
    from sim.studies.maps import hitmap

    gone_on = f", {outcome.gone_on:,} shots gone on from" if outcome.gone_on else ""
    print(
        f"piggy: resumed: {outcome.reused} of {len(outcome.rows)} spaces reused from "
        f"{shown(str(hitmap.parts_folder(out)))}, {outcome.computed} measured now{gone_on}",
        file=sys.stderr,
    )


def sampling_words(spec, summary: dict) -> str:
    """How the spaces were sampled, in words: the precision (or a budget's) or the
    shots a space (fewest and most), and the sampler unless plain Monte Carlo."""
    fewest, most = summary["shots_per_space"]
    budget = summary.get("budget")
    sampling = (
        f"by --budget {budget['budget_s']:g} s, {fewest}-{most} shots a space"
        if budget and not budget["finished"]
        else f"to ±{spec.precision:g} (95 %), {fewest}-{most} shots a space"
        if spec.precision
        else f"{most} shots a space"
    )
    return sampling if spec.sampler == "mc" else f"{spec.sampler}, {sampling}"


def summary(spec, out: Path, outcome, reachable: list[dict]) -> dict:
    """The ``--json`` summary of a hit map with some space in reach (``interval``: the
    name of its intervals, as its file's provenance records it)."""
    from sim.studies.shots.rqmc import INTERVALS

    rows = outcome.rows
    shots = [r["shots"] for r in reachable]
    worst = min(reachable, key=lambda r: r["p_target"])
    return {
        "file": str(out),
        "spaces": len(rows),
        "in_reach": len(reachable),
        "shots": sum(shots),
        "shots_per_space": [min(shots), max(shots)],
        "precision": spec.precision,
        "seed": spec.seed,
        "aimer": spec.aimer.name,
        "sampler": spec.sampler,
        "interval": INTERVALS[spec.sampler],
        "mean_p_target": round(sum(r["p_target"] for r in reachable) / len(reachable), 4),
        "worst": worst["space"],
        "worst_p_target": worst["p_target"],
        "worst_p_target_ci": [worst["p_target_ci_low"], worst["p_target_ci_high"]],
        "shots_cap": spec.shots,
        "capped_spaces": _capped(spec, reachable),
        "reused_spaces": outcome.reused,
        "measured_spaces": outcome.computed,
        "gone_on_shots": outcome.gone_on,
        "dead_zones": dead_zones(rows),
    }


def _capped(spec, reachable: list[dict]) -> list[str]:
    """The spaces that stopped at the cap of ``--shots`` with their interval still
    wider than ``--precision``: "to ±P" does not hold there."""
    if not spec.precision:
        return []
    return [
        r["space"]
        for r in reachable
        if r["shots"] >= spec.shots
        and (r["p_target_ci_high"] - r["p_target_ci_low"]) / 2 > spec.precision
    ]


def print_summary(summary: dict, sampling: str, plot: str | None) -> None:
    """The summary in words, and the files written."""
    low, high = summary["worst_p_target_ci"]
    spaces = f"{summary['spaces']} space{'s' if summary['spaces'] != 1 else ''}"
    print(
        f"{spaces}, {summary['in_reach']} in reach, {sampling} "
        f"({summary['shots']:,} shots), aimer {summary['aimer']}: mean P(target knocked out) "
        f"{summary['mean_p_target']:.2f}, worst {summary['worst']} "
        f"{summary['worst_p_target']:.2f} [{low:.2f}, {high:.2f}] (95 %, {summary['interval']})"
    )
    if "budget" in summary:
        print(budget_words(summary["budget"], Path(summary["file"])))
    if capped := summary["capped_spaces"]:
        print(
            f"not to ±{summary['precision']:g} on {len(capped)} of {summary['in_reach']} "
            f"spaces ({', '.join(capped[:5])}{', ...' if len(capped) > 5 else ''}): they "
            f"stopped at the cap of {summary['shots_cap']:,} shots first (raise --shots)"
        )
    named = [
        f"{kind.replace('_', ' ')} {', '.join(spaces)}"
        for kind, spaces in summary["dead_zones"].items()
        if spaces
    ]
    print("dead zones (docs/hitmap.md): " + ("; ".join(named) or "none"))
    if "sensitivity" in summary:
        print_sensitivity(summary["sensitivity"])
    for path in (summary["file"], summary.get("per_shot_file"), plot):
        if path:
            print(f"Wrote {shown(path)}")


def none_in_reach(args, design: str, rows: list[dict], out: Path) -> int:
    """A map of spaces none of which is in reach: a result (every row says so), exit 0."""
    if args.json:
        json_out(
            {
                "file": str(out),
                "spaces": len(rows),
                "in_reach": 0,
                "shots": 0,
                "mean_p_target": None,
                "null_reason": f"no selected space is in reach of design '{design}'",
            }
        )
        return 0
    print(f"{len(rows)} spaces, none in reach of design '{shown(design)}': no shot fired")
    print(f"Wrote {shown(str(out))}")
    return 0


def dead_zones(rows: list[dict]) -> dict[str, list[str]]:
    """The hit map's dead zones by kind (sim/studies/shots/dead_zones.py), spaces named."""
    from sim.studies.shots.dead_zones import DEAD_ZONES

    return {kind: [r["space"] for r in rows if r.get("dead_zone") == kind] for kind in DEAD_ZONES}
