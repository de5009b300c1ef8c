"""One training run's metrics, under canonical names, whatever logger wrote them.

Every reader produces ``Run`` objects; everything downstream (alarms, fit, report) reads
only these. A series is two float64 arrays of equal length, sorted by step, steps unique
(the last value logged at a step wins), NaN and inf removed.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Canonical metric names and what they mean. Per-reward-function means are
# "reward_fn/<name>" (TRL's rewards/<fn>/mean, verl's reward components).
CANONICAL = {
    "reward": "mean training reward of the batch",
    "reward_std": "standard deviation of the reward within a group (GRPO) or batch",
    "frac_reward_zero_std": "fraction of groups whose rewards all tie (no learning signal)",
    "entropy": "mean token entropy of the policy (nats)",
    "kl": "KL divergence to the reference model (or its loss term)",
    "length": "mean completion length (tokens)",
    "val_accuracy": "held-out (validation) accuracy or reward",
}
REWARD_FN_PREFIX = "reward_fn/"
# What the live watch (verifier_audit/watch) writes per step window, read back under the same
# names: rollouts the domain's oracle labelled (decided), and of them those the reward paid
# while wrong and refused while right. Counts, not shares, so a replay runs the same test.
WATCH_PREFIX = "watch/"
WATCH_COUNTS = ("labelled", "paid_wrong", "refused_right")


@dataclass
class Series:
    steps: np.ndarray  # float64, strictly increasing
    values: np.ndarray  # float64, finite

    def __post_init__(self) -> None:
        steps = np.asarray(self.steps, dtype=np.float64)
        values = np.asarray(self.values, dtype=np.float64)
        if steps.shape != values.shape or steps.ndim != 1:
            raise ValueError(f"steps {steps.shape} and values {values.shape} must be equal 1-d arrays")
        keep = np.isfinite(steps) & np.isfinite(values)
        steps, values = steps[keep], values[keep]
        order = np.argsort(steps, kind="stable")
        steps, values = steps[order], values[order]
        # the last value logged at a step wins
        last = np.r_[steps[1:] != steps[:-1], True] if len(steps) else np.zeros(0, dtype=bool)
        self.steps, self.values = steps[last], values[last]

    def __len__(self) -> int:
        return len(self.steps)


@dataclass
class Run:
    name: str  # shown in reports; unique among the runs compared
    source: str  # the file it was read from
    metrics: dict[str, Series] = field(default_factory=dict)  # canonical name -> series
    original_names: dict[str, str] = field(default_factory=dict)  # canonical -> name in the log
    notes: list[str] = field(default_factory=list)  # what the reader noticed (a cut last line, ...)
    format: str = ""  # the format it was read as (readers.FORMATS, refined: "verl-console", ...)

    def has(self, name: str) -> bool:
        return name in self.metrics and len(self.metrics[name]) > 0

    def span(self) -> tuple[float, float]:
        """First and last step logged for any metric of the run ((0, 0) when none is)."""
        firsts = [float(s.steps[0]) for s in self.metrics.values() if len(s)]
        lasts = [float(s.steps[-1]) for s in self.metrics.values() if len(s)]
        return (min(firsts), max(lasts)) if firsts else (0.0, 0.0)

    def reward_functions(self) -> list[str]:
        return sorted(k[len(REWARD_FN_PREFIX) :] for k in self.metrics if k.startswith(REWARD_FN_PREFIX))
