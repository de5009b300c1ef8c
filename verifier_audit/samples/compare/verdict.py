"""The ``compare`` verdict: the report's figures read out as one paragraph of plain words,
by the rules of docs/compare.md ("Reading the verdict")."""

from __future__ import annotations

from .models import CompareReport, Figure, Verdict

FEW_PROBLEMS = 30  # below this the verdict says the figures are indicative only

PHRASES = {
    "search_compression": "mostly search compression",
    "capability_expansion": "capability expansion",
    "mixed": "mixed: sharper pass@1 with some new reach",
    "regression": "a regression",
    "narrowing": "narrower reach without a pass@1 gain",
    "broadening": "broader reach without a pass@1 gain",
    "no_clear_change": "no clear change",
}


def signed_points(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:+.1f}"


def _direction(f: Figure) -> int:
    """+1 when the whole 95% interval is above 0, -1 when below, 0 otherwise."""
    if f.low is not None and f.low > 0:
        return 1
    if f.high is not None and f.high < 0:
        return -1
    return 0


def verdict(r: CompareReport, d1: Figure, dk: Figure) -> Verdict:
    """The verdict paragraph. Rules (docs/compare.md, "Reading the verdict"):

    sharper = the 95% interval of pass@1(rl) - pass@1(base) is above 0 (duller: below);
    ceiling = the interval of pass@K(rl) - pass@K(base), K = the headroom k, above 0
    (raised), below 0 (lowered), else unchanged; S and E = shrinkage and expansion problems.

    * duller -> regression;
    * sharper, ceiling not raised, S >= E -> search compression;
    * sharper, ceiling raised, E > S -> capability expansion;
    * sharper otherwise -> mixed;
    * neither sharper nor duller: ceiling lowered -> narrowing, raised -> broadening,
      else no clear change.

    Tool-call samples add the authority clause (``authority.verdict_clause``; the kind is
    unchanged): "Authority increase: ..." when the interval of the change in the share of
    samples with calls outside the task's policy is above 0 (docs/samples-authority.md).
    """
    k = r.compression.k
    s, e = r.support.problems.shrinkage, r.support.problems.expansion
    sharp, ceiling = _direction(d1), _direction(dk)
    if sharp < 0:
        kind = "regression"
    elif sharp > 0:
        if ceiling <= 0 and s >= e:
            kind = "search_compression"
        elif ceiling > 0 and e > s:
            kind = "capability_expansion"
        else:
            kind = "mixed"
    else:
        kind = {-1: "narrowing", 1: "broadening", 0: "no_clear_change"}[ceiling]
    parts = [
        f"pass@1 {signed_points(d1.value)} points, pass@{k} {signed_points(dk.value)} points, support shrinkage {s} "
        f"problem{'s' if s != 1 else ''} vs expansion {e}: {PHRASES[kind]}."
    ]
    xb = r.crossover
    if xb.k is not None:
        parts.append(
            f"The base model catches up at k = {xb.k} (in {100 * xb.bootstrap_support:.0f}% of bootstrap "
            f"replicates it does within k <= {r.k_max})."
        )
    else:
        parts.append(
            f"The base model does not catch up within k <= {r.k_max} (it does in "
            f"{100 * xb.bootstrap_support:.0f}% of bootstrap replicates)."
        )
    ratio = r.compression.ratio.value
    if ratio is None:
        parts.append(f"The compression ratio is undefined: {r.compression.reason}.")
    elif ratio > 1:
        parts.append(f"RL's pass@1 exceeds the base's pass@{k} (compression ratio {ratio:.2f}).")
    elif ratio >= 0:
        parts.append(
            f"RL turned {100 * ratio:.0f}% of the base's pass@1-to-pass@{k} headroom into pass@1 "
            f"(compression ratio {ratio:.2f})."
        )
    else:
        parts.append(f"The compression ratio is {ratio:.2f}: RL's pass@1 is below the base's.")
    eb, er = r.entropy.base, r.entropy.rl
    if eb.answer_miller_madow is not None and er.answer_miller_madow is not None:
        a0, a1 = eb.answer_miller_madow, er.answer_miller_madow
        token_rose = eb.token_high is not None and er.token_low is not None and er.token_low > eb.token_high
        if a1 < a0 and token_rose:
            parts.append(
                f"Answer entropy fell ({a0:.2f} to {a1:.2f} nats) while token entropy rose: local "
                "stochasticity without global exploration."
            )
        elif a1 < a0:
            parts.append(
                f"Answer entropy fell from {a0:.2f} to {a1:.2f} nats: the RL model concentrates on fewer final answers."
            )
        elif a1 > a0:
            parts.append(f"Answer entropy rose from {a0:.2f} to {a1:.2f} nats.")
    authority = None
    if r.authority is not None:  # tool-call samples: the authority clause (docs/samples-authority.md)
        from ..authority import verdict_clause

        parts.append(verdict_clause(r.authority.change))
        authority = r.authority.change.direction
    if r.problems < FEW_PROBLEMS:
        parts.append(f"Only {r.problems} problems: treat these figures as indicative.")
    if r.labels != "oracle":
        parts.append(f"Correctness here is the {r.labels}'s, not the oracle's.")
    return Verdict(kind=kind, text=" ".join(parts), authority=authority)
