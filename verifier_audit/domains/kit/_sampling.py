"""The one "at most N per kind" sampler of every domain's per-task generators.

A generator finds every mutant or rewrite of a task's reference that fits (often dozens,
most of one prolific kind) and keeps a few: at most ``per_kind`` of each kind, at most
``cap`` in all, spread over the kinds so that one kind does not crowd out the rest. The
candidates' bytes depend on the exact draws (the cache key and the reports do), so each
domain names the draw it has always made; the grouping, the caps and the ordering are
written once, here:

* ``round_robin`` -- kinds in a seeded order, each kind's items shuffled, one item per
  kind per round until ``cap`` (sql and code near-misses). ``take`` may turn an item into
  what is kept, or refuse it (None: the next item of that kind is tried), so only the
  items drawn are realised.
* ``rounds`` -- the first ``per_kind`` of each kind, taken a round at a time (every
  kind's first, then every kind's second...); the round that does not fit is sampled
  (math near-misses).
* ``sample`` -- the first ``per_kind`` of each kind (all items without ``per_kind``),
  then a seeded sample of ``cap`` (tool near-misses and equivalents).
* ``choice`` -- one item of each kind chosen by the seed, then a seeded sample of ``cap``
  (math and sql equivalents).

The draws other than ``round_robin`` cut only when there are more than ``cap``; ``order``
then says how the kept items are put back in order: ``"source"`` (as ``items`` came),
``"grouped"`` (by kind in first-seen order, then as they came), a key of an item (a stable
sort), or None (as drawn). A selection that needed no cut stays grouped.

What is kept depends on the items' order, not only on their set: kinds are grouped in the
order they are first seen, and ``round_robin`` shuffles the groups in that order. So
reordering the items, even those of kinds unrelated to one another, may change the draw;
a generator yields its items in a fixed order, which is what keeps candidates stable.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Callable, Sequence
from typing import Any, Literal

Draw = Literal["round_robin", "rounds", "sample", "choice"]
Order = Literal["source", "grouped"] | Callable[[Any], Any] | None


def _kind(item: Any) -> str:
    return item.kind


def sample_kinds(
    items: Sequence,
    rng: random.Random,
    *,
    cap: int | None,
    per_kind: int | None = None,
    draw: Draw = "round_robin",
    kind: Callable[[Any], str] = _kind,
    distinct: Callable[[Any], Any] | None = None,
    take: Callable[[Any], Any] | None = None,
    order: Order = None,
) -> list:
    """At most ``per_kind`` of each kind (None: no bound) and ``cap`` in all (None: no
    bound) of ``items``, drawn with ``rng`` as ``draw`` says (see the module's docstring).

    ``kind`` reads an item's kind (default: its ``kind`` attribute); ``distinct`` keys the
    items of one kind, a repeat of a key kept already being skipped; ``take`` (round_robin
    only) realises a drawn item or refuses it with None. Deterministic for a seeded rng."""
    if draw not in ("round_robin", "rounds", "sample", "choice"):
        raise ValueError(f"draw {draw!r}: expected round_robin, rounds, sample or choice")
    if take is not None and draw != "round_robin":
        raise ValueError("take: only the round_robin draw realises items as it draws them")
    if draw == "round_robin":
        drawn = _round_robin(_grouped(items, kind, None, distinct), rng, cap, per_kind, take)
        return _ordered(drawn, order, None)
    groups = _grouped(items, kind, None if draw == "choice" else per_kind, distinct)
    if draw == "choice":  # one of each kind: ``per_kind`` is 1 by definition
        population = [rng.choice(group) for group in groups.values()]
    elif draw == "sample" and per_kind is None and distinct is None:
        population = list(enumerate(items))
    else:
        population = [entry for group in groups.values() for entry in group]
    if cap is None or len(population) <= cap:
        return [item for _, item in population]
    if draw == "rounds":
        drawn = _by_rounds(groups, rng, cap)
    else:
        drawn = [population[i] for i in rng.sample(range(len(population)), cap)]
    return _ordered(drawn, order, population)


def _grouped(items: Sequence, kind, per_kind: int | None, distinct) -> dict[str, list[tuple[int, Any]]]:
    """kind -> [(position in items, item)], kinds in first-seen order, at most ``per_kind``
    of each, skipping an item whose ``distinct`` key its kind holds already."""
    groups: dict[str, list[tuple[int, Any]]] = {}
    for position, item in enumerate(items):
        group = groups.setdefault(kind(item), [])
        if per_kind is not None and len(group) >= per_kind:
            continue
        if distinct is not None and any(distinct(kept) == distinct(item) for _, kept in group):
            continue
        group.append((position, item))
    return groups


def _round_robin(
    groups: dict[str, list], rng: random.Random, cap: int | None, per_kind: int | None, take
) -> list[tuple[int, Any]]:
    """Kinds sorted then shuffled, each group shuffled (in first-seen order of the kinds),
    then one item per kind per round, popped from the end, until ``cap``."""
    kinds = sorted(groups)
    rng.shuffle(kinds)
    for group in groups.values():
        rng.shuffle(group)
    full = (lambda: False) if cap is None else (lambda: len(chosen) >= cap)
    chosen: list[tuple[int, Any]] = []
    for _round in itertools.count() if per_kind is None else range(per_kind):
        if full() or not any(groups.values()):
            break
        for name in kinds:
            if full():
                break
            group = groups[name]
            while group:
                position, item = group.pop()
                kept = item if take is None else take(item)
                if kept is not None:
                    chosen.append((position, kept))
                    break
    return chosen


def _by_rounds(groups: dict[str, list], rng: random.Random, cap: int) -> list[tuple[int, Any]]:
    """Every kind's first, then every kind's second, ...; the round that would reach ``cap``
    is sampled (even when it reaches it exactly: the draw is part of the seed's stream)."""
    chosen: list[tuple[int, Any]] = []
    depth = max(len(group) for group in groups.values())
    for index in range(depth):
        row = [group[index] for group in groups.values() if len(group) > index]
        if len(chosen) + len(row) < cap:
            chosen += row
            continue
        chosen += rng.sample(row, cap - len(chosen))
        break
    return chosen


def _ordered(drawn: list[tuple[int, Any]], order: Order, population: list | None) -> list:
    if order == "source":
        drawn = sorted(drawn, key=lambda entry: entry[0])
    elif order == "grouped":
        rank = {id(entry): n for n, entry in enumerate(population or drawn)}
        drawn = sorted(drawn, key=lambda entry: rank[id(entry)])
    elif callable(order):
        drawn = sorted(drawn, key=lambda entry: order(entry[1]))
    return [item for _, item in drawn]
