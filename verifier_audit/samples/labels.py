"""Correctness of model samples by the domain's oracle, not by the verifier under audit.

Samples are model output, so the oracle runs them in the engine's worker pool with the
audit's time and memory limits (a completion may hang a parser or, in the code domain, be a
program). Shared by ``score`` (false acceptance and rejection on real outputs) and
``compare`` (pass@k, support).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..domains import get_domain
from ..engine.audit import _OracleJob, default_cache_dir
from ..engine.executor import run_calls
from ..models import Candidate, Task


def prepare_for_labels(tasks: Sequence[Task], seed: int = 0) -> list[Task]:
    """Tasks as the oracle needs them (code: test cases; sql: fixtures), via the domain."""
    if not tasks:
        return []
    domain = get_domain(tasks[0].domain)
    return list(domain.prepare_tasks(list(tasks), seed, default_cache_dir()))


def _by_domain(items: Sequence[tuple[str, str]], tasks: dict[str, Task], run) -> list[tuple[str | None, str]]:
    """Group ``items`` (task id, text) by their task's domain and let ``run(domain name,
    candidates)`` yield (position in ``candidates``, (label, reason)) for each group."""
    results: list[tuple[str | None, str]] = [(None, "")] * len(items)
    by_domain: dict[str, list[int]] = {}
    for i, (task_id, _) in enumerate(items):
        task = tasks.get(task_id)
        if task is None:
            results[i] = (None, f"unknown task {task_id!r}")
        else:
            by_domain.setdefault(task.domain, []).append(i)
    for domain_name, indices in by_domain.items():
        candidates = [
            Candidate(
                id=f"sample-{i}",
                task_id=items[i][0],
                text=items[i][1],
                origin="sampled",
                category=f"{domain_name}.sampled",
                label="incorrect",
            )
            for i in indices
        ]
        for index, result in run(domain_name, candidates):
            results[indices[index]] = result
    return results


def label_texts(
    items: Sequence[tuple[str, str]],
    tasks: dict[str, Task],
    *,
    workers: int = 2,
    timeout: float = 10.0,
    memory_mb: int | None = 4096,
    executor: str = "local",
    ray_address: str | None = None,
    clean: bool = False,
) -> list[tuple[str | None, str]]:
    """``items``: (task id, completion text). Returns (label, reason) per item, in order:
    label "correct" / "incorrect", or None when the oracle could not decide (reason says why:
    ``oracle_timeout``, ``oracle_crash``, ``unknown task``, or the oracle's own reason).
    ``executor``, ``ray_address``: where the oracle's calls run (engine/executor.py).
    ``clean``: the workers are forked from the audit's clean server, not from this process
    (the live watch labels from inside a trainer, whose model and threads a fork would copy)."""

    def run(domain_name, candidates):
        job = _OracleJob(get_domain(domain_name), candidates, tasks)
        for out in run_calls(
            job,
            range(len(candidates)),
            clean=clean,
            workers=workers,
            timeout=timeout,
            memory_mb=memory_mb,
            executor=executor,
            ray_address=ray_address,
        ):
            yield out.index, (out.value if out.ok else (None, f"oracle_{out.error_kind}"))

    return _by_domain(items, tasks, run)


def verifier_labels(
    items: Sequence[tuple[str, str]],
    tasks: dict[str, Task],
    spec: str,
    *,
    style: str | None = None,
    threshold: float = 0.5,
    workers: int = 2,
    timeout: float | None = 10.0,
    memory_mb: int | None = 4096,
    executor: str = "local",
    ray_address: str | None = None,
) -> list[tuple[str | None, str]]:
    """Like ``label_texts`` but by the verifier ``spec`` (``compare --by-verifier``): a score
    >= ``threshold`` is "correct"; an error (exception, timeout, crash) is undecided (None)."""
    from ..engine.inspection import resolve
    from ..engine.verifier_job import VerifierJob

    vspec = resolve(spec, style, memory_mb=memory_mb)

    def run(domain_name, candidates):
        domain = get_domain(domain_name)
        limit = timeout or domain.default_timeout
        job = VerifierJob(vspec, candidates, tasks, domain, timeout=limit, memory_mb=memory_mb)
        for out in run_calls(
            job,
            range(len(candidates)),
            workers=workers,
            timeout=limit,
            memory_mb=memory_mb,
            clean=job.clean,
            isolation=job.isolation_level(None),
            tree_memory=True,
            executor=executor,
            ray_address=ray_address,
        ):
            if out.ok:
                yield out.index, ("correct" if out.value >= threshold else "incorrect", f"score {out.value:g}")
            else:
                yield out.index, (None, f"verifier_{out.error_kind}")

    return _by_domain(items, tasks, run)
