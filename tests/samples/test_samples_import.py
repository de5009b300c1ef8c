"""Importers: TRL, verl, lm-eval-harness and generic JSONL sample files, written here in each
tool's own shape, read into our samples format and matched to the math suite's tasks."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from verifier_audit.cli import import_ as import_cli
from verifier_audit.errors import InputError
from verifier_audit.samples.importers import import_samples, parse_mapping, write_samples
from verifier_audit.samples.records import Manifest, SamplingParams, manifest_line, read_samples
from verifier_audit.suites import load_suite

# math-0001 .. 0004 are train tasks, math-0013 a heldout one (the built-in suite).
PROMPTS = {
    "math-0001": "Compute $27 \\times 70 + 217$.",
    "math-0002": "Compute $72 \\times 45 + 301$.",
    "math-0013": "Compute $17 \\times 64 + 299$.",
}


@pytest.fixture(scope="module")
def suite():
    s = load_suite("math")
    for task_id, prompt in PROMPTS.items():  # the fixtures below are written against these
        assert next(t for t in s.tasks if t.id == task_id).prompt == prompt
    return s


def chatml(prompt: str) -> str:
    return (
        f"<|im_start|>system\nYou are helpful.<|im_end|>\n<|im_start|>user\n{prompt}<|im_end|>\n<|im_start|>assistant\n"
    )


def write_jsonl(path: Path, rows) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows), encoding="utf-8")
    return path


def do_import(suite, paths, fmt, **kw):
    return import_samples(
        paths if isinstance(paths, list) else [paths],
        fmt,
        suite.tasks,
        suite_name=suite.name,
        suite_hash=suite.content_hash,
        **kw,
    )


# --- TRL ---------------------------------------------------------------------------------------------


def test_trl_jsonl_rows_chat_templated_and_conversational(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "grpo-run" / "completions.jsonl",
        [
            {
                "step": 50,
                "prompt": chatml(PROMPTS["math-0001"]),
                "completion": "The answer is \\boxed{2107}.",
                "accuracy_reward": 1.0,
                "format_reward": 0.5,
                "advantage": 0.7,
            },
            {
                "step": 50,
                "prompt": chatml(PROMPTS["math-0001"]),
                "completion": "\\boxed{2108}",
                "accuracy_reward": 0.0,
                "format_reward": 0.5,
                "advantage": -0.7,
            },
            {
                "step": 50,
                "prompt": [
                    {"role": "system", "content": "Be brief."},
                    {"role": "user", "content": PROMPTS["math-0013"]},
                ],
                "completion": [{"role": "assistant", "content": "\\boxed{1387}"}],
                "accuracy_reward": 1.0,
                "advantage": 0.0,
            },
        ],
    )
    r = do_import(suite, f, "trl")
    assert (r.read, r.by_id, r.by_prompt) == (3, 0, 3)
    assert [(s.task_id, s.sample_index, s.split) for s in r.samples] == [
        ("math-0001", 0, "train"),
        ("math-0001", 1, "train"),
        ("math-0013", 0, "heldout"),
    ]
    assert [s.source_reward for s in r.samples] == [1.5, 0.5, 1.0]  # reward-function columns summed, not advantage
    assert [s.step for s in r.samples] == [50, 50, 50]
    assert r.samples[2].text == "\\boxed{1387}" and r.samples[2].prompt == PROMPTS["math-0013"]
    assert r.samples[0].source == f"{f}:1" and r.samples[0].token_ids == [] and r.samples[0].logprobs_kind is None
    assert r.manifest.source == "import:trl" and r.manifest.model_name == "completions"
    assert r.manifest.task_count == 2
    assert "matched 3" in r.summary() and "3 by prompt text" in r.summary()


def test_trl_completions_folder_names_the_model_after_the_output_dir(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "Qwen2.5-0.5B-GRPO" / "completions" / "completions_00010.jsonl",
        [{"step": 10, "prompt": PROMPTS["math-0002"], "completion": "3541", "reward": 1.0}],
    )
    r = do_import(suite, tmp_path / "Qwen2.5-0.5B-GRPO" / "completions", "trl")
    assert r.manifest.model_name == "Qwen2.5-0.5B-GRPO" and r.samples[0].source_reward == 1.0
    assert r.samples[0].source == f"{f}:1"


def test_trl_wandb_table_json(suite, tmp_path):
    table = {
        "_type": "table",
        "columns": ["step", "prompt", "completion", "accuracy_reward", "advantage"],
        "data": [
            ["12", chatml(PROMPTS["math-0001"]), "\\boxed{2107}", 1.0, 0.5],
            ["12", chatml(PROMPTS["math-0002"]), "\\boxed{3540}", 0.0, -0.5],
        ],
    }
    f = tmp_path / "completions_12_abc.table.json"
    f.write_text(json.dumps(table, indent=1), encoding="utf-8")
    r = do_import(suite, f, "trl", model="policy")
    assert [(s.task_id, s.step, s.source_reward, s.model) for s in r.samples] == [
        ("math-0001", 12, 1.0, "policy"),
        ("math-0002", 12, 0.0, "policy"),
    ]
    assert r.samples[1].source == f"{f}:row 1"


def test_trl_csv_export(suite, tmp_path):
    f = tmp_path / "completions.csv"
    f.write_text(
        "step,prompt,completion,accuracy_reward,advantage\n"
        f'3,"{PROMPTS["math-0001"]}","We get\n\\boxed{{2107}}",1.0,0.2\n'
        f'3,"{PROMPTS["math-0002"]}",3541,0.0,-0.2\n',
        encoding="utf-8",
    )
    r = do_import(suite, f, "trl")
    assert [s.text for s in r.samples] == ["We get\n\\boxed{2107}", "3541"]  # a number in a CSV cell stays text
    assert [s.source for s in r.samples] == [f"{f}:3", f"{f}:4"]  # the line each row ends on
    assert r.samples[0].step == 3 and r.samples[0].source_reward == 1.0


def test_trl_parquet_needs_pyarrow_or_reads(suite, tmp_path):
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        f = tmp_path / "completions_00001.parquet"
        f.write_bytes(b"PAR1not really")
        with pytest.raises(InputError, match="pyarrow"):
            do_import(suite, f, "trl")
        return
    f = tmp_path / "completions_00001.parquet"
    pq.write_table(pa.table({"step": [1], "prompt": [PROMPTS["math-0001"]], "completion": ["\\boxed{2107}"]}), f)
    assert do_import(suite, f, "trl").samples[0].task_id == "math-0001"


# --- verl -------------------------------------------------------------------------------------------


def verl_row(task: str, output: str, gts: str, score: float, step: int) -> dict:
    # What verl's trainer dumps (decoded prompt, special tokens skipped), plus reward extras.
    return {
        "input": f"system\nYou are a helpful assistant.\nuser\n{PROMPTS[task]} Let's think step by step and "
        f'output the final answer after "####".\nassistant\n',
        "output": output,
        "gts": gts,
        "score": score,
        "step": step,
        "acc": score > 0,
        "pred": "x",
    }


def test_verl_rollout_dir_in_step_order(suite, tmp_path):
    run = tmp_path / "qwen-grpo-gsm" / "rollout"
    write_jsonl(run / "10.jsonl", [verl_row("math-0001", "#### 2107", "2107", 1.0, 10)])
    write_jsonl(
        run / "2.jsonl",
        [verl_row("math-0001", "#### 2106", "2107", 0.0, 2), verl_row("math-0002", "#### 3541", "3541", 1.0, 2)],
    )
    r = do_import(suite, run, "verl")
    assert [(s.step, s.task_id, s.sample_index) for s in r.samples] == [
        (2, "math-0001", 0),
        (2, "math-0002", 0),
        (10, "math-0001", 1),
    ]  # 2.jsonl before 10.jsonl
    assert [s.source_reference for s in r.samples] == ["2107", "3541", "2107"]
    assert [s.source_reward for s in r.samples] == [0.0, 1.0, 1.0]
    assert r.manifest.model_name == "rollout" and r.manifest.source_files == [
        str(run / "2.jsonl"),
        str(run / "10.jsonl"),
    ]
    one = do_import(suite, run / "10.jsonl", "verl")  # a file named by its step: the folder names the run
    assert one.manifest.model_name == "rollout"


def test_verl_gts_as_list_and_task_id_column(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "val.jsonl",
        [{**verl_row("math-0002", "3541", "x", 1.0, 0), "gts": ["3541"], "task_id": "math-0013"}],
    )
    r = do_import(suite, f, "verl")
    assert r.samples[0].task_id == "math-0013" and (r.by_id, r.by_prompt) == (1, 0)  # the id wins over the prompt
    assert r.samples[0].source_reference == "3541"


# --- lm-eval-harness --------------------------------------------------------------------------------


def test_lm_eval_samples_file_every_resp_is_a_sample(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "results" / "Qwen__Qwen2.5-7B" / "samples_arith_2025-01-02T03-04-05.123.jsonl",
        [
            {
                "doc_id": 0,
                "doc": {"question": PROMPTS["math-0001"], "answer": "27*70+217 = 2107\n#### 2107"},
                "target": "2107",
                "arguments": {
                    "gen_args_0": {
                        "arg_0": f"Question: {PROMPTS['math-0001']}\nAnswer:",
                        "arg_1": {"until": ["Question:"], "do_sample": True},
                    }
                },
                "resps": [["The answer is 2107.", "The answer is 2106."]],
                "filtered_resps": ["2107"],
                "filter": "strict-match",
                "metrics": ["exact_match"],
                "doc_hash": "a",
                "prompt_hash": "b",
                "target_hash": "c",
                "exact_match": 1.0,
            },
            {
                "doc_id": 1,
                "doc": {"question": PROMPTS["math-0013"], "answer": "#### 1387"},
                "target": "1387",
                "arguments": {"gen_args_0": {"arg_0": "Question: ...", "arg_1": {}}},
                "resps": [["1387"]],
                "filtered_resps": ["1387"],
                "filter": "strict-match",
                "metrics": ["exact_match"],
                "exact_match": 1.0,
            },
        ],
    )
    r = do_import(suite, f.parent, "lm-eval")
    assert [(s.task_id, s.sample_index, s.text) for s in r.samples] == [
        ("math-0001", 0, "The answer is 2107."),
        ("math-0001", 1, "The answer is 2106."),
        ("math-0013", 0, "1387"),
    ]
    assert r.manifest.model_name == "Qwen__Qwen2.5-7B"  # lm-eval writes under <output_path>/<model>/
    assert [s.source_reference for s in r.samples] == ["2107", "2107", "1387"]
    assert r.samples[0].source_reward == 1.0 and r.samples[2].source == f"{f}:2"
    filtered = do_import(suite, f, "lm-eval", mapping=parse_mapping(["text=filtered_resps"]))
    assert [s.text for s in filtered.samples] == ["2107", "1387"]


def test_lm_eval_old_arguments_few_shot_prompt_matches_the_last_question(suite, tmp_path):
    shots = f"Q: {PROMPTS['math-0002']}\nA: 3541\n\nQ: {PROMPTS['math-0001']}\nA:"
    f = write_jsonl(
        tmp_path / "m" / "samples_t_2025.jsonl",
        [
            {
                "doc_id": 7,
                "doc": {"text": "not a prompt of ours"},
                "target": "2107",
                "arguments": [[shots, {"until": ["\n\n"]}]],
                "resps": [["2107"]],
                "filtered_resps": ["2107"],
            },
        ],
    )
    r = do_import(suite, f, "lm-eval", mapping=parse_mapping([]))
    assert r.samples[0].task_id == "math-0001"  # 0002 is a few-shot example before it


def test_lm_eval_loglikelihood_rows_are_refused(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "m" / "samples_mc_2025.jsonl",
        [
            {
                "doc_id": 0,
                "doc": {"question": PROMPTS["math-0001"]},
                "target": 0,
                "resps": [[["-1.25", "False"]], [["-0.5", "True"]]],
                "filtered_resps": [["-1.25", "False"]],
            }
        ],
    )
    with pytest.raises(InputError, match=r"samples_mc_2025.jsonl:1: .*generate_until"):
        do_import(suite, f, "lm-eval")


# --- generic JSONL ------------------------------------------------------------------------------------


def test_generic_jsonl_with_field_mapping(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "mine.jsonl",
        [
            {
                "id": "math-0001",
                "completion": "\\boxed{2107}",
                "policy": "rl-step-400",
                "meta": {"gold": "2107"},
                "r": 1,
            },
            {"id": "math-0001", "completion": "\\boxed{2}", "policy": "rl-step-400", "meta": {"gold": "2107"}, "r": 0},
            {
                "id": "math-0002",
                "completion": "\\boxed{3541}",
                "policy": "rl-step-400",
                "meta": {"gold": "3541"},
                "r": 1,
            },
        ],
    )
    mapping = parse_mapping(["task_id=id", "text=completion", "model=policy", "reference=meta.gold", "reward=r"])
    r = do_import(suite, f, "jsonl", mapping=mapping)
    assert (r.by_id, r.by_prompt) == (3, 0)
    assert [(s.task_id, s.sample_index, s.model, s.source_reference, s.source_reward) for s in r.samples] == [
        ("math-0001", 0, "rl-step-400", "2107", 1.0),
        ("math-0001", 1, "rl-step-400", "2107", 0.0),
        ("math-0002", 0, "rl-step-400", "3541", 1.0),
    ]
    assert r.samples[0].prompt == PROMPTS["math-0001"]  # no prompt in the source: the task's
    assert r.manifest.model_name == "rl-step-400" and r.manifest.field_mapping == mapping


def test_split_keeps_that_splits_tasks(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "s.jsonl", [{"task_id": t, "text": "1"} for t in ("math-0001", "math-0013", "math-0002")]
    )
    r = do_import(suite, f, "jsonl", split="heldout")
    assert [s.task_id for s in r.samples] == ["math-0013"] and r.outside_split == 2
    with pytest.raises(InputError, match="split 'shifted'"):
        do_import(suite, f, "jsonl", split="shifted")


# --- errors name file:line ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "fmt, rows, pattern",
    [
        (
            "trl",
            [{"prompt": PROMPTS["math-0001"], "completion": "1"}, {"prompt": PROMPTS["math-0001"], "answer": "1"}],
            r"bad.jsonl:2: missing field 'completion' \(the completion\); fields present: prompt, answer",
        ),
        ("verl", [{"output": "1", "score": 0}], r"bad.jsonl:1: missing field 'task_id' or 'input' or 'prompt'"),
        ("jsonl", [{"task_id": "math-0001", "text": 3}], r"bad.jsonl:1: field 'text' \(text\) is an int"),
        ("jsonl", ['{"task_id": "math-0001", "text": "1"}', '{"task_id": '], r"bad.jsonl:2: invalid JSON"),
        ("jsonl", [{"task_id": "math-0001", "text": "1", "reward": "high"}], r"bad.jsonl:1: field 'reward' \(reward\)"),
        ("lm-eval", [{"doc": {"question": PROMPTS["math-0001"]}, "resps": []}], r"bad.jsonl:1: .*empty list"),
    ],
)
def test_malformed_rows_name_file_line_and_field(suite, tmp_path, fmt, rows, pattern):
    f = write_jsonl(tmp_path / "bad.jsonl", rows)
    with pytest.raises(InputError, match=pattern):
        do_import(suite, f, fmt)


def test_mapped_field_missing_names_the_line(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "bad.jsonl",
        [{"id": "math-0001", "completion": "1", "policy": "a"}, {"id": "math-0001", "completion": "2"}],
    )
    with pytest.raises(InputError, match=r"bad.jsonl:2: no field 'policy' \(mapped to 'model' by --field\)"):
        do_import(suite, f, "jsonl", mapping=parse_mapping(["task_id=id", "text=completion", "model=policy"]))
    with pytest.raises(InputError, match="not a sample field"):
        parse_mapping(["answer=x"])


def test_unmatched_samples_are_one_error_listing_a_few(suite, tmp_path):
    rows = [{"task_id": "math-0001", "text": "1"}] + [{"prompt": f"What is {i} + {i}?", "text": "x"} for i in range(7)]
    f = write_jsonl(tmp_path / "u.jsonl", rows)
    with pytest.raises(InputError) as exc:
        do_import(suite, f, "jsonl")
    msg = str(exc.value)
    assert msg.startswith("7 of 8 samples match no task of suite 'math'")
    assert f"{f}:2: no task's prompt is in its prompt (prompt 'What is 0 + 0?')" in msg
    assert "and 2 more" in msg and "--field task_id=COLUMN" in msg


def test_unknown_task_id_falls_back_to_the_prompt(suite, tmp_path):
    f = write_jsonl(
        tmp_path / "ids.jsonl",
        [{"task_id": "gsm8k-17", "prompt": PROMPTS["math-0002"], "text": "1"}, {"task_id": "gsm8k-18", "text": "1"}],
    )
    with pytest.raises(InputError, match=r"ids.jsonl:2: task id 'gsm8k-18' is not in the suite and there is no prompt"):
        do_import(suite, f, "jsonl")
    f.write_text(json.dumps({"task_id": "gsm8k-17", "prompt": PROMPTS["math-0002"], "text": "1"}) + "\n")
    assert do_import(suite, f, "jsonl").samples[0].task_id == "math-0002"


# --- the written file, the records, the CLI ---------------------------------------------------------


def test_written_file_reads_back_and_records_the_source(suite, tmp_path):
    f = write_jsonl(tmp_path / "s.jsonl", [{"task_id": "math-0001", "text": "\\boxed{2107}", "finish_reason": "stop"}])
    r = do_import(suite, f, "jsonl", role="rl", model="m")
    out = write_samples(tmp_path / "out.jsonl", r.manifest, r.samples)
    back = read_samples(out, check_complete=True)  # an import has no n: nothing to be complete against
    assert back.manifest.source == "import:jsonl" and back.manifest.role == "rl"
    assert back.manifest.sampling is None and back.manifest.seed is None
    assert back.samples == r.samples and back.samples[0].finish_reason == "stop"
    first = json.loads(out.read_text().splitlines()[0])["manifest"]
    assert "sampling" not in first and first["source"] == "import:jsonl"  # unknowns are left out, not null


def test_sampled_manifest_keeps_its_shape_and_requirements():
    base = dict(
        model="/m/x",
        model_name="x",
        model_fingerprint="ab",
        backend="hf",
        seed=0,
        sampling=SamplingParams(n=1, temperature=0.6, top_p=0.9, max_tokens=4, top_k_logprobs=0, batch_size=1),
        template="plain",
        template_text="{prompt}",
        suite="math",
        task_count=1,
        tasks_hash="cd",
        tool_version="0",
    )
    line = json.loads(manifest_line(Manifest(**base)))["manifest"]
    assert "source" not in line and "role" not in line and "source_files" not in line  # sample's bytes as before
    with pytest.raises(ValueError, match="sampling"):
        Manifest(**{**base, "sampling": None})
    with pytest.raises(ValueError, match="unknown source"):
        Manifest(**{**base, "source": "import:foo"})


def test_sampled_file_still_needs_finish_reason(tmp_path):
    m = Manifest(
        model="/m/x",
        model_name="x",
        model_fingerprint="ab",
        backend="hf",
        seed=0,
        sampling=SamplingParams(n=1, temperature=0.6, top_p=0.9, max_tokens=4, top_k_logprobs=0, batch_size=1),
        template="plain",
        template_text="{prompt}",
        suite="math",
        task_count=1,
        tasks_hash="cd",
        tool_version="0",
    )
    f = tmp_path / "s.jsonl"
    f.write_text(
        manifest_line(m)
        + "\n"
        + json.dumps(
            {
                "task_id": "a",
                "sample_index": 0,
                "model": "x",
                "prompt": "p",
                "text": "t",
                "token_ids": [],
                "logprobs": [],
                "logprobs_kind": "raw",
            }
        )
        + "\n"
    )
    with pytest.raises(InputError, match=r"s.jsonl:2: invalid sample \(finish_reason"):
        read_samples(f)


def _cli(argv):
    parser = argparse.ArgumentParser(prog="verifier-audit")
    import_cli.add_parser(parser.add_subparsers(dest="command"))
    return import_cli.run(parser.parse_args(argv))


def test_cli_import_exit_codes(tmp_path, capsys):
    f = write_jsonl(tmp_path / "r.jsonl", [verl_row("math-0001", "#### 2107", "2107", 1.0, 3)])
    out = tmp_path / "samples.jsonl"
    assert (
        _cli(
            [
                "import",
                str(f),
                "--format",
                "verl",
                "--suite",
                "math",
                "--model",
                "rl",
                "--role",
                "rl",
                "--out",
                str(out),
            ]
        )
        == 0
    )
    err = capsys.readouterr().err
    assert "read 1 samples" in err and "1 by prompt text" in err and str(out) in err
    assert read_samples(out).manifest.model_name == "rl"
    bad = write_jsonl(tmp_path / "b.jsonl", [{"input": PROMPTS["math-0001"]}])
    assert _cli(["import", str(bad), "--format", "verl", "--suite", "math", "--out", str(tmp_path / "o.jsonl")]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:1: missing field 'output' or 'response'" in err and "Traceback" not in err
    assert not (tmp_path / "o.jsonl").exists()
    assert _cli(["import", str(tmp_path / "nope"), "--format", "trl", "--suite", "math", "--out", str(out)]) == 2
    assert "no such file or folder" in capsys.readouterr().err


def test_cli_import_never_replaces_a_sampled_file(tmp_path, capsys):
    m = Manifest(
        model="/m/x",
        model_name="x",
        model_fingerprint="ab",
        backend="hf",
        seed=0,
        sampling=SamplingParams(n=1, temperature=0.6, top_p=0.9, max_tokens=4, top_k_logprobs=0, batch_size=1),
        template="plain",
        template_text="{prompt}",
        suite="math",
        task_count=1,
        tasks_hash="cd",
        tool_version="0",
    )
    out = tmp_path / "samples.jsonl"
    out.write_text(manifest_line(m) + "\n", encoding="utf-8")
    f = write_jsonl(tmp_path / "r.jsonl", [{"task_id": "math-0001", "text": "1"}])
    assert _cli(["import", str(f), "--format", "jsonl", "--suite", "math", "--out", str(out)]) == 2
    assert "written by `verifier-audit sample`" in capsys.readouterr().err
    assert out.read_text() == manifest_line(m) + "\n"
