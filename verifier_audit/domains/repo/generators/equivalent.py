"""Equivalent patches of a repo task: the gold's fix written another way, each still right.

* ``gold`` -- the gold patch itself; ``gold_in_prose`` -- the gold in a ```` ```diff ````
  fence between sentences, as a model answers (a grader that applies the raw completion
  rejects it);
* ``comments_added`` -- a comment line before each changed block and a blank line after it;
* ``files_reordered`` -- a gold over several files with its files in reverse order (a
  patch's files need no order; ``make_patch`` writes them sorted);
* ``context_wide`` / ``context_narrow`` -- the gold re-made with 10 lines of context and
  with 1;
* ``locals_renamed`` -- the local variables of the functions the gold changes renamed;
* ``helper_extracted`` -- each top-level function the gold changes moved into a helper
  ``_<name>_impl`` that a function of the old name calls;
* ``another_implementation`` -- each of the task's ``alternatives`` (layout.py): another
  correct fix, a different implementation of what the gold changes, given with the task
  (the built-in suite's are written by hand and checked by running every test:
  scripts/make_repo_suite.py).

Every source transform is checked with ``ast`` before it is kept: the comments and blank
lines leave the module's tree unchanged, the renaming gives the tree the same renaming
makes of the gold's, the helper parses. A transform that cannot be checked on a file
leaves that file as the gold has it; a kind that changes nothing is not generated.
"""

from __future__ import annotations

import ast
import difflib
import random
import re

from ....models import Candidate, Severity, Task
from ...kit import make_candidates
from ..patches import make_patch
from .edits import Files, changed_between, changed_functions, completion, gold_files, repository, styled

KINDS: dict[str, tuple[Severity, str]] = {
    "gold": (Severity.low, "the gold patch itself"),
    "gold_in_prose": (Severity.medium, "the gold in a ```diff fence between sentences"),
    "comments_added": (Severity.low, "the gold with a comment and a blank line around each changed block"),
    "files_reordered": (Severity.medium, "the gold's files in another order"),
    "context_wide": (Severity.low, "the gold re-made with 10 lines of context"),
    "context_narrow": (Severity.medium, "the gold re-made with 1 line of context"),
    "locals_renamed": (Severity.medium, "the gold with the changed functions' local variables renamed"),
    "helper_extracted": (Severity.medium, "the gold with each changed function's body moved into a helper"),
    "another_implementation": (Severity.high, "another correct implementation of the fix, given with the task"),
}

_COMMENT = "# fixed: see the issue"


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    before, after = repository(task), gold_files(task)
    gold = task.reference
    chosen = [
        ("gold", gold, "the gold patch"),
        ("gold_in_prose", completion(gold, rng), "the gold patch between sentences"),
    ]
    for kind, diff, note in _rewritten(before, after):
        if diff and diff != gold:
            chosen.append((kind, styled(diff, rng), note))
    for number, diff in enumerate(task.metadata.get("alternatives") or [], 1):
        chosen.append(("another_implementation", styled(diff, rng), f"the task's alternative fix {number}"))
    return make_candidates("repo", task.id, chosen, origin="equivalent", label="correct", kinds=KINDS)


def _rewritten(before: Files, after: Files) -> list[tuple[str, str, str]]:
    out = [("comments_added", make_patch(before, _per_file(before, after, _commented)), "comments and blank lines")]
    sections = re.split(r"(?m)^(?=diff --git )", make_patch(before, after))
    sections = [s for s in sections if s]
    if len(sections) > 1:
        out.append(
            ("files_reordered", "".join(reversed(sections)), f"the gold's {len(sections)} files in reverse order")
        )
    out.append(("context_wide", make_patch(before, after, context=10), "10 lines of context"))
    out.append(("context_narrow", make_patch(before, after, context=1), "1 line of context"))
    out.append(("locals_renamed", make_patch(before, _per_file(before, after, _renamed)), "local variables renamed"))
    out.append(
        ("helper_extracted", make_patch(before, _per_file(before, after, _extracted)), "bodies moved into helpers")
    )
    return out


def _per_file(before: Files, after: Files, transform) -> Files:
    """``after`` with ``transform(old, new)`` on each file the gold changes (None: kept)."""
    out = dict(after)
    for path in changed_between(before, after):
        if path.endswith(".py"):
            changed = transform(before[path], after[path])
            if changed is not None:
                out[path] = changed
    return out


def _same_tree(a: str, b: str) -> bool:
    try:
        return ast.dump(ast.parse(a)) == ast.dump(ast.parse(b))
    except (SyntaxError, ValueError):
        return False


def _commented(old: str, new: str) -> str | None:
    lines = new.splitlines(keepends=True)
    matcher = difflib.SequenceMatcher(None, old.splitlines(keepends=True), lines, autojunk=False)
    inserts: dict[int, list[str]] = {}  # line index -> lines to put before it
    for tag, _i1, _i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal" or j2 == j1:
            continue
        code = next((line for line in lines[j1:j2] if line.strip()), "")
        indent = code[: len(code) - len(code.lstrip())]
        inserts.setdefault(j1, []).append(f"{indent}{_COMMENT}\n")
        inserts.setdefault(j2, []).append("\n")
    text = "".join("".join(inserts.get(i, [])) + line for i, line in enumerate(lines)) + "".join(
        inserts.get(len(lines), [])
    )
    return text if text != new and _same_tree(text, new) else None


# Calls that read a function's locals by name: renaming under them changes behaviour.
_INTROSPECTION = {"locals", "vars", "eval", "exec", "dir"}


def _renamed(old: str, new: str) -> str | None:
    try:
        tree = ast.parse(new)
    except (SyntaxError, ValueError):
        return None
    taken = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        a.arg for a in ast.walk(tree) if isinstance(a, ast.arg)
    }
    starts = {f.start for f in changed_functions(old, new)}
    edits: list[tuple[int, int, int, str]] = []  # (line, start col, end col, new name)
    mapping_by_fn: dict[int, dict[str, str]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)) or fn.lineno not in starts:
            continue
        mapping = _local_names(fn, taken)
        mapping_by_fn[fn.lineno] = mapping
        for node in ast.walk(fn):
            if isinstance(node, ast.Name) and node.id in mapping and node.lineno == node.end_lineno:
                edits.append((node.lineno, node.col_offset, node.end_col_offset or 0, mapping[node.id]))
    if not edits:
        return None
    lines = new.splitlines(keepends=True)
    for line, start, end, name in sorted(edits, reverse=True):
        raw = lines[line - 1].encode("utf-8")
        lines[line - 1] = (raw[:start] + name.encode("utf-8") + raw[end:]).decode("utf-8")
    text = "".join(lines)
    expected = _RenameNames(mapping_by_fn).visit(ast.parse(new))
    try:
        return text if ast.dump(ast.parse(text)) == ast.dump(expected) else None
    except (SyntaxError, ValueError):
        return None


def _local_names(fn: ast.FunctionDef | ast.AsyncFunctionDef, taken: set[str]) -> dict[str, str]:
    """old -> new for the names ``fn`` assigns (not its parameters, globals or nonlocals);
    {} for a function with a nested scope, an f-string or a call reading names."""
    inner = list(ast.walk(fn))[1:]
    if any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.JoinedStr)) for n in inner
    ):
        return {}
    if any(isinstance(n, ast.Name) and n.id in _INTROSPECTION for n in inner):
        return {}
    declared = {name for n in inner if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
    params = {a.arg for a in ast.walk(fn.args) if isinstance(a, ast.arg)}
    stored = sorted(
        {n.id for n in inner if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)} - declared - params
    )
    return {name: f"local_{name}" for name in stored if f"local_{name}" not in taken}


class _RenameNames(ast.NodeTransformer):
    """The renaming ``_renamed`` means, done on the tree: what its text must parse to."""

    def __init__(self, mapping_by_fn: dict[int, dict[str, str]]):
        self.mapping_by_fn = mapping_by_fn
        self.mapping: dict[str, str] = {}

    def visit_FunctionDef(self, node):
        saved = self.mapping
        self.mapping = self.mapping_by_fn.get(node.lineno, saved)
        self.generic_visit(node)
        self.mapping = saved
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_Name(self, node):
        node.id = self.mapping.get(node.id, node.id)
        return node


def _extracted(old: str, new: str) -> str | None:
    try:
        tree = ast.parse(new)
    except (SyntaxError, ValueError):
        return None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    starts = {f.start for f in changed_functions(old, new) if f.top_level}
    lines = new.splitlines(keepends=True)
    for fn in sorted((n for n in tree.body if isinstance(n, ast.FunctionDef)), key=lambda n: -n.lineno):
        helper = f"_{fn.name}_impl"
        if fn.lineno not in starts or fn.decorator_list or helper in names or fn.end_lineno is None:
            continue
        head = lines[fn.lineno - 1]
        renamed = re.sub(rf"^(\s*def\s+){re.escape(fn.name)}\b", rf"\g<1>{helper}", head, count=1)
        if renamed == head:
            continue
        wrapper = [
            "\n",
            "\n",
            f"def {fn.name}(*args, **kwargs):\n",
            f'    """{fn.name}, its work done by {helper}."""\n',
            f"    return {helper}(*args, **kwargs)\n",
        ]
        if not lines[fn.end_lineno - 1].endswith("\n"):
            lines[fn.end_lineno - 1] += "\n"
        lines[fn.lineno - 1] = renamed
        lines[fn.end_lineno : fn.end_lineno] = wrapper
    text = "".join(lines)
    try:
        ast.parse(text)
    except (SyntaxError, ValueError):
        return None
    return text if text != new else None
