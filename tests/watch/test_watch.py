"""The watch's wrapper and bookkeeping, with the math domain's real oracle in the audit's
clean workers: the reward's return value untouched in every style, a seeded sample,
paid-but-wrong and refused-but-right counted per window with the oracle's categories, the
JSONL the monitor reads back, the stop action through a real ``TrainerControl``, the verl
reward manager, and a labeller that fails or dies never reaching the trainer."""

from __future__ import annotations

import json
import threading

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.monitor.alarms import check
from verifier_audit.monitor.readers import read_logs
from verifier_audit.watch import Watch, WatchRewardManager, category_of, detect_style, trl_callback, watch
from verifier_audit.watch._styles import wrap

RIGHT, WRONG, HEDGE = "so \\boxed{4}", "so \\boxed{5}", "4 or 5"


def lenient(completion, reference):
    """Pays any boxed answer, right or wrong; refuses the rest."""
    return 1.0 if "\\boxed" in completion else 0.0


def strict(completion, reference):
    """Refuses everything, the right answer too."""
    return 0.0


def trl_reward(prompts, completions, solution, **kwargs):
    return [lenient(c, s) for c, s in zip(completions, solution)]


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    return {"score": lenient(solution_str, ground_truth), "acc": False}


def batched_score(data_sources, solution_strs, ground_truths, extra_infos):
    return [lenient(s, g) for s, g in zip(solution_strs, ground_truths)]


def _lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_every_style_returns_what_the_reward_returns_and_is_detected(tmp_path):
    assert [detect_style(f) for f in (trl_reward, compute_score, batched_score, lenient)] == [
        "trl",
        "verl",
        "verl",
        "pair",
    ]
    w = Watch(domain="math", out=tmp_path / "w.jsonl", sample=0.0)
    out = wrap(trl_reward, w, "auto", "solution")(prompts=["p", "p"], completions=[RIGHT, "x"], solution=["4", "4"])
    assert out == [1.0, 0.0] and wrap(trl_reward, w, "auto", "solution").__name__ == "trl_reward"
    got = wrap(compute_score, w, "auto", "")("math", WRONG, "4", {})
    assert got == {"score": 1.0, "acc": False}
    kw = {"data_sources": ["m"], "solution_strs": [RIGHT], "ground_truths": ["4"], "extra_infos": [{}]}
    assert wrap(batched_score, w, "auto", "")(**kw) == [1.0]
    assert wrap(lenient, w, "auto", "")(WRONG, "4") == 1.0
    assert w.rollouts == 5
    w.close()


@settings(max_examples=25, deadline=None)
@given(
    scores=st.lists(st.one_of(st.none(), st.floats(allow_nan=True)), min_size=1, max_size=12), seed=st.integers(0, 9)
)
def test_the_wrapper_hands_back_the_rewards_own_object(tmp_path_factory, scores, seed):
    """Whatever the reward returns (None, NaN, any float), the trainer gets that object."""
    returned = list(scores)

    def reward(prompts, completions, solution, **kwargs):
        return returned

    w = Watch(domain="math", out=tmp_path_factory.mktemp("h") / "w.jsonl", sample=0.0, seed=seed)
    n = len(scores)
    assert wrap(reward, w, "trl", "solution")(prompts=[""] * n, completions=["x"] * n, solution=["1"] * n) is returned
    w.close()


def test_the_sample_is_seeded_and_about_its_fraction(tmp_path):
    def sampled(seed):
        w = Watch(domain="math", out=tmp_path / f"s{seed}.jsonl", sample=0.25, seed=seed, label=_undecided)
        for step in range(1, 41):
            w.seen(step, [""] * 10, [f"c{step}-{i}" for i in range(10)], ["1"] * 10, [1.0] * 10)
        w.close()
        return [line["watch/sampled"] for line in _lines(w.out) if "watch/sampled" in line]

    a, b, c = sampled(0), sampled(0), sampled(1)
    assert a == b and a != c
    assert 60 <= sum(a) <= 140  # 400 rollouts at 25%: 100 expected, sd 8.7


def _undecided(items, tasks):
    return [(None, "not labelled in this test")] * len(items)


def test_paid_wrong_and_refused_right_are_counted_with_the_oracles_categories(tmp_path):
    paid = watch(lenient, domain="math", out=tmp_path / "paid.jsonl", sample=1.0)
    refused = watch(strict, domain="math", out=tmp_path / "refused.jsonl", sample=1.0)
    for step in (1, 2):
        for w in (paid, refused):
            w.watch.at_step(step)
            for text in (RIGHT, WRONG, "\\boxed{4} or \\boxed{5}", HEDGE):
                w(text, "4")
    paid.watch.close()
    refused.watch.close()
    first = _lines(paid.watch.out)[0]
    assert (first["step"], first["watch/labelled"], first["watch/paid_wrong"], first["watch/refused_right"]) == (
        1,
        4,
        2,
        0,
    )
    assert first["watch/categories"] == {"not equivalent": 1, "hedge": 1}
    assert first["watch/categories_ci"]["hedge"][0] > 0 and first["watch/categories_ci"]["hedge"][1] < 1
    assert first["watch/paid_wrong_share"] == 0.5 and 0.0 < first["watch/paid_wrong_ci"][0] < 0.5
    assert {e["completion"] for e in first["watch/examples"]} == {WRONG, "\\boxed{4} or \\boxed{5}"}
    line = _lines(refused.watch.out)[0]
    assert (line["watch/paid_wrong"], line["watch/refused_right"]) == (0, 1)
    assert category_of("") == "unknown" and category_of("no answer") == "no answer"


def _rising(w, steps=5, opens=3):
    """The lenient reward seen on right answers until ``opens``, on wrong ones after."""
    for step in range(1, steps + 1):
        w.watch.at_step(step)
        for _ in range(8):
            w(WRONG if step >= opens else RIGHT, "4")
        w.watch.log({"reward": 1.0, "entropy": 2.0}, step)


def test_an_alarm_stops_training_through_the_trainer_callback(tmp_path):
    from transformers import TrainerControl, TrainerState

    w = watch(lenient, domain="math", out=tmp_path / "w.jsonl", sample=1.0, actions=("stop", "report"))
    callback = trl_callback(w)
    args, control = None, TrainerControl()  # the callback reads no training argument
    _rising(w)
    w.watch.at_step(6)  # the trainer moved on: every window can close
    assert w.watch.labeller.drain(60)
    w.watch.tick()
    assert [a.kind for a in w.watch.alarms] == ["paid_wrong_rising"] and w.watch.stop_requested
    alarm = w.watch.alarms[0]
    assert 3 <= alarm.step <= 4 and alarm.examples and alarm.examples[0]["completion"] == WRONG
    callback.on_step_end(args, TrainerState(global_step=6), control)
    assert control.should_training_stop
    assert w.watch.html.is_file()  # "report": written when the alarm fired
    callback.on_train_end(args, TrainerState(global_step=6), control)
    # the alarm's own line, then the same alarm replayed from the file by the monitor
    assert [line["alarm"] for line in _lines(w.watch.out) if "alarm" in line] == ["paid_wrong_rising"]
    (run,) = read_logs([w.watch.out])
    assert [(a.kind, a.step) for a in check(run)] == [("paid_wrong_rising", alarm.step)]


def test_the_monitors_alarms_run_live_on_the_logged_metrics(tmp_path):
    """Entropy collapsing while reward rises, fed through ``log`` as TRL names them: the
    monitor's ``entropy_collapse`` fires live (once), and again when the file is replayed."""
    w = Watch(domain="math", out=tmp_path / "m.jsonl", sample=0.0, actions=())
    for step in range(1, 41):
        entropy = 1.2 if step < 15 else 0.1
        w.log({"entropy": entropy, "reward": step / 40, "completions/mean_length": 50.0, "note": "x"}, step)
        w.tick()
    w.close()
    assert [(a.kind, a.examples) for a in w.alarms] == [("entropy_collapse", [])]
    (run,) = read_logs([w.out])
    assert [a.kind for a in check(run)] == ["entropy_collapse"]
    assert w.html.is_file() and 'data-kind="entropy_collapse"' in w.html.read_text()


def test_the_verl_reward_manager_counts_rollouts_under_verls_step(tmp_path):
    class Manager:
        """A reward manager in verl's shape: compute_score called by keyword per item."""

        def __init__(self, compute_score):
            self.compute_score = compute_score
            self.reward_fn_key = "data_source"

        def __call__(self, data, return_dict=False):
            scores = [
                self.compute_score(data_source="m", solution_str=s, ground_truth=g, extra_info={"question": "2+2?"})
                for s, g in data.items
            ]
            return {"reward_tensor": scores} if return_dict else scores

    class Batch:
        def __init__(self, step, items):
            self.meta_info, self.items = {"global_steps": step}, items

    w = Watch(domain="math", out=tmp_path / "v.jsonl", sample=1.0)
    manager = WatchRewardManager(Manager(compute_score), w)
    assert manager.reward_fn_key == "data_source"
    assert manager(Batch(1, [(RIGHT, "4")])) == [{"score": 1.0, "acc": False}]
    assert manager(Batch(2, [(WRONG, "4"), (RIGHT, "4")]), return_dict=True)["reward_tensor"][0]["score"] == 1.0
    manager.close()
    lines = _lines(w.out)
    assert [(x["step"], x["watch/labelled"], x["watch/paid_wrong"]) for x in lines] == [(1, 1, 0), (2, 2, 1)]
    assert lines[1]["watch/examples"][0]["prompt"] == "2+2?"


@pytest.mark.filterwarnings("ignore::pytest.PytestUnhandledThreadExceptionWarning")  # the planted death
def test_a_failing_or_dying_labeller_never_reaches_the_trainer(tmp_path):
    calls = []

    def flaky(items, tasks):
        calls.append(len(items))
        if len(calls) == 1:
            raise RuntimeError("the oracle's pool broke")
        if len(calls) == 2:
            raise SystemExit("the labeller's thread dies")
        return [("incorrect", "not equivalent")] * len(items)

    w = Watch(domain="math", out=tmp_path / "f.jsonl", sample=1.0, label=flaky)
    for step in (1, 2, 3):
        w.seen(step, [""], [WRONG], ["4"], [1.0])
        assert w.labeller.drain(5), (step, w.labeller._pending, w.labeller.errors, w.labeller._thread.is_alive())
    w.close()
    assert w.labeller.restarts == 1
    assert any("the oracle's pool broke" in e for e in w.labeller.errors)
    assert any("restarted" in e for e in w.labeller.errors)
    lines = _lines(w.out)
    assert [(x["watch/undecided"], x["watch/paid_wrong"]) for x in lines] == [(1, 0), (1, 0), (0, 1)]


def test_a_full_queue_drops_rollouts_and_counts_them(tmp_path):
    release = threading.Event()

    def slow(items, tasks):
        release.wait(30)
        return [("correct", "equivalent")] * len(items)

    w = Watch(domain="math", out=tmp_path / "q.jsonl", sample=1.0, capacity=1, label=slow)
    w.seen(1, [""] * 5, [RIGHT] * 5, ["4"] * 5, [1.0] * 5)
    assert w.labeller.dropped >= 3 and w.rollouts == 5
    release.set()
    w.close()
    (line,) = _lines(w.out)
    assert (line["watch/sampled"], line["watch/dropped"]) == (5, w.labeller.dropped)
    assert line["watch/labelled"] == 5 - w.labeller.dropped


def test_a_reward_called_without_the_reference_column_is_reported(tmp_path):
    w = Watch(domain="math", out=tmp_path / "m.jsonl", sample=1.0)
    out = wrap(trl_reward, w, "trl", "answer")(prompts=["p"], completions=[RIGHT], solution=["4"])
    assert out == [1.0]
    w.close()
    assert any("'answer'" in e and "solution" in e for e in w.labeller.errors)


def test_bad_arguments_name_the_fix(tmp_path):
    with pytest.raises(ValueError, match="sample=2"):
        Watch(domain="math", out=tmp_path / "x.jsonl", sample=2)
    with pytest.raises(ValueError, match="log, report, stop"):
        Watch(domain="math", out=tmp_path / "x.jsonl", actions=("page",))
