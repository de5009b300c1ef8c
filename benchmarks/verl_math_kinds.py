"""The math candidate kinds of issue 33, shown by hand to installed math graders.

What each grader pays, per category, on the candidates the math generators make for ten
tasks (integers, fractions, weekdays, option letters; seed 0): verl's ``math_reward``,
``math_dapo`` and ``prime_math`` (read from the installed package), Math-Verify as
``examples/real_verifiers.py`` calls it, and the built-in strong verifier. The numbers are
in docs/real-verifiers.md.

verl is installed without its dependencies here, and its package ``__init__`` imports its
training stack (tensordict, omegaconf): the graders are plain Python, so the packages
above them are entered without running their ``__init__``. ``prime_math`` needs
``pylatexenc``::

    pip install --target /tmp/pylatexenc pylatexenc
    PYTHONPATH=.:/tmp/pylatexenc python benchmarks/verl_math_kinds.py
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
import types
from collections import Counter
from pathlib import Path

from verifier_audit.domains.math.generators import generate_all
from verifier_audit.domains.math.verifiers import strong
from verifier_audit.models import Task

REFERENCES = [
    "42",
    "7",
    "13",
    r"\frac{7}{2}",
    r"\frac{9}{4}",
    r"\frac{11}{3}",
    r"\text{Monday}",
    r"\text{Friday}",
    "B",
    "D",
]
CATEGORIES = {
    "math.near_miss.near_integer",
    "math.near_miss.improper_mixed",
    "math.near_miss.choice_listing",
    "math.near_miss.unit_truncation",
    "math.hedge.think_blocks",
    "math.trap.retraction",
}


def _verl_graders() -> dict:
    found = importlib.util.find_spec("verl")  # finds the package without importing it
    if found is None or not found.submodule_search_locations:
        return {}
    root = Path(found.submodule_search_locations[0])
    for name in ("verl", "verl.utils", "verl.utils.reward_score"):
        package = types.ModuleType(name)
        package.__path__ = [str(root.joinpath(*name.split(".")[1:]))]
        sys.modules[name] = package
    graders = {}
    for name, call in (
        ("math_reward", lambda m: lambda s, g: m.compute_score(s, g) > 0),
        ("math_dapo", lambda m: lambda s, g: m.compute_score(s, g)["score"] > 0),
        ("prime_math", lambda m: lambda s, g: bool(m.compute_score(s, g)[0])),
    ):
        try:
            graders[f"verl {name}"] = call(importlib.import_module(f"verl.utils.reward_score.{name}"))
        except ImportError as exc:
            print(f"verl {name}: not measured ({exc})")
    return graders


def main() -> None:
    tasks = [Task(id=f"t{i}", domain="math", prompt="Compute it.", reference=r) for i, r in enumerate(REFERENCES)]
    gold = {t.id: t.reference for t in tasks}
    candidates = [c for c in generate_all(tasks, 0) if c.category in CATEGORIES]
    graders = {"strong (built-in)": lambda s, g: bool(strong(s, g)), **_verl_graders()}
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))
    try:
        from real_verifiers import math_verify_reward

        graders["Math-Verify 0.9.0"] = lambda s, g: math_verify_reward(s, g) > 0
    except ImportError as exc:
        print(f"Math-Verify: not measured ({exc})")
    for name, grade in graders.items():
        paid, shown, example = Counter(), Counter(), {}
        for c in candidates:
            shown[c.category] += 1
            try:
                ok = grade(c.text, gold[c.task_id])
            except Exception:  # a grader's own crash is a refusal here
                ok = False
            if ok:
                paid[c.category] += 1
                example.setdefault(c.category, (gold[c.task_id], c.text.strip().splitlines()[-1][-80:]))
        print(f"== {name}")
        for category in sorted(shown):
            seen = f"  e.g. gold {example[category][0]!r}: {example[category][1]!r}" if category in example else ""
            print(f"  {category}: paid {paid[category]}/{shown[category]}{seen}")


if __name__ == "__main__":
    main()
