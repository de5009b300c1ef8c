"""Tasks from the Berkeley Function Calling Leaderboard (BFCL v4), as the ``bfcl-eval``
package ships them: ``--suite bfcl:simple`` and friends.

The data lies in the installed package (``bfcl_eval/data/BFCL_v4_<category>.json``, JSON
lines, with the ground truths in ``possible_answer/``); loading reads those files and needs
no network and no import of ``bfcl_eval`` (whose import chain wants every model vendor's
SDK).

One BFCL entry becomes one tool-domain task:

- ``prompt``: the content of the (last) user turn; earlier turns of the live categories
  (a system prompt, a previous exchange) are kept in ``metadata["messages"]``.
- ``metadata["tools"]``: the function docs as OpenAI-format function schemas, BFCL's types
  turned into JSON Schema (``dict`` -> object, ``float`` -> number, ``tuple`` -> array,
  ``any`` -> no type constraint, ...); the original docs stay in
  ``metadata["bfcl"]["function"]`` for the real BFCL checker (examples/bfcl_checker.py).
- ``reference``: ONE concrete call list. BFCL's ground truth lists, per argument, every
  acceptable value, ``""`` meaning "may be omitted": ``{"f": {"unit": ["units", ""]}}``.
  We take the first listed value of each argument and omit the argument when that value
  is ``""`` (the annotators list their preferred form first); a dict-typed argument's
  acceptable dicts are reduced the same way, key by key. What BFCL's checker itself would
  refuse is skipped: a *required* argument is never omitted (the checker demands it even
  where the ground truth lists ``""``), an argument the docs do not define is always
  omitted. And the call list must meet the JSON Schema of ``metadata["tools"]`` under the
  tool domain's rules (``schema.validate_call``): BFCL's ground truth also lists values its
  own docs forbid (an enum value in another case, ``None`` for a number, a variable's name
  for a list), so the reference is the first combination, in the order below, that does.
- ``metadata["alternatives"]``: up to ``MAX_ALTERNATIVES`` other concrete call lists the
  ground truth accepts and the schema allows (those differing from the reference in one
  argument's choice first, then in two, ...; ``SCAN`` combinations looked at), and
  ``metadata["bfcl_possible_answer"]``: the full ground truth, for the real checker.
- data defects are marked, not hidden: ``metadata["bfcl_unsatisfiable"]`` names the
  arguments no answer can satisfy under BFCL's own checker (5 live entries: ``[]`` as the
  acceptable values, a required parameter the ground truth lacks or lists only as
  ``""``, an argument the docs lack), ``metadata["bfcl_off_schema"]`` says why no listed
  answer meets the docs' schema (2 of the 1,240 core entries, 21 live ones); the tool
  domain's ``check_task`` drops the latter as unusable gold.
- ``metadata["kind"]``: from the category; ``order_matters`` is false (BFCL's checker
  matches parallel calls in any order); ``family``: the dotted namespace of the answer's
  (or the first tool's) function, else its leading name word (``math.factorial`` ->
  ``math``, ``get_weather`` -> ``get``).
- ``split``: every 5th entry (index 4, 9, ...) is ``heldout``, the rest ``train``.
- irrelevance: ``reference`` is ``"[]"`` (BFCL's rule: no function call is the answer).
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import itertools
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ...errors import InputError
from ...models import Task
from ..suite_files import read_jsonl

PREFIX = "bfcl:"
MAX_ALTERNATIVES = 8
SCAN = 256  # combinations of the ground truth's options looked at per entry

# Our category name -> (BFCL file stem, kind). "simple" is BFCL's simple_python.
CATEGORIES: dict[str, tuple[str, str]] = {
    "simple": ("simple_python", "simple"),
    "multiple": ("multiple", "multiple"),
    "parallel": ("parallel", "parallel"),
    "parallel_multiple": ("parallel_multiple", "parallel_multiple"),
    "irrelevance": ("irrelevance", "irrelevance"),
    "live_simple": ("live_simple", "simple"),
    "live_multiple": ("live_multiple", "multiple"),
    "live_parallel": ("live_parallel", "parallel"),
    "live_parallel_multiple": ("live_parallel_multiple", "parallel_multiple"),
    "live_irrelevance": ("live_irrelevance", "irrelevance"),
}
ALIASES = {
    "simple_python": "simple",
    "parallel-multiple": "parallel_multiple",
    "live-parallel-multiple": "live_parallel_multiple",
}

# BFCL's parameter types (Python-flavoured, from its function docs) -> JSON Schema types.
# ``any`` has no JSON Schema type: any value. (BFCL's own checker types ``any`` as str.)
JSON_TYPES = {
    "dict": "object",
    "object": "object",
    "float": "number",
    "number": "number",
    "double": "number",
    "integer": "integer",
    "int": "integer",
    "long": "integer",
    "short": "integer",
    "byte": "integer",
    "string": "string",
    "str": "string",
    "char": "string",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "any": None,
}


def data_dir() -> Path:
    """The BFCL data folder of the installed ``bfcl-eval``, found without importing it."""
    try:
        spec = importlib.util.find_spec("bfcl_eval")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise InputError(
            "the bfcl: suites read the data shipped in the bfcl-eval package, which is not "
            "installed: pip install --no-deps bfcl-eval"
        )
    return Path(next(iter(spec.submodule_search_locations))) / "data"


def category_name(category: str) -> str:
    name = ALIASES.get(category.strip().lower(), category.strip().lower())
    if name not in CATEGORIES:
        raise InputError(
            f"BFCL category {category!r}: expected one of {', '.join(CATEGORIES)} (e.g. --suite {PREFIX}simple)"
        )
    return name


def files(category: str) -> tuple[Path, Path | None]:
    """(question file, possible-answer file or None for the irrelevance categories)."""
    stem, kind = CATEGORIES[category_name(category)]
    root = data_dir()
    question = root / f"BFCL_v4_{stem}.json"
    answer = root / "possible_answer" / f"BFCL_v4_{stem}.json"
    if not question.is_file():
        raise InputError(f"{question}: missing from the installed bfcl-eval")
    if kind != "irrelevance" and not answer.is_file():
        raise InputError(f"{answer}: missing from the installed bfcl-eval")
    return question, (answer if kind != "irrelevance" else None)


def content_hash(category: str, tasks: list[Task] | None = None) -> str:
    """Of the category's data files as installed, and of the tasks made from them (the
    reference choice reads the tool domain's schema rules: a change there changes tasks)."""
    digest = hashlib.sha256()
    for path in files(category):
        if path is not None:
            digest.update(path.name.encode() + b"\n" + path.read_bytes())
    for task in tasks or []:
        digest.update(json.dumps(task.model_dump(mode="json"), sort_keys=True, ensure_ascii=True).encode() + b"\n")
    return digest.hexdigest()[:16]


def _rows(path: Path) -> list[dict]:
    """The file's JSON lines, read as any JSONL suite is (``suite_files.read_jsonl``)."""
    return [row for _, row in read_jsonl(path)]


# -- function docs -> JSON Schema ---------------------------------------------------------


def to_json_schema(node: Any) -> Any:
    """One BFCL parameter node (or the ``parameters`` object) as JSON Schema. Keys other
    than the type are kept (description, enum, default, items, properties, required)."""
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "type":
            mapped = JSON_TYPES.get(value, "string") if isinstance(value, str) else value
            if mapped is not None:
                out["type"] = mapped
            if value == "float":
                out["format"] = "float"
            if value == "tuple":
                out["x-bfcl-type"] = "tuple"
        elif key == "properties" and isinstance(value, dict):
            out["properties"] = {k: to_json_schema(v) for k, v in value.items()}
        elif key == "items":
            out["items"] = to_json_schema(value)
        elif key == "optional":
            continue  # folded into "required" by the docs themselves
        else:
            out[key] = copy.deepcopy(value)
    return out


def tool_schema(function: dict) -> dict:
    params = to_json_schema(function.get("parameters") or {"type": "dict", "properties": {}})
    params.setdefault("type", "object")
    params.setdefault("properties", {})
    return {"name": function["name"], "description": function.get("description", ""), "parameters": params}


# -- possible answers -> reference + alternatives ----------------------------------------


def _param(function: dict | None, name: str) -> dict:
    if not function:
        return {}
    return ((function.get("parameters") or {}).get("properties") or {}).get(name) or {}


def _options(options: list, schema: dict) -> list[tuple[bool, Any]]:
    """The concrete choices of one argument: (present, value), in BFCL's order."""
    out = []
    for value in options:
        if value == "":
            choice = (False, None)
        elif schema.get("type") == "dict" and isinstance(value, dict):
            choice = (True, _reduce_dict(value, schema))
        elif (
            schema.get("type") == "array"
            and (schema.get("items") or {}).get("type") == "dict"
            and isinstance(value, list)
        ):
            choice = (True, [_reduce_dict(v, schema["items"]) if isinstance(v, dict) else v for v in value])
        else:
            choice = (True, value)
        if choice not in out:
            out.append(choice)
    return out


def _reduce_dict(value: dict, schema: dict) -> dict:
    """A dict-typed argument's acceptable dict ({key: [options]}) as one concrete dict."""
    props = schema.get("properties") or {}
    out = {}
    for key, options in value.items():
        if not isinstance(options, list) or not options:
            out[key] = options
            continue
        present, chosen = _options(options, props.get(key) or {})[0]
        if present:
            out[key] = chosen
    return out


def _call_choices(
    name: str, args: dict, function: dict | None, problems: list[str] | None = None
) -> list[list[tuple[str, bool, Any]]]:
    """Per argument, its concrete choices (arg, present, value) that BFCL's checker can
    accept: a required argument is never omitted (the checker demands it even when the
    ground truth lists ``""``), an argument the function docs do not define is always
    omitted (the checker calls it unexpected). What no choice can satisfy -- an argument
    listed as ``[]``, a required one listed only as ``""``, one the docs lack and the
    ground truth requires, a required parameter the ground truth lacks -- is a data defect
    of that entry, noted in ``problems``."""
    problems = [] if problems is None else problems
    params = (function or {}).get("parameters") or {}
    props, required = params.get("properties") or {}, set(params.get("required") or [])
    out = []
    for arg, opts in args.items():
        opts = opts if isinstance(opts, list) else [opts]
        choices = [(arg, present, value) for present, value in _options(opts, _param(function, arg))]
        if function is not None and arg not in props:
            choices = [c for c in choices if not c[1]]
        elif arg in required:
            choices = [c for c in choices if c[1]]
        if not choices:
            problems.append(f"{name}.{arg}")
            choices = [(arg, False, None)]
        out.append(choices)
    problems.extend(f"{name}.{arg}" for arg in sorted(required - set(args)) if function is not None)
    return out


def unsatisfiable(ground_truth: list[dict], functions: list[dict]) -> list[str]:
    """``func.arg`` for every argument of the ground truth that no answer can satisfy."""
    by_name = {f["name"]: f for f in functions}
    problems: list[str] = []
    for entry in ground_truth:
        for name, args in entry.items():
            _call_choices(name, args, by_name.get(name), problems)
    return problems


def _make_call(name: str, choice: tuple) -> dict:
    return {"name": name, "arguments": {arg: value for arg, present, value in choice if present}}


def combinations(ground_truth: list[dict], functions: list[dict]) -> Iterator[list[dict]]:
    """Every concrete call list the ground truth accepts, without repeats: the first
    option of every argument first, then those differing in one argument, in two, ..."""
    by_name = {f["name"]: f for f in functions}
    calls = []  # per call: name, per-argument option lists
    for entry in ground_truth:
        ((name, args),) = entry.items()
        calls.append((name, _call_choices(name, args, by_name.get(name))))
    varying = [
        (ci, ai, len(opts)) for ci, (_, per_arg) in enumerate(calls) for ai, opts in enumerate(per_arg) if len(opts) > 1
    ]

    def build(picks: dict) -> list[dict]:
        return [
            _make_call(name, [opts[picks.get((ci, ai), 0)] for ai, opts in enumerate(per_arg)])
            for ci, (name, per_arg) in enumerate(calls)
        ]

    seen = set()
    for depth in range(0, len(varying) + 1):
        for combo in itertools.combinations(varying, depth):
            for picks in itertools.product(*[range(1, n) for _, _, n in combo]):
                out = build({(ci, ai): p for (ci, ai, _), p in zip(combo, picks)})
                key = json.dumps(out, sort_keys=True)
                if key not in seen:
                    seen.add(key)
                    yield out


def schema_problem(calls: list[dict], tools: list[dict]) -> str | None:
    """Why a call list breaks the tools' JSON Schemas (the tool domain's own rules), or None."""
    try:
        from .calls import Call
        from .schema import validate_call
    except ImportError:  # the domain's schema module is not there: nothing to check against
        return None
    schemas = {t["name"]: t for t in tools}
    for call in calls:
        problem = validate_call(Call(call["name"], call["arguments"]), schemas)
        if problem:
            return problem
    return None


def reference_and_alternatives(
    ground_truth: list[dict],
    functions: list[dict],
    limit: int = MAX_ALTERNATIVES,
    scan: int = SCAN,
    tools: list[dict] | None = None,
) -> tuple[list[dict], list[list[dict]], str | None]:
    """ONE concrete call list and up to ``limit`` others the ground truth accepts, among
    the first ``scan`` combinations in ``combinations`` order; with ``tools``, only call
    lists that meet the tools' JSON Schemas (BFCL's ground truth also lists values its own
    docs forbid: an enum in another case, ``None`` for a number, a variable's name).
    The third item: why no combination met the schema (the first is then the reference)."""
    found: list[list[dict]] = []
    first, problem = None, None
    for n, calls in enumerate(combinations(ground_truth, functions)):
        if n >= scan or len(found) > limit:
            break
        if first is None:
            first = calls
        why = schema_problem(calls, tools) if tools is not None else None
        if why is None:
            found.append(calls)
        elif problem is None:
            problem = why
    if not found:
        return first or [], [], problem
    return found[0], found[1 : limit + 1], None


def family(names: list[str]) -> str:
    name = names[0] if names else "none"
    if "." in name:
        return name.split(".", 1)[0].lower()
    return re.split(r"[_\-]|(?<=[a-z])(?=[A-Z])", name)[0].lower() or name.lower()


def _prompt(question: list) -> tuple[str, list[dict]]:
    turns = [m for turn in question for m in (turn if isinstance(turn, list) else [turn])]
    users = [i for i, m in enumerate(turns) if m.get("role") == "user"]
    if not users:
        raise ValueError("no user turn")
    last = users[-1]
    return str(turns[last].get("content", "")), turns[:last]


def load_bfcl(category: str, *, limit: int | None = None) -> list[Task]:
    """The tasks of one BFCL v4 category (``simple``, ``multiple``, ``parallel``,
    ``parallel_multiple``, ``irrelevance``, and the ``live_*`` ones), in file order."""
    name = category_name(category)
    stem, kind = CATEGORIES[name]
    question_path, answer_path = files(name)
    rows = _rows(question_path)
    answers = {}
    if answer_path is not None:
        answers = {row["id"]: row["ground_truth"] for row in _rows(answer_path)}
    tasks = []
    for index, row in enumerate(rows):
        if limit is not None and len(tasks) >= limit:
            break
        functions = row.get("function") or []
        try:
            prompt, earlier = _prompt(row.get("question") or [])
        except ValueError as exc:
            raise InputError(f"{question_path}: entry {row.get('id')!r}: {exc}") from None
        off_schema = None
        if kind == "irrelevance":
            ground_truth, reference, alternatives = None, [], []
        else:
            if row["id"] not in answers:
                raise InputError(f"{answer_path}: no possible answer for {row['id']!r}")
            ground_truth = answers[row["id"]]
            tools = [tool_schema(f) for f in functions]
            reference, alternatives, off_schema = reference_and_alternatives(ground_truth, functions, tools=tools)
        names = [c["name"] for c in reference] or [f["name"] for f in functions]
        metadata: dict[str, Any] = {
            "tools": [tool_schema(f) for f in functions],
            "alternatives": alternatives,
            "order_matters": False,
            "kind": kind,
            "family": family(names),
            "source": f"BFCL v4 {stem}",
            "bfcl": {"id": row["id"], "category": stem, "function": functions},
        }
        if ground_truth is not None:
            metadata["bfcl_possible_answer"] = ground_truth
            broken = unsatisfiable(ground_truth, functions)
            if broken:  # a data defect: the real checker rejects every answer to this entry
                metadata["bfcl_unsatisfiable"] = broken
            if off_schema:  # a data defect: no answer the ground truth lists meets the docs' schema
                metadata["bfcl_off_schema"] = off_schema
        if earlier:
            metadata["messages"] = earlier
        tasks.append(
            Task(
                id=f"bfcl-{row['id']}",
                domain="tool",
                prompt=prompt,
                reference=json.dumps(reference, ensure_ascii=False),
                split="heldout" if index % 5 == 4 else "train",
                metadata=metadata,
            )
        )
    return tasks


# The tool domain's suite scheme (Domain.suite_schemes): --suite bfcl:simple
PREFIX = "bfcl:"


def bfcl_suite(spec: str, *, fields: list[str] | None = None, fmt: str | None = "jsonl", domain: str | None = None):
    """A BFCL v4 category as a tool-domain suite (``--suite bfcl:simple``). Its content
    hash is of the category's data files (questions and possible answers) as installed and
    of the tasks made from them."""
    from ..base import Suite

    if fields:
        raise InputError(f"suite {spec!r}: --field maps the columns of a file; a BFCL suite has none")
    if fmt not in (None, "jsonl"):
        raise InputError(f"suite {spec!r}: --format {fmt} reads files; leave it out for a BFCL suite")
    if domain not in (None, "tool"):
        raise InputError(f"suite {spec!r}: BFCL tasks are in the tool domain, not {domain!r}")
    category = spec[len(PREFIX) :].strip()
    if not category:
        raise InputError(
            f"suite {spec!r}: name a BFCL category, one of {', '.join(CATEGORIES)} (e.g. --suite {PREFIX}simple)"
        )
    try:
        name = category_name(category)
    except InputError as exc:
        raise InputError(f"suite {spec!r}: {exc}") from None
    question, _ = files(name)
    tasks = load_bfcl(name)
    return Suite(name=f"{PREFIX}{name}", path=question, tasks=tasks, content_hash=content_hash(name, tasks))
