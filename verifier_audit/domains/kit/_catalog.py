"""Catalogs of known-bad outputs: YAML data that a security reviewer reads and extends.

A catalog file (``adversarial_cases/<domain>.yaml``) has a top-level ``domain`` and a list
of ``entries``; each entry is one attack: an id, a dotted category, a severity, a template
for the completion, why it matters (rationale) and where it was seen (reference). The
placeholder language of templates is documented at the top of each catalog file and
implemented by ``expand_template`` here; a domain adds its own names (``reference``,
``wrong``, ``canary``...) through the ``resolve`` callback.

Every error is a ``CatalogError`` that names the file, the entry (index and id) and the
field, because the person fixing it is editing YAML, not Python.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from ...models import Severity
from ...resources import data_path

# A generous bound on one expanded template, so that a typo (repeat:20000000) fails loudly
# instead of eating the machine. The largest built-in entry is 2 MB.
MAX_EXPANDED_CHARS = 8_000_000

# Placeholders every domain gets; see the catalog files for what they write.
GENERIC_PLACEHOLDERS = {"repeat", "filler", "char", "seq", "lb", "rb"}

_ID = re.compile(r"^[a-z0-9][a-z0-9_.-]*$")
_CATEGORY = re.compile(r"^[a-z0-9_]+(\.[a-z0-9_]+)+$")
_NAME_START = re.compile(r"[A-Za-z_]")


class CatalogError(ValueError):
    """A catalog file that cannot be used; the message names file, entry and field."""


class TemplateError(ValueError):
    """A template that does not follow the placeholder language (wrapped into CatalogError)."""


class CatalogEntry(BaseModel):
    """One known-bad pattern. ``source`` is the file it came from (set by the loader)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    category: str
    severity: Severity
    template: str = Field(min_length=1)
    rationale: str = Field(min_length=1)
    reference: str = Field(min_length=1)
    instances: int = Field(default=12, ge=1, le=1000)
    applies_to: list[str] = Field(default_factory=list)  # domain-specific answer kinds; empty: all
    # "correct" marks a false-rejection probe: a right answer in a form verifiers trip on.
    label: Literal["incorrect", "correct"] = "incorrect"
    domain: str = ""
    source: str = ""

    @field_validator("id")
    @classmethod
    def _id_shape(cls, value: str) -> str:
        if not _ID.match(value):
            raise ValueError("must be lowercase letters, digits, '_', '-' or '.', e.g. two_boxes_wrong_last")
        return value

    @field_validator("category")
    @classmethod
    def _category_shape(cls, value: str) -> str:
        if not _CATEGORY.match(value):
            raise ValueError("must be dotted lowercase words, e.g. math.hedge.two_boxes")
        return value


# ------------------------------------------------------------------------- loading


def load_catalog(path: str | Path) -> list[CatalogEntry]:
    """Read and validate one catalog file; templates are checked for syntax here."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise CatalogError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise CatalogError(f"{path}: not UTF-8 text ({exc.reason})") from None
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc)
        raise CatalogError(f"{path}: {where}invalid YAML: {problem}") from None
    if not isinstance(data, dict):
        raise CatalogError(f"{path}: expected a mapping with 'domain' and 'entries' at the top")
    unknown = set(data) - {"domain", "entries", "version", "description"}
    if unknown:
        raise CatalogError(f"{path}: unknown top-level field(s) {', '.join(sorted(unknown))}; expected domain, entries")
    domain = data.get("domain")
    if not isinstance(domain, str) or not domain:
        raise CatalogError(f"{path}: field 'domain' is missing or not a string (e.g. domain: math)")
    raw_entries = data.get("entries")
    if not isinstance(raw_entries, list) or not raw_entries:
        raise CatalogError(f"{path}: field 'entries' must be a non-empty list")

    entries, seen = [], {}
    severities: dict[str, tuple] = {}  # category -> (severity, first entry id)
    for index, raw in enumerate(raw_entries):
        label = _entry_label(path, index, raw)
        if not isinstance(raw, dict):
            raise CatalogError(f"{label}: expected a mapping, found {type(raw).__name__}")
        if "domain" in raw or "source" in raw:
            raise CatalogError(f"{label}: field 'domain'/'source' is set by the file, not per entry")
        try:
            entry = CatalogEntry.model_validate({**raw, "domain": domain, "source": str(path)})
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(part) for part in first["loc"]) or "entry"
            more = f" (and {len(exc.errors()) - 1} more)" if len(exc.errors()) > 1 else ""
            raise CatalogError(f"{label}: field {field!r}: {first['msg']}{more}") from None
        if not entry.category.startswith(domain + "."):
            raise CatalogError(f"{label}: field 'category': {entry.category!r} must start with '{domain}.'")
        try:
            check_template(entry.template)
        except TemplateError as exc:
            raise CatalogError(f"{label}: field 'template': {exc}") from None
        first = severities.setdefault(entry.category, (entry.severity, entry.id))
        if first[0] != entry.severity:
            raise CatalogError(
                f"{label}: field 'severity': {entry.severity.value} differs from {first[0].value} of entry "
                f"{first[1]!r} in the same category {entry.category!r}; a category has one severity"
            )
        if entry.id in seen:
            raise CatalogError(f"{label}: field 'id': duplicate id {entry.id!r} (first at entry {seen[entry.id]})")
        seen[entry.id] = index
        entries.append(entry)
    return entries


def builtin_catalog(domain: str) -> list[CatalogEntry]:
    """The catalog shipped with the tool for ``domain`` (empty when there is none)."""
    path = data_path("adversarial_cases", f"{domain}.yaml")
    if not path.is_file():
        return []
    return load_catalog(path)


def _entry_label(path: Path, index: int, raw) -> str:
    entry_id = raw.get("id") if isinstance(raw, dict) else None
    return f"{path}: entry {index}" + (f" (id {entry_id!r})" if entry_id else "")


# ------------------------------------------------------------------ template language


Resolver = Callable[[str, str], str]  # (name, raw argument text) -> replacement


def expand_template(template: str, resolve: Resolver, *, limit: int = MAX_EXPANDED_CHARS) -> str:
    """Replace every ``{{name}}`` / ``{{name:args}}``; generic names first, then ``resolve``.

    ``resolve`` raises ``KeyError`` for a name it does not know (a ``TemplateError``
    follows) and may raise anything else to mean "cannot instantiate on this task".
    """
    out: list[str] = []
    size = 0
    for literal, name, args in _scan(template):
        piece = literal if name is None else _builtin(name, args, resolve, limit)
        size += len(piece)
        if size > limit:
            raise TemplateError(f"expands to more than {limit:,} characters")
        out.append(piece)
    return "".join(out)


def check_template(template: str, known: set[str] | None = None) -> set[str]:
    """Syntax-check a template; returns the placeholder names it uses (nested ones too).

    With ``known``, a name outside ``known`` and the generic names is an error.
    """
    names: set[str] = set()
    for _literal, name, args in _scan(template):
        if name is None:
            continue
        names.add(name)
        if name in ("repeat", "filler", "char", "seq"):
            _check_builtin_args(name, args)
        if name == "repeat":
            names |= check_template(args.partition(":")[2], known)
        elif name == "seq":
            parts = args.split(":", 2)
            if len(parts) == 3:
                names |= check_template(parts[2], known)
    if known is not None:
        unknown = names - known - GENERIC_PLACEHOLDERS
        if unknown:
            raise TemplateError(f"unknown placeholder(s) {', '.join('{{' + n + '}}' for n in sorted(unknown))}")
    return names


def _scan(template: str):
    """Yield (literal, None, None) and ("", name, args) pieces, left to right.

    A placeholder opens with ``{{`` directly followed by a letter or ``_`` (so LaTeX's
    ``\\boxed{{{reference}}}`` reads as ``\\boxed{`` + placeholder + ``}``) and closes at
    the matching ``}}``; placeholders nest inside arguments.
    """
    i, n = 0, len(template)
    while i < n:
        j = template.find("{{", i)
        while j != -1 and not (j + 2 < n and _NAME_START.match(template[j + 2])):
            j = template.find("{{", j + 1)
        if j == -1:
            yield template[i:], None, None
            return
        if j > i:
            yield template[i:j], None, None
        k, depth = j + 2, 1
        while k < n:
            if template.startswith("{{", k) and k + 2 < n and _NAME_START.match(template[k + 2]):
                depth, k = depth + 1, k + 2
            elif template.startswith("}}", k):
                depth -= 1
                if depth == 0:
                    break
                k += 2
            else:
                k += 1
        if depth:
            raise TemplateError(f"placeholder opened at character {j} is never closed with '}}}}'")
        body = template[j + 2 : k]
        name, _, args = body.partition(":")
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
            raise TemplateError(f"bad placeholder name {name!r} at character {j}")
        yield "", name, args
        i = k + 2


def _check_builtin_args(name: str, args: str) -> None:
    if name == "repeat":
        count, sep, _text = args.partition(":")
        if not sep or not count.isdigit():
            raise TemplateError("{{repeat:N:text}} needs a count and a text, e.g. {{repeat:3:ab}}")
    elif name == "filler":
        if not args.isdigit():
            raise TemplateError("{{filler:N}} needs a character count, e.g. {{filler:20000}}")
    elif name == "char":
        try:
            code = int(args, 16)
        except ValueError:
            raise TemplateError(
                "{{char:HEX}} needs a hexadecimal code point, e.g. {{char:0}} or {{char:d800}}"
            ) from None
        if not 0 <= code <= 0x10FFFF:
            raise TemplateError(f"{{{{char:{args}}}}}: code point out of range")
    elif name == "seq":
        parts = args.split(":", 2)
        if len(parts) < 2 or not all(re.fullmatch(r"-?\d+", p) for p in parts[:2]):
            raise TemplateError("{{seq:A:B}} or {{seq:A:B:format}} needs two integers, e.g. {{seq:0:1000}}")


def _builtin(name: str, args: str, resolve: Resolver, limit: int) -> str:
    if name in ("repeat", "filler", "char", "seq"):
        _check_builtin_args(name, args)
    if name == "repeat":
        count, _, text = args.partition(":")
        unit = expand_template(text, resolve, limit=limit)
        if len(unit) * int(count) > limit:
            raise TemplateError(f"expands to more than {limit:,} characters")
        return unit * int(count)
    if name == "filler":
        return filler(int(args))
    if name == "char":
        return chr(int(args, 16))
    if name == "seq":
        parts = args.split(":", 2)
        lo, hi = int(parts[0]), int(parts[1])
        if hi - lo > 1_000_000:
            raise TemplateError("{{seq}} is limited to a million numbers")
        if len(parts) == 3:
            return "".join(
                expand_template(parts[2], resolve, limit=limit).replace("#", str(v)) for v in range(lo, hi + 1)
            )
        return ", ".join(str(v) for v in range(lo, hi + 1))
    if name == "lb":
        return "{"
    if name == "rb":
        return "}"
    try:
        return resolve(name, args)
    except KeyError:
        raise TemplateError(f"unknown placeholder {{{{{name}}}}}") from None


_FILLER_SENTENCES = (
    "Let me re-check the arithmetic carefully before committing to an answer. ",
    "First, restate what the problem asks and list the quantities that are given. ",
    "Substituting the values back in, both sides agree, so the computation is consistent. ",
    "Consider the edge cases separately, since they are easy to overlook. ",
    "Rewriting the expression in a simpler form makes the structure clearer. ",
    "Now we double-check each step, keeping track of signs and units. ",
)


def filler(length: int) -> str:
    """``length`` characters of plausible, answer-free reasoning prose (deterministic)."""
    block = "".join(_FILLER_SENTENCES)
    return (block * (length // len(block) + 1))[:length]
