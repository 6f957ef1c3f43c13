"""``piggy hitmap --sensitivity``: which ``--vary`` guesses the board mean depends on
most, from the map's own shots (sim/studies/maps/sensitivity.py): checked before a
shot, then told as a table or in ``--json``."""

from __future__ import annotations

from models.errors import InputError


def check_sensitivity(args, spec) -> None:
    """``--sensitivity`` (where asked) reads the shots' ``--vary`` draws: refused without
    them, with ``--aim-sd-scan``, or with too few shots to tell the guesses apart,
    before any shot."""
    if not args.sensitivity:
        return
    from sim.studies.maps.sensitivity import SHOTS_PER_FACTOR, varied

    if args.aim_sd_scan:
        raise InputError("--sensitivity reads one hit map's shots: not with --aim-sd-scan")
    names = varied(spec.vary)
    if not names:
        raise InputError(
            "--sensitivity says which --vary guesses matter: give --vary with some "
            "half-range above 0 (e.g. --vary mass=0.5,bale_friction=0.5)"
        )
    needed = SHOTS_PER_FACTOR * (len(names) + 1)
    if spec.shots * len(spec.spaces) < needed:
        raise InputError(
            f"--sensitivity with {len(names)} guesses varied needs at least {needed} shots, "
            f"and --shots {spec.shots} at {len(spec.spaces)} spaces fire at most "
            f"{spec.shots * len(spec.spaces)}"
        )


def sensitivity(spec, parts) -> dict:
    """Which guesses matter, or why it cannot say (too few shots in reach)."""
    from sim.studies.maps.sensitivity import sensitivity_of

    try:
        return sensitivity_of(spec, parts).to_dict()
    except InputError as error:
        return {"null_reason": str(error)}


def print_sensitivity(found: dict) -> None:
    """Which guesses matter, as a table (or why it cannot say)."""
    from sim.studies.maps.sensitivity import Sensitivity

    if "null_reason" in found:
        print(f"which guesses matter: {found['null_reason']}")
        return
    for line in Sensitivity.from_dict(found).lines():
        print(line)
