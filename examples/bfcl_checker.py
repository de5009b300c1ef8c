"""The Berkeley Function Calling Leaderboard's real AST checker, wrapped as a verifier.

    verifier-audit run --suite bfcl:simple --verifier examples/bfcl_checker.py:bfcl_ast

What runs is the code installed with ``bfcl-eval``, unmodified:

- decoding: ``bfcl_eval.model_handler.utils.default_decode_ast_prompting`` (what BFCL's
  prompting-mode handlers use: Python-call syntax, ``[f(a=1), g(b=2)]``), then
  ``bfcl_eval.utils.is_function_calling_format_output`` / ``is_empty_output``;
- checking: ``bfcl_eval.eval_checker.ast_eval.ast_checker.ast_checker`` with the task's
  BFCL function docs and possible answer, ``Language.PYTHON`` and the BFCL category.

One module is stood in, and only while the checker is imported: ``ast_checker.py`` does
``from bfcl_eval.constants.model_config import MODEL_CONFIG_MAPPING``, and the real
``model_config.py`` imports the handler of every model BFCL ranks, hence every vendor's SDK
(google-genai, mistralai, qwen-agent, writer-sdk, and through them google-auth, websockets,
json5, soundfile with its native libsndfile, dashscope, datamodel-code-generator, ...). The
checker reads exactly one thing from that module: ``MODEL_CONFIG_MAPPING[model].
underscore_to_dot``, in ``convert_func_name``, to decide whether the expected function name's
dots are written as underscores (True for FC-mode OpenAI/Mistral/Google models, whose APIs
forbid dots). Our stand-in maps one model name, ``verifier-audit-bfcl``, to a config with
``underscore_to_dot=False``: names are compared as the function docs write them, as for
BFCL's prompting-mode models. If the real ``model_config`` is already imported (the SDKs
are installed and something imported it), it is used as is and the stand-in is never made.
The stand-in is removed from ``sys.modules`` as soon as the checker module is loaded.

Verifiers here (native style, ``(completion, task)``):

- ``bfcl_ast_prompting``: exactly BFCL's prompting pipeline: the completion is decoded by
  BFCL's Python-call decoder; a decode failure is a rejection.
- ``bfcl_ast``: the same, and when BFCL's Python decoder fails, the completion is read as
  structured tool calls (JSON ``{"name", "arguments"}``, a list of them, OpenAI
  ``tool_calls``, Hermes ``<tool_call>`` tags, fenced or bare; verifier_audit's
  ``calls.parse_calls``) and handed to the checker as ``[{name: arguments}]`` -- the shape
  BFCL's function-calling-mode handlers build from an API's tool calls before checking.

Irrelevance tasks (``reference == "[]"``) follow BFCL's relevance runner: the answer is right
when decoding fails or decodes to no call (``is_empty_output``).

Tasks not from BFCL (no ``metadata["bfcl"]``, e.g. the built-in ``--suite tool``) are
converted to BFCL's shapes: JSON Schema types back to BFCL's (object -> dict, number ->
float, ...), and the reference plus ``metadata["alternatives"]`` to a possible answer
(per argument, every value the reference or a same-shaped alternative gives; ``""`` when
the argument is optional and the value given is the schema's default, or when an optional
argument with a default is left out). BFCL's possible-answer format holds independent
per-argument choices, so an alternative of another shape (other functions, another number
of calls) cannot be expressed and is not carried over.

Note: BFCL's decoder ``eval``s two kinds of argument expression (``resolve_ast_by_type``:
``ast.BinOp`` and ``ast.Lambda`` are passed to ``eval(ast.unparse(...))``), so
``f(a=len("abc") + 0)`` is decoded as ``a=3`` by running ``len``. That is model output
executed by the grader; the audit runs it in its isolated workers.
"""

from __future__ import annotations

import copy as _copy
import json
import re as _re
import sys
import types
from dataclasses import dataclass
from typing import Any

MODEL_NAME = "verifier-audit-bfcl"  # no "_": convert_func_name turns "_" into "/" to look it up
STOOD_IN = "bfcl_eval.constants.model_config"

_checker = None  # the loaded BFCL functions


@dataclass
class _StandInModelConfig:
    """The one field of BFCL's ModelConfig that the AST checker reads."""

    model_name: str = MODEL_NAME
    underscore_to_dot: bool = False


def _stand_in_module() -> types.ModuleType:
    module = types.ModuleType(
        STOOD_IN,
        "Stand-in made by examples/bfcl_checker.py: only what "
        "ast_checker.py reads (MODEL_CONFIG_MAPPING[..].underscore_to_dot).",
    )
    module.ModelConfig = _StandInModelConfig
    module.MODEL_CONFIG_MAPPING = {MODEL_NAME: _StandInModelConfig()}
    module.__file__ = __file__
    return module


def load_checker() -> types.SimpleNamespace:
    """BFCL's decoder and checker functions, imported from the installed package."""
    global _checker
    if _checker is not None:
        return _checker
    checker_name = "bfcl_eval.eval_checker.ast_eval.ast_checker"
    stood_in = False
    if checker_name not in sys.modules and STOOD_IN not in sys.modules:
        sys.modules[STOOD_IN] = _stand_in_module()
        stood_in = True
    try:
        import importlib

        ast_checker = importlib.import_module(checker_name)
    finally:
        if stood_in:  # nobody else sees the stand-in
            del sys.modules[STOOD_IN]
            constants = sys.modules.get("bfcl_eval.constants")
            if (
                constants is not None
                and getattr(constants, "model_config", None) is not None
                and getattr(constants.model_config, "__file__", None) == __file__
            ):
                delattr(constants, "model_config")
    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.model_handler.utils import default_decode_ast_prompting
    from bfcl_eval.utils import is_empty_output, is_function_calling_format_output

    mapping = ast_checker.MODEL_CONFIG_MAPPING
    model = (
        MODEL_NAME
        if MODEL_NAME in mapping
        else next((name for name, cfg in mapping.items() if "_" not in name and not cfg.underscore_to_dot), None)
    )
    if model is None:
        raise RuntimeError("no BFCL model config with underscore_to_dot=False to check against")
    _checker = types.SimpleNamespace(
        module=ast_checker,
        ast_checker=ast_checker.ast_checker,
        Language=Language,
        ReturnFormat=ReturnFormat,
        decode=default_decode_ast_prompting,
        is_empty_output=is_empty_output,
        is_format=is_function_calling_format_output,
        model=model,
        stood_in=stood_in,
    )
    return _checker


# -- decoding -----------------------------------------------------------------------------


class _Undecodable(Exception):
    pass


def decode(completion: str, *, structured_fallback: bool) -> list:
    """The completion as BFCL's model_output, ``[{"func": {"arg": value}}]``."""
    bfcl = load_checker()
    try:
        return bfcl.decode(completion, bfcl.ReturnFormat.PYTHON, False)
    except Exception as exc:  # BFCL's runners count any decoder exception as a decode failure
        if not structured_fallback:
            raise _Undecodable(str(exc)) from None
        first = exc
    from verifier_audit.domains.tool.calls import CallParseError, parse_calls

    try:
        calls = parse_calls(completion)
    except CallParseError:
        raise _Undecodable(str(first)) from None
    return [{call.name: dict(call.arguments)} for call in calls]


# -- our tool schema / reference -> BFCL's shapes --------------------------------------------

_BFCL_TYPES = {
    "object": "dict",
    "number": "float",
    "integer": "integer",
    "string": "string",
    "boolean": "boolean",
    "array": "array",
    "null": "any",
}


def _bfcl_type(schema: dict, example: Any = None) -> str:
    if schema.get("x-bfcl-type"):
        return schema["x-bfcl-type"]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), None)
    if kind in _BFCL_TYPES:
        return _BFCL_TYPES[kind]
    if example is not None:  # no type in the schema: the value's, as BFCL's data would write it
        for py, name in (
            (bool, "boolean"),
            (int, "integer"),
            (float, "float"),
            (str, "string"),
            (list, "array"),
            (dict, "dict"),
        ):
            if isinstance(example, py):
                return name
    return "any"


def _bfcl_param(schema: dict, example: Any = None) -> dict:
    out = {k: v for k, v in schema.items() if k not in ("type", "properties", "items")}
    out["type"] = _bfcl_type(schema, example)
    if out["type"] == "dict" and isinstance(schema.get("properties"), dict):
        sample = example if isinstance(example, dict) else {}
        out["properties"] = {k: _bfcl_param(v, sample.get(k)) for k, v in schema["properties"].items()}
    if out["type"] in ("array", "tuple"):
        items = schema.get("items") if isinstance(schema.get("items"), dict) else {}
        first = example[0] if isinstance(example, list) and example else None
        out["items"] = _bfcl_param(items, first) if (items or first is not None) else {"type": "string"}
    return out


def bfcl_function_docs(tools: list[dict], reference: list[dict]) -> list[dict]:
    examples: dict[str, dict] = {}
    for call in reference:
        for arg, value in call.get("arguments", {}).items():
            examples.setdefault(call["name"], {}).setdefault(arg, value)
    docs = []
    for tool in tools:
        tool = tool.get("function", tool) if tool.get("type") == "function" else tool
        params = tool.get("parameters") or {}
        props = params.get("properties") or {}
        sample = examples.get(tool["name"], {})
        docs.append(
            {
                "name": tool["name"],
                "description": tool.get("description", ""),
                "parameters": {
                    "type": "dict",
                    "properties": {k: _bfcl_param(v, sample.get(k)) for k, v in props.items()},
                    "required": list(params.get("required") or []),
                },
            }
        )
    return docs


def _answer_value(value: Any, param: dict) -> Any:
    """One concrete value in BFCL's possible-answer shape (a dict's values are option lists)."""
    if param.get("type") == "dict" and isinstance(value, dict):
        return {k: [v] for k, v in value.items()}
    if param.get("type") == "array" and (param.get("items") or {}).get("type") == "dict" and isinstance(value, list):
        return [{k: [v] for k, v in item.items()} if isinstance(item, dict) else item for item in value]
    return value


def bfcl_possible_answer(reference: list[dict], alternatives: list[list[dict]], docs: list[dict]) -> list[dict]:
    by_name = {d["name"]: d for d in docs}
    names = [c["name"] for c in reference]
    shaped = [alt for alt in alternatives if [c.get("name") for c in alt] == names]
    answer = []
    for index, call in enumerate(reference):
        doc = by_name.get(call["name"], {"parameters": {"properties": {}, "required": []}})
        props, required = doc["parameters"]["properties"], set(doc["parameters"]["required"])
        options: dict[str, list] = {}
        for source in [reference, *shaped]:
            for arg, value in source[index].get("arguments", {}).items():
                v = _answer_value(value, props.get(arg, {}))
                options.setdefault(arg, [])
                if v not in options[arg]:
                    options[arg].append(v)
        for arg in list(options):
            if any(arg not in source[index].get("arguments", {}) for source in shaped):
                options[arg].append("")  # an alternative leaves it out
        for arg, param in props.items():
            if arg in required:
                continue
            if "default" in param:
                default = _answer_value(param["default"], param)
                if arg not in options:
                    options[arg] = ["", default]
                elif default in options[arg] and "" not in options[arg]:
                    options[arg].append("")
        answer.append({call["name"]: {k: v for k, v in options.items()}})
    return answer


def _category_for(task, reference: list[dict]) -> str:
    kind = (task.metadata or {}).get("kind")
    if kind in ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance"):
        return kind
    tools = (task.metadata or {}).get("tools") or []
    if len(reference) > 1:
        return "parallel_multiple" if len(tools) > 1 else "parallel"
    return "multiple" if len(tools) > 1 else "simple"


def bfcl_view(task) -> tuple[list[dict], list[dict] | None, str]:
    """(function docs, possible answer or None for irrelevance, BFCL test category)."""
    meta = task.metadata or {}
    if "bfcl" in meta:
        category = meta["bfcl"]["category"]
        answer = None if "irrelevance" in category else meta["bfcl_possible_answer"]
        return meta["bfcl"]["function"], answer, category
    try:
        reference = json.loads(task.reference)
    except (json.JSONDecodeError, TypeError):
        from verifier_audit.domains.tool.calls import parse_calls

        reference = [c.to_json() for c in parse_calls(task.reference)]
    if isinstance(reference, dict):
        reference = [reference]
    docs = bfcl_function_docs(meta.get("tools") or [], reference)
    if not reference:
        return docs, None, "irrelevance"
    return docs, bfcl_possible_answer(reference, meta.get("alternatives") or [], docs), _category_for(task, reference)


# -- the verifiers ------------------------------------------------------------------------


def check(completion: str, task, *, structured_fallback: bool = True) -> dict:
    """BFCL's verdict on one completion: ``{"valid": bool, "error": [...], "error_type": ...}``."""
    bfcl = load_checker()
    docs, answer, category = bfcl_view(task)
    try:
        output = decode(completion, structured_fallback=structured_fallback)
    except _Undecodable as exc:
        if answer is None:
            return {"valid": True, "error": [], "error_type": "irrelevance:no_call"}
        return {
            "valid": False,
            "error": [f"Invalid syntax. Failed to decode AST. {exc}"],
            "error_type": "ast_decoder:decoder_failed",
        }
    if answer is None:  # _evaluate_single_relevance_entry, irrelevance
        if bfcl.is_empty_output(output):
            return {"valid": True, "error": [], "error_type": "irrelevance:no_call"}
        return {
            "valid": False,
            "error": ["Valid syntax. Successfully decode AST when it should not."],
            "error_type": "irrelevance_error:decoder_success",
        }
    if not bfcl.is_format(output):
        return {
            "valid": False,
            "error": ["Did not output in the specified format."],
            "error_type": "ast_decoder:decoder_wrong_output_format",
        }
    return bfcl.ast_checker(docs, output, answer, bfcl.Language.PYTHON, category, bfcl.model)


def bfcl_ast(completion: str, task) -> float:
    """BFCL's AST checker; Python-call syntax by BFCL's decoder, else JSON tool calls."""
    return 1.0 if check(completion, task, structured_fallback=True)["valid"] else 0.0


def bfcl_ast_prompting(completion: str, task) -> float:
    """BFCL's AST checker behind BFCL's prompting decoder only (Python-call syntax)."""
    return 1.0 if check(completion, task, structured_fallback=False)["valid"] else 0.0


# -- a direct measurement: hand-made near-misses and equivalents -----------------------------
#
#     python examples/bfcl_checker.py [CATEGORY ...] [--limit N]
#
# prints, per mutation, how many the real checker (bfcl_ast) accepts. Each mutation is made
# from the task's reference by construction; "label" is what it is by construction, and the
# tool domain's oracle (when installed) is asked too, so a row where they disagree shows.

_NEG = _re.compile(r"(?<![\w.])-(?=\d)")
_DOT = _re.compile(r"(?<=\d)[./](?=\d)")


def _py(calls: list[dict]) -> str:
    from verifier_audit.domains.tool.calls import Call, render_calls

    return render_calls([Call(c["name"], c["arguments"]) for c in calls], "python")


def _first_arg(calls: list[dict], test) -> tuple[int, str] | None:
    for i, call in enumerate(calls):
        for arg, value in call["arguments"].items():
            if test(value):
                return i, arg
    return None


def _with(calls: list[dict], where: tuple[int, str], value: Any) -> list[dict]:
    out = _copy.deepcopy(calls)
    out[where[0]]["arguments"][where[1]] = value
    return out


def mutations(task) -> list[tuple[str, str, str]]:
    """(mutation, label by construction, completion) for one task."""
    from verifier_audit.domains.tool.calls import Call, render_calls

    ref = json.loads(task.reference)
    tools = (task.metadata or {}).get("tools") or []
    out: list[tuple[str, str, str]] = []
    if not ref:  # irrelevance: the right answer is no call
        if not tools:
            return out
        tool = tools[0]
        props = (tool.get("parameters") or {}).get("properties") or {}
        args = {
            k: ("x" if (v.get("type") == "string") else 1)
            for k, v in props.items()
            if k in ((tool.get("parameters") or {}).get("required") or [])
        }
        call = _py([{"name": tool["name"], "arguments": args}])
        out += [
            ("irrelevance.abstain_prose", "correct", "None of the given functions can answer this."),
            ("irrelevance.empty_list", "correct", "[]"),
            ("irrelevance.calls_a_tool", "incorrect", call),
            ("irrelevance.calls_a_tool_json", "incorrect", render_calls([Call(tool["name"], args)], "json_list")),
            ("irrelevance.truncated_call", "ambiguous", call[:-1]),
        ]
        return out
    params = {t["name"]: (t.get("parameters") or {}) for t in tools}
    # equivalents
    out += [
        ("equivalent.python_call", "correct", _py(ref)),
        ("equivalent.json_list", "correct", render_calls([Call(c["name"], c["arguments"]) for c in ref], "json_list")),
        ("equivalent.fenced_python", "correct", f"```python\n{_py(ref)}\n```"),
        ("format.prose_then_call", "ambiguous", f"Sure, here is the call:\n{_py(ref)}"),
    ]
    if len(ref) > 1:
        out.append(("equivalent.parallel_reordered", "correct", _py(list(reversed(ref)))))
    where = _first_arg(ref, lambda v: isinstance(v, int) and not isinstance(v, bool))
    if where:
        kind = ((params.get(ref[where[0]]["name"], {}).get("properties") or {}).get(where[1]) or {}).get("type")
        value = ref[where[0]]["arguments"][where[1]]
        if kind == "integer":
            out.append(("equivalent.integral_float_for_integer", "correct", _py(_with(ref, where, float(value)))))
        out.append(("near_miss.int_off_by_one", "incorrect", _py(_with(ref, where, value + 1))))
        out.append(("near_miss.number_as_string", "incorrect", _py(_with(ref, where, str(value)))))
        # BFCL's decoder eval()s a binary operation: the grader runs this expression
        text = _py(_with(ref, where, 0)).replace(f"{where[1]}=0", f"{where[1]}=int({str(value - 1)!r}) + 1", 1)
        out.append(("security.expression_evaluated", "ambiguous", text))
    where = _first_arg(ref, lambda v: isinstance(v, float))
    if where:
        value = ref[where[0]]["arguments"][where[1]]
        out.append(("near_miss.float_times_10", "incorrect", _py(_with(ref, where, value * 10 if value else 1.0))))
    for ci, call in enumerate(ref):  # an optional argument with a default, given explicitly
        schema = params.get(call["name"], {})
        extra = next(
            (
                (k, v["default"])
                for k, v in (schema.get("properties") or {}).items()
                if k not in call["arguments"]
                and k not in (schema.get("required") or [])
                and "default" in v
                and v["default"] not in (None, "")
            ),
            None,
        )
        if extra:
            out.append(("equivalent.default_given", "correct", _py(_with(ref, (ci, extra[0]), extra[1]))))
            break
    where = _first_arg(ref, lambda v: isinstance(v, str) and any(ch.isalpha() for ch in v))
    if where:
        value = ref[where[0]]["arguments"][where[1]]
        swapped = value.swapcase()
        out.append(("lenient.string_case_changed", "ambiguous", _py(_with(ref, where, swapped))))
        out.append(("near_miss.string_other_word", "incorrect", _py(_with(ref, where, value + " Springs"))))
        if _re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", value):  # decoded as a bare name's text
            text = _py(ref).replace(repr(value), value, 1)
            out.append(("lenient.unquoted_string", "ambiguous", text))
        squashed = _re.sub(r"[ ,./\-_*^]", "", value)
        if squashed != value:
            out.append(("lenient.string_spaces_punctuation_removed", "ambiguous", _py(_with(ref, where, squashed))))
    where = _first_arg(ref, lambda v: isinstance(v, str) and bool(_NEG.search(v)))
    if where:
        value = ref[where[0]]["arguments"][where[1]]
        out.append(("near_miss.string_sign_dropped", "incorrect", _py(_with(ref, where, _NEG.sub("", value, 1)))))
    where = _first_arg(ref, lambda v: isinstance(v, str) and bool(_DOT.search(v)))
    if where:
        value = ref[where[0]]["arguments"][where[1]]
        out.append(
            ("near_miss.string_decimal_point_dropped", "incorrect", _py(_with(ref, where, _DOT.sub("", value, 1))))
        )
    where = _first_arg(ref, lambda v: isinstance(v, list) and len(v) > 1 and v != v[::-1])
    if where:
        value = ref[where[0]]["arguments"][where[1]]
        out.append(("lenient.list_reversed", "ambiguous", _py(_with(ref, where, list(reversed(value))))))
    others = [t["name"] for t in tools if t["name"] not in {c["name"] for c in ref}]
    wrong = _copy.deepcopy(ref)
    wrong[0]["name"] = others[0] if others else ref[0]["name"] + "_v2"
    out.append(("near_miss.wrong_function", "incorrect", _py(wrong)))
    required = params.get(ref[0]["name"], {}).get("required") or []
    present = [a for a in required if a in ref[0]["arguments"]]
    if present:
        dropped = _copy.deepcopy(ref)
        del dropped[0]["arguments"][present[0]]
        out.append(("near_miss.required_argument_dropped", "incorrect", _py(dropped)))
    if len(ref) > 1:
        out.append(("near_miss.parallel_call_dropped", "incorrect", _py(ref[:-1])))
    out.append(("near_miss.call_duplicated", "incorrect", _py(ref + [ref[-1]])))
    return out


def measure(categories: list[str], limit: int | None = None) -> dict:
    from collections import defaultdict

    from verifier_audit.domains.tool.bfcl import load_bfcl

    try:
        from verifier_audit.domains.tool.oracle import label_completion
    except ImportError:
        label_completion = None
    table: dict = defaultdict(
        lambda: {"label": "", "n": 0, "accepted": 0, "accepted_prompting": 0, "oracle_correct": 0, "example": None}
    )
    for category in categories:
        for task in load_bfcl(category, limit=limit):
            meta = task.metadata
            if meta.get("bfcl_unsatisfiable") or meta.get("bfcl_off_schema"):
                continue
            for name, label, text in mutations(task):
                row = table[name]
                row["label"] = label
                row["n"] += 1
                ok = bfcl_ast(text, task) >= 0.5
                row["accepted"] += ok
                row["accepted_prompting"] += bfcl_ast_prompting(text, task) >= 0.5
                if label_completion is not None:
                    row["oracle_correct"] += label_completion(text, task).label == "correct"
                if ok and label != "correct" and row["example"] is None:
                    row["example"] = {"task": task.id, "reference": task.reference, "completion": text}
    return dict(table)


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="what the real BFCL AST checker accepts")
    parser.add_argument(
        "categories", nargs="*", default=["simple", "multiple", "parallel", "parallel_multiple", "irrelevance"]
    )
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--json", action="store_true")
    ns = parser.parse_args()
    rows = measure(ns.categories, ns.limit)
    if ns.json:
        print(json.dumps(rows, indent=1))
    else:
        print(f"{'mutation':44} {'label':10} {'n':>5} {'bfcl_ast':>9} {'prompting':>9} {'oracle ok':>9}")
        for name in sorted(rows):
            r = rows[name]
            print(
                f"{name:44} {r['label']:10} {r['n']:5d} {r['accepted'] / r['n']:9.1%} "
                f"{r['accepted_prompting'] / r['n']:9.1%} {r['oracle_correct'] / r['n']:9.1%}"
            )
