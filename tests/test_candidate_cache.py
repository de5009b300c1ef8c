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
