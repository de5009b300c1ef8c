"""How one verifier is shown the samples: the answer-format probe (``engine/formats.py``)
run once on a stand-in candidate per task, then each block rewritten into the format it
reads, with the rewrite's counts summed over the blocks into the Report's ``formats``."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from ...engine.audit import AuditOptions, Prepared
from ...engine.formats import UNSTATED, choose, probe, rewrite_candidates, summary, supports_formats, tasks_in_scope
from ...loading import VerifierSpec
from ...models import Candidate, Formats


@dataclass
class Shown:
    """How one verifier is shown its candidates: the format probe's finding and, when the
    candidates are rewritten into another format, that format and the rewrite's counts."""

    formats: Formats | None = None
    fmt: object = None
    read: set[str] = field(default_factory=set)
    counts: Counter = field(default_factory=Counter)
    relabelled: Counter = field(default_factory=Counter)
    shown_formats: Counter = field(default_factory=Counter)

    def view(self, block: Prepared, options: AuditOptions, domain) -> Prepared:
        if self.fmt is None:
            view = block
        else:
            view, counts = rewrite_candidates(block, self.fmt, self.read, options, domain)
            for k in ("rewritten", "kept", "left_out"):
                self.counts[k] += counts[k]
            self.relabelled.update(counts["relabelled"])
        if self.formats is not None:
            self.shown_formats.update(c.format or UNSTATED for c in view.candidates)
        return view

    def sample_id(self, c: Candidate) -> str:
        """The id of the sample a shown candidate stands for: its own, or, rewritten into the
        format, its own less the ``@<format>`` that ``rewrite_candidates`` appends (a sample's
        id ends in its index, so only a rewritten one ends so)."""
        suffix = f"@{self.fmt.name}" if self.fmt is not None else ""
        return c.id[: -len(suffix)] if suffix and c.id.endswith(suffix) else c.id

    def result(self) -> Formats | None:
        """As ``formats_for`` gives it, summed over the blocks."""
        if self.formats is None:
            return None
        result = self.formats
        if self.fmt is not None:
            result = result.model_copy(
                update={
                    **{k: self.counts[k] for k in ("rewritten", "kept", "left_out")},
                    "relabelled": dict(sorted(self.relabelled.items())),
                }
            )
        result.summary = summary(result)
        result.candidates = dict(sorted(self.shown_formats.items()))
        return result


def how_shown(stub: Prepared, spec: VerifierSpec, options: AuditOptions, domain) -> Shown:
    """The format probe of ``formats_for``, on the tasks that have candidates (all it reads)."""
    if not options.answer_formats or not supports_formats(domain) or not stub.candidates:
        return Shown()
    formats = list(domain.answer_formats())
    probes, stopped = probe(stub, spec, options, domain, formats)
    result = Formats(
        canonical=formats[0].name, probes=probes, read=[p.name for p in probes if p.read], stopped_early=stopped
    )
    target = choose(probes)
    shown = Shown(formats=result, read=set(result.read))
    if target is not None:
        shown.fmt = next(f for f in formats if f.name == target)
        shown.formats = result.model_copy(
            update={
                "audited_in": target,
                "tasks_in_scope": len(tasks_in_scope(stub, shown.fmt, options, domain)),
                "tasks_total": len({c.task_id for c in stub.candidates}),
            }
        )
    return shown
