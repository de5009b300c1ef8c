"""Read public stdin/stdout code datasets into program tasks: ``--format apps`` (APPS and
TACO), ``--format codecontests`` (CodeContests) and ``--format lcb`` (LiveCodeBench
code_generation), each a JSONL file (``.jsonl.gz`` too) with the dataset's own row layout,
``--field`` mappings applied first (docs/code-domain.md, "Program tasks", has the tables).

What every format turns into is one layout (``cases.py``): ``metadata.cases`` with
``visible`` (the cases a prompt shows) and ``hidden`` (the rest), the default token checker,
and a reference program. The reference is the row's first Python 3 solution, or the text of
a column given by ``--field reference=COLUMN`` (LiveCodeBench ships no solutions, so there
it is required: the oracle needs a program to trust, and none can be made up).

A row that cannot be audited but need not stop the file -- a call-based task (APPS/TACO
``input_output.fn_name``, a LiveCodeBench ``functional`` case; ``metadata.call_based`` is
the function's name), an APPS or CodeContests row with no Python 3 solution -- is read with
``metadata.unusable`` saying why: ``check_layout`` drops it with that reason and the
audit's report counts it (``gold_unusable``), while the file's other tasks are audited.

LiveCodeBench's release compresses most private cases (base64 of zlib of a pickle). A
pickle runs code when it is read, and a suite is untrusted input: such a field is refused
with the fix, never decoded.

A row that does not fit raises ``ValueError``; the suite reader turns it into an
``InputError`` naming the file and the line.
"""

from __future__ import annotations

import json

from ....models import Task
from ...suite_files import SuiteFile, parse_field_mapping, tasks_from_rows
from ..loaders import _split, _text, read_rows

# CodeContests' ``solutions.language`` (the dataset card's Language enum): 3 is PYTHON3,
# 1 is Python 2, which Python 3 does not run.
PYTHON3 = 3
REFERENCE_FIX = "give a column holding a Python 3 program with --field reference=COLUMN"
LCB_COMPRESSED_FIX = (
    "decode it with LiveCodeBench's own loader in a step you trust and write the cases as JSON, "
    'or set the field to "[]" to audit on the public cases only'
)


def apps_suite(source: SuiteFile) -> list[Task]:
    """``--format apps``: APPS or TACO rows (``question``, ``solutions``, ``input_output``)."""
    return _load(source, apps_row)


def codecontests_suite(source: SuiteFile) -> list[Task]:
    """``--format codecontests``: CodeContests rows (``description``, ``public_tests``,
    ``private_tests``, ``generated_tests``, ``solutions``)."""
    return _load(source, codecontests_row)


def lcb_suite(source: SuiteFile) -> list[Task]:
    """``--format lcb``: LiveCodeBench code_generation rows (``question_content``,
    ``public_test_cases``, ``private_test_cases``, ``metadata``) and a reference column."""
    return _load(source, lcb_row)


def _load(source: SuiteFile, transform) -> list[Task]:
    return tasks_from_rows(
        source.path,
        read_rows(source.path),
        mapping=parse_field_mapping(source.fields),
        domain="program",
        transform=transform,
    )


# --------------------------------------------------------------------- APPS / TACO


def apps_row(row: dict) -> dict:
    """APPS (codeparrot/apps) or TACO (BAAI/TACO): ``input_output`` is a JSON string of
    ``{"inputs": [...], "outputs": [...]}`` (each a string, or a list of lines), with
    ``fn_name`` on a call-based task; ``solutions`` a JSON string of a list of programs. The
    statement shows examples, not which cases they are: the first case is the visible one."""
    question = _text(row, "question")
    tests = _json_field(row, "input_output", dict)
    inputs, outputs = tests.get("inputs"), tests.get("outputs")
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise ValueError("field 'input_output' must hold lists 'inputs' and 'outputs' of the same length")
    metadata: dict = {"source": "apps"}
    for key in ("difficulty", "url", "source"):
        if isinstance(row.get(key), str) and row[key]:
            metadata["dataset_" + key if key == "source" else key] = row[key]
    if tests.get("fn_name"):
        metadata["call_based"] = str(tests["fn_name"])
        metadata["unusable"] = _call_based(metadata["call_based"])
        cases: list[dict] = []
    else:
        cases = [
            {"input": _text_of(i, "input_output.inputs", n), "output": _text_of(o, "input_output.outputs", n)}
            for n, (i, o) in enumerate(zip(inputs, outputs))
        ]
    metadata["cases"] = {"visible": cases[:1], "hidden": cases[1:]}
    solutions = _json_field(row, "solutions", list) if row.get("solutions") not in (None, "") else []
    fields = {
        "prompt": question,
        "reference": _reference(row, [s for s in solutions if isinstance(s, str)], metadata),
        **_split(row, metadata),
    }
    if "problem_id" in row:
        fields["id"] = f"APPS/{row['problem_id']}"
    return _keep_id(row, fields)


# --------------------------------------------------------------------- CodeContests


def codecontests_row(row: dict) -> dict:
    """CodeContests (deepmind/code_contests): ``public_tests`` are the statement's examples
    (visible), ``private_tests`` and ``generated_tests`` the judge's (hidden); the reference
    is the first solution whose language is PYTHON3."""
    description = _text(row, "description")
    visible = _cc_tests(row, "public_tests")
    hidden = _cc_tests(row, "private_tests") + _cc_tests(row, "generated_tests")
    solutions = row.get("solutions") or {}
    if not isinstance(solutions, dict):
        raise ValueError('field \'solutions\' must be {"language": [...], "solution": [...]}')
    languages, programs = solutions.get("language") or [], solutions.get("solution") or []
    python3 = [p for lang, p in zip(languages, programs) if lang in (PYTHON3, "PYTHON3") and isinstance(p, str)]
    metadata = {"source": "codecontests", "cases": {"visible": visible, "hidden": hidden}}
    fields = {"prompt": description, "reference": _reference(row, python3, metadata), **_split(row, metadata)}
    if isinstance(row.get("name"), str) and row["name"].strip():
        fields["id"] = row["name"].strip()
    return _keep_id(row, fields)


def _cc_tests(row: dict, name: str) -> list[dict]:
    tests = row.get(name) or {"input": [], "output": []}
    inputs, outputs = (tests.get("input"), tests.get("output")) if isinstance(tests, dict) else (None, None)
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise ValueError(f'field {name!r} must be {{"input": [...], "output": [...]}} of the same length')
    return [
        {"input": _text_of(i, f"{name}.input", n), "output": _text_of(o, f"{name}.output", n)}
        for n, (i, o) in enumerate(zip(inputs, outputs))
    ]


# --------------------------------------------------------------------- LiveCodeBench


def lcb_row(row: dict) -> dict:
    """LiveCodeBench code_generation (livecodebench/code_generation_lite): the public and
    private cases are JSON strings of ``[{"input", "output", "testtype"}]``; ``functional``
    cases call ``metadata.func_name`` (a call-based task). It ships no solutions: the
    reference comes from ``--field reference=COLUMN``."""
    content = _text(row, "question_content")
    visible, visible_kind = _lcb_cases(row, "public_test_cases")
    hidden, hidden_kind = _lcb_cases(row, "private_test_cases")
    metadata: dict = {"source": "lcb"}
    for key in ("platform", "difficulty", "contest_date", "question_title"):
        if isinstance(row.get(key), str) and row[key]:
            metadata[key] = row[key]
    if "functional" in (visible_kind, hidden_kind):
        extra = row.get("metadata")
        extra = _json_field(row, "metadata", dict) if isinstance(extra, str) else extra or {}
        metadata["call_based"] = str(extra.get("func_name") or "?") if isinstance(extra, dict) else "?"
        metadata["unusable"] = _call_based(metadata["call_based"])
        visible, hidden = [], []
    metadata["cases"] = {"visible": visible, "hidden": hidden}
    if "reference" not in row:
        raise ValueError(
            "LiveCodeBench ships no reference solutions, and the oracle needs a program it trusts: "
            f"{REFERENCE_FIX} (e.g. your own solutions added to each row)"
        )
    fields = {"prompt": content, "reference": _reference(row, [], metadata), **_split(row, metadata)}
    if isinstance(row.get("question_id"), str) and row["question_id"]:
        fields["id"] = f"LCB/{row['question_id']}"
    return _keep_id(row, fields)


def _lcb_cases(row: dict, name: str) -> tuple[list[dict], str]:
    """The field's stdin cases and its test type; a compressed field is refused, unread."""
    raw = row.get(name)
    if raw is None or raw == "":
        return [], "stdin"
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except json.JSONDecodeError:
            raise ValueError(
                f"field {name!r} is not JSON: the LiveCodeBench release compresses it (base64 of zlib "
                "of a pickle), and a pickle runs code when it is read, so verifier-audit never decodes one; "
                + LCB_COMPRESSED_FIX
            ) from None
    if not isinstance(raw, list) or not all(isinstance(c, dict) for c in raw):
        raise ValueError(f'field {name!r} must be a list of {{"input", "output", "testtype"}}')
    kinds = {c.get("testtype", "stdin") for c in raw}
    if not kinds <= {"stdin", "functional"}:
        raise ValueError(f"field {name!r}: testtype {sorted(map(str, kinds))}: expected 'stdin' or 'functional'")
    cases = [
        {
            "input": _text_of(c.get("input"), f"{name}.input", n),
            "output": _text_of(c.get("output"), f"{name}.output", n),
        }
        for n, c in enumerate(raw)
    ]
    return cases, "functional" if "functional" in kinds else "stdin"


# ----------------------------------------------------------------------- shared


def _reference(row: dict, solutions: list[str], metadata: dict) -> str:
    """``--field reference=COLUMN``'s text (mapped into the row before the transform), else
    the dataset's first solution. A given column that is empty is an error with the fix; a
    row with no solution is marked unusable (a dataset leaves some problems unsolved) and
    its reference left empty."""
    given = row.get("reference")
    if isinstance(given, str) and given.strip():
        return given
    if given is not None:
        raise ValueError("the reference column is empty or not text; " + REFERENCE_FIX)
    for program in solutions:
        if program.strip():
            return program
    metadata.setdefault(
        "unusable", "no Python 3 solution in the dataset's row to serve as the reference; " + REFERENCE_FIX
    )
    return ""


def _call_based(name: str) -> str:
    return (
        f"call-based task (it calls the function {name!r}; stdin and stdout are not graded): program "
        "tasks run whole programs; audit it as a code task (our JSONL, domain 'code') instead"
    )


def _json_field(row: dict, name: str, kind: type):
    """A field the dataset stores as a JSON string (or already decoded), of type ``kind``."""
    if name not in row:
        raise ValueError(f"missing field {name!r} (fields present: {', '.join(row) or 'none'})")
    value = row[name]
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError as exc:
            raise ValueError(f"field {name!r} is not valid JSON ({exc.msg} at column {exc.colno})") from None
    if not isinstance(value, kind):
        raise ValueError(f"field {name!r} must be a JSON {kind.__name__}, found {type(value).__name__}")
    return value


def _text_of(value, where: str, index: int) -> str:
    """A case's input or output: a string, or a list of lines (APPS writes some so)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return "".join(v if v.endswith("\n") else v + "\n" for v in value)
    raise ValueError(f"{where}[{index}] must be a string or a list of lines, found {type(value).__name__}")


def _keep_id(row: dict, fields: dict) -> dict:
    """A row's own ``id`` (ours, or mapped with ``--field id=...``) wins over the dataset's."""
    if "id" in row:
        fields["id"] = row["id"]
    return fields
