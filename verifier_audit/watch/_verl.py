"""The verl integration: a reward manager that wraps one of verl's (``NaiveRewardManager``,
``BatchRewardManager``, ``DAPORewardManager``: anything that keeps its scoring function as
``compute_score`` and is called with a ``DataProto``). Its ``compute_score`` is replaced by
the watched one, and each call reads the trainer's step from the batch's
``meta_info["global_steps"]`` (verl's ``RayPPOTrainer`` sets it on the generation batch), so
the rollouts are counted under the step verl logs them at. ``log(metrics, step)`` is the
watch's, for verl's metrics dict of the step."""

from __future__ import annotations

from typing import Any

from ._styles import wrap
from ._watch import Watch


class WatchRewardManager:
    """``WatchRewardManager(manager, watch)``: called as the manager is, returns what it
    returns."""

    def __init__(self, manager: Any, watch: Watch):
        self.manager, self.watch = manager, watch
        manager.compute_score = wrap(manager.compute_score, watch, "verl", "ground_truth")

    def __call__(self, data: Any, *args: Any, **kwargs: Any) -> Any:
        meta = getattr(data, "meta_info", None)
        step = meta.get("global_steps") if isinstance(meta, dict) else None
        if step is not None:
            self.watch.at_step(int(step))
        return self.manager(data, *args, **kwargs)

    def log(self, metrics: dict, step: int) -> None:
        self.watch.log(metrics, step)

    def close(self, timeout: float | None = None):
        return self.watch.close(timeout)

    def __getattr__(self, name: str) -> Any:  # the manager's other attributes, as verl reads them
        return getattr(self.manager, name)
