"""Launcher-design testing: compare designs by their hit maps, or sweep one design
parameter and watch the figures move.

Hit maps are cached under a cache folder (default ``.piggy-cache``), keyed by
everything that makes them, so comparing again reads instead of shooting.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import tomllib
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np

from models.board import Board
from models.design import RANGES, Design, design_from_dict, load_design
from models.errors import InputError
from models.files import write_text_atomic
from sim import hitmap
from sim.aim import reach_mm

#: Mean P(no contact) above which a space in reach counts as shadowed (by a fence or
#: the tractor: the bale hits them instead of the piggy).
SHADOW_NO_CONTACT = 0.5


def design_toml(design: Design) -> str:
    """A design as a TOML file (the inverse of load_design, for derived designs)."""
    lines = [f"name = {json.dumps(design.name)}",
             f"description = {json.dumps(design.description)}"]
    for section, values in design.file_dict().items():
        if isinstance(values, dict):
            lines.append(f"[{section}]")
            for key, value in values.items():
                lines.append(f"{key} = {str(value).lower() if isinstance(value, bool) else value}")
    return "\n".join(lines) + "\n"


def cached_hit_map(board_name: str, design: Design, spaces: tuple, shots: int, seed: int,
                   workers: int, cache: Path) -> list[dict]:
    """The hit map of a design (any, also derived ones), from the cache when it is there."""
    text = design_toml(design)
    key = hashlib.sha256(f"{board_name}|{text}|{spaces}|{shots}|{seed}".encode()).hexdigest()[:16]
    cache.mkdir(parents=True, exist_ok=True)
    out = cache / f"hitmap-{key}.csv"
    if out.exists():
        return hitmap.read_table(out)
    design_file = cache / f"design-{key}.toml"
    write_text_atomic(design_file, text)
    spec = hitmap.SweepSpec(board=board_name, design=str(design_file), stacks={},
                            spaces=spaces, shots=shots, seed=seed)
    return hitmap.sweep(spec, out, "csv", workers=workers, resume=True)


def figures(board: Board, design: Design, rows: list[dict], doubled: list[dict]) -> dict:
    """The comparison figures of one design's hit map (and the one with doubled aim
    spread, for the sensitivity)."""
    reachable = [r for r in rows if r["reachable"]]
    near, _ = reach_mm(design, 19.0)
    dead = {"too_close": [], "too_far": [], "shadowed": []}
    for r in rows:
        distance = float(np.hypot(*board.space_center_mm(board.parse_space(r["space"]))))
        if not r["reachable"]:
            dead["too_close" if distance < (near if math.isfinite(near) else 0) else
                 "too_far"].append(r["space"])
        elif r["p_no_contact"] >= SHADOW_NO_CONTACT:
            dead["shadowed"].append(r["space"])
    mean = float(np.mean([r["p_target"] for r in reachable])) if reachable else float("nan")
    mean_doubled = (float(np.mean([r["p_target"] for r in doubled if r["reachable"]]))
                    if any(r["reachable"] for r in doubled) else float("nan"))
    worst = min(reachable, key=lambda r: r["p_target"]) if reachable else None
    return {
        "design": design.name, "spaces": len(rows), "in_reach": len(reachable),
        "mean_p_target": round(mean, 4),
        "worst_p_target": None if worst is None else round(worst["p_target"], 4),
        "worst_space": None if worst is None else worst["space"],
        "collateral_rate": (round(float(np.mean([r["p_collateral"] for r in reachable])), 4)
                            if reachable else None),
        "dead_zones": dead,
        "mean_p_target_doubled_spread": round(mean_doubled, 4),
        "sensitivity": round(mean_doubled - mean, 4),
    }


def doubled_spread(design: Design) -> Design:
    launcher = dataclasses.replace(design.launcher, yaw_sd_deg=2 * design.launcher.yaw_sd_deg,
                                   pitch_sd_deg=2 * design.launcher.pitch_sd_deg)
    return dataclasses.replace(design, name=f"{design.name} (aim spread x2)", launcher=launcher)


def compare(board_name: str, board: Board, designs: list[Design], spaces: tuple, shots: int,
            seed: int, workers: int, cache: Path) -> tuple[list[dict], list[list[dict]]]:
    """Figures and hit-map rows for each design."""
    results, maps = [], []
    for design in designs:
        rows = cached_hit_map(board_name, design, spaces, shots, seed, workers, cache)
        doubled = cached_hit_map(board_name, doubled_spread(design), spaces, shots, seed,
                                 workers, cache)
        results.append(figures(board, design, rows, doubled))
        maps.append(rows)
    return results, maps


def comparison_figure(board: Board, results: list[dict], maps: list[list[dict]]):
    """Each design's heatmap side by side, its figures underneath."""
    n = len(results)
    fig, axes = plt.subplots(1, n, figsize=(5.2 * n, 8.2), squeeze=False)
    for ax, result, rows in zip(axes[0], results, maps, strict=True):
        hitmap.draw_heatmap(ax, board, rows, numbers=n <= 2)
        ax.set_title(f"{result['design']}\nin reach {result['in_reach']}/{result['spaces']}, "
                     f"mean P {result['mean_p_target']:.2f}, worst "
                     f"{result['worst_p_target']}\ncollateral {result['collateral_rate']}, "
                     f"aim spread x2: {result['sensitivity']:+.2f}", fontsize=9)
        ax.axis("off")
    fig.suptitle("Launcher designs compared: P(target knocked out) per space", fontsize=12)
    return fig


# --- sweeping one parameter ------------------------------------------------------------------
def parse_sweep(text: str) -> tuple[str, np.ndarray]:
    """``launcher.muzzle_speed_mm_s=1500:3000:7`` (or a unique field name without its
    section, ``muzzle_speed_mm_s``, or without its unit, ``muzzle_speed``)."""
    try:
        name, span = text.split("=")
        start, stop, count = span.split(":")
        values = np.linspace(float(start), float(stop), int(count))
    except ValueError:
        raise InputError(f"--param '{text}' must look like field=start:stop:count, e.g. "
                         "muzzle_speed=1500:3000:7") from None
    if len(values) < 2:
        raise InputError("--param needs a count of at least 2")
    matches = [k for k in RANGES if k == name or k.split(".")[1] == name
               or k.split(".")[1].rsplit("_", 2)[0] == name
               or k.split(".")[1].startswith(name + "_")]
    if len(matches) != 1:
        raise InputError(f"unknown or ambiguous design field '{name}': fields are "
                         f"{', '.join(RANGES)}")
    return matches[0], values


def with_value(design: Design, field: str, value: float) -> Design:
    section, key = field.split(".")
    data = tomllib.loads(design_toml(design))
    data[section][key] = int(value) if isinstance(getattr(getattr(design, section), key),
                                                  int) else float(value)
    data["name"] = f"{design.name} {key}={value:g}"
    return design_from_dict(data, source=f"sweep of {field}")


def sweep_figure(field: str, values, results: list[dict]):
    fig, axes = plt.subplots(1, 3, figsize=(13, 4))
    axes[0].plot(values, [r["mean_p_target"] for r in results], "o-", label="mean")
    axes[0].plot(values, [r["worst_p_target"] for r in results], "s--", label="worst")
    axes[0].set_ylabel("P(target knocked out)")
    axes[0].legend()
    axes[1].plot(values, [r["in_reach"] for r in results], "o-")
    axes[1].set_ylabel("spaces in reach")
    axes[2].plot(values, [r["collateral_rate"] for r in results], "o-", label="collateral")
    axes[2].plot(values, [-r["sensitivity"] for r in results], "s--",
                 label="loss with aim spread x2")
    axes[2].legend()
    for ax in axes:
        ax.set_xlabel(field)
        ax.grid(alpha=0.3)
    fig.suptitle(f"Design sweep of {field}", fontsize=12)
    fig.tight_layout()
    return fig


def load_designs(names: list[str]) -> list[Design]:
    if not names:
        raise InputError("give at least one design (a name or a TOML file)")
    return [load_design(n) for n in names]


def cache_folder(text: str | None) -> Path:
    return Path(text or ".piggy-cache")
