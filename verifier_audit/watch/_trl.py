"""The TRL integration: a ``transformers.TrainerCallback`` that feeds the watch the
trainer's logged metrics and step (``on_log``), stops training when an alarm's action is
``stop`` (``on_step_end``), and labels what is left and writes the report at the end
(``on_train_end``). Built on first use, so importing the watch never imports transformers."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._watch import Watch


def callback(watch: Watch) -> Any:
    """A ``TrainerCallback`` for ``Trainer(callbacks=[...])`` (GRPOTrainer included)."""
    from transformers import TrainerCallback

    class WatchCallback(TrainerCallback):
        """Feeds the verifier-audit watch from the trainer's loop."""

        def __init__(self) -> None:
            self.watch = watch
            self.report: Path | None = None  # the HTML report, once training ended

        def on_log(self, args, state, control, logs=None, **kwargs):
            if logs:
                self.watch.log(logs, int(state.global_step))
            return self._stop(control)

        def on_step_end(self, args, state, control, **kwargs):
            self.watch.at_step(int(state.global_step))
            return self._stop(control)

        def on_train_end(self, args, state, control, **kwargs):
            self.report = self.watch.close()

        def _stop(self, control):
            if self.watch.stop_requested:
                control.should_training_stop = True
            return control

    return WatchCallback()
