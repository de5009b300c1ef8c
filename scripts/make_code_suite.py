#!/usr/bin/env python
"""Generate the built-in code suite: ``suites/code/tasks.jsonl``.

Every task is a small pure Python function in HumanEval style: ``prompt`` is the signature
with a docstring (behaviour plus one or two ``>>>`` examples), ``reference`` is the complete
function (the prompt followed by the body), ``entry_point`` names it and ``tests`` is a
HumanEval-style ``def check(candidate):`` with only 2-4 asserts -- as weak as real datasets.
All data lives in this script; the output is deterministic (no clock, no hash(), a fixed
seed for the validation fuzz). Rerun after changing a task:

    python scripts/make_code_suite.py            # writes suites/code/tasks.jsonl
    python scripts/make_code_suite.py --check    # exit 1 if the file is out of date

Every task is VALIDATED before anything is written, and the script fails loudly otherwise:
the reference is exec'd in a fresh namespace, the entry point must exist with exactly the
arguments (names and arity) of ``metadata.signature``, every hand-written example must hold
(so the expected values check the reference, not the other way round), the rendered
``check(candidate)`` must pass, and the reference is run on seeded random inputs drawn from
``metadata.input_hints``: it must not raise, must return the declared type and must take
< 10 ms per call.

Splits (``split`` of each task):

- ``train`` and ``heldout`` share families: arithmetic, number_theory, strings,
  string_parsing, lists (sorting, dedup keeping order, running sums, rotations),
  boundary (inclusive ranges, slices, windows: off-by-one traps), bits and geometry
  (simple geometry and closed intervals, scalar results). Within each family every third
  task (positions 3, 6, 9, ...) goes to heldout, the rest to train.
- ``shifted`` holds families ABSENT from train and heldout: dp (recursion with memo and
  dynamic programming: fib, climbing stairs, edit distance, LCS, coin change ...),
  dict_returning (functions that return ``dict[str,int]``: counting, inverting, merging) and
  tuple_returning (functions that return ``tuple[int,int]``). No train task returns a dict
  or a tuple, so a verifier tuned on train first meets those result types here.

``metadata``: ``family``; ``signature`` = ``{"args": [[name, type], ...], "returns": type}``
with types among ``int float str bool list[int] list[str] dict[str,int] tuple[int,int]``;
``input_hints`` = per argument, the ranges for differential testing: ints and floats
``{"min", "max"}``; strings ``{"alphabet", "min_len", "max_len"}``; lists ``{"min_len",
"max_len"}`` plus ``"min"``/``"max"`` (int elements) or ``"alphabet"``/``"max_str_len"``
(str elements); dicts ``{"min_len", "max_len", "alphabet", "max_key_len", "min", "max"}``.
A few hints carry a precondition a plain generator cannot meet: ``"sorted": true`` and
``"unique": true`` on lists, ``"pattern"`` (prose) on strings such as Roman numerals or
``H:MM`` times; the validation fuzz builds those inputs by hand (``special_input``).
Every reference is total on those ranges.
"""

from __future__ import annotations

import random
import sys
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # _suite_file.py lives beside this script
from _suite_file import jsonl, write_or_check  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "suites" / "code" / "tasks.jsonl"
SEED = 20240601
FUZZ_CASES = 40
MAX_SECONDS = 0.010

TYPES = {"int", "float", "str", "bool", "list[int]", "list[str]", "dict[str,int]", "tuple[int,int]"}
SHIFTED_FAMILIES = ("dp", "dict_returning", "tuple_returning")
FAMILY_ORDER = (
    "arithmetic",
    "number_theory",
    "strings",
    "string_parsing",
    "lists",
    "boundary",
    "bits",
    "geometry",
) + SHIFTED_FAMILIES

LOWER = "abcdefghijklmnopqrstuvwxyz"
TEXT = "abcAB xyz.,!"
DEFAULT_HINTS = {
    "int": {"min": -100, "max": 100},
    "float": {"min": -100.0, "max": 100.0},
    "str": {"alphabet": TEXT, "min_len": 0, "max_len": 12},
    "bool": {},
    "list[int]": {"min_len": 0, "max_len": 8, "min": -20, "max": 20},
    "list[str]": {"min_len": 0, "max_len": 6, "alphabet": "abcxyz", "max_str_len": 5},
    "dict[str,int]": {"min_len": 0, "max_len": 5, "alphabet": "abcde", "max_key_len": 3, "min": -10, "max": 10},
    "tuple[int,int]": {"min": -100, "max": 100},
}

SPECS: list[dict] = []
_family = None


def family(name: str) -> None:
    global _family
    _family = name


def T(name, sig, returns, doc, body, examples, hints=None):
    """One task. ``sig``: ``"a: int, b: list[int]"``; ``examples``: [(args tuple, expected)]."""
    args = [[part.split(":")[0].strip(), part.split(":")[1].strip()] for part in sig.split(", ")] if sig else []
    SPECS.append(
        {
            "family": _family,
            "name": name,
            "args": args,
            "returns": returns,
            "doc": doc,
            "body": body,
            "examples": examples,
            "hints": hints or {},
        }
    )


# ------------------------------------------------------------------ arithmetic
family("arithmetic")
T(
    "sum_of_squares",
    "n: int",
    "int",
    "Return 1**2 + 2**2 + ... + n**2, or 0 when n <= 0.",
    "return sum(i * i for i in range(1, n + 1))",
    [((3,), 14), ((0,), 0), ((1,), 1)],
    {"n": {"min": -5, "max": 200}},
)
T(
    "average",
    "nums: list[int]",
    "float",
    "Return the arithmetic mean of nums, or 0.0 for an empty list.",
    "if not nums:\n    return 0.0\nreturn sum(nums) / len(nums)",
    [(([1, 2, 3, 4],), 2.5), (([],), 0.0), (([5],), 5.0)],
)
T(
    "celsius_to_fahrenheit",
    "c: float",
    "float",
    "Convert a temperature from degrees Celsius to degrees Fahrenheit.",
    "return c * 9 / 5 + 32",
    [((100.0,), 212.0), ((-40.0,), -40.0)],
)
T(
    "clamp",
    "x: int, lo: int, hi: int",
    "int",
    "Return x limited to the closed range [lo, hi]; lo <= hi is assumed, and if lo > hi the result is lo.",
    "if x > hi:\n    x = hi\nif x < lo:\n    x = lo\nreturn x",
    [((5, 0, 3), 3), ((-1, 0, 3), 0), ((2, 0, 3), 2)],
)
T(
    "abs_diff",
    "a: int, b: int",
    "int",
    "Return the absolute difference between a and b.",
    "return a - b if a >= b else b - a",
    [((3, 10), 7), ((10, 3), 7), ((-2, -2), 0)],
)
T(
    "triangular",
    "n: int",
    "int",
    "Return the n-th triangular number 1 + 2 + ... + n, or 0 when n <= 0.",
    "if n <= 0:\n    return 0\nreturn n * (n + 1) // 2",
    [((4,), 10), ((1,), 1), ((-3,), 0)],
)
T(
    "sign",
    "x: int",
    "int",
    "Return -1, 0 or 1 according to whether x is negative, zero or positive.",
    "if x > 0:\n    return 1\nif x < 0:\n    return -1\nreturn 0",
    [((7,), 1), ((0,), 0), ((-3,), -1)],
)
T(
    "ceil_div",
    "a: int, b: int",
    "int",
    "Return the ceiling of a / b for b > 0 (a may be negative). Return 0 when b <= 0.",
    "if b <= 0:\n    return 0\nreturn -(-a // b)",
    [((7, 2), 4), ((6, 2), 3), ((-7, 2), -3)],
    {"b": {"min": -2, "max": 20}},
)
T(
    "product",
    "nums: list[int]",
    "int",
    "Return the product of the numbers in nums (1 for an empty list).",
    "result = 1\nfor x in nums:\n    result *= x\nreturn result",
    [(([2, 3, 4],), 24), (([],), 1)],
)
T(
    "max_of_three",
    "a: int, b: int, c: int",
    "int",
    "Return the largest of a, b and c.",
    "best = a\nif b > best:\n    best = b\nif c > best:\n    best = c\nreturn best",
    [((1, 5, 3), 5), ((-1, -5, -3), -1)],
)

# ------------------------------------------------------------------ number theory
family("number_theory")
T(
    "is_prime",
    "n: int",
    "bool",
    "Return True if n is a prime number (numbers below 2 are not prime).",
    "if n < 2:\n    return False\ni = 2\nwhile i * i <= n:\n    if n % i == 0:\n        return False\n    i += 1\nreturn True",
    [((7,), True), ((1,), False), ((9,), False), ((2,), True)],
    {"n": {"min": -10, "max": 10000}},
)
T(
    "gcd",
    "a: int, b: int",
    "int",
    "Return the greatest common divisor of a and b, always non-negative; gcd(0, 0) is 0.",
    "a, b = abs(a), abs(b)\nwhile b:\n    a, b = b, a % b\nreturn a",
    [((12, 18), 6), ((-4, 6), 2), ((0, 0), 0)],
)
T(
    "lcm",
    "a: int, b: int",
    "int",
    "Return the least common multiple of a and b, always non-negative; 0 if either is 0.",
    "if a == 0 or b == 0:\n    return 0\nx, y = abs(a), abs(b)\nwhile y:\n    x, y = y, x % y\nreturn abs(a * b) // x",
    [((4, 6), 12), ((0, 5), 0), ((-3, 5), 15)],
)
T(
    "digit_sum",
    "n: int",
    "int",
    "Return the sum of the decimal digits of n (the sign is ignored).",
    "return sum(int(d) for d in str(abs(n)))",
    [((123,), 6), ((-45,), 9), ((0,), 0)],
    {"n": {"min": -100000, "max": 100000}},
)
T(
    "count_divisors",
    "n: int",
    "int",
    "Return the number of positive divisors of n for n >= 1, and 0 for n < 1.",
    "if n < 1:\n    return 0\nreturn sum(1 for d in range(1, n + 1) if n % d == 0)",
    [((12,), 6), ((1,), 1), ((7,), 2)],
    {"n": {"min": -5, "max": 2000}},
)
T(
    "is_perfect",
    "n: int",
    "bool",
    "Return True if n is a perfect number: positive and equal to the sum of its proper divisors.",
    "if n < 2:\n    return False\nreturn sum(d for d in range(1, n) if n % d == 0) == n",
    [((6,), True), ((28,), True), ((12,), False)],
    {"n": {"min": -5, "max": 2000}},
)
T(
    "reverse_integer",
    "n: int",
    "int",
    "Return n with its decimal digits reversed, keeping the sign (leading zeros vanish).",
    "r = int(str(abs(n))[::-1])\nreturn -r if n < 0 else r",
    [((123,), 321), ((-120,), -21), ((0,), 0)],
    {"n": {"min": -100000, "max": 100000}},
)
T(
    "collatz_steps",
    "n: int",
    "int",
    "Return how many Collatz steps (n -> n/2 if even, 3n+1 if odd) take n to 1; 0 for n <= 1.",
    "steps = 0\nwhile n > 1:\n    n = n // 2 if n % 2 == 0 else 3 * n + 1\n    steps += 1\nreturn steps",
    [((6,), 8), ((1,), 0), ((27,), 111)],
    {"n": {"min": -5, "max": 1000}},
)
T(
    "next_prime",
    "n: int",
    "int",
    "Return the smallest prime strictly greater than n.",
    "m = max(n + 1, 2)\nwhile True:\n    if all(m % d for d in range(2, int(m ** 0.5) + 1)):\n        return m\n    m += 1",
    [((7,), 11), ((0,), 2), ((13,), 17)],
    {"n": {"min": -10, "max": 10000}},
)
T(
    "is_armstrong",
    "n: int",
    "bool",
    "Return True if n >= 0 equals the sum of its digits each raised to the number of digits.",
    "if n < 0:\n    return False\ndigits = str(n)\nreturn sum(int(d) ** len(digits) for d in digits) == n",
    [((153,), True), ((154,), False), ((0,), True)],
    {"n": {"min": -10, "max": 100000}},
)
T(
    "factorial",
    "n: int",
    "int",
    "Return n! for n >= 0 (0! is 1); return 0 for negative n.",
    "if n < 0:\n    return 0\nresult = 1\nfor i in range(2, n + 1):\n    result *= i\nreturn result",
    [((5,), 120), ((0,), 1), ((-2,), 0)],
    {"n": {"min": -5, "max": 60}},
)

# ------------------------------------------------------------------ strings
family("strings")
T(
    "is_palindrome",
    "s: str",
    "bool",
    "Return True if s reads the same forwards and backwards, ignoring case and every\n"
    "character that is not a letter or a digit.",
    "clean = [c.lower() for c in s if c.isalnum()]\nreturn clean == clean[::-1]",
    [(("A man, a plan, a canal: Panama",), True), (("abca",), False), (("",), True)],
    {"s": {"alphabet": "abAB .,", "min_len": 0, "max_len": 10}},
)
T(
    "count_vowels",
    "s: str",
    "int",
    "Return how many characters of s are vowels (a, e, i, o, u, in either case).",
    "return sum(1 for c in s.lower() if c in 'aeiou')",
    [(("Hello World",), 3), (("xyz",), 0)],
    {"s": {"alphabet": "aeiouAEIbcdXY ", "min_len": 0, "max_len": 12}},
)
T(
    "reverse_words",
    "s: str",
    "str",
    "Return the words of s (separated by whitespace) in reverse order, joined by single spaces.",
    "return ' '.join(reversed(s.split()))",
    [(("hello big  world",), "world big hello"), (("  one ",), "one")],
)
T(
    "capitalize_words",
    "s: str",
    "str",
    "Upper-case the first character of every space-separated word of s and lower-case the\n"
    "rest; runs of spaces are kept as they are.",
    "return ' '.join(w[:1].upper() + w[1:].lower() for w in s.split(' '))",
    [(("hello wORLD",), "Hello World"), (("a  b",), "A  B")],
)
T(
    "swap_case",
    "s: str",
    "str",
    "Return s with upper-case letters made lower-case and lower-case letters made upper-case.",
    "return ''.join(c.lower() if c.isupper() else c.upper() for c in s)",
    [(("Hello",), "hELLO"), (("a1B",), "A1b")],
)
T(
    "longest_word",
    "s: str",
    "str",
    "Return the longest whitespace-separated word of s (the first one on a tie), or '' if none.",
    "best = ''\nfor w in s.split():\n    if len(w) > len(best):\n        best = w\nreturn best",
    [(("the quick brown fox",), "quick"), (("",), ""), (("ab cd",), "ab")],
)
T(
    "count_char",
    "s: str, c: str",
    "int",
    "Return how many times the character c occurs in s (0 if c is not a single character).",
    "if len(c) != 1:\n    return 0\nreturn sum(1 for ch in s if ch == c)",
    [(("banana", "a"), 3), (("banana", "z"), 0)],
    {"c": {"alphabet": "abc", "min_len": 0, "max_len": 2}},
)
T(
    "remove_duplicate_chars",
    "s: str",
    "str",
    "Return s with every repeated character removed, keeping first occurrences in order.",
    "seen = set()\nout = []\nfor c in s:\n    if c not in seen:\n        seen.add(c)\n        out.append(c)\nreturn ''.join(out)",
    [(("banana",), "ban"), (("",), "")],
)
T(
    "is_anagram",
    "a: str, b: str",
    "bool",
    "Return True if a and b contain the same letters with the same counts, ignoring case and spaces.",
    "norm = lambda t: sorted(t.replace(' ', '').lower())\nreturn norm(a) == norm(b)",
    [(("Listen", "Silent"), True), (("abc", "abd"), False), (("a b", "ab"), True)],
    {"a": {"alphabet": "abAB ", "min_len": 0, "max_len": 6}, "b": {"alphabet": "abAB ", "min_len": 0, "max_len": 6}},
)
T(
    "run_length_encode",
    "s: str",
    "str",
    "Run-length encode s: each maximal run of one character becomes the character followed\nby the run length.",
    "out = []\ni = 0\nwhile i < len(s):\n    j = i\n    while j < len(s) and s[j] == s[i]:\n        j += 1\n    out.append(s[i] + str(j - i))\n    i = j\nreturn ''.join(out)",
    [(("aaabcc",), "a3b1c2"), (("",), "")],
    {"s": {"alphabet": "ab", "min_len": 0, "max_len": 12}},
)
T(
    "first_unique_char",
    "s: str",
    "int",
    "Return the index of the first character of s that occurs exactly once, or -1.",
    "for i, c in enumerate(s):\n    if s.count(c) == 1:\n        return i\nreturn -1",
    [(("leetcode",), 0), (("aabb",), -1), (("aabc",), 2)],
    {"s": {"alphabet": "abcd", "min_len": 0, "max_len": 10}},
)

# ------------------------------------------------------------------ string parsing
family("string_parsing")
T(
    "parse_int_list",
    "s: str",
    "list[int]",
    "Parse a comma-separated list of integers; spaces around items and empty items are ignored.",
    "return [int(p) for p in (q.strip() for q in s.split(',')) if p]",
    [(("1, 2,,3",), [1, 2, 3]), (("",), []), ((" -4 ,5",), [-4, 5])],
    {"s": {"alphabet": "0123-, ", "pattern": "comma-separated integers", "min_len": 0, "max_len": 12}},
)
T(
    "sum_digits_in_string",
    "s: str",
    "int",
    "Return the sum of all digit characters of s, each taken as a single digit.",
    "return sum(int(c) for c in s if c in '0123456789')",
    [(("a1b2c3",), 6), (("abc",), 0)],
    {"s": {"alphabet": "ab0123456789", "min_len": 0, "max_len": 12}},
)
T(
    "count_words",
    "s: str",
    "int",
    "Return the number of whitespace-separated words in s.",
    "return len(s.split())",
    [(("hello  big world",), 3), (("   ",), 0)],
)
T(
    "extract_numbers",
    "s: str",
    "list[int]",
    "Return, in order, the integers written by the maximal runs of decimal digits in s.",
    "nums = []\ncur = ''\nfor c in s + ' ':\n    if c in '0123456789':\n        cur += c\n    elif cur:\n        nums.append(int(cur))\n        cur = ''\nreturn nums",
    [(("a12b3",), [12, 3]), (("none",), []), (("007x",), [7])],
    {"s": {"alphabet": "ab0129 ", "min_len": 0, "max_len": 12}},
)
T(
    "is_balanced",
    "s: str",
    "bool",
    "Return True if the brackets (), [] and {} in s are balanced and properly nested; other\ncharacters are ignored.",
    "pairs = {')': '(', ']': '[', '}': '{'}\nstack = []\nfor c in s:\n    if c in '([{':\n        stack.append(c)\n    elif c in pairs:\n        if not stack or stack.pop() != pairs[c]:\n            return False\nreturn not stack",
    [(("([]{})",), True), (("(]",), False), (("((",), False)],
    {"s": {"alphabet": "()[]{}a", "min_len": 0, "max_len": 10}},
)
T(
    "roman_to_int",
    "s: str",
    "int",
    "Convert a valid Roman numeral (I, V, X, L, C, D, M, subtractive forms allowed) to an integer.",
    "values = {'I': 1, 'V': 5, 'X': 10, 'L': 50, 'C': 100, 'D': 500, 'M': 1000}\ntotal = 0\nfor i, c in enumerate(s):\n    v = values[c]\n    if i + 1 < len(s) and values[s[i + 1]] > v:\n        total -= v\n    else:\n        total += v\nreturn total",
    [(("MCMXCIV",), 1994), (("III",), 3), (("IV",), 4)],
    {"s": {"alphabet": "IVXLCDM", "pattern": "valid roman numeral 1..3999", "min_len": 1, "max_len": 12}},
)
T(
    "binary_to_int",
    "s: str",
    "int",
    "Return the value of the binary numeral s (characters 0 and 1); the empty string is 0.",
    "value = 0\nfor c in s:\n    value = value * 2 + (1 if c == '1' else 0)\nreturn value",
    [(("1011",), 11), (("",), 0), (("0001",), 1)],
    {"s": {"alphabet": "01", "min_len": 0, "max_len": 16}},
)
T(
    "parse_time",
    "s: str",
    "int",
    "Convert a time written 'H:MM' or 'HH:MM' to minutes after midnight.",
    "h, m = s.split(':')\nreturn int(h) * 60 + int(m)",
    [(("01:30",), 90), (("0:05",), 5), (("23:59",), 1439)],
    {"s": {"pattern": "H:MM or HH:MM, 00:00..23:59", "alphabet": "0123456789:", "min_len": 4, "max_len": 5}},
)
T(
    "camel_to_snake",
    "s: str",
    "str",
    "Convert camelCase to snake_case: every upper-case letter becomes '_' plus its lower-case\n"
    "form (no underscore is added at the very start).",
    "out = []\nfor i, c in enumerate(s):\n    if c.isupper():\n        if i > 0:\n            out.append('_')\n        out.append(c.lower())\n    else:\n        out.append(c)\nreturn ''.join(out)",
    [(("helloWorld",), "hello_world"), (("Abc",), "abc")],
    {"s": {"alphabet": "abcXYZ", "min_len": 0, "max_len": 10}},
)
T(
    "is_valid_ipv4",
    "s: str",
    "bool",
    "Return True if s is a dotted IPv4 address: four decimal parts 0..255, no leading zeros\n"
    "(except '0' itself), digits only.",
    "parts = s.split('.')\nif len(parts) != 4:\n    return False\nfor p in parts:\n    if not p or not all(c in '0123456789' for c in p):\n        return False\n    if len(p) > 1 and p[0] == '0':\n        return False\n    if int(p) > 255:\n        return False\nreturn True",
    [(("192.168.0.1",), True), (("256.1.1.1",), False), (("1.01.1.1",), False)],
    {"s": {"alphabet": "0125.", "min_len": 0, "max_len": 15}},
)

# ------------------------------------------------------------------ lists
family("lists")
T(
    "dedup_keep_order",
    "nums: list[int]",
    "list[int]",
    "Return nums without repeated values, keeping the first occurrence of each in order.",
    "seen = set()\nout = []\nfor x in nums:\n    if x not in seen:\n        seen.add(x)\n        out.append(x)\nreturn out",
    [(([3, 1, 3, 2, 1],), [3, 1, 2]), (([],), [])],
    {"nums": {"min_len": 0, "max_len": 10, "min": -3, "max": 3}},
)
T(
    "running_sum",
    "nums: list[int]",
    "list[int]",
    "Return the running sums of nums: element i is nums[0] + ... + nums[i].",
    "out = []\ntotal = 0\nfor x in nums:\n    total += x\n    out.append(total)\nreturn out",
    [(([1, 2, 3],), [1, 3, 6]), (([],), [])],
)
T(
    "rotate_left",
    "nums: list[int], k: int",
    "list[int]",
    "Rotate nums left by k positions (k >= 0, possibly larger than the length); return a new list.",
    "if not nums:\n    return []\nk %= len(nums)\nreturn nums[k:] + nums[:k]",
    [(([1, 2, 3, 4], 1), [2, 3, 4, 1]), (([1, 2, 3], 5), [3, 1, 2]), (([], 2), [])],
    {"k": {"min": 0, "max": 20}},
)
T(
    "rotate_right",
    "nums: list[int], k: int",
    "list[int]",
    "Rotate nums right by k positions (k >= 0, possibly larger than the length); return a new list.",
    "if not nums:\n    return []\nk %= len(nums)\nreturn nums[len(nums) - k:] + nums[:len(nums) - k]",
    [(([1, 2, 3, 4], 1), [4, 1, 2, 3]), (([1, 2, 3], 3), [1, 2, 3])],
    {"k": {"min": 0, "max": 20}},
)
T(
    "sort_descending",
    "nums: list[int]",
    "list[int]",
    "Return a new list with the elements of nums sorted from largest to smallest.",
    "return sorted(nums, reverse=True)",
    [(([3, 1, 2],), [3, 2, 1]), (([],), [])],
)
T(
    "merge_sorted",
    "a: list[int], b: list[int]",
    "list[int]",
    "Merge two ascending lists into one ascending list (duplicates kept).",
    "i = j = 0\nout = []\nwhile i < len(a) and j < len(b):\n    if a[i] <= b[j]:\n        out.append(a[i])\n        i += 1\n    else:\n        out.append(b[j])\n        j += 1\nreturn out + a[i:] + b[j:]",
    [(([1, 3, 5], [2, 3]), [1, 2, 3, 3, 5]), (([], [1]), [1])],
    {
        "a": {"min_len": 0, "max_len": 6, "min": -20, "max": 20, "sorted": True},
        "b": {"min_len": 0, "max_len": 6, "min": -20, "max": 20, "sorted": True},
    },
)
T(
    "count_greater",
    "nums: list[int], x: int",
    "int",
    "Return how many elements of nums are strictly greater than x.",
    "return sum(1 for v in nums if v > x)",
    [(([1, 5, 3, 5], 3), 2), (([], 0), 0)],
    {"x": {"min": -20, "max": 20}},
)
T(
    "remove_value",
    "nums: list[int], val: int",
    "list[int]",
    "Return a new list with every occurrence of val removed from nums.",
    "return [v for v in nums if v != val]",
    [(([1, 2, 1, 3], 1), [2, 3]), (([4], 5), [4])],
    {"nums": {"min_len": 0, "max_len": 8, "min": -3, "max": 3}, "val": {"min": -3, "max": 3}},
)
T(
    "pairwise_diff",
    "nums: list[int]",
    "list[int]",
    "Return the differences between consecutive elements: nums[i + 1] - nums[i].",
    "return [nums[i + 1] - nums[i] for i in range(len(nums) - 1)]",
    [(([1, 4, 9],), [3, 5]), (([7],), [])],
)
T(
    "sort_by_abs",
    "nums: list[int]",
    "list[int]",
    "Sort nums by absolute value, keeping the original order of equal absolute values.",
    "return sorted(nums, key=abs)",
    [(([-3, 1, -1, 2],), [1, -1, 2, -3]), (([],), [])],
    {"nums": {"min_len": 0, "max_len": 8, "min": -4, "max": 4}},
)
T(
    "sort_by_length",
    "words: list[str]",
    "list[str]",
    "Sort words by length, shortest first, keeping the original order of equal lengths.",
    "return sorted(words, key=len)",
    [((["ccc", "a", "bb", "d"],), ["a", "d", "bb", "ccc"]), (([],), [])],
)
T(
    "interleave",
    "a: list[int], b: list[int]",
    "list[int]",
    "Interleave a and b (a[0], b[0], a[1], b[1], ...); leftover elements of the longer list follow.",
    "out = []\nfor i in range(max(len(a), len(b))):\n    if i < len(a):\n        out.append(a[i])\n    if i < len(b):\n        out.append(b[i])\nreturn out",
    [(([1, 2, 3], [9]), [1, 9, 2, 3]), (([], [4, 5]), [4, 5])],
)

# ------------------------------------------------------------------ boundary (off-by-one traps)
family("boundary")
T(
    "range_sum",
    "lo: int, hi: int",
    "int",
    "Return the sum of the integers from lo to hi, both inclusive; 0 if lo > hi.",
    "return sum(range(lo, hi + 1))",
    [((1, 4), 10), ((3, 3), 3), ((5, 2), 0)],
)
T(
    "count_in_range",
    "nums: list[int], lo: int, hi: int",
    "int",
    "Return how many elements of nums lie in the closed range [lo, hi].",
    "return sum(1 for v in nums if lo <= v <= hi)",
    [(([1, 2, 3, 4, 5], 2, 4), 3), (([], 0, 9), 0)],
    {"lo": {"min": -20, "max": 20}, "hi": {"min": -20, "max": 20}},
)
T(
    "strip_ends",
    "s: str",
    "str",
    "Return s without its first and last characters ('' when s has fewer than 3 characters).",
    "return s[1:-1] if len(s) > 2 else ''",
    [(("hello",), "ell"), (("ab",), ""), (("abc",), "b")],
)
T(
    "last_n",
    "nums: list[int], n: int",
    "list[int]",
    "Return the last n elements of nums (all of them if n exceeds the length, none if n <= 0).",
    "if n <= 0:\n    return []\nreturn nums[-n:]",
    [(([1, 2, 3, 4], 2), [3, 4]), (([1, 2], 5), [1, 2]), (([1, 2], 0), [])],
    {"n": {"min": -2, "max": 10}},
)
T(
    "max_window_sum",
    "nums: list[int], k: int",
    "int",
    "Return the largest sum of k consecutive elements of nums; 0 if k <= 0 or k > len(nums).",
    "if k <= 0 or k > len(nums):\n    return 0\nreturn max(sum(nums[i:i + k]) for i in range(len(nums) - k + 1))",
    [(([1, 4, 2, 10, 2], 2), 12), (([5, 1], 2), 6), (([1], 2), 0)],
    {"k": {"min": -1, "max": 10}},
)
T(
    "count_windows_with_sum",
    "nums: list[int], k: int, target: int",
    "int",
    "Return how many windows of k consecutive elements of nums sum to target (0 if k <= 0).",
    "if k <= 0:\n    return 0\nreturn sum(1 for i in range(len(nums) - k + 1) if sum(nums[i:i + k]) == target)",
    [(([1, 2, 1, 2], 2, 3), 3), (([1, 2], 3, 3), 0)],
    {
        "nums": {"min_len": 0, "max_len": 8, "min": -2, "max": 3},
        "k": {"min": -1, "max": 9},
        "target": {"min": -4, "max": 6},
    },
)
T(
    "substring_inclusive",
    "s: str, i: int, j: int",
    "str",
    "Return the characters of s from index i to index j, both inclusive (0-based, i, j >= 0);\n"
    "indices past the end are clipped and i > j gives ''.",
    "if i > j:\n    return ''\nreturn s[i:j + 1]",
    [(("abcdef", 1, 3), "bcd"), (("abc", 2, 2), "c"), (("abc", 1, 10), "bc")],
    {"i": {"min": 0, "max": 12}, "j": {"min": 0, "max": 12}},
)
T(
    "multiples_in_range",
    "lo: int, hi: int, d: int",
    "int",
    "Return how many multiples of d (d >= 1) lie in the closed range [lo, hi]; 0 if d < 1.",
    "if d < 1 or lo > hi:\n    return 0\nreturn hi // d - (lo - 1) // d",
    [((1, 10, 3), 3), ((3, 9, 3), 3), ((-3, 3, 3), 3)],
    {"d": {"min": 0, "max": 12}},
)
T(
    "pad_left",
    "s: str, width: int, ch: str",
    "str",
    "Pad s on the left with the single character ch until it is width long; longer strings are\nreturned unchanged.",
    "if len(s) >= width:\n    return s\nreturn ch * (width - len(s)) + s",
    [(("7", 3, "0"), "007"), (("1234", 3, "0"), "1234"), (("ab", 2, "*"), "ab")],
    {"width": {"min": -2, "max": 15}, "ch": {"alphabet": "0*", "min_len": 1, "max_len": 1}},
)
T(
    "every_kth",
    "nums: list[int], k: int",
    "list[int]",
    "Return every k-th element of nums counting from 1: nums[k-1], nums[2k-1], ...; [] if k < 1.",
    "if k < 1:\n    return []\nreturn nums[k - 1::k]",
    [(([1, 2, 3, 4, 5, 6, 7], 3), [3, 6]), (([1, 2], 1), [1, 2])],
    {"k": {"min": 0, "max": 9}},
)
T(
    "fizzbuzz_count",
    "n: int",
    "int",
    "Return how many integers in 1..n (inclusive) are divisible by 3 or by 5; 0 when n < 1.",
    "return sum(1 for i in range(1, n + 1) if i % 3 == 0 or i % 5 == 0)",
    [((15,), 7), ((3,), 1), ((2,), 0)],
    {"n": {"min": -5, "max": 1000}},
)
T(
    "is_leap_year",
    "year: int",
    "bool",
    "Return True for Gregorian leap years: divisible by 4, except centuries not divisible by 400.",
    "return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)",
    [((2000,), True), ((1900,), False), ((2024,), True)],
    {"year": {"min": 1, "max": 3000}},
)
T(
    "letter_grade",
    "score: int",
    "str",
    "Map a score 0..100 to a grade: 90 and above 'A', 80-89 'B', 70-79 'C', 60-69 'D', else 'F'.",
    "if score >= 90:\n    return 'A'\nif score >= 80:\n    return 'B'\nif score >= 70:\n    return 'C'\nif score >= 60:\n    return 'D'\nreturn 'F'",
    [((90,), "A"), ((89,), "B"), ((59,), "F")],
    {"score": {"min": 0, "max": 100}},
)

# ------------------------------------------------------------------ bits
family("bits")
T(
    "count_set_bits",
    "n: int",
    "int",
    "Return the number of 1 bits in the binary representation of n >= 0.",
    "count = 0\nwhile n > 0:\n    count += n & 1\n    n >>= 1\nreturn count",
    [((7,), 3), ((8,), 1), ((0,), 0)],
    {"n": {"min": 0, "max": 1 << 20}},
)
T(
    "is_power_of_two",
    "n: int",
    "bool",
    "Return True if n is a power of two (1, 2, 4, ...); zero and negatives are not.",
    "return n > 0 and n & (n - 1) == 0",
    [((8,), True), ((6,), False), ((1,), True), ((0,), False)],
    {"n": {"min": -8, "max": 5000}},
)
T(
    "hamming_distance",
    "a: int, b: int",
    "int",
    "Return the number of bit positions where the non-negative integers a and b differ.",
    "return bin(a ^ b).count('1')",
    [((1, 4), 2), ((3, 3), 0)],
    {"a": {"min": 0, "max": 1000}, "b": {"min": 0, "max": 1000}},
)
T(
    "reverse_bits_8",
    "n: int",
    "int",
    "Reverse the order of the 8 low bits of n (0 <= n <= 255).",
    "out = 0\nfor _ in range(8):\n    out = (out << 1) | (n & 1)\n    n >>= 1\nreturn out",
    [((1,), 128), ((6,), 96), ((255,), 255)],
    {"n": {"min": 0, "max": 255}},
)
T(
    "lowest_set_bit",
    "n: int",
    "int",
    "Return the value of the lowest 1 bit of n >= 0 (12 -> 4), or 0 when n is 0.",
    "return n & -n",
    [((12,), 4), ((7,), 1), ((0,), 0)],
    {"n": {"min": 0, "max": 5000}},
)
T(
    "toggle_bit",
    "n: int, i: int",
    "int",
    "Return n with bit i (0 = least significant) flipped; n >= 0 and i >= 0.",
    "return n ^ (1 << i)",
    [((5, 1), 7), ((5, 0), 4)],
    {"n": {"min": 0, "max": 5000}, "i": {"min": 0, "max": 16}},
)
T(
    "get_bit",
    "n: int, i: int",
    "int",
    "Return bit i of n (0 = least significant) as 0 or 1; n >= 0 and i >= 0.",
    "return (n >> i) & 1",
    [((5, 0), 1), ((5, 1), 0), ((8, 3), 1)],
    {"n": {"min": 0, "max": 5000}, "i": {"min": 0, "max": 16}},
)
T(
    "bit_length",
    "n: int",
    "int",
    "Return the number of bits needed to write n >= 0 in binary (0 needs 0 bits).",
    "length = 0\nwhile n:\n    n >>= 1\n    length += 1\nreturn length",
    [((8,), 4), ((7,), 3), ((0,), 0)],
    {"n": {"min": 0, "max": 1 << 20}},
)
T(
    "gray_code",
    "n: int",
    "int",
    "Return the n-th reflected binary Gray code, n XOR (n >> 1), for n >= 0.",
    "return n ^ (n >> 1)",
    [((2,), 3), ((3,), 2), ((0,), 0)],
    {"n": {"min": 0, "max": 5000}},
)
T(
    "parity",
    "n: int",
    "int",
    "Return 1 if n >= 0 has an odd number of 1 bits, else 0.",
    "p = 0\nwhile n:\n    p ^= n & 1\n    n >>= 1\nreturn p",
    [((7,), 1), ((3,), 0)],
    {"n": {"min": 0, "max": 1 << 20}},
)

# ------------------------------------------------------------------ geometry and intervals
family("geometry")
T(
    "rect_area",
    "w: int, h: int",
    "int",
    "Return the area of a w by h rectangle; 0 if either side is negative or zero.",
    "if w <= 0 or h <= 0:\n    return 0\nreturn w * h",
    [((3, 4), 12), ((-1, 4), 0)],
)
T(
    "manhattan",
    "x1: int, y1: int, x2: int, y2: int",
    "int",
    "Return the Manhattan distance between the points (x1, y1) and (x2, y2).",
    "return abs(x1 - x2) + abs(y1 - y2)",
    [((0, 0, 3, 4), 7), ((1, 1, 1, 1), 0)],
)
T(
    "point_in_rect",
    "px: int, py: int, x1: int, y1: int, x2: int, y2: int",
    "bool",
    "Return True if (px, py) lies inside or on the border of the axis-aligned rectangle with\n"
    "opposite corners (x1, y1) and (x2, y2) (the corners may come in any order).",
    "return min(x1, x2) <= px <= max(x1, x2) and min(y1, y2) <= py <= max(y1, y2)",
    [((1, 1, 0, 0, 2, 2), True), ((2, 0, 0, 0, 2, 2), True), ((3, 1, 0, 0, 2, 2), False)],
    {k: {"min": -5, "max": 5} for k in ("px", "py", "x1", "y1", "x2", "y2")},
)
T(
    "intervals_overlap",
    "a1: int, a2: int, b1: int, b2: int",
    "bool",
    "Return True if the closed intervals [a1, a2] and [b1, b2] share a point (a1 <= a2, b1 <= b2\n"
    "assumed; touching ends count).",
    "return max(a1, b1) <= min(a2, b2)",
    [((1, 3, 3, 5), True), ((1, 2, 3, 4), False)],
    {k: {"min": -10, "max": 10} for k in ("a1", "a2", "b1", "b2")},
)
T(
    "overlap_length",
    "a1: int, a2: int, b1: int, b2: int",
    "int",
    "Return the length of the intersection of the segments [a1, a2] and [b1, b2] (a1 <= a2,\n"
    "b1 <= b2 assumed); 0 if they do not intersect.",
    "return max(0, min(a2, b2) - max(a1, b1))",
    [((0, 5, 3, 10), 2), ((0, 2, 5, 6), 0)],
    {k: {"min": -10, "max": 10} for k in ("a1", "a2", "b1", "b2")},
)
T(
    "triangle_kind",
    "a: int, b: int, c: int",
    "str",
    "Classify side lengths: 'invalid' unless all are positive and each is less than the sum of\n"
    "the other two, else 'equilateral', 'isosceles' or 'scalene'.",
    "if a <= 0 or b <= 0 or c <= 0 or a + b <= c or a + c <= b or b + c <= a:\n    return 'invalid'\nif a == b == c:\n    return 'equilateral'\nif a == b or b == c or a == c:\n    return 'isosceles'\nreturn 'scalene'",
    [((2, 2, 2), "equilateral"), ((1, 2, 3), "invalid"), ((3, 4, 5), "scalene")],
    {k: {"min": -1, "max": 8} for k in "abc"},
)
T(
    "is_right_triangle",
    "a: int, b: int, c: int",
    "bool",
    "Return True if positive sides a, b, c (in any order) form a right triangle.",
    "x, y, z = sorted((a, b, c))\nreturn x > 0 and x * x + y * y == z * z",
    [((3, 4, 5), True), ((5, 3, 4), True), ((2, 3, 4), False)],
    {k: {"min": 0, "max": 30} for k in "abc"},
)
T(
    "circle_area",
    "r: float",
    "float",
    "Return the area of a circle of radius r, using pi = 3.141592653589793; 0.0 if r < 0.",
    "if r < 0:\n    return 0.0\nreturn 3.141592653589793 * r * r",
    [((1.0,), 3.141592653589793), ((2.0,), 12.566370614359172)],
)
T(
    "distance",
    "x1: int, y1: int, x2: int, y2: int",
    "float",
    "Return the Euclidean distance between (x1, y1) and (x2, y2).",
    "return ((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5",
    [((0, 0, 3, 4), 5.0), ((1, 1, 1, 1), 0.0)],
)

# ------------------------------------------------------------------ shifted: dp
family("dp")
T(
    "fib",
    "n: int",
    "int",
    "Return the n-th Fibonacci number (fib(0) = 0, fib(1) = 1); 0 for negative n.",
    "memo = {0: 0, 1: 1}\ndef go(k):\n    if k not in memo:\n        memo[k] = go(k - 1) + go(k - 2)\n    return memo[k]\nreturn go(n) if n >= 0 else 0",
    [((10,), 55), ((0,), 0), ((1,), 1)],
    {"n": {"min": -2, "max": 90}},
)
T(
    "climb_stairs",
    "n: int",
    "int",
    "Return the number of ways to climb n stairs taking 1 or 2 steps at a time (1 way for n = 0,\n"
    "0 ways for negative n).",
    "if n < 0:\n    return 0\na, b = 1, 1\nfor _ in range(n):\n    a, b = b, a + b\nreturn a",
    [((3,), 3), ((0,), 1), ((5,), 8)],
    {"n": {"min": -2, "max": 90}},
)
T(
    "edit_distance",
    "a: str, b: str",
    "int",
    "Return the Levenshtein distance (insertions, deletions, substitutions) between a and b.",
    "prev = list(range(len(b) + 1))\nfor i, ca in enumerate(a, 1):\n    cur = [i]\n    for j, cb in enumerate(b, 1):\n        cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))\n    prev = cur\nreturn prev[-1]",
    [(("kitten", "sitting"), 3), (("", "abc"), 3), (("ab", "ab"), 0)],
    {"a": {"alphabet": "abc", "min_len": 0, "max_len": 8}, "b": {"alphabet": "abc", "min_len": 0, "max_len": 8}},
)
T(
    "lcs_length",
    "a: str, b: str",
    "int",
    "Return the length of the longest common subsequence of a and b.",
    "prev = [0] * (len(b) + 1)\nfor ca in a:\n    cur = [0]\n    for j, cb in enumerate(b, 1):\n        cur.append(prev[j - 1] + 1 if ca == cb else max(prev[j], cur[j - 1]))\n    prev = cur\nreturn prev[-1]",
    [(("abcde", "ace"), 3), (("abc", "def"), 0)],
    {"a": {"alphabet": "abcd", "min_len": 0, "max_len": 8}, "b": {"alphabet": "abcd", "min_len": 0, "max_len": 8}},
)
T(
    "max_subarray",
    "nums: list[int]",
    "int",
    "Return the largest sum of a non-empty contiguous subarray of nums; 0 for an empty list.",
    "if not nums:\n    return 0\nbest = cur = nums[0]\nfor x in nums[1:]:\n    cur = max(x, cur + x)\n    best = max(best, cur)\nreturn best",
    [(([-2, 1, -3, 4, -1, 2, 1, -5, 4],), 6), (([-3, -1],), -1), (([],), 0)],
)
T(
    "coin_change_ways",
    "amount: int, coins: list[int]",
    "int",
    "Return the number of ways to make amount from unlimited coins of the given positive\n"
    "denominations (order does not matter; 1 way for amount 0, 0 for a negative amount).",
    "if amount < 0:\n    return 0\nways = [1] + [0] * amount\nfor c in coins:\n    if c <= 0:\n        continue\n    for v in range(c, amount + 1):\n        ways[v] += ways[v - c]\nreturn ways[amount]",
    [((5, [1, 2, 5]), 4), ((3, [2]), 0), ((0, [7]), 1)],
    {"amount": {"min": -2, "max": 60}, "coins": {"min_len": 0, "max_len": 4, "min": 1, "max": 10, "unique": True}},
)
T(
    "min_coins",
    "amount: int, coins: list[int]",
    "int",
    "Return the fewest coins (unlimited supply of each positive denomination) summing to\n"
    "amount, or -1 if impossible (0 coins for amount 0).",
    "if amount < 0:\n    return -1\nINF = amount + 1\nbest = [0] + [INF] * amount\nfor v in range(1, amount + 1):\n    for c in coins:\n        if 0 < c <= v and best[v - c] + 1 < best[v]:\n            best[v] = best[v - c] + 1\nreturn best[amount] if best[amount] < INF else -1",
    [((11, [1, 2, 5]), 3), ((3, [2]), -1), ((0, [1]), 0)],
    {"amount": {"min": -2, "max": 60}, "coins": {"min_len": 0, "max_len": 4, "min": 1, "max": 10, "unique": True}},
)
T(
    "lis_length",
    "nums: list[int]",
    "int",
    "Return the length of the longest strictly increasing subsequence of nums.",
    "best = []\nfor i, x in enumerate(nums):\n    best.append(1 + max([best[j] for j in range(i) if nums[j] < x], default=0))\nreturn max(best, default=0)",
    [(([10, 9, 2, 5, 3, 7, 101, 18],), 4), (([],), 0), (([2, 2],), 1)],
    {"nums": {"min_len": 0, "max_len": 12, "min": -10, "max": 10}},
)
T(
    "tribonacci",
    "n: int",
    "int",
    "Return the n-th Tribonacci number: t(0) = 0, t(1) = t(2) = 1, t(n) = t(n-1) + t(n-2) + t(n-3);\n0 for negative n.",
    "if n < 0:\n    return 0\na, b, c = 0, 1, 1\nfor _ in range(n):\n    a, b, c = b, c, a + b + c\nreturn a",
    [((4,), 4), ((0,), 0), ((25,), 1389537)],
    {"n": {"min": -2, "max": 60}},
)
T(
    "unique_paths",
    "m: int, n: int",
    "int",
    "Return the number of monotone (right/down) paths through an m x n grid from the top-left\n"
    "to the bottom-right cell; 0 if m or n < 1.",
    "if m < 1 or n < 1:\n    return 0\nrow = [1] * n\nfor _ in range(m - 1):\n    for j in range(1, n):\n        row[j] += row[j - 1]\nreturn row[-1]",
    [((3, 7), 28), ((1, 1), 1), ((3, 2), 3)],
    {"m": {"min": 0, "max": 15}, "n": {"min": 0, "max": 15}},
)
T(
    "house_robber",
    "nums: list[int]",
    "int",
    "Return the largest sum of non-adjacent elements of nums (all >= 0); 0 for an empty list.",
    "take, skip = 0, 0\nfor x in nums:\n    take, skip = skip + x, max(take, skip)\nreturn max(take, skip)",
    [(([2, 7, 9, 3, 1],), 12), (([],), 0), (([5, 1, 1, 5],), 10)],
    {"nums": {"min_len": 0, "max_len": 10, "min": 0, "max": 20}},
)

# ------------------------------------------------------------------ shifted: dict-returning
family("dict_returning")
T(
    "char_count",
    "s: str",
    "dict[str,int]",
    "Return a dict mapping each character of s to how many times it occurs.",
    "counts = {}\nfor c in s:\n    counts[c] = counts.get(c, 0) + 1\nreturn counts",
    [(("abca",), {"a": 2, "b": 1, "c": 1}), (("",), {})],
)
T(
    "word_count",
    "s: str",
    "dict[str,int]",
    "Return a dict mapping each lower-cased whitespace-separated word of s to its count.",
    "counts = {}\nfor w in s.lower().split():\n    counts[w] = counts.get(w, 0) + 1\nreturn counts",
    [(("The cat the Hat",), {"the": 2, "cat": 1, "hat": 1}), (("  ",), {})],
    {"s": {"alphabet": "abAB ", "min_len": 0, "max_len": 14}},
)
T(
    "first_index",
    "words: list[str]",
    "dict[str,int]",
    "Invert the list: map each distinct word to the index of its first occurrence in words.",
    "index = {}\nfor i, w in enumerate(words):\n    if w not in index:\n        index[w] = i\nreturn index",
    [((["b", "a", "b"],), {"b": 0, "a": 1}), (([],), {})],
    {"words": {"min_len": 0, "max_len": 8, "alphabet": "abc", "max_str_len": 2}},
)
T(
    "merge_counts",
    "a: dict[str,int], b: dict[str,int]",
    "dict[str,int]",
    "Merge two count dicts into a new dict, adding the values of keys present in both.",
    "out = dict(a)\nfor k, v in b.items():\n    out[k] = out.get(k, 0) + v\nreturn out",
    [(({"x": 1, "y": 2}, {"y": 3, "z": 4}), {"x": 1, "y": 5, "z": 4}), (({}, {}), {})],
)
T(
    "filter_at_least",
    "d: dict[str,int], threshold: int",
    "dict[str,int]",
    "Return a new dict with only the items of d whose value is at least threshold.",
    "return {k: v for k, v in d.items() if v >= threshold}",
    [(({"a": 1, "b": 5, "c": 3}, 3), {"b": 5, "c": 3}), (({"a": 1}, 2), {})],
    {"threshold": {"min": -10, "max": 10}},
)
T(
    "word_lengths",
    "words: list[str]",
    "dict[str,int]",
    "Return a dict mapping each word of words to its length.",
    "return {w: len(w) for w in words}",
    [((["hi", "hello"],), {"hi": 2, "hello": 5}), (([],), {})],
)
T(
    "first_letter_count",
    "words: list[str]",
    "dict[str,int]",
    "Return a dict mapping each first letter of the non-empty words to how many words start with it.",
    "counts = {}\nfor w in words:\n    if w:\n        counts[w[0]] = counts.get(w[0], 0) + 1\nreturn counts",
    [((["apple", "avocado", "banana"],), {"a": 2, "b": 1}), ((["", "x"],), {"x": 1})],
    {"words": {"min_len": 0, "max_len": 6, "alphabet": "abc", "max_str_len": 3}},
)
T(
    "merge_max",
    "a: dict[str,int], b: dict[str,int]",
    "dict[str,int]",
    "Merge two dicts into a new dict; for a key present in both keep the larger value.",
    "out = dict(a)\nfor k, v in b.items():\n    if k not in out or v > out[k]:\n        out[k] = v\nreturn out",
    [(({"x": 1, "y": 9}, {"y": 3, "z": -4}), {"x": 1, "y": 9, "z": -4}), (({"k": -5}, {"k": -2}), {"k": -2})],
)

# ------------------------------------------------------------------ shifted: tuple-returning
family("tuple_returning")
T(
    "min_max",
    "nums: list[int]",
    "tuple[int,int]",
    "Return (smallest, largest) element of nums, or (0, 0) for an empty list.",
    "if not nums:\n    return (0, 0)\nreturn (min(nums), max(nums))",
    [(([3, -1, 7],), (-1, 7)), (([],), (0, 0))],
)
T(
    "floor_divmod",
    "a: int, b: int",
    "tuple[int,int]",
    "Return (q, r) with a == q * b + r and 0 <= r < b for b > 0; return (0, a) when b <= 0.",
    "if b <= 0:\n    return (0, a)\nq = a // b\nreturn (q, a - q * b)",
    [((7, 2), (3, 1)), ((-7, 2), (-4, 1)), ((5, 0), (0, 5))],
    {"b": {"min": -2, "max": 12}},
)
T(
    "count_pos_neg",
    "nums: list[int]",
    "tuple[int,int]",
    "Return (number of positive elements, number of negative elements) of nums; zeros count in neither.",
    "pos = sum(1 for x in nums if x > 0)\nneg = sum(1 for x in nums if x < 0)\nreturn (pos, neg)",
    [(([1, -2, 0, 3],), (2, 1)), (([],), (0, 0))],
    {"nums": {"min_len": 0, "max_len": 8, "min": -3, "max": 3}},
)
T(
    "interval_intersection",
    "a1: int, a2: int, b1: int, b2: int",
    "tuple[int,int]",
    "Return the intersection (start, end) of the closed intervals [a1, a2] and [b1, b2]\n"
    "(a1 <= a2, b1 <= b2 assumed), or (0, -1) if they are disjoint.",
    "lo, hi = max(a1, b1), min(a2, b2)\nreturn (lo, hi) if lo <= hi else (0, -1)",
    [((1, 5, 3, 9), (3, 5)), ((1, 2, 3, 4), (0, -1)), ((1, 3, 3, 4), (3, 3))],
    {k: {"min": -10, "max": 10} for k in ("a1", "a2", "b1", "b2")},
)
T(
    "sum_and_product",
    "nums: list[int]",
    "tuple[int,int]",
    "Return (sum, product) of nums; the empty list gives (0, 1).",
    "p = 1\nfor x in nums:\n    p *= x\nreturn (sum(nums), p)",
    [(([1, 2, 3, 4],), (10, 24)), (([],), (0, 1))],
)
T(
    "even_odd_counts",
    "nums: list[int]",
    "tuple[int,int]",
    "Return (number of even elements, number of odd elements) of nums.",
    "even = sum(1 for x in nums if x % 2 == 0)\nreturn (even, len(nums) - even)",
    [(([1, 2, 4, -3],), (2, 2)), (([],), (0, 0))],
)
T(
    "midpoint_floor",
    "x1: int, y1: int, x2: int, y2: int",
    "tuple[int,int]",
    "Return the midpoint of (x1, y1) and (x2, y2), each coordinate rounded down (floor).",
    "return ((x1 + x2) // 2, (y1 + y2) // 2)",
    [((0, 0, 4, 6), (2, 3)), ((0, 0, -3, 3), (-2, 1))],
)
T(
    "first_last_index",
    "nums: list[int], x: int",
    "tuple[int,int]",
    "Return (first index, last index) of x in nums, or (-1, -1) if x does not occur.",
    "idx = [i for i, v in enumerate(nums) if v == x]\nreturn (idx[0], idx[-1]) if idx else (-1, -1)",
    [(([1, 2, 1, 3], 1), (0, 2)), (([4], 5), (-1, -1))],
    {"nums": {"min_len": 0, "max_len": 8, "min": -3, "max": 3}, "x": {"min": -3, "max": 3}},
)


# ------------------------------------------------------------------ rendering


def annotation(type_name: str) -> str:
    return type_name.replace(",", ", ")


def signature_line(spec: dict) -> str:
    args = ", ".join(f"{n}: {annotation(t)}" for n, t in spec["args"])
    return f"def {spec['name']}({args}) -> {annotation(spec['returns'])}:"


def call(spec: dict, args: tuple, name: str) -> str:
    return f"{name}({', '.join(repr(a) for a in args)})"


def render_prompt(spec: dict) -> str:
    doc = textwrap.indent(spec["doc"], "    ")
    lines = [signature_line(spec), '    """' + doc.lstrip(), ""]
    for args, expected in spec["examples"][:2]:
        lines.append(f"    >>> {call(spec, args, spec['name'])}")
        lines.append(f"    {expected!r}")
    lines.append('    """')
    return "\n".join(lines) + "\n"


def render_reference(spec: dict) -> str:
    return render_prompt(spec) + textwrap.indent(spec["body"], "    ") + "\n"


def render_tests(spec: dict) -> str:
    lines = ["def check(candidate):"]
    for args, expected in spec["examples"]:
        got = call(spec, args, "candidate")
        if spec["returns"] == "float":
            lines.append(f"    assert abs({got} - {expected!r}) < 1e-9")
        else:
            lines.append(f"    assert {got} == {expected!r}")
    return "\n".join(lines) + "\n"


def hints_for(spec: dict) -> dict:
    return {name: {**DEFAULT_HINTS[t], **spec["hints"].get(name, {})} for name, t in spec["args"]}


# ------------------------------------------------------------------ validation


def random_value(rng: random.Random, type_name: str, h: dict):
    if type_name == "int":
        return rng.randint(h["min"], h["max"])
    if type_name == "float":
        return round(rng.uniform(h["min"], h["max"]), 3)
    if type_name == "bool":
        return rng.random() < 0.5
    if type_name == "str":
        return "".join(rng.choice(h["alphabet"]) for _ in range(rng.randint(h["min_len"], h["max_len"])))
    if type_name == "list[int]":
        n = rng.randint(h["min_len"], h["max_len"])
        if h.get("unique"):
            vals = rng.sample(range(h["min"], h["max"] + 1), min(n, h["max"] - h["min"] + 1))
        else:
            vals = [rng.randint(h["min"], h["max"]) for _ in range(n)]
        return sorted(vals) if h.get("sorted") else vals
    if type_name == "list[str]":
        return [
            "".join(rng.choice(h["alphabet"]) for _ in range(rng.randint(0, h["max_str_len"])))
            for _ in range(rng.randint(h["min_len"], h["max_len"]))
        ]
    if type_name == "dict[str,int]":
        return {
            "".join(rng.choice(h["alphabet"]) for _ in range(rng.randint(1, h["max_key_len"]))): rng.randint(
                h["min"], h["max"]
            )
            for _ in range(rng.randint(h["min_len"], h["max_len"]))
        }
    raise ValueError(type_name)


def has_type(value, type_name: str) -> bool:
    if type_name == "int":
        return type(value) is int
    if type_name == "float":
        return type(value) is float
    if type_name == "bool":
        return type(value) is bool
    if type_name == "str":
        return type(value) is str
    if type_name in ("list[int]", "list[str]"):
        inner = int if type_name == "list[int]" else str
        return type(value) is list and all(type(v) is inner for v in value)
    if type_name == "dict[str,int]":
        return type(value) is dict and all(type(k) is str and type(v) is int for k, v in value.items())
    if type_name == "tuple[int,int]":
        return type(value) is tuple and len(value) == 2 and all(type(v) is int for v in value)
    return False


def special_input(spec: dict, rng: random.Random):
    """Inputs for the few tasks whose precondition a free generator would break."""
    if spec["name"] == "roman_to_int":
        n = rng.randint(1, 3999)
        out = ""
        for v, s in (
            (1000, "M"),
            (900, "CM"),
            (500, "D"),
            (400, "CD"),
            (100, "C"),
            (90, "XC"),
            (50, "L"),
            (40, "XL"),
            (10, "X"),
            (9, "IX"),
            (5, "V"),
            (4, "IV"),
            (1, "I"),
        ):
            while n >= v:
                out, n = out + s, n - v
        return (out,)
    if spec["name"] == "parse_time":
        h, m = rng.randint(0, 23), rng.randint(0, 59)
        return (f"{h}:{m:02d}" if rng.random() < 0.5 else f"{h:02d}:{m:02d}",)
    if spec["name"] == "parse_int_list":
        return (",".join(rng.choice(["", " ", " -"]) + str(rng.randint(0, 99)) for _ in range(rng.randint(0, 4))),)
    if spec["name"] in ("intervals_overlap", "overlap_length", "interval_intersection"):
        a = sorted(rng.randint(-10, 10) for _ in range(2))
        b = sorted(rng.randint(-10, 10) for _ in range(2))
        return (a[0], a[1], b[0], b[1])
    return None


def validate(spec: dict, task: dict, rng: random.Random) -> None:
    where = f"{task['id']} ({spec['name']})"

    def fail(msg):
        raise SystemExit(f"make_code_suite: {where}: {msg}")

    if spec["returns"] not in TYPES or any(t not in TYPES for _, t in spec["args"]):
        fail("unknown type in signature")
    if not 2 <= len(spec["examples"]) <= 4:
        fail("needs 2-4 examples")
    if "import " in spec["body"]:
        fail("references must not import")
    ns: dict = {}
    exec(compile(task["reference"], f"<{task['id']}>", "exec"), ns)
    fn = ns.get(task["entry_point"])
    if not callable(fn):
        fail("entry point missing")
    params = list(__import__("inspect").signature(fn).parameters)
    if params != [n for n, _ in spec["args"]]:
        fail(f"parameters {params} != metadata {spec['args']}")
    for args, expected in spec["examples"]:
        got = fn(*args)
        ok = abs(got - expected) < 1e-9 if spec["returns"] == "float" else got == expected
        if not ok or not has_type(got, spec["returns"]):
            fail(f"example {args!r}: expected {expected!r}, reference gives {got!r}")
    tns: dict = {}
    exec(compile(task["tests"], f"<{task['id']}-tests>", "exec"), tns)
    tns["check"](fn)
    hints = task["metadata"]["input_hints"]
    for _ in range(FUZZ_CASES):
        args = special_input(spec, rng) or tuple(random_value(rng, t, hints[n]) for n, t in spec["args"])
        start = time.process_time()  # CPU, not wall: a loaded machine preempts a call for longer
        try:
            got = fn(*args)
        except Exception as exc:  # noqa: BLE001
            fail(f"raises {exc!r} on hinted input {args!r}")
        if time.process_time() - start > MAX_SECONDS:
            fail(f"too slow on {args!r}")
        if not has_type(got, spec["returns"]):
            fail(f"returns {got!r} (not {spec['returns']}) on {args!r}")
        if fn(*args) != got:
            fail(f"not deterministic on {args!r}")


def build() -> list[dict]:
    names = [s["name"] for s in SPECS]
    if len(set(names)) != len(names):
        raise SystemExit("make_code_suite: duplicate function names")
    rng = random.Random(SEED)
    tasks, position = [], {}
    specs = sorted(SPECS, key=lambda s: FAMILY_ORDER.index(s["family"]))  # stable: keeps file order
    for number, spec in enumerate(specs, 1):
        fam = spec["family"]
        position[fam] = position.get(fam, 0) + 1
        if fam in SHIFTED_FAMILIES:
            split = "shifted"
        else:
            split = "heldout" if position[fam] % 3 == 0 else "train"
        task = {
            "id": f"code-{number:04d}",
            "domain": "code",
            "prompt": render_prompt(spec),
            "reference": render_reference(spec),
            "split": split,
            "entry_point": spec["name"],
            "tests": render_tests(spec),
            "metadata": {
                "family": fam,
                "signature": {"args": spec["args"], "returns": spec["returns"]},
                "input_hints": hints_for(spec),
            },
        }
        validate(spec, task, rng)
        tasks.append(task)
    return tasks


def main(argv=None) -> int:
    return write_or_check(__doc__.splitlines()[0], OUT, "scripts/make_code_suite.py", lambda: jsonl(build()), argv)


if __name__ == "__main__":
    sys.exit(main())
