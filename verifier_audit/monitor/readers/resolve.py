"""Raw columns -> a ``Run``: per canonical metric, the log name it comes from (the mapping
first, then the aliases in order of preference), per-reward-function means, and validation
accuracy from verl's per-data-source keys. A log with no known name at all is an
``InputError`` that lists the names known and the names found."""

from __future__ import annotations

import difflib

import numpy as np

from ...errors import InputError
from ..run import CANONICAL, REWARD_FN_PREFIX, Run, Series
from .columns import _Raw
from .names import (
    ALIASES,
    NOT_USED,
    REWARD_FN_RE,
    VAL_CORE_RE,
    VAL_OLD_RE,
    VAL_VAR_ORDER,
    WATCH_NAMES,
    _norm,
    known_names,
)


def _mean_at_common(series: list[Series]) -> Series:
    common = series[0].steps
    for s in series[1:]:
        common = np.intersect1d(common, s.steps, assume_unique=True)
    vals = np.mean([np.interp(common, s.steps, s.values) for s in series], axis=0) if len(common) else np.zeros(0)
    return Series(common, vals)


def _resolve(raw: _Raw, mapping: dict[str, str]) -> Run:
    """Pick, per canonical metric, the log name it comes from; build the Run."""
    cols = raw.columns
    by_norm: dict[str, str] = {}
    for name in cols:
        by_norm.setdefault(_norm(name), name)
        by_norm.setdefault(name, name)
    metrics: dict[str, Series] = {}
    original: dict[str, str] = {}
    notes = list(raw.notes)

    def take(canonical: str, name: str) -> None:
        s = cols[name]
        if len(s) == 0:
            notes.append(f"{canonical}: {name} is in the log but holds no number")
            return
        metrics[canonical], original[canonical] = s, name

    for canonical, theirs in mapping.items():
        name = theirs if theirs in cols else by_norm.get(theirs)
        if name is None:
            have = raw.found
            close = difflib.get_close_matches(theirs, have, n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            shown = ", ".join(have[:25]) + (f", ... ({len(have)} in all)" if len(have) > 25 else "")
            raise InputError(
                f"{raw.source}: --metric {canonical}={theirs}: the log has no metric {theirs!r}"
                f"{hint} (its metrics: {shown or 'none'})"
            )
        take(canonical, name)
    for canonical, names in ALIASES.items():
        if canonical in metrics:
            continue
        for n in names:
            if n in by_norm:
                take(canonical, by_norm[n])
                break
    # per-reward-function means
    fns: dict[str, tuple[bool, str]] = {}
    for norm, name in by_norm.items():
        if norm.startswith("eval_") or name.startswith("eval"):
            continue
        m = REWARD_FN_RE.match(norm)
        if m:
            fn, is_mean = m.group("fn"), m.group("mean") is not None
            if fn not in fns or (is_mean and not fns[fn][0]):
                fns[fn] = (is_mean, name)
    for fn, (_, name) in sorted(fns.items()):
        key = REWARD_FN_PREFIX + fn
        if key not in metrics:
            take(key, name)
    # the live watch's labels, under their own names
    for name in WATCH_NAMES:
        if name in by_norm and name not in metrics:
            take(name, by_norm[name])
    # validation from verl's val-core (one key per data source), averaged over sources
    if "val_accuracy" not in metrics:
        per_ds: dict[str, tuple[tuple, str]] = {}
        for norm, name in by_norm.items():
            m = VAL_CORE_RE.match(norm)
            if m:
                var = m.group("var")
                rank = (VAL_VAR_ORDER.index(var) if var in VAL_VAR_ORDER else len(VAL_VAR_ORDER), -int(m.group("n")))
                ds = m.group("ds")
                if ds not in per_ds or rank < per_ds[ds][0]:
                    per_ds[ds] = (rank, name)
        if not per_ds:
            for norm, name in by_norm.items():
                m = VAL_OLD_RE.match(norm)
                if m:
                    per_ds[m.group("ds")] = ((0, 0), name)
        chosen = [name for _, name in sorted(per_ds.values(), key=lambda t: t[1]) if len(cols[name])]
        if len(chosen) == 1:
            take("val_accuracy", chosen[0])
        elif len(chosen) > 1:
            s = _mean_at_common([cols[n] for n in chosen])
            if len(s):
                metrics["val_accuracy"], original["val_accuracy"] = s, " + ".join(chosen)
                notes.append(f"val_accuracy is the mean of {len(chosen)} validation sets: {', '.join(chosen)}")
            else:
                take("val_accuracy", chosen[0])
                notes.append(f"validation sets logged at different steps; val_accuracy is {chosen[0]} only")
    if "kl" not in metrics:
        for name, why in NOT_USED.items():
            if name in raw.found:
                notes.append(why)
    if not metrics:
        shown = ", ".join(raw.found[:30]) + (f", ... ({len(raw.found)} in all)" if len(raw.found) > 30 else "")
        raise InputError(
            f"{raw.source}: none of its metric names is one verifier-audit knows"
            + (f" (run {raw.label})" if raw.label else "")
            + ".\n"
            f"  found: {shown or 'no metric at all'}\n"
            f"  known: {', '.join(known_names())} (a 'train/' prefix is fine; 'eval/x' counts as 'eval_x')\n"
            f"  map yours with --metric CANONICAL=NAME, CANONICAL one of {', '.join(CANONICAL)} or "
            f"{REWARD_FN_PREFIX}<name>"
        )
    return Run(name="", source=raw.source, metrics=metrics, original_names=original, notes=notes, format=raw.fmt)
