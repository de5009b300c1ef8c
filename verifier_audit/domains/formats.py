"""Answer formats: the ways a completion can state its answer, as real graders read them.

A grader that reads only ``#### n`` (GSM8K) rejects every ``\\boxed{}`` candidate: audited
only in the generators' own format it shows no false acceptance at all, and all of its
blindness lands in false rejection. So each domain declares the formats its answers are
written in (math: ``\\boxed{}``, ``#### n``, the minerva sentence, ``Answer: x``, ``**x**``,
a last line; sql and code: fenced, bare, in prose), the engine probes which of them the
verifier reads (``engine/formats.py``), and the audit shows it its candidates in one it
reads.

A format here is a pure function from a completion written in the domain's canonical format
(what the generators write) to the same completion written in this format, or None when
that completion cannot be written in it (``#### n`` holds plain numbers only, a bare query
drops the prose an injection needs). Re-rendered candidates are labelled by the oracle
again; the engine keeps only those whose label did not change.

A domain supports formats through three hooks of the contract (``domains/base.py``,
``Domain``; the built-in domains read them from their ``formats`` module):

* ``answer_formats() -> list[AnswerFormat]``: the canonical format first, then the others
  in the order the audit prefers them when the canonical one is not read (none: the probe
  is skipped);
* ``reference_completion(task, rng) -> str``: the task's reference written as a candidate
  in the canonical format (what the probe shows, re-rendered, in every format);
* ``format_of(text) -> str | None``: the name of the format a completion is written in
  (for counts, and to keep candidates already written in a format the verifier reads).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerFormat:
    name: str  # "gsm8k_period": stable, in candidate ids and reports
    shows: str  # "#### n.": what a report prints
    # canonical completion -> the same completion in this format; None when it cannot be
    # written in it. The canonical format's own rewrite is the identity.
    rewrite: Callable[[str], str | None]


def identity(text: str) -> str | None:
    return text


def by_name(formats: list[AnswerFormat]) -> dict[str, AnswerFormat]:
    return {f.name: f for f in formats}
