"""Read public math datasets into tasks: GSM8K and MATH (Hendrycks) JSONL files.

``gsm8k_row`` / ``math_row`` turn one dataset row into our task fields; ``gsm8k_suite`` /
``math_suite`` are the domain's ``--format gsm8k|math`` loaders (``MathDomain.suite_formats``),
and ``load_gsm8k`` / ``load_math`` read a whole file.
A row that does not fit raises ``ValueError``; the suite reader turns it into an
``InputError`` that names the file and the line.
"""

from __future__ import annotations

import re
from pathlib import Path

from ...models import Task
from ..suite_files import SuiteFile, jsonl_tasks, read_jsonl, tasks_from_rows

_GSM8K_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def load_gsm8k(path: str | Path) -> list[Task]:
    """GSM8K JSONL (``question``, ``answer`` ending in ``#### n``) -> tasks."""
    path = Path(path)
    return tasks_from_rows(path, read_jsonl(path), domain="math", transform=gsm8k_row)


def load_math(path: str | Path) -> list[Task]:
    """MATH JSONL (``problem``, ``solution`` with the gold in its last ``\\boxed{}``) -> tasks."""
    path = Path(path)
    return tasks_from_rows(path, read_jsonl(path), domain="math", transform=math_row)


def gsm8k_suite(source: SuiteFile) -> list[Task]:
    """``--format gsm8k``: a GSM8K JSONL file, ``--field`` mappings applied first."""
    return jsonl_tasks(source, gsm8k_row)


def math_suite(source: SuiteFile) -> list[Task]:
    """``--format math``: a MATH JSONL file, ``--field`` mappings applied first."""
    return jsonl_tasks(source, math_row)


def gsm8k_row(row: dict) -> dict:
    question, answer = _text(row, "question"), _text(row, "answer")
    marker = answer.rfind("####")
    if marker < 0:
        raise ValueError("field 'answer' has no '#### <number>' final line (GSM8K format)")
    final = answer[marker + 4 :].strip().replace(",", "").replace("$", "").rstrip(".")
    if not _GSM8K_NUMBER.fullmatch(final):
        raise ValueError(f"the final answer after '####' is not a number: {final!r}")
    answer_type = "decimal" if "." in final else "negative_integer" if final.startswith("-") else "integer"
    fields = {
        "prompt": question,
        "reference": final,
        "metadata": {"answer_type": answer_type, "family": "gsm8k", "source": "gsm8k"},
    }
    return _keep(row, fields)


def math_row(row: dict) -> dict:
    problem, solution = _text(row, "problem"), _text(row, "solution")
    gold = last_boxed(solution)
    if gold is None and isinstance(row.get("answer"), str) and row["answer"].strip():
        gold = row["answer"].strip()  # MATH-500 carries the gold separately as well
    if gold is None:
        raise ValueError("field 'solution' has no \\boxed{...} answer (MATH format)")
    metadata = {"family": str(row.get("type") or "math"), "source": "math"}
    for key in ("level", "type", "subject"):
        if row.get(key) is not None:
            metadata[key] = row[key]
    fields = {"prompt": problem, "reference": gold, "metadata": metadata}
    if "id" not in row and isinstance(row.get("unique_id"), str):
        fields["id"] = row["unique_id"]
    return _keep(row, fields)


def last_boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` / ``\\fbox{...}`` (braces balanced), or of
    ``\\boxed 5``; None when there is none or it is never closed."""
    starts = [m for m in re.finditer(r"\\(?:boxed|fbox)\s*(\{|\s)", text)]
    for m in reversed(starts):
        if m.group(1) != "{":  # \boxed 5: up to the next space or $
            rest = re.match(r"\s*([^\s$]+)", text[m.end() - 1 :])
            if rest:
                return rest.group(1)
            continue
        depth, i = 1, m.end()
        while i < len(text):
            ch = text[i]
            if ch == "\\":
                i += 2  # an escaped brace \{ does not count
                continue
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    content = text[m.end() : i].strip()
                    return content or None
            i += 1
    return None


def _text(row: dict, name: str) -> str:
    if name not in row:
        present = ", ".join(row) or "none"
        raise ValueError(f"missing field {name!r} (fields present: {present})")
    value = row[name]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"field {name!r} must be a non-empty string")
    return value


def _keep(row: dict, fields: dict) -> dict:
    """Carry over the row's own id and split, when it has them."""
    for key in ("id", "split"):
        if key in row:
            fields[key] = row[key]
    return fields
