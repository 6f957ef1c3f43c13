"""The check (sim/studies/calibrating/toy_check.py) in words: the test and its
verdict, ΔP with its interval, the power, the Brier skill and the reliability table,
with the assumptions they rest on."""

from __future__ import annotations

from sim.studies.calibrating.toy_check import ToyCheck
from sim.studies.calibrating.toy_check_stats import ALPHA, POWER, CheckStatistics

#: What every figure of the check assumes, said once under it.
ASSUMPTIONS = (
    "Assumes the shots independent of each other; the test, that the toy knocks out "
    "as the sandbox does (its variance is the sandbox's count per shot, Monte Carlo "
    "error included); ΔP's interval, only the shots' independence (Student t over "
    "shots)."
)


def verdict(stats: CheckStatistics) -> str:
    """The verdict in words, ΔP with its 95 % interval."""
    lo, hi = stats.delta_p_interval
    delta = f"ΔP about {stats.delta_p:+.3f} [{lo:+.3f}, {hi:+.3f}]"
    if not stats.rejected:
        return f"consistent with the toy ({_p(stats.p_value)}; {delta})"
    more = "more" if stats.delta_p > 0 else "fewer"
    return f"the toy knocks out {more} than the sandbox: {delta} ({_p(stats.p_value)})"


def _p(p_value: float) -> str:
    """``p = 0.0984``, or ``p < 0.0001``."""
    return "p < 0.0001" if p_value < 1e-4 else "p = " + f"{p_value:.4f}".rstrip("0").rstrip(".")


def format_check(check: ToyCheck) -> str:
    """The check as text for a person."""
    stats, spec = check.statistics, check.spec
    lines = [
        f"Checked design '{spec.design.name}' against {stats.shots} measured shots at "
        f"{len(check.piggies)} piggies ({check.source}); each shot re-fired "
        f"{stats.refires} times in the sandbox with the design's noise, seed {spec.seed}.",
        f"  piggy-shots: {stats.piggy_shots} ({stats.unseen} unseen on film, left out)",
        f"  knocked out: {stats.observed_total} on film, {stats.predicted_total:.1f} "
        f"predicted (sd {stats.total_sd:.1f} if the toy knocks out as the sandbox does)",
        f"  test of the total: z = {stats.z:+.2f}, {_p(stats.p_value)} (two-sided, "
        f"rejects at p < {ALPHA:g})",
        f"  ΔP (film - sandbox, mean over piggy-shots): {stats.delta_p:+.3f} "
        f"[{stats.delta_p_interval[0]:+.3f}, {stats.delta_p_interval[1]:+.3f}] (95 %)",
        f"  power: a mean |ΔP| of {stats.min_detectable:.3f} or more is found at "
        f"{ALPHA * 100:g} % with {POWER * 100:g} % power by this many shots",
        f"  Brier score {stats.brier:.4f} (Monte Carlo error taken out), reference "
        f"{stats.brier_reference:.4f} (each piggy's P averaged over the shots): "
        f"{_skill(stats)}",
        "  reliability (predicted P against how often the film shows a knock-out):",
        "    predicted P   piggy-shots  mean P  observed  95 % interval",
    ]
    for row in stats.reliability:
        lines.append(
            f"    {row.lo:.2f}-{row.hi:.2f}     {row.count:>11}  {row.mean_predicted:6.3f}  "
            f"{row.observed:8.3f}  [{row.observed_lo:.3f}, {row.observed_hi:.3f}]"
        )
    lines += [f"Verdict: {verdict(stats)}.", ASSUMPTIONS]
    return "\n".join(lines)


def _skill(stats: CheckStatistics) -> str:
    if stats.skill is None or stats.skill_interval is None:
        return "no skill score (the reference is perfect: nothing is ever knocked out)"
    lo, hi = stats.skill_interval
    return f"skill {stats.skill:+.2f} [{lo:+.2f}, {hi:+.2f}] (95 %, bootstrap over shots)"
