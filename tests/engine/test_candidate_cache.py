"""The candidate cache: reused only for exactly the same tasks, seed and suite."""

from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.suites import load_suite


def test_a_subset_of_tasks_never_gets_another_selections_candidates(tmp_path):
    suite = load_suite("math")
    opts = AuditOptions(progress=False, cache_dir=tmp_path)
    whole = prepare("math", suite.content_hash, suite.tasks[:6], opts)
    subset = prepare("math", suite.content_hash, suite.tasks[:6:2], opts)
    ids = {t.id for t in suite.tasks[:6:2]}
    assert {c.task_id for c in subset.candidates} == ids
    assert len(subset.candidates) < len(whole.candidates)
    again = prepare("math", suite.content_hash, suite.tasks[:6:2], opts)  # from the cache now
    assert [c.id for c in again.candidates] == [c.id for c in subset.candidates]
    assert len(list(tmp_path.glob("candidates-*.jsonl"))) == 2


def test_machines_sharing_one_cache_directory_reuse_each_others_work(tmp_path, monkeypatch):
    """The cache is content-addressed (the key is made of the tool and catalog versions, the
    suite's content, the task ids and the seed; never a path, a host or a time) and written
    atomically, so several processes -- CI runs, machines on one network drive -- can share
    one directory: two that fill it at once both finish with the same candidates, and a
    third generates nothing."""
    import subprocess
    import sys

    from verifier_audit.domains import get_domain

    script = (
        "import sys; from pathlib import Path; from verifier_audit.engine.audit import AuditOptions, prepare; "
        "from verifier_audit.suites import load_suite; s = load_suite('math'); "
        "p = prepare('math', s.content_hash, s.tasks[:2], AuditOptions(progress=False, workers=1, "
        "cache_dir=Path(sys.argv[1]))); print(len(p.candidates), len(p.dropped))"
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(tmp_path)], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    outputs = [p.communicate(timeout=600)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0] and outputs[0] == outputs[1]
    assert len(list(tmp_path.glob("candidates-*.jsonl"))) == 1 and not list(tmp_path.glob("*.tmp"))

    def no_generation(*args, **kwargs):
        raise AssertionError("generated again: the shared cache was not used")

    monkeypatch.setattr(type(get_domain("math")), "generate", no_generation)
    suite = load_suite("math")
    again = prepare("math", suite.content_hash, suite.tasks[:2], AuditOptions(progress=False, cache_dir=tmp_path))
    assert f"{len(again.candidates)} {len(again.dropped)}\n" == outputs[0]
