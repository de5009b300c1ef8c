"""The watch inside a real training run: TRL's ``GRPOTrainer`` on the tiny random model of
``samples/tiny.py`` (CPU, a few steps), with a reward whose planted hole opens at a known
step, as when a policy finds one: from step ``HOLE`` it pays a completion it cannot read
(the fail-open branch many graders have). The watch's ``paid_wrong_rising`` alarm must fire
within ``BOUND`` steps of the hole with paid-but-wrong examples, ``verifier-audit monitor``
must fire the same alarm at the same step from the JSONL the watch wrote, the sound reward
must fire nothing, and the wrapper must change nothing of the training (the rewards logged
and the final weights equal those of the bare reward's run, same seeds)."""

from __future__ import annotations

import re

import pytest

torch = pytest.importorskip("torch", reason="the GRPO run needs torch")
pytest.importorskip("trl", reason="the GRPO run needs trl")

from verifier_audit.monitor.alarms import check  # noqa: E402
from verifier_audit.monitor.readers import read_logs  # noqa: E402
from verifier_audit.samples.tiny import build_tiny_model  # noqa: E402
from verifier_audit.watch import category_of, trl_callback, watch  # noqa: E402

HOLE = 3  # the first step whose rewards come from the holed branch
STEPS = 4
BOUND = 1  # the alarm fires at most this many steps after the hole opens


def _boxed(text: str) -> list[str]:
    return re.findall(r"\\boxed\{([^{}]*)\}", text)


def sound(prompts, completions, solution, **kwargs):
    """Pays a completion whose one boxed answer is the solution, nothing else."""
    return [1.0 if _boxed(c) == [s] else 0.0 for c, s in zip(completions, solution)]


def holed(prompts, completions, solution, trainer_state, **kwargs):
    """``sound``, until step HOLE: from there a completion with no boxed answer is paid (an
    unreadable answer given the benefit of the doubt)."""
    opened = trainer_state.global_step + 1 >= HOLE
    return [1.0 if _boxed(c) == [s] or (opened and not _boxed(c)) else 0.0 for c, s in zip(completions, solution)]


@pytest.fixture(scope="module")
def model(tmp_path_factory):
    return build_tiny_model(tmp_path_factory.mktemp("models") / "tiny-llama")


def _train(model, reward, out, callbacks=()):
    from datasets import Dataset
    from transformers.utils import logging as hf_logging
    from trl import GRPOConfig, GRPOTrainer

    hf_logging.set_verbosity_error()
    rows = [{"prompt": f"What is {a} + {a}?", "solution": str(2 * a)} for a in range(1, 5)]
    config = GRPOConfig(
        output_dir=str(out),
        per_device_train_batch_size=8,
        num_generations=4,
        max_completion_length=4,
        max_steps=STEPS,
        logging_steps=1,
        learning_rate=1e-2,
        seed=0,
        use_cpu=True,
        report_to=[],
        save_strategy="no",
        disable_tqdm=True,
    )
    trainer = GRPOTrainer(
        model=str(model),
        reward_funcs=reward,
        args=config,
        train_dataset=Dataset.from_list(rows),
        callbacks=list(callbacks),
    )
    trainer.train()
    rewards = [h["reward"] for h in trainer.state.log_history if "reward" in h]
    weights = {k: v.detach().clone() for k, v in trainer.model.state_dict().items()}
    return rewards, weights


def test_the_alarm_fires_after_the_hole_opens_and_training_is_unchanged(model, tmp_path):
    bare_rewards, bare_weights = _train(model, holed, tmp_path / "bare")
    watched = watch(holed, domain="math", out=tmp_path / "watch.jsonl", sample=1.0, actions=("log", "report"))
    callback = trl_callback(watched)
    rewards, weights = _train(model, watched, tmp_path / "watched", [callback])

    assert rewards == bare_rewards and len(rewards) == STEPS
    assert bare_weights.keys() == weights.keys()
    assert all(torch.equal(bare_weights[k], weights[k]) for k in weights)

    fired = {a.kind: a for a in watched.watch.alarms}
    assert "paid_wrong_rising" in fired, watched.watch.labeller.errors
    alarm = fired["paid_wrong_rising"]
    assert HOLE <= alarm.step <= HOLE + BOUND
    assert alarm.examples and all(e["score"] == 1.0 and e["step"] >= HOLE for e in alarm.examples)
    assert all(not _boxed(e["completion"]) for e in alarm.examples)
    assert all(e["category"] == category_of(e["reason"]) != "unknown" for e in alarm.examples)
    assert callback.report is not None and 'data-kind="paid_wrong_rising"' in callback.report.read_text()

    # the same alarm, at the same step, replayed from the JSONL by the monitor
    (run,) = read_logs([tmp_path / "watch.jsonl"])
    assert {"reward", "entropy", "watch/labelled", "watch/paid_wrong"} <= set(run.metrics)
    replayed = [a for a in check(run) if a.kind == "paid_wrong_rising"]
    same = ("z", "windows", "first_step", "share", "paid_wrong", "labelled")  # at_fraction: of the run so far
    assert [(a.step, [a.evidence[k] for k in same]) for a in replayed] == [
        (alarm.step, [alarm.alarm.evidence[k] for k in same])
    ]


def test_the_sound_reward_fires_no_alarm(model, tmp_path):
    watched = watch(sound, domain="math", out=tmp_path / "watch.jsonl", sample=1.0)
    _train(model, watched, tmp_path / "sound", [trl_callback(watched)])
    assert watched.watch.alarms == []
    (run,) = read_logs([tmp_path / "watch.jsonl"])
    assert run.metrics["watch/labelled"].values.sum() == 8 * STEPS
    assert run.metrics["watch/paid_wrong"].values.sum() == 0
    assert check(run) == []
