"""The engine's probes (engine/probes.py): the sample, the results store left alone, resume,
and threads that run inside the sandbox in isolated domains. What the probes find on faulty
verifiers is tested with the checklist (tests/report/test_checklist.py)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from verifier_audit.engine.audit import AuditOptions, Prepared, default_cache_dir, prepare
from verifier_audit.engine.probes import partners, select_sample
from verifier_audit.loading import resolve
from verifier_audit.models import Candidate, Task, Verdict, to_json
from verifier_audit.plan import audit
from verifier_audit.report.checklist import evaluate
from verifier_audit.suites import load_suite, select

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "probe_verifiers.py"


def _fake(n_tasks=3, per_category=5, categories=("a.x.one", "a.x.two", "a.y.three", "a.y.four")):
    tasks = [Task(id=f"t{i}", domain="math", prompt="p", reference="1") for i in range(n_tasks)]
    candidates, verdicts = [], {}
    for t in tasks:
        for cat in categories:
            for k in range(per_category):
                c = Candidate(
                    id=f"{t.id}/{cat}/{k}",
                    task_id=t.id,
                    text=str(k),
                    origin="near_miss",
                    category=cat,
                    label="incorrect",
                )
                candidates.append(c)
                status = "error" if k == 0 else "ok"
                verdicts[c.id] = Verdict(
                    verifier="v", candidate_id=c.id, status=status, score=None if status == "error" else float(k % 2)
                )
    return Prepared("s", "h", "math", tasks, candidates, []), verdicts


def test_sample_is_seeded_spread_over_categories_and_ok_only():
    prepared, verdicts = _fake()
    sample = select_sample(prepared, verdicts, 8, seed=0)
    assert sample == select_sample(prepared, verdicts, 8, seed=0)  # deterministic
    assert select_sample(prepared, verdicts, 8, seed=1) != sample  # from the seed
    chosen = [prepared.candidates[i] for i in sample]
    assert len({c.id for c in chosen}) == 8
    assert all(verdicts[c.id].status == "ok" for c in chosen)
    # Spread: 4 categories, 8 picks -> each category exactly twice.
    assert sorted(c.category for c in chosen) == sorted(2 * ["a.x.one", "a.x.two", "a.y.three", "a.y.four"])
    assert select_sample(prepared, verdicts, 0, seed=0) == []
    every_ok = sum(1 for v in verdicts.values() if v.status == "ok")
    assert len(select_sample(prepared, verdicts, 10_000, seed=0)) == every_ok
    # Partners: same task, scored differently when possible.
    for i, m in zip(sample, partners(prepared, verdicts, sample), strict=True):
        a, b = prepared.candidates[i], prepared.candidates[m]
        assert a.id != b.id and a.task_id == b.task_id
        assert verdicts[a.id].score != verdicts[b.id].score


def _prepared(options: AuditOptions, limit: int) -> Prepared:
    suite = load_suite("math")
    return prepare(suite.name, suite.content_hash, select(suite, None, limit), options, limit=limit)


def _rows(path: Path) -> tuple[dict, dict]:
    lines = path.read_text().splitlines()
    header = json.loads(lines[0])
    rows = {}
    for line in lines[1:]:
        row = json.loads(line)
        assert row["candidate_id"] not in rows, "a candidate scored twice"
        rows[row["candidate_id"]] = (row["verifier"], row["status"], row["score"], row["error"], row["security"])
    return header, rows


def test_probes_leave_the_results_file_alone_and_a_resumed_audit_runs_them_again(tmp_path):
    spec = resolve("verifier_audit.domains.math.verifiers:strong")
    base = AuditOptions(cache_dir=default_cache_dir(), progress=False)
    prepared = _prepared(base, 4)

    probed = tmp_path / "probed.jsonl"
    report = audit(prepared, [spec], dataclasses.replace(base, results=probed))[0]
    assert report.checks.determinism.sampled == report.checks.threads.sampled == 24
    assert report.checks.cross_process and report.checks.splits == {"train": report.n_candidates}

    plain = tmp_path / "plain.jsonl"
    unprobed = audit(prepared, [spec], dataclasses.replace(base, results=plain, probe_sample=0))[0]
    assert unprobed.checks.determinism is None and unprobed.checks.threads is None
    assert unprobed.checks.splits == report.checks.splits  # the split counts need no probe

    # The store holds the verdicts, nothing else: the same rows with and without probes.
    header, rows = _rows(probed)
    plain_header, plain_rows = _rows(plain)
    assert header == plain_header  # probe_sample is not part of the fingerprint
    assert rows == plain_rows and len(rows) == report.n_candidates
    # Latency is this run's wall times (Report.latency): the one part two runs do not share.
    same = {"checks": None, "latency": None}
    assert report.model_copy(update=same) == unprobed.model_copy(update=same)

    # Cut the results file in half and resume: the probes run again, the report is the same.
    lines = probed.read_text().splitlines(keepends=True)
    keep = 1 + (len(lines) - 1) // 2
    probed.write_text("".join(lines[:keep]))
    resumed = audit(prepared, [spec], dataclasses.replace(base, results=probed, resume=True))[0]
    assert to_json(resumed.model_copy(update={"latency": None})) == to_json(report.model_copy(update={"latency": None}))
    _, rows_after = _rows(probed)
    assert rows_after == rows


def test_threaded_probe_runs_inside_the_sandbox_of_an_isolated_domain(monkeypatch):
    # The fixture scores 1.0 only where the environment was cleared (the code sandbox's runs)
    # and 0.0 where VA_PROBE_OUTSIDE is still visible (the engine's workers, this process).
    from verifier_audit import audit as api_audit

    monkeypatch.setenv("VA_PROBE_OUTSIDE", "1")
    report = api_audit(
        f"{FIXTURES}:outside_sandbox_mark",
        suite="code",
        limit=1,
        timeout=4,
        probe_sample=6,
        style="native",
        pass_env=("VA_PROBE_OUTSIDE",),
    )
    assert report.errors == 0
    assert all(c.accepted == c.n for c in report.categories)  # every first-pass call ran sandboxed: 1.0
    checks = report.checks
    assert checks.isolated is True
    assert checks.threads.sampled == 6 and checks.threads.disagreed == 0, checks.threads.examples
    assert checks.determinism.sampled == 6 and checks.determinism.disagreed == 0


@pytest.mark.parametrize("size", [0, 3])
def test_probe_sample_size_is_honoured(size):
    from verifier_audit import audit as api_audit

    report = api_audit("verifier_audit.domains.math.verifiers:strong", limit=2, probe_sample=size)
    assert report.checks.sample == size
    if size == 0:
        assert report.checks.determinism is None and report.checks.threads is None
    else:
        assert report.checks.determinism.sampled == report.checks.threads.sampled == size


def test_a_verifier_that_hangs_under_threads_costs_a_few_timeouts_not_the_sample():
    from verifier_audit import audit as api_audit
    from verifier_audit.engine.probes import MAX_FAILURES

    report = api_audit(f"{FIXTURES}:hangs_under_threads", limit=2, timeout=2)
    threads = report.checks.threads
    assert threads.stopped_early and threads.errors == threads.disagreed >= MAX_FAILURES
    assert threads.sampled < 24 and all("timeout" in e for e in threads.examples)
    assert report.checks.determinism.disagreed == 0 and report.errors == 0
    item = {i.key: i for i in evaluate(report)}["thread_process_safe"]
    assert item.status == "open" and "stopped early" in item.evidence
