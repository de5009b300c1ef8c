"""How one fuzzed database looks (sizes, NULLs, constants, duplicates), per pool index."""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from .constants import Constants


@dataclass(frozen=True)
class Profile:
    """How one fuzzed database looks: sizes, NULLs, constants, duplicates."""

    min_rows: int
    max_rows: int
    p_null: float  # a nullable cell is NULL
    p_const: float  # a cell takes one of its column's constants from the golds
    p_base: float  # ... else one of the base fixture's values for the column
    p_dangling: float  # a foreign key points at no row
    p_dup: float  # a row repeats an earlier row's non-key cells (DISTINCT, bags)
    domain: int | None  # each column draws from this many values only (ties, big groups)


# Six shapes, cycled: ordinary, tiny (empty and one-row tables, aggregates over nothing),
# tie-heavy, NULL-heavy, big groups (HAVING COUNT(*) thresholds), duplicate rows.
_SHAPES = [
    dict(min_rows=3, max_rows=8, p_null=0.15, p_dup=0.1, domain=None),
    dict(min_rows=0, max_rows=3, p_null=0.0, p_dup=0.0, domain=None),
    dict(min_rows=5, max_rows=12, p_null=0.1, p_dup=0.2, domain=3),
    dict(min_rows=2, max_rows=6, p_null=0.4, p_dup=0.1, domain=None),
    dict(min_rows=8, max_rows=20, p_null=0.1, p_dup=0.2, domain=2),
    dict(min_rows=4, max_rows=10, p_null=0.1, p_dup=0.5, domain=4),
]


def profile_for(index: int, rng: Random, constants: Constants, task_specific: bool = False) -> Profile:
    shape = dict(_SHAPES[index % len(_SHAPES)])
    if shape["domain"] is not None or index % len(_SHAPES) == 0:
        # Longer than the largest LIMIT, and groups around the loose thresholds
        # (HAVING COUNT(*) > 5 needs groups of 5 and 6 rows).
        threshold = max([c for c in constants.loose if isinstance(c, int) and 0 < c <= 20], default=0)
        shape["max_rows"] = max(shape["max_rows"], constants.max_limit + 3, (threshold + 2) * (shape["domain"] or 1))
    return Profile(
        p_const=0.6 if task_specific else [0.4, 0.25, 0.55][index % 3],
        p_base=[0.25, 0.4, 0.1][(index // 3) % 3],
        p_dangling=0.1 if index % 5 else 0.0,
        **shape,
    )
