"""The Python API: the same audit as the CLI, for notebooks, scripts and test suites.

    from verifier_audit import audit
    report = audit("rewards.py:compute_score", suite="math", limit=50)
    report = audit(my_function, max_debt=0.02)          # a callable works too
    reports = audit_parts("train.py:REWARDS")            # a composite reward, whole and each part
"""

from __future__ import annotations

import dataclasses
import inspect
from pathlib import Path
from typing import Any, Callable, Optional, Union

from .domains import get_domain
from .engine.audit import AuditOptions, default_cache_dir, prepare
from .engine.inspection import resolve
from .frameworks._binding import check_calls
from .isolation import FILE_MB, MAX_PROCESSES
from .loading import from_callable, with_parts
from .models import GateConfig, Report
from .plan import audit as _audit
from .plan import check_executor_options, load_weights
from .suites import load_suite, select


def audit(
    verifier: Union[str, Callable, Any],
    *,
    suite: str = "math",
    style: Optional[str] = None,
    split: Optional[str] = None,
    limit: Optional[int] = None,
    seed: int = 0,
    workers: int = 2,
    timeout: float = 10.0,
    threshold: float = 0.5,
    max_debt: float = 0.05,
    max_category: float = 0.5,
    max_false_rejection: float = 0.10,
    max_error_rate: float = 0.05,
    max_retry_rate: float = 0.05,
    waive: tuple[str, ...] = (),
    fields: Optional[list[str]] = None,
    results: Optional[Path] = None,
    cache: bool = True,
    progress: bool = False,
    probe_sample: int = 24,
    isolation: Optional[str] = None,
    min_slice_n: int = 10,
    weights_from: Optional[Union[str, Path]] = None,
    slice_field: str = "slice",
    search: int = 0,
    options: Optional[Union[dict, list[str]]] = None,
    executor: str = "local",
    ray_address: Optional[str] = None,
    pass_env: tuple[str, ...] = (),
    file_mb: Optional[int] = FILE_MB,
    max_processes: Optional[int] = MAX_PROCESSES,
) -> Report:
    """Audit one verifier; returns its Report (``report.gate.passed`` is the verdict).

    ``probe_sample``: candidates rescored to check determinism and thread and process
    safety (``report.checks``); 0 skips the probes. ``isolation``: ``none``, ``process``
    or ``namespaces`` (None: the strongest this machine gives; docs/threat-model.md). A
    function object (not a spec string) runs in workers forked from this process.
    ``min_slice_n``: ``max_category`` also holds on every slice of a category with that
    many candidates scored; ``weights_from``: your own tasks, whose mix of slices the debt
    is reweighted to (``report.weighted_debt``, gated instead of the plain debt);
    ``slice_field``: the task metadata field naming a task's slice (docs/slices.md).
    ``search``: verifier calls the exploit search may spend (``report.search``; docs/search.md).
    ``options``: the style's settings (``{"weights": "1,0.5"}``, as ``--verifier-option``).
    ``executor``: ``"ray"`` runs the oracle's and the verifier's calls on a Ray cluster
    (``ray_address``: as ``--ray-address``; docs/ray.md), ``"local"`` on this machine.
    A composite reward (TRL's reward functions, a rubric) is audited whole; ``audit_parts``
    also audits each member alone. ``pass_env``: environment variables the verifier's
    workers get beyond the allow-list (as ``--pass-env``; verifier_audit/environment.py);
    ``file_mb``, ``max_processes``: the largest file a worker writes and the processes its
    tree holds (as ``--file-mb``, ``--max-processes``; None: no limit; isolation/_limits.py)."""
    return _audit_specs([_spec(verifier, style, options, isolation, pass_env)], **_settings(locals()))[0]


def audit_parts(verifier: Union[str, Callable, Any], **kwargs) -> dict[str, Report]:
    """Like ``audit``, for a composite reward: its report whole (first) and one per member
    (``name[function]``), all on the same candidates. A plain function gives one report."""
    spec = _spec(verifier, kwargs.pop("style", None), kwargs.pop("options", None), kwargs.get("isolation"),
                 kwargs.pop("pass_env", ()))
    reports = _audit_specs(with_parts(spec), **_settings({**_DEFAULTS, **kwargs}))
    return {r.verifier: r for r in reports}


def _spec(verifier, style, options, isolation=None, pass_env=()):
    """A spec string is resolved without importing it here (its signature is read behind
    the walls of its calls, at ``isolation``); an object (a function, a list of TRL reward
    functions, an environment) is used as it is. ``pass_env``: what its workers get beyond
    the environment's allow-list."""
    if isinstance(verifier, str):
        return resolve(verifier, style, options, isolation=isolation, pass_env=tuple(pass_env))
    return dataclasses.replace(from_callable(verifier, style, options), pass_env=tuple(pass_env))


_NOT_SETTINGS = ("verifier", "style", "options", "pass_env")  # what makes the spec, not the audit's options


def _settings(given: dict) -> dict:
    return {k: v for k, v in given.items() if k not in _NOT_SETTINGS}


def _audit_specs(specs, *, suite, split, limit, seed, workers, timeout, threshold, max_debt, max_category,
                 max_false_rejection, max_error_rate, waive, fields, results, cache, progress, probe_sample,
                 isolation, min_slice_n, weights_from, slice_field, search, max_retry_rate=0.05, executor="local",
                 ray_address=None, file_mb=FILE_MB, max_processes=MAX_PROCESSES) -> list[Report]:
    options = AuditOptions(
        seed=seed, workers=workers, timeout=timeout, threshold=threshold,
        gate=GateConfig(max_debt=max_debt, max_category=max_category, max_false_rejection=max_false_rejection,
                        max_error_rate=max_error_rate, waived_categories=list(waive), min_slice_n=min_slice_n,
                        max_retry_rate=max_retry_rate),
        results=results, cache_dir=default_cache_dir() if cache else None, progress=progress,
        probe_sample=probe_sample, isolation=isolation, slice_field=slice_field, search=search,
        executor=executor, ray_address=ray_address, file_mb=file_mb or None, max_processes=max_processes or None,
    )
    check_executor_options(executor, ray_address)
    loaded = load_suite(suite, fields=fields)
    if weights_from is not None:
        options.weights = load_weights(Path(weights_from), get_domain(loaded.tasks[0].domain if loaded.tasks else "math"),
                                       fields=fields, field=slice_field)
    prepared = prepare(loaded.name, loaded.content_hash, select(loaded, split, limit), options, split=split, limit=limit,
                       reading={"format": "jsonl", "fields": list(fields or [])})
    check_calls(specs, prepared.tasks, suite)  # a verifier its style cannot call: an error, not a report
    return _audit(prepared, specs, options)


_DEFAULTS = {name: p.default for name, p in inspect.signature(audit).parameters.items()
             if name not in _NOT_SETTINGS}
