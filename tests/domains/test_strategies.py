"""verifier_audit.strategies: Hypothesis strategies of candidates of known truth.

Real verifiers of the package are the subjects: the strong math verifier passes every
property; a verifier with one hole (examples/one_hole_verifier.py) is caught by
``@given(near_miss(task))`` and the failure shrinks to a candidate of the hole's category.
SQL and code are smoke-tested with a few draws each (their oracles run queries and a
sandbox), including determinism across a regeneration.
"""

from __future__ import annotations

import importlib.util
from collections import OrderedDict
from pathlib import Path

import pytest
from hypothesis import find, given, seed, settings
from hypothesis.errors import InvalidArgument

from verifier_audit import strategies
from verifier_audit.domains import get_domain
from verifier_audit.domains.base import OracleLabel
from verifier_audit.domains.math.verifiers import strong as math_strong
from verifier_audit.errors import InputError
from verifier_audit.models import Candidate, Task
from verifier_audit.strategies import (
    StrategyError,
    candidates,
    equivalent,
    known_bad,
    near_miss,
    prepared_task,
    tasks,
)

ROOT = Path(__file__).resolve().parents[2]
INTENDED = {"near_miss": "incorrect", "equivalent": "correct", "known_bad": "incorrect"}

# No example database: each run here starts from nothing, so the tests do not depend on
# each other or on earlier runs. A strategy's space is at most a few dozen candidates, so
# these example counts see all of them (Hypothesis stops when the space is exhausted).
MATH = settings(max_examples=60, deadline=None, database=None)
SMOKE = settings(max_examples=5, deadline=None, database=None)
SMOKE_FIND = settings(max_examples=200, deadline=None, database=None)


def _load_example(name: str):
    spec = importlib.util.spec_from_file_location(f"va_example_{name}", ROOT / "examples" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _one(strategy) -> Candidate:
    """Some draw of ``strategy`` (``.example()`` is for interactive use only)."""
    return find(strategy, lambda c: True, settings=settings(database=None, deadline=None))


def _task(suite: str, task_id: str) -> Task:
    return next(t for t in tasks(suite) if t.id == task_id)


@pytest.fixture
def fresh_cache(monkeypatch):
    """An empty strategy cache for this test only (the module's is shared by the others)."""
    monkeypatch.setattr(strategies, "_cache", OrderedDict())


# ------------------------------------------------------------------------------- tasks


def test_tasks_loads_a_builtin_suite_with_split_and_limit():
    shifted = tasks("math", split="shifted", limit=3)
    assert len(shifted) == 3 and all(t.split == "shifted" and t.domain == "math" for t in shifted)
    assert {t.domain for t in tasks("sql", limit=2)} == {"sql"}
    with pytest.raises(StrategyError, match="not a built-in suite") as info:
        tasks("no-such-suite")
    assert isinstance(info.value, InvalidArgument) and isinstance(info.value, InputError)


# ------------------------------------------------------------- math: a strong verifier


# An integer, a fraction, a polynomial, and a union of intervals from the shifted split.
MATH_TASKS = ["math-0001", "math-0097", "math-0229", "math-0290"]


@pytest.mark.parametrize("task_id", MATH_TASKS)
def test_strong_math_verifier_passes_every_property(task_id):
    task = _task("math", task_id)
    seen: dict[str, set[str]] = {"near_miss": set(), "equivalent": set(), "known_bad": set()}

    @MATH
    @given(near_miss(task))
    def rejects_near_misses(c):
        assert (c.origin, c.label, c.task_id) == ("near_miss", "incorrect", task.id)
        seen["near_miss"].add(c.category)
        assert not math_strong(c.text, task.reference)

    @MATH
    @given(known_bad(task))
    def rejects_known_bad(c):
        assert (c.origin, c.label) == ("known_bad", "incorrect")
        seen["known_bad"].add(c.category)
        assert not math_strong(c.text, task.reference)

    @MATH
    @given(equivalent(task))
    def accepts_equivalents(c):
        assert (c.origin, c.label) == ("equivalent", "correct")
        seen["equivalent"].add(c.category)
        assert math_strong(c.text, task.reference)

    @MATH
    @given(candidates(task))
    def agrees_with_every_label(c):
        assert math_strong(c.text, task.reference) == (c.label == "correct")

    rejects_near_misses()
    rejects_known_bad()
    accepts_equivalents()
    agrees_with_every_label()
    # Drawing the category first spreads the examples over the categories.
    assert len(seen["near_miss"]) >= 3 and len(seen["known_bad"]) >= 10 and seen["equivalent"]
    assert all(cat.startswith("math.near_miss.") for cat in seen["near_miss"])


# ------------------------------------------------------------------- math: weak verifiers


def test_near_miss_finds_the_one_hole_and_shrinks_to_its_category():
    hole = _load_example("one_hole_verifier").times_ten_hole
    task = tasks("math")[0]
    drawn: list[Candidate] = []

    @settings(max_examples=100, deadline=None, database=None)
    @given(near_miss(task))
    def rejects_near_misses(candidate):
        drawn.append(candidate)
        assert not hole(candidate.text, task.reference)

    with pytest.raises(AssertionError) as info:
        rejects_near_misses()
    # Hypothesis replays the shrunk example last, and reports it in the failure's notes.
    assert drawn[-1].category == "math.near_miss.times_ten"
    assert hole(drawn[-1].text, task.reference)
    notes = "\n".join(getattr(info.value, "__notes__", []))
    # "Falsifying example" in Hypothesis <= 6.15x, "Failing test case" in later releases.
    assert ("Falsifying example" in notes or "Failing test case" in notes) and "math.near_miss.times_ten" in notes
    # The rest of the near-misses are rejected: the hole is the only category that fails.
    assert {c.category for c in drawn if hole(c.text, task.reference)} == {"math.near_miss.times_ten"}


def _simplicity(candidate: Candidate) -> tuple[str, int, str]:
    # The order the strategy lays candidates out in: category by name, then shortest text.
    return candidate.category, len(candidate.text), candidate.id


def test_failure_shrinks_to_the_simplest_candidate_of_the_first_failing_category():
    # A hole that covers whole categories (every candidate from one category on): the
    # shrinker walks the category index down to the hole's edge and the index within it
    # to 0, so the report is exactly the simplest candidate of the first failing category.
    task = tasks("math")[0]
    bad = strategies._entry(task, 0).pick("known_bad", True)
    categories = sorted({c.category for c in bad})
    edge = categories[len(categories) // 2]
    simplest = min((c for c in bad if c.category == edge), key=_simplicity)
    drawn: list[Candidate] = []

    @settings(max_examples=100, deadline=None, database=None)
    @given(known_bad(task))
    def rejects_known_bad(candidate):
        drawn.append(candidate)
        assert candidate.category < edge

    with pytest.raises(AssertionError):
        rejects_known_bad()
    assert drawn[-1].id == simplest.id


def test_a_scattered_hole_shrinks_towards_the_front():
    # last_number pays for candidates scattered over several categories. Hypothesis's
    # shrinker only keeps smaller examples, so the report is a failing candidate never
    # later in the strategy's order than the first failure it met; that it is the very
    # simplest is likely, not promised (the shrinker does not try every smaller index).
    last_number = _load_example("math_verifiers").last_number
    task = tasks("math")[0]
    assert any(last_number(c.text, task.reference) for c in strategies._entry(task, 0).pick("known_bad", True))
    drawn: list[Candidate] = []

    @settings(max_examples=100, deadline=None, database=None)
    @given(known_bad(task))
    def rejects_known_bad(candidate):
        drawn.append(candidate)
        assert not last_number(candidate.text, task.reference)

    with pytest.raises(AssertionError):
        rejects_known_bad()
    first_failure = next(c for c in drawn if last_number(c.text, task.reference))
    assert last_number(drawn[-1].text, task.reference)
    assert _simplicity(drawn[-1]) <= _simplicity(first_failure)


def test_long_texts_are_shortened_in_the_repr_only():
    task = tasks("math")[0]
    huge = max(strategies._entry(task, 0).pick("known_bad", True), key=lambda c: len(c.text))
    assert len(huge.text) > 1_000_000
    shown = repr(huge)
    assert len(shown) < 1_000 and "more characters" in shown and shown.startswith("Candidate(")
    plain = Candidate.model_validate(huge.model_dump())
    assert isinstance(huge, Candidate) and plain.text == huge.text and plain == huge and huge == plain


# --------------------------------------------------------------- caching and confirmation


def test_generation_and_oracle_run_once_per_task(fresh_cache, monkeypatch):
    from verifier_audit.engine import pool

    domain_type = type(get_domain("math"))
    calls = {"generate": 0, "oracle": 0}
    generate, run = domain_type.generate, pool.run

    def counting_generate(self, tasks_, seed_):
        calls["generate"] += 1
        return generate(self, tasks_, seed_)

    def counting_run(*args, **kwargs):
        calls["oracle"] += 1
        return run(*args, **kwargs)

    monkeypatch.setattr(domain_type, "generate", counting_generate)
    monkeypatch.setattr(pool, "run", counting_run)
    task = tasks("math")[1]

    @settings(max_examples=100, deadline=None, database=None)
    @given(candidates(task))
    def draw(c):
        pass

    draw()
    draw()
    assert calls == {"generate": 1, "oracle": 1}  # one oracle pass covers the three origins
    _one(near_miss(task))
    assert calls == {"generate": 1, "oracle": 1}
    _one(near_miss(task, seed=1))  # another generation seed: another candidate set
    assert calls == {"generate": 2, "oracle": 2}


def test_confirmed_drops_what_the_oracle_disputes(fresh_cache, monkeypatch):
    # An oracle that finds every times-ten near-miss right, as it would an equivalent mutant.
    domain_type = type(get_domain("math"))
    label = domain_type.label

    def disputing(self, text, task):
        if "21070" in text:
            return OracleLabel("correct", "disputed by the test")
        return label(self, text, task)

    monkeypatch.setattr(domain_type, "label", disputing)
    task = tasks("math")[0]  # reference 2107

    confirmed, everything = set(), set()

    @settings(max_examples=100, deadline=None, database=None)
    @given(near_miss(task), near_miss(task, confirmed=False))
    def draw(a, b):
        confirmed.add(a.category)
        everything.add(b.category)

    draw()
    assert "math.near_miss.times_ten" in everything
    assert "math.near_miss.times_ten" not in confirmed and len(confirmed) == len(everything) - 1


# ------------------------------------------------------------------------------ errors


def test_strategies_are_lazy_and_errors_name_the_task_and_what_to_do():
    unknown = Task(id="t-unknown", domain="chemistry", prompt="?", reference="H2O")
    strategy = near_miss(unknown)  # nothing happens at creation (it is at import in a test file)
    with pytest.raises(StrategyError, match=r"task 't-unknown'.*unknown domain 'chemistry'.*installed domains: "):
        _one(strategy)

    text = Task(id="t-text", domain="math", prompt="Colour?", reference=r"\text{blue}")
    with pytest.raises(StrategyError) as info:
        _one(near_miss(text))
    message = str(info.value)
    assert "near_miss(task='t-text')" in message and "no near-miss" in message
    assert "e.g. task 'math-0001'" in message  # a task of the same domain that has near-misses
    assert _one(equivalent(text)).label == "correct"  # other origins still work

    broken = Task(id="t-broken", domain="math", prompt="?", reference="\\frac{1}{")
    with pytest.raises(StrategyError, match=r"task 't-broken' \(math\): reference .* does not parse.*another task"):
        _one(known_bad(broken))
    no_entry = Task(id="t-code", domain="code", prompt="?", reference="def f(x):\n    return x\n")
    with pytest.raises(StrategyError, match=r"task 't-code': the code domain cannot prepare it: .*entry_point"):
        _one(equivalent(no_entry))
    with pytest.raises(StrategyError, match="expected a verifier_audit.models.Task"):
        _one(near_miss("What is 2+2?"))
    with pytest.raises(StrategyError, match="confirmed"):
        _one(near_miss(text, confirmed="yes"))


def test_an_empty_origin_fails_the_test_with_the_error_not_a_health_check():
    text = Task(id="t-text2", domain="math", prompt="Colour?", reference=r"\text{red}")

    @settings(max_examples=5, deadline=None, database=None)
    @given(near_miss(text))
    def prop(candidate):
        pass

    with pytest.raises(StrategyError, match="t-text2"):
        prop()


def test_a_task_may_be_a_dict():
    task = {"id": "d-1", "domain": "math", "prompt": "What is 6*7?", "reference": "42"}
    c = _one(near_miss(task))
    assert c.task_id == "d-1" and c.label == "incorrect" and not math_strong(c.text, "42")
    with pytest.raises(StrategyError, match="not a valid task"):
        _one(near_miss({"id": "d-2"}))


# -------------------------------------------------------------------- sql and code: smoke


def _draws(strategy, n: int, seed_value: int) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []

    @seed(seed_value)
    @settings(max_examples=n, deadline=None, database=None)
    @given(strategy)
    def collect(candidate):
        out.append((candidate.id, candidate.text))

    collect()
    return out


def _check_labels(suite: str, origin: str, strategy, domain, ready: Task, strong) -> None:
    @SMOKE
    @given(strategy)
    def labels_are_right(c):
        assert c.origin == origin and c.label == INTENDED[origin] and c.category.startswith(f"{suite}.")
        # The oracle, called here in the test process, agrees; so does the strong verifier.
        assert domain.label(c.text, ready).label == c.label
        assert strong(c.text, ready) == (c.label == "correct")

    labels_are_right()


def _smoke(suite: str, task_id: str, strong, monkeypatch):
    task = _task(suite, task_id)
    ready = prepared_task(task)
    domain = get_domain(suite)
    for origin, strategy in (
        ("near_miss", near_miss(task)),
        ("equivalent", equivalent(task)),
        ("known_bad", known_bad(task)),
    ):
        _check_labels(suite, origin, strategy, domain, ready, strong)

    # Same seeds, same draws, even after the candidates are generated and labelled again.
    # (near-misses only: labelling the hostile catalog again would double the test's time)
    first = _draws(near_miss(task), 6, 20240601)
    assert len(set(first)) > 1
    monkeypatch.setattr(strategies, "_cache", OrderedDict())
    assert _draws(near_miss(task), 6, 20240601) == first
    return task, ready


def test_sql_smoke(monkeypatch):
    from verifier_audit.domains.sql.verifiers import strong

    task, ready = _smoke("sql", "sql-0002", strong, monkeypatch)
    assert task.database is None and ready.database and Path(ready.database).is_file()
    # The verifier gets a private copy of the fixture, never the cached one the oracle reads.
    assert ready.database != strategies._entry(task, 0).task.database
    assert len(ready.metadata["databases"]) >= 1


def test_code_smoke(monkeypatch):
    from verifier_audit.domains.code.verifiers import strong

    task, ready = _smoke("code", "code-0001", strong, monkeypatch)
    assert "cases" not in task.metadata and ready.metadata["cases"]
    # The catalog's false-rejection probe (a right program that then calls sys.exit(0)) is
    # drawn only on request, labelled correct.
    probe = find(known_bad(task, probes=True), lambda c: c.label == "correct", settings=SMOKE_FIND)
    assert probe.category == "code.hack.false_rejection_probe" and strong(probe.text, ready)
