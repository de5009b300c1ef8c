"""A pytest session's fixed work done once in a source zygote, and what the runs check it by.

A forked ``pytest.main`` on a small repository took ~40 ms, and a third of it was the same in
every run: building the plugin manager (the built-in plugins registered, their options
added), the fixture manager scanning every attribute of every built-in plugin for fixtures
(pytest 9 unwraps each one to warn about fixtures hidden behind decorators), and rewriting
the assertions of test files that are the same for every patch of a task. None depends on
the patch. So a zygote that warmed ``pytest`` (``prepare``, once, before it forks any run)
keeps:

- **a configured plugin manager**: what ``_pytest.config.get_config`` returns for the runs'
  ``-p`` arguments (``PREPARSE``), built as pytest builds it, with nothing parsed yet; a run
  whose ``-p`` arguments are those gets it in place of a fresh one (``use_in_run``), with
  its own invocation (arguments, plugins, the run's working directory) set as ``get_config``
  sets them. Everything that reads the repository -- the rootdir, the ini file and its
  ``addopts`` (a ``-p no:NAME`` there blocks that plugin as it would), the conftests, the
  environment's plugins (never autoloaded here) -- still happens in the run, in
  ``pytest_cmdline_parse``. Only the run's first ``get_config`` gets it: a test that runs
  pytest itself gets a fresh one.
- **the fixture scans of pytest's own plugins** (``learn_plain``, ``scan_plan``): objects of
  pytest's modules known to wrap no fixture are not unwrapped again; a plugin whose every
  attribute is such an object is not scanned, a module with fixtures is scanned through a
  stand-in holding only its fixtures; any other holder (a conftest, a test module, a plugin
  of the repository's) is scanned as pytest scans it.
- **the test modules' rewritten code** (``precompile``): the files a caller vouches for (the
  task's tests, never a candidate's), rewritten and compiled once per distinct source; a
  run whose pytest rewrites a file with the same bytes gets that code under its own name.
- **pytest's outcome code as it was** (``SNAPSHOT``, ``replaced``): the functions and classes
  of the modules that decide a test's outcome and carry its report, and of this harness; a
  run compares them after its session, and a replaced one voids its outcomes
  (``server._pytest_reply``; docs/repo-domain.md, "Limits").

Each speed step is pytest's own behaviour with a step done earlier, checked against pytest
doing it (tests/domains/code/test_pytest_warm.py); where this pytest lacks an internal that
a step needs, the step is left out and runs are as cold as before (``ready`` says which
steps are on). Imports nothing of the package: the fresh zygote loads it beside ``server``.
"""

from __future__ import annotations

import importlib.util
import operator
import pathlib
import sys
import types
from typing import Any

# The ``-p`` arguments every run of ``server._pytest_main`` starts with.
PREPARSE = ("-p", "no:cacheprovider")
# The program name ``pytest.main`` gives its configuration.
PROG = "pytest.main()"

# What ``prepare`` built: the configured plugin manager (None: not built), and the objects
# of pytest's modules known to wrap no fixture, by id (the object itself kept, so an id is
# never reused by another).
_prebuilt: dict[str, Any] = {"config": None}
_plain: dict[int, object] = {}
# Assertion-rewritten test modules by their source, compiled under a stand-in name that each
# run replaces with its file's path.
_compiled: dict[bytes, types.CodeType | None] = {}
_rewrite = {"on": False}
# Bounds: the sources kept add up to at most COMPILED_BYTES (the oldest go first), each at
# most SOURCE_CAP; the code of 8 MiB of tests is tens of MiB in the zygote.
COMPILED_BYTES = 8 << 20
SOURCE_CAP = 1 << 20
PLACEHOLDER = "<va-precompiled>"


def ready() -> dict[str, bool]:
    """Which of the steps this zygote does early."""
    return {"config": _prebuilt["config"] is not None, "fixture_scan": bool(_plain), "rewrite": _rewrite["on"]}


def plugin_args(args: list[str] | tuple[str, ...]) -> tuple[str, ...]:
    """The ``-p NAME`` / ``-pNAME`` arguments of ``args``, in order: all that
    ``get_config`` reads of a run's arguments."""
    found: list[str] = []
    items = iter(args)
    for arg in items:
        if not isinstance(arg, str):
            continue
        if arg == "-p":
            value = next(items, None)
            if value is None:
                break  # a last ``-p`` names nothing
            found.append(str(value).strip())
        elif arg.startswith("-p"):
            found.append(arg[2:].strip())
    return tuple(found)


def prepare() -> None:
    """In the zygote, after its environment is set and before any fork."""
    try:
        import _pytest.assertion.rewrite
        import _pytest.config
        import _pytest.fixtures
    except ImportError:
        return
    try:
        _prebuilt["config"] = _pytest.config.get_config(list(PREPARSE), prog=PROG)
    except Exception:  # noqa: BLE001 - an unexpected pytest: runs build their own
        _prebuilt["config"] = None
    _prepare_fixture_scan(_pytest.fixtures)
    _prepare_rewrite(_pytest.assertion.rewrite)
    _snapshot_code()  # last: after this module's own patches of pytest


def _prepare_fixture_scan(fixtures: Any) -> None:
    manager: Any = getattr(fixtures, "FixtureManager", None)
    find = getattr(manager, "_find_wrapped_fixture_def", None)
    check = getattr(manager, "_check_for_wrapped_fixture", None)
    scan = getattr(manager, "parsefactories", None)
    fixture_type = getattr(fixtures, "FixtureFunctionDefinition", None)
    if find is None or check is None or scan is None or fixture_type is None:
        return  # a pytest without the check: nothing to do early
    learn_plain(find)

    def _check_for_wrapped_fixture(self: Any, name: str, obj: object) -> None:
        if _plain.get(id(obj)) is obj:
            return
        check(self, name, obj)

    def parsefactories(self: Any, *args: Any, **kwargs: Any) -> None:
        holder = kwargs.get("holder", REAL)
        plan = REAL if args or holder is REAL else scan_plan(holder, find, fixture_type)
        if plan is SKIP:
            return
        if plan is not REAL:
            kwargs["holder"] = plan
        scan(self, *args, **kwargs)

    manager._check_for_wrapped_fixture = _check_for_wrapped_fixture
    manager.parsefactories = parsefactories


# What the fixture manager's scan of a plugin needs (``scan_plan``): the scan itself, or nothing.
REAL, SKIP = object(), object()
# Class attributes whose lookup on the class gives back the object itself, or one that is no
# fixture (a function, a property): any other descriptor may give anything.
_PLAIN_DESCRIPTORS = (types.FunctionType, property)


def _clean(value: object, find: Any, on_class: bool) -> bool:
    """Whether the scan finds nothing in ``value`` and warns of nothing: one of pytest's own
    objects known to wrap no fixture, or another that wraps none (checked now)."""
    if _plain.get(id(value)) is value:
        return True
    if on_class and hasattr(type(value), "__get__") and type(value) not in _PLAIN_DESCRIPTORS:
        return False
    try:
        return find(None, value) is None
    except Exception:  # noqa: BLE001 - the real scan decides
        return False


def learn_plain(find: Any) -> None:
    """Note every object of pytest's loaded modules (and of their classes, along the MRO)
    that ``find`` (the fixture manager's ``_find_wrapped_fixture_def``) says wraps no
    fixture: the answer depends on the object alone (``self`` is unused)."""
    seen: list[object] = []
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "pytest" or name == "_pytest" or name.startswith("_pytest.")):
            continue
        for value in list(vars(module).values()):
            seen.append(value)
            if isinstance(value, type) and str(getattr(value, "__module__", "")).startswith("_pytest"):
                for base in value.__mro__:
                    seen.extend(vars(base).values())
    for value in seen:
        try:
            if find(None, value) is None:
                _plain[id(value)] = value
        except Exception:  # noqa: BLE001 - left to the real check
            continue


def scan_plan(holder: object, find: Any, fixture_type: type) -> object:
    """What scanning the plugin ``holder`` for fixtures needs, done as pytest does it:
    ``SKIP`` where every object the scan looks at is clean (``_clean``); for a module whose
    other objects are clean, a stand-in module with only its fixtures (the scan registers
    them in the same order: ``dir`` is sorted, and a module's attributes are its
    ``__dict__``); else ``REAL``. The scan reads a module's ``__dict__`` through ``dir``, and
    a class's or an instance's class attributes along its MRO (never an instance's own)."""
    if isinstance(holder, types.ModuleType):
        namespace = vars(holder)
        if "__dir__" in namespace:
            return REAL
        found = {name: value for name, value in namespace.items() if type(value) is fixture_type}
        if not all(type(value) is fixture_type or _clean(value, find, False) for value in namespace.values()):
            return REAL
        if not found:
            return SKIP
        stand_in = types.ModuleType(holder.__name__)
        vars(stand_in).update(found)
        return stand_in
    owner = holder if isinstance(holder, type) else type(holder)
    if type(owner) is not type:
        return REAL  # a metaclass of its own: its attributes are looked up too
    for base in owner.__mro__:
        if not all(_clean(value, find, True) for value in vars(base).values()):
            return REAL
    return SKIP


def precompile(files: dict[str, str], paths: Any) -> None:
    """In the zygote, before a run's fork: the assertion-rewritten code of each of ``paths``
    (test files the caller vouches for: the task's own, never a candidate's) that a run may
    import, compiled once per distinct source and kept (``COMPILED_BYTES`` of sources at most)."""
    if not _rewrite["on"]:
        return
    for path in paths:
        text = files.get(path)
        if text is None or not path.endswith(".py"):
            continue
        source = text.encode("utf-8")
        if source in _compiled or len(source) > SOURCE_CAP:
            continue
        held = sum(map(len, _compiled))
        while _compiled and held + len(source) > COMPILED_BYTES:
            held -= len(next(iter(_compiled)))
            del _compiled[next(iter(_compiled))]
        _compiled[source] = _rewritten(source)


def _rewritten(source: bytes) -> types.CodeType | None:
    """``_rewrite_test``'s work on ``source``, under a stand-in file name; None where it
    warns (a warning names the file and belongs to the run) or fails."""
    import ast
    import warnings

    from _pytest.assertion.rewrite import rewrite_asserts

    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            tree = ast.parse(source, filename=PLACEHOLDER)
            rewrite_asserts(tree, source, PLACEHOLDER, None)
            code = compile(tree, PLACEHOLDER, "exec", dont_inherit=True)
    except Exception:  # noqa: BLE001 - the run rewrites it and reports what it meets
        return None
    return None if caught else code


def _renamed(code: types.CodeType, filename: str) -> types.CodeType:
    consts = tuple(_renamed(c, filename) if isinstance(c, types.CodeType) else c for c in code.co_consts)
    return code.replace(co_filename=filename, co_consts=consts)


def _prepare_rewrite(rewrite: Any) -> None:
    original = getattr(rewrite, "_rewrite_test", None)
    if original is None or not hasattr(rewrite, "rewrite_asserts"):
        return

    def _rewrite_test(fn: Any, config: Any) -> tuple[bytes, types.CodeType]:
        source = fn.read_bytes()
        code = _compiled.get(source)
        if code is None or (config is not None and config.getini("enable_assertion_pass_hook")):
            return original(fn, config)
        return importlib.util.source_hash(source), _renamed(code, str(fn))

    rewrite._rewrite_test = _rewrite_test
    _rewrite["on"] = True


# ------------------------------------------------------------ pytest's code, as it was

# The modules whose code decides a test's outcome and carries its report (pytest's runner,
# reports, collection, skipping, fixtures; pluggy's hook calls) and the harness's own: a
# run's code that replaces one of their functions or classes (a package patching pytest's
# TestReport at import, or a hook of the harness) voids the run. Compared after the session,
# when pytest has undone its own patches (legacypath's, for one), and again after the atexit
# handlers; honest runs of every repository in the tests change none of them.
OUTCOME_MODULES = (
    "_pytest.runner",
    "_pytest.reports",
    "_pytest.python",
    "_pytest.skipping",
    "_pytest.unittest",
    "_pytest.outcomes",
    "_pytest.main",
    "_pytest.nodes",
    "_pytest.fixtures",
    "pluggy._callers",
    "pluggy._hooks",
    "pluggy._manager",
    "pluggy._result",
)
HARNESS_MODULES = (".sandbox.server", ".sandbox.pytest_warm", ".sandbox.codec")
# Never compared: what ``use_in_run`` itself swaps in a run.
_SWAPPED = {("_pytest.config", "get_config")}
_CODE = (types.FunctionType, type, types.BuiltinFunctionType, staticmethod, classmethod, property)
Snapshot = tuple[tuple[Any, tuple[str, ...], tuple[object, ...]], ...]
SNAPSHOT: dict[str, Snapshot] = {"code": ()}


def snapshot_of(owners: list[Any]) -> Snapshot:
    """The functions, classes and descriptors of ``owners`` (modules or classes) -- and of
    the classes a module defines -- as they are now: compared later by ``replaced``."""
    out = []
    for owner in owners:
        targets = [owner]
        if isinstance(owner, types.ModuleType):
            targets += [
                v
                for v in vars(owner).values()
                if isinstance(v, type) and getattr(v, "__module__", None) == owner.__name__
            ]
        for target in targets:
            where = getattr(target, "__name__", "")
            items = [(k, v) for k, v in vars(target).items() if isinstance(v, _CODE) and (where, k) not in _SWAPPED]
            out.append((target, tuple(k for k, _ in items), tuple(v for _, v in items)))
    return tuple(out)


def replaced(snapshot: Snapshot) -> list[str]:
    """The names of ``snapshot`` whose object is no longer the one recorded (``Owner.name``)."""
    found = []
    for owner, names, values in snapshot:
        namespace = vars(owner)
        if not all(map(operator.is_, map(namespace.get, names), values)):
            label = getattr(owner, "__qualname__", None) or getattr(owner, "__name__", "?")
            found += [f"{label}.{n}" for n, v in zip(names, values, strict=True) if namespace.get(n) is not v]
    return found


def _snapshot_code() -> None:
    modules = [sys.modules[name] for name in OUTCOME_MODULES if sys.modules.get(name) is not None]
    modules += [m for n, m in list(sys.modules.items()) if m is not None and n.endswith(HARNESS_MODULES)]
    SNAPSHOT["code"] = snapshot_of(modules)


def use_in_run(args: list[str], files: dict[str, str], trusted: Any = ()) -> bool:
    """In a run, before ``pytest.main(args)`` in a checkout of ``files``: the compiled test
    modules kept are only those of its ``trusted`` files, the only ones ``precompile`` took
    (a run sees no other task's tests; only those files are encoded, not the whole
    repository), and its first ``get_config`` returns the zygote's configured plugin manager
    when ``args`` has the same ``-p`` arguments. Returns whether it will."""
    if _compiled:
        own = {files[path].encode("utf-8") for path in trusted if path in files}
        for source in [source for source in _compiled if source not in own]:
            del _compiled[source]
    config = _prebuilt["config"]
    if config is None or plugin_args(args) != plugin_args(PREPARSE):
        return False
    import _pytest.config

    fresh = _pytest.config.get_config

    def get_config(args: Any = None, plugins: Any = None, *, prog: str | None = None) -> Any:
        _pytest.config.get_config = fresh  # once: a test that runs pytest gets a fresh one
        if prog != PROG or plugin_args(list(args or ())) != plugin_args(PREPARSE):
            return fresh(args, plugins, prog=prog)
        config.invocation_params = _pytest.config.Config.InvocationParams(
            args=args or (), plugins=plugins, dir=pathlib.Path.cwd()
        )
        return config

    _pytest.config.get_config = get_config
    return True
