"""The live watch: a reward wrapper that re-labels, during training, a seeded sample of what
the reward paid, with the domain's oracle in the audit's isolated workers (docs/watch.md).

```python
from verifier_audit.watch import trl_callback, watch

reward = watch(my_reward, domain="math", out="runs/watch.jsonl", reference_field="solution")
trainer = GRPOTrainer(..., reward_funcs=reward, callbacks=[trl_callback(reward)])
```

``watch`` returns a function with the reward's own call (TRL's ``reward_funcs``, verl's
``compute_score``, a plain ``fn(completion, reference)``) that returns exactly what the
reward returns; the trainer's side of the watch is a seeded draw and a queue. In the
background the sampled rollouts are labelled (paid-but-wrong, refused-but-right per window of
steps, Wilson intervals, failure categories from the oracle's reasons), the trainer's
metrics and the window counts are written as JSONL that ``verifier-audit monitor`` reads, and
the monitor's alarms run on them as they come, ``paid_wrong_rising`` among them; an alarm
logs, writes the HTML report or stops training (``actions``).

The implementation is private: ``_watch`` (the state, windows, JSONL, alarms), ``_labeller``
(the background thread and its pool), ``_styles`` (the wrapper per call style), ``_trl``
(the ``TrainerCallback``), ``_verl`` (the reward manager).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ..monitor.thresholds import Thresholds
from ._labeller import Rollout
from ._styles import STYLES, detect_style, wrap
from ._verl import WatchRewardManager
from ._watch import ACTIONS, Watch, WatchAlarm, category_of

__all__ = [
    "ACTIONS",
    "STYLES",
    "Rollout",
    "Watch",
    "WatchAlarm",
    "WatchRewardManager",
    "category_of",
    "detect_style",
    "watch",
    "trl_callback",
]


def watch(
    reward: Callable,
    *,
    domain: str,
    out: str | Path,
    sample: float = 0.02,
    seed: int = 0,
    window: int = 1,
    actions: Sequence[str] = ("log",),
    reference_field: str = "solution",
    style: str = "auto",
    threshold: float = 0.5,
    thresholds: Thresholds | None = None,
    html: str | Path | None = None,
    examples: int = 3,
    capacity: int = 10_000,
    timeout: float | None = None,
) -> Any:
    """``reward`` wrapped: same call, same return value. ``domain``: whose oracle labels
    (``math``, ``sql``, ``code``, ``tool`` or a plugin's); ``out``: the JSONL written as it goes
    (the HTML report goes to ``html``, default ``out`` with ``.html``); ``sample``: the
    fraction of rollouts labelled, drawn with ``seed``; ``window``: trainer steps per window;
    ``actions``: of ``log``, ``report``, ``stop``; ``reference_field``: the dataset column
    TRL passes with the reference; ``threshold``: a score at least this is "paid";
    ``thresholds``: the monitor's (``[tool.verifier_audit.monitor]``); ``capacity``: queued
    rollouts at most (more are dropped and counted); ``timeout``: per oracle call (default:
    the domain's). The wrapper's ``.watch`` is the ``Watch``: ``log(metrics, step)``,
    ``alarms``, ``close()``; ``trl_callback(wrapper)`` its ``TrainerCallback``."""
    state = Watch(
        domain=domain,
        out=out,
        sample=sample,
        seed=seed,
        window=window,
        actions=actions,
        threshold=threshold,
        thresholds=thresholds,
        html=html,
        examples=examples,
        capacity=capacity,
        timeout=timeout,
    )
    return wrap(reward, state, style, reference_field)


def trl_callback(watched: Any) -> Any:
    """The ``TrainerCallback`` of a watched reward (or of a ``Watch``)."""
    from ._trl import callback

    return callback(watched if isinstance(watched, Watch) else watched.watch)
