"""What one run audits: the verifiers, grouped by the suite and options they share.

Both front ends that read the project configuration (the ``run`` command and the pytest
plugin) come through here, so a value means the same in both. Precedence, lowest first:
built-in defaults < ``[tool.verifier_audit]`` < the verifier's own entry < explicit
options (command line, fixture arguments).
"""

from __future__ import annotations

import argparse
import dataclasses
import difflib
import json
import os
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import argtypes
from .config import ProjectConfig, VerifierEntry
from .domains import available, get_domain
from .engine.audit import (
    AuditOptions,
    Prepared,
    audit_verdicts,
    default_cache_dir,
    prepare,
    run_settings,
)
from .engine.inspection import resolve_many
from .engine.search import set_literal_reader
from .engine.slices import DEFAULT_FIELD as DEFAULT_SLICE_FIELD
from .engine.slices import SliceWeights, weights_of
from .engine.store import fingerprint
from .errors import InputError
from .frameworks._binding import check_calls
from .isolation import FILE_MB, MAX_PROCESSES, resolve_level
from .loading import VerifierSpec, with_parts
from .models import GateConfig, Report
from .report.build import build_reports
from .report.source import compared_literals
from .settings import AUDIT_SETTINGS, RANGES, default
from .suites import load_suite, select

# The exploit search's source-guided operators read the verifier's source through the scan,
# a layer above the engine: named here, where every front end's audit goes through.
set_literal_reader(compared_literals)


@dataclass
class SuiteChoice:
    suite: str = "math"
    format: str = "jsonl"
    split: str | None = None
    limit: int | None = None
    fields: list[str] = field(default_factory=list)
    domain: str | None = None
    db_dir: str | None = None
    dialect: str | None = None
    repo_dir: str | None = None

    def key(self) -> tuple:
        return (
            self.suite,
            self.format,
            self.split,
            self.limit,
            tuple(self.fields),
            self.domain,
            self.db_dir,
            self.dialect,
            self.repo_dir,
        )

    def reading(self) -> dict:
        """How the suite file is read, for the results' fingerprint (``Prepared.reading``):
        the database folder resolved, so that two spellings of one folder are one setting."""
        return {
            "format": self.format,
            "fields": list(self.fields),
            "db_dir": str(Path(self.db_dir).resolve()) if self.db_dir else None,
            "dialect": self.dialect,
            "repo_dir": str(Path(self.repo_dir).resolve()) if self.repo_dir else None,
        }


@dataclass
class Group:
    """Verifiers audited together: same candidates, same options, same gate."""

    choice: SuiteChoice
    options: AuditOptions
    specs: list[VerifierSpec]
    timeout: float | None = None  # None: the domain's default_timeout, else 10 s
    #: waived category -> where it was waived ("--waive", "pyproject.toml:14"), for messages
    waiver_sources: dict[str, str] = field(default_factory=dict)
    #: the user's own tasks, whose slice mix the debt is reweighted to (--weights-from)
    weights_from: Path | None = None


def weights_path(given: dict[str, Any], config: ProjectConfig | None) -> Path | None:
    """The --weights-from file (or the config's weights_from, relative to the config),
    checked before the longer candidate preparation."""
    if given.get("weights_from") is not None:
        path, where = Path(given["weights_from"]), "--weights-from"
    elif config is not None and config.weights_from:
        path, where = Path(config.resolve_path(config.weights_from)), f"{config.path or 'configuration'}: weights_from"
    else:
        return None
    if not path.is_file():
        raise InputError(f"{where} {path}: no such file (give your own tasks, in a format --suite reads)")
    return path


def pass_env(given: dict[str, Any], config: ProjectConfig | None) -> tuple[str, ...]:
    """The environment variables the verifiers' workers get beyond the allow-list: those of
    ``--pass-env`` and of the config's ``pass_env`` together (environment.py)."""
    names = [*(config.pass_env if config is not None else ()), *(given.get("pass_env") or ())]
    for name in names:
        try:
            argtypes.env_name(name)
        except argparse.ArgumentTypeError as exc:
            raise InputError(f"pass_env {name!r}: {exc}") from None
    return tuple(dict.fromkeys(names))


def _first(*values):
    return next((v for v in values if v is not None), None)


def suite_choice(
    given: dict[str, Any], config: ProjectConfig | None, entry: VerifierEntry | None = None
) -> SuiteChoice:
    e = entry or VerifierEntry.model_construct(spec="")  # all-None overrides
    c = config or ProjectConfig()
    suite = _first(given.get("suite"), e.suite, c.suite)
    if given.get("suite") is None and config is not None and os.path.exists(config.resolve_path(suite)):
        suite = config.resolve_path(suite)  # a suite file named in the config, relative to it
    return SuiteChoice(
        suite=suite,
        format=_first(given.get("format"), e.format, c.format),
        split=_first(given.get("split"), e.split, c.split),
        limit=_first(given.get("limit"), e.limit, c.limit),
        fields=field_mapping(given, config),
        domain=_first(given.get("domain"), c.domain),
        db_dir=_first(given.get("db_dir"), c.resolve_path(c.db_dir) if c.db_dir else None),  # relative to the file
        dialect=_first(given.get("dialect"), c.dialect),
        repo_dir=_first(given.get("repo_dir"), c.resolve_path(c.repo_dir) if c.repo_dir else None),
    )


def field_mapping(given: dict[str, Any], config: ProjectConfig | None) -> list[str]:
    """The suite's field mapping as --field OURS=THEIRS items: the config's [fields], then
    the command line's (which wins for a field both map)."""
    items = list(given.get("fields") or [])
    ours = {item.partition("=")[0].strip() for item in items}
    mapped = config.fields.items() if config is not None else ()
    return [f"{k}={v}" for k, v in mapped if k not in ours] + items


#: the options that are the gate's: the keys of [gate]
GATE_OPTIONS = tuple(s.option_name for s in AUDIT_SETTINGS if s.name.startswith("gate."))


def check_ranges(given: dict[str, Any]) -> None:
    """An option outside its range is an InputError naming it and the range: the ranges of
    the settings (settings.py), as the command line and the file check them, for the
    front ends that pass options as values (the pytest plugin, the API)."""
    for key, setting in RANGES.items():
        value = given.get(key)
        if value is None:
            continue
        for item in value if setting.many and isinstance(value, (list, tuple)) else (value,):
            try:
                setting.check(item)
            except (argparse.ArgumentTypeError, TypeError, ValueError) as exc:
                raise InputError(f"{key} = {value!r}: {exc}") from None


def audit_options(
    given: dict[str, Any],
    config: ProjectConfig | None,
    spec: str = "",
    entry: VerifierEntry | None = None,
    *,
    enforce_gate: bool = True,
) -> tuple[AuditOptions, float | None]:
    """Options for one verifier, and the explicit per-call timeout (None: domain default)."""
    check_ranges(given)
    c = config or ProjectConfig()
    gate = (
        c.gate_for(spec, entry, extra_waived=tuple(given.get("waive") or ()))
        if config
        else GateConfig(waived_categories=list(given.get("waive") or ()))
    )
    gate = gate.model_copy(update={k: given[k] for k in GATE_OPTIONS if given.get(k) is not None})
    options = AuditOptions(
        seed=_first(given.get("seed"), c.seed, default("seed")),
        workers=_first(given.get("workers"), c.workers, default("workers")),
        oracle_timeout=_first(given.get("oracle_timeout"), c.oracle_timeout, default("oracle_timeout")),
        memory_mb=_memory_mb(given, c),
        file_mb=_first(given.get("file_mb"), c.file_mb, FILE_MB) or None,
        max_processes=_first(given.get("max_processes"), c.max_processes, MAX_PROCESSES) or None,
        threshold=_first(given.get("threshold"), entry.threshold if entry else None, c.threshold, default("threshold")),
        gate=gate,
        enforce_gate=enforce_gate,
        resume=bool(given.get("resume")),
        cache_dir=None if given.get("no_cache") else default_cache_dir(),
        progress=given.get("progress"),
        origins=tuple(given.get("origins") or c.only) or None,
        probe_sample=_first(given.get("probe_sample"), c.probe_sample, default("probe_sample")),
        answer_formats=_first(given.get("answer_formats"), c.answer_formats, default("answer_formats")),
        isolation=_first(given.get("isolation"), c.isolation),
        slice_field=_first(given.get("slice_field"), c.slice_field, default("slice_field")),
        search=_first(given.get("search"), c.search, default("search")),
        executor=_first(given.get("executor"), c.executor, default("executor")),
    )
    # The config's cluster goes with the config's executor: --executor local leaves it out.
    options.ray_address = _first(given.get("ray_address"), c.ray_address if options.executor == "ray" else None)
    try:
        resolve_level(options.isolation)
    except ValueError as exc:
        raise InputError(str(exc)) from None
    check_executor_options(options.executor, options.ray_address)
    return options, _first(given.get("timeout"), c.timeout)


def check_executor_options(executor: str, ray_address: str | None) -> None:
    """The executor named, and usable here, before the (longer) candidate preparation: an
    unknown one, --ray-address without Ray, Ray not installed or its cluster unreachable is
    an InputError. With Ray, the cluster's workers start warming up meanwhile."""
    if executor not in argtypes.EXECUTORS:
        raise InputError(f"executor = {executor!r}: must be one of {', '.join(argtypes.EXECUTORS)}")
    if ray_address is not None and executor != "ray":
        raise InputError(f"--ray-address {ray_address}: needs --executor ray (the executor is {executor})")
    if executor == "ray":
        from .engine import ray_executor

        ray_executor.import_ray()  # RayMissingError (an InputError) says how to install it
        ray_executor.start(ray_address)  # connect (a wrong address fails here) and warm the nodes meanwhile


def waiver_sources(given: dict[str, Any], config: ProjectConfig | None, option: str = "--waive") -> dict[str, str]:
    """Where each waived category comes from, for check_waivers' messages: the file's line,
    or ``option`` for those given directly (the command line wins when both name one)."""
    sources = config.waiver_sources() if config is not None else {}
    sources.update({name: option for name in given.get("waive") or ()})
    return sources


def check_waivers(gate: GateConfig, domain: str, present: Iterable[str], sources: dict[str, str]) -> None:
    """A waiver of a category that does not exist is a typo that silently waives nothing:
    an InputError naming where it was waived and the nearest real categories.

    Known: the audited domain's categories (with or without candidates in this run, so a
    ``--limit 3`` run keeps its waivers) and the categories ``present`` in the candidates.
    A waiver of another installed domain's category (a config shared by a math and a SQL
    verifier) is checked against that domain's categories."""
    names = sorted(set(gate.waived_categories) | set(gate.category_limits))
    if not names:
        return
    known_here = {c.name for c in get_domain(domain).categories()} | set(present)
    problems = []
    for name in names:
        owner = name.partition(".")[0]
        foreign = owner != domain and owner in available()
        known = {c.name for c in get_domain(owner).categories()} if foreign else known_here
        if name in known:
            continue
        near = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.5)
        hint = f"nearest: {', '.join(near)}" if near else "no category is close"
        problems.append(
            f"{sources.get(name, 'waiver')}: waiver of unknown category {name!r} ({hint}; "
            f"`verifier-audit catalog --domain {owner if foreign else domain}` lists them)"
        )
    if problems:
        raise InputError(
            problems[0] if len(problems) == 1 else "unknown waived categories:\n  " + "\n  ".join(problems)
        )


def make_groups(
    given: dict[str, Any],
    config: ProjectConfig | None,
    verifiers: list[str],
    style: str = "auto",
    verifier_options: list[str] | None = None,
) -> list[Group]:
    """One group per distinct (suite, options); verifiers keep their order inside a group.

    ``verifiers`` empty: those of the config. The specs are resolved here, so a typo fails
    before the (longer) candidate preparation. A composite reward (TRL's reward functions,
    a rubric) is audited whole and then each of its members alone."""
    if not verifiers and config is not None:
        verifiers = [config.resolve_spec(e.spec) for e in config.verifiers]
    groups: dict[str, Group] = {}
    entries = [config.entry_for(spec) if config is not None else None for spec in verifiers]
    requests = [
        (
            spec,
            style if style != "auto" or entry is None else entry.style,
            verifier_options if verifier_options or entry is None else entry.options,
        )
        for spec, entry in zip(verifiers, entries)
    ]
    for spec, entry, resolved in zip(
        verifiers, entries, resolve_many(requests, **inspection(given, config), pass_env=pass_env(given, config))
    ):
        choice = suite_choice(given, config, entry)
        options, timeout = audit_options(given, config, spec, entry)
        key = json.dumps([choice.key(), options.threshold, options.gate.model_dump(), timeout], default=str)
        if key not in groups:
            groups[key] = Group(
                choice, options, [], timeout, waiver_sources(given, config), weights_path(given, config)
            )
        groups[key].specs.extend(with_parts(resolved))
    return list(groups.values())


def inspection(given: dict[str, Any], config: ProjectConfig | None) -> dict[str, Any]:
    """How the verifiers' signatures are read (engine/inspection.py): at the audit's
    isolation level and memory bound, within ``--inspect-timeout``."""
    c = config or ProjectConfig()
    return {
        "isolation": _first(given.get("isolation"), c.isolation),
        "timeout": _first(given.get("inspect_timeout"), c.inspect_timeout),
        "memory_mb": _memory_mb(given, c),
    }


def _memory_mb(given: dict[str, Any], c: ProjectConfig) -> int | None:
    """``--memory-mb`` (or the config's; default 4096), None for 0 (no limit)."""
    return _first(given.get("memory_mb"), c.memory_mb, default("memory_mb")) or None


def load_weights(
    path: Path, domain, *, fmt: str = "jsonl", fields: list[str] | None = None, field: str = DEFAULT_SLICE_FIELD
) -> SliceWeights:
    """Read the user's tasks (any format ``--suite`` reads) and count their primary slices."""
    if not Path(path).is_file():
        raise InputError(f"--weights-from {path}: no such file (give your own tasks, in a format --suite reads)")
    suite = load_suite(str(path), fields=fields, fmt=fmt, domain=domain.name)
    return weights_of(suite.tasks, domain, str(path), field=field)


def audit(prepared: Prepared, verifiers: list[VerifierSpec], options: AuditOptions) -> list[Report]:
    """Score every candidate with every verifier; one report per verifier. The engine hands
    back the verdicts, the report is built here, one layer up."""
    return build_reports(audit_verdicts(prepared, verifiers, options), options)


def prepare_group(choice: SuiteChoice, options: AuditOptions) -> Prepared:
    suite = load_suite(
        choice.suite,
        fields=choice.fields,
        fmt=choice.format,
        domain=choice.domain,
        db_dir=choice.db_dir,
        dialect=choice.dialect,
        repo_dir=choice.repo_dir,
    )
    if choice.limit is not None and choice.limit < 1:
        raise InputError(f"--limit {choice.limit}: must be at least 1")
    tasks = select(suite, choice.split, choice.limit)
    return prepare(
        suite.name, suite.content_hash, tasks, options, split=choice.split, limit=choice.limit, reading=choice.reading()
    )


def audit_group(group: Group, results: Path | None = None) -> tuple[Prepared, list[Report]]:
    """Prepare the group's candidates and audit its verifiers (the suite's reference
    verifiers when it names none). Results stream to ``results`` (default: the cache)."""
    options = group.options
    prepared = prepare_group(group.choice, options)
    # A verifier its style cannot call is a usage error, before any call (frameworks/_binding.py).
    check_calls(group.specs, prepared.tasks, group.choice.suite)
    domain = get_domain(prepared.domain)
    present = {c.category for c in prepared.candidates} | {d.category for d in prepared.dropped}
    check_waivers(options.gate, prepared.domain, present, group.waiver_sources)
    references = [(spec, None, None) for spec in domain.reference_verifiers.values()]
    specs = unique_names(
        group.specs or resolve_many(references, isolation=options.isolation, memory_mb=options.memory_mb)
    )
    # Hangs are part of some domains' catalogs: those domains have their own default.
    options.timeout = group.timeout or domain.default_timeout
    if not prepared.candidates:
        raise InputError(
            f"suite {group.choice.suite!r}: no candidates survived generation and labelling; nothing to audit"
        )
    if group.weights_from is not None:
        options.weights = load_weights(
            group.weights_from, domain, fields=group.choice.fields, field=options.slice_field
        )
    options.results = (
        results or default_cache_dir() / f"results-{fingerprint(run_settings(prepared, specs, options))}.jsonl"
    )
    return prepared, audit(prepared, specs, options)


def group_results(results: Path | None, index: int) -> Path | None:
    """The results file of a run's ``index``-th group (verifiers of other settings: their
    own suite, threshold or gate) when it was told ``--results FILE``: FILE for the first,
    FILE-2, FILE-3 ... (before the suffix) for the others, so that no group writes over
    another's verdicts and each resumes from its own. None: the default, made from each
    group's fingerprint."""
    if results is None or index == 0:
        return results
    return results.with_name(f"{results.stem}-{index + 1}{results.suffix}")


def unique_names(specs: list[VerifierSpec]) -> list[VerifierSpec]:
    seen: dict[str, int] = {}
    out = []
    for s in specs:
        seen[s.name] = seen.get(s.name, 0) + 1
        out.append(s if seen[s.name] == 1 else dataclasses.replace(s, name=f"{s.name}#{seen[s.name]}"))
    return out
