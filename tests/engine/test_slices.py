"""Slices (issue 14): every candidate carries its task's slice; rates per category x slice,
the exploitable-task rate, the gate on the worst slice with enough evidence, and the debt
reweighted to a user's own task mix (--weights-from)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains import get_domain
from verifier_audit.domains.code.slices import return_family
from verifier_audit.engine.slices import task_slices
from verifier_audit.errors import InputError
from verifier_audit.metrics import category_results, exploitable_tasks, gate, slice_results
from verifier_audit.models import Candidate, GateConfig, Task, Verdict
from verifier_audit.plan import load_weights

ROOT = Path(__file__).resolve().parents[2]


def _math(reference: str, **metadata) -> Task:
    return Task(id="t", domain="math", prompt="?", reference=reference, metadata=metadata)


@pytest.mark.parametrize(
    "reference, expected",
    [
        ("2107", ["answer:integer", "magnitude:1e3-1e6"]),
        ("-18", ["answer:integer", "magnitude:1-999"]),
        (r"\frac{17}{18}", ["answer:fraction", "magnitude:<1"]),
        ("40.98", ["answer:decimal", "magnitude:1-999"]),
        (r"183.75\%", ["answer:decimal", "magnitude:1-999"]),
        (r"2^{117}", ["answer:integer", "magnitude:>=1e6"]),
        (r"3\sqrt{5}", ["answer:expression"]),
        (r"3x^{2} - 24x + 45", ["answer:expression"]),
        ("y = -6x + 7", ["answer:equation"]),
        (r"\{-9, 1\}", ["answer:set"]),
        ("(-2, 0)", ["answer:tuple"]),
        (r"\begin{pmatrix}1 & 2\\ 3 & 4\end{pmatrix}", ["answer:matrix"]),
        (r"\text{Wednesday}", ["answer:text"]),
    ],
)
def test_math_tasks_are_sliced_by_their_reference(reference, expected):
    assert task_slices(get_domain("math"), _math(reference)) == expected


def test_a_pair_the_suite_calls_an_interval_is_one_and_a_slice_field_wins():
    math = get_domain("math")
    assert task_slices(math, _math("(-8, -5)", answer_type="interval")) == ["answer:interval"]
    assert task_slices(math, _math("2107", slice="gsm8k")) == ["slice:gsm8k"]
    assert task_slices(math, _math("2107", topic=["algebra", "hard"]), field="topic") == ["topic:algebra", "topic:hard"]


@pytest.mark.parametrize(
    "query, expected",
    [
        ("SELECT name FROM customers WHERE is_vip", ["query:plain"]),
        (
            "SELECT c.name, COUNT(*) FROM customers c JOIN orders o ON o.customer_id = c.id GROUP BY c.name",
            ["query:group_by", "query:join"],
        ),
        (
            "SELECT name FROM a UNION SELECT name FROM b ORDER BY name LIMIT 3",
            ["query:set_operation", "query:order_limit"],
        ),
        (
            "WITH t AS (SELECT 1 AS x) SELECT x, RANK() OVER (ORDER BY x) FROM t",
            ["query:window", "query:cte", "query:order_limit"],
        ),
        ("SELECT name FROM a WHERE email IS NULL", ["query:null_predicate"]),
        ("SELECT DISTINCT city FROM a", ["query:distinct"]),
        ("SELEC nonsense (", ["query:unknown"]),
    ],
)
def test_sql_tasks_are_sliced_by_their_query_features(query, expected):
    task = Task(id="t", domain="sql", prompt="?", reference=query)
    assert task_slices(get_domain("sql"), task) == expected


@pytest.mark.parametrize(
    "annotation, family",
    [
        ("int", "number"),
        ("float", "number"),
        ("bool", "bool"),
        ("str", "str"),
        ("list[int]", "list"),
        ("List[str]", "list"),
        ("Optional[int]", "number"),
        ("typing.Dict[str, int]", "dict"),
        ("tuple[int, int]", "tuple"),
        ("None", "none"),
        ("Union[int, str]", "other"),
        (None, "unknown"),
    ],
)
def test_code_return_families(annotation, family):
    assert return_family(annotation) == family


def test_code_tasks_without_a_signature_take_the_annotation_of_the_prompt():
    task = Task(
        id="t",
        domain="code",
        prompt='def f(x: int) -> List[int]:\n    """..."""\n',
        reference="    return [x]\n",
        entry_point="f",
        metadata={"family": "lists"},
    )
    assert task_slices(get_domain("code"), task) == ["returns:list", "family:lists"]


# ------------------------------------------------------------------------- the metrics


def _candidate(
    i: int, task: str, category: str, slices: list[str], label: str = "incorrect", origin: str = "near_miss"
) -> Candidate:
    return Candidate(id=f"c{i}", task_id=task, text="x", origin=origin, category=category, label=label, slices=slices)


SLICES = ["answer:integer", "answer:fraction", "answer:set"]


def _tasks(candidates: list[Candidate]) -> dict[str, Task]:
    return {c.task_id: Task(id=c.task_id, domain="math", prompt="?", reference="1") for c in candidates}


@st.composite
def audits(draw):
    n = draw(st.integers(1, 40))
    candidates, verdicts = [], {}
    for i in range(n):
        task = f"t{draw(st.integers(0, 7))}"
        origin = draw(st.sampled_from(["near_miss", "known_bad", "equivalent"]))
        label = "correct" if origin == "equivalent" else "incorrect"
        c = _candidate(i, task, f"cat{draw(st.integers(0, 2))}.{label}", [SLICES[int(task[1:]) % 3]], label, origin)
        candidates.append(c)
        status = draw(st.sampled_from(["ok", "ok", "ok", "error"]))
        ok = status == "ok"
        verdicts[c.id] = Verdict(
            verifier="v",
            candidate_id=c.id,
            status=status,
            score=1.0 if ok else None,
            accepted=draw(st.booleans()) if ok else None,
        )
    return candidates, verdicts


@settings(max_examples=200, deadline=None)
@given(audits())
def test_one_slice_per_task_partitions_every_category(audit):
    candidates, verdicts = audit
    categories = {c.name: c for c in category_results(candidates, verdicts, _tasks(candidates))}
    for name, cat in categories.items():
        rows = [s for s in slice_results(candidates, verdicts) if s.category == name]
        assert sum(s.n for s in rows) == cat.n and sum(s.errors for s in rows) == cat.errors
        assert sum(s.accepted for s in rows) == cat.accepted
        assert all(0.0 <= s.rate <= 1.0 and s.ci.low <= s.rate <= s.ci.high for s in rows)


@settings(max_examples=200, deadline=None)
@given(audits())
def test_exploitable_tasks_count_tasks_with_a_paid_wrong_answer(audit):
    candidates, verdicts = audit
    rows = {e.origin: e for e in exploitable_tasks(candidates, verdicts)}
    wrong_ok = [c for c in candidates if c.label == "incorrect" and verdicts[c.id].status == "ok"]
    if not wrong_ok:
        assert rows == {}
        return
    every = rows["all"]
    assert every.tasks == len({c.task_id for c in wrong_ok})
    assert every.exploitable == len({c.task_id for c in wrong_ok if verdicts[c.id].accepted})
    assert "equivalent" not in rows
    for _origin, e in rows.items():
        assert e.exploitable <= e.tasks and e.exploitable <= every.exploitable and e.tasks <= every.tasks


def _concentrated(on_integers: int, elsewhere: int, n_each: int = 12):
    """A category paid on ``on_integers`` of n_each integer candidates and ``elsewhere`` of
    n_each set candidates."""
    candidates, verdicts = [], {}
    for i in range(2 * n_each):
        integer = i < n_each
        c = _candidate(i, f"t{i}", "math.near_miss.sign_flip", ["answer:integer" if integer else "answer:set"])
        paid = (i < on_integers) if integer else (i - n_each < elsewhere)
        candidates.append(c)
        verdicts[c.id] = Verdict(verifier="v", candidate_id=c.id, status="ok", score=float(paid), accepted=paid)
    return category_results(candidates, verdicts, _tasks(candidates)), slice_results(candidates, verdicts)


def test_the_gate_fails_on_a_slice_the_pooled_rate_hides():
    categories, slices = _concentrated(on_integers=12, elsewhere=0)
    assert categories[0].rate == 0.5  # not over max-category 0.5 pooled
    result = gate(0.0, categories, 0.0, 0, GateConfig(), slices=slices)
    assert not result.passed
    assert result.reasons == [
        "category math.near_miss.sign_flip on integer answers (answer:integer): false acceptance "
        "1.00 (12/12) > max-category 0.5 (all slices: 0.50, 12/24)"
    ]
    # Without the slices, or with too little evidence on the slice, it passes.
    assert gate(0.0, categories, 0.0, 0, GateConfig()).passed
    assert gate(0.0, categories, 0.0, 0, GateConfig(min_slice_n=13), slices=slices).passed
    # A waiver of the category silences its slices too.
    waived = GateConfig(waived_categories=["math.near_miss.sign_flip"])
    assert gate(0.0, categories, 0.0, 0, waived, slices=slices).passed


# --------------------------------------------------------------------- end to end


@pytest.fixture(scope="module")
def integer_tasks(tmp_path_factory) -> Path:
    """A user's own tasks: 20 integer-answer tasks (a GSM8K-like mix)."""
    mine = tmp_path_factory.mktemp("weights") / "mine.jsonl"
    rows = [json.loads(line) for line in (ROOT / "suites" / "math" / "tasks.jsonl").read_text().splitlines()]
    integers = [r for r in rows if r["metadata"]["answer_type"] in ("integer", "negative_integer")][:20]
    mine.write_text(
        "".join(
            json.dumps({"id": f"mine-{i}", "domain": "math", "prompt": r["prompt"], "reference": r["reference"]}) + "\n"
            for i, r in enumerate(integers)
        )
    )
    return mine


@pytest.fixture(scope="module")
def sign_blind_report(integer_tasks):
    from verifier_audit.api import audit

    return audit(
        f"{ROOT}/examples/planted_holes.py:sign_blind", suite="math", probe_sample=0, weights_from=integer_tasks
    )


def test_a_sign_blind_verifier_fails_the_default_gate_on_a_slice_reason(sign_blind_report):
    from verifier_audit.api import audit

    report = sign_blind_report
    flip = next(c for c in report.categories if c.name == "math.near_miss.sign_flip")
    on_integers = next(s for s in report.slices if s.category == flip.name and s.slice == "answer:integer")
    assert flip.rate < 0.5 < on_integers.rate == 1.0 and on_integers.n >= 50
    assert any(r.startswith("category math.near_miss.sign_flip on integer answers") for r in report.gate.reasons)
    exploitable = {e.origin: e for e in report.exploitable_tasks}
    near = exploitable["near_miss"]
    assert near.tasks == 372 and 0 < near.exploitable <= flip.accepted and near.rate == near.exploitable / near.tasks
    # The strong reference verifier: no slice reason, and no task a wrong answer is paid on.
    strong = audit("verifier_audit.domains.math.verifiers:strong", suite="math", limit=60, probe_sample=0)
    assert strong.gate.passed, strong.gate.reasons
    assert {e.origin: e.exploitable for e in strong.exploitable_tasks}["all"] == 0


def test_weights_from_a_users_integer_tasks_reweights_the_debt(sign_blind_report, integer_tasks):
    report = sign_blind_report
    w = report.weighted_debt
    assert w.source == str(integer_tasks) and w.dimension == "answer"
    assert w.weights == {"answer:integer": 1.0} and w.unmatched == {}
    # Sign flips pay on every integer task: the integer slice owes more than the suite's mix.
    assert w.debt == w.per_slice["answer:integer"] > report.coverage_debt
    weighted_reason = [r for r in report.gate.reasons if r.startswith(f"coverage debt weighted to {integer_tasks}")]
    assert bool(weighted_reason) == (w.debt > 0.05)
    assert not any(r.startswith("coverage debt ") for r in report.gate.reasons if r not in weighted_reason)


def test_weights_the_audit_cannot_match_count_against_the_gate(tmp_path):
    domain = get_domain("math")
    texts = tmp_path / "texts.jsonl"
    texts.write_text(json.dumps({"id": "a", "domain": "math", "prompt": "?", "reference": r"\text{yes}"}) + "\n")
    weights = load_weights(texts, domain)
    assert weights.weights == {"answer:text": 1.0}
    from verifier_audit.report.build import weighted_debt

    categories, slices = _concentrated(on_integers=0, elsewhere=0)
    w = weighted_debt(categories, slices, weights)
    assert w.debt is None and w.unmatched == {"answer:text": 1.0}
    result = gate(0.0, categories, 0.0, 0, GateConfig(), slices=slices, weighted=w)
    assert not result.passed and "not measured" in result.reasons[0]
    with pytest.raises(InputError, match="no such file"):
        load_weights(tmp_path / "absent.jsonl", domain)


def test_the_cli_names_a_missing_weights_file_before_any_work(cli, tmp_path):
    r = cli("run", "--verifier", "examples/planted_holes.py:sign_blind", "--weights-from", str(tmp_path / "nope.jsonl"))
    assert r.returncode == 2 and "--weights-from" in r.stderr and "no such file" in r.stderr
    r = cli("run", "--verifier", "examples/planted_holes.py:sign_blind", "--min-slice-n", "0")
    assert r.returncode == 2 and "--min-slice-n" in r.stderr


def test_the_config_keys_reach_the_options(tmp_path):
    from verifier_audit.config import load_config
    from verifier_audit.plan import audit_options, make_groups

    mine = tmp_path / "mine.jsonl"
    mine.write_text(json.dumps({"id": "a", "domain": "math", "prompt": "?", "reference": "3"}) + "\n")
    path = tmp_path / "pyproject.toml"
    path.write_text(
        '[tool.verifier_audit]\nsearch = 50\nslice_field = "topic"\nweights_from = "mine.jsonl"\n\n'
        "[tool.verifier_audit.gate]\nmin_slice_n = 25\n"
    )
    config = load_config(path)
    options, _ = audit_options({}, config)
    assert options.search == 50 and options.slice_field == "topic" and options.gate.min_slice_n == 25
    group = make_groups({}, config, ["verifier_audit.domains.math.verifiers:strong"])[0]
    assert group.weights_from.resolve() == mine.resolve()
    # The command line wins over the file.
    options, _ = audit_options({"search": 0, "min_slice_n": 3}, config)
    assert options.search == 0 and options.gate.min_slice_n == 3
    path.write_text("[tool.verifier_audit]\nsearch = -1\n")
    with pytest.raises(InputError, match="search"):
        load_config(path)
