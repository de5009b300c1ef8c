"""Read SWE-bench instance files into repo tasks: ``--format swebench`` against local
checkouts (``--repo-dir``). No network, no Docker, no git: the checkout must already be at
the instance's ``base_commit`` (docs/repo-suite.md, "--format swebench").

An instance file is a JSON list or JSONL of the published datasets' rows: ``instance_id``,
``repo``, ``problem_statement``, ``patch`` (the gold), ``test_patch`` (the tests that
decide it), ``FAIL_TO_PASS`` and ``PASS_TO_PASS`` (lists of test ids, or -- as the
datasets on the Hugging Face hub ship them -- JSON-encoded strings of lists); ``base_commit``
is read when present, to name the commit a missing checkout should be at.

Each instance becomes one task in the repo layout: ``files`` are the checkout's text files
(``read_checkout``: no ``.git`` or other tool folders, no binaries, no symlinks, none over
``MAX_FILE_BYTES``, at most ``MAX_CHECKOUT_BYTES`` in all) with the ``test_patch`` applied,
so the visible tests are the ones SWE-bench runs; ``reference`` is the ``patch``;
``hidden_tests`` is empty (SWE-bench has none beyond FAIL_TO_PASS and PASS_TO_PASS).

``allowed_paths`` (what a candidate patch may change): for every path the gold patch
changes that is not a test path (``is_test_path``), its top-level folder, as ``<folder>/*``
(``fnmatch`` lets ``*`` cross ``/``: the whole package); a changed file at the top level is
allowed by its own path. So a gold touching ``astropy/io/fits/card.py`` allows every file
under ``astropy/``, the package the issue is about, and never the tests, ``conftest.py`` or
the configuration at the root.

A row or checkout that does not fit is an ``InputError`` naming the file, the line (JSONL)
or entry (JSON list), the instance and the fix.
"""

from __future__ import annotations

import json
import os
from functools import partial
from pathlib import Path, PurePosixPath

from ...errors import InputError
from ...models import Task
from ..suite_files import SuiteFile, check_limits, json_rows, read_text, tasks_from_rows
from .patches import PatchError, apply_patch, changed_paths

REQUIRED = ("instance_id", "repo", "problem_statement", "patch", "test_patch", "FAIL_TO_PASS", "PASS_TO_PASS")
MAX_FILE_BYTES = 512 * 1024  # a larger file is data, not source a patch edits: skipped
MAX_CHECKOUT_BYTES = 64 * 1024 * 1024  # the text a task carries; a larger checkout is an error
SKIPPED_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        "__pycache__",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "node_modules",
        ".mypy_cache",
        ".pytest_cache",
        ".eggs",
    }
)
TEST_DIRS = frozenset({"tests", "test", "testing"})
REPO_DIR_FIX = "give the folder of local checkouts with --repo-dir DIR (DIR/<instance_id> or DIR/<owner>__<name>)"


def swebench_suite(source: SuiteFile) -> list[Task]:
    """``--format swebench``: SWE-bench instances against the checkouts under ``--repo-dir``.
    The file is read first, so that a file that does not decode or parse is the error every
    format gives for it (``suite_files.decode_text``), before the missing folder."""
    rows = instance_rows(source.path)
    if source.repo_dir is None:
        raise InputError(f"{source.path}: --format swebench reads each instance's repository from disk; {REPO_DIR_FIX}")
    repo_dir = Path(source.repo_dir)
    if not repo_dir.is_dir():
        raise InputError(f"--repo-dir {repo_dir}: no such folder; {REPO_DIR_FIX}")
    return tasks_from_rows(source.path, rows, domain="repo", transform=partial(swebench_row, repo_dir=repo_dir))


def instance_rows(path: Path) -> list[tuple[int, dict]]:
    """(line, object) for each instance of a JSON list or a JSONL file: the line where the
    instance starts, so that every error names it."""
    text = read_text(path)
    if not text.lstrip().startswith("["):
        return json_rows(path, text)
    decoder = json.JSONDecoder()
    rows = []
    at = text.index("[") + 1
    while True:
        at = _skip(text, at, ",")
        if at >= len(text):
            raise InputError(f"{path}: the JSON list is not closed with ']'")
        if text[at] == "]":
            break
        line = text.count("\n", 0, at) + 1
        try:
            entry, at = decoder.raw_decode(text, at)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{exc.lineno}: invalid JSON ({exc.msg} at column {exc.colno})") from None
        except RecursionError:
            raise InputError(f"{path}:{line}: objects and lists nested too deep") from None
        if not isinstance(entry, dict):
            raise InputError(f"{path}:{line}: expected a JSON object (an instance), found {type(entry).__name__}")
        check_limits(path, line, entry)
        rows.append((line, entry))
    if not rows:
        raise InputError(f"{path}: the file has no instances")
    return rows


def _skip(text: str, at: int, also: str = "") -> int:
    while at < len(text) and (text[at].isspace() or text[at] in also):
        at += 1
    return at


def swebench_row(row: dict, *, repo_dir: Path) -> dict:
    """One instance -> a repo task's fields; ``ValueError`` (the suite reader adds file and
    line) naming the instance and the fix."""
    missing = [name for name in REQUIRED if name not in row]
    if missing:
        raise ValueError(f"no {', '.join(map(repr, missing))} field: not a SWE-bench instance ({', '.join(REQUIRED)})")
    instance = _text(row, "instance_id", "")
    where = f"instance {instance}"
    repo, gold, test_patch = _text(row, "repo", where), _text(row, "patch", where), _text(row, "test_patch", where)
    checkout = find_checkout(repo_dir, instance, repo, str(row.get("base_commit") or ""))
    files = read_checkout(checkout)
    try:
        files = apply_patch(files, test_patch)
    except PatchError as exc:
        raise ValueError(f"{where}: its test_patch does not apply to {checkout} ({exc}); {_at_base(row)}") from None
    try:
        apply_patch(files, gold)
    except PatchError as exc:
        raise ValueError(f"{where}: its patch does not apply to {checkout} ({exc}); {_at_base(row)}") from None
    allowed = allowed_paths(gold)
    if not allowed:
        raise ValueError(f"{where}: its patch changes only test paths; a gold patch must change the package")
    return {
        "id": instance,
        "domain": "repo",
        "prompt": _text(row, "problem_statement", where),
        "reference": gold,
        "metadata": {
            "project": repo,
            "family": repo,
            "source": "swebench",
            "base_commit": str(row.get("base_commit") or ""),
            "files": files,
            "hidden_tests": {},
            "fail_to_pass": _test_ids(row, "FAIL_TO_PASS", where),
            "pass_to_pass": _test_ids(row, "PASS_TO_PASS", where),
            "allowed_paths": allowed,
        },
    }


def find_checkout(repo_dir: Path, instance: str, repo: str, base_commit: str = "") -> Path:
    """``repo_dir/<instance_id>`` if it is there, else ``repo_dir/<owner>__<name>``."""
    for name in (instance, repo.replace("/", "__")):
        if name and "/" not in name and name not in (".", "..") and (repo_dir / name).is_dir():
            return repo_dir / name
    commit = f" && git -C {repo_dir / repo.replace('/', '__')} checkout {base_commit}" if base_commit else ""
    raise ValueError(
        f"instance {instance}: no checkout of {repo} under {repo_dir} (looked for {repo_dir / instance} and "
        f"{repo_dir / repo.replace('/', '__')}); clone it at the instance's base_commit, e.g. "
        f"git clone https://github.com/{repo} {repo_dir / repo.replace('/', '__')}{commit}"
    )


def read_checkout(root: Path) -> dict[str, str]:
    """The checkout's text files, ``{relative posix path: text}``, in path order: tool
    folders (``SKIPPED_DIRS``), symlinks, binaries (a NUL byte, or not UTF-8) and files
    over ``MAX_FILE_BYTES`` left out; more than ``MAX_CHECKOUT_BYTES`` of text is an error."""
    files: dict[str, str] = {}
    total = 0
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not os.path.islink(os.path.join(folder, d)))
        for name in sorted(names):
            path = Path(folder, name)
            if path.is_symlink() or not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
                continue
            data = path.read_bytes()
            if b"\0" in data[:8192]:
                continue
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                continue
            total += len(data)
            if total > MAX_CHECKOUT_BYTES:
                raise ValueError(
                    f"the checkout {root} holds more than {MAX_CHECKOUT_BYTES // 2**20} MiB of text; "
                    "remove build outputs and data from it, or audit a smaller repository"
                )
            files[path.relative_to(root).as_posix()] = text
    return files


def is_test_path(path: str) -> bool:
    """A test file or test configuration: under a tests/test/testing folder, named
    test_*.py or *_test.py, or conftest.py."""
    parts = PurePosixPath(path).parts
    name = parts[-1]
    return (
        any(part in TEST_DIRS for part in parts[:-1])
        or name == "conftest.py"
        or (name.endswith(".py") and (name.startswith("test_") or name[:-3].endswith("_test")))
    )


def allowed_paths(gold: str) -> list[str]:
    """The globs a patch may change: each non-test path's top-level folder (module docstring)."""
    allowed: dict[str, None] = {}
    for path in changed_paths(gold):
        if is_test_path(path):
            continue
        top, sep, _ = path.partition("/")
        allowed[f"{top}/*" if sep else path] = None
    return sorted(allowed)


def _test_ids(row: dict, name: str, where: str) -> list[str]:
    value = row[name]
    if isinstance(value, str):
        try:
            value = json.loads(value) if value.strip() else []
        except json.JSONDecodeError:
            raise ValueError(f"{where}: field {name!r} is a string but not a JSON list of test ids") from None
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ValueError(f"{where}: field {name!r} must be a list of test ids (or a JSON string of one)")
    return value


def _text(row: dict, name: str, where: str) -> str:
    value = row[name]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{where + ': ' if where else ''}field {name!r} must be non-empty text")
    return value


def _at_base(row: dict) -> str:
    commit = row.get("base_commit")
    return f"is the checkout at base_commit {commit}?" if commit else "is the checkout at the instance's base_commit?"
