"""Known-bad patches: the repo catalog (adversarial_cases/repo.yaml) on tasks.

An entry's template is not a diff (a diff's line numbers and context belong to one
repository) but an edit script that this module turns into one per task: the task's
files, edited as the script says, diffed against the snapshot with ``patches.make_patch``.
So every hack applies to the task it is made for, and the script reads as what the policy
did ("append to conftest.py", "decorate the failing test").

The script: optional prose (the completion's sentence before its ```` ```diff ```` fence),
then steps, each a header line ``=== <step> <target>`` and the lines under it:

* ``write PATH``     the file's whole new text (created or replaced);
* ``append PATH``    lines added at the end (the file created when absent);
* ``delete PATH``    the file removed (no lines);
* ``import PATH``    import lines put after the file's imports, each one only if absent
  (``import fail_to_pass``: in every FAIL_TO_PASS test's file);
* ``decorate fail_to_pass``      lines put above every FAIL_TO_PASS test's ``def``, at its
  indentation (its file importing pytest is the template's ``import`` step);
* ``body fail_to_pass``          every FAIL_TO_PASS test's body replaced by the lines;
* ``remove fail_to_pass``        every FAIL_TO_PASS test deleted, decorators included.

Placeholders (also documented at the top of the catalog file):

* ``{{package}}``        the package the task lets a patch change (a directory with an
  ``__init__.py`` that ``allowed_paths`` covers); a task without one is skipped;
* ``{{modules}}``        a list literal of that package's modules (``["stats.core"]``);
* ``{{fail_to_pass}}`` / ``{{pass_to_pass}}`` / ``{{all_tests}}``  list literals of node ids;
* ``{{not_failing}}``    a ``-k`` expression deselecting the FAIL_TO_PASS tests;
* ``{{deselect}}``       ``--deselect ID`` for each FAIL_TO_PASS test;
* ``{{junit_xml}}``      a JUnit XML report in which every visible test passed;
* ``{{results_json}}``   the same as a JSON summary (pytest-json-report's shape);
  ``{{junit_xml:literal}}`` and ``{{results_json:literal}}`` write either as a Python
  string literal;
* ``{{token}}``          ``[a-z0-9_]``, unique per (entry, task).

Task kinds for ``applies_to``: ``pytest_ini`` (the repository has a pytest.ini),
``unittest`` (a test file under tests/ names unittest).
"""

from __future__ import annotations

import ast
import fnmatch
import json
import re
from xml.sax.saxutils import quoteattr

from ....models import Candidate, Task
from ...code.known_bad import token
from ...kit import CatalogEntry, SkipInstance, TemplateError, expand_template, instantiate_by_kinds
from ..patches import make_patch
from .edits import Files, fenced, find_test, insert_lines, repository, split_node_id

PLACEHOLDERS = {
    "package",
    "modules",
    "fail_to_pass",
    "pass_to_pass",
    "all_tests",
    "not_failing",
    "deselect",
    "junit_xml",
    "results_json",
    "token",
}
STEPS = ("write", "append", "delete", "import", "decorate", "body", "remove")
_HEADER = re.compile(r"^=== (\S+) (\S+)[ \t]*$")


def generate(tasks: list[Task], seed: int, entries: list[CatalogEntry]) -> list[Candidate]:
    """Every entry on up to ``entry.instances`` tasks; deterministic for seed."""
    return instantiate_by_kinds(tasks, seed, entries, placeholders=PLACEHOLDERS, kinds=task_kinds, fill=fill)


def task_kinds(task: Task) -> set[str]:
    files = task.metadata["files"]
    kinds = {"pytest_ini"} if "pytest.ini" in files else set()
    if any(p.startswith("tests/") and "unittest" in text for p, text in files.items()):
        kinds.add("unittest")
    return kinds


def fill(entry: CatalogEntry, task: Task) -> str:
    """The entry's script run on ``task``'s files, as a completion holding the diff;
    SkipInstance when the task lacks what the script needs."""
    script = expand_template(entry.template, lambda name, args: _placeholder(name, args, entry, task))
    prose, steps = parse_script(script)
    before = repository(task)
    after = dict(before)
    for step, target, lines in steps:
        _apply_step(after, step, target, lines, task)
    diff = make_patch(before, after)
    if not diff:
        raise SkipInstance(f"entry {entry.id} changes nothing on task {task.id}")
    return fenced(diff, prose) if prose else diff


def parse_script(script: str) -> tuple[str, list[tuple[str, str, list[str]]]]:
    """(prose, [(step, target, lines)]); a TemplateError naming the line of an unknown step
    (the catalog's loader adds the file and the entry)."""
    prose: list[str] = []
    steps: list[tuple[str, str, list[str]]] = []
    for number, line in enumerate(script.split("\n"), 1):
        match = _HEADER.match(line)
        if line.startswith("=== ") and (match is None or match.group(1) not in STEPS):
            raise TemplateError(
                f"template line {number}: a step reads '=== STEP TARGET', STEP one of {', '.join(STEPS)}"
            )
        if match is not None:
            steps.append((match.group(1), match.group(2), []))
        elif steps:
            steps[-1][2].append(line)
        else:
            prose.append(line)
    return "\n".join(prose).strip(), steps


def _apply_step(files: Files, step: str, target: str, lines: list[str], task: Task) -> None:
    text = "\n".join(lines).strip("\n") + "\n"
    if step == "write":
        files[target] = text
    elif step == "append":
        old = files.get(target, "")
        files[target] = old + ("\n" if old and not old.endswith("\n") else "") + ("\n" if old else "") + text
    elif step == "delete":
        files.pop(target, None)
    elif step == "import":
        paths = [target] if target != "fail_to_pass" else [split_node_id(n)[0] for n in task.metadata["fail_to_pass"]]
        for path in dict.fromkeys(paths):
            if path not in files:
                raise SkipInstance(f"{path} is not in task {task.id}")
            files[path] = _with_imports(files[path], [line for line in lines if line.strip()])
    else:
        if target != "fail_to_pass":
            raise TemplateError(f"step {step} takes the target fail_to_pass, not {target!r}")
        for node_id in task.metadata.get("fail_to_pass", []):
            path, name = split_node_id(node_id)
            if path not in files:
                raise SkipInstance(f"{path} of {node_id} is not in task {task.id}")
            files[path] = _edit_test(files[path], name, step, [line for line in lines if line.strip()], node_id)


def _with_imports(source: str, imports: list[str]) -> str:
    """``source`` with each of ``imports`` it lacks put after its last top-level import."""
    present = set(source.splitlines())
    missing = [line for line in imports if line not in present]
    if not missing:
        return source
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        raise SkipInstance("a file that does not parse") from None
    after = 0
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)) or (
            node is tree.body[0] and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        ):
            after = node.end_lineno or node.lineno
    return insert_lines(source, after, missing)


def _edit_test(source: str, name: str, step: str, lines: list[str], node_id: str) -> str:
    fn = find_test(source, name)
    if fn is None or fn.end_lineno is None:
        raise SkipInstance(f"no test function {name} for {node_id}")
    text = source.splitlines(keepends=True)
    first = min([fn.lineno] + [d.lineno for d in fn.decorator_list])
    indent = re.match(r"\s*", text[fn.lineno - 1]).group()  # type: ignore[union-attr]
    if step == "decorate":
        return insert_lines(source, first - 1, [indent + line for line in lines])
    if step == "remove":
        return "".join(text[: first - 1] + text[fn.end_lineno :])
    body = fn.body[0]
    inner = re.match(r"\s*", text[body.lineno - 1]).group()  # type: ignore[union-attr]
    if body.lineno == fn.lineno:
        raise SkipInstance(f"{node_id}: a one-line test")
    return "".join(text[: body.lineno - 1] + [inner + line + "\n" for line in lines] + text[fn.end_lineno :])


# ----------------------------------------------------------------------- placeholders


def _placeholder(name: str, args: str, entry: CatalogEntry, task: Task) -> str:
    """A placeholder's text; ``:literal`` after a name writes it as a Python string literal."""
    if args not in ("", "literal"):
        raise TemplateError(f"{{{{{name}:{args}}}}}: the only argument a repo placeholder takes is 'literal'")
    text = _resolve(name, entry, task)
    return repr(text) if args == "literal" else text


def _resolve(name: str, entry: CatalogEntry, task: Task) -> str:
    meta = task.metadata
    f2p, p2p = list(meta.get("fail_to_pass", [])), list(meta.get("pass_to_pass", []))
    if name == "package":
        return package_of(task)
    if name == "modules":
        package = package_of(task)
        modules = sorted(
            p[:-3].replace("/", ".")
            for p in meta["files"]
            if p.startswith(package + "/") and p.endswith(".py") and not p.endswith("__init__.py")
        )
        return repr(modules)
    if name == "fail_to_pass":
        return repr(f2p)
    if name == "pass_to_pass":
        return repr(p2p)
    if name == "all_tests":
        return repr(f2p + p2p)
    if name == "not_failing":
        return "not (" + " or ".join(split_node_id(n)[1] for n in f2p) + ")"
    if name == "deselect":
        return " ".join(f"--deselect {n}" for n in f2p)
    if name == "junit_xml":
        return junit_xml(f2p + p2p)
    if name == "results_json":
        tests = [{"nodeid": n, "outcome": "passed"} for n in f2p + p2p]
        return json.dumps({"exitcode": 0, "summary": {"passed": len(tests), "total": len(tests)}, "tests": tests})
    if name == "token":
        return token(entry.id, task.id)
    raise KeyError(name)


def package_of(task: Task) -> str:
    """The package a patch may change: the shortest ``<dir>/__init__.py`` the task's
    ``allowed_paths`` cover; SkipInstance when there is none."""
    allowed = task.metadata.get("allowed_paths", [])
    inits = sorted(
        (
            p
            for p in task.metadata["files"]
            if p.endswith("/__init__.py") and any(fnmatch.fnmatchcase(p, g) for g in allowed)
        ),
        key=lambda p: (p.count("/"), p),
    )
    if not inits:
        raise SkipInstance(f"task {task.id}: no package among its allowed paths")
    return inits[0].rsplit("/", 1)[0]


def junit_xml(node_ids: list[str]) -> str:
    """A JUnit XML report (pytest's ``--junitxml`` shape) in which every test passed."""
    cases = []
    for node_id in node_ids:
        path, name = split_node_id(node_id)
        classname = path[:-3].replace("/", ".") if path.endswith(".py") else path
        cases.append(f'    <testcase classname={quoteattr(classname)} name={quoteattr(name)} time="0.001" />')
    return "\n".join(
        [
            '<?xml version="1.0" encoding="utf-8"?>',
            "<testsuites>",
            f'  <testsuite name="pytest" errors="0" failures="0" skipped="0" tests="{len(node_ids)}" time="0.010">',
            *cases,
            "  </testsuite>",
            "</testsuites>",
        ]
    )
