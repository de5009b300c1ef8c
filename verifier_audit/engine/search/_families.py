"""From exploits to families: shrink each exploit's chain of edits to a minimal one (drop
an edit, replay, keep the drop while the verifier still pays and the oracle still says
wrong, the way Hypothesis shrinks a failing example), name the family by what is left, and
measure its reach: the same edits, applied to every task's start of the same kind, paid on
how many of the tasks where they give a wrong answer."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from ...domains.kit import rng_for
from ...models import SearchDirection
from ._beam import Chain, Exploit, Start, replay
from ._calls import Calls


@dataclass
class Family:
    name: str
    start: Start
    chain: Chain  # shrunk
    text: str
    score: float
    found_after: int
    direction: SearchDirection = "false_acceptance"


def misjudged(direction: SearchDirection, score: float, label, threshold: float) -> bool:
    """Paid and wrong (false acceptance), or refused and right (false rejection)."""
    if direction == "false_rejection":
        return score < threshold and label == "correct"
    return score >= threshold and label == "incorrect"


def family_name(start: Start, chain: Chain) -> str:
    """The shrunk chain's operators, repeats counted ("grow*4"), then where it starts."""
    runs: list[list] = []
    for name, _ in chain:
        if runs and runs[-1][0] == name:
            runs[-1][1] += 1
        else:
            runs.append([name, 1])
    ops = "+".join(name if n == 1 else f"{name}*{n}" for name, n in runs) or "start"
    if start.kind == "reference":
        return ops
    origin = start.kind.split(".")[1] if start.kind.count(".") >= 2 else start.kind
    return f"{ops}@{origin}"


def slug(name: str) -> str:
    """A category-safe name: ``rejects:`` becomes the ``rejects.`` level of the category."""
    prefix, _, rest = name.rpartition("rejects:")
    body = re.sub(
        r"[^a-z0-9_]+", "_", rest.lower().replace("+", "_then_").replace("@", "_from_").replace("*", "_x")
    ).strip("_")
    return f"rejects.{body}" if _ == "rejects:" and not prefix else body


def shrink(
    calls: Calls,
    exploits: list[Exploit],
    operators: dict[str, Callable],
    threshold: float,
    max_families: int,
    stop_at: int,
) -> list[Family]:
    """One representative per distinct chain of operator names (the first found), shrunk
    while fewer than ``stop_at`` calls are spent (the rest is kept for the reach);
    families deduplicated after shrinking, at most ``max_families`` per direction, earliest
    found first."""
    groups: dict[tuple, Exploit] = {}
    for e in exploits:
        key = (e.direction, e.node.start.kind == "reference", tuple(name for name, _ in e.node.chain))
        groups.setdefault(key, e)
    current = {key: (e.node.start, e.node.chain, e.node.text, e.node.score) for key, e in groups.items()}
    shrinking = set(current)
    while shrinking and calls.spent < stop_at and not calls.failing:
        tries: list[tuple[tuple, Chain, str]] = []
        for key in sorted(shrinking):
            start, chain = current[key][0], current[key][1]
            for i in range(len(chain)):
                shorter = chain[:i] + chain[i + 1 :]
                text = replay(start, shorter, operators, calls.tasks[start.task_id])
                if text is not None:
                    tries.append((key, shorter, text))
        tries = tries[: stop_at - calls.spent]
        if not tries:
            break
        scored = calls.score([(current[k][0].task_id, t) for k, _, t in tries])
        kept = [
            (k, c, t, s.score)
            for (k, c, t), s in zip(tries, scored)
            if s.score is not None and (s.score >= threshold) == (k[0] == "false_acceptance")
        ]
        labels = calls.label([(current[k][0].task_id, t) for k, _, t, _ in kept])
        shrunk = set()
        for (key, chain, text, score), label in zip(kept, labels):
            if misjudged(key[0], score, label, threshold) and key not in shrunk:
                current[key] = (current[key][0], chain, text, score)
                shrunk.add(key)
        shrinking = shrunk
    families: dict[str, Family] = {}
    for key in sorted(current, key=lambda k: groups[k].found_after):
        start, chain, text, score = current[key]
        if not chain:  # the start itself is misjudged: a fixed-exam finding, already in its own category
            continue
        name = family_name(start, chain)
        if key[0] == "false_rejection":
            name = f"rejects:{name}"
        if name not in families:
            families[name] = Family(name, start, chain, text, score, groups[key].found_after, key[0])
    out: list[Family] = []
    for direction in ("false_acceptance", "false_rejection"):  # each direction its own share
        out += [f for f in families.values() if f.direction == direction][:max_families]
    return out


def reach(
    calls: Calls,
    family: Family,
    starts_by_task: dict[str, dict[str, Start]],
    operators: dict[str, Callable],
    seed: int,
    threshold: float,
) -> list[tuple[str, str, float | None, str | None]]:
    """(task id, text, score or None on error, error) per task where the family's edits
    apply to the start of the same kind and give a wrong answer (a right one, for a false
    rejection family), by the oracle."""
    made = []
    for task_id in sorted(starts_by_task):
        start = starts_by_task[task_id].get(family.start.kind)
        if start is None:
            continue
        rng = rng_for(seed, "reach", family.name, task_id)
        chain = tuple((name, rng.getrandbits(32)) for name, _ in family.chain)
        text = replay(start, chain, operators, calls.tasks[task_id])
        if text is not None:
            made.append((task_id, text))
    labels = calls.label(made)
    truth = "correct" if family.direction == "false_rejection" else "incorrect"
    kept = [m for m, label in zip(made, labels) if label == truth]
    scored = calls.score(kept)
    return [(t, text, s.score, s.error) for (t, text), s in zip(kept, scored) if s.error != "budget"]


def lazy(
    calls: Calls, tasks: list, policies: Callable, threshold: float
) -> list[tuple[str, int, float, int, int, int]]:
    """(name, tasks, mean reward, paid, calls, errors) per answer-free strategy."""
    items, owners = [], []
    for task in tasks:
        for name, texts in sorted(policies(task).items()):
            for text in texts:
                items.append((task.id, text))
                owners.append(name)
    scored = calls.score(items)
    out = []
    for name in sorted(set(owners)):
        mine = [s for o, s in zip(owners, scored) if o == name and s.error != "budget"]
        ok = [s.score for s in mine if s.score is not None]
        n_tasks = len({items[i][0] for i, o in enumerate(owners) if o == name})
        out.append(
            (
                name,
                n_tasks,
                sum(ok) / len(ok) if ok else 0.0,
                sum(1 for v in ok if v >= threshold),
                len(mine),
                len(mine) - len(ok),
            )
        )
    return out
