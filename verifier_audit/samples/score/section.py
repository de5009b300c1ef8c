"""What ``score`` reports besides the Report of each verifier: the samples section (rates
per model and per split, the disagreeing samples, the comparison of models) and the
result that carries both (``ScoreResult``, what ``score --json`` writes)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from ...engine.audit import Prepared
from ...metrics import wilson
from ...models import Interval, Report
from ...report.writers import WRITERS, Addenda
from ..authority import AuthorityFigures


class Rate(BaseModel):
    k: int  # false acceptances (of n incorrect samples) or false rejections (of n correct ones)
    n: int
    rate: float
    ci: Interval


class GroupSummary(BaseModel):
    """The samples of one model, or of one split (all models together)."""

    name: str
    role: str | None = None  # models: "base" | "rl" | None
    files: list[str] = Field(default_factory=list)
    samples: int
    correct: int  # by the oracle
    incorrect: int
    undecidable: int  # the oracle could not decide: not scored
    errors: int  # verifier calls that failed (counted apart, as in run)
    false_acceptance: Rate
    false_rejection: Rate


class Disagreement(BaseModel):
    kind: Literal["accepted_but_wrong", "rejected_but_right"]
    model: str
    task_id: str
    sample_index: int
    split: str
    text: str  # clipped
    reference: str
    score: float | None = None
    source: str = ""  # file:line


class Comparison(BaseModel):
    """Two models' false acceptance on their own samples: higher first."""

    higher: str
    lower: str
    higher_role: str | None = None
    lower_role: str | None = None
    higher_fa: Rate
    lower_fa: Rate
    z: float  # two-proportion z statistic (pooled)
    p_value: float  # two-sided
    intervals_disjoint: bool  # the Wilson 95% intervals do not overlap
    significant: bool  # p < 0.05 or disjoint intervals
    message: str


class SamplesSection(BaseModel):
    verifier: str
    files: list[str]
    threshold: float
    samples: int
    labelled: int
    undecidable: int
    undecidable_reasons: dict[str, int] = Field(default_factory=dict)
    by_model: list[GroupSummary]
    by_split: list[GroupSummary]
    comparisons: list[Comparison] = Field(default_factory=list)
    blind_spot: list[str] = Field(default_factory=list)  # the comparisons that say BLIND_SPOT
    accepted_but_wrong: int
    rejected_but_right: int
    disagreements: list[Disagreement] = Field(default_factory=list)  # at most max_listed of each kind
    # tool-call samples only (samples/authority.py, docs/samples-authority.md): the tools and
    # privilege levels each model used and its calls outside the task's policy, over all its
    # samples (the oracle's undecidable ones too), per model and per model and split
    authority_by_model: list[AuthorityFigures] = Field(default_factory=list)
    authority_by_split: list[AuthorityFigures] = Field(default_factory=list)


@dataclass
class ScoreResult:
    reports: list[Report]
    sections: list[SamplesSection]
    prepared: Prepared  # the suite, domain and tasks; its candidates are not kept (stream.py)
    results_path: Path | None = None
    categories: set[str] = field(default_factory=set)  # of the labelled samples and of the undecidable ones

    def addenda(self, markdown: str = "") -> Addenda:
        """What the report files carry beside the reports: the samples sections in the JSON,
        and ``markdown`` (``render.section_markdown`` of each) after the summary."""
        return Addenda(json={"samples": [s.model_dump(mode="json") for s in self.sections]}, markdown=markdown)

    def to_json(self) -> str:
        """A report set (``verifier-audit diff`` reads it) with the samples sections beside it."""
        return WRITERS["json"].render(self.reports, self.addenda())


@dataclass
class SampledModel:
    key: str  # unique: the model name, or name@file when two files share one
    role: str | None
    files: list[str] = field(default_factory=list)


def rate_of(k: int, n: int) -> Rate:
    return Rate(k=k, n=n, rate=round(k / n, 6) if n else 0.0, ci=wilson(k, n))
