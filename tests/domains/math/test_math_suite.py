"""The built-in math suite (suites/math/tasks.jsonl) and the GSM8K / MATH loaders."""

import importlib.util
import json
import re
from collections import Counter
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from verifier_audit.domains.math.answer import Kind
from verifier_audit.domains.math.latex import parse_answer
from verifier_audit.domains.math.loaders import last_boxed, load_gsm8k, load_math
from verifier_audit.domains.math.oracle import answers_equivalent
from verifier_audit.errors import InputError
from verifier_audit.resources import data_path

ROOT = Path(__file__).resolve().parents[3]
SUITE = data_path("suites", "math", "tasks.jsonl")
SHIFTED_ONLY = {"interval", "matrix", "equation", "scientific", "text"}
ALL_TYPES = {
    "integer",
    "negative_integer",
    "fraction",
    "decimal",
    "percent",
    "radical",
    "pi_e",
    "polynomial",
    "factored",
    "set",
    "tuple",
} | SHIFTED_ONLY


def _types(tasks, split):
    return {t.metadata["answer_type"] for t in tasks if t.split == split}


def test_size_ids_and_fields(tasks):
    assert len(tasks) >= 300
    ids = [t.id for t in tasks]
    assert len(set(ids)) == len(ids)
    assert all(re.fullmatch(r"math-\d{4}", i) for i in ids)
    assert all(t.domain == "math" and t.prompt.strip() and t.reference.strip() for t in tasks)
    assert len({t.prompt for t in tasks}) == len(tasks), "every problem is different"
    assert len({t.metadata["family"] for t in tasks}) >= 20
    assert {t.metadata["answer_type"] for t in tasks} == ALL_TYPES


def test_splits_and_shifted_types_absent_from_train(tasks):
    assert Counter(t.split for t in tasks).keys() == {"train", "heldout", "shifted"}
    train, heldout, shifted = _types(tasks, "train"), _types(tasks, "heldout"), _types(tasks, "shifted")
    assert train == heldout, "train and heldout share answer types"
    assert shifted == SHIFTED_ONLY
    assert not shifted & train
    # heldout problems are different problems, not copies of train ones
    assert not {t.prompt for t in tasks if t.split == "train"} & {t.prompt for t in tasks if t.split == "heldout"}


def test_every_reference_parses_to_the_kind_its_type_promises(tasks):
    expected = {
        "set": {Kind.SET},
        "tuple": {Kind.TUPLE},
        "matrix": {Kind.MATRIX},
        "equation": {Kind.EQUATION},
        "text": {Kind.TEXT},
        "polynomial": {Kind.EXPR},
        "factored": {Kind.EXPR},
        # "(-7, -4)" reads as a pair; the answer_type says it is an interval
        "interval": {Kind.INTERVAL, Kind.TUPLE},
    }
    for task in tasks:
        answer = parse_answer(task.reference)
        kinds = expected.get(task.metadata["answer_type"], {Kind.NUMBER})
        assert answer.kind in kinds, (task.id, task.reference, answer.kind)
        assert answers_equivalent(task.reference, task.reference)


def test_special_formats_are_present(tasks):
    refs = [t.reference for t in tasks]
    assert any(re.fullmatch(r"2\^\{-\d+\}", r) for r in refs)  # 2^{-99}-type magnitudes
    assert any(re.fullmatch(r"2\^\{\d+\}", r) for r in refs)
    assert any(r"\times 10^" in r for r in refs)
    assert any(r.endswith(r"\%") for r in refs)
    assert any(r.startswith("(") and r.endswith("]") for r in refs)  # half-open interval
    assert any(r"\cup" in r for r in refs)
    assert any(r"\begin{pmatrix}" in r for r in refs)
    assert any(r"\sqrt" in r for r in refs) and any(r"\pi" in r for r in refs)
    assert any(r.startswith(r"\text{") for r in refs)


def _nums(text):
    return [int(n) for n in re.findall(r"-?\d+", text)]


def test_references_are_right_by_independent_recomputation(tasks):
    """Recompute some families from the numbers in the question, without the generator."""
    checked = Counter()
    days = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    for t in tasks:
        family, p = t.metadata["family"], t.prompt
        if family == "arithmetic":
            a, b, c = _nums(p)
            assert t.reference == str(a * b + c)
        elif family == "remainder":
            base, exp, mod = _nums(p)
            assert t.reference == str(pow(base, exp, mod))
        elif family == "linear_equation":
            a, b, c = _nums(p.replace("- ", "-"))
            assert Fraction(c - b, a) == Fraction(t.reference)
        elif family == "divisibility":
            n, d = _nums(p)
            assert t.reference == (r"\text{Yes}" if n % d == 0 else r"\text{No}")
        elif family == "weekday":
            start = next(i for i, d in enumerate(days) if d in p.lower().split("today is ")[1][:10])
            (n,) = _nums(p)
            assert t.reference.lower() == r"\text{" + days[(start + n) % 7] + "}"
        elif family == "quadratic_roots":
            poly = parse_answer(p.split("$")[1].split("=")[0]).value
            roots = sympy.solve(poly, sympy.Symbol("x"))
            gold = parse_answer(t.reference)
            assert len(gold.items) == len(roots)
            assert all(any(sympy.simplify(i.value - r) == 0 for r in roots) for i in gold.items)
        else:
            continue
        checked[family] += 1
    assert len(checked) == 6 and min(checked.values()) >= 12


def test_the_file_is_what_the_script_writes():
    spec = importlib.util.spec_from_file_location("make_math_suite", ROOT / "scripts" / "make_math_suite.py")
    script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(script)
    first = script.jsonl(script.build())
    assert first == script.jsonl(script.build()), "deterministic"
    assert first == SUITE.read_text(encoding="utf-8"), "suites/math/tasks.jsonl is out of date: rerun the script"


# ----------------------------------------------------------------------------- loaders


def _write(path, rows):
    path.write_text("\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8")
    return path


def test_load_gsm8k(tmp_path):
    path = _write(
        tmp_path / "gsm.jsonl",
        [
            {
                "question": "Natalia sold 48 clips in April and half as many in May. How many in all?",
                "answer": "May: 48/2 = <<48/2=24>>24\n48 + 24 = 72\n#### 72",
            },
            {"question": "How much?", "answer": "It costs\n#### 1,234"},
            {"question": "Temperature?", "answer": "#### -5", "id": "own-id", "split": "heldout"},
        ],
    )
    tasks = load_gsm8k(path)
    assert [t.reference for t in tasks] == ["72", "1234", "-5"]
    assert [t.id for t in tasks] == ["gsm-1", "gsm-2", "own-id"]
    assert tasks[2].split == "heldout" and tasks[0].split == "train"
    assert tasks[0].domain == "math" and tasks[0].prompt.startswith("Natalia")
    assert tasks[0].metadata["family"] == "gsm8k" and tasks[2].metadata["answer_type"] == "negative_integer"


@pytest.mark.parametrize(
    "bad, message",
    [
        ('{"question": "q", "answer": oops}', r"gsm.jsonl:3: invalid JSON"),
        ('{"question": "q", "answer": "no marker here"}', r"gsm.jsonl:3: field 'answer' has no '####"),
        ('{"question": "q", "answer": "#### seven"}', r"gsm.jsonl:3: the final answer after '####' is not a number"),
        ('{"prompt": "q", "answer": "#### 7"}', r"gsm.jsonl:3: missing field 'question'"),
    ],
)
def test_load_gsm8k_broken_line_is_named(tmp_path, bad, message):
    good = {"question": "q", "answer": "#### 1"}
    path = _write(tmp_path / "gsm.jsonl", [good, good | {"id": "b"}, bad])
    with pytest.raises(InputError, match=message) as err:
        load_gsm8k(path)
    assert str(path) in str(err.value)


def test_load_math(tmp_path):
    path = _write(
        tmp_path / "math.jsonl",
        [
            {
                "problem": "Compute $\\frac12 + \\frac14$.",
                "solution": "We get $\\boxed{\\frac{3}{4}}$.",
                "level": "Level 1",
                "type": "Prealgebra",
            },
            {
                "problem": "Solve.",
                "solution": "First \\boxed{1}, finally \\boxed{\\{1, \\frac{1}{2}\\}}.",
                "level": "Level 3",
                "type": "Algebra",
                "unique_id": "test/algebra/1.json",
            },
            {"problem": "Old style.", "solution": "so the answer is $\\boxed 5$."},
        ],
    )
    tasks = load_math(path)
    assert [t.reference for t in tasks] == ["\\frac{3}{4}", "\\{1, \\frac{1}{2}\\}", "5"]
    assert tasks[0].metadata["level"] == "Level 1" and tasks[0].metadata["type"] == "Prealgebra"
    assert tasks[1].id == "test/algebra/1.json" and tasks[0].id == "math-1"
    assert all(parse_answer(t.reference) for t in tasks)


def test_load_math_broken_line_is_named(tmp_path):
    good = {"problem": "p", "solution": "\\boxed{1}"}
    path = _write(
        tmp_path / "m.jsonl", [good | {"id": "a"}, good | {"id": "b"}, {"problem": "p", "solution": "no box at all"}]
    )
    with pytest.raises(InputError, match=r"m.jsonl:3: field 'solution' has no \\boxed"):
        load_math(path)
    path = _write(tmp_path / "u.jsonl", [good, '{"problem": "p", "solution": "\\\\boxed{unclosed"}'])
    with pytest.raises(InputError, match=r"u.jsonl:2:"):
        load_math(path)
    with pytest.raises(InputError, match="cannot read"):
        load_math(tmp_path / "missing.jsonl")


def test_last_boxed():
    assert last_boxed(r"a \boxed{1} b \boxed{\frac{1}{2}}") == r"\frac{1}{2}"
    assert last_boxed(r"\fbox{7}") == "7"
    assert last_boxed(r"\boxed{\{1, 2\}}") == r"\{1, 2\}"
    assert last_boxed("no box") is None
    assert last_boxed(r"\boxed{never closed") is None
