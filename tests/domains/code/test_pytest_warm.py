"""The warm pytest zygote's early steps (``sandbox/pytest_warm.py``, issue 36's speed): each
is pytest's own behaviour done sooner, so each is checked against pytest doing it itself --
the ``-p`` arguments ``get_config`` reads, the fixtures a plugin's scan registers and the
warnings it gives, the code of a rewritten test module. Nothing here patches the running
pytest: the checks call the pieces on objects of their own."""

from __future__ import annotations

import functools
import pathlib
import types
import warnings

import pytest
from _pytest.assertion.rewrite import _rewrite_test
from _pytest.config import PytestPluginManager, get_config
from _pytest.fixtures import FixtureFunctionDefinition, FixtureManager
from hypothesis import given, settings
from hypothesis import strategies as st

from verifier_audit.domains.code.sandbox import pytest_warm

FIND = FixtureManager._find_wrapped_fixture_def
pytest_warm.learn_plain(FIND)


# ----------------------------------------------------------------------- the -p arguments

TOKENS = st.sampled_from(["-p", "no:x", "no:cacheprovider", "-pno:y", "-p no:z", "tests/t.py", "-q", "x", " -p", "-px"])


@given(st.lists(TOKENS, max_size=8))
def test_the_plugin_arguments_are_those_pytest_reads(args):
    """``plugin_args`` against pytest's own ``consider_preparse``: the same pargs, in order."""
    read: list[str] = []
    manager = PytestPluginManager()
    manager.consider_pluginarg = read.append  # type: ignore[method-assign]
    manager.consider_preparse(args, exclude_only=False)
    assert list(pytest_warm.plugin_args(args)) == read


# ------------------------------------------------------------------ a plugin's fixture scan


def scanned(holder: object) -> tuple[list[tuple], list[str]]:
    """What pytest's scan of ``holder`` registers (in order) and the warnings it gives."""
    calls: list[tuple] = []
    manager = object.__new__(FixtureManager)
    manager._register_fixture = lambda **kw: calls.append(  # type: ignore[method-assign]
        (kw["name"], kw["func"], kw["scope"], kw["params"], kw["autouse"])
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FixtureManager.parsefactories(manager, holder=holder, node=None)  # type: ignore[call-overload]
    return calls, [str(w.message) for w in caught]


def planned(holder: object) -> tuple[list[tuple], list[str]]:
    plan = pytest_warm.scan_plan(holder, FIND, FixtureFunctionDefinition)
    if plan is pytest_warm.SKIP:
        return [], []
    return scanned(holder if plan is pytest_warm.REAL else plan)


def test_each_builtin_plugin_scans_as_pytest_scans_it():
    """Every plugin of a configured pytest (modules, and instances of pytest's classes)."""
    config = get_config(["-p", "no:cacheprovider"])
    plugins = [plugin for plugin in config.pluginmanager.get_plugins() if plugin is not None]
    plans = [pytest_warm.scan_plan(plugin, FIND, FixtureFunctionDefinition) for plugin in plugins]
    assert any(plan is pytest_warm.SKIP for plan in plans)  # the shortcut is taken
    assert any(isinstance(plan, types.ModuleType) for plan in plans)  # a module with fixtures (capture, tmpdir)
    for plugin in plugins:
        assert planned(plugin) == scanned(plugin), plugin
    assert any(scanned(plugin)[0] for plugin in plugins)


def _fixture(name: str) -> object:
    def body():
        return name

    body.__name__ = name
    return pytest.fixture(body)


def _wrapped_fixture(name: str) -> object:
    inner = _fixture(name)

    @functools.wraps(inner)  # type: ignore[arg-type]
    def outer(*args, **kwargs):
        return inner

    return outer


class _Gives:
    """A descriptor whose class lookup gives a fixture (the scan finds it; no shortcut may)."""

    def __init__(self, fixture: object):
        self.fixture = fixture

    def __get__(self, instance, owner):
        return self.fixture


PARTS = st.sampled_from(["fixture", "wrapped", "helper", "number", "plain", "dir", "gives", "static"])


def _holder(kind: str, parts: list[str]) -> object:
    namespace: dict[str, object] = {}
    for i, part in enumerate(parts):
        name = f"p{i}"
        if part == "fixture":
            namespace[name] = _fixture(name)
        elif part == "wrapped":
            namespace[name] = _wrapped_fixture(name)
        elif part == "helper":
            namespace[name] = lambda: None
        elif part == "number":
            namespace[name] = i
        elif part == "plain":
            namespace[name] = pytest_warm  # one of ours: not pytest's, checked on the spot
        elif part == "dir":
            namespace["__dir__"] = lambda: sorted(namespace)
        elif part == "gives":
            namespace[name] = _Gives(_fixture(name))
        elif part == "static":
            namespace[name] = staticmethod(_fixture(name))  # type: ignore[arg-type]
    if kind == "module":
        module = types.ModuleType("made")
        vars(module).update(namespace)
        return module
    cls = type("Made", (), {k: v for k, v in namespace.items() if k != "__dir__"})
    return cls if kind == "class" else cls()


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["module", "class", "instance"]), st.lists(PARTS, max_size=6))
def test_any_holder_scans_as_pytest_scans_it(kind, parts):
    """Modules, classes and instances made of fixtures, fixtures hidden behind decorators
    (pytest warns), descriptors that give a fixture, a module ``__dir__``: the plan's scan
    registers the same fixtures in the same order and gives the same warnings."""
    holder = _holder(kind, parts)
    assert planned(holder) == scanned(holder)


# --------------------------------------------------------------- the rewritten test modules

SOURCES = [
    "def test_a():\n    x = [1, 2]\n    assert x == [1, 2], 'message'\n",
    "import pytest\n\nclass TestB:\n    def test_b(self):\n        assert {'a': 1} != {'a': 2}\n\n"
    "@pytest.mark.parametrize('n', [1, 2])\ndef test_c(n):\n    def inner():\n        return n\n    assert inner() > 0\n",
    "def test_d():\n    assert (1, 'always true')\n",  # pytest warns while rewriting: never kept
    "def test_e(:\n",  # a syntax error: the run reports it
    "x = 'is' is 'is'\n",  # a SyntaxWarning while compiling: never kept
]


@pytest.mark.parametrize("source", SOURCES)
def test_a_precompiled_module_is_the_code_pytest_rewrites(source, tmp_path):
    path = tmp_path / "tests" / "test_m.py"
    path.parent.mkdir()
    path.write_text(source, encoding="utf-8")
    kept = pytest_warm._rewritten(source.encode())
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            _, expected = _rewrite_test(pathlib.Path(path), None)  # type: ignore[arg-type]
        except SyntaxError:
            expected = None
    if caught or expected is None:
        assert kept is None
        return
    assert kept is not None
    got = pytest_warm._renamed(kept, str(path))
    _same_code(got, expected)


def _same_code(got: types.CodeType, expected: types.CodeType) -> None:
    assert got == expected and got.co_filename == expected.co_filename  # == leaves the file name out
    inner_got = [c for c in got.co_consts if isinstance(c, types.CodeType)]
    inner_expected = [c for c in expected.co_consts if isinstance(c, types.CodeType)]
    assert len(inner_got) == len(inner_expected)
    for a, b in zip(inner_got, inner_expected, strict=True):
        _same_code(a, b)


def test_a_run_keeps_only_its_own_compiled_modules(monkeypatch):
    """A run sees no other task's tests: ``use_in_run`` keeps only its trusted files' sources."""
    monkeypatch.setattr(pytest_warm, "_compiled", {b"mine = 1\n": None, b"theirs = 2\n": None})
    monkeypatch.setitem(pytest_warm._prebuilt, "config", None)
    files = {"tests/test_x.py": "mine = 1\n", "pkg/theirs.py": "theirs = 2\n"}  # a candidate's file: not vouched for
    assert pytest_warm.use_in_run(["-q"], files, ("tests/test_x.py",)) is False
    assert list(pytest_warm._compiled) == [b"mine = 1\n"]


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=40), max_size=12))
def test_the_compiled_modules_stay_within_their_bound(sizes):
    """However many test files come, the sources kept add up to at most COMPILED_BYTES, the
    newest kept, none over SOURCE_CAP."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pytest_warm, "_compiled", {})
        mp.setattr(pytest_warm, "COMPILED_BYTES", 120)
        mp.setattr(pytest_warm, "SOURCE_CAP", 100)
        mp.setitem(pytest_warm._rewrite, "on", True)
        for i, size in enumerate(sizes):
            text = f"x{i} = '{'a' * size}'\n"
            pytest_warm.precompile({"tests/test_a.py": text}, ["tests/test_a.py"])
            assert sum(map(len, pytest_warm._compiled)) <= 120
            assert text.encode() in pytest_warm._compiled
            assert pytest_warm._compiled[text.encode()] is not None
