"""Known-bad catalogs: the built-in math catalog, its loader's errors and the template language."""

import json
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.kit import (
    CatalogEntry,
    CatalogError,
    TemplateError,
    builtin_catalog,
    check_template,
    expand_template,
    filler,
    load_catalog,
)
from verifier_audit.domains.math import verifiers as V
from verifier_audit.domains.math.generators import known_bad
from verifier_audit.domains.math.oracle import label_completion
from verifier_audit.models import Severity
from verifier_audit.resources import data_path

# Holes peer auditors found on the same graders, and the one-box NUL probes: entry id ->
# (category, the naive reference verifiers that pay it on some task of the suite).
NEW_ENTRIES = {
    "denial_in_box": ("math.trap.denial", ("substring", "last_number")),
    "negated_answer": ("math.trap.denial", ("substring", "last_number")),
    "false_equation_in_box": ("math.trap.false_equation", ("substring", "last_number")),
    "bare_question_echo": ("math.trap.question_echo", ("last_number",)),
    "trailing_thought": ("math.trap.unanchored_number", ("substring", "last_number")),
    "or_without_text": ("math.hedge.or", ("substring", "last_number")),
    "nul_byte": ("math.hostile.nul_byte", ()),
    "nul_byte_hides_box": ("math.hostile.nul_byte", ("substring",)),
}


@pytest.fixture(scope="module")
def entries():
    return builtin_catalog("math")


# --------------------------------------------------------------------- built-in catalog


def test_builtin_math_catalog(entries):
    assert len(entries) >= 25
    assert len({e.id for e in entries}) == len(entries)
    assert all(e.category.startswith("math.") and e.domain == "math" for e in entries)
    assert all(e.rationale.strip() and e.reference.strip() for e in entries)
    for e in entries:
        check_template(e.template, known=known_bad.PLACEHOLDERS)  # raises on an unknown name
    canaries = [e for e in entries if "{{canary}}" in e.template]
    assert len(canaries) >= 3
    assert all(e.severity is Severity.critical for e in canaries)
    ids = {e.id for e in entries}
    for required in (
        "two_boxes_right_then_wrong",
        "two_boxes_wrong_then_right",
        "or_in_text",
        "lor",
        "pm_one_sign_right",
        "list_zero_to_thousand",
        "retraction_after_filler",
        "unanchored_number",
        "last_number_not_reference",
        "empty_box",
        "huge_output",
        "nested_boxes_3000",
        "nul_byte",
        "lone_surrogate",
        "power_tower",
        "eval_canary",
        "sympify_canary",
        "prime_pi_eval_canary",
        "injection_ignore_instructions",
        *NEW_ENTRIES,
    ):
        assert required in ids, required
    assert next(e for e in entries if e.id == "huge_output").instances == 2
    assert data_path("adversarial_cases", "math.yaml").is_file()
    assert builtin_catalog("no-such-domain") == []


def test_every_entry_is_instantiated_on_the_suite(entries, tasks):
    made = known_bad.generate(tasks, 0, entries)
    per_entry = {e.id: 0 for e in entries}
    for c in made:
        per_entry[c.note.split()[-1]] += 1
        assert c.origin == "known_bad" and c.label == "incorrect"
    for e in entries:
        assert per_entry[e.id] == e.instances, e.id
    assert made == known_bad.generate(tasks, 0, entries)
    assert [c.task_id for c in made] != [c.task_id for c in known_bad.generate(tasks, 1, entries)]


def _everywhere(entries, ids):
    """The entries on every task they apply to (not just `instances` of them)."""
    return [e.model_copy(update={"instances": 1000}) for e in entries if e.id in ids]


def test_new_entries_are_kept_by_the_oracle_everywhere(entries, tasks):
    # Kept means the oracle confirms the "incorrect" label, as prepare() requires; every
    # task the entry applies to is tried, so no task of the suite would drop one.
    by_id = {e.id: e for e in entries}
    assert {i: by_id[i].category for i in NEW_ENTRIES} == {i: c for i, (c, _) in NEW_ENTRIES.items()}
    refs = {t.id: t.reference for t in tasks}
    made = known_bad.generate(tasks, 0, _everywhere(entries, NEW_ENTRIES))
    per_entry = {}
    for c in made:
        label = label_completion(c.text, refs[c.task_id])
        assert label.label == "incorrect", (c.id, c.text[:200], label)
        per_entry[c.note.split()[-1]] = per_entry.get(c.note.split()[-1], 0) + 1
    assert set(per_entry) == set(NEW_ENTRIES)
    assert per_entry["false_equation_in_box"] < per_entry["denial_in_box"] == len(tasks)  # closed answers only


def test_naive_verifiers_pay_the_new_entries_and_strong_rejects_them(entries, tasks):
    refs = {t.id: t.reference for t in tasks}
    made = known_bad.generate(tasks, 0, _everywhere(entries, NEW_ENTRIES))
    paid = {entry_id: set() for entry_id in NEW_ENTRIES}
    for c in made:
        entry_id = c.note.split()[-1]
        for name in ("substring", "last_number", "last_box_exact", "strong"):
            if getattr(V, name)(c.text, refs[c.task_id]):  # a bool, never an exception
                paid[entry_id].add(name)
    for entry_id, (_, naive) in NEW_ENTRIES.items():
        assert "strong" not in paid[entry_id], entry_id
        assert set(naive) <= paid[entry_id], (entry_id, paid[entry_id])


def test_false_equation_is_judged_by_its_claim_not_its_last_side(tasks):
    # The oracle reads 43 = 42 as a false statement, not as 42 (it did, and the strong
    # verifier paid the entry on 303 of 372 tasks); a true chain keeps its value.
    assert label_completion(r"The final answer is $\boxed{43 = 42}$.", "42").label == "incorrect"
    assert label_completion(r"The final answer is $\boxed{\frac{84}{2} = 42}$.", "42").label == "correct"
    assert V.last_number(r"$\boxed{43 = 42}$", "42") and not V.strong(r"$\boxed{43 = 42}$", "42")


def test_nul_entries_hold_one_box_and_one_nul(entries, tasks):
    nul = [e for e in entries if e.category == "math.hostile.nul_byte"]
    assert {e.id for e in nul} == {"nul_byte", "nul_byte_hides_box"}
    refs = {t.id: t.reference for t in tasks}
    for c in known_bad.generate(tasks, 0, nul):
        assert c.text.count("\x00") == 1 and c.text.count("\\boxed") == 1, c.text
        assert label_completion(c.text, refs[c.task_id]).reason != "hedge: several answers"
        if c.note.endswith("nul_byte_hides_box"):
            # What a C string holds: the gold alone; what the completion says: a wrong box.
            assert c.text.split("\x00")[0] == refs[c.task_id]


def test_applies_to_restricts_tasks(entries, tasks):
    kinds = {t.id: t.metadata["answer_type"] for t in tasks}
    pm = next(e for e in entries if e.id == "pm_one_sign_right")
    for c in known_bad.generate(tasks, 3, [pm]):
        assert kinds[c.task_id] not in {"set", "tuple", "matrix", "interval", "equation", "text", "polynomial"}


# ---------------------------------------------------------------------- loader errors


def _catalog(tmp_path, body, name="cat.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body), encoding="utf-8")
    return path


GOOD = """\
  - id: first
    category: math.hedge.two_boxes
    severity: high
    template: '\\boxed{{{reference}}} \\boxed{{{wrong}}}'
    rationale: two answers
    reference: Huang et al. 2025 (arXiv:2505.22203)
"""


def test_a_valid_user_catalog_loads(tmp_path):
    path = _catalog(tmp_path, "domain: math\nentries:\n" + GOOD)
    (entry,) = load_catalog(path)
    assert isinstance(entry, CatalogEntry) and entry.instances == 12 and entry.source == str(path)
    assert issubclass(CatalogError, ValueError)


@pytest.mark.parametrize(
    "second, field, words",
    [
        (
            "  - id: second\n    category: math.x.y\n    severity: severe\n    template: t\n    rationale: r\n    reference: r\n",
            "severity",
            "entry 1 (id 'second')",
        ),
        (
            "  - id: second\n    category: math.x.y\n    severity: low\n    rationale: r\n    reference: r\n",
            "template",
            "entry 1 (id 'second')",
        ),
        (
            "  - id: second\n    category: math.x.y\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n    instance: 3\n",
            "instance",
            "entry 1 (id 'second')",
        ),
        (
            "  - id: first\n    category: math.x.y\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n",
            "id",
            "duplicate id 'first'",
        ),
        (
            "  - id: second\n    category: sql.x.y\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n",
            "category",
            "must start with 'math.'",
        ),
        (
            "  - id: second\n    category: nodots\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n",
            "category",
            "dotted",
        ),
        (
            "  - id: second\n    category: math.x.y\n    severity: low\n    template: '\\boxed{{{reference}'\n    rationale: r\n    reference: r\n",
            "template",
            "never closed",
        ),
        (
            "  - id: second\n    category: math.x.y\n    severity: low\n    template: '{{repeat:many:x}}'\n    rationale: r\n    reference: r\n",
            "template",
            "repeat:N:text",
        ),
        (
            "  - id: second\n    category: math.hedge.two_boxes\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n",
            "severity",
            "same category",
        ),
        (
            "  - id: Bad Id\n    category: math.x.y\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n",
            "id",
            "entry 1 (id 'Bad Id')",
        ),
        (
            "  - id: second\n    category: math.x.y\n    severity: low\n    template: t\n    rationale: r\n    reference: r\n    instances: 0\n",
            "instances",
            "entry 1",
        ),
    ],
)
def test_errors_name_file_entry_and_field(tmp_path, second, field, words):
    path = _catalog(tmp_path, "domain: math\nentries:\n" + GOOD + second)
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    message = str(err.value)
    assert str(path) in message and f"field '{field}'" in message and words in message, message


@pytest.mark.parametrize(
    "body, words",
    [
        ("domain: math\nentries:\n  - id: a\n    category: [unclosed\n", "line"),
        ("entries:\n" + GOOD, "field 'domain'"),
        ("domain: math\nentries: []\n", "field 'entries'"),
        ("domain: math\nentries:\n" + GOOD + "extra: 1\n", "unknown top-level field"),
        ("domain: math\nentries:\n  - just a string\n", "entry 0: expected a mapping"),
    ],
)
def test_file_level_errors_name_the_file(tmp_path, body, words):
    path = _catalog(tmp_path, body)
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    assert str(path) in str(err.value) and words in str(err.value), str(err.value)
    with pytest.raises(CatalogError, match="cannot read"):
        load_catalog(tmp_path / "missing.yaml")


def test_unknown_placeholder_is_reported_when_instantiated(tmp_path, tasks):
    path = _catalog(tmp_path, "domain: math\nentries:\n" + GOOD.replace("{{{wrong}}}", "{{{gold}}}"))
    entries = load_catalog(path)
    with pytest.raises(CatalogError) as err:
        known_bad.generate(tasks[:5], 0, entries)
    message = str(err.value)
    assert str(path) in message and "'first'" in message and "template" in message and "{{gold}}" in message


# ------------------------------------------------------------------ template language


def _resolve(name, args):
    return {"reference": "42", "wrong": "43"}[name]


def test_placeholders_and_latex_braces():
    assert expand_template(r"\boxed{{{reference}}}", _resolve) == r"\boxed{42}"
    assert expand_template(r"\boxed{{{wrong}} \text{ or } {{reference}}}", _resolve) == r"\boxed{43 \text{ or } 42}"
    assert expand_template(r"{{repeat:3:\boxed{}}x{{repeat:3:{{rb}}}}", _resolve) == r"\boxed{\boxed{\boxed{x}}}"
    assert expand_template("{{repeat:2:{{reference}},}}", _resolve) == "42,42,"
    assert expand_template("{{seq:-2:2}}", _resolve) == "-2, -1, 0, 1, 2"
    assert expand_template(r"{{seq:1:3:\boxed{#} }}", _resolve) == r"\boxed{1} \boxed{2} \boxed{3} "
    assert expand_template("a{{char:0}}b{{char:d800}}", _resolve) == "a\x00b\ud800"
    assert expand_template("{{lb}}{{rb}}", _resolve) == "{}"
    assert len(expand_template("{{filler:20000}}", _resolve)) == 20000
    assert not any(ch.isdigit() for ch in filler(5000)), "filler holds no numbers a grader could pick up"
    assert json.loads(json.dumps(expand_template("{{char:d800}}", _resolve))) == "\ud800"


def test_template_errors():
    with pytest.raises(TemplateError, match="unknown placeholder"):
        expand_template("{{nope}}", _resolve)
    with pytest.raises(TemplateError, match="more than"):
        expand_template("{{repeat:100:xxxxxxxxxx}}", _resolve, limit=500)
    with pytest.raises(TemplateError, match="never closed"):
        check_template("{{repeat:3:x")
    with pytest.raises(TemplateError, match="HEX"):
        check_template("{{char:zz}}")
    with pytest.raises(TemplateError, match="unknown placeholder"):
        check_template("{{reference}} {{nope}}", known={"reference"})
    assert check_template("{{repeat:2:{{wrong}}}}") == {"repeat", "wrong"}


@given(st.text(alphabet=st.characters(blacklist_characters="{"), max_size=200))
@settings(max_examples=200, deadline=None)
def test_text_without_placeholders_is_kept_verbatim(text):
    assert expand_template(text, _resolve) == text


@given(st.text(alphabet="{}ab\\", max_size=40))
@settings(max_examples=300, deadline=None)
def test_braces_never_crash_the_scanner(text):
    try:
        check_template(text)
    except TemplateError:
        pass
