"""Metric names: which log names stand for which canonical metric, the step keys, and the
``--metric CANONICAL=NAME`` mapping that adds names of the user's own.

Names are resolved the same way in every format: a name written with a ``train/`` prefix
(TRL through W&B or TensorBoard) counts without it, and ``eval/x`` counts as ``eval_x``.
Readers keep only candidate names (``_is_candidate``); which candidate becomes which
metric is decided later, in resolve.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from ...errors import InputError
from ..run import CANONICAL, REWARD_FN_PREFIX, WATCH_COUNTS, WATCH_PREFIX

# The step: the first of these a log has. TRL through W&B logs "train/global_step" next to
# W&B's own "_step" counter, and the former is the trainer's step.
STEP_KEYS = ("step", "global_step", "train/global_step", "trainer/global_step", "Step", "_step", "iteration", "iter")

# canonical -> names in preference order (the first one a log has is used). Prefixes
# "train/" and "eval/" are normalized away before looking here (see _norm).
ALIASES: dict[str, tuple[str, ...]] = {
    "reward": ("reward", "critic/score/mean", "critic/rewards/mean"),
    "reward_std": ("reward_std",),
    "frac_reward_zero_std": ("frac_reward_zero_std",),
    "entropy": ("entropy", "actor/entropy", "actor/entropy_loss"),
    "kl": ("kl", "actor/kl_loss", "critic/kl"),
    "length": ("length", "completions/mean_length", "completion_length", "response_length/mean"),
    "val_accuracy": ("val_accuracy", "eval_accuracy", "eval_acc", "eval_reward"),
}
# Per-reward-function means: TRL's "rewards/<fn>/mean" (older TRL: "rewards/<fn>").
REWARD_FN_RE = re.compile(r"^rewards/(?P<fn>[^/]+)(?P<mean>/mean)?$")
# verl validation: "val-core/<data source>/<variable>/mean@<n>" (newer), "val/test_score/<source>" (older).
VAL_CORE_RE = re.compile(r"^val-core/(?P<ds>.+)/(?P<var>[^/]+)/mean@(?P<n>\d+)$")
VAL_OLD_RE = re.compile(r"^val/test_score/(?P<ds>.+)$")
VAL_VAR_ORDER = ("acc", "accuracy", "reward", "score")
# Names we know and deliberately do not use, with the reason (shown when they are the closest thing).
NOT_USED = {
    "actor/ppo_kl": (
        "actor/ppo_kl is the KL between the rollout policy and the updated one (the size of "
        "one update), not the distance to the reference model; it is not used as kl "
        "(map it with --metric kl=actor/ppo_kl to watch it anyway)"
    ),
}


def known_names() -> list[str]:
    """Every metric name recognized without a mapping, for messages and the docs."""
    out = []
    for _canonical, names in ALIASES.items():
        out += [n for n in names if n not in out]
    out += [
        "rewards/<fn>/mean",
        "rewards/<fn>",
        "val-core/<data source>/<variable>/mean@<n>",
        "val/test_score/<data source>",
    ]
    return out


def _norm(name: str) -> str:
    """A log name as looked up in ALIASES: "train/x" -> "x", "eval/x" -> "eval_x"."""
    if name.startswith("train/"):
        return name[6:]
    if name.startswith("eval/"):
        return "eval_" + name[5:]
    return name


_ALIAS_SET = {n for names in ALIASES.values() for n in names}
# The live watch's counts per window (verifier_audit/watch), read under their own names.
WATCH_NAMES = tuple(WATCH_PREFIX + c for c in WATCH_COUNTS)


class _Want:
    """What the reader looks for beyond the built-in names: the log names a mapping asks
    for, and the step keys (``--metric step=NAME`` replaces STEP_KEYS)."""

    def __init__(self, names: Iterable[str] = (), steps: Sequence[str] = STEP_KEYS):
        self.names, self.steps = frozenset(names), tuple(steps)

    def __contains__(self, name: object) -> bool:
        return name in self.names


def _is_candidate(name: str, mapped) -> bool:
    """Could this log name become a canonical metric (before choosing among aliases)?"""
    if name in mapped:
        return True
    n = _norm(name)
    return (
        n in _ALIAS_SET
        or REWARD_FN_RE.match(n) is not None
        or VAL_CORE_RE.match(n) is not None
        or VAL_OLD_RE.match(n) is not None
        or n in WATCH_NAMES
    )


def parse_mapping(items: Iterable[str]) -> dict[str, str]:
    """``["reward=train/score", ...]`` -> {"reward": "train/score"}, checked."""
    out: dict[str, str] = {}
    for item in items:
        canonical, sep, theirs = item.partition("=")
        canonical, theirs = canonical.strip(), theirs.strip()
        if not sep or not canonical or not theirs:
            raise InputError(f"--metric {item!r}: expected CANONICAL=NAME, e.g. --metric reward=train/score")
        _check_canonical(canonical)
        if canonical in out:
            raise InputError(f"--metric {canonical} is given twice ({out[canonical]!r} and {theirs!r})")
        out[canonical] = theirs
    return out


def _check_canonical(canonical: str) -> None:
    if canonical in CANONICAL or canonical == "step":
        return
    if canonical.startswith(REWARD_FN_PREFIX) and len(canonical) > len(REWARD_FN_PREFIX):
        return
    raise InputError(
        f"--metric {canonical}=...: {canonical!r} is not a canonical metric; use one of "
        f"{', '.join(CANONICAL)}, {REWARD_FN_PREFIX}<name> for one reward function, or step "
        f"(the step key)"
    )
