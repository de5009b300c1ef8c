"""The Python API: the same audit as the CLI, for notebooks, scripts and test suites.

from verifier_audit import audit
report = audit("rewards.py:compute_score", suite="math", limit=50)
report = audit(my_function, max_debt=0.02)          # a callable works too
reports = audit_parts("train.py:REWARDS")            # a composite reward, whole and each part
"""

from __future__ import annotations

import dataclasses
import inspect
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .engine.inspection import resolve
from .isolation import FILE_MB, MAX_PROCESSES
from .loading import from_callable, with_parts
from .models import Report
from .plan import (
    Group,
    audit_group,
    audit_options,
    check_ranges,
    inspection,
    suite_choice,
    waiver_sources,
    weights_path,
)
from .plan import pass_env as _pass_env


def audit(
    verifier: str | Callable | Any,
    *,
    suite: str = "math",
    style: str | None = None,
    split: str | None = None,
    limit: int | None = None,
    seed: int = 0,
    workers: int | None = None,
    timeout: float | None = None,
    threshold: float = 0.5,
    max_debt: float = 0.05,
    max_category: float = 0.5,
    max_false_rejection: float = 0.10,
    max_error_rate: float = 0.05,
    max_retry_rate: float = 0.05,
    max_nondeterminism: float = 0.0,
    max_call_seconds: float | None = None,
    waive: tuple[str, ...] = (),
    fields: list[str] | None = None,
    results: Path | None = None,
    cache: bool = True,
    progress: bool = False,
    probe_sample: int = 24,
    isolation: str | None = None,
    min_slice_n: int = 10,
    weights_from: str | Path | None = None,
    slice_field: str = "slice",
    search: int = 0,
    options: dict | list[str] | None = None,
    executor: str = "local",
    ray_address: str | None = None,
    pass_env: tuple[str, ...] = (),
    file_mb: int | None = FILE_MB,
    max_processes: int | None = MAX_PROCESSES,
    format: str = "jsonl",
    db_dir: str | Path | None = None,
    dialect: str | None = None,
    repo_dir: str | Path | None = None,
    domain: str | None = None,
    oracle_timeout: float = 10.0,
    memory_mb: int | None = 4096,
    inspect_timeout: float | None = None,
    answer_formats: bool = True,
    origins: tuple[str, ...] | None = None,
) -> Report:
    """Audit one verifier; returns its Report (``report.gate.passed`` is the verdict).

    The same audit as ``verifier-audit run --verifier SPEC`` with the flags of the same
    names (``--max-debt`` is ``max_debt``; docs/config.md lists them with their defaults),
    through the same plan: the same defaults (None: the default that applies there, e.g.
    ``timeout``: the domain's, 4 s for code, else 10 s; ``workers``: the cores, at most 8),
    the same ranges (a value outside one is an InputError) and the same check of ``waive``
    (a category the domain does not have is an InputError naming the nearest). The API
    reads no ``[tool.verifier_audit]``. Each keyword is a row of settings.py's table
    (tests/cli/test_settings.py holds them together).

    ``format``: the suite file's format (``gsm8k``, ``math``, ``spider``, ``humaneval``, ...;
    as ``--format``) and ``db_dir`` the spider format's database folder; ``dialect``: the
    engine a spider/bird file's labels are computed in (``sqlite`` by default, or ``duckdb``); ``repo_dir``:
    the swebench format's folder of local checkouts; ``domain``: the
    domain of a suite file's tasks when its lines do not say. ``probe_sample``: candidates
    rescored to check determinism and thread and process safety (``report.checks``); 0
    skips the probes; ``answer_formats=False`` skips the answer-format probe.
    ``max_nondeterminism``: the share of flip-prone candidates, scored again several times,
    whose score may change (``report.checks.nondeterminism``; default 0); ``max_call_seconds``:
    the p99 call time every category must stay under (``report.latency``; None: not gated;
    docs/grader-behaviour.md).
    ``isolation``: ``none``, ``process`` or ``namespaces`` (None: the strongest this machine
    gives; docs/threat-model.md); ``inspect_timeout``: the time a spec's import may take
    when its signature is read. A function object (not a spec string) runs in workers
    forked from this process. ``min_slice_n``: ``max_category`` also holds on every slice
    of a category with that many candidates scored; ``weights_from``: your own tasks, whose
    mix of slices the debt is reweighted to (``report.weighted_debt``, gated instead of
    the plain debt); ``slice_field``: the task metadata field naming a task's slice
    (docs/slices.md). ``search``: verifier calls the exploit search may spend
    (``report.search``; docs/search.md). ``origins``: audit only candidates of these
    origins (``near_miss``, ``equivalent``, ``known_bad``; as ``--only``). ``options``: the
    style's settings (``{"weights": "1,0.5"}``, as ``--verifier-option``). ``executor``:
    ``"ray"`` runs the oracle's and the verifier's calls on a Ray cluster (``ray_address``:
    as ``--ray-address``; docs/ray.md), ``"local"`` on this machine. A composite reward
    (TRL's reward functions, a rubric) is audited whole; ``audit_parts`` also audits each
    member alone. ``pass_env``: environment variables the verifier's workers get beyond the
    allow-list (as ``--pass-env``; verifier_audit/environment.py); ``oracle_timeout``,
    ``memory_mb``, ``file_mb``, ``max_processes``: the oracle's time per call, a worker's
    memory, the largest file it writes and the processes its tree holds (as the flags;
    0 or None: no limit; isolation/_limits.py). ``results``: where the verdicts stream
    (default: the cache folder); ``cache=False`` regenerates the candidates."""
    given = _given(locals())
    return _audit_specs([_spec(verifier, style, options, given)], given)[0]


def audit_parts(verifier: str | Callable | Any, **kwargs) -> dict[str, Report]:
    """Like ``audit``, for a composite reward: its report whole (first) and one per member
    (``name[function]``), all on the same candidates. A plain function gives one report."""
    unknown = sorted(set(kwargs) - set(_DEFAULTS) - set(_NOT_SETTINGS))
    if unknown:
        raise TypeError(f"audit_parts() got an unexpected keyword argument {unknown[0]!r}")
    given = _given({**_DEFAULTS, **kwargs})
    spec = _spec(verifier, kwargs.get("style"), kwargs.get("options"), given)
    return {r.verifier: r for r in _audit_specs(with_parts(spec), given)}


def _spec(verifier, style, options, given: dict):
    """A spec string is resolved without importing it here (its signature is read behind
    the walls of its calls: ``plan.inspection``); an object (a function, a list of TRL
    reward functions, an environment) is used as it is. Both get the environment variables
    ``pass_env`` names beyond the allow-list."""
    env = _pass_env(given, None)
    if isinstance(verifier, str):
        return resolve(verifier, style, options, **inspection(given, None), pass_env=env)
    return dataclasses.replace(from_callable(verifier, style, options), pass_env=env)


_NOT_SETTINGS = ("verifier", "style", "options")  # what makes the spec, not the audit's options


def _given(values: dict) -> dict:
    """The keyword arguments as plan's options, the way ``given_options`` hands the command
    line's to it (``cache`` is ``--no-cache`` turned round)."""
    given = {k: v for k, v in values.items() if k not in _NOT_SETTINGS and k != "cache"}
    given["no_cache"] = not values["cache"]
    for key in ("db_dir", "repo_dir"):
        given[key] = None if values[key] is None else str(values[key])
    # None is no limit here, as it always was in the API (plan reads None as "not said")
    given.update({k: values[k] or 0 for k in ("memory_mb", "file_mb", "max_processes")})
    check_ranges(given)  # before the spec is read: a value out of range is the error to see
    return given


def _audit_specs(specs, given: dict) -> list[Report]:
    """The specs audited as one group of ``plan``, as ``run`` and the pytest plugin audit."""
    options, timeout = audit_options(given, None)
    group = Group(
        suite_choice(given, None),
        options,
        specs,
        timeout,
        waiver_sources(given, None, "waive="),
        weights_path(given, None),
    )
    return audit_group(group, given["results"])[1]


_DEFAULTS = {name: p.default for name, p in inspect.signature(audit).parameters.items() if name not in _NOT_SETTINGS}
