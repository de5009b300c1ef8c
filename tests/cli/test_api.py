"""The Python API and the dataset formats, end to end on small real suites."""

import json

from verifier_audit import audit
from verifier_audit.cli import main
from verifier_audit.domains.math.verifiers import strong, substring


def trl_reward(completions, solution, **kwargs):
    return [1.0 if strong(c, s) else 0.0 for c, s in zip(completions, solution)]


def test_audit_a_callable_in_every_style():
    weak = audit(substring, limit=6)
    assert weak.style == "pair" and not weak.gate.passed and weak.coverage_debt > 0.2
    good = audit(trl_reward, limit=6)
    assert good.style == "trl" and good.gate.passed and good.coverage_debt == 0.0
    native = audit(lambda completion, task: strong(completion, task.reference), style="native", limit=6)
    assert native.coverage_debt == 0.0 and native.n_candidates == good.n_candidates


def test_gsm8k_file_through_the_cli(tmp_path, capsys):
    path = tmp_path / "gsm.jsonl"
    rows = [
        {
            "question": f"Tom has {i} apples and buys {i + 2} more. How many?",
            "answer": f"He has {2 * i + 2}.\n#### {2 * i + 2}",
        }
        for i in range(1, 6)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    out = tmp_path / "r.json"
    code = main(
        [
            "run",
            "--verifier",
            "verifier_audit.domains.math.verifiers:strong",
            "--suite",
            str(path),
            "--format",
            "gsm8k",
            "--json",
            str(out),
            "--no-progress",
            "--no-cache",
        ]
    )
    assert code == 0, capsys.readouterr()
    report = json.loads(out.read_text())
    assert report["n_candidates"] > 20 and report["coverage_debt"] == 0.0


def test_generate_writes_labelled_candidates(tmp_path):
    out = tmp_path / "c.jsonl"
    assert main(["generate", "--limit", "2", "--out", str(out), "--dropped"]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert {r["origin"] for r in rows if not r.get("dropped")} == {"near_miss", "equivalent", "known_bad"}
    assert all(r["label"] in ("correct", "incorrect") for r in rows if not r.get("dropped"))


def test_a_closed_pipe_is_not_an_internal_error():
    import subprocess
    import sys

    # generate writes far more than a pipe buffer (64 KiB), so the writer must meet the closed pipe
    proc = subprocess.Popen(
        [sys.executable, "-m", "verifier_audit", "generate", "--limit", "40"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.readline()
    proc.stdout.close()  # like `| head -1`
    err = proc.stderr.read().decode()
    assert proc.wait() == 0 and "Traceback" not in err
