"""Labels must be right: what the engine keeps, the oracle confirms, for any seed and tasks."""

from hypothesis import HealthCheck, given, settings, strategies as st

from verifier_audit.domains.math.oracle import label_completion
from verifier_audit.engine.audit import AuditOptions, prepare
from verifier_audit.suites import load_suite

SUITE = load_suite("math")


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**31 - 1), picks=st.lists(st.integers(0, len(SUITE.tasks) - 1), min_size=1, max_size=4, unique=True))
def test_kept_candidates_carry_the_label_the_oracle_gives(seed, picks):
    tasks = [SUITE.tasks[i] for i in sorted(picks)]
    prepared = prepare("math", SUITE.content_hash, tasks, AuditOptions(seed=seed, workers=2, progress=False))
    references = {t.id: t.reference for t in tasks}
    for c in prepared.candidates:
        judged = label_completion(c.text, references[c.task_id]).label
        assert judged == c.label, (c.category, c.text[:200], references[c.task_id])
        if c.origin == "near_miss":
            assert c.label == "incorrect"
        if c.origin == "equivalent":
            assert c.label == "correct"
    # and nothing the oracle disagreed with slipped through uncounted
    assert all(d.reason in {"equivalent_mutant", "not_equivalent", "oracle_unknown", "oracle_timeout", "oracle_crash",
                            "oracle_exception", "gold_unusable"} for d in prepared.dropped)


def test_generation_is_deterministic_for_a_seed():
    tasks = SUITE.tasks[::37]
    a = prepare("math", SUITE.content_hash, tasks, AuditOptions(seed=3, progress=False))
    b = prepare("math", SUITE.content_hash, tasks, AuditOptions(seed=3, progress=False))
    c = prepare("math", SUITE.content_hash, tasks, AuditOptions(seed=4, progress=False))
    assert [x.model_dump() for x in a.candidates] == [x.model_dump() for x in b.candidates]
    assert [x.text for x in a.candidates] != [x.text for x in c.candidates]
