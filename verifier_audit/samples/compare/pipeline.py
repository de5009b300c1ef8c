"""The ``compare`` pipeline: read both samples files (``records``), label every sample's
correctness with the domain oracle (``labels``; a verifier instead with ``by_verifier``),
extract each sample's canonical answer (in the worker pool too: completions are model
output), reduce every sample to a few numbers (``facts``), then compute the figures of
``samples/metrics.py`` per problem, overall and per split (``figures``), and a verdict
(``verdict``). The result is a ``models.CompareReport``; ``render`` shows it.

``run_compare`` is the entry point, ``compute`` the figures from facts already reduced,
``write_json``/``read_json`` the report file.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import InputError
from ...models import Task
from .. import metrics as M
from ..records import SamplesFile, read_samples
from .facts import Facts, canonical_answer, canonical_answers, kl_sums, token_entropy_sums
from .figures import (
    _correct_counts,
    _fig,
    _kind,
    _kl,
    _l,
    _model_entropy,
    _Problem,
    _split_key,
    _splits,
    _support_counts,
)
from .models import (
    CompareReport,
    Compression,
    Crossover,
    Entropy,
    Figure,
    ModelInfo,
    PassAtK,
    PlanRow,
    ProblemRow,
    SplitFigures,
    Support,
    Verdict,
)
from .verdict import verdict

if TYPE_CHECKING:
    from .. import authority as A

PLAN_EPSILONS = (0.1, 0.05, 0.02, 0.01, 0.005, 0.001)

# --------------------------------------------------------------------------------------
# The figures
# --------------------------------------------------------------------------------------


def compute(
    base_file: SamplesFile,
    rl_file: SamplesFile,
    base_facts: list[Facts],
    rl_facts: list[Facts],
    *,
    base_path: str = "base",
    rl_path: str = "rl",
    labels: str = "oracle",
    suite: str = "",
    alpha: float = 0.05,
    rule: M.SupportRule = "frequency",
    n_boot: int = 1000,
    seed: int = 0,
    k: int | None = None,
    vocab_size: int | None = None,
    vocab_source: str = "",
    plan_epsilons: Sequence[float] = PLAN_EPSILONS,
    warnings: list[str] | None = None,
) -> CompareReport:
    """Every figure from the per-sample facts (same order as the files' samples)."""

    from ..._version import __version__

    warnings = list(warnings or [])
    by_base: dict[str, list[Facts]] = {}
    by_rl: dict[str, list[Facts]] = {}
    for f in base_facts:
        by_base.setdefault(f.task_id, []).append(f)
    for f in rl_facts:
        by_rl.setdefault(f.task_id, []).append(f)
    only_base = sorted(set(by_base) - set(by_rl))
    only_rl = sorted(set(by_rl) - set(by_base))
    if only_base or only_rl:
        warnings.append(
            f"{len(only_base)} problems only in the base file and {len(only_rl)} only in the RL file "
            f"are left out (first: {', '.join((only_base + only_rl)[:3])})"
        )
    problems: list[_Problem] = []
    dropped = []
    for tid in sorted(set(by_base) & set(by_rl), key=lambda t: (_split_key(by_base[t][0].split), t)):
        b, r = by_base[tid], by_rl[tid]
        if all(f.correct is None for f in b) and all(f.correct is None for f in r):
            dropped.append(tid)
            continue
        problems.append(_Problem(tid, b[0].split, b, r))
    if dropped:
        warnings.append(
            f"{len(dropped)} problems have no decidable sample (unknown task or unusable reference) and "
            f"are left out: {', '.join(dropped[:5])}{' ...' if len(dropped) > 5 else ''}"
        )
    if not problems:
        raise InputError(f"{base_path} and {rl_path}: no problem in common with a decidable sample; nothing to compare")

    und_b = sum(1 for f in base_facts if f.correct is None)
    und_r = sum(1 for f in rl_facts if f.correct is None)
    if und_b or und_r:
        warnings.append(f"undecided samples count as incorrect: {und_b} base, {und_r} RL")

    nb = [len(p.base) for p in problems]
    nr = [len(p.rl) for p in problems]
    cb = [p.c_base for p in problems]
    cr = [p.c_rl for p in problems]
    k_max = min(min(nb), min(nr))
    if min(nb) != max(nb) or min(nr) != max(nr) or min(nb) != min(nr):
        warnings.append(
            f"samples per problem differ (base {min(nb)}-{max(nb)}, RL {min(nr)}-{max(nr)}): pass@k is "
            f"shown for k <= {k_max}"
        )
    k_head = k_max if k is None else k
    if not 1 <= k_head <= k_max:
        raise InputError(f"--k {k}: must be between 1 and {k_max} (the fewest samples of any problem)")

    curves = M.pass_at_k_curves(nb, cb, nr, cr, k_max, n_boot=n_boot, seed=seed)
    weights = M.bootstrap_weights(len(problems), n_boot, seed)  # the same resampling as the curves
    xb = M.crossover_bootstrap(curves)
    head_reps = curves.base_reps[:, k_head - 1] - curves.rl_reps[:, 0]
    headroom = _fig(float(curves.base[k_head - 1] - curves.rl[0]), M.percentile_interval(head_reps))
    ratio, rlo, rhi = M.compression_bootstrap(curves, k_head)
    comp = Compression(
        k=k_head,
        ratio=_fig(ratio, (rlo, rhi)),
        reason="" if ratio is not None else f"the base's pass@{k_head} equals its pass@1 (no headroom to compress)",
    )

    # support
    prob_cats, prob_rows, ans_cats, ans_rows, rows = [], [], [], [], []
    for p in problems:
        pc = M.problem_category(p.c_base, len(p.base), p.c_rl, len(p.rl), alpha, rule)
        prob_cats.append(pc)
        prob_rows.append([pc == "preservation", pc == "shrinkage", pc == "expansion"])
        acats = M.answer_categories(_correct_counts(p.base), len(p.base), _correct_counts(p.rl), len(p.rl), alpha, rule)
        ans_cats += list(acats.values())
        vals = list(acats.values())
        ans_rows.append([vals.count("preservation"), vals.count("shrinkage"), vals.count("expansion")])
        eb = M.answer_entropy([f.answer for f in p.base])[1]
        er = M.answer_entropy([f.answer for f in p.rl])[1]
        rows.append(
            ProblemRow(
                task_id=p.task_id,
                split=p.split,
                n_base=len(p.base),
                c_base=p.c_base,
                n_rl=len(p.rl),
                c_rl=p.c_rl,
                category=pc,
                answers=dict(acats),
                entropy_base=eb,
                entropy_rl=er,
            )
        )
    support = Support(
        alpha=alpha,
        rule=rule,
        epsilon_base=M.epsilon(min(nb), alpha),
        epsilon_rl=M.epsilon(min(nr), alpha),
        problems=_support_counts(prob_cats, prob_rows, weights),
        answers=_support_counts(ans_cats, ans_rows, weights),
        plan=[PlanRow(epsilon=e, samples=M.samples_needed(e, alpha)) for e in plan_epsilons],
    )

    used_b = [f for p in problems for f in p.base]
    used_r = [f for p in problems for f in p.rl]
    entropy = Entropy(
        base=_model_entropy(problems, "base", used_b, _kind(base_file)),
        rl=_model_entropy(problems, "rl", used_r, _kind(rl_file)),
        vocab_size=vocab_size,
        vocab_source=vocab_source,
    )
    kl = _kl(rl_file, used_r, base_file.manifest.model_name)

    splits = _splits(problems, k_head, alpha, rule, n_boot, seed, prob_cats, kl.available)

    pass_at_k = PassAtK(
        ks=[int(x) for x in curves.ks],
        base=_l(curves.base),
        base_low=_l(curves.base_low),
        base_high=_l(curves.base_high),
        rl=_l(curves.rl),
        rl_low=_l(curves.rl_low),
        rl_high=_l(curves.rl_high),
        diff=_l(curves.diff),
        diff_low=_l(curves.diff_low),
        diff_high=_l(curves.diff_high),
    )
    d1_reps = curves.rl_reps[:, 0] - curves.base_reps[:, 0]
    dk_reps = curves.rl_reps[:, k_head - 1] - curves.base_reps[:, k_head - 1]
    d1 = _fig(float(curves.rl[0] - curves.base[0]), M.percentile_interval(d1_reps))
    dk = _fig(float(curves.rl[k_head - 1] - curves.base[k_head - 1]), M.percentile_interval(dk_reps))

    def info(path: str, f: SamplesFile, facts: list[Facts], undecided: int) -> ModelInfo:
        per: dict[str, int] = {}
        for x in facts:
            per[x.task_id] = per.get(x.task_id, 0) + 1
        s = getattr(f.manifest, "sampling", None)
        return ModelInfo(
            path=path,
            model=f.manifest.model_name,
            samples=len(facts),
            problems=len(per),
            n_min=min(per.values(), default=0),
            n_max=max(per.values(), default=0),
            logprobs_kind=_kind(f),
            temperature=None if s is None else s.temperature,
            top_p=None if s is None else s.top_p,
            undecided=undecided,
        )

    report = CompareReport(
        tool_version=__version__,
        base=info(base_path, base_file, base_facts, und_b),
        rl=info(rl_path, rl_file, rl_facts, und_r),
        labels=labels,
        suite=suite,
        problems=len(problems),
        k_max=k_max,
        n_boot=n_boot,
        seed=seed,
        pass_at_k=pass_at_k,
        crossover=Crossover(k=xb.k, bootstrap_support=xb.support, low=xb.low, high=xb.high),
        headroom=headroom,
        compression=comp,
        support=support,
        entropy=entropy,
        kl=kl,
        splits=splits,
        verdict=Verdict(kind="", text=""),
        warnings=warnings,
        problem_rows=rows,
    )
    report.authority = _authority(problems, weights, d1, splits, n_boot, seed)
    report.verdict = verdict(report, d1, dk)
    return report


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------


def vocab_from_manifest(f: SamplesFile) -> int | None:
    """The model's vocabulary size from its config.json, when the manifest's model
    directory exists here (the embedding size: an upper bound on the token ids)."""
    cfg = Path(f.manifest.model) / "config.json"
    try:
        data = json.loads(cfg.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    v = data.get("vocab_size") or (data.get("text_config") or {}).get("vocab_size")
    return int(v) if isinstance(v, int) and v > 0 else None


def load_tasks(
    suite_arg: str | None, base: SamplesFile, rl: SamplesFile, task_ids: set[str], warnings: list[str]
) -> tuple[str, dict[str, Task]]:
    from ...suites import load_suite
    from ..labels import prepare_for_labels

    name = suite_arg or base.manifest.suite
    if suite_arg is None and rl.manifest.suite != base.manifest.suite:
        warnings.append(
            f"the files name different suites ({base.manifest.suite!r}, {rl.manifest.suite!r}); "
            f"using the base's; pass --suite to choose"
        )
    try:
        suite = load_suite(name)
    except InputError as exc:
        if suite_arg is None:
            raise InputError(
                f"the samples' suite {name!r} cannot be loaded ({exc}); pass --suite NAME_OR_FILE"
            ) from None
        raise
    if suite_arg is None and base.manifest.suite_hash and suite.content_hash != base.manifest.suite_hash:
        warnings.append(f"suite {name!r} has changed since the base samples were drawn (hash differs)")
    chosen = [t for t in suite.tasks if t.id in task_ids]
    missing = task_ids - {t.id for t in chosen}
    if missing:
        warnings.append(
            f"{len(missing)} problems of the samples are not in suite {suite.name!r}: "
            f"{', '.join(sorted(missing)[:5])}{' ...' if len(missing) > 5 else ''}"
        )
    if not chosen:
        raise InputError(
            f"no task of the samples is in suite {suite.name!r}; pass the suite they were drawn from with --suite"
        )
    prepared = prepare_for_labels(chosen)
    return suite.name, {t.id: t for t in prepared}


def run_compare(
    base_path,
    rl_path,
    *,
    suite: str | None = None,
    by_verifier: str | None = None,
    style: str | None = None,
    threshold: float = 0.5,
    alpha: float = 0.05,
    rule: M.SupportRule = "frequency",
    n_boot: int = 1000,
    seed: int = 0,
    k: int | None = None,
    vocab_size: int | None = None,
    plan_epsilons: Sequence[float] = PLAN_EPSILONS,
    workers: int = 2,
    timeout: float = 10.0,
    memory_mb: int | None = 4096,
    executor: str = "local",
    ray_address: str | None = None,
) -> CompareReport:
    """Read, label, reduce, compute: the whole ``compare`` command without its output."""
    from ..labels import label_texts, verifier_labels

    base_path, rl_path = Path(base_path), Path(rl_path)
    base, rl = read_samples(base_path), read_samples(rl_path)
    for path, f in ((base_path, base), (rl_path, rl)):
        if not f.samples:
            raise InputError(f"{path}: no samples")
    warnings: list[str] = []
    ids = {s.task_id for s in base.samples} | {s.task_id for s in rl.samples}
    suite_name, tasks = load_tasks(suite, base, rl, ids, warnings)

    items = [(s.task_id, s.text) for s in base.samples] + [(s.task_id, s.text) for s in rl.samples]
    if by_verifier:
        labelled = verifier_labels(
            items,
            tasks,
            by_verifier,
            style=style,
            threshold=threshold,
            workers=workers,
            timeout=timeout,
            memory_mb=memory_mb,
            executor=executor,
            ray_address=ray_address,
        )
        labels = f"verifier {by_verifier} (threshold {threshold:g})"
    else:
        labelled = label_texts(
            items,
            tasks,
            workers=workers,
            timeout=timeout,
            memory_mb=memory_mb,
            executor=executor,
            ray_address=ray_address,
        )
        labels = "oracle"
    answers = canonical_answers(items, tasks, workers=workers, timeout=timeout, memory_mb=memory_mb)

    vocab_source = ""
    if vocab_size is not None:
        vocab_source = "--vocab-size"
    else:
        vocab_size = vocab_from_manifest(rl) or vocab_from_manifest(base)
        if vocab_size is not None:
            vocab_source = "the model's config.json"
    facts: list[Facts] = []
    policies: dict = {}  # task id -> the reader of its samples' authority (None: no tool calls)
    for i, s in enumerate([*base.samples, *rl.samples]):
        label = labelled[i][0]
        tokens, lo, hi = token_entropy_sums(s, vocab_size)
        k1, k3 = kl_sums(s)
        facts.append(
            Facts(
                task_id=s.task_id,
                split=tasks[s.task_id].split if s.task_id in tasks else s.split,
                correct=None if label is None else label == "correct",
                answer=answers[i],
                tokens=tokens,
                ent_low=lo,
                ent_high=hi,
                kl_k1=k1,
                kl_k3=k3,
                authority=_sample_authority(tasks.get(s.task_id), s.text, policies),
            )
        )
    nb = len(base.samples)
    return compute(
        base,
        rl,
        facts[:nb],
        facts[nb:],
        base_path=str(base_path),
        rl_path=str(rl_path),
        labels=labels,
        suite=suite_name,
        alpha=alpha,
        rule=rule,
        n_boot=n_boot,
        seed=seed,
        k=k,
        vocab_size=vocab_size,
        vocab_source=vocab_source,
        plan_epsilons=plan_epsilons,
        warnings=warnings,
    )


def _sample_authority(task: Task | None, text: str, policies: dict):
    """The authority a tool-call sample uses (samples/authority.py); None for other tasks."""
    from .. import authority as A

    if task is None:
        return None
    if task.id not in policies:
        policies[task.id] = A.authority_reader(task)
    reader = policies[task.id]
    return None if reader is None else A.sample_authority(task, text, reader)


def _authority(
    problems: list[_Problem], weights, d1: Figure, splits: list[SplitFigures], n_boot: int, seed: int
) -> A.CompareAuthority | None:
    """Base and RL authority on the compared problems, overall and per split, and its change
    (the same paired bootstrap over problems as pass@k). None without tool-call samples."""
    from .. import authority as A

    if not any(f.authority is not None for p in problems for f in (*p.base, *p.rl)):
        return None

    def items(ps: list[_Problem], side: str):
        return [(p.task_id, f.authority) for p in ps for f in getattr(p, side) if f.authority is not None]

    def counts(ps: list[_Problem], side: str) -> list[tuple[int, int]]:
        out = []
        for p in ps:
            auth = [f.authority for f in getattr(p, side) if f.authority is not None]
            out.append((sum(1 for a in auth if a.parsed and a.violating), sum(1 for a in auth if a.parsed)))
        return out

    base = A.figures(items(problems, "base"), name="base", role="base")
    rl = A.figures(items(problems, "rl"), name="rl", role="rl")
    overall = A.change(counts(problems, "base"), counts(problems, "rl"), weights, delta_pass1=d1.value)
    split_figs, split_changes = [], []
    for sp in splits:
        ps = [p for p in problems if p.split == sp.split]
        split_figs += [
            A.figures(items(ps, "base"), name="base", role="base", split=sp.split),
            A.figures(items(ps, "rl"), name="rl", role="rl", split=sp.split),
        ]
        # the split's own resampling, as its pass@k curves (_splits): same size, same seed
        ch = A.change(
            counts(ps, "base"),
            counts(ps, "rl"),
            M.bootstrap_weights(len(ps), n_boot, seed),
            split=sp.split,
            delta_pass1=sp.delta_pass1.value,
        )
        split_changes.append(ch)
        sp.authority_base, sp.authority_rl = ch.base_rate, ch.rl_rate
        sp.delta_authority = _fig(ch.diff, (ch.low, ch.high))
    return A.CompareAuthority(base=base, rl=rl, change=overall, splits=split_figs, split_changes=split_changes)


def write_json(r: CompareReport, path) -> None:
    """Atomically (``audit_files.write_output``): a failed write leaves the previous file."""
    from ...audit_files import write_output
    from ...models import to_json

    write_output("--json", path, to_json(r, indent=2) + "\n")


def read_json(path) -> CompareReport:
    return CompareReport.model_validate_json(Path(path).read_text(encoding="utf-8"))


__all__ = ["CompareReport", "Facts", "compute", "run_compare", "write_json", "read_json", "canonical_answer", "verdict"]
