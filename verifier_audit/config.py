"""Project configuration: ``[tool.verifier_audit]`` in a verifier repository's pyproject.toml.

A verifier repository says once what to audit and how strictly; then a bare
``verifier-audit run`` (and the pytest plugin) audits exactly that and gates on it::

    [tool.verifier_audit]
    suite = "math"
    workers = 2

    [tool.verifier_audit.fields]        # the suite's field names: ours = theirs (--field)
    reference = "answer"

    [tool.verifier_audit.gate]
    max_debt = 0.05

    [[tool.verifier_audit.verifiers]]
    spec = "rewards.py:accuracy_reward"

    [[tool.verifier_audit.waivers]]
    category = "math.near_miss.rounding"
    reason = "answers are rounded to 2 places by the task statement"
    expires = 2027-03-01

    [tool.verifier_audit.monitor]      # training-health alarms (verifier-audit monitor)
    entropy_loss = 0.6
    kl_level = 0.2

Every ``run`` option that says what is audited and how it is gated has a key (the table of
settings.py ties each to its flag, its default and its range; docs/config.md lists them). Command-line options override the file.
Paths in the file are relative to the file.
Invalid configuration is an ``InputError`` (exit 2) naming the file, the line, the key and
what is allowed.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import difflib
import os
import re
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, PrivateAttr, StrictBool, ValidationError

from . import argtypes
from .errors import InputError
from .frameworks import STYLES
from .models import GateConfig, Task
from .settings import COMMAND_LINE_ONLY, FRONT_ENDS, KEYS, PLUGIN, RUN, Setting, default, setting, settings_of

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

TABLE = "tool.verifier_audit"


def _range(check):
    """A command-line range type (argtypes) as a pydantic check, so an option and its key
    accept exactly the same values."""

    def validate(value):
        try:
            return check(value)
        except argparse.ArgumentTypeError as exc:
            raise ValueError(str(exc)) from None

    return AfterValidator(validate)


def _ranged(option: str) -> Any:
    """The type of an option's value in the file, with its range, both from its setting."""
    s = setting(option)
    return Annotated[s.value_type, _range(s.check)]


Rate = Annotated[float, _range(argtypes.rate)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class GateSection(_Section):
    max_debt: _ranged("max_debt") | None = None
    max_category: _ranged("max_category") | None = None
    max_false_rejection: _ranged("max_false_rejection") | None = None
    max_error_rate: _ranged("max_error_rate") | None = None
    max_retry_rate: _ranged("max_retry_rate") | None = None
    max_nondeterminism: _ranged("max_nondeterminism") | None = None
    max_call_seconds: _ranged("max_call_seconds") | None = None
    min_slice_n: _ranged("min_slice_n") | None = None


class VerifierEntry(_Section):
    """One verifier to audit; unset fields fall back to the top-level ones."""

    spec: str = Field(min_length=3)  # "rewards.py:fn" or "package.module:fn"
    style: Literal[("auto",) + STYLES] = "auto"  # type: ignore[valid-type]  # the styles' registry
    suite: str | None = None
    format: str | None = None
    split: Literal["train", "heldout", "shifted"] | None = None
    limit: _ranged("limit") | None = None
    threshold: _ranged("threshold") | None = None
    gate: GateSection = Field(default_factory=GateSection)
    #: the style's settings, as --verifier-option KEY=VALUE: weights = [1.0, 0.5], model = "judge"
    options: dict[str, Any] = Field(default_factory=dict)


class Waiver(_Section):
    """Accepted debt in one category, with the reason it is accepted and until when."""

    category: str = Field(min_length=3)
    reason: str = Field(min_length=3)
    expires: _dt.date | None = None  # the waiver stops applying the day after
    verifier: str | None = None  # spec of the one verifier it applies to (default: all)
    max_rate: Rate | None = None  # accepted FA (FR for right answers; default: any)
    _line: int | None = PrivateAttr(default=None)  # its category's line in the file (set by the loader)

    def active(self, today: _dt.date) -> bool:
        return self.expires is None or today <= self.expires


class ProjectConfig(_Section):
    # Types, ranges and defaults of the options come from their settings (settings.py).
    suite: str = default("suite")
    format: str = default("format")
    split: Literal["train", "heldout", "shifted"] | None = None
    limit: _ranged("limit") | None = None
    seed: int = default("seed")
    workers: _ranged("workers") | None = None
    timeout: _ranged("timeout") | None = None
    oracle_timeout: _ranged("oracle_timeout") | None = None
    memory_mb: _ranged("memory_mb") | None = None  # 0: no limit
    file_mb: _ranged("file_mb") | None = None  # largest file a worker writes; 0: no limit
    max_processes: _ranged("max_processes") | None = None  # per worker tree; 0: no limit
    #: environment variables passed to the verifier's workers beyond the allow-list (environment.py)
    pass_env: list[_ranged("pass_env")] = Field(default_factory=list)
    threshold: _ranged("threshold") = default("threshold")
    probe_sample: _ranged("probe_sample") | None = None  # determinism/thread probes; 0: none
    answer_formats: StrictBool | None = None  # the answer-format probe (docs/answer-formats.md); false: off
    isolation: Literal[argtypes.ISOLATION_LEVELS] | None = None  # type: ignore[valid-type]  # isolation/_levels.py; None: the strongest here
    slice_field: str | None = None  # the task metadata field naming a task's slice (engine/slices.py)
    search: _ranged("search") | None = None  # exploit search budget (calls); 0: none
    executor: Literal[argtypes.EXECUTORS] | None = None  # type: ignore[valid-type]  # where calls run; None: local
    ray_address: str | None = Field(default=None, min_length=1)  # executor "ray": the cluster (docs/ray.md)
    weights_from: str | None = None  # your own tasks: the debt is reweighted to their slices (relative to this file)
    #: [fields]: the suite's field names, ours = theirs, as --field OURS=THEIRS (reference = "answer")
    fields: dict[str, str] = Field(default_factory=dict)
    domain: str | None = None  # the domain of a suite file's tasks when its lines do not say
    db_dir: str | None = None  # spider format: the folder of <db_id>/<db_id>.sqlite (relative to this file)
    repo_dir: str | None = None  # swebench format: the folder of local checkouts (relative to this file)
    dialect: Literal["sqlite", "duckdb"] | None = None  # spider/bird: the engine labels are computed in
    inspect_timeout: _ranged("inspect_timeout") | None = None  # the verifier's import when its signature is read
    only: list[Literal["near_miss", "equivalent", "known_bad"]] = Field(default_factory=list)  # candidate origins
    report_dir: str | None = None  # write every report format here after each run
    gate: GateSection = Field(default_factory=GateSection)
    verifiers: list[VerifierEntry] = Field(default_factory=list)
    waivers: list[Waiver] = Field(default_factory=list)
    #: [monitor]: thresholds of the training-health alarms, keys as in
    #: verifier_audit.monitor.alarms.Thresholds (checked by load_config; see docs/monitor.md)
    monitor: dict[str, Any] = Field(default_factory=dict)
    #: where the configuration came from (set by the loader; not a key of the file)
    path: Path | None = Field(default=None, exclude=True)

    def resolve_path(self, value: str) -> str:
        """A path written in the file, as seen from the current directory."""
        if self.path is None or os.path.isabs(value):
            return value
        return os.path.relpath(self.path.parent / value)

    def resolve_spec(self, spec: str) -> str:
        target, sep, attr = spec.rpartition(":")
        if target.endswith(".py") or "/" in target:
            return f"{self.resolve_path(target)}{sep}{attr}"
        return spec

    def entry_for(self, spec: str) -> VerifierEntry | None:
        """The [[verifiers]] entry of this spec, if the file has one."""
        key = spec_key(spec)
        return next((e for e in self.verifiers if spec_key(self.resolve_spec(e.spec)) == key), None)

    def gate_for(
        self,
        spec: str,
        entry: VerifierEntry | None = None,
        *,
        today: _dt.date | None = None,
        extra_waived: tuple[str, ...] = (),
    ) -> GateConfig:
        """The gate one verifier is held to: defaults < [gate] < the verifier's own [gate],
        with the waivers that apply to it today."""
        today = today or _dt.date.today()
        base = GateConfig()
        values = {k: v for k, v in self.gate.model_dump().items() if v is not None}
        if entry is not None:
            values.update({k: v for k, v in entry.gate.model_dump().items() if v is not None})
        waived, limits = list(extra_waived), {}
        for w in self.waivers:
            if not w.active(today) or (
                w.verifier is not None and spec_key(self.resolve_spec(w.verifier)) != spec_key(spec)
            ):
                continue
            if w.max_rate is None:
                waived.append(w.category)
            else:
                limits[w.category] = w.max_rate
        return base.model_copy(update={**values, "waived_categories": sorted(set(waived)), "category_limits": limits})

    def waiver_sources(self) -> dict[str, str]:
        """category -> where the file waives it ("pyproject.toml:14"), for messages."""
        where = os.path.relpath(self.path) if self.path else "configuration"
        return {w.category: f"{where}:{w._line}" if w._line else where for w in self.waivers}

    def expired_waivers(self, today: _dt.date | None = None) -> list[Waiver]:
        today = today or _dt.date.today()
        return [w for w in self.waivers if not w.active(today)]


def key_for_flag(flag: str) -> Setting | None:
    return next((k for k in KEYS if k.flag == flag), None)


#: the options a verifier is audited with by name (the plugin's keyword arguments): one per
#: key, but for what names the verifier (the plugin takes it apart) and the report files
#: ``run`` writes (the plugin has --verifier-audit-report).
OPTION_NAMES = tuple(k.option_name for k in settings_of(PLUGIN) if not k.name.startswith("verifiers[]"))


def check_option_names(names: Any, where: str) -> None:
    """An option name that is not one (``max_dept=0.1`` in a test) is an InputError with
    the name meant, not a setting silently ignored."""
    for name in names:
        if name not in OPTION_NAMES:
            close = difflib.get_close_matches(name, OPTION_NAMES, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            raise InputError(
                f"{where}: unknown option {name}{hint}; options: {', '.join(OPTION_NAMES)} "
                "(docs/config.md; the keys of [tool.verifier_audit] by their last name)"
            )


def option_flags(values: dict[str, Any], skip: tuple[str, ...] = ()) -> list[str]:
    """The ``run`` flags that say ``values`` (plan's options by name, as the plugin and
    ``given_options`` hold them: ``fields=["reference=answer"]``, ``max_debt=0.1``,
    ``answer_formats=False``): what a ``reproduce:`` line needs to redo an audit whose
    options were given in code. None, empty and names in ``skip`` are left out."""
    out: list[str] = []
    for key in KEYS:
        name = key.option_name
        value = values.get(name)
        if key.name.startswith("verifiers[]") or name in skip or value is None or value == [] or value == ():
            continue
        if key.flag == "--no-format-probe":
            out += [key.flag] if value is False else []
        elif isinstance(value, (list, tuple)):
            for item in value:
                out += [key.flag, str(item)]
        else:
            out += [key.flag, str(value)]
    return out


def key_table(run_parser: argparse.ArgumentParser) -> str:
    """docs/config.md's table of keys: each key of KEYS, its flag, its default, the front
    ends besides ``run`` that take it (``api``: a keyword of ``verifier_audit.audit``;
    ``plugin``: of the pytest plugin's ``audit``) and what it does in the words of the
    flag's own help (``run_parser``: the ``run`` subcommand's parser), so neither the page
    nor a second description can drift from the code."""
    helps = {flag: action.help or "" for action in run_parser._actions for flag in action.option_strings}
    rows = ["| key | flag | default | also in | what it does |", "|---|---|---|---|---|"]
    for key in KEYS:
        what = helps[key.flag].replace("%%", "%").replace("|", "\\|").replace("<", "&lt;")
        also = ", ".join(front for front in FRONT_ENDS if front != RUN and front in key.fronts) or "run only"
        rows.append(f"| `{key.name}` | `{key.flag}` | {key.default} | {also} | {what} |")
    return "\n".join(rows) + "\n"


def command_line_only_list() -> str:
    """docs/config.md's list of the ``run`` flags that have no key, with the reason."""
    return "".join(f"- `{flag}`: {why}\n" for flag, why in COMMAND_LINE_ONLY.items())


def spec_key(spec: str) -> str:
    """A verifier spec in a form that compares equal however its file path was written."""
    target, sep, attr = spec.rpartition(":")
    if target.endswith(".py") or "/" in target:
        return f"{os.path.realpath(target)}{sep}{attr}"
    return spec


def find_config(start: Path | None = None) -> Path | None:
    """The nearest pyproject.toml at or above ``start`` that has a [tool.verifier_audit] table."""
    here = (start or Path.cwd()).resolve()
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                text = candidate.read_text(encoding="utf-8")
            except (OSError, UnicodeDecodeError):
                continue
            if re.search(r"^\s*\[\[?\s*tool\.verifier_audit\b", text, re.MULTILINE):
                return candidate
    return None


def load_config(path: Path) -> ProjectConfig:
    """Read and validate ``[tool.verifier_audit]`` of ``path``."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read the configuration ({exc.strerror or exc})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{path}: not valid TOML: {exc}") from None
    table: Any = data.get("tool", {}).get("verifier_audit")
    if table is None:
        raise InputError(f"{path}: no [{TABLE}] table; add one (see README, 'Project configuration')")
    if not isinstance(table, dict):
        raise InputError(f"{path}: [{TABLE}] must be a table, got {type(table).__name__}")
    try:
        # Strict: a value of another type is an error, never converted (``workers = true`` is
        # not 1, ``max_debt = "0.5"`` not 0.5; an int where a number goes is fine). One rule
        # for every key, read from the declarations above (_explain says what each expects).
        config = ProjectConfig.model_validate(table, strict=True)
    except ValidationError as exc:
        raise InputError(_explain(path, text, exc)) from None
    if config.ray_address is not None and config.executor != "ray":
        line = _line_of(text, "ray_address")
        prefix = f"{path}:{line}" if line else str(path)
        raise InputError(
            f"invalid configuration:\n  {prefix}: {TABLE}.ray_address = {config.ray_address!r} needs "
            f'executor = "ray" (executor is {config.executor or "local, the default"}); add '
            'executor = "ray" or remove ray_address'
        )
    if config.monitor:
        config.monitor = check_monitor_section(path, text, config.monitor)
    _check_fields(path, text, config.fields)
    config.path = path.resolve()
    for waiver, line in zip(config.waivers, _waiver_lines(text)):
        waiver._line = line
    return config


def _check_fields(path: Path, text: str, fields: dict[str, str]) -> None:
    """[fields] maps our task fields: one that is not (``refrence = "answer"``) is an
    InputError at its line, with the field meant, before any suite is read."""
    lines = []
    for ours in fields:
        if ours not in Task.model_fields:
            line = _line_of(text, ours)
            close = difflib.get_close_matches(ours, list(Task.model_fields), n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            lines.append(
                f"{f'{path}:{line}' if line else path}: {TABLE}.fields.{ours}: not a task field{hint}; "
                f"ours = theirs maps one of {', '.join(Task.model_fields)} to your suite's field"
            )
    if lines:
        raise InputError("invalid configuration:\n  " + "\n  ".join(lines))


def check_monitor_section(path: Path, text: str, table: dict[str, Any], *, required: bool = False) -> dict[str, Any]:
    """[tool.verifier_audit.monitor] checked against the alarms' Thresholds: an unknown key
    or a value out of range is an InputError naming the file, the line, the key and what is
    allowed. Returns the values as Thresholds reads them. The check needs numpy (the alarms
    do); without it the table is returned unchecked unless ``required`` (the monitor
    command checks it again, with numpy there)."""
    try:
        from .monitor.alarms import Thresholds
    except ImportError:
        if required:
            raise
        return dict(table)
    allowed = list(Thresholds.model_fields)
    where = f"{TABLE}.monitor"
    lines = []
    for key in table:
        if key not in Thresholds.model_fields:
            line = _line_of(text, key)
            prefix = f"{path}:{line}" if line else str(path)
            close = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            lines.append(f"{prefix}: unknown key {where}.{key}{hint}; allowed keys here: {', '.join(allowed)}")
    if not lines:
        try:
            values = Thresholds.model_validate(table, strict=True)
        except ValidationError as exc:
            for err in exc.errors():
                key = str(err["loc"][0]) if err["loc"] else "monitor"
                line = _line_of(text, key)
                prefix = f"{path}:{line}" if line else str(path)
                lines.append(f"{prefix}: {where}.{key} = {err.get('input')!r}: {_wrong_type(err, key) or err['msg']}")
        else:
            return values.model_dump(include=set(table))
    raise InputError("invalid configuration:\n  " + "\n  ".join(lines))


def _explain(path: Path, text: str, exc: ValidationError) -> str:
    """One line per problem: file:line, the key's dotted place, what is wrong, what is allowed."""
    lines = []
    for err in exc.errors():
        loc = [str(p) for p in err["loc"]]
        key = next((p for p in reversed(loc) if not p.isdigit()), TABLE)
        where = TABLE + "".join(f"[{p}]" if p.isdigit() else f".{p}" for p in loc)
        line = _line_of(text, key)
        prefix = f"{path}:{line}" if line else str(path)
        if err["type"] == "extra_forbidden":
            allowed = _allowed_keys(loc[:-1])
            lines.append(
                f"{prefix}: unknown key {where!s}{_did_you_mean(key, allowed)}; allowed keys here: {', '.join(allowed)}"
            )
        elif err["type"] == "literal_error":
            lines.append(f"{prefix}: {where} = {err['input']!r} is not allowed; {err['msg'].lower()}")
        elif err["type"] == "missing":
            lines.append(f"{prefix}: {where} is required")
        elif _wrong_type(err, key):
            lines.append(f"{prefix}: {where} = {err['input']!r}: {_wrong_type(err, key)}")
        else:
            msg = err["msg"].removeprefix("Value error, ")  # our range checks say what is allowed
            lines.append(f"{prefix}: {where} = {err.get('input')!r}: {msg}")
    return "invalid configuration:\n  " + "\n  ".join(lines)


# pydantic's error type of a value of the wrong type -> what the key takes, in TOML's words,
# and, for the fix when the value given cannot be turned into one, what to write.
_EXPECTED = {
    "int_type": ("a valid integer", "a whole number without quotes", "1"),
    "float_type": ("a valid number", "a number without quotes", "0.5"),
    "bool_type": ("true or false", "true or false without quotes", "true"),
    "string_type": ("a string", "a string in quotes", '"..."'),
    "list_type": ("an array", "an array", "[...]"),
    "dict_type": ("a table", "a table", "{...}"),
    "model_type": ("a table", "a table", "{...}"),
    "date_type": ("a date", "a date", "2027-03-01"),
}


def _toml(value: Any) -> str:
    """A value as it is written in the file: true, "0.5", 3."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    return repr(value)


def _toml_type(value: Any) -> str:
    for kind, name in (
        (bool, "a boolean"),
        (int, "an integer"),
        (float, "a number"),
        (str, "a string"),
        (list, "an array"),
        (dict, "a table"),
        (_dt.date, "a date"),
    ):
        if isinstance(value, kind):
            return name
    return type(value).__name__


def _wrong_type(err: dict, key: str) -> str | None:
    """For a value of the wrong type: what the key takes, what it got, and the line to
    write instead (the value itself when it converts: ``max_debt = 0.5`` for ``"0.5"``)."""
    if err["type"] not in _EXPECTED:
        return None
    expected, noun, example = _EXPECTED[err["type"]]
    given = err.get("input")
    fixed = None
    if err["type"] in ("int_type", "float_type") and not isinstance(given, bool):
        try:
            number = float(given)
            if err["type"] == "float_type":
                fixed = repr(number)
            elif number.is_integer():
                fixed = str(int(number))
        except (TypeError, ValueError, OverflowError):
            fixed = None
    if fixed is None:
        fix = f"write {noun}, e.g. {key} = {example}"
    else:
        fix = f"write {key} = {fixed}"
    quotes = " (no quotes: a number in quotes is a string)" if isinstance(given, str) and fixed is not None else ""
    return f"expected {expected}, got {_toml_type(given)} ({_toml(given)}); {fix}{quotes}"


def _did_you_mean(key: str, allowed: list[str]) -> str:
    """The hint for an unknown key: the key a flag's name stands for (``max_debt`` written at
    the top is ``[gate] max_debt``; ``field`` is ``[fields]``), else the closest key allowed
    here, else why a command-line-only flag has no key."""
    flag = "--" + key.replace("_", "-")
    declared = key_for_flag(flag)
    if declared is not None and declared.name not in allowed:
        return f" (did you mean {_written(declared.name)}?)"
    close = difflib.get_close_matches(key.replace("-", "_"), allowed, n=1)
    if close:
        return f" (did you mean {close[0]}?)"
    if flag in COMMAND_LINE_ONLY:
        return f" ({flag} is a command-line option only: {COMMAND_LINE_ONLY[flag]})"
    return ""


def _written(name: str) -> str:
    """A dotted KEYS name as the file writes it: "max_debt in [tool.verifier_audit.gate]"."""
    table, _, last = name.rpartition(".")
    if table.endswith("[]"):
        return f"{last} in a [[{TABLE}.{table[:-2]}]] entry"
    return f"{last} in [{TABLE}.{table}]" if table else f"{name} in [{TABLE}]"


def _allowed_keys(loc: list[str]) -> list[str]:
    model: type[BaseModel] = ProjectConfig
    for part in loc:
        if part.isdigit():
            continue
        annotation = model.model_fields[part].annotation
        inner = getattr(annotation, "__args__", (annotation,))[0]
        if isinstance(inner, type) and issubclass(inner, BaseModel):
            model = inner
    return [name for name, f in model.model_fields.items() if not f.exclude]


def _waiver_lines(text: str) -> list[int | None]:
    """For each [[tool.verifier_audit.waivers]] table in order, the line of its category."""
    lines: list[int | None] = []
    inside = False
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[\[?\s*([^\]]+?)\s*\]", line)
        if header:
            inside = header.group(1) == f"{TABLE}.waivers" and line.lstrip().startswith("[[")
            if inside:
                lines.append(None)
        elif inside and lines[-1] is None and re.match(r"^\s*\"?category\"?\s*=", line):
            lines[-1] = number
    return lines


def _line_of(text: str, key: str) -> int | None:
    """Line number of the first ``key =`` (or ``[...key]`` table) inside our tables."""
    inside = False
    pattern = re.compile(rf"^\s*(\"?{re.escape(key)}\"?\s*=|\[\[?\s*{re.escape(TABLE)}\.{re.escape(key)}\b)")
    for number, line in enumerate(text.splitlines(), 1):
        header = re.match(r"^\s*\[\[?\s*([^\]]+?)\s*\]", line)
        if header:
            inside = header.group(1).startswith(TABLE)
            if inside and pattern.match(line):
                return number
            continue
        if inside and pattern.match(line):
            return number
    return None
