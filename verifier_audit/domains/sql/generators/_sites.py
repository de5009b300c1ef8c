"""Where and how a generator edits the gold: a ``Site`` names a node (by its position in
``tree.walk()``) and an edit; ``apply`` runs the edit on a copy. Families enumerate sites
on the original tree without copying it, so a sample costs only the copies it uses."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from sqlglot import exp

from ._common import edited


class Unusable(Exception):
    """An edit found, on the copy, that it cannot make a valid query; the site is skipped."""


@dataclass(frozen=True)
class Site:
    kind: str
    index: int
    edit: Callable[[exp.Expression], object]  # edits the node in place or returns its replacement
    note: str

    def apply(self, tree: exp.Expression) -> exp.Expression:
        return edited(tree, self.index, self.edit)


def each(tree: exp.Expression, wanted: Callable[[exp.Expression], bool]) -> Iterator[tuple[int, exp.Expression]]:
    """(position, node) of every node of ``tree`` that ``wanted`` accepts, in walk order."""
    for i, node in enumerate(tree.walk()):
        if wanted(node):
            yield i, node


def replace_with(arg: str, value: exp.Expression | None):
    """An edit that sets one argument of the node (a fresh copy of ``value`` each time)."""

    def edit(node: exp.Expression) -> None:
        node.set(arg, value.copy() if isinstance(value, exp.Expression) else value)

    return edit
