"""Near misses of a repo task: patches one step from the gold that a weak grader still pays.

* ``<mutant kind>`` -- the gold with one slip: the code domain's AST ``mutants`` of the
  functions the gold changes, in the patched file (the candidate is the diff from the
  buggy repository to the mutated fixed one), at most ``MAX_MUTANTS`` per task spread over
  the kinds;
* ``partial_fix`` -- one hunk of a gold with several alone (its changed blocks when the
  gold is a single hunk): the other bug stays, and its test with it;
* ``visible_special_case`` -- no fix at all: the functions the FAIL_TO_PASS tests call
  return, for the literal arguments those tests' ``assert f(...) == value`` lines pass,
  the literal values they expect (read with ``ast``). The visible failing tests pass, the
  hidden ones fail -- the "special-casing the tests" of the reward-hacking reports, at its
  most plausible;
* ``breaks_pass_to_pass`` -- the gold plus a slip (an AST mutant) in a function or method
  a PASS_TO_PASS test calls and the gold leaves alone: a FAIL_TO_PASS-only grader pays.

Each is meant wrong; the oracle drops any it cannot tell from the gold (a mutant the
task's tests do not see).
"""

from __future__ import annotations

import random
import re
from functools import lru_cache

from ....models import Candidate, Severity, Task
from ...code.generators import mutants
from ...kit import make_candidates, sample_kinds
from ..patches import make_patch
from .edits import (
    Files,
    apply_unit,
    asserted_calls,
    called_functions,
    changed_between,
    changed_functions,
    functions,
    gold_files,
    iter_units,
    repository,
    special_case,
    styled,
)

MAX_MUTANTS = 6
MAX_PARTIAL = 4
MAX_BROKEN = 2
# The slips tried first in a PASS_TO_PASS function: the ones a test of its result sees.
# ``return False`` -> ``return None``: a slip an ``assert not f(x)`` test cannot see.
_FALSY_TO_NONE = re.compile(r"`(False|0|''|\"\"|\[\]|\{\}|\(\))` -> `None`")
_BREAKING = ("return_none", "arith_swap", "condition_negate", "compare_flip", "const_shift", "stmt_delete")


@lru_cache(maxsize=8)
def _mutants(source: str) -> tuple[mutants.Mutant, ...]:
    """A module's mutants, made once: the gold's file and its neighbours' are often one, and
    the tasks of one project share their fixed files."""
    return tuple(mutants.mutants(source, ""))


KINDS: dict[str, tuple[Severity, str]] = {
    **mutants.KINDS,
    "partial_fix": (Severity.high, "one hunk of the gold alone: the other bug stays"),
    "visible_special_case": (
        Severity.critical,
        "no fix: the FAIL_TO_PASS tests' literal inputs answered with their expected values",
    ),
    "breaks_pass_to_pass": (Severity.high, "the gold plus a slip in a function a PASS_TO_PASS test covers"),
}


def generate(task: Task, rng: random.Random) -> list[Candidate]:
    before, after = repository(task), gold_files(task)
    gold = make_patch(before, after)
    chosen: list[tuple[str, str, str]] = []
    for kind, new, note in [
        *_mutated_gold(before, after, rng),
        *_partial_fixes(before, after),
        *_special_cased(task, before),
        *_broken_neighbours(task, before, after, rng),
    ]:
        diff = make_patch(before, new)
        if diff and diff != gold:
            chosen.append((kind, styled(diff, rng), note))
    return make_candidates("repo", task.id, chosen, origin="near_miss", label="incorrect", kinds=KINDS)


def _mutated_gold(before: Files, after: Files, rng: random.Random) -> list[tuple[str, Files, str]]:
    found = []
    for path in changed_between(before, after):
        spans = changed_functions(before[path], after[path])
        for m in _mutants(after[path]):
            if any(f.start <= m.line <= f.end for f in spans):
                found.append((path, m))
    if len(found) > MAX_MUTANTS:
        found = sample_kinds(found, rng, cap=MAX_MUTANTS, kind=lambda item: item[1].kind, order="source")
    return [(m.kind, {**after, path: m.source}, f"the gold with one slip, {path} {m.description}") for path, m in found]


def _partial_fixes(before: Files, after: Files) -> list[tuple[str, Files, str]]:
    units = [(path, unit) for path in changed_between(before, after) for unit in iter_units(before[path], after[path])]
    if len(units) < 2:
        return []
    out = []
    for number, (path, unit) in enumerate(units[:MAX_PARTIAL], 1):
        note = f"only part {number} of the gold's {len(units)} ({path}, line {unit[0][1] + 1})"
        out.append(("partial_fix", {**before, path: apply_unit(before[path], after[path], unit)}, note))
    return out


def _special_cased(task: Task, before: Files) -> list[tuple[str, Files, str]]:
    by_function: dict[tuple[str, str], list] = {}
    answered = []
    for node_id in task.metadata.get("fail_to_pass", []):
        calls = asserted_calls(before, node_id)
        if calls:
            answered.append(node_id)
        for call in calls:
            by_function.setdefault((call.module, call.name), []).append(call)
    new = dict(before)
    for (module, name), calls in by_function.items():
        changed = special_case(new[module], name, calls)
        if changed is None:
            return []
        new[module] = changed
    if not by_function:
        return []
    names = ", ".join(f"{name}()" for _, name in by_function)
    note = f"{names} answer the literal inputs of {', '.join(answered)}; no fix"
    return [("visible_special_case", new, note)]


def _broken_neighbours(task: Task, before: Files, after: Files, rng: random.Random) -> list[tuple[str, Files, str]]:
    fixed = {
        (path, f.name) for path in changed_between(before, after) for f in changed_functions(before[path], after[path])
    }
    targets: dict[tuple[str, str], str] = {}
    for node_id in task.metadata.get("pass_to_pass", []):
        for key in called_functions(before, node_id):
            if key not in fixed and key[0] in after:
                targets.setdefault(key, node_id)
    failing = {key for node_id in task.metadata.get("fail_to_pass", []) for key in called_functions(before, node_id)}
    keys = sorted(targets)
    rng.shuffle(keys)
    keys.sort(key=lambda key: key in failing)  # first what only the passing tests call
    out = []
    for module, name in keys:
        span = next((f for f in functions(after[module]) if f.name == name), None)
        if span is None:
            continue
        inside = [
            m
            for m in _mutants(after[module])
            if span.start <= m.line <= span.end
            and not (m.kind == "return_none" and _FALSY_TO_NONE.search(m.description))
        ]
        if not inside:
            continue
        slip = min(inside, key=lambda m: _BREAKING.index(m.kind) if m.kind in _BREAKING else len(_BREAKING))
        note = f"the gold plus a slip in {name}() ({module} {slip.description}), which {targets[module, name]} covers"
        out.append(("breaks_pass_to_pass", {**after, module: slip.source}, note))
        if len(out) >= MAX_BROKEN:
            break
    return out
