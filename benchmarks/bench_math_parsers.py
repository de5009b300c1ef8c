"""Time LaTeX answer parsers on the answer strings of our oracle test table.

Backends: ours (verifier_audit.domains.math.latex), sympy's parse_latex (lark and antlr
backends) and latex2sympy2_extended.latex2sympy (what Math-Verify uses). A backend that
cannot be imported is skipped. The others are not dependencies of the project; to measure
them, install them outside the repo::

    pip install --target /tmp/l2s latex2sympy2_extended
    pip install --target /tmp/lark lark
    PYTHONPATH=/tmp/l2s:/tmp/lark python benchmarks/bench_math_parsers.py

"Parsed" means the call returned without raising (or hanging past 5 s); it says nothing
about whether the value is right. Each string is parsed 5 times and the median is kept;
our parser's memo cache is bypassed so every call does the full work.

The second table says whether the parse is *useful*: each (gold, candidate) pair of the
table is judged equal when both sides parse and sympy finds them equal (a == b, or
simplify(a - b) == 0); for our parser the oracle's `equivalent` decides. "equal pairs
right" is recall on should-be-equal pairs, "near-misses right" is how many should-differ
pairs are kept apart (a parse failure counts as "different" there, so it flatters a parser
that fails a lot).
"""

from __future__ import annotations

import argparse
import importlib.util
import pathlib
import signal
import statistics
import sys
import time
import warnings
from collections.abc import Callable

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
REPEATS = 5
TIMEOUT_S = 5


def oracle_table():
    spec = importlib.util.spec_from_file_location("oracle_table", ROOT / "tests" / "test_math_oracle.py")
    table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(table)
    return table


def answer_strings(table) -> list[str]:
    """Every distinct string of tests/domains/math/test_math_oracle.py's EQUAL and NOT_EQUAL tables."""
    seen: dict[str, None] = {}
    for gold, cand in [*table.EQUAL, *table.NOT_EQUAL]:
        seen.setdefault(gold)
        seen.setdefault(cand)
    return list(seen)


def backends() -> dict[str, Callable[[str], object] | None]:
    found: dict[str, Callable[[str], object] | None] = {}
    from verifier_audit.domains.math import latex

    found["verifier-audit (ours)"] = latex._parse_cached.__wrapped__  # no memo cache
    try:
        from sympy.parsing.latex import parse_latex

        parse_latex("1", backend="lark")
        found["sympy parse_latex (lark)"] = lambda s: parse_latex(s, backend="lark")
    except Exception as exc:  # not installed: lark is optional
        print(f"skip sympy parse_latex (lark): {type(exc).__name__}: {exc}")
    try:
        from sympy.parsing.latex import parse_latex

        parse_latex("1")
        found["sympy parse_latex (antlr)"] = parse_latex
    except Exception as exc:  # needs antlr4-python3-runtime 4.11 exactly
        print(f"skip sympy parse_latex (antlr): {type(exc).__name__}: {str(exc)[:80]}")
    try:
        from latex2sympy2_extended import latex2sympy

        latex2sympy("1")
        found["latex2sympy2_extended"] = latex2sympy
    except Exception as exc:
        print(f"skip latex2sympy2_extended: {type(exc).__name__}: {exc}")
    return found


class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # the benchmark runs in the main thread, so SIGALRM works
    raise _Timeout


def measure(parse: Callable[[str], object], texts: list[str]) -> tuple[int, list[float]]:
    ok, times = 0, []
    signal.signal(signal.SIGALRM, _alarm)
    for text in texts:
        runs, failed = [], False
        for _ in range(REPEATS):
            signal.alarm(TIMEOUT_S)
            start = time.perf_counter()
            try:
                parse(text)
            except _Timeout:
                failed = True
                break
            except Exception:
                failed = True
            finally:
                signal.alarm(0)
            runs.append(time.perf_counter() - start)
            if failed:
                break
        ok += not failed
        times.append(statistics.median(runs) if runs else TIMEOUT_S)
    return ok, times


def _guarded(fn: Callable[[], bool]) -> bool:
    signal.alarm(TIMEOUT_S)
    try:
        return bool(fn())
    except (_Timeout, Exception):
        return False
    finally:
        signal.alarm(0)


def sympy_equal(parse: Callable[[str], object], a: str, b: str) -> bool:
    import sympy

    def judge() -> bool:
        x, y = parse(a), parse(b)
        return x == y or sympy.simplify(x - y) == 0

    return _guarded(judge)


def ours_equal(a: str, b: str) -> bool:
    from verifier_audit.domains.math.oracle import answers_equivalent

    return _guarded(lambda: answers_equivalent.__wrapped__(a, b))


def main() -> None:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()  # --help; no options
    warnings.filterwarnings("ignore")
    table = oracle_table()
    texts = answer_strings(table)
    found = backends()
    warnings.filterwarnings("ignore")  # again: sympy installs its own filters on import
    print(f"\n{len(texts)} distinct answer strings from tests/domains/math/test_math_oracle.py\n")
    print("| parser | parsed | success | median µs | p90 µs |")
    print("|---|---|---|---|---|")
    for name, parse in found.items():
        parse(texts[0])  # warm imports and caches
        ok, times = measure(parse, texts)
        times_us = sorted(t * 1e6 for t in times)
        p90 = times_us[int(0.9 * (len(times_us) - 1))]
        print(
            f"| {name} | {ok}/{len(texts)} | {ok / len(texts):.0%} | {statistics.median(times_us):,.0f} | {p90:,.0f} |"
        )
    print(f"\n{len(table.EQUAL)} should-be-equal and {len(table.NOT_EQUAL)} near-miss pairs\n")
    print("| parser + comparison | equal pairs right | near-misses right |")
    print("|---|---|---|")
    signal.signal(signal.SIGALRM, _alarm)
    for name, parse in found.items():
        if name.startswith("verifier-audit"):
            judge, label = ours_equal, f"{name} + oracle"
        else:
            judge = lambda a, b, parse=parse: sympy_equal(parse, a, b)  # noqa: E731
            label = f"{name} + sympy.simplify"
        eq_right = sum(judge(c, g) for g, c in table.EQUAL)
        ne_right = sum(not judge(c, g) for g, c in table.NOT_EQUAL)
        print(f"| {label} | {eq_right}/{len(table.EQUAL)} | {ne_right}/{len(table.NOT_EQUAL)} |")


if __name__ == "__main__":
    main()
