"""Whether an answer came from the cache, said: the shots a study fired now, counted
from what its progress tells (``fired=``), against the shots its answer holds. An
answer read wholly or partly from an earlier run's shots says so at its end and in
``--json`` (a budget then did not fire them)."""

from __future__ import annotations

from pathlib import Path

from models.text import shown


class ShotsFired:
    """A progress callback that counts the shots it is told were fired
    (``fired=``), passing every call on to ``progress``."""

    def __init__(self, progress):
        self.progress = progress
        self.fired = 0

    def __call__(self, *args, **told):
        self.fired += told.get("fired") or 0
        return self.progress(*args, **told)


def from_cache(maps: list[list[list[dict]]], fired_now: int) -> dict:
    """The ``--json`` account of the shots of an answer (``maps``: each run's hit-map
    rows, per design): those read from the cache (an earlier run's) and those fired
    now."""
    held = sum(int(r["shots"]) for rows_by_design in maps for rows in rows_by_design for r in rows)
    read = max(0, held - fired_now)
    return {
        "shots": held,
        "shots_read": read,
        "shots_fired_now": fired_now,
        "wholly": not fired_now,
    }


def cache_line(said: dict, cache: Path) -> str:
    """The end line: where the maps are cached, and how much of the answer came from
    there."""
    where = f"{shown(str(cache))} (--cache chooses another folder)"
    if said["shots"] and said["wholly"]:
        return (
            f"Answered from the cache: all {said['shots']:,} shots were read from {where}, "
            "fired by an earlier run; none fired now"
        )
    if said["shots_read"]:
        return (
            f"Partly from the cache: {said['shots_read']:,} of {said['shots']:,} shots read "
            f"from {where}, {said['shots_fired_now']:,} fired now"
        )
    return f"Hit maps cached in {where}"
