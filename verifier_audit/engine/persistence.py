"""The persistence probe (docs/grader-behaviour.md, "Persistence"): does one sample change what
later calls in the same process pay?

A grader that ``eval``s model output lets a sample patch the grader's own state -- a module
global, a builtin, a cached comparison -- and then every later sample scored in that worker
is paid. Training calls a reward function in long-lived workers, and so does the audit: such a
sample would change the audit's own later verdicts too, silently.

Each task gets a fixed panel of two of its candidates the verifier is shown anyway: the first
right answer and the first wrong one (a near-miss when there is one). After every candidate
of the hostile kinds (``PROBED``: the categories ``<domain>.hostile|security|poison.*``, and
any text carrying a canary) and a seeded one in ``SAMPLE_EVERY`` of the rest, the worker
scores its task's panel again -- in the same process -- and compares with the panel's scores
there before the first such candidate (scored ``STEADY`` times: an answer whose score varies
there is the grader's own variance and is left out). A changed score, seen ``STEADY`` times
in a row, is the critical finding
``persistent_state`` on that candidate, with the panel answer that flipped as evidence; it
fails the gate like every security finding.

The audit's own verdicts stay right: the pool retires the worker (``pool.RETIRING``), and the
calls that worker made since its panel was last seen unchanged are scored again, each in a
fresh worker (``pool.Lane.fresh``; ``audit.verdicts_of_many``), their new verdicts replacing
the first ones. The probe is not run where calls leave no state behind or cost a server:
a domain that runs each call in a sandboxed fork (code), a remote verifier.

The worker is never told which panel answer is the right one, nor any label: it holds item
numbers only (``PanelWatch``); the parent turns the finding into words (``describe``).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence

from .. import canary
from ..models import Candidate

PROBED = ("hostile", "security", "poison")  # the middle part of a category: probed after every call
SAMPLE_EVERY = 16  # and one in this many of the other candidates, seeded
FINDING = "persistent_state"
# A panel answer's score must be the same this many times before the first probed call (else
# that answer is left out in this worker) and the changed score this many times after one: a
# fair coin passes each by chance once in 2**(STEADY-1) tries.
STEADY = 6
RESCORE = "rescore"  # the calls to score again, carried beside the finding (never a finding itself)


def panels(candidates: Sequence[Candidate]) -> dict[str, tuple[int, ...]]:
    """Per task, the indices of its panel: its first right candidate and its first wrong one
    (a near-miss first). A task without both has no panel, and is not probed."""
    right: dict[str, int] = {}
    wrong: dict[str, int] = {}
    near: dict[str, int] = {}
    for i, c in enumerate(candidates):
        if c.label == "correct":
            right.setdefault(c.task_id, i)
        elif c.label == "incorrect":
            wrong.setdefault(c.task_id, i)
            if c.origin == "near_miss":
                near.setdefault(c.task_id, i)
    return {t: (right[t], near.get(t, wrong[t])) for t in right if t in wrong}


def probed(candidates: Sequence[Candidate], panel: dict[str, tuple[int, ...]], seed: int) -> frozenset[int]:
    """The indices after whose call the panel is scored again: every hostile, security or
    poison candidate and every canary, and a seeded one in ``SAMPLE_EVERY`` of the rest
    (the same for the same seed); a candidate of the panel itself never."""
    chosen = set()
    inside = {i for members in panel.values() for i in members}
    for i, c in enumerate(candidates):
        if c.task_id not in panel or i in inside:
            continue
        group = c.category.split(".")[1] if c.category.count(".") >= 2 else ""
        if group in PROBED or canary.tokens_in(c.text) or _sampled(c.id, seed):
            chosen.add(i)
    return frozenset(chosen)


def _sampled(candidate_id: str, seed: int) -> bool:
    digest = hashlib.sha256(f"verifier-audit-persistence:{seed}:{candidate_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % SAMPLE_EVERY == 0


def _result(score: Callable[[int], float], index: int) -> str:
    """A panel answer's score as text ("1.0", or the exception's type): what is compared."""
    try:
        return repr(float(score(index)))
    except BaseException as exc:  # noqa: BLE001 - SystemExit too: the verifier's error is a result
        return f"error {type(exc).__name__}"


def without_panel(watch: PanelWatch) -> PanelWatch:
    """The same panels, nothing probed: for scoring again, alone, a probed call that died
    with its worker (a panel answer may be what killed it)."""
    return PanelWatch(frozenset(), watch.panel)


class PanelWatch:
    """The probe inside one worker: ``before`` a probed call it scores the task's panel once
    (its scores in this process before any probed call), ``after`` it scores the panel again.
    ``since``: the calls made since the panel was last seen unchanged."""

    def __init__(self, probed: frozenset[int], panel: dict[str, tuple[int, ...]]) -> None:
        self.probed, self.panel = probed, panel
        self.first: dict[int, str | None] = {}  # None: its score varied before any probed call
        self.since: list[int] = []

    def before(self, index: int, task_id: str, score: Callable[[int], float]) -> None:
        if index in self.probed:
            for i in self.panel.get(task_id, ()):
                if i not in self.first:
                    seen = {_result(score, i) for _ in range(STEADY)}
                    # A panel answer whose score varies before any probed call is the
                    # grader's own variance (a coin, a judge at temperature): it cannot show
                    # a change of state, and the flip probe measures it instead.
                    self.first[i] = seen.pop() if len(seen) == 1 else None

    def after(self, index: int, task_id: str, score: Callable[[int], float]) -> list[str]:
        self.since.append(index)
        if index not in self.probed:
            return []
        for i in self.panel.get(task_id, ()):
            if self.first[i] is None:
                continue
            now = _result(score, i)
            # The changed score seen STEADY times in a row: a state the sample left behind
            # gives it every time, a grader's variance rarely so.
            if now != self.first[i] and all(_result(score, i) == now for _ in range(STEADY - 1)):
                suspects, self.since = self.since, []
                return [f"{FINDING}:{i}:{self.first[i]}:{now}", f"{RESCORE}:{','.join(map(str, suspects))}"]
        self.since = []
        return []


def describe(entries: list[str], candidates: Sequence[Candidate]) -> tuple[list[str], list[int]]:
    """A call's findings as the report shows them, and the calls to score again: a
    ``persistent_state`` entry from the worker names the panel answer by its index, which
    becomes its candidate id and label here; the ``rescore`` entry is taken out."""
    out, again = [], []
    for entry in entries:
        kind, _, rest = entry.partition(":")
        if kind == RESCORE:
            again += [int(i) for i in rest.split(",") if i.isdigit() and int(i) < len(candidates)]
            continue
        if kind == FINDING:
            index, _, scores = rest.partition(":")
            before, _, after = scores.partition(":")
            if index.isdigit() and int(index) < len(candidates):
                c = candidates[int(index)]
                rest = (
                    f"after this call, the panel answer {c.id} (labelled {c.label}) scored {after} in the same "
                    f"worker; {before} before"
                )
            entry = f"{FINDING}:{rest}"
        out.append(entry)
    return out, again
