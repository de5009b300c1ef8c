"""A small repository task in the ``repo`` domain's layout (docs/repo-domain.md), for the
repo domain's tests: a ``stats`` package whose ``median`` is wrong on even lengths and
whose ``clamp`` ignores its upper bound -- a two-hunk gold patch, one failing visible test
per hunk, passing neighbours, and hidden tests beyond the visible ones."""

from __future__ import annotations

from verifier_audit.domains.repo.patches import make_patch
from verifier_audit.models import Task

CORE_FIXED = '''\
"""Small statistics helpers."""


def mean(values):
    if not values:
        raise ValueError("mean of no values")
    return sum(values) / len(values)


def median(values):
    ordered = sorted(values)
    if not ordered:
        raise ValueError("median of no values")
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return (ordered[middle - 1] + ordered[middle]) / 2


def spread(values):
    return max(values) - min(values)


def clamp(value, low, high):
    if value < low:
        return low
    if value > high:
        return high
    return value
'''

CORE_BUGGY = CORE_FIXED.replace(
    "    return (ordered[middle - 1] + ordered[middle]) / 2\n", "    return ordered[middle]\n"
).replace("    if value > high:\n        return high\n", "")

VISIBLE_TESTS = """\
import pytest

from stats.core import clamp, mean, median, spread


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_mean_empty():
    with pytest.raises(ValueError):
        mean([])


def test_median_odd():
    assert median([3, 1, 2]) == 2


def test_median_even():
    assert median([4, 1, 3, 2]) == 2.5


def test_spread():
    assert spread([5, 1, 9]) == 8


def test_clamp_low():
    assert clamp(-5, 0, 10) == 0


def test_clamp_high():
    assert clamp(50, 0, 10) == 10


def test_clamp_inside():
    assert clamp(5, 0, 10) == 5
"""

# Hidden tests as the suite writes them (docs/repo-suite.md): inputs drawn at run time and
# results checked against a second implementation (the standard library's), types exactly --
# so neither a wrapper returning an always-equal object nor code that reads the literal
# asserts under tests/ passes them.
HIDDEN_TESTS = """\
import random
import statistics

from stats.core import clamp, median


def same(got, expected):
    assert type(got) is type(expected), f"{type(got).__name__} returned, {type(expected).__name__} expected"
    assert got == expected, f"{got!r} != {expected!r}"


def test_median_matches_statistics():
    rng = random.Random(36)
    for size in range(1, 30):
        values = [rng.choice([rng.randrange(-50, 50), rng.uniform(-5, 5)]) for _ in range(size)]
        same(median(values), statistics.median(values))


def test_median_of_pairs():
    rng = random.Random(37)
    for _ in range(50):
        low = rng.randrange(-100, 100)
        pair = [low + rng.randrange(1, 9), low]
        same(median(pair), (pair[0] + pair[1]) / 2)


def test_clamp_matches_sorting():
    rng = random.Random(38)
    for _ in range(200):
        low = rng.randrange(-20, 20)
        high = low + rng.randrange(0, 10)
        value = rng.randrange(-40, 40)
        same(clamp(value, low, high), sorted([low, value, high])[1])
"""

FILES = {
    "pytest.ini": "[pytest]\ntestpaths = tests\npythonpath = .\n",
    "stats/__init__.py": '"""stats: small statistics helpers."""\n',
    "stats/core.py": CORE_BUGGY,
    "tests/test_core.py": VISIBLE_TESTS,
}

ISSUE = (
    "median() returns the upper middle value for lists of even length (median([4, 1, 3, 2]) "
    "gives 3, expected 2.5), and clamp() returns values above the upper bound unchanged."
)


def tiny_task(split: str = "train") -> Task:
    """The task: the buggy repository, the gold patch, its tests and the paths it may change."""
    fixed = dict(FILES, **{"stats/core.py": CORE_FIXED})
    return Task(
        id="repo/stats/median_clamp",
        domain="repo",
        split=split,  # type: ignore[arg-type]
        prompt=ISSUE,
        reference=make_patch(FILES, fixed),
        metadata={
            "project": "stats",
            "family": "stats",
            "files": dict(FILES),
            "hidden_tests": {"tests/test_hidden_core.py": HIDDEN_TESTS},
            "fail_to_pass": ["tests/test_core.py::test_median_even", "tests/test_core.py::test_clamp_high"],
            "pass_to_pass": [
                "tests/test_core.py::test_mean",
                "tests/test_core.py::test_mean_empty",
                "tests/test_core.py::test_median_odd",
                "tests/test_core.py::test_spread",
                "tests/test_core.py::test_clamp_low",
                "tests/test_core.py::test_clamp_inside",
            ],
            "allowed_paths": ["stats/*.py"],
        },
    )
