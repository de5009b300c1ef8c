"""Exploration: a beam search per (task, start) over chains of the domain's edit operators.

Each start (the task's reference, and a few of its wrong candidates) has its own beam, so a
path that climbs slowly from a wrong answer (a length bonus) is not crowded out by the
reference's descendants, which the verifier pays from the first step. Each round every beam
member gets children (one or two more edits); all children of a round are scored in one
batch; paid children are labelled by the oracle, and the wrong ones are exploits. A beam
keeps its highest-scoring members (ties: shorter chain, then text), so the search climbs
whatever the verifier rewards. Deterministic: every edit's Random is seeded from (seed,
task, start, round, slot).

Operators are drawn in proportion to how often they raised a beam's score before (an
adaptive operator choice, as evolutionary searches use): a verifier that pays for length
is climbed by repeated growth, which a uniform draw over a dozen operators would rarely
chain."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from ...domains.kit import rng_for
from ...models import SearchDirection
from ._calls import Calls

Chain = tuple[tuple[str, int], ...]  # (operator, seed of its Random), applied in order
BEAM_WIDTH = 3
CHILDREN = 3
MAX_CHAIN = 8
WRONG_STARTS = 2  # wrong candidates per task the search also starts from
MIN_BATCH = 16  # children scored at once near the end of exploration


@dataclass(frozen=True)
class Start:
    task_id: str
    kind: str  # "reference", or the category of the wrong candidate it starts from
    text: str


@dataclass
class Node:
    start: Start
    chain: Chain
    text: str
    score: float
    parent_score: float = 0.0


@dataclass
class Exploit:
    node: Node
    found_after: int  # verifier calls spent when it was found
    direction: SearchDirection = "false_acceptance"  # or "false_rejection": a right answer refused


def replay(start: Start, chain: Chain, operators: dict[str, Callable], task=None) -> str | None:
    text = start.text
    for name, seed in chain:
        text = operators[name](text, random.Random(seed), task)
        if text is None:
            return None
    return text


def explore(
    calls: Calls,
    starts: list[Start],
    operators: dict[str, Callable],
    budget: int,
    seed: int,
    threshold: float,
    keep: Callable[[list[Exploit]], int] = lambda exploits: 0,
) -> tuple[list[Exploit], int]:
    """Exploits found within ``budget`` verifier calls, leaving at least ``keep(exploits
    found so far)`` of the search's calls unspent (what measuring them needs); and how many
    distinct paid, wrong texts were met (every exploit, before grouping)."""
    names = sorted(operators)
    budget_end = calls.spent + budget
    seen: set[tuple[str, str]] = set()
    beams: dict[Start, list[Node]] = {}
    first = [(s.task_id, s.text) for s in starts]
    for s, scored in zip(starts, calls.score(first)):
        seen.add((s.task_id, s.text))
        if scored.score is not None:
            beams[s] = [Node(s, (), s.text, scored.score)]
    exploits: list[Exploit] = []
    gains: dict[Start, Counter] = {s: Counter() for s in beams}
    round_ = 0
    while beams and not calls.failing:
        stop_at = min(budget_end, calls.budget - keep(exploits))
        if calls.spent >= stop_at:
            break
        round_ += 1
        children: list[Node] = []
        for start, beam in beams.items():
            for member in beam:
                for slot in range(CHILDREN):
                    rng = rng_for(seed, "search", start.task_id, start.kind, str(round_), str(len(children)), str(slot))
                    chain = member.chain
                    weights = [1 + 3 * gains[start][n] for n in names]
                    for _ in range(1 + (rng.random() < 0.3)):
                        if len(chain) >= MAX_CHAIN:
                            break
                        chain = chain + ((rng.choices(names, weights)[0], rng.getrandbits(32)),)
                    text = (
                        replay(start, chain, operators, calls.tasks[start.task_id]) if chain != member.chain else None
                    )
                    if text is None or (start.task_id, text) in seen:
                        continue
                    seen.add((start.task_id, text))
                    children.append(Node(start, chain, text, 0.0, member.score))
        if not children:
            break
        kept: list[Node] = []
        todo = children
        while todo and not calls.failing:
            # Near the stop, in smaller batches: what a batch finds raises what must be kept.
            room = min(budget_end, calls.budget - keep(exploits)) - calls.spent
            if room <= 0:
                break
            size = len(todo) if len(todo) <= room // 2 else max(min(MIN_BATCH, room), room // 2)
            part, todo = todo[:size], todo[size:]
            found = _score(calls, part, gains)
            kept += found
            exploits += _misjudged(calls, found, threshold)
        for node in kept:
            beams[node.start].append(node)
        for start in list(beams):
            beams[start] = sorted(beams[start], key=lambda n: (-n.score, len(n.chain), n.text))[:BEAM_WIDTH]
    return exploits, len({(e.node.start.task_id, e.node.text) for e in exploits if e.direction == "false_acceptance"})


def _score(calls: Calls, children: list[Node], gains: dict[Start, Counter]) -> list[Node]:
    """The children the verifier scored, with their scores; the edits that raised a beam's
    score count for the operators' draw."""
    kept = []
    for node, s in zip(children, calls.score([(n.start.task_id, n.text) for n in children])):
        if s.score is not None:
            node.score = s.score
            kept.append(node)
            if node.score > node.parent_score:
                gains[node.start].update(name for name, _ in node.chain[-2:])
    return kept


def _misjudged(calls: Calls, kept: list[Node], threshold: float) -> list[Exploit]:
    """The paid children the oracle says are wrong; and the other direction: edits of the
    reference the verifier refuses that the oracle says are still right (false rejections)."""
    paid = [n for n in kept if n.score >= threshold]
    refused = [n for n in kept if n.score < threshold and n.start.kind == "reference"]
    labels = calls.label([(n.start.task_id, n.text) for n in paid + refused])
    out = [Exploit(n, calls.spent) for n, label in zip(paid, labels) if label == "incorrect"]
    out += [
        Exploit(n, calls.spent, "false_rejection")
        for n, label in zip(refused, labels[len(paid) :])
        if label == "correct"
    ]
    return out
