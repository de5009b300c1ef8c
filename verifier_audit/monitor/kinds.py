"""What an alarm is: the kinds, what each reads, and the ``Alarm`` record every detector
returns. Kept apart from the detectors so that they and the report's modules can import it
without importing each other."""

from __future__ import annotations

from dataclasses import dataclass, field

from .run import REWARD_FN_PREFIX, WATCH_PREFIX

KINDS = (
    "entropy_collapse",
    "reward_variance_collapse",
    "kl_drift",
    "length_blowup",
    "length_collapse",
    "train_val_divergence",
    "reward_fn_divergence",
)
# Alarms read from the live watch's labels (``watch/`` counts): checked only on a run that has
# them, since no trainer's own log holds what the domain's oracle said of the rollouts.
LABEL_KINDS = ("paid_wrong_rising",)

# What each alarm reads, in words (for a report's "could not run" line).
REQUIRES: dict[str, str] = {
    "entropy_collapse": "entropy",
    "reward_variance_collapse": "reward_std or frac_reward_zero_std",
    "kl_drift": "kl",
    "length_blowup": "length",
    "length_collapse": "length",
    "train_val_divergence": "reward and val_accuracy",
    "reward_fn_divergence": f"two or more {REWARD_FN_PREFIX}<name>",
    "paid_wrong_rising": f"{WATCH_PREFIX}labelled and {WATCH_PREFIX}paid_wrong (the live watch)",
}


@dataclass(frozen=True)
class Alarm:
    kind: str  # one of KINDS
    run: str  # Run.name
    step: float  # where it fired
    message: str  # one sentence with the numbers behind it
    evidence: dict = field(hash=False)  # the numbers (JSON-able: floats, ints, strings)

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "run": self.run,
            "step": self.step,
            "message": self.message,
            "evidence": dict(self.evidence),
        }
