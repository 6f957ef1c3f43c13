"""One set of words for what a shot did and why a space is dead, each defined once.

A shot at a target piggy ends in one of four **outcomes**:

- ``knocked``: the target was knocked out;
- ``stayed``: the bale struck the target first, and the target stayed in;
- ``blocked``: the bale struck a fence, the tractor or another piggy first (the
  board and the table do not count), and the target stayed in;
- ``missed``: the bale struck no piggy, no fence and not the tractor: it landed
  short, long or wide.

A space in reach is a **dead zone** when the 95 % interval of its shots says so
(the hit map's own: RQMC's, or Wilson's with plain Monte Carlo), not the point
estimate alone (the same rule in ``design compare``, the hit-map picture and the
JSON):

- ``blocked``: the interval of P(blocked) lies above :data:`MOST`;
- ``missed``: the interval of P(missed) lies above :data:`MOST`;
- ``never_out``: no shot knocked the target out, and the interval of P(knocked out)
  lies below :data:`RARELY` (20 shots that all miss give [0, 0.16]: too few to say
  "never").

A space no aim reaches is ``out_of_reach``.
"""

from __future__ import annotations

OUTCOMES = ("knocked", "stayed", "blocked", "missed")
#: What :func:`first_struck` may say.
FIRST_STRUCK = ("target", "fence", "tractor", "piggy", "")
DEAD_ZONES = ("out_of_reach", "blocked", "missed", "never_out")
#: Surfaces the bale may bounce on without being blocked.
_SURFACES = ("board", "table")
#: A share of shots the interval must lie above to call a space blocked or missed.
MOST = 0.5
#: The interval's upper end below which a space no shot knocked out is "never out".
RARELY = 0.1
#: Fewer shots (or pairs) than this at a space are flagged: a precision-driven sweep
#: stops a space early when its first shots all agree.
FEW_SHOTS = 50


def first_struck(target: str, contacts: list[str]) -> str:
    """What the bale struck first, the board and the table left out: ``target``,
    ``fence``, ``tractor``, ``piggy`` (another one) or ``""`` (nothing)."""
    for name in contacts:
        if name in _SURFACES:
            continue
        if name == target:
            return "target"
        return "piggy" if "-" in name else name
    return ""


def shot_outcome(target: str, knocked: list[str], contacts: list[str]) -> str:
    """One of :data:`OUTCOMES` for a shot at ``target``."""
    if target in knocked:
        return "knocked"
    first = first_struck(target, contacts)
    return {"target": "stayed", "": "missed"}.get(first, "blocked")


def dead_zone(row: dict) -> str | None:
    """The dead zone (one of :data:`DEAD_ZONES`) a hit-map row is, or None."""
    if not row.get("reachable"):
        return "out_of_reach"
    if not row.get("shots"):
        return None
    for kind in ("blocked", "missed"):
        low = row.get(f"p_{kind}_ci_low")
        if low is not None and low > MOST:
            return kind
    high = row.get("p_target_ci_high")
    if row.get("p_target") == 0 and high is not None and high < RARELY:
        return "never_out"
    return None
