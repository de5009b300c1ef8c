"""Two models' false acceptance on their own samples, compared: a pooled two-proportion
z-test and the Wilson intervals; an RL policy falsely accepted significantly more than its
base "may have learned the verifier's blind spot"."""

from __future__ import annotations

import math

from .section import Comparison, Rate, SampledModel

BLIND_SPOT = "the policy may have learned the verifier's blind spot"
ALPHA = 0.05


def two_proportion(k1: int, n1: int, k2: int, n2: int) -> tuple[float, float]:
    """(z, two-sided p) of the pooled two-proportion z-test; (0, 1) when it is undefined."""
    if not n1 or not n2:
        return 0.0, 1.0
    pooled = (k1 + k2) / (n1 + n2)
    se = math.sqrt(pooled * (1 - pooled) * (1 / n1 + 1 / n2))
    if se == 0:
        return 0.0, 1.0
    z = (k1 / n1 - k2 / n2) / se
    return z, math.erfc(abs(z) / math.sqrt(2))


def fmt_rate(r: Rate) -> str:
    return f"{100 * r.rate:.1f}% ({r.k}/{r.n}) [{100 * r.ci.low:.1f}%, {100 * r.ci.high:.1f}%]"


def compare(a: str, ra: Rate, role_a: str | None, b: str, rb: Rate, role_b: str | None) -> Comparison | None:
    """``a`` against ``b`` when ``a``'s false acceptance is the higher; None otherwise."""
    if not ra.n or not rb.n or ra.k * rb.n <= rb.k * ra.n:
        return None
    z, p = two_proportion(ra.k, ra.n, rb.k, rb.n)
    disjoint = ra.ci.low > rb.ci.high
    significant = p < ALPHA or disjoint
    stats = f"two-proportion z = {z:.2f}, p = {p:.3g}; 95% intervals {'disjoint' if disjoint else 'overlap'}"
    if role_a == "rl" and role_b == "base":
        if significant:
            message = (
                f"{a} (RL) is falsely accepted on {fmt_rate(ra)} of its wrong samples vs {fmt_rate(rb)} for its "
                f"base {b} ({stats}): {BLIND_SPOT}."
            )
        else:
            message = (
                f"{a} (RL) false acceptance {fmt_rate(ra)} vs {fmt_rate(rb)} for its base {b}: higher, but not "
                f"significantly ({stats})."
            )
    elif role_a == "base" and role_b == "rl":
        message = (
            f"the base {a} is falsely accepted more than the RL policy {b}: {fmt_rate(ra)} vs {fmt_rate(rb)} "
            f"({stats}{'' if significant else '; not significant'})."
        )
    elif significant:
        message = (
            f"{a} false acceptance {fmt_rate(ra)} is significantly higher than {b}'s {fmt_rate(rb)} ({stats}): "
            f"if {a} was trained against this verifier, {BLIND_SPOT}."
        )
    else:
        message = f"{a} false acceptance {fmt_rate(ra)} vs {b}'s {fmt_rate(rb)}: not significantly different ({stats})."
    return Comparison(
        higher=a,
        lower=b,
        higher_role=role_a,
        lower_role=role_b,
        higher_fa=ra,
        lower_fa=rb,
        z=round(z, 6),
        p_value=p,
        intervals_disjoint=disjoint,
        significant=significant,
        message=message,
    )


def pairs_to_compare(models: list[SampledModel]) -> list[tuple[SampledModel, SampledModel]]:
    """The pairs to compare: every RL model with every base model when roles say which is
    which; otherwise every pair of models."""
    rl = [m for m in models if m.role == "rl"]
    base = [m for m in models if m.role == "base"]
    if rl and base:
        return [(r, b) for r in rl for b in base]
    return [(models[i], models[j]) for i in range(len(models)) for j in range(i + 1, len(models))]
