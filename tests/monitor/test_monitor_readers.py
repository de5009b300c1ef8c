"""Training-log readers: every format written here from one synthetic run (a healthy one,
and one whose entropy collapses at a planted step), read back into canonical series; the
fast paths agree with the line-by-line readers; malformed, partial and unknown logs give
errors that name the file, the line or row, and the metric.
"""

from __future__ import annotations

import csv
import json
import math

import pytest

np = pytest.importorskip("numpy")

from test_monitor_alarms import healthy_curves  # noqa: E402 - the same healthy run in every format

from verifier_audit.errors import InputError  # noqa: E402
from verifier_audit.monitor.readers import jsonl as J  # noqa: E402
from verifier_audit.monitor.readers import layout as L  # noqa: E402
from verifier_audit.monitor.readers import parallel as P  # noqa: E402
from verifier_audit.monitor.readers import parse_mapping, read_logs  # noqa: E402
from verifier_audit.monitor.readers import tables as T  # noqa: E402
from verifier_audit.monitor.readers.names import _Want  # noqa: E402

N = 200
VAL_EVERY = 10
COLLAPSE_AT = 60  # the planted entropy collapse starts here


def curves(n: int = N, collapse_at: int | None = None, seed: int = 0) -> dict[str, np.ndarray]:
    """Canonical curves per step 0..n-1 (val_accuracy only every VAL_EVERY steps: NaN elsewhere)."""
    rng = np.random.default_rng(seed)
    t = np.arange(n, dtype=np.float64)
    u = t / n
    c = healthy_curves(u)
    if collapse_at is not None:
        after = np.clip(t - collapse_at, 0, None)
        c["entropy"] = np.where(t < collapse_at, 1.2, 0.08 + 1.12 * np.exp(-after / 8))
        c["reward"] = np.where(t < collapse_at, 0.3, 0.3 + 0.45 * (1 - np.exp(-after / 15)))
        c["reward_std"] = np.where(t < collapse_at, 0.45, 0.05 + 0.4 * np.exp(-after / 8))
        c["frac_reward_zero_std"] = np.where(t < collapse_at, 0.1, 0.9 - 0.8 * np.exp(-after / 8))
    noise = {
        "entropy": 0.01,
        "reward": 0.01,
        "reward_std": 0.005,
        "frac_reward_zero_std": 0.005,
        "kl": 0.001,
        "length": 3.0,
        "val_accuracy": 0.005,
        "reward_fn/accuracy": 0.01,
        "reward_fn/format": 0.005,
    }
    for k in c:
        c[k] = np.round(c[k] + rng.normal(0, noise[k], n), 6)
    c["kl"] = np.abs(c["kl"])
    c["frac_reward_zero_std"] = np.clip(c["frac_reward_zero_std"], 0, 1)
    c["val_accuracy"] = np.where(t % VAL_EVERY == 0, c["val_accuracy"], np.nan)
    return c


# --- writers, one per format: the names each framework uses -------------------------------

TRL_NAMES = {
    "reward": "reward",
    "reward_std": "reward_std",
    "frac_reward_zero_std": "frac_reward_zero_std",
    "entropy": "entropy",
    "kl": "kl",
    "length": "completions/mean_length",
    "reward_fn/accuracy": "rewards/accuracy/mean",
    "reward_fn/format": "rewards/format/mean",
}
VERL_NAMES = {
    "reward": "critic/score/mean",
    "entropy": "actor/entropy",
    "kl": "actor/kl_loss",
    "length": "response_length/mean",
}
VERL_VAL = "val-core/openai/gsm8k/acc/mean@4"


def write_trl(path, c):
    history = []
    for s in range(len(c["entropy"])):
        entry = {"loss": 0.01, "grad_norm": 0.5, "learning_rate": 1e-6, "epoch": s / 100}
        entry.update({theirs: float(c[ours][s]) for ours, theirs in TRL_NAMES.items()})
        entry["rewards/accuracy/std"] = 0.3
        entry["step"] = s
        history.append(entry)
        if s % VAL_EVERY == 0:
            history.append(
                {
                    "eval_loss": 0.2,
                    "eval_reward": float(c["val_accuracy"][s]),
                    "eval_runtime": 3.2,
                    "epoch": s / 100,
                    "step": s,
                }
            )
    history.append({"train_runtime": 1234.5, "train_loss": 0.02, "step": len(c["entropy"]) - 1})
    path.write_text(
        json.dumps({"global_step": len(c["entropy"]) - 1, "log_history": history, "best_metric": None}, indent=2)
    )
    return path


def verl_dicts(c):
    for s in range(len(c["entropy"])):
        d = {theirs: float(c[ours][s]) for ours, theirs in VERL_NAMES.items()}
        d.update({"actor/ppo_kl": 0.001, "actor/pg_loss": -0.01, "timing_s/step": 12.5, "critic/score/max": 1.0})
        if s % VERL_VAL_EVERY == 0:
            d[VERL_VAL] = float(c["val_accuracy"][s])
            d["val-core/openai/gsm8k/acc/best@4/mean"] = 0.9
        yield s, d


VERL_VAL_EVERY = VAL_EVERY


def write_verl_jsonl(path, c, nested=True):
    with path.open("w") as f:
        for s, d in verl_dicts(c):
            f.write(json.dumps({"step": s, "data": d} if nested else {"step": s, **d}) + "\n")
    return path


def write_verl_console(path, c):
    with path.open("w") as f:
        f.write("(TaskRunner pid=4242) Using LocalLogger is deprecated.\n")
        for s, d in verl_dicts(c):
            parts = [f"step:{s}"]
            for i, (k, v) in enumerate(d.items()):
                parts.append(f"{k}:np.float64({v!r})" if i % 2 else f"{k}:{v!r}")
            f.write(f"(TaskRunner pid=4242) {' - '.join(parts)}\n")
            f.write("(WorkerDict pid=77) some unrelated line: step 3 of warmup\n")
    return path


def write_wandb_csv(path, c):
    """A W&B history export of a TRL run: _step, train/global_step, train/* and eval/*, empty cells."""
    cols = (
        ["_step", "_runtime", "train/global_step"]
        + [f"train/{n}" for n in TRL_NAMES.values()]
        + ["train/loss", "eval/reward", "eval/loss"]
    )
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        row = 0
        for s in range(len(c["entropy"])):
            w.writerow([row, 10.0 * s, s] + [c[ours][s] for ours in TRL_NAMES] + [0.01, "", ""])
            row += 1
            if s % VAL_EVERY == 0:
                w.writerow([row, 10.0 * s + 1, s] + [""] * len(TRL_NAMES) + ["", c["val_accuracy"][s], 0.3])
                row += 1
    return path


def write_chart_csv(path, runs):
    """A W&B chart export of several runs: Step, '<run> - <metric>' with __MIN/__MAX companions."""
    metrics = ["train/reward", "train/entropy", "train/kl"]
    ours = {"train/reward": "reward", "train/entropy": "entropy", "train/kl": "kl"}
    header = ["Step"]
    for name in runs:
        for m in metrics:
            header += [f"{name} - {m}", f"{name} - {m}__MIN", f"{name} - {m}__MAX"]
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for s in range(N):
            row = [s]
            for c in runs.values():
                for m in metrics:
                    v = c[ours[m]][s]
                    row += [v, v, v]
            w.writerow(row)
    return path


def write_tb_long(path, runs):
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["run", "tag", "step", "value"])
        for name, c in runs.items():
            for tag, key in (
                ("train/reward", "reward"),
                ("train/entropy", "entropy"),
                ("train/kl", "kl"),
                ("train/learning_rate", None),
            ):
                for s in range(N):
                    w.writerow([name, tag, s, c[key][s] if key else 1e-6])
    return path


def write_tb_single(folder, run, c):
    paths = []
    for tag, key in (
        ("train_reward", "reward"),
        ("train_entropy", "entropy"),
        ("train_completions_mean_length", "length"),
        ("train_rewards_accuracy_mean", "reward_fn/accuracy"),
    ):
        p = folder / f"run-{run}-tag-{tag}.csv"
        with p.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["Wall time", "Step", "Value"])
            for s in range(N):
                w.writerow([1.7e9 + s, s, c[key][s]])
        paths.append(p)
    return paths


def write_generic(path, c):
    with path.open("w") as f:
        for s in range(N):
            f.write(
                json.dumps(
                    {"iteration": s, "my/score": float(c["reward"][s]), "H": float(c["entropy"][s]), "other": "text"}
                )
                + "\n"
            )
    return path


def assert_series(run, key, c, atol=1e-9):
    s = run.metrics[key]
    want = c[key]
    steps = np.flatnonzero(~np.isnan(want)).astype(float)
    assert np.array_equal(s.steps, steps), (key, s.steps[:5], steps[:5])
    assert np.allclose(s.values, want[~np.isnan(want)], atol=atol), key


# --- each format ------------------------------------------------------------------------------


def test_trl_trainer_state(tmp_path):
    c = curves()
    (tmp_path / "qwen-grpo" / "checkpoint-200").mkdir(parents=True)
    (run,) = read_logs([write_trl(tmp_path / "qwen-grpo" / "checkpoint-200" / "trainer_state.json", c)])
    assert run.name == "qwen-grpo/checkpoint-200" and run.format == "trl"
    for key in (
        "reward",
        "reward_std",
        "frac_reward_zero_std",
        "entropy",
        "kl",
        "length",
        "val_accuracy",
        "reward_fn/accuracy",
        "reward_fn/format",
    ):
        assert_series(run, key, c)
    assert run.original_names["length"] == "completions/mean_length"
    assert run.original_names["val_accuracy"] == "eval_reward"
    assert run.original_names["reward_fn/accuracy"] == "rewards/accuracy/mean"
    assert set(run.metrics) == set(TRL_NAMES) | {"val_accuracy"}  # loss, grad_norm, eval_loss...: kept out


def test_trl_bare_list_and_old_names(tmp_path):
    p = tmp_path / "history.json"
    p.write_text(
        json.dumps([{"step": s, "completion_length": 100 + s, "rewards/fmt": 0.5, "kl": 0.01 * s} for s in range(1, 6)])
    )
    (run,) = read_logs([p], fmt="trl")
    assert list(run.metrics["length"].values) == [101, 102, 103, 104, 105]
    assert run.original_names["reward_fn/fmt"] == "rewards/fmt"


@pytest.mark.parametrize("nested", [True, False])
def test_verl_jsonl(tmp_path, nested):
    c = curves()
    (run,) = read_logs([write_verl_jsonl(tmp_path / "metrics.jsonl", c, nested)], names=["verl-7b"])
    assert run.name == "verl-7b" and run.format == "verl-jsonl"
    for key in VERL_NAMES:
        assert_series(run, key, c)
    assert_series(run, "val_accuracy", c)
    assert run.original_names["val_accuracy"] == VERL_VAL  # acc/mean@4, not best@4
    assert run.original_names["kl"] == "actor/kl_loss"
    assert not any("ppo_kl" in n for n in run.notes)  # kl is there: no word about ppo_kl


def test_verl_console(tmp_path):
    c = curves()
    (run,) = read_logs([write_verl_console(tmp_path / "train.log", c)])
    assert run.format == "verl-console" and run.name == tmp_path.name  # "train" is a generic stem
    for key in VERL_NAMES:
        assert_series(run, key, c)
    assert_series(run, "val_accuracy", c)


def test_verl_ppo_kl_is_not_kl(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text(
        "".join(json.dumps({"step": s, "critic/score/mean": 0.1 * s, "actor/ppo_kl": 0.001}) + "\n" for s in range(5))
    )
    (run,) = read_logs([p])
    assert "kl" not in run.metrics
    assert any("actor/ppo_kl" in n and "not the distance to the reference" in n for n in run.notes)
    (run,) = read_logs([p], mapping={"kl": "actor/ppo_kl"})
    assert run.original_names["kl"] == "actor/ppo_kl"


def test_verl_several_validation_sets_are_averaged(tmp_path):
    p = tmp_path / "m.jsonl"
    lines = []
    for s in range(0, 30, 10):
        lines.append(
            {
                "step": s,
                "critic/score/mean": 0.5,
                "val-core/gsm8k/acc/mean@1": 0.2 + s / 100,
                "val-core/math/reward/mean@1": 0.4 + s / 100,
                "val-core/math/acc/mean@1": 0.1,
            }
        )
    p.write_text("".join(json.dumps(d) + "\n" for d in lines))
    (run,) = read_logs([p])
    # math: acc preferred over reward; mean of gsm8k acc and math acc
    assert np.allclose(run.metrics["val_accuracy"].values, [(0.2 + 0.1) / 2, (0.3 + 0.1) / 2, (0.4 + 0.1) / 2])
    assert "mean of 2 validation sets" in " ".join(run.notes)


def test_wandb_history_csv(tmp_path):
    c = curves()
    (run,) = read_logs([write_wandb_csv(tmp_path / "wandb_export.csv", c)])
    assert run.format == "csv" and run.name == "wandb_export"
    for key in TRL_NAMES:
        assert_series(run, key, c)
    assert_series(run, "val_accuracy", c)  # eval/reward -> eval_reward; step from train/global_step
    assert run.original_names["entropy"] == "train/entropy"


def test_wandb_chart_export_gives_one_run_per_prefix(tmp_path):
    healthy, collapsing = curves(), curves(collapse_at=COLLAPSE_AT, seed=1)
    runs = read_logs([write_chart_csv(tmp_path / "chart.csv", {"grpo-base": healthy, "grpo-lastnum": collapsing})])
    assert [r.name for r in runs] == ["grpo-base", "grpo-lastnum"]
    assert all(r.format == "csv-wandb-chart" for r in runs)
    assert_series(runs[0], "entropy", healthy)
    assert_series(runs[1], "entropy", collapsing)
    runs = read_logs([tmp_path / "chart.csv"], names=["a", "b"])
    assert [r.name for r in runs] == ["a", "b"]


def test_tensorboard_long_csv(tmp_path):
    healthy, collapsing = curves(), curves(collapse_at=COLLAPSE_AT, seed=1)
    runs = read_logs([write_tb_long(tmp_path / "scalars.csv", {"base": healthy, "lastnum": collapsing})])
    assert [r.name for r in runs] == ["base", "lastnum"]
    assert all(r.format == "csv-tensorboard-long" for r in runs)
    for key in ("reward", "entropy", "kl"):
        assert_series(runs[1], key, collapsing)


def test_tensorboard_one_metric_files_merge_into_one_run(tmp_path):
    c = curves()
    paths = write_tb_single(tmp_path, "grpo_v2", c)
    (run,) = read_logs(paths)
    assert run.name == "grpo_v2" and run.format == "csv-tensorboard"
    for key in ("reward", "entropy", "length", "reward_fn/accuracy"):
        assert_series(run, key, c)
    assert run.original_names["length"] == "train/completions/mean_length"


def test_generic_jsonl_with_mapping(tmp_path):
    c = curves()
    p = write_generic(tmp_path / "custom.jsonl", c)
    (run,) = read_logs([p], fmt="jsonl", mapping=parse_mapping(["reward=my/score", "entropy=H"]))
    assert run.format == "jsonl"
    assert_series(run, "reward", c)
    assert_series(run, "entropy", c)
    assert run.original_names == {"reward": "my/score", "entropy": "H"}


def test_step_key_from_mapping(tmp_path):
    p = tmp_path / "x.jsonl"
    p.write_text("".join(json.dumps({"batch": 5 * s, "reward": s / 10}) + "\n" for s in range(4)))
    with pytest.raises(InputError, match="without a step"):
        read_logs([p])
    (run,) = read_logs([p], mapping={"step": "batch"})
    assert list(run.metrics["reward"].steps) == [0, 5, 10, 15]


def test_several_files_side_by_side_with_default_names(tmp_path):
    a, b = tmp_path / "base", tmp_path / "lastnum"
    a.mkdir()
    b.mkdir()
    runs = read_logs(
        [
            write_trl(a / "trainer_state.json", curves()),
            write_trl(b / "trainer_state.json", curves(collapse_at=COLLAPSE_AT)),
        ]
    )
    assert [r.name for r in runs] == ["base", "lastnum"]
    same = read_logs([a / "trainer_state.json", a / "trainer_state.json"])
    assert len({r.name for r in same}) == 2


def test_last_value_at_a_step_wins_and_nan_is_dropped(tmp_path):
    p = tmp_path / "m.jsonl"
    rows = [
        {"step": 1, "reward": 0.1},
        {"step": 2, "reward": 0.2},
        {"step": 1, "reward": 0.15},
        {"step": 3, "reward": None},
        {"step": 4, "reward": float("nan")},
        {"step": 5, "reward": "0.5"},
    ]
    p.write_text("".join(json.dumps(r) + "\n" for r in rows))
    (run,) = read_logs([p])
    assert list(run.metrics["reward"].steps) == [1, 2, 5]
    assert list(run.metrics["reward"].values) == [0.15, 0.2, 0.5]


# --- the fast paths agree with the line-by-line readers ----------------------------------------
# (settings and fast paths are patched in the module that looks them up: J, L, P, T)


def _big_jsonl(path, n=3000, layouts=2, cut=False, nested=False):
    """Over 64 KiB, so the fast path runs: a train layout every step, an eval layout every 50th
    (with a null and an exponent), a resumed stretch that logs steps again."""
    rng = np.random.default_rng(3)
    lines = []
    steps = list(range(n)) + list(range(n - 100, n + 50))  # a resumed run re-logs 100 steps
    for _i, s in enumerate(steps):
        d = {
            "step": s,
            "critic/score/mean": round(float(rng.random()), 6),
            "actor/entropy": float(rng.random()),
            "actor/kl_loss": 1e-5 * s,
            "perf/throughput": 1234,
            "note": "a, b: {c}",
        }
        if layouts > 1 and s % 50 == 0:
            d["val-core/gsm8k/acc/mean@1"] = None if s == 100 else float(rng.random())
        lines.append(json.dumps({"step": s, "data": {k: v for k, v in d.items() if k != "step"}} if nested else d))
    text = "\n".join(lines) + "\n"
    if cut:
        text += '{"step": 99999, "critic/score/me'
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "kwargs,mode",
    [
        (dict(), ""),
        (dict(layouts=1), ""),
        (dict(cut=True), ""),
        (dict(nested=True), ""),
        (dict(), "subchunks"),
        (dict(cut=True), "parallel"),
    ],
)
def test_jsonl_fast_path_equals_line_reader(tmp_path, monkeypatch, kwargs, mode):
    p = _big_jsonl(tmp_path / "m.jsonl", **kwargs)
    if mode == "subchunks":  # rows matched a few KiB at a time
        monkeypatch.setattr(L, "SUBCHUNK", 4096)
    if mode == "parallel":  # chunks in two forked workers
        monkeypatch.setattr(P, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(P, "_idle_cores", lambda: 2)
    calls = []
    real = J._jsonl_fast
    monkeypatch.setattr(J, "_jsonl_fast", lambda *a, **k: calls.append(real(*a, **k)) or calls[-1])
    (fast,) = read_logs([p])
    assert calls and calls[0] is not None, "the fast path gave up"
    monkeypatch.setattr(J, "_FAST", False)
    (slow,) = read_logs([p])
    assert set(fast.metrics) == set(slow.metrics) and fast.metrics
    for k in fast.metrics:
        assert np.array_equal(fast.metrics[k].steps, slow.metrics[k].steps), k
        assert np.array_equal(fast.metrics[k].values, slow.metrics[k].values), k
    assert fast.notes == slow.notes
    if kwargs.get("cut"):
        assert "cut short" in fast.notes[0]


def test_jsonl_fast_path_gives_up_on_irregular_lines(tmp_path):
    p = _big_jsonl(tmp_path / "m.jsonl")
    text = p.read_text().splitlines()
    text[1500] = '{"actor/entropy": 0.5, "step": 1500, "critic/score/mean": 0.25}'  # other key order
    p.write_text("\n".join(text) + "\n")
    assert J._jsonl_fast(p, p.read_bytes(), _Want(), "jsonl", sample=10) is None  # not in the sample
    (run,) = read_logs([p])
    assert run.metrics["entropy"].values[list(run.metrics["entropy"].steps).index(1500)] == 0.5


@pytest.mark.parametrize("parallel", [False, True])
def test_csv_fast_path_equals_csv_module(tmp_path, monkeypatch, parallel):
    if parallel:
        monkeypatch.setattr(P, "PARALLEL_MIN_BYTES", 0)
        monkeypatch.setattr(P, "_idle_cores", lambda: 2)
    c = curves(n=N)
    p = tmp_path / "w.csv"
    with p.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["Step", "train/reward", "train/entropy", "eval/reward", "note"])
        for rep in range(15):  # > 64 KiB
            for s in range(N):
                step = rep * N + s
                w.writerow(
                    [
                        step,
                        c["reward"][s],
                        "" if s % 7 == 0 else c["entropy"][s],
                        c["val_accuracy"][s] if s % VAL_EVERY == 0 else "",
                        "x",
                    ]
                )
    used = []
    real = T._csv_chunk
    if not parallel:  # (a wrapper would not cross to the workers)
        monkeypatch.setattr(T, "_csv_chunk", lambda *a: used.append(real(*a)) or used[-1])
    (fast,) = read_logs([p])
    if not parallel:
        assert used and all(u is not None for u in used), "the fast path gave up"
    monkeypatch.setattr(T, "_FAST", False)
    (slow,) = read_logs([p])
    for k in ("reward", "entropy", "val_accuracy"):
        assert np.array_equal(fast.metrics[k].steps, slow.metrics[k].steps), k
        assert np.array_equal(fast.metrics[k].values, slow.metrics[k].values), k
    assert len(fast.metrics["entropy"]) == 15 * (N - math.ceil(N / 7))


# --- errors -----------------------------------------------------------------------------------------


def test_malformed_jsonl_line_is_named(tmp_path):
    p = _big_jsonl(tmp_path / "m.jsonl")
    lines = p.read_text().splitlines()
    lines[1233] = lines[1233][:40]  # a line cut in the middle of the file
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError, match=r"m\.jsonl:1234: not valid JSON"):
        read_logs([p])


def test_non_numeric_value_is_named(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "reward": 0.5}\n{"step": 2, "reward": "high"}\n')
    with pytest.raises(InputError, match=r"m\.jsonl:2: reward = 'high' is not a number"):
        read_logs([p])


def test_metrics_without_step(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "reward": 0.5}\n{"reward": 0.6}\n')
    with pytest.raises(InputError, match=r"m\.jsonl:2: reward is logged without a step"):
        read_logs([p])


@pytest.mark.parametrize(
    "content,match",
    [
        ('{"global_step": 3}', "no log_history: not a TRL trainer_state.json"),
        ('{"log_history": []}', "log_history is empty"),
        ('{"log_history": [{"reward": 0.5}]}', "entry 0 has metrics but no 'step'"),
        ('{"log_history": [{"step": 1, "reward": 0.5}', "not valid JSON"),
    ],
)
def test_trl_errors(tmp_path, content, match):
    p = tmp_path / "trainer_state.json"
    p.write_text(content)
    with pytest.raises(InputError, match=match) as e:
        read_logs([p])
    assert str(p) in str(e.value)


@pytest.mark.parametrize(
    "rows,match",
    [
        (["step,reward,entropy", "1,0.5,1.2", "2,0.6"], r"row 3 has 2 cells, the header 3"),
        (["step,reward,entropy", "1,0.5,1.2", "2,lots,1.1"], r"row 3: reward = 'lots' is not a number"),
        (["step,reward,entropy", "1,0.5,1.2", ",0.6,1.1"], r"row 3: reward has a value but the step cell is empty"),
        (["step,reward,entropy"], "has a header but no rows"),
        (["epoch,reward"], "no step column"),
    ],
)
def test_csv_errors(tmp_path, rows, match):
    p = tmp_path / "log.csv"
    p.write_text("\n".join(rows) + "\n")
    with pytest.raises(InputError, match=match) as e:
        read_logs([p])
    assert str(p) in str(e.value)


def test_unknown_names_list_known_and_found(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "score_mean": 0.5, "policy_H": 1.1}\n')
    with pytest.raises(InputError) as e:
        read_logs([p])
    msg = str(e.value)
    assert str(p) in msg and "none of its metric names is one verifier-audit knows" in msg
    assert "found: score_mean, policy_H" in msg
    for known in ("critic/score/mean", "actor/entropy", "completions/mean_length", "rewards/<fn>/mean"):
        assert known in msg
    assert "--metric" in msg


def test_mapped_metric_missing_is_named_with_suggestion(tmp_path):
    p = tmp_path / "m.jsonl"
    p.write_text('{"step": 1, "score_mean": 0.5, "policy_H": 1.1}\n')
    with pytest.raises(
        InputError,
        match=r"--metric entropy=policy_h: the log has no metric 'policy_h'; "
        r"did you mean policy_H",
    ):
        read_logs([p], mapping={"entropy": "policy_h"})


@pytest.mark.parametrize(
    "items,match",
    [
        (["reward"], "expected CANONICAL=NAME"),
        (["rewardz=x"], "'rewardz' is not a canonical metric"),
        (["reward=a", "reward=b"], "given twice"),
    ],
)
def test_bad_mapping(items, match):
    with pytest.raises(InputError, match=match):
        parse_mapping(items)


def test_name_count_must_match_runs(tmp_path):
    p = write_chart_csv(tmp_path / "chart.csv", {"a": curves(), "b": curves()})
    with pytest.raises(InputError, match=r"--name is given 1 time\(s\) but 2 run\(s\) were read"):
        read_logs([p], names=["only-one"])


def test_missing_empty_and_unknown_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_logs([tmp_path / "nope.jsonl"])
    (tmp_path / "empty.jsonl").write_text("\n\n")
    with pytest.raises(InputError, match="empty file"):
        read_logs([tmp_path / "empty.jsonl"])
    with pytest.raises(InputError, match="is a directory"):
        read_logs([tmp_path])
    (tmp_path / "notes.txt").write_text("hello world\nnothing here\n")
    with pytest.raises(InputError, match="cannot tell the format"):
        read_logs([tmp_path / "notes.txt"])
    with pytest.raises(InputError, match="no verl metric line"):
        read_logs([tmp_path / "notes.txt"], fmt="verl")


def test_planted_collapse_fires_where_planted_in_every_format(tmp_path):
    """Read back, each format gives the alarms the run was built with: the collapsing run's
    entropy alarm near the planted step, nothing on the healthy run."""
    from verifier_audit.monitor.alarms import check

    healthy, bad = curves(), curves(collapse_at=COLLAPSE_AT, seed=1)
    for label, c, expect in (("healthy", healthy, False), ("bad", bad, True)):
        d = tmp_path / label
        d.mkdir()
        files = [
            write_trl(d / "trainer_state.json", c),
            write_verl_jsonl(d / "metrics.jsonl", c),
            write_verl_console(d / "console.log", c),
            write_wandb_csv(d / "export.csv", c),
        ]
        for f in files:
            (run,) = read_logs([f])
            alarms = check(run)
            entropy = [a for a in alarms if a.kind == "entropy_collapse"]
            if expect:
                assert entropy, (f, alarms)
                assert COLLAPSE_AT <= entropy[0].step <= COLLAPSE_AT + 30, (f, entropy[0])
            else:
                assert alarms == [], (f, [a.message for a in alarms])
