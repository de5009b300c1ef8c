"""Math generators: near-misses are wrong, equivalents are right, all of it deterministic."""

import json
import os
import random
import re
import subprocess
import sys
from collections import Counter, defaultdict

import pytest
import sympy
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verifier_audit import canary
from verifier_audit.domains.math.answer import Answer, Kind
from verifier_audit.domains.math.generators import categories, equivalent, generate_all, near_miss
from verifier_audit.domains.math.generators._common import boxed_completion, rng_for
from verifier_audit.domains.math.latex import parse_answer
from verifier_audit.domains.math.oracle import answers_equivalent, label_completion
from verifier_audit.domains.math.render import number_latex, to_latex
from verifier_audit.models import Task

MAX_MISLABEL_SHARE = 0.03


@pytest.fixture(scope="module")
def candidates(tasks):
    return generate_all(tasks, seed=0)


def _by_origin(candidates, origin):
    return [c for c in candidates if c.origin == origin]


# ----------------------------------------------------------------------------- render


def test_render_round_trips_every_suite_reference(tasks):
    for task in tasks:
        answer = parse_answer(task.reference)
        assert answers_equivalent(to_latex(answer), task.reference), task.reference


@given(st.fractions(min_value=-(10**9), max_value=10**9, max_denominator=10**6))
@settings(max_examples=200, deadline=None)
def test_render_numbers_exactly(value):
    rational = sympy.Rational(value.numerator, value.denominator)
    assert parse_answer(number_latex(rational)).value == rational


def test_render_canonical_forms():
    x, y = sympy.symbols("x y")
    assert to_latex(Answer(Kind.NUMBER, sympy.Rational(-3, 4))) == r"-\frac{3}{4}"
    assert to_latex(Answer(Kind.NUMBER, 2 * sympy.sqrt(3))) == r"2\sqrt{3}"
    assert to_latex(Answer(Kind.NUMBER, sympy.Rational(1, 2**99))) == "2^{-99}"
    assert to_latex(Answer(Kind.NUMBER, sympy.Rational(1, 4), approximate=True)) == "0.25"
    assert to_latex(Answer(Kind.NUMBER, sympy.Integer(25), percent=True)) == r"25\%"
    assert to_latex(Answer(Kind.INTERVAL, sympy.Interval.Lopen(1, 2))) == "(1, 2]"
    assert to_latex(Answer(Kind.EQUATION, sympy.Eq(y, 2 * x + 1, evaluate=False))) == "y = 2x + 1"
    assert to_latex(Answer(Kind.EXPR, sympy.factor(x**2 - 5 * x + 6))) == "(x - 2)(x - 3)"
    assert (
        to_latex(Answer(Kind.MATRIX, sympy.ImmutableMatrix([[1, 2], [3, 4]])))
        == r"\begin{pmatrix}1 & 2\\ 3 & 4\end{pmatrix}"
    )
    assert to_latex(Answer(Kind.TEXT, "monday")) == r"\text{Monday}"
    items = tuple(Answer(Kind.NUMBER, sympy.Integer(v)) for v in (-2, 3))
    assert to_latex(Answer(Kind.SET, items=items)) == r"\{-2, 3\}"


# ------------------------------------------------------------------------ near-misses


def test_near_misses_cover_many_kinds_and_are_well_formed(tasks, candidates):
    near = _by_origin(candidates, "near_miss")
    kinds = Counter(c.category.split(".")[-1] for c in near)
    assert len(kinds) >= 15, kinds
    assert set(kinds) <= set(near_miss.KINDS)
    for required in (
        "sign_flip",
        "off_by_one",
        "percent_x100",
        "rel_error_1e4",
        "tiny_magnitude",
        "pi_approx",
        "wrong_bracket",
        "set_subset",
        "swapped_tuple",
        "matrix_entry",
        "wrong_text",
    ):
        assert kinds[required] > 0, required
    per_task = Counter(c.task_id for c in near)
    assert max(per_task.values()) <= near_miss.MAX_PER_TASK
    assert len(per_task) >= 0.95 * len(tasks)
    for c in near:
        assert c.label == "incorrect" and c.category.startswith("math.near_miss.")
        assert c.severity == near_miss.KINDS[c.category.split(".")[-1]][0]
        assert "\\boxed{" in c.text and c.note


def test_near_miss_examples():
    def kinds_of(reference, **meta):
        task = Task(id="t", domain="math", prompt="", reference=reference, metadata=meta)
        return {(m.kind, m.latex) for m in near_miss.mutants(parse_answer(reference), task)}

    assert {("percent_x100", "0.5"), ("percent_x100", "5000"), ("sign_flip", "-50")} <= kinds_of("50")
    assert ("rel_error_1e4", "1000100") in kinds_of("1000000")
    assert ("tiny_magnitude", "2^{-98}") in kinds_of("2^{-99}")
    assert ("pi_approx", "3.14") in kinds_of(r"\pi")
    assert ("wrong_bracket", "[1, 2]") in kinds_of("(1, 2]")
    assert ("swapped_tuple", "(3, 1)") in kinds_of("(1, 3)")
    assert ("wrong_text", r"\text{Tuesday}") in kinds_of(r"\text{Monday}")
    assert ("wrong_lhs", "2y = 2x + 1") in kinds_of("y = 2x + 1")
    assert ("set_subset", r"\{3\}") in kinds_of(r"\{-2, 3\}")
    # an open pair in an interval task is read as an interval
    assert ("wrong_bracket", "[-7, -4)") in kinds_of("(-7, -4)", answer_type="interval")


# ------------------------------------------------------------------------ equivalents


def test_equivalents_cover_many_kinds_and_are_well_formed(tasks, candidates):
    equiv = _by_origin(candidates, "equivalent")
    kinds = Counter(c.category.split(".")[-1] for c in equiv)
    assert len(kinds) >= 15, kinds
    assert set(kinds) <= set(equivalent.KINDS)
    for required in (
        "frac_to_decimal",
        "decimal_to_frac",
        "percent_form",
        "unreduced_fraction",
        "dfrac",
        "rationalised_radical",
        "expanded_or_factored",
        "reordered_set",
        "interval_as_inequality",
        "var_prefix",
        "units_text",
        "unicode_minus",
        "thousands_separator",
        "bold_not_boxed",
        "answer_in_prose",
        "sci_expanded",
        "equation_rearranged",
        "text_case",
    ):
        assert kinds[required] > 0, required
    assert max(Counter(c.task_id for c in equiv).values()) <= equivalent.MAX_PER_TASK
    for c in equiv:
        assert c.label == "correct" and c.category.startswith("math.equivalent.")
    unboxed = [c for c in equiv if c.category.endswith(("bold_not_boxed", "answer_in_prose"))]
    assert unboxed and all("\\boxed" not in c.text for c in unboxed)


def _measure(tasks, produce, want):
    """Share of all generated forms whose oracle label differs from the intended one."""
    total, wrong, examples = 0, Counter(), defaultdict(list)
    for task in tasks:
        for kind, text in produce(task):
            total += 1
            label = label_completion(text, task.reference).label
            if label != want:
                wrong[kind] += 1
                examples[kind].append((task.reference, text[-80:]))
    return total, wrong, examples


def test_oracle_agrees_with_intended_labels(tasks, capsys):
    """Over every form the generators can write (not only the sampled ones)."""
    rng = random.Random(0)

    def near_forms(task):
        return [(m.kind, boxed_completion(m.latex, rng)) for m in near_miss.mutants(parse_answer(task.reference), task)]

    def equiv_forms(task):
        return [
            (r.kind, r.completion or boxed_completion(r.latex, rng))
            for r in equivalent.rewrites(parse_answer(task.reference), task)
        ]

    n_near, bad_near, ex_near = _measure(tasks, near_forms, "incorrect")
    n_eq, bad_eq, ex_eq = _measure(tasks, equiv_forms, "correct")
    with capsys.disabled():
        print(
            f"\nnear-misses the oracle calls equivalent: {sum(bad_near.values())}/{n_near} "
            f"= {sum(bad_near.values()) / n_near:.2%} {dict(bad_near)}"
        )
        print(
            f"equivalents the oracle calls different: {sum(bad_eq.values())}/{n_eq} "
            f"= {sum(bad_eq.values()) / n_eq:.2%} {dict(bad_eq)}"
        )
    assert sum(bad_near.values()) / n_near < MAX_MISLABEL_SHARE, dict(ex_near)
    assert sum(bad_eq.values()) / n_eq < MAX_MISLABEL_SHARE, dict(ex_eq)


def test_known_bad_candidates_are_all_incorrect_for_the_oracle(tasks, candidates):
    by_id = {t.id: t for t in tasks}
    bad = [
        c.id
        for c in _by_origin(candidates, "known_bad")
        if label_completion(c.text, by_id[c.task_id].reference).label == "correct"
    ]
    assert not bad


# ------------------------------------------------------------------------ determinism


def _fingerprint(cands):
    return [(c.id, c.text, c.label, c.note) for c in cands]


@given(seed=st.integers(min_value=0, max_value=2**32))
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_generation_is_deterministic_per_seed_and_varies_across_seeds(tasks, seed):
    subset = tasks[::9]
    first = generate_all(subset, seed)
    assert _fingerprint(first) == _fingerprint(generate_all(subset, seed))
    assert _fingerprint(first) != _fingerprint(generate_all(subset, seed + 1))


def test_rng_for_is_stable_across_processes():
    """The seed must not depend on Python's per-process hash() salt."""
    code = "from verifier_audit.domains.math.generators._common import rng_for; print(rng_for(7, 'math-0001', 'near_miss').getrandbits(64))"
    here = rng_for(7, "math-0001", "near_miss").getrandbits(64)
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
    for hashseed in ("1", "2"):
        out = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": hashseed},
        )
        assert int(out.stdout) == here


def test_ids_unique_and_categories_listed(candidates):
    ids = [c.id for c in candidates]
    assert len(ids) == len(set(ids))
    infos = {info.name: info for info in categories()}
    assert {c.category for c in candidates} <= set(infos)
    for c in candidates:
        assert infos[c.category].severity == c.severity
        assert c.id.startswith(f"{c.task_id}/{c.category}/")
    assert all(info.description for info in infos.values())
    assert {info.origin for info in infos.values()} == {"near_miss", "equivalent", "known_bad"}


def test_unparseable_reference_yields_no_per_task_candidates():
    task = Task(id="x", domain="math", prompt="?", reference=r"\frac{1}{")
    assert near_miss.generate(task, random.Random(0)) == []
    assert equivalent.generate(task, random.Random(0)) == []


# ----------------------------------------------------------- known-bad: hostile content


def _box(text):
    start = text.index(r"\boxed{") + len(r"\boxed{")
    return text[start : text.rindex("}")]


def test_canaries_fire_for_eval_sympify_and_prime_style_eval(candidates, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    by_entry = {c.note.split()[-1]: c for c in _by_origin(candidates, "known_bad")}

    content = _box(by_entry["eval_canary"].text)
    eval(content)  # noqa: S307 - the payload only creates a directory in tmp_path
    assert canary.fired(".")

    content = _box(by_entry["sympify_canary"].text)
    with pytest.raises(NameError):
        eval(content)  # plain eval stops at the unknown x, before the payload
    assert not canary.fired(".")
    try:
        sympy.sympify(content)
    except TypeError:
        pass  # x**2 + None after the payload ran
    assert canary.fired(".")

    content = _box(by_entry["prime_pi_eval_canary"].text)
    eval(content.replace(r"\pi", f"1*{3.141592653589793}"))  # verl PRIME's handle_pi
    assert canary.fired(".")
    assert os.listdir(".") == []


def test_hostile_entries_have_their_shape_and_survive_json(candidates):
    by_entry = defaultdict(list)
    for c in _by_origin(candidates, "known_bad"):
        by_entry[c.note.split()[-1]].append(c)
    assert len(by_entry["huge_output"]) == 2
    assert all(2_000_000 <= len(c.text) < 2_100_000 for c in by_entry["huge_output"])
    assert all(c.text.count(r"\boxed{") == 3000 for c in by_entry["nested_boxes_3000"])
    assert all("\x00" in c.text for c in by_entry["nul_byte"])
    surrogate = by_entry["lone_surrogate"][0]
    assert "\ud800" in surrogate.text
    dumped = json.dumps(surrogate.model_dump())
    assert "\\ud800" in dumped and json.loads(dumped)["text"] == surrogate.text
    assert all(len(re.findall(r"\d+", _box(c.text))) == 1001 for c in by_entry["list_zero_to_thousand"])
    assert sum(len(c.text) for c in candidates) < 20_000_000
