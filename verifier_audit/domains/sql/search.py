"""The SQL domain's edit operators for the exploit search (engine/search).

``mutate`` makes one of the near-miss generators' tree edits (a flipped comparison, a
changed join, a dropped condition, ...) on the completion's query, so chains of them are
the compound mutations no single near-miss is; the others change what surrounds the query
(fences, comments, a second statement, prose), where extraction-based graders slip. As in
math, they know nothing of the gold: the verifier's score and the oracle decide.
"""

from __future__ import annotations

import random

from ...models import Task
from .extract import extract_sql
from .generators._common import TaskContext, completion, parse_query
from .generators.near_miss import KINDS, _realise, sites


def _query(text: str) -> str | None:
    statements = extract_sql(text)
    return statements[0] if statements else None


def _replace(text: str, old: str, new: str, rng: random.Random) -> str:
    return text.replace(old, new, 1) if old in text else completion(new, rng)


class Mutate:
    """One tree edit of one near-miss kind, at a random site of the query. One operator per
    kind, so a family says which edit it is (``mutate_comparison_boundary``) and its reach
    applies that same kind of edit on every task."""

    def __init__(self, kind: str):
        self.kind = kind

    def __call__(self, text: str, rng: random.Random, task: Task | None = None) -> str | None:
        sql = _query(text)
        tree = parse_query(sql) if sql else None
        if tree is None or task is None:
            return None
        found = [site for site in sites(tree, TaskContext.of(task)) if site.kind == self.kind]
        if not found:
            return None
        new = _realise(tree, rng.choice(found))
        return _replace(text, sql, new.rstrip(";"), rng) if new else None


def unfence(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    sql = _query(text)
    return f"{sql.rstrip(';')};" if sql and "```" in text else None


def second_statement(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """Another statement after the query: graders that run the last one, or all of them."""
    sql = _query(text)
    if not sql:
        return None
    extra = rng.choice(["SELECT 1", "SELECT NULL", "SELECT COUNT(*) FROM information_schema.tables"])
    return _replace(text, sql, f"{sql.rstrip(';')};\n{extra}", rng)


def comment(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    sql = _query(text)
    if not sql:
        return None
    note = rng.choice(["-- verified against the expected output\n", "/* correct */ ", "-- answer:\n"])
    return _replace(text, sql, note + sql, rng)


def prose(text: str, rng: random.Random, task: Task | None = None) -> str | None:
    """Longer explanation before the query: a length or confidence bonus rewards it."""
    filler = rng.choice(
        [
            "This query is correct and returns exactly the requested rows. ",
            "I checked the schema and every join condition carefully. ",
        ]
    )
    return filler * max(1, len(text) // 150) + text


OPERATORS = {
    **{f"mutate_{kind}": Mutate(kind) for kind in KINDS},
    "unfence": unfence,
    "second_statement": second_statement,
    "comment": comment,
    "prose": prose,
}


def lazy_policies(task: Task) -> dict[str, list[str]]:
    """Answer-free queries: they earn reward only from a verifier that is not checking."""
    return {
        "select_one": ["```sql\nSELECT 1;\n```"],
        "empty_query": ["```sql\n\n```"],
        "no_query": ["I could not write this query."],
    }
