"""The samples section's counts, fed one (candidate, verdict) at a time in the candidates'
order: per model and per split, and the first disagreements of each kind."""

from __future__ import annotations

from collections import Counter

from ...loading import VerifierSpec
from ...metrics import _clip, accepted
from ...models import Candidate, Task, Verdict
from .comparison import BLIND_SPOT, compare, pairs_to_compare
from .files import FileScan
from .label import Labelled
from .section import Disagreement, GroupSummary, SampledModel, SamplesSection, rate_of


class SectionTally:
    """``SamplesSection``'s counts, fed (candidate, verdict) in the candidates' order."""

    # per group: [correct, incorrect, errors, false acceptances, incorrect judged, false rejections,
    # correct judged, samples]
    def __init__(
        self,
        models: dict[str, SampledModel],
        undecided_splits: Counter,
        tasks: dict[str, Task],
        threshold: float,
        max_listed: int,
    ):
        self.groups: dict[str, dict[str, list[int]]] = {
            "model": {k: [0] * 8 for k in models},
            "split": {k: [0] * 8 for k in undecided_splits},
        }
        self.tasks, self.threshold, self.max_listed = tasks, threshold, max_listed
        self.counts = {"accepted_but_wrong": 0, "rejected_but_right": 0}
        self.listed: dict[str, list[Disagreement]] = {"accepted_but_wrong": [], "rejected_but_right": []}
        self.labelled = 0

    def add(self, c: Candidate, key: str, index: int, where: str, v: Verdict | None) -> None:
        self.labelled += 1
        split = self.tasks[c.task_id].split
        for kind, name in (("model", key), ("split", split)):
            g = self.groups[kind].setdefault(name, [0] * 8)
            g[7] += 1
            g[0 if c.label == "correct" else 1] += 1
            if v is None or v.status != "ok":
                g[2] += 1
                continue
            ok = accepted(v.score, self.threshold)
            if c.label == "incorrect":
                g[4] += 1
                g[3] += bool(ok)
            else:
                g[6] += 1
                g[5] += not ok
        if v is None or v.status != "ok":
            return
        ok = accepted(v.score, self.threshold)
        if ok == (c.label == "incorrect"):
            kind = "accepted_but_wrong" if ok else "rejected_but_right"
            self.counts[kind] += 1
            if len(self.listed[kind]) < self.max_listed:
                self.listed[kind].append(
                    Disagreement(
                        kind=kind,
                        model=key,
                        task_id=c.task_id,
                        sample_index=index,
                        split=split,
                        text=_clip(c.text, 300),
                        reference=_clip(self.tasks[c.task_id].reference, 120),
                        score=v.score,
                        source=where,
                    )
                )

    def section(
        self,
        spec: VerifierSpec,
        models: dict[str, SampledModel],
        labelled: Labelled,
        files: list[FileScan],
    ) -> SamplesSection:
        undecided, undecided_by = labelled.undecided, labelled.undecided_by

        def summaries(kind: str) -> list[GroupSummary]:
            out = []
            for name, g in self.groups[kind].items():
                m = models.get(name) if kind == "model" else None
                out.append(
                    GroupSummary(
                        name=name,
                        role=m.role if m else None,
                        files=list(m.files) if m else [],
                        samples=g[7] + undecided_by[kind][name],
                        correct=g[0],
                        incorrect=g[1],
                        undecidable=undecided_by[kind][name],
                        errors=g[2],
                        false_acceptance=rate_of(g[3], g[4]),
                        false_rejection=rate_of(g[5], g[6]),
                    )
                )
            return out

        by_model = summaries("model")
        order = {"train": 0, "heldout": 1, "shifted": 2}
        by_split = sorted(summaries("split"), key=lambda g: (order.get(g.name, 9), g.name))
        rates = {g.name: g.false_acceptance for g in by_model}
        comparisons = []
        for a, b in pairs_to_compare(list(models.values())):
            for hi, lo in ((a, b), (b, a)):
                c = compare(hi.key, rates[hi.key], hi.role, lo.key, rates[lo.key], lo.role)
                if c is not None:
                    comparisons.append(c)
        return SamplesSection(
            verifier=spec.spec,
            files=[str(f.path) for f in files],
            threshold=self.threshold,
            samples=labelled.samples,
            labelled=self.labelled,
            undecidable=sum(undecided.values()),
            undecidable_reasons=dict(sorted(undecided.items())),
            by_model=by_model,
            by_split=by_split,
            comparisons=comparisons,
            blind_spot=[c.message for c in comparisons if BLIND_SPOT in c.message],
            accepted_but_wrong=self.counts["accepted_but_wrong"],
            rejected_but_right=self.counts["rejected_but_right"],
            disagreements=self.listed["accepted_but_wrong"] + self.listed["rejected_but_right"],
        )
