"""The generator kit (``verifier_audit.domains.kit``): its public face, the one
``make_candidates`` and the one per-kind sampler ``sample_kinds`` every domain's generators
call. The domains' own generator tests (and the byte-identical reports) check that each
domain still gets the candidates it always had; these check the kit's contracts."""

from __future__ import annotations

import ast
import importlib
import random
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from verifier_audit.domains import kit
from verifier_audit.domains.kit import Chosen, make_candidates, sample_kinds
from verifier_audit.models import Severity

PACKAGE = Path(__file__).resolve().parents[2] / "verifier_audit"
KIT = PACKAGE / "domains" / "kit"


# ------------------------------------------------------------------------ public face


def test_every_public_name_is_there():
    for name in kit.__all__:
        assert getattr(kit, name) is not None, name


@pytest.mark.parametrize("old", ["verifier_audit.catalog", "verifier_audit.generation"])
def test_the_old_modules_are_gone(old):
    # moved, not copied: one home for the kit
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(old)


def test_the_kit_imports_no_domain():
    """The kit is what the domains share: it may use models, resources and the domain
    contract (domains.base), never one domain's package."""
    allowed = {"verifier_audit.models", "verifier_audit.resources", "verifier_audit.domains.base"}
    for path in KIT.glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                target = ".".join(["verifier_audit", "domains", "kit"][: 4 - node.level] + [node.module or ""])
                assert target.startswith("verifier_audit.domains.kit") or target.rstrip(".") in allowed, (
                    f"{path.name}:{node.lineno} imports {target}"
                )


def test_make_candidates_is_written_once():
    """Every domain calls the kit's; none keeps a copy of its own."""
    defined = []
    for path in PACKAGE.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        defined += [
            f"{path.relative_to(PACKAGE)}"
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name == "make_candidates"
        ]
    assert defined == ["domains/kit/_generation.py"]


# -------------------------------------------------------------------- make_candidates

KINDS = {"sign_flip": (Severity.high, "sign flipped"), "rounding": ("medium", "rounded"), "x": ("low", "x")}


def test_make_candidates_per_category_ids_and_fields():
    made = make_candidates(
        "math",
        "t1",
        [("sign_flip", "a", "n1"), ("rounding", "b", "n2"), ("sign_flip", "c", "n3")],
        origin="near_miss",
        label="incorrect",
        kinds=KINDS,
    )
    assert [c.id for c in made] == [
        "t1/math.near_miss.sign_flip/0",
        "t1/math.near_miss.rounding/0",
        "t1/math.near_miss.sign_flip/1",
    ]
    assert [c.text for c in made] == ["a", "b", "c"] and [c.note for c in made] == ["n1", "n2", "n3"]
    assert {c.task_id for c in made} == {"t1"} and {c.origin for c in made} == {"near_miss"}
    assert {c.label for c in made} == {"incorrect"} and {c.label_source for c in made} == {"construction+oracle"}
    # a severity spelled as a string is the enum all the same
    assert [c.severity for c in made] == [Severity.high, Severity.medium, Severity.high]
    assert [c.format for c in made] == [None, None, None]


def test_make_candidates_running_and_kind_ids_and_formats():
    chosen = [Chosen("x", "a", "n", "json_list"), ("sign_flip", "b", "m")]
    running = make_candidates("code", "t", chosen, origin="near_miss", label="incorrect", kinds=KINDS, ids="running")
    assert [c.id for c in running] == ["t/code.near_miss.x/0", "t/code.near_miss.sign_flip/1"]
    assert [c.format for c in running] == ["json_list", None]
    by_kind = make_candidates("code", "t", chosen, origin="equivalent", label="correct", kinds=KINDS, ids="kind")
    assert [c.id for c in by_kind] == ["t/code.equivalent.x", "t/code.equivalent.sign_flip"]
    assert {c.label for c in by_kind} == {"correct"}


@given(st.lists(st.sampled_from(sorted(KINDS)), max_size=30))
def test_make_candidates_numbers_each_category_from_zero(kinds):
    made = make_candidates(
        "tool",
        "t",
        [(k, f"text {i}", "") for i, k in enumerate(kinds)],
        origin="near_miss",
        label="incorrect",
        kinds=KINDS,
    )
    assert len({c.id for c in made}) == len(made) == len(kinds)
    seen: Counter = Counter()
    for kind, c in zip(kinds, made):
        assert c.id == f"t/tool.near_miss.{kind}/{seen[kind]}" and c.category == f"tool.near_miss.{kind}"
        seen[kind] += 1


# ----------------------------------------------------------------------- sample_kinds


@dataclass(frozen=True)
class Item:
    kind: str
    n: int
    key: int = 0


@st.composite
def items_of(draw, max_size=40):
    kinds = draw(st.lists(st.sampled_from("abcdefg"), max_size=max_size))
    keys = draw(st.lists(st.integers(0, 3), min_size=len(kinds), max_size=len(kinds)))
    return [Item(kind, n, key) for n, (kind, key) in enumerate(zip(kinds, keys))]


DRAWS = ["round_robin", "rounds", "sample", "choice"]
caps = st.one_of(st.none(), st.integers(0, 15))
per_kinds = st.one_of(st.none(), st.integers(1, 3))


def _run(items, seed, draw, cap, per_kind, **options):
    return sample_kinds(items, random.Random(seed), cap=cap, per_kind=per_kind, draw=draw, **options)


@given(items_of(), st.integers(0, 2**32), st.sampled_from(DRAWS), caps, per_kinds)
def test_the_caps_hold_and_nothing_is_invented(items, seed, draw, cap, per_kind):
    got = _run(items, seed, draw, cap, per_kind)
    assert cap is None or len(got) <= cap
    limit = 1 if draw == "choice" else per_kind
    if limit is not None:
        assert max(Counter(i.kind for i in got).values(), default=0) <= limit
    assert len(set(got)) == len(got) and set(got) <= set(items)


@given(items_of(), st.integers(0, 2**32), st.sampled_from(DRAWS), caps, per_kinds)
def test_the_draw_is_deterministic_for_a_seed(items, seed, draw, cap, per_kind):
    for order in (None, "source", "grouped", lambda i: -i.n):
        first, again = (_run(items, seed, draw, cap, per_kind, order=order) for _ in range(2))
        assert first == again


@given(items_of(), st.integers(0, 2**32), st.sampled_from(["round_robin", "rounds"]), st.integers(0, 15), per_kinds)
def test_the_spreading_draws_cover_as_many_kinds_as_the_cap_allows(items, seed, draw, cap, per_kind):
    """One prolific kind does not crowd out the rest: with room for every kind, every kind
    is there; with less, only distinct kinds are kept."""
    got = _run(items, seed, draw, cap, per_kind)
    kinds = {i.kind for i in items}
    assert len({i.kind for i in got}) == min(len(kinds), cap, len(got))
    if cap >= len(kinds):
        assert {i.kind for i in got} == kinds


@given(items_of(), st.integers(0, 2**32), st.sampled_from(DRAWS), caps, per_kinds)
def test_order_source_keeps_the_items_order(items, seed, draw, cap, per_kind):
    got = _run(items, seed, draw, cap, per_kind, order="source")
    cut = cap is not None and len(_run(items, seed, draw, None, per_kind)) > cap
    if draw == "round_robin" or cut:  # a selection that needed no cut stays grouped
        assert [i.n for i in got] == sorted(i.n for i in got)


@given(items_of(), st.integers(0, 2**32), st.sampled_from(["rounds", "sample", "choice"]), per_kinds)
def test_no_cut_no_draw(items, seed, draw, per_kind):
    """Under the cap the draws other than round_robin leave the rng untouched (a generator
    goes on drawing its completions' prose from it) and keep the items grouped by kind
    (as they came, for a sample with nothing to group by)."""
    rng = random.Random(seed)
    before = rng.getstate()
    got = sample_kinds(items, rng, cap=None, per_kind=per_kind, draw=draw)
    if draw == "sample" and per_kind is None:
        assert got == items and rng.getstate() == before
    elif draw != "choice":
        assert rng.getstate() == before
        first_seen = list(dict.fromkeys(i.kind for i in items))
        assert [i.kind for i in got] == sorted((i.kind for i in got), key=first_seen.index)


@given(items_of(), st.integers(0, 2**32), caps, per_kinds)
def test_distinct_keeps_one_of_each_key_per_kind(items, seed, cap, per_kind):
    for draw in ("rounds", "sample"):
        got = _run(items, seed, draw, cap, per_kind, distinct=lambda i: i.key)
        assert len({(i.kind, i.key) for i in got}) == len(got)


@given(items_of(), st.integers(0, 2**32), st.integers(1, 15), per_kinds, st.sets(st.integers(0, 40)))
def test_round_robin_take_tries_the_next_item_of_a_kind_it_refused(items, seed, cap, per_kind, refused):
    got = _run(items, seed, "round_robin", cap, per_kind, take=lambda i: None if i.n in refused else ("kept", i))
    assert all(tag == "kept" and i.n not in refused for tag, i in got)
    usable = {i.kind for i in items if i.n not in refused}
    if cap >= len(usable):
        assert {i.kind for _, i in got} == usable


def test_round_robin_permutes_kinds_and_items_with_the_seed():
    items = [Item(k, n) for n, k in enumerate("aaaabbbbcccc")]
    outcomes = {tuple(i.n for i in _run(items, seed, "round_robin", 3, None)) for seed in range(40)}
    assert len(outcomes) > 10  # the seed decides which of each kind, and the kinds' order
    assert all(len({items[n].kind for n in o}) == 3 for o in outcomes)


def test_rounds_takes_every_kinds_first_before_any_second():
    items = [Item(k, n) for n, k in enumerate("aaabbbccd")]
    got = _run(items, 0, "rounds", 6, 2, order="source")
    firsts = {0, 3, 6, 8}
    assert firsts <= {i.n for i in got} and len(got) == 6


def test_a_bad_draw_or_a_take_outside_round_robin_is_refused():
    with pytest.raises(ValueError, match="draw 'shuffle'"):
        sample_kinds([], random.Random(0), cap=1, draw="shuffle")
    with pytest.raises(ValueError, match="take"):
        sample_kinds([], random.Random(0), cap=1, draw="sample", take=lambda i: i)
