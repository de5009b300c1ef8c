#!/usr/bin/env python
"""Generate the built-in repo suite: ``suites/repo/tasks.jsonl``.

Every task is a small Python repository with one bug, in the layout of
docs/repo-domain.md: ``metadata.files`` (the package, visible tests under ``tests/``, a
``pytest.ini``), the issue as a user reports it (``prompt``), the gold patch
(``reference``, made by ``patches.make_patch`` from the buggy repository to the clean one),
``fail_to_pass`` / ``pass_to_pass`` node ids, ``hidden_tests`` and ``allowed_paths`` (the
package's modules).

Bugs are injected the SWE-smith way: ONE function of a clean project (scripts/_repo_projects.py,
eight projects written for this suite) is mutated by the code domain's AST mutants
(``verifier_audit.domains.code.generators.mutants``: a deleted statement, a flipped
comparison, an off-by-one, ...). A mutant is kept only when running pytest on the buggy
repository makes at least one visible test fail, leaves at least 5 passing, and fails at
least one of the module's hidden tests; every other mutant is DROPPED with its reason (the
counts are printed). The facts are computed by running pytest (``sys.executable -m pytest
-p no:cacheprovider`` with a JUnit file read for the node ids, plugin autoload off) on the
buggy and the clean repository -- never written by hand.

Each task also gets ``alternatives``: one patch to another correct implementation of the
function (written by hand for this suite: scripts/_repo_alternatives.py), the equivalent
candidate ``another_implementation``.

Every row is then VALIDATED from the row alone, and the script fails loudly (an error,
nothing written) when one does not hold: the gold patch applies to ``files`` and changes
only paths matched by ``allowed_paths`` (never tests or configuration); on the buggy
repository plus the hidden tests every ``fail_to_pass`` test and at least one hidden test
fail and every ``pass_to_pass`` test passes; after the gold patch every one of them passes;
each alternative changes the gold's file only, is not the gold with other names (``shape``),
and every named and hidden test passes after it.

Splits: ``shifted`` holds whole projects absent from train (intervals, wrap); the other
projects' bugs are ``train``, every third one ``heldout`` (other bugs of train projects).
The issue text names what was called, what was expected and what came back, read from the
first failing test's assertion. Deterministic: the same file on every run.

    python scripts/make_repo_suite.py            # writes suites/repo/tasks.jsonl
    python scripts/make_repo_suite.py --check    # exit 1 if the file is out of date
"""

from __future__ import annotations

import ast
import fnmatch
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))  # _suite_file.py lives beside this script
sys.path.insert(0, str(ROOT))
from _repo_alternatives import ALTERNATIVES  # noqa: E402
from _repo_projects import PROJECTS, Project  # noqa: E402
from _suite_file import jsonl, write_or_check  # noqa: E402

from verifier_audit.domains.code.generators.mutants import mutants  # noqa: E402
from verifier_audit.domains.repo.patches import apply_patch, changed_paths, make_patch  # noqa: E402

OUT = ROOT / "suites" / "repo" / "tasks.jsonl"
PYTEST_INI = "[pytest]\ntestpaths = tests\npythonpath = .\n"
PER_PROJECT = 6  # bugs kept per project
TRIES_PER_FUNCTION = 3  # mutants of one function run before moving to the next
MIN_PASS_TO_PASS = 5
RUN_LIMIT = 30  # seconds for one pytest run (a mutant that loops is dropped)
DROPPED: Counter[str] = Counter()


def project_files(project: Project) -> dict[str, str]:
    """The clean repository: package, visible tests, pytest.ini."""
    pkg = project.name
    names = sorted(project.modules)
    files = {
        "pytest.ini": PYTEST_INI,
        f"{pkg}/__init__.py": f'"""{pkg}: {", ".join(names)}."""\n',
    }
    files.update({f"{pkg}/{name}.py": text for name, text in project.modules.items()})
    files.update({f"tests/{name}": text for name, text in project.tests.items()})
    return files


def hidden_files(project: Project) -> dict[str, str]:
    return {f"tests/test_hidden_{name}.py": text for name, text in project.hidden.items()}


def run_pytest(files: dict[str, str]) -> dict[str, tuple[str, str]] | None:
    """node id -> (outcome, failure text) of one pytest run over ``files``, written to a
    fresh directory; None when the run does not finish within ``RUN_LIMIT``."""
    with tempfile.TemporaryDirectory(prefix="repo-suite-") as tmp:
        repo = Path(tmp) / "repo"
        for path, text in files.items():
            target = repo / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        junit = Path(tmp) / "junit.xml"
        env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "PYTEST"))}
        env.update(PYTHONDONTWRITEBYTECODE="1", PYTHONHASHSEED="0", PYTEST_DISABLE_PLUGIN_AUTOLOAD="1")
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={junit}"]
        try:
            subprocess.run(command, cwd=repo, env=env, capture_output=True, timeout=RUN_LIMIT, check=False)
        except subprocess.TimeoutExpired:
            return None
        if not junit.exists():
            return {}
        return _junit_results(junit)


def _junit_results(junit: Path) -> dict[str, tuple[str, str]]:
    results = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        module = case.get("classname", "")
        node = f"{module.replace('.', '/')}.py::{case.get('name')}"
        outcome, text = "passed", ""
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                outcome, text = child.tag, child.text or child.get("message", "")
                break
        results[node] = (outcome, text)
    return results


def _function_node(source: str, line: int) -> ast.FunctionDef | None:
    """The top-level function or method whose body holds ``line``."""
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.lineno < line <= (node.end_lineno or node.lineno):
            return node
    return None


def _function_of(source: str, line: int) -> str | None:
    node = _function_node(source, line)
    return node.name if node is not None else None


def with_function(source: str, line: int, text: str) -> str:
    """``source`` with the function whose body holds ``line`` replaced by ``text`` (a
    ``def`` at indentation 0, from scripts/_repo_alternatives.py), indented where the
    function stands (a method: in its class)."""
    node = _function_node(source, line)
    assert node is not None, f"no function holds line {line}"
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = source.splitlines(keepends=True)
    indent = " " * node.col_offset
    body = "".join(indent + row if row.strip() else row for row in text.splitlines(keepends=True))
    return "".join(lines[: first - 1]) + body + "".join(lines[node.end_lineno :])


def shape(source: str) -> str:
    """A module's tree with every variable and parameter name replaced by its order of
    appearance: two sources of the same shape differ by names alone (a renaming)."""
    tree = ast.parse(source)
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            node.id = names.setdefault(node.id, f"v{len(names)}")
        elif isinstance(node, ast.arg):
            node.arg = names.setdefault(node.arg, f"v{len(names)}")
    return ast.dump(tree)


def issue_text(project: Project, failure: str) -> str:
    """The issue a user files: the statement that failed and what came back, read from
    pytest's report of the first failing test (the ``>`` line and the ``E`` lines)."""
    statement = next((ln[1:].strip() for ln in failure.splitlines() if ln.startswith(">")), "")
    errors = [ln[1:].rstrip() for ln in failure.splitlines() if ln.startswith("E ")][:4]
    got = "\n".join(f"    {re.sub(r'0x[0-9a-f]+', '0x...', ln.strip())}" for ln in errors)
    return (
        f"Wrong result in `{project.name}`\n\n"
        f"Running\n\n    {statement}\n\nfails; it should hold, and the package gives instead:\n\n{got}\n\n"
        "The tests under tests/ show the expected behaviour. Please fix the package (not the tests)."
    )


def project_rows(project: Project) -> list[dict]:
    """The project's tasks: one kept mutant per function, functions in module order, at
    most ``PER_PROJECT``; each with facts from real pytest runs."""
    clean = project_files(project)
    hidden = hidden_files(project)
    clean_run = run_pytest({**clean, **hidden})
    if not clean_run or any(outcome != "passed" for outcome, _ in clean_run.values()):
        failing = sorted(n for n, (o, _) in (clean_run or {}).items() if o != "passed")
        raise SystemExit(f"{project.name}: the clean project does not pass its own tests: {failing or 'no run'}")
    rows: list[dict] = []
    for module in sorted(project.modules):
        path = f"{project.name}/{module}.py"
        source = project.modules[module]
        by_function: dict[str, list] = {}
        for mutant in mutants(source, ""):
            name = _function_of(source, mutant.line)
            if name is not None:
                by_function.setdefault(name, []).append(mutant)
        for number, (function, candidates) in enumerate(by_function.items()):
            if len(rows) >= PER_PROJECT:
                return rows
            start = (number * 5) % len(candidates)  # a different kind of slip in each function
            for mutant in (candidates[start:] + candidates[:start])[:TRIES_PER_FUNCTION]:
                row = _task_row(project, clean, hidden, clean_run, path, module, function, mutant)
                if row is not None and any(r["id"] == row["id"] for r in rows):
                    # the same method in two modules (cache's two __init__s): the module named
                    row["id"] = f"repo/{project.name}/{module}_{function.strip('_')}_{mutant.kind}"
                if row is not None:
                    rows.append(row)
                    break
    return rows


def _task_row(project, clean, hidden, clean_run, path, module, function, mutant) -> dict | None:
    buggy = dict(clean, **{path: mutant.source})
    run = run_pytest({**buggy, **hidden})
    if run is None:
        DROPPED["the tests do not finish (a loop that never ends)"] += 1
        return None
    visible = {node: result for node, result in run.items() if not node.startswith("tests/test_hidden_")}
    fail_to_pass = sorted(n for n, (o, _) in visible.items() if o != "passed" and clean_run[n][0] == "passed")
    pass_to_pass = sorted(n for n, (o, _) in visible.items() if o == "passed")
    hidden_file = f"tests/test_hidden_{module}.py"
    hidden_failing = [n for n, (o, _) in run.items() if n.startswith(hidden_file + "::") and o != "passed"]
    if not fail_to_pass:
        DROPPED["no visible test fails"] += 1
        return None
    if len(pass_to_pass) < MIN_PASS_TO_PASS:
        DROPPED[f"fewer than {MIN_PASS_TO_PASS} visible tests still pass"] += 1
        return None
    if not hidden_failing:
        DROPPED["no hidden test of the module fails"] += 1
        return None
    return {
        "id": f"repo/{project.name}/{function.strip('_')}_{mutant.kind}",
        "domain": "repo",
        "split": "shifted" if project.shifted else "train",
        "prompt": issue_text(project, run[fail_to_pass[0]][1]),
        "reference": make_patch(buggy, clean),
        "metadata": {
            "project": project.name,
            "family": project.name,
            "files": buggy,
            "hidden_tests": {hidden_file: hidden[hidden_file]},
            "fail_to_pass": fail_to_pass,
            "pass_to_pass": pass_to_pass,
            "allowed_paths": [f"{project.name}/*.py"],
            "bug": f"{path}: {function}: {mutant.description}",
            **_alternatives(buggy, clean, path, function, mutant.line),
        },
    }


def _alternatives(buggy: dict, clean: dict, path: str, function: str, line: int) -> dict:
    """``{"alternatives": [diff]}``: the buggy repository to one whose function holds the
    hand-written other implementation (scripts/_repo_alternatives.py); {} for none."""
    text = ALTERNATIVES.get(f"{path}:{function}")
    if text is None:
        return {}
    return {"alternatives": [make_patch(buggy, dict(buggy, **{path: with_function(clean[path], line, text)}))]}


def rows(projects: list[Project] = PROJECTS) -> list[dict]:
    out = []
    for project in projects:
        made = project_rows(project)
        for n, row in enumerate(made):
            if not project.shifted and n % 3 == 2:
                row["split"] = "heldout"
        out += made
    return out


def validate(made: list[dict]) -> None:
    """Every row re-checked from the row alone (the module docstring lists the facts);
    one that fails is an error naming the task."""
    problems = []
    seen: set[str] = set()
    for row in made:
        problems += [f"{row['id']}: {p}" for p in _row_problems(row, seen)]
    projects = {r["metadata"]["project"] for r in made}
    shifted = {r["metadata"]["project"] for r in made if r["split"] == "shifted"}
    trained = {r["metadata"]["project"] for r in made if r["split"] == "train"}
    if len(made) < 40 or len(projects) < 8:
        problems.append(f"{len(made)} tasks over {len(projects)} projects: issue 36 asks for >= 40 over >= 8")
    if shifted & trained or not shifted:
        problems.append(f"shifted projects must be absent from train: {sorted(shifted & trained)}")
    if problems:
        raise SystemExit("invalid tasks:\n" + "\n".join(problems))


def _row_problems(row: dict, seen: set[str]) -> list[str]:
    meta = row["metadata"]
    files, hidden = meta["files"], meta["hidden_tests"]
    problems = []
    if row["id"] in seen:
        problems.append("duplicate id")
    seen.add(row["id"])
    if files.get("pytest.ini") != PYTEST_INI:
        problems.append("pytest.ini is not the layout's")
    if len(meta["fail_to_pass"]) < 1 or len(meta["pass_to_pass"]) < MIN_PASS_TO_PASS:
        problems.append("needs >= 1 fail_to_pass and >= 5 pass_to_pass")
    if any(not p.startswith("tests/test_hidden_") or p in files for p in hidden):
        problems.append("hidden tests must be new tests/test_hidden_*.py files")
    fixed = apply_patch(files, row["reference"])
    outside = [
        p for p in changed_paths(row["reference"]) if not any(fnmatch.fnmatchcase(p, g) for g in meta["allowed_paths"])
    ]
    if outside or any(p.startswith("tests/") for p in changed_paths(row["reference"])):
        problems.append(f"the gold changes paths outside allowed_paths: {outside}")
    before, after = run_pytest({**files, **hidden}), run_pytest({**fixed, **hidden})
    if not before or not after:
        return [*problems, "pytest did not run"]

    def passed(run, node):
        return run.get(node, ("missing", ""))[0] == "passed"

    problems += [f"{n} passes before the gold" for n in meta["fail_to_pass"] if passed(before, n)]
    problems += [f"{n} fails before the gold" for n in meta["pass_to_pass"] if not passed(before, n)]
    named = [*meta["fail_to_pass"], *meta["pass_to_pass"]]
    problems += [f"{n} fails after the gold" for n in named if not passed(after, n)]
    hidden_nodes = [n for n in after if n.split("::")[0] in hidden]
    if not hidden_nodes or any(not passed(after, n) for n in hidden_nodes):
        problems.append("a hidden test fails after the gold (or none ran)")
    if all(passed(before, n) for n in hidden_nodes):
        problems.append("no hidden test fails before the gold")
    for number, alternative in enumerate(meta.get("alternatives", []), 1):
        problems += [f"alternative {number}: {p}" for p in _alternative_problems(row, fixed, alternative, passed)]
    return problems


def _alternative_problems(row: dict, fixed: dict, alternative: str, passed) -> list[str]:
    """Another correct fix: it changes the gold's file only, is no renaming of the gold,
    and every named and hidden test passes after it."""
    meta = row["metadata"]
    if changed_paths(alternative) != changed_paths(row["reference"]):
        return [f"changes {changed_paths(alternative)}, the gold {changed_paths(row['reference'])}"]
    other = apply_patch(meta["files"], alternative)
    (path,) = changed_paths(alternative)
    if shape(other[path]) == shape(fixed[path]):
        return ["the gold with other names, not another implementation"]
    run = run_pytest({**other, **meta["hidden_tests"]})
    if not run:
        return ["pytest did not run"]
    hidden_nodes = [n for n in run if n.split("::")[0] in meta["hidden_tests"]]
    failing = [n for n in [*meta["fail_to_pass"], *meta["pass_to_pass"], *hidden_nodes] if not passed(run, n)]
    return [f"{n} fails after it" for n in failing] or ([] if hidden_nodes else ["no hidden test ran"])


def render() -> str:
    made = rows()
    validate(made)
    return jsonl(made)


def summary() -> str:
    text = OUT.read_text(encoding="utf-8").splitlines() if OUT.exists() else []
    splits = Counter(__import__("json").loads(line)["split"] for line in text)
    dropped = "; ".join(f"{n} {why}" for why, n in sorted(DROPPED.items())) or "none"
    return (
        f"{len(text)} tasks: "
        + ", ".join(f"{n} {s}" for s, n in sorted(splits.items()))
        + f"; mutants dropped: {dropped}"
    )


if __name__ == "__main__":
    sys.exit(write_or_check(__doc__.splitlines()[1], OUT, "python scripts/make_repo_suite.py", render, summary=summary))
